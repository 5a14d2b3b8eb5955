// SPDX-License-Identifier: MIT
#pragma once

#include "model/core/RunRecord.h"

#include <QString>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

namespace qs {

/// Medians per endpoint × test (× turn for multi-turn tests) over measured runs; warm-ups and
/// failed requests never enter the timing figures.
struct SummaryRow {
    int endpoint = 0;
    QString endpointLabel;
    QString test;
    int turn = 0; ///< 0 = all turns together; 1… = one turn of a multi-turn test
    int measured = 0; ///< measured (non-warm-up) requests
    int ok = 0;
    int failed = 0;
    std::optional<double> ttftAnyMs; ///< medians
    std::optional<double> ttftVisibleMs;
    std::optional<double> firstSentenceMs;
    std::optional<double> e2eMs;
    std::optional<double> decodeTps;
    std::optional<double> completionTokens;
    int estimatedCounts = 0; ///< requests whose completion_tokens is an estimate
    std::map<QString, std::pair<int, int>> gates; ///< gate -> (passed, applicable)
    std::map<QString, int> errors; ///< failure kind -> count
};

/// Aggregate output throughput of one concurrency level: Σ completion tokens over the window
/// from the first request's t0 to the last token of the level.
struct ThroughputRow {
    int endpoint = 0;
    QString endpointLabel;
    QString test;
    int concurrency = 1;
    int requests = 0;
    qint64 outputTokens = 0;
    double windowMs = 0;
    double outputTokensPerSecond = 0;
};

struct ResultSummary {
    std::vector<SummaryRow> rows;
    std::vector<ThroughputRow> throughput; ///< only when the run used concurrency > 1 or a sweep
    int records = 0;
    int warmups = 0;
    int failures = 0;
};

ResultSummary summarize(const RunResult& result);
nlohmann::json toJson(const ResultSummary& summary);

} // namespace qs
