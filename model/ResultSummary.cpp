// SPDX-License-Identifier: MIT
#include "model/ResultSummary.h"

#include "model/Percentile.h"

#include <algorithm>
#include <cmath>
#include <tuple>

namespace qs {

namespace {
struct Group {
    std::vector<const RunRecord*> records;
};

std::optional<double> median(
    const std::vector<const RunRecord*>& records, const std::optional<double> RequestMetrics::*field)
{
    std::vector<double> v;
    for (const RunRecord* r : records)
        if (r->request.ok() && (r->request.metrics.*field))
            v.push_back(*(r->request.metrics.*field));
    return percentile(std::move(v), 50);
}

SummaryRow makeRow(const RunResult& result, int endpoint, const QString& test, int turn,
    const std::vector<const RunRecord*>& records)
{
    SummaryRow row;
    row.endpoint = endpoint;
    row.endpointLabel = result.endpoints[std::size_t(endpoint)].endpoint.displayName();
    row.test = test;
    row.turn = turn;
    std::vector<double> tokens;
    for (const RunRecord* r : records) {
        ++row.measured;
        if (r->request.ok()) {
            ++row.ok;
            if (r->request.metrics.completionTokens.value)
                tokens.push_back(double(*r->request.metrics.completionTokens.value));
            if (r->request.metrics.completionTokens.isEstimate())
                ++row.estimatedCounts;
        } else {
            ++row.failed;
            ++row.errors[failureKindId(r->request.failure.kind)];
        }
        if (r->gates.is_object())
            for (const auto& [name, value] : r->gates.items()) {
                auto& [passed, applicable] = row.gates[QString::fromStdString(name)];
                if (value.is_boolean()) {
                    ++applicable;
                    passed += value.get<bool>() ? 1 : 0;
                }
            }
    }
    row.ttftAnyMs = median(records, &RequestMetrics::ttftAnyMs);
    row.ttftVisibleMs = median(records, &RequestMetrics::ttftVisibleMs);
    row.firstSentenceMs = median(records, &RequestMetrics::firstSentenceMs);
    row.e2eMs = median(records, &RequestMetrics::e2eMs);
    row.decodeTps = median(records, &RequestMetrics::decodeTps);
    row.completionTokens = percentile(tokens, 50);
    return row;
}
} // namespace

ResultSummary summarize(const RunResult& result)
{
    ResultSummary s;
    s.records = int(result.records.size());
    // Tests in the order they first ran; endpoints in their order.
    QStringList tests;
    std::map<std::pair<int, QString>, std::vector<const RunRecord*>> byEndpointTest;
    std::map<std::tuple<int, QString, int>, std::vector<const RunRecord*>> byTurn;
    std::map<std::tuple<int, QString, int>, std::vector<const RunRecord*>> byLevel;
    std::map<QString, int> maxTurn;
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
        if (!tests.contains(r.test))
            tests << r.test;
        byEndpointTest[{r.endpoint, r.test}].push_back(&r);
        byTurn[{r.endpoint, r.test, r.turn}].push_back(&r);
        byLevel[{r.endpoint, r.test, r.concurrency}].push_back(&r);
        maxTurn[r.test] = qMax(maxTurn[r.test], r.turn);
        concurrent = concurrent || r.concurrency > 1;
    }
    for (const QString& test : tests) {
        for (int e = 0; e < int(result.endpoints.size()); ++e) {
            const auto it = byEndpointTest.find({e, test});
            if (it == byEndpointTest.end())
                continue;
            s.rows.push_back(makeRow(result, e, test, 0, it->second));
            if (maxTurn[test] > 1)
                for (int turn = 1; turn <= maxTurn[test]; ++turn) {
                    const auto t = byTurn.find({e, test, turn});
                    if (t != byTurn.end())
                        s.rows.push_back(makeRow(result, e, test, turn, t->second));
                }
        }
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
