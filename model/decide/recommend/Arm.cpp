// SPDX-License-Identifier: MIT
#include "model/decide/recommend/Arm.h"

#include <algorithm>

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

} // namespace qs::criteria
