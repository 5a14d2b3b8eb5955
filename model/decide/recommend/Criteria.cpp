// SPDX-License-Identifier: MIT
#include "model/decide/recommend/Criteria.h"

#include "model/decide/recommend/Arm.h"

namespace qs::criteria {

using Outcome = CriterionResult::Outcome;

Judged inconclusive(const Criterion& c, const QString& measured, const QString& required, const QString& why,
    const QString& change)
{
    Judged j;
    j.result.criterion = c;
    j.result.outcome = Outcome::Inconclusive;
    j.result.measured = measured;
    j.result.required = required;
    j.result.explanation = why;
    j.change = change;
    return j;
}

Judged unmeasured(
    const Criterion& c, const QString& measured, const QString& required, QString why, const QString& change)
{
    if (c.optional)
        why += QStringLiteral(
            " The criterion is optional, so it decides nothing, but it was not checked either.");
    Judged j = inconclusive(c, measured, required, why, change);
    if (c.optional)
        j.result.outcome = Outcome::NotMeasured;
    return j;
}

Judged judge(const Arm& arm, const Criterion& c)
{
    if (!c.test.isEmpty() && !runHasTest(arm, c.test))
        return inconclusive(c, QStringLiteral("no such test"), QString(),
            QStringLiteral("The run has no measured request of test \"%1\".").arg(c.test),
            QStringLiteral(
                "The run has no test \"%1\": run the suite the profile was written for, or change the "
                "criterion's \"test\".")
                .arg(c.test));
    switch (c.kind) {
    case Criterion::Kind::GateMaxFailures:
    case Criterion::Kind::GateMinPassRate:
        return judgeGateThreshold(arm, c);
    case Criterion::Kind::MetricMax:
    case Criterion::Kind::MetricMin:
        return judgeMetricThreshold(arm, c);
    case Criterion::Kind::MetricNotWorse:
        return judgeMetricNotWorse(arm, c);
    case Criterion::Kind::GateNotWorse:
        return judgeGateNotWorse(arm, c);
    case Criterion::Kind::ResourceMax:
    case Criterion::Kind::ResourceNotWorse:
        return judgeResource(arm, c);
    case Criterion::Kind::JudgeRubricMin:
    case Criterion::Kind::JudgePairwiseNotWorse:
        return judgeJudgedQuality(arm, c);
    case Criterion::Kind::FidelityFlipRateMax:
    case Criterion::Kind::FidelityKlMax:
    case Criterion::Kind::FidelityKlNotWorse:
        return judgeFidelity(arm, c);
    case Criterion::Kind::VerbosityMaxRatio:
        return judgeVerbosity(arm, c);
    }
    return {};
}

} // namespace qs::criteria
