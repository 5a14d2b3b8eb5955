// SPDX-License-Identifier: MIT
#include "model/evaluate/Statistics.h"

#include "model/core/Percentile.h"

#include <QStringList>
#include <algorithm>
#include <cmath>
#include <numeric>
#include <tuple>

namespace qs {

std::optional<Distribution> describe(std::vector<double> values)
{
    std::erase_if(values, [](double v) { return !std::isfinite(v); });
    if (values.empty())
        return std::nullopt;
    std::sort(values.begin(), values.end());
    Distribution d;
    d.n = int(values.size());
    // Two passes (mean, then squared deviations from it): no cancellation for large, tight values
    // such as 1e9 ± 1.
    d.mean = std::accumulate(values.begin(), values.end(), 0.0) / double(d.n);
    if (d.n > 1) {
        double squares = 0;
        for (double v : values)
            squares += (v - d.mean) * (v - d.mean);
        d.stdev = std::sqrt(squares / double(d.n - 1));
    }
    d.min = values.front();
    d.max = values.back();
    d.p50 = *percentile(values, 50);
    d.p90 = *percentile(values, 90);
    d.p95 = *percentile(values, 95);
    d.p99 = *percentile(values, 99);
    return d;
}

std::optional<double> median(std::vector<double> values)
{
    std::erase_if(values, [](double v) { return !std::isfinite(v); });
    return percentile(std::move(values), 50);
}

QString metricId(Metric metric)
{
    switch (metric) {
    case Metric::TtftAny:
        return QStringLiteral("ttft_any_ms");
    case Metric::TtftVisible:
        return QStringLiteral("ttft_visible_ms");
    case Metric::FirstSentence:
        return QStringLiteral("first_sentence_ms");
    case Metric::E2e:
        return QStringLiteral("e2e_ms");
    case Metric::DecodeTps:
        return QStringLiteral("decode_tps");
    case Metric::CompletionTokens:
        return QStringLiteral("completion_tokens");
    case Metric::PromptTokens:
        return QStringLiteral("prompt_tokens");
    }
    return {};
}

std::optional<Metric> metricFromId(const QString& id)
{
    for (Metric m : {Metric::TtftAny, Metric::TtftVisible, Metric::FirstSentence, Metric::E2e,
             Metric::DecodeTps, Metric::CompletionTokens, Metric::PromptTokens})
        if (metricId(m) == id)
            return m;
    return std::nullopt;
}

QString metricUnit(Metric metric)
{
    switch (metric) {
    case Metric::DecodeTps:
        return QStringLiteral("tok/s");
    case Metric::CompletionTokens:
    case Metric::PromptTokens:
        return QStringLiteral("tokens");
    default:
        return QStringLiteral("ms");
    }
}

std::optional<double> metricValue(const RequestMetrics& m, Metric metric)
{
    const auto count = [](const TokenCount& c) {
        return c.value ? std::optional<double>(double(*c.value)) : std::nullopt;
    };
    switch (metric) {
    case Metric::TtftAny:
        return m.ttftAnyMs;
    case Metric::TtftVisible:
        return m.ttftVisibleMs;
    case Metric::FirstSentence:
        return m.firstSentenceMs;
    case Metric::E2e:
        return m.e2eMs;
    case Metric::DecodeTps:
        return m.decodeTps;
    case Metric::CompletionTokens:
        return count(m.completionTokens);
    case Metric::PromptTokens:
        return count(m.promptTokens);
    }
    return std::nullopt;
}

Preferred preferredDirection(Metric metric)
{
    switch (metric) {
    case Metric::DecodeTps:
        return Preferred::Higher;
    case Metric::CompletionTokens:
    case Metric::PromptTokens:
        return Preferred::Neither;
    default:
        return Preferred::Lower;
    }
}

const std::vector<Metric>& cellMetrics()
{
    static const std::vector<Metric> metrics {Metric::TtftAny, Metric::TtftVisible, Metric::FirstSentence,
        Metric::DecodeTps, Metric::E2e, Metric::CompletionTokens};
    return metrics;
}

namespace {

CellStatistics makeCell(const RunResult& result, int endpoint, const QString& test, int turn,
    const std::vector<const RunRecord*>& records)
{
    CellStatistics cell;
    cell.endpoint = endpoint;
    cell.endpointLabel = result.endpoints[std::size_t(endpoint)].endpoint.displayName();
    cell.test = test;
    cell.turn = turn;
    std::map<Metric, std::vector<double>> values;
    for (const RunRecord* r : records) {
        ++cell.measured;
        if (r->request.ok()) {
            ++cell.ok;
            for (Metric m : cellMetrics())
                if (const auto v = metricValue(r->request.metrics, m))
                    values[m].push_back(*v);
            if (r->request.metrics.completionTokens.isEstimate())
                ++cell.estimatedCompletionTokens;
        } else {
            ++cell.failed;
        }
        if (r->gates->is_object())
            for (const auto& [name, value] : r->gates->items()) {
                auto& [passed, applicable] = cell.gates[QString::fromStdString(name)];
                if (value.is_boolean()) {
                    ++applicable;
                    passed += value.get<bool>() ? 1 : 0;
                }
            }
    }
    for (auto& [metric, v] : values)
        if (auto d = describe(std::move(v)))
            cell.metrics[metricId(metric)] = *d;
    return cell;
}

} // namespace

std::vector<CellStatistics> cellStatistics(const RunResult& result)
{
    QStringList tests; // in the order they first ran
    std::map<std::pair<int, QString>, std::vector<const RunRecord*>> byTest;
    std::map<std::tuple<int, QString, int>, std::vector<const RunRecord*>> byTurn;
    std::map<QString, int> maxTurn;
    for (const RunRecord& r : result.records) {
        if (r.warmup || r.endpoint < 0 || r.endpoint >= int(result.endpoints.size()))
            continue;
        if (!tests.contains(r.test))
            tests << r.test;
        byTest[{r.endpoint, r.test}].push_back(&r);
        byTurn[{r.endpoint, r.test, r.turn}].push_back(&r);
        maxTurn[r.test] = std::max(maxTurn[r.test], r.turn);
    }
    std::vector<CellStatistics> cells;
    for (const QString& test : tests)
        for (int e = 0; e < int(result.endpoints.size()); ++e) {
            const auto it = byTest.find({e, test});
            if (it == byTest.end())
                continue;
            cells.push_back(makeCell(result, e, test, 0, it->second));
            if (maxTurn[test] <= 1)
                continue;
            for (int turn = 1; turn <= maxTurn[test]; ++turn)
                if (const auto t = byTurn.find({e, test, turn}); t != byTurn.end())
                    cells.push_back(makeCell(result, e, test, turn, t->second));
        }
    return cells;
}

QString gateCount(const std::pair<int, int>& pa)
{
    return QString::number(pa.first) + QLatin1Char('/') + QString::number(pa.second);
}

nlohmann::json roundedJson(std::optional<double> value, int decimals)
{
    if (!value || !std::isfinite(*value))
        return nullptr;
    const double scale = std::pow(10.0, decimals);
    const double r = std::round(*value * scale) / scale;
    return r == 0 ? 0.0 : r; // no "-0.0" in files
}

nlohmann::json significantJson(std::optional<double> value, int digits)
{
    if (!value || !std::isfinite(*value))
        return nullptr;
    if (*value == 0)
        return 0.0;
    const int magnitude = int(std::floor(std::log10(std::fabs(*value))));
    const double scale = std::pow(10.0, digits - 1 - magnitude);
    return std::round(*value * scale) / scale;
}

nlohmann::json toJson(const Distribution& d, int decimals)
{
    return {{"n", d.n}, {"mean", roundedJson(d.mean, decimals)}, {"stdev", roundedJson(d.stdev, decimals)},
        {"min", roundedJson(d.min, decimals)}, {"p50", roundedJson(d.p50, decimals)},
        {"p90", roundedJson(d.p90, decimals)}, {"p95", roundedJson(d.p95, decimals)},
        {"p99", roundedJson(d.p99, decimals)}, {"max", roundedJson(d.max, decimals)}};
}

nlohmann::json toJson(const CellStatistics& cell)
{
    nlohmann::json metrics = nlohmann::json::object();
    for (Metric m : cellMetrics()) {
        const auto it = cell.metrics.find(metricId(m));
        metrics[metricId(m).toStdString()]
            = it == cell.metrics.end() ? nlohmann::json(nullptr) : toJson(it->second);
    }
    nlohmann::json gates = nlohmann::json::object();
    for (const auto& [name, pa] : cell.gates)
        gates[name.toStdString()]
            = {{"passed", pa.first}, {"applicable", pa.second}, {"text", gateCount(pa).toStdString()}};
    return {{"endpoint", cell.endpointLabel.toStdString()}, {"endpoint_index", cell.endpoint},
        {"test", cell.test.toStdString()},
        {"turn", cell.turn == 0 ? nlohmann::json(nullptr) : nlohmann::json(cell.turn)},
        {"measured", cell.measured}, {"ok", cell.ok}, {"failed", cell.failed},
        {"estimated_completion_tokens", cell.estimatedCompletionTokens}, {"metrics", metrics},
        {"gates", gates}};
}

nlohmann::json toJson(const std::vector<CellStatistics>& cells)
{
    nlohmann::json array = nlohmann::json::array();
    for (const CellStatistics& c : cells)
        array.push_back(toJson(c));
    return array;
}

} // namespace qs
