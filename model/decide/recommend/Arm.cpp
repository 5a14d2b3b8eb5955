// SPDX-License-Identifier: MIT
#include "model/decide/recommend/Arm.h"

#include "model/core/Percentile.h"
#include "model/core/TestNumbering.h"
#include "model/evaluate/PromptEvidence.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace qs::criteria {

bool runHasTest(const Arm& arm, const QString& test)
{
    return std::any_of(arm.result.records.begin(), arm.result.records.end(),
        [&](const RunRecord& r) { return !r.warmup && r.test == test; });
}

// Gate counts over the candidate's all-turns cells (a multi-turn test's every turn counts).
std::pair<int, int> gateCounts(const Arm& arm, const Criterion& c)
{
    std::pair<int, int> total {0, 0};
    for (const CellStatistics& cell : arm.evaluation.cells) {
        if (cell.endpoint != arm.candidate || cell.turn != 0 || (!c.test.isEmpty() && cell.test != c.test))
            continue;
        if (const auto it = cell.gates.find(c.gate); it != cell.gates.end()) {
            total.first += it->second.first;
            total.second += it->second.second;
        }
    }
    return total;
}

// One test: its all-turns cell, as in the summary table. All tests: the candidate's measured,
// successful requests pooled (one distribution, not a median of medians).
std::optional<Distribution> distribution(const Arm& arm, const Criterion& c)
{
    const QString id = metricId(c.metric);
    if (!c.test.isEmpty())
        for (const CellStatistics& cell : arm.evaluation.cells)
            if (cell.endpoint == arm.candidate && cell.turn == 0 && cell.test == c.test) {
                const auto it = cell.metrics.find(id);
                if (it != cell.metrics.end())
                    return it->second;
            }
    std::vector<double> values;
    for (const RunRecord& r : arm.result.records) {
        if (r.warmup || r.endpoint != arm.candidate || !r.request.ok()
            || (!c.test.isEmpty() && r.test != c.test))
            continue;
        if (const auto v = metricValue(r.request.metrics, c.metric))
            values.push_back(*v);
    }
    return describe(std::move(values));
}

double statisticOf(const Distribution& d, const QString& statistic)
{
    if (statistic == u"p90")
        return d.p90;
    if (statistic == u"p95")
        return d.p95;
    if (statistic == u"p99")
        return d.p99;
    if (statistic == u"mean")
        return d.mean;
    return d.p50;
}

// Whether `endpoint` has any value of the criterion's metric (or any judged answer of its gate).
bool hasData(const Arm& arm, const Criterion& c, int endpoint)
{
    for (const RunRecord& r : arm.result.records) {
        if (r.warmup || r.endpoint != endpoint || (!c.test.isEmpty() && r.test != c.test))
            continue;
        if (isGateCriterion(c)) {
            const auto it = r.gates->find(c.gate.toStdString());
            if (it != r.gates->end() && it->is_boolean())
                return true;
        } else if (r.request.ok() && metricValue(r.request.metrics, c.metric)) {
            return true;
        }
    }
    return false;
}

PromptRate promptPassRate(const Arm& arm, const Criterion& c)
{
    TestNumbering prompts;
    std::vector<std::pair<int, int>> counts; // (passed, judged) per prompt
    const std::string gate = c.gate.toStdString();
    for (const RunRecord& r : arm.result.records) {
        if (r.warmup || r.endpoint != arm.candidate || (!c.test.isEmpty() && r.test != c.test))
            continue;
        const auto it = r.gates->find(gate);
        if (it == r.gates->end() || !it->is_boolean())
            continue;
        const auto p = std::size_t(prompts.number(r.test));
        if (p == counts.size())
            counts.emplace_back(0, 0);
        counts[p].first += it->get<bool>() ? 1 : 0;
        ++counts[p].second;
    }
    PromptRate rate;
    for (const auto& [passed, judged] : counts) {
        rate.passed += double(passed) / double(judged);
        ++rate.prompts;
    }
    return rate;
}

std::vector<std::vector<double>> promptValues(const Arm& arm, const Criterion& c)
{
    TestNumbering prompts;
    std::vector<std::vector<double>> values;
    for (const RunRecord& r : arm.result.records) {
        if (r.warmup || r.endpoint != arm.candidate || !r.request.ok()
            || (!c.test.isEmpty() && r.test != c.test))
            continue;
        const auto v = metricValue(r.request.metrics, c.metric);
        if (!v || !std::isfinite(*v))
            continue;
        const auto p = std::size_t(prompts.number(r.test));
        if (p == values.size())
            values.emplace_back();
        values[p].push_back(*v);
    }
    return values;
}

StatisticEvidence statisticEvidence(
    const std::vector<std::vector<double>>& clusters, const QString& statistic)
{
    StatisticEvidence e;
    std::size_t n = 0;
    for (const auto& c : clusters)
        n += c.size();
    if (clusters.size() < 2) {
        e.why = QStringLiteral("it rests on one prompt, whose repeats show how steady its timing is, not the "
                               "endpoint's on prompts in general: judge it over at least 2 distinct prompts");
        return e;
    }
    const std::optional<double> q = statistic == u"mean" ? std::nullopt
        : statistic == u"p90"                            ? std::optional(0.90)
        : statistic == u"p95"                            ? std::optional(0.95)
        : statistic == u"p99"                            ? std::optional(0.99)
                                                         : std::optional(0.50);
    if (q && int(n) < minValuesForQuantile(*q)) {
        e.why = QStringLiteral("%1 values cannot estimate a %2 (a distribution-free interval of it needs at "
                               "least %3)")
                    .arg(n)
                    .arg(statistic)
                    .arg(minValuesForQuantile(*q));
        return e;
    }
    // Bounded work: recommend() may run on the GUI thread over a 100,000-record file.
    BootstrapOptions options;
    options.resamples = int(std::clamp<std::size_t>(20'000'000 / std::max<std::size_t>(n, 1), 200, 2000));
    const auto stat = [&](const std::vector<double>& v) -> std::optional<double> {
        if (!q)
            return v.empty() ? std::nullopt
                             : std::optional(std::accumulate(v.begin(), v.end(), 0.0) / double(v.size()));
        return percentile(v, *q * 100);
    };
    e.resampled = clusterResamples(clusters, stat, options);
    e.interval = percentileInterval(e.resampled, 0.95);
    return e;
}

} // namespace qs::criteria
