// SPDX-License-Identifier: MIT
#include "model/evaluate/guardrails/GuardrailCheck.h"

#include "model/core/Percentile.h"

#include <algorithm>
#include <cmath>

namespace qs::guardrails {

QString jsonString(const json& j, const char* key)
{
    if (j.is_object() && j.contains(key) && j[key].is_string())
        return QString::fromStdString(j[key].get<std::string>());
    return {};
}

QString fmtMs(double ms)
{
    if (std::abs(ms) >= 10)
        return QString::number(std::llround(ms)) + QStringLiteral(" ms");
    return QString::number(ms, 'f', 1) + QStringLiteral(" ms");
}

QString fmtPercent(double share)
{
    return QString::number(std::llround(share * 100)) + QStringLiteral(" %");
}

double median(std::vector<double> values)
{
    return percentile(std::move(values), 50).value_or(0);
}

QString listed(const QStringList& items, int max)
{
    if (items.size() <= max)
        return items.join(QStringLiteral(", "));
    return items.mid(0, max).join(QStringLiteral(", "))
        + QStringLiteral(", … (%1 more)").arg(items.size() - max);
}

void addUnique(QStringList& list, const QString& item)
{
    if (!item.isEmpty() && !list.contains(item))
        list << item;
}

QString thinkingText(const RunRecord& r)
{
    const AssembledResponse& a = r.request.response;
    QString t = a.reasoning;
    if (r.request.metrics.thinkingInContent)
        t += a.content.left(r.request.metrics.visibleContentOffset);
    t.remove(QStringLiteral("<think>")).remove(QStringLiteral("</think>"));
    return t.trimmed();
}

bool thought(const RunRecord& r)
{
    return !thinkingText(r).isEmpty();
}

std::optional<double> cachedShare(const RunRecord& r)
{
    const RequestMetrics& m = r.request.metrics;
    if (!m.promptTokens.value || !m.cachedPromptTokens.value || *m.promptTokens.value <= 0)
        return std::nullopt;
    return double(*m.cachedPromptTokens.value) / double(*m.promptTokens.value);
}

std::map<GroupKey, std::vector<const RunRecord*>> groups(const std::vector<const RunRecord*>& records)
{
    std::map<GroupKey, std::vector<const RunRecord*>> g;
    for (const RunRecord* r : records)
        g[{r->test, r->turn, r->concurrency}].push_back(r);
    return g;
}

QString groupName(const GroupKey& k, bool showLevel)
{
    QString s = std::get<0>(k);
    if (std::get<1>(k) > 1)
        s += QStringLiteral(" turn %1").arg(std::get<1>(k));
    if (showLevel)
        s += QStringLiteral(" @c%1").arg(std::get<2>(k));
    return s;
}

Context::Context(const RunResult& r)
    : run(r)
    , measured(r.endpoints.size())
    , all(r.endpoints.size())
{
    for (const RunRecord& rec : r.records) {
        if (rec.endpoint < 0 || std::size_t(rec.endpoint) >= r.endpoints.size())
            continue;
        all[std::size_t(rec.endpoint)].push_back(&rec);
        if (!rec.warmup)
            measured[std::size_t(rec.endpoint)].push_back(&rec);
        addUnique(tests, rec.test);
    }
    // Records arrive in finish order; the plan's order is the start order.
    const auto byStart
        = [](const RunRecord* a, const RunRecord* b) { return a->startOffsetMs < b->startOffsetMs; };
    for (auto& v : measured)
        std::stable_sort(v.begin(), v.end(), byStart);
    for (auto& v : all)
        std::stable_sort(v.begin(), v.end(), byStart);
    for (std::size_t i = 0; i < measured.size(); ++i)
        if (!measured[i].empty())
            arms.push_back(int(i));
    if (!r.telemetry.empty())
        resources = computeResources(r);
    if (!r.judging.empty())
        judged = judgeQuality(r);
    fidelity = computeFidelity(r, arms.empty() ? 0 : arms.front(), -1, false);
}

std::vector<const RunRecord*> Context::completed(int e) const
{
    std::vector<const RunRecord*> out;
    for (const RunRecord* r : measured[std::size_t(e)])
        if (r->request.ok())
            out.push_back(r);
    return out;
}

Runtime Context::runtime(int e) const
{
    const RunEndpoint& re = endpoint(e);
    if (re.endpoint.runtime != Runtime::Unknown)
        return re.endpoint.runtime;
    return runtimeFromName(jsonString(re.probe, "runtime")).value_or(Runtime::Unknown);
}

void Context::sortTests(QStringList& list) const
{
    std::sort(list.begin(), list.end(),
        [this](const QString& a, const QString& b) { return tests.indexOf(a) < tests.indexOf(b); });
}

std::optional<Guardrail> report(const Context& ctx, Finding found, Severity severity, QString title,
    QString advice, const QString& separator)
{
    if (found.evidence.isEmpty())
        return std::nullopt;
    ctx.sortTests(found.tests);
    std::vector<int>& endpoints = found.endpoints;
    std::sort(endpoints.begin(), endpoints.end());
    endpoints.erase(std::unique(endpoints.begin(), endpoints.end()), endpoints.end());
    return Guardrail {QString(), severity, std::move(title), found.evidence.join(separator),
        std::move(advice), std::move(endpoints), std::move(found.tests)};
}

} // namespace qs::guardrails
