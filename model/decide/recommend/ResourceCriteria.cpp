// SPDX-License-Identifier: MIT
// Resource criteria: a budget on one server figure (peak memory ≤ 110 GB), or one figure not worse
// than the baseline's. The figures are Evaluation::resources (model/evaluate/Resources.h): one per
// endpoint, not a distribution of requests, so "not worse" compares two numbers with a stated
// tolerance instead of a paired test.
#include "model/decide/recommend/Arm.h"
#include "model/decide/recommend/Criteria.h"
#include "model/decide/recommend/CriterionText.h"

#include <algorithm>
#include <cmath>

namespace qs::criteria {

using Outcome = CriterionResult::Outcome;
using Resource = Criterion::Resource;

namespace {

const EndpointResources* resourcesOf(const Arm& arm, int endpoint)
{
    return findResources(arm.evaluation.resources, endpoint);
}

const ConcurrencyResources* atLevel(const EndpointResources& e, int level)
{
    for (const ConcurrencyResources& c : e.byConcurrency)
        if (c.concurrency == level && c.memoryPeak.value)
            return &c;
    return nullptr;
}

// The levels an endpoint has a memory figure at, ascending.
std::vector<int> levels(const EndpointResources* e)
{
    std::vector<int> out;
    if (e)
        for (const ConcurrencyResources& c : e->byConcurrency)
            if (c.memoryPeak.value)
                out.push_back(c.concurrency);
    return out;
}

// memory_at_concurrency without "concurrency": the highest level measured (on both arms, for "not
// worse", so the two figures describe the same load).
int levelFor(const Arm& arm, const Criterion& c)
{
    if (c.concurrency > 0)
        return c.concurrency;
    std::vector<int> candidate = levels(resourcesOf(arm, arm.candidate));
    if (c.kind == Criterion::Kind::ResourceNotWorse) {
        const std::vector<int> baseline = levels(resourcesOf(arm, arm.baseline));
        std::erase_if(candidate,
            [&](int l) { return std::find(baseline.begin(), baseline.end(), l) == baseline.end(); });
    }
    return candidate.empty() ? 0 : candidate.back();
}

const ResourceFigure* figureOf(const Arm& arm, const Criterion& c, int endpoint, int level)
{
    const EndpointResources* e = resourcesOf(arm, endpoint);
    if (!e)
        return nullptr;
    const ResourceFigure* f = nullptr;
    switch (c.resource) {
    case Resource::PeakMemory:
        f = &e->memoryPeak;
        break;
    case Resource::IdleMemory:
        f = &e->memoryIdle;
        break;
    case Resource::MemoryAtConcurrency:
        if (const ConcurrencyResources* at = atLevel(*e, level))
            f = &at->memoryPeak;
        break;
    case Resource::PowerMedian:
        f = &e->powerMedian;
        break;
    case Resource::EnergyPerToken:
        f = &e->energyPerToken;
        break;
    }
    return f && f->value && std::isfinite(*f->value) ? f : nullptr;
}

// Why `endpoint` has no such figure, as a clause: "no telemetry was collected in this run".
QString missingWhy(const Arm& arm, const Criterion& c, int endpoint, int level)
{
    if (!arm.evaluation.resources.collected)
        return QStringLiteral("no server telemetry was collected in this run");
    const EndpointResources* e = resourcesOf(arm, endpoint);
    if (!e || e->sources.isEmpty())
        return QStringLiteral("nothing was scraped for it");
    switch (c.resource) {
    case Resource::PeakMemory:
    case Resource::IdleMemory:
        break;
    case Resource::MemoryAtConcurrency:
        if (e->memoryPeak.value) {
            QStringList measured;
            for (int l : levels(e))
                measured << QString::number(l);
            return level > 0 ? QStringLiteral("no memory sample while %1 of its requests were in flight%2")
                                   .arg(level)
                                   .arg(measured.isEmpty() ? QString()
                                                           : QStringLiteral(" (measured at: ")
                                               + measured.join(QStringLiteral(", ")) + u')')
                             : QStringLiteral("no memory sample at any concurrency level both endpoints ran");
        }
        break;
    case Resource::PowerMedian:
        return QStringLiteral("its metrics pages report no GPU power (DCGM_FI_DEV_POWER_USAGE)");
    case Resource::EnergyPerToken:
        return QStringLiteral("its metrics pages report neither an energy counter "
                              "(DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION) nor GPU power to integrate");
    }
    return QStringLiteral("its metrics pages report no memory (a runtime's own /metrics has none)");
}

// What to do about it.
QString collectHint(const Criterion& c, int level)
{
    if (c.resource == Resource::MemoryAtConcurrency && level > 0)
        return QStringLiteral("run it at that load (--concurrency %1, or a suite's concurrency sweep) with "
                              "a memory exporter among the endpoint's metrics=URL")
            .arg(level);
    if (c.resource == Resource::PowerMedian || c.resource == Resource::EnergyPerToken)
        return QStringLiteral(
            "give the endpoint metrics=URL of a DCGM exporter (e.g. metrics=http://HOST:9400/metrics)");
    return QStringLiteral("give the endpoint metrics=URL of a DCGM exporter (GPU memory, :9400/metrics) or a "
                          "node exporter (host memory, what unified-memory machines such as the DGX Spark "
                          "report; :9100/metrics)");
}

Judged notMeasured(const Arm& arm, const Criterion& c, const QString& required, int endpoint, int level)
{
    const QString label = endpoint == arm.candidate ? arm.candidateLabel : arm.baselineLabel;
    const QString name = resourceName(c.resource, c.resource == Resource::MemoryAtConcurrency ? level : 0);
    const QString why = missingWhy(arm, c, endpoint, level);
    const QString change
        = QStringLiteral("%1 not measured on %2 (%3): %4.").arg(c.title, label, why, collectHint(c, level));
    if (!c.optional)
        return inconclusive(c, QStringLiteral("not measured on ") + label, required,
            QStringLiteral("%1 has no %2: %3.").arg(label, name, why), change);
    Judged j = inconclusive(c, QStringLiteral("not measured on ") + label, required,
        QStringLiteral("%1 has no %2: %3. The criterion is optional, so it decides nothing, but it was "
                       "not checked either.")
            .arg(label, name, why),
        change);
    j.result.outcome = Outcome::NotMeasured;
    return j;
}

QString resourceFix(Resource r)
{
    switch (r) {
    case Resource::PeakMemory:
    case Resource::IdleMemory:
    case Resource::MemoryAtConcurrency:
        break;
    case Resource::PowerMedian:
        return QStringLiteral("cap the GPU's power (nvidia-smi -pl) or keep fewer requests in flight");
    case Resource::EnergyPerToken:
        return QStringLiteral("decode faster at the same power (CUDA graphs instead of --enforce-eager, "
                              "batching), or serve a smaller quantization");
    }
    return QStringLiteral("reserve less memory (vLLM --gpu-memory-utilization and a shorter --max-model-len, "
                          "SGLang --mem-fraction-static, llama-server a smaller -c context), or serve a "
                          "smaller quantization");
}

QString samplesNote(const ResourceFigure& f)
{
    return f.samples > 0 ? QStringLiteral(" (%1 samples)").arg(f.samples) : QString();
}

Judged judgeMax(const Arm& arm, const Criterion& c)
{
    const int level = levelFor(arm, c);
    const QString required = QStringLiteral("≤ ") + resourceValueText(c.resource, c.threshold, c.unit);
    const ResourceFigure* f = figureOf(arm, c, arm.candidate, level);
    if (!f)
        return notMeasured(arm, c, required, arm.candidate, level);
    const double value = *f->value;
    const QString name = resourceName(c.resource, c.resource == Resource::MemoryAtConcurrency ? level : 0);
    const QString shown = resourceValueText(c.resource, value, c.unit);
    Judged j;
    j.result.criterion = c;
    j.result.required = required;
    j.result.measured = shown + samplesNote(*f);
    const bool pass = value <= c.threshold;
    j.result.outcome = pass ? Outcome::Pass : Outcome::Fail;
    j.result.explanation
        = QStringLiteral("%1's %2 is %3, %4 %5 (%6).")
              .arg(arm.candidateLabel, name, shown, pass ? QStringLiteral("within") : QStringLiteral("over"),
                  required, f->source.isEmpty() ? QStringLiteral("source not recorded") : f->source);
    if (!pass)
        j.change
            = QStringLiteral("%1's %2 is %3 and must be %4 (%5 less): %6.")
                  .arg(arm.candidateLabel, name, shown, required,
                      resourceValueText(c.resource, value - c.threshold, c.unit), resourceFix(c.resource));
    return j;
}

Judged judgeNotWorse(const Arm& arm, const Criterion& c)
{
    const int level = levelFor(arm, c);
    const QString tolerance = percent(c.tolerance);
    const QString required
        = QStringLiteral("≤ %1 + %2 (one figure each, no paired test)").arg(arm.baselineLabel, tolerance);
    const ResourceFigure* cand = figureOf(arm, c, arm.candidate, level);
    if (!cand)
        return notMeasured(arm, c, required, arm.candidate, level);
    const ResourceFigure* base = figureOf(arm, c, arm.baseline, level);
    if (!base)
        return notMeasured(arm, c, required, arm.baseline, level);
    const double cv = *cand->value;
    const double bv = *base->value;
    const QString name = resourceName(c.resource, c.resource == Resource::MemoryAtConcurrency ? level : 0);
    Judged j;
    j.result.criterion = c;
    j.result.required = required;
    j.result.measured = QStringLiteral("%1 vs %2")
                            .arg(resourceValueText(c.resource, cv), resourceValueText(c.resource, bv));
    if (bv > 0)
        j.result.measured += QStringLiteral(" (%1)").arg(signedPercent(cv / bv - 1));
    const bool pass = cv <= bv * (1 + c.tolerance) + 1e-12;
    j.result.outcome = pass ? Outcome::Pass : Outcome::Fail;
    const QString who = QStringLiteral("%1's %2").arg(arm.candidateLabel, name);
    j.result.explanation = QStringLiteral("%1 is %2 against %3's %4: %5 the %6 tolerance (one figure per "
                                          "endpoint, so there is no interval to test).")
                               .arg(who, resourceValueText(c.resource, cv), arm.baselineLabel,
                                   resourceValueText(c.resource, bv),
                                   pass ? QStringLiteral("within") : QStringLiteral("beyond"), tolerance);
    if (!pass)
        j.change = QStringLiteral("%1 is %2 and may be at most %3 more than %4's: %5.")
                       .arg(who, j.result.measured, tolerance, arm.baselineLabel, resourceFix(c.resource));
    return j;
}

} // namespace

Judged judgeResource(const Arm& arm, const Criterion& c)
{
    return c.kind == Criterion::Kind::ResourceMax ? judgeMax(arm, c) : judgeNotWorse(arm, c);
}

} // namespace qs::criteria
