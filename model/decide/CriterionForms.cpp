// SPDX-License-Identifier: MIT
// What kind each criterion is, the key that names its form, its default title, and its file form
// with every default filled in (DecisionProfile.h).
#include "model/decide/DecisionProfile.h"

namespace qs {

using json = nlohmann::json;

QString criterionKindId(Criterion::Kind kind)
{
    switch (kind) {
    case Criterion::Kind::GateMaxFailures:
        return QStringLiteral("gate_max_failures");
    case Criterion::Kind::GateMinPassRate:
        return QStringLiteral("gate_min_pass_rate");
    case Criterion::Kind::MetricMax:
        return QStringLiteral("metric_max");
    case Criterion::Kind::MetricMin:
        return QStringLiteral("metric_min");
    case Criterion::Kind::MetricNotWorse:
        return QStringLiteral("metric_not_worse");
    case Criterion::Kind::GateNotWorse:
        return QStringLiteral("gate_not_worse");
    case Criterion::Kind::ResourceMax:
        return QStringLiteral("resource_max");
    case Criterion::Kind::ResourceNotWorse:
        return QStringLiteral("resource_not_worse");
    case Criterion::Kind::JudgeRubricMin:
        return QStringLiteral("judge_rubric_min");
    case Criterion::Kind::JudgePairwiseNotWorse:
        return QStringLiteral("judge_pairwise_not_worse");
    case Criterion::Kind::FidelityFlipRateMax:
        return QStringLiteral("fidelity_flip_rate_max");
    case Criterion::Kind::FidelityKlMax:
        return QStringLiteral("fidelity_kl_max");
    case Criterion::Kind::FidelityKlNotWorse:
        return QStringLiteral("fidelity_kl_not_worse");
    case Criterion::Kind::VerbosityMaxRatio:
        return QStringLiteral("verbosity_max_ratio");
    }
    return {};
}

bool isGateCriterion(const Criterion& criterion)
{
    return criterion.kind == Criterion::Kind::GateMaxFailures
        || criterion.kind == Criterion::Kind::GateMinPassRate
        || criterion.kind == Criterion::Kind::GateNotWorse;
}

bool isResourceCriterion(const Criterion& criterion)
{
    return criterion.kind == Criterion::Kind::ResourceMax
        || criterion.kind == Criterion::Kind::ResourceNotWorse;
}

bool isJudgeCriterion(const Criterion& criterion)
{
    return criterion.kind == Criterion::Kind::JudgeRubricMin
        || criterion.kind == Criterion::Kind::JudgePairwiseNotWorse;
}

bool isFidelityCriterion(const Criterion& criterion)
{
    return criterion.kind == Criterion::Kind::FidelityFlipRateMax
        || criterion.kind == Criterion::Kind::FidelityKlMax
        || criterion.kind == Criterion::Kind::FidelityKlNotWorse;
}

QString fidelityMeasureId(Criterion::Kind kind)
{
    if (kind == Criterion::Kind::FidelityFlipRateMax)
        return QStringLiteral("flip_rate");
    if (kind == Criterion::Kind::FidelityKlMax || kind == Criterion::Kind::FidelityKlNotWorse)
        return QStringLiteral("kl");
    return {};
}

QString criterionFormKey(Criterion::Kind kind)
{
    switch (kind) {
    case Criterion::Kind::GateMaxFailures:
        return QStringLiteral("max_failures");
    case Criterion::Kind::GateMinPassRate:
        return QStringLiteral("min_pass_rate");
    case Criterion::Kind::MetricMax:
    case Criterion::Kind::ResourceMax:
    case Criterion::Kind::FidelityFlipRateMax:
    case Criterion::Kind::FidelityKlMax:
        return QStringLiteral("max");
    case Criterion::Kind::MetricMin:
        return QStringLiteral("min");
    case Criterion::Kind::MetricNotWorse:
    case Criterion::Kind::GateNotWorse:
    case Criterion::Kind::ResourceNotWorse:
    case Criterion::Kind::JudgePairwiseNotWorse:
    case Criterion::Kind::FidelityKlNotWorse:
        return QStringLiteral("not_worse_than_baseline");
    case Criterion::Kind::JudgeRubricMin:
        return QStringLiteral("min_median");
    case Criterion::Kind::VerbosityMaxRatio:
        return QStringLiteral("max_ratio");
    }
    return {};
}

QString defaultCriterionTitle(const Criterion& c)
{
    if (c.kind == Criterion::Kind::JudgeRubricMin)
        return QStringLiteral("judged %1: median ≥ %2").arg(c.rubricCriterion).arg(c.threshold)
            + (c.test.isEmpty() ? QString() : QStringLiteral(" (") + c.test + u')');
    if (c.kind == Criterion::Kind::JudgePairwiseNotWorse)
        return QStringLiteral("judged not worse than the baseline (blind pairwise)");
    if (c.kind == Criterion::Kind::FidelityFlipRateMax)
        return QStringLiteral("flip rate vs the reference ≤ %1 %").arg(c.threshold * 100.0, 0, 'g', 4);
    if (c.kind == Criterion::Kind::FidelityKlMax)
        return QStringLiteral("mean KL from the reference ≤ %1 nats").arg(c.threshold, 0, 'g', 4);
    if (c.kind == Criterion::Kind::FidelityKlNotWorse)
        return QStringLiteral("mean KL from the reference not worse than the baseline's (≤ +%1 %)")
            .arg((marginOf(c) - 1) * 100.0, 0, 'g', 4);
    if (c.kind == Criterion::Kind::VerbosityMaxRatio)
        return QStringLiteral("answers at most %1× as long as the baseline's (completion tokens)")
                   .arg(c.threshold, 0, 'g', 4)
            + (c.test.isEmpty() ? QString() : QStringLiteral(" (") + c.test + u')');
    if (isResourceCriterion(c)) {
        const QString name = resourceName(c.resource, c.concurrency);
        if (c.kind == Criterion::Kind::ResourceMax)
            return name + QStringLiteral(" ≤ ")
                + QString::number(c.threshold / resourceUnitFactor(c.resource, c.unit).value_or(1), 'g', 6)
                + u' ' + c.unit;
        return name
            + QStringLiteral(" not worse than the baseline (≤ +%1 %)")
                  .arg((marginOf(c) - 1) * 100.0, 0, 'g', 4);
    }
    const QString subject = c.kind == Criterion::Kind::GateMaxFailures
            || c.kind == Criterion::Kind::GateMinPassRate || c.kind == Criterion::Kind::GateNotWorse
        ? c.gate
        : metricId(c.metric);
    QString t;
    switch (c.kind) {
    case Criterion::Kind::GateMaxFailures:
        t = subject + QStringLiteral(": at most %1 failures").arg(c.threshold);
        break;
    case Criterion::Kind::GateMinPassRate:
        t = subject + QStringLiteral(": passes at least %1 %").arg(c.threshold * 100.0, 0, 'g', 4);
        break;
    case Criterion::Kind::MetricMax:
        t = subject + u' ' + c.statistic + QStringLiteral(" ≤ %1 ").arg(c.threshold) + metricUnit(c.metric);
        break;
    case Criterion::Kind::MetricMin:
        t = subject + u' ' + c.statistic + QStringLiteral(" ≥ %1 ").arg(c.threshold) + metricUnit(c.metric);
        break;
    case Criterion::Kind::MetricNotWorse:
    case Criterion::Kind::GateNotWorse:
        t = subject + QStringLiteral(" not worse than the baseline");
        break;
    case Criterion::Kind::ResourceMax:
    case Criterion::Kind::ResourceNotWorse:
    case Criterion::Kind::JudgeRubricMin:
    case Criterion::Kind::JudgePairwiseNotWorse:
    case Criterion::Kind::FidelityFlipRateMax:
    case Criterion::Kind::FidelityKlMax:
    case Criterion::Kind::FidelityKlNotWorse:
    case Criterion::Kind::VerbosityMaxRatio:
        break; // above
    }
    if (!c.test.isEmpty())
        t += QStringLiteral(" (") + c.test + u')';
    return t;
}

nlohmann::json toJson(const Criterion& c)
{
    json j = {{"id", c.id.toStdString()}, {"title", c.title.toStdString()},
        {"kind", criterionKindId(c.kind).toStdString()}};
    if (isGateCriterion(c))
        j["gate"] = c.gate.toStdString();
    else if (isJudgeCriterion(c))
        j["judge"] = c.kind == Criterion::Kind::JudgeRubricMin ? "rubric" : "pairwise";
    else if (isResourceCriterion(c))
        j["resource"] = resourceId(c.resource).toStdString();
    else if (isFidelityCriterion(c))
        j["fidelity"] = fidelityMeasureId(c.kind).toStdString();
    else if (c.kind == Criterion::Kind::VerbosityMaxRatio)
        j["verbosity"] = metricId(c.metric).toStdString();
    else
        j["metric"] = metricId(c.metric).toStdString();
    switch (c.kind) {
    case Criterion::Kind::GateMaxFailures:
        j["max_failures"] = int(c.threshold);
        break;
    case Criterion::Kind::GateMinPassRate:
        j["min_pass_rate"] = c.threshold;
        break;
    case Criterion::Kind::MetricMax:
    case Criterion::Kind::MetricMin:
        j[c.kind == Criterion::Kind::MetricMax ? "max" : "min"] = c.threshold;
        j["statistic"] = c.statistic.toStdString();
        break;
    case Criterion::Kind::MetricNotWorse:
    case Criterion::Kind::GateNotWorse:
        j["not_worse_than_baseline"] = true;
        break;
    case Criterion::Kind::ResourceMax:
        j["max"] = c.threshold / resourceUnitFactor(c.resource, c.unit).value_or(1);
        j["unit"] = c.unit.toStdString();
        break;
    case Criterion::Kind::ResourceNotWorse:
        j["not_worse_than_baseline"] = true;
        break;
    case Criterion::Kind::JudgeRubricMin:
        j["criterion"] = c.rubricCriterion.toStdString();
        j["min_median"] = c.threshold;
        break;
    case Criterion::Kind::JudgePairwiseNotWorse:
        j["not_worse_than_baseline"] = true;
        break;
    case Criterion::Kind::FidelityFlipRateMax:
    case Criterion::Kind::FidelityKlMax:
        j["max"] = c.threshold;
        break;
    case Criterion::Kind::FidelityKlNotWorse:
        j["not_worse_than_baseline"] = true;
        break;
    case Criterion::Kind::VerbosityMaxRatio:
        j["max_ratio"] = c.threshold;
        break;
    }
    if (isJudgeCriterion(c) || isFidelityCriterion(c))
        j["optional"] = c.optional;
    if (isResourceCriterion(c)) {
        j["optional"] = c.optional;
        if (c.resource == Criterion::Resource::MemoryAtConcurrency)
            j["concurrency"] = c.concurrency > 0 ? json(c.concurrency) : json();
    }
    if (takesMargin(c.kind))
        j["margin"] = marginOf(c);
    j["test"] = c.test.isEmpty() ? json() : json(c.test.toStdString());
    j["rationale"] = c.rationale.toStdString();
    return j;
}

} // namespace qs
