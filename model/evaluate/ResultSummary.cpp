// SPDX-License-Identifier: MIT
#include "model/evaluate/ResultSummary.h"

#include "model/evaluate/Statistics.h"

#include <algorithm>
#include <cmath>
#include <tuple>

namespace qs {

namespace {
std::optional<double> p50(const CellStatistics& cell, Metric metric)
{
    const auto it = cell.metrics.find(metricId(metric));
    return it == cell.metrics.end() ? std::nullopt : std::optional<double>(it->second.p50);
}
} // namespace

ResultSummary summarize(const RunResult& result)
{
    ResultSummary s;
    s.records = int(result.records.size());
    // Failure kinds per cell (the all-turns cell and each turn's); everything else comes from
    // cellStatistics(), the one place records are grouped and described.
    std::map<std::tuple<int, QString, int>, std::map<QString, int>> errors;
    std::map<std::tuple<int, QString, int>, std::vector<const RunRecord*>> byLevel;
    bool concurrent = false;
    for (const RunRecord& r : result.records) {
        if (r.endpoint < 0 || r.endpoint >= int(result.endpoints.size()))
            continue;
        if (!r.request.ok())
            ++s.failures;
        if (r.warmup) {
            ++s.warmups;
            continue;
        }
        if (!r.request.ok()) {
            const QString kind = failureKindId(r.request.failure.kind);
            ++errors[{r.endpoint, r.test, 0}][kind];
            ++errors[{r.endpoint, r.test, r.turn}][kind];
        }
        byLevel[{r.endpoint, r.test, r.concurrency}].push_back(&r);
        concurrent = concurrent || r.concurrency > 1;
    }
    for (const CellStatistics& c : cellStatistics(result)) {
        SummaryRow row;
        row.endpoint = c.endpoint;
        row.endpointLabel = c.endpointLabel;
        row.test = c.test;
        row.turn = c.turn;
        row.measured = c.measured;
        row.ok = c.ok;
        row.failed = c.failed;
        row.ttftAnyMs = p50(c, Metric::TtftAny);
        row.ttftVisibleMs = p50(c, Metric::TtftVisible);
        row.firstSentenceMs = p50(c, Metric::FirstSentence);
        row.e2eMs = p50(c, Metric::E2e);
        row.decodeTps = p50(c, Metric::DecodeTps);
        row.completionTokens = p50(c, Metric::CompletionTokens);
        row.estimatedCounts = c.estimatedCompletionTokens;
        row.gates = c.gates;
        row.errors = errors[{c.endpoint, c.test, c.turn}];
        s.rows.push_back(std::move(row));
    }
    if (concurrent) {
        for (const auto& [key, records] : byLevel) {
            const auto& [endpoint, test, level] = key;
            ThroughputRow row;
            row.endpoint = endpoint;
            row.endpointLabel = result.endpoints[std::size_t(endpoint)].endpoint.displayName();
            row.test = test;
            row.concurrency = level;
            double first = 0, last = 0;
            bool any = false;
            for (const RunRecord* r : records) {
                ++row.requests;
                const RequestMetrics& m = r->request.metrics;
                if (!r->request.ok() || !m.e2eMs)
                    continue;
                row.outputTokens += m.completionTokens.value.value_or(0);
                const double end = r->startOffsetMs + *m.e2eMs;
                first = any ? qMin(first, r->startOffsetMs) : r->startOffsetMs;
                last = any ? qMax(last, end) : end;
                any = true;
            }
            row.windowMs = last - first;
            row.outputTokensPerSecond
                = row.windowMs > 0 ? double(row.outputTokens) / (row.windowMs / 1000.0) : 0;
            s.throughput.push_back(row);
        }
    }
    return s;
}

nlohmann::json toJson(const ResultSummary& s)
{
    const auto opt = [](const std::optional<double>& v) {
        return v ? nlohmann::json(std::round(*v * 1000.0) / 1000.0) : nlohmann::json(nullptr);
    };
    nlohmann::json rows = nlohmann::json::array();
    for (const SummaryRow& r : s.rows) {
        nlohmann::json gates = nlohmann::json::object();
        for (const auto& [name, pa] : r.gates)
            gates[name.toStdString()] = {{"passed", pa.first}, {"applicable", pa.second}};
        nlohmann::json errors = nlohmann::json::object();
        for (const auto& [kind, n] : r.errors)
            errors[kind.toStdString()] = n;
        rows.push_back({{"endpoint", r.endpointLabel.toStdString()}, {"endpoint_index", r.endpoint},
            {"test", r.test.toStdString()},
            {"turn", r.turn == 0 ? nlohmann::json(nullptr) : nlohmann::json(r.turn)},
            {"measured", r.measured}, {"ok", r.ok}, {"failed", r.failed},
            {"ttft_any_ms_p50", opt(r.ttftAnyMs)}, {"ttft_visible_ms_p50", opt(r.ttftVisibleMs)},
            {"first_sentence_ms_p50", opt(r.firstSentenceMs)}, {"e2e_ms_p50", opt(r.e2eMs)},
            {"decode_tps_p50", opt(r.decodeTps)}, {"completion_tokens_p50", opt(r.completionTokens)},
            {"estimated_token_counts", r.estimatedCounts}, {"gates", gates}, {"errors", errors}});
    }
    nlohmann::json throughput = nlohmann::json::array();
    for (const ThroughputRow& t : s.throughput)
        throughput.push_back({{"endpoint", t.endpointLabel.toStdString()}, {"test", t.test.toStdString()},
            {"concurrency", t.concurrency}, {"requests", t.requests}, {"output_tokens", t.outputTokens},
            {"window_ms", std::round(t.windowMs * 1000.0) / 1000.0},
            {"output_tokens_per_second", std::round(t.outputTokensPerSecond * 100.0) / 100.0}});
    return {{"records", s.records}, {"warmups", s.warmups}, {"failures", s.failures}, {"rows", rows},
        {"throughput", throughput}};
}

} // namespace qs
