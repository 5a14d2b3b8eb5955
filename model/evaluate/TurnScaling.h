// SPDX-License-Identifier: MIT
#pragma once

#include "model/core/RunRecord.h"

#include <QString>
#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

namespace qs {

// How latency grows over the turns of a conversation, and at which answer length and turn a
// fast-start/slow-decode endpoint overtakes a slow-start/fast-decode one. Formulas:
// docs/methodology.md §9.

/// Medians of one turn over successful measured requests.
struct TurnMedians {
    int turn = 1;
    int n = 0; ///< successful measured requests of this turn
    std::optional<double> ttftAnyMs;
    std::optional<double> ttftVisibleMs;
    std::optional<double> promptTokens;
    std::optional<double> decodeTps;
    std::optional<double> e2eMs;
    std::optional<double> completionTokens;
};

/// Ordinary least squares y = intercept + slope·x.
struct LinearFit {
    int n = 0;
    double slope = 0;
    double intercept = 0;
    std::optional<double> r2; ///< absent when every y is the same (nothing to explain)
};
/// Nothing for fewer than two points or when every x is the same.
std::optional<LinearFit> fitLine(const std::vector<double>& x, const std::vector<double>& y);

/// One endpoint's multi-turn test.
struct EndpointScaling {
    QString test;
    int endpoint = 0;
    QString endpointLabel;
    std::vector<TurnMedians> turns; ///< turns with at least one successful request, ascending
    /// median TTFT of the last turn / of the first (named by `turns.front/back().turn`)
    std::optional<double> ttftAnyGrowth;
    std::optional<double> ttftVisibleGrowth;
    /// TTFT against prompt tokens over individual requests; slope in ms per 1000 prompt tokens.
    std::optional<LinearFit> ttftAnyPerKiloToken;
    std::optional<LinearFit> ttftVisiblePerKiloToken;
    QString sentence;
};

/// e2e(N) ≈ TTFT + N / decode_tps: the time to an answer of N completion tokens.
struct LatencyModel {
    double ttftMs = 0; ///< median ttft_any_ms
    double decodeTps = 0; ///< median decode_tps
    double predictMs(double tokens) const { return ttftMs + 1000.0 * tokens / decodeTps; }
};

enum class Faster { First, Second, Neither };

/// Where two latency models cross: N* = (TTFT_b − TTFT_a) / (1000/r_a − 1000/r_b) tokens, when
/// positive and finite. Below N* the arm with the lower TTFT is faster, above it the arm that
/// decodes faster. Without a crossing one arm is faster at every length (or neither: identical).
struct Crossover {
    std::optional<double> tokens;
    Faster fasterShort = Faster::Neither; ///< for answers shorter than N* (or any length)
    Faster fasterLong = Faster::Neither; ///< for answers longer than N* (or any length)
};
Crossover crossover(const LatencyModel& a, const LatencyModel& b);

struct TurnCrossover {
    int turn = 1;
    LatencyModel first;
    LatencyModel second;
    Crossover crossover;
};

/// For one answer length: which arm the models predict to be faster at each turn, and the first
/// turn at which that changes.
struct LengthOutlook {
    double tokens = 0;
    bool typical = false; ///< the test's median completion tokens (both arms pooled)
    std::vector<std::pair<int, int>> fasterByTurn; ///< (turn, endpoint index or −1 for a tie)
    std::optional<int> changeTurn; ///< first measured turn whose faster arm differs from the first turn's
    /// When nothing changes within the measured turns: the turn at which it would, extrapolating
    /// each arm's median TTFT linearly over turns (decode rate of the last turn), if within
    /// `projectionHorizon` turns.
    std::optional<int> projectedChangeTurn;
    int projectionHorizon = 0;
    QString sentence;
};

struct PairCrossover {
    QString test;
    int first = 0; ///< endpoint indices, first < second
    int second = 1;
    QString firstLabel;
    QString secondLabel;
    std::vector<TurnCrossover> turns; ///< turns where both arms have a model
    std::vector<LengthOutlook> lengths; ///< typical length, then 50 and 200 tokens
    QString sentence;
};

struct TurnScaling {
    std::vector<EndpointScaling> endpoints; ///< per multi-turn test × endpoint
    std::vector<PairCrossover> pairs; ///< per multi-turn test × pair of endpoints
};

/// Over measured (non-warm-up), successful requests of the tests that have more than one turn.
TurnScaling turnScaling(const RunResult& result);

nlohmann::json toJson(const LinearFit& fit);
nlohmann::json toJson(const EndpointScaling& scaling);
nlohmann::json toJson(const PairCrossover& pair);
nlohmann::json toJson(const TurnScaling& scaling);

} // namespace qs
