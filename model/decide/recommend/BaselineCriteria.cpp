// SPDX-License-Identifier: MIT
#include "model/decide/recommend/Arm.h"
#include "model/decide/recommend/Criteria.h"
#include "model/decide/recommend/CriterionText.h"

namespace qs::criteria {

using Outcome = CriterionResult::Outcome;

namespace {

Judged comparisonMissing(const Arm& arm, const Criterion& c, const QString& subject, const QString& required)
{
    // Nothing to pair because one arm has no value at all: say which, and why that may be.
    for (const auto& [endpoint, label] :
        {std::pair {arm.candidate, arm.candidateLabel}, std::pair {arm.baseline, arm.baselineLabel}}) {
        if (hasData(arm, c, endpoint))
            continue;
        const QString why = isGateCriterion(c)  ? notJudgedHint(c.gate)
            : c.metric == Metric::FirstSentence ? QStringLiteral(" (no answer completed a sentence)")
                                                : QString();
        const QString what = isGateCriterion(c) ? QStringLiteral("no answer judged for ") + c.gate
                                                : QStringLiteral("no value of ") + subject;
        return inconclusive(c, what + QStringLiteral(" on ") + label, required,
            QStringLiteral("%1 has %2%3%4, so there is nothing to compare.").arg(label, what, inTest(c), why),
            QStringLiteral("%1 has %2%3%4: the comparison with the baseline can be made once it has.")
                .arg(label, what, inTest(c), why));
    }
    if (!arm.evaluation.hasComparison)
        return inconclusive(c, QStringLiteral("not compared"), required,
            QStringLiteral(
                "The paired comparison was not computed, so %1 cannot be compared with the baseline.")
                .arg(subject),
            QStringLiteral("Compute the paired comparison (the evaluation skipped it) to judge %1.")
                .arg(subject));
    return inconclusive(c, QStringLiteral("no pairs"), required,
        QStringLiteral("No request of %1 and %2%3 can be paired for %4.")
            .arg(arm.candidateLabel, arm.baselineLabel, inTest(c), subject),
        QStringLiteral(
            "No paired measurement of %1%2 for %3 and %4: run both endpoints in the same run with the "
            "same suite (pairs are matched by test, turn and run), at least 5 measured runs per test.")
            .arg(subject, inTest(c), arm.candidateLabel, arm.baselineLabel));
}

Judged tooFewPairs(const Arm& arm, const Criterion& c, const QString& subject, const QString& measured,
    const QString& required, int pairs)
{
    const int minPairs = arm.evaluation.comparison.options.minPairs;
    return inconclusive(c, measured, required,
        QStringLiteral("Only %1 paired requests%2 compare %3 (at least %4 are needed to judge).")
            .arg(pairs)
            .arg(inTest(c), subject)
            .arg(minPairs),
        QStringLiteral(
            "Only %1 paired requests%2 compare %3 of %4 and %5, fewer than %6: run at least 5 measured "
            "runs per test on both endpoints (--runs 5, or more).")
            .arg(pairs)
            .arg(inTest(c), subject, arm.candidateLabel, arm.baselineLabel)
            .arg(minPairs));
}

// A paired criterion once its row is found: too few pairs leave it open; otherwise it fails exactly
// when the baseline is clearly better. The caller explains the outcome.
Judged pairedOutcome(const Arm& arm, const Criterion& c, const QString& subject, const QString& required,
    QString measured, int pairs, Verdict verdict)
{
    measured += QStringLiteral(", %1 pairs").arg(pairs);
    if (verdict == Verdict::TooFewPairs)
        return tooFewPairs(arm, c, subject, measured, required, pairs);
    Judged j;
    j.result.criterion = c;
    j.result.required = required;
    j.result.measured = measured;
    j.result.outcome = verdict == Verdict::BaselineBetter ? Outcome::Fail : Outcome::Pass;
    return j;
}

} // namespace

Judged judgeMetricNotWorse(const Arm& arm, const Criterion& c)
{
    const QString required = QStringLiteral("not worse than ") + arm.baselineLabel;
    const QString subject = metricId(c.metric);
    const MetricComparison* row = arm.comparison ? findRow(arm.comparison->metrics, c.test,
                                      [&](const MetricComparison& r) { return r.metric == c.metric; })
                                                 : nullptr;
    if (!row)
        return comparisonMissing(arm, c, subject, required);
    QString measured = QStringLiteral("median %1 vs %2")
                           .arg(number(row->candidateMedian), withUnit(row->baselineMedian, c.metric));
    if (row->ratio) {
        measured += QStringLiteral(", ratio %1").arg(number(*row->ratio));
        if (row->ratioCi)
            measured += QStringLiteral(" [%1–%2]").arg(number(row->ratioCi->lo), number(row->ratioCi->hi));
    }
    Judged j = pairedOutcome(arm, c, subject, required, measured, row->pairs, row->verdict);
    if (j.result.outcome == Outcome::Inconclusive)
        return j;
    const bool worse = j.result.outcome == Outcome::Fail;
    const QString who = QStringLiteral("%1's %2%3").arg(arm.candidateLabel, metricName(c.metric), inTest(c));
    if (worse)
        j.result.explanation = who
            + QStringLiteral(" is %1 than %2's, and the paired interval excludes no difference.")
                  .arg(betterWord(c.metric, false), arm.baselineLabel);
    else if (row->verdict == Verdict::CandidateBetter)
        j.result.explanation
            = who + QStringLiteral(" is %1 than %2's.").arg(betterWord(c.metric, true), arm.baselineLabel);
    else
        j.result.explanation
            = who + QStringLiteral(" shows no clear difference from %1's.").arg(arm.baselineLabel);
    if (worse)
        j.change = QStringLiteral("%1 is %2 than %3's (%4) and must be at least as good: %5.")
                       .arg(who, betterWord(c.metric, false), arm.baselineLabel, j.result.measured,
                           metricFix(c.metric));
    return j;
}

Judged judgeGateNotWorse(const Arm& arm, const Criterion& c)
{
    const QString required = QStringLiteral("not worse than ") + arm.baselineLabel;
    const QString subject = QStringLiteral("gate ") + c.gate;
    const GateComparison* row = arm.comparison
        ? findRow(arm.comparison->gates, c.test, [&](const GateComparison& r) { return r.gate == c.gate; })
        : nullptr;
    if (!row)
        return comparisonMissing(arm, c, subject, required);
    QString measured = QStringLiteral("%1 vs %2 passed")
                           .arg(gateCount({row->bothPass + row->candidateOnly, row->pairs}),
                               gateCount({row->bothPass + row->baselineOnly, row->pairs}));
    measured += QStringLiteral(", difference %1").arg(signedPercent(row->difference));
    if (row->differenceCi)
        measured += QStringLiteral(" [%1, %2]")
                        .arg(signedPercent(row->differenceCi->lo), signedPercent(row->differenceCi->hi));
    Judged j = pairedOutcome(arm, c, subject, required, measured, row->pairs, row->verdict);
    if (j.result.outcome == Outcome::Inconclusive)
        return j;
    const bool worse = j.result.outcome == Outcome::Fail;
    if (worse)
        j.result.explanation = QStringLiteral(
            "%1 passes %2%3 less often than %4, and the paired interval excludes no difference.")
                                   .arg(arm.candidateLabel, c.gate, inTest(c), arm.baselineLabel);
    else if (row->verdict == Verdict::CandidateBetter)
        j.result.explanation = QStringLiteral("%1 passes %2%3 more often than %4.")
                                   .arg(arm.candidateLabel, c.gate, inTest(c), arm.baselineLabel);
    else
        j.result.explanation
            = QStringLiteral("%1 and %2 pass %3%4 about equally often (no clear difference).")
                  .arg(arm.candidateLabel, arm.baselineLabel, c.gate, inTest(c));
    if (worse) {
        const auto [passed, judged] = gateCounts(arm, c);
        j.change = QStringLiteral("%1 passes %2%3 less often than %4 (%5); %6 of %7 of its answers %8: %9.")
                       .arg(arm.candidateLabel, c.gate, inTest(c), arm.baselineLabel, j.result.measured)
                       .arg(judged - passed)
                       .arg(judged)
                       .arg(failedPhrase(c.gate), gateFix(c.gate));
    }
    return j;
}

} // namespace qs::criteria
