// SPDX-License-Identifier: MIT
#pragma once

#include "model/core/RunRecord.h"

#include <QString>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <utility>
#include <vector>

namespace qs {

/// Descriptive statistics of one metric in one cell. Formulas: docs/methodology.md §9.
struct Distribution {
    int n = 0;
    double mean = 0;
    std::optional<double> stdev; ///< sample standard deviation (divisor n − 1); absent for n = 1
    double min = 0;
    double p50 = 0; ///< percentiles: type 7 (qs::percentile, methodology §5)
    double p90 = 0;
    double p95 = 0;
    double p99 = 0;
    double max = 0;
};

/// n, mean, stdev, min, p50/p90/p95/p99, max of `values`. Non-finite values are ignored;
/// nothing when no finite value is left.
std::optional<Distribution> describe(std::vector<double> values);

/// Type-7 median of the finite values (the mean of the two middle ones for an even count).
std::optional<double> median(std::vector<double> values);

/// The per-request measurements that statistics and comparisons are computed over.
enum class Metric {
    TtftAny,
    TtftVisible,
    FirstSentence,
    E2e,
    DecodeTps,
    CompletionTokens,
    PromptTokens,
};

/// Stable snake_case ids, as in result records: "ttft_any_ms", "ttft_visible_ms",
/// "first_sentence_ms", "e2e_ms", "decode_tps", "completion_tokens", "prompt_tokens".
QString metricId(Metric metric);
std::optional<Metric> metricFromId(const QString& id);
QString metricUnit(Metric metric); ///< "ms", "tok/s", "tokens"
std::optional<double> metricValue(const RequestMetrics& metrics, Metric metric);

/// Which way is better. completion_tokens is neither: more tokens is not better or worse per se.
enum class Preferred { Lower, Higher, Neither };
Preferred preferredDirection(Metric metric);

/// The metrics described per cell: ttft_any_ms, ttft_visible_ms, first_sentence_ms, decode_tps,
/// e2e_ms, completion_tokens.
const std::vector<Metric>& cellMetrics();

/// One endpoint × test (× turn) cell over measured (non-warm-up) requests. Timings and token
/// counts come from successful requests only; gates from every measured request whose gate is
/// true or false (null = not applicable, not counted).
struct CellStatistics {
    int endpoint = 0;
    QString endpointLabel;
    QString test;
    int turn = 0; ///< 0 = all turns together; 1… = one turn of a multi-turn test
    int measured = 0;
    int ok = 0;
    int failed = 0;
    int estimatedCompletionTokens = 0; ///< successful requests whose completion_tokens is an estimate
    std::map<QString, Distribution> metrics; ///< metricId -> distribution (absent: no value at all)
    std::map<QString, std::pair<int, int>> gates; ///< gate -> (passed, applicable)
};

/// Cells in the order tests first ran, endpoints in index order; for a multi-turn test the
/// all-turns cell comes first, then one cell per turn.
std::vector<CellStatistics> cellStatistics(const RunResult& result);

/// "3/15".
QString gateCount(const std::pair<int, int>& passedApplicable);

/// JSON helpers shared by the statistics modules: null for absent, otherwise rounded.
nlohmann::json roundedJson(std::optional<double> value, int decimals);
nlohmann::json significantJson(std::optional<double> value, int digits); ///< e.g. p-values

nlohmann::json toJson(const Distribution& distribution, int decimals = 3);
nlohmann::json toJson(const CellStatistics& cell);
nlohmann::json toJson(const std::vector<CellStatistics>& cells);

} // namespace qs
