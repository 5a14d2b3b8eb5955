// SPDX-License-Identifier: MIT
// Resource criteria: a budget on one server figure (peak memory ≤ 110 GB), or one figure not worse
// than the baseline's. The figures are Evaluation::resources (model/evaluate/Resources.h): one per
// endpoint, not a distribution of requests, so "not worse" compares two numbers with a stated
// tolerance instead of a paired test.
#include "model/decide/recommend/Arm.h"
#include "model/decide/recommend/BoundTest.h"
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
    const QString required = marginText(c);
    const ResourceFigure* cand = figureOf(arm, c, arm.candidate, level);
    if (!cand)
        return notMeasured(arm, c, required, arm.candidate, level);
    const ResourceFigure* base = figureOf(arm, c, arm.baseline, level);
    if (!base)
        return notMeasured(arm, c, required, arm.baseline, level);
    const double cv = *cand->value;
    const double bv = *base->value;
    const QString name = resourceName(c.resource, c.resource == Resource::MemoryAtConcurrency ? level : 0);
    const QString who = QStringLiteral("%1's %2").arg(arm.candidateLabel, name);
    QString measured = QStringLiteral("%1 vs %2")
                           .arg(resourceValueText(c.resource, cv), resourceValueText(c.resource, bv));
    if (bv <= 0)
        return inconclusive(c, measured, required,
            QStringLiteral("%1's %2 is 0, so no ratio can be formed.").arg(arm.baselineLabel, name),
            QStringLiteral("%1's %2 read 0: check its telemetry.").arg(arm.baselineLabel, name));
    const double ratio = cv / bv;
    measured += QStringLiteral(" (ratio %1)").arg(number(ratio));
    const double margin = marginOf(c);

    // Energy and power carry their own uncertainty (block-to-block spread over the run); the ratio's
    // interval combines both arms' on the log scale. Memory figures are read, not estimated: they
    // are compared as they are.
    const bool estimated = c.resource == Resource::EnergyPerToken || c.resource == Resource::PowerMedian;
    Judged j;
    j.result.criterion = c;
    j.result.required = required;
    if (estimated) {
        const auto& cu = cand->uncertainty.relativeSe;
        const auto& bu = base->uncertainty.relativeSe;
        if (!cu || !bu)
            return inconclusive(c, measured, required,
                QStringLiteral(
                    "%1 against %2's: the run was too short to estimate how uncertain %3 is (fewer "
                    "than 3 blocks of serving), so a close call cannot be settled.")
                    .arg(who, arm.baselineLabel, name),
                QStringLiteral("%1 has no uncertainty (%2): run longer (several minutes of serving per "
                               "endpoint) so that it can be estimated.")
                    .arg(who, measured));
        const double se = std::sqrt(*cu * *cu + *bu * *bu);
        const auto at = [ratio, se](double confidence) -> std::optional<Interval> {
            const double z = normalQuantile(0.5 + confidence / 2);
            return Interval {ratio * std::exp(-z * se), ratio * std::exp(z * se)};
        };
        const Interval ci = *at(0.95);
        j.result.measured = measured
            + QStringLiteral(" [%1–%2], ±%3 and ±%4 each")
                  .arg(number(ci.lo), number(ci.hi), percent(*cu), percent(*bu));
        testBound(j.result, ratio, ci, margin, true, 0, at, arm.share);
        if (j.result.outcome == Outcome::Fail)
            j.result.pBeyond = 0.5 * std::erfc((std::log(ratio) - std::log(margin)) / se / std::sqrt(2.0));
    } else {
        j.result.measured = measured;
        j.result.outcome = ratio <= margin + 1e-12 ? Outcome::Pass : Outcome::Fail;
    }
    QString caution;
    if (cand->wholeMachine || base->wholeMachine)
        caution = QStringLiteral(" Whole-machine figures: they include whatever else the machine ran.");
    switch (j.result.outcome) {
    case Outcome::Pass:
        j.result.explanation
            = QStringLiteral("%1 is %2× %3's: within %4%5.")
                  .arg(who, number(ratio), arm.baselineLabel, required,
                      estimated ? QStringLiteral(" even at the interval's upper end") : QString())
            + caution;
        break;
    case Outcome::Fail:
        j.result.explanation
            = QStringLiteral("%1 is %2× %3's: beyond %4%5.")
                  .arg(who, number(ratio), arm.baselineLabel, required,
                      estimated ? QStringLiteral(" even at the interval's lower end") : QString())
            + caution;
        j.change = QStringLiteral("%1 is %2, beyond %3: %4.")
                       .arg(who, j.result.measured, required, resourceFix(c.resource));
        break;
    default:
        j.result.explanation
            = QStringLiteral("%1 is %2× %3's, but the interval straddles %4: the figures' own "
                             "uncertainty cannot tell.")
                  .arg(who, number(ratio), arm.baselineLabel, required)
            + caution;
        j.change = QStringLiteral("Whether %1 is %2 is open (%3): a longer run narrows both figures.")
                       .arg(who, required, j.result.measured);
        break;
    }
    return j;
}

} // namespace

Judged judgeResource(const Arm& arm, const Criterion& c)
{
    return c.kind == Criterion::Kind::ResourceMax ? judgeMax(arm, c) : judgeNotWorse(arm, c);
}

} // namespace qs::criteria
