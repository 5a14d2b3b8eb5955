// SPDX-License-Identifier: MIT
#include "model/decide/recommend/Arm.h"
#include "model/decide/recommend/BoundTest.h"
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

// A row over one prompt's repeats, or over too few distinct prompts, decides nothing: repeats show
// how steady a prompt's timing is, not how the endpoints compare on prompts in general.
std::optional<Judged> tooFewPrompts(const Arm& arm, const Criterion& c, const QString& subject,
    const QString& measured, const QString& required, int prompts, bool overPrompts, bool hasInterval)
{
    const int minPrompts = arm.evaluation.comparison.options.minPrompts;
    if (!overPrompts)
        return inconclusive(c, measured, required,
            QStringLiteral("%1%2 rests on one prompt: its repeats show how steady that prompt's figures "
                           "are, not whether %3 is worse than %4 on prompts in general.")
                .arg(subject, inTest(c), arm.candidateLabel, arm.baselineLabel),
            QStringLiteral("%1%2 rests on one prompt: judge it over all tests (drop \"test\"), with at "
                           "least %3 distinct prompts on both endpoints.")
                .arg(subject, inTest(c))
                .arg(minPrompts));
    if (prompts < minPrompts || !hasInterval)
        return inconclusive(c, measured, required,
            QStringLiteral("Only %1 distinct prompts compare %2 (at least %3 are needed for an interval "
                           "over prompts).")
                .arg(prompts)
                .arg(subject)
                .arg(minPrompts),
            QStringLiteral("Only %1 distinct prompts compare %2 of %3 and %4, fewer than %5: run a suite "
                           "with more distinct prompts (repeating the same prompts does not count).")
                .arg(prompts)
                .arg(subject, arm.candidateLabel, arm.baselineLabel)
                .arg(minPrompts));
    return std::nullopt;
}

} // namespace

Judged judgeMetricNotWorse(const Arm& arm, const Criterion& c)
{
    const QString required = marginText(c);
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
    measured += QStringLiteral(", %1 distinct prompts").arg(row->prompts);
    if (auto open = tooFewPrompts(
            arm, c, subject, measured, required, row->prompts, row->overPrompts, row->ratio && row->ratioCi))
        return *open;

    const bool lowerBetter = preferredDirection(c.metric) != Preferred::Higher;
    const double limit = lowerBetter ? marginOf(c) : 1 / marginOf(c);
    Judged j;
    j.result.criterion = c;
    j.result.required = required;
    j.result.measured = measured;
    const std::vector<double> ratios = row->promptRatios;
    testBound(
        j.result, *row->ratio, *row->ratioCi, limit, lowerBetter, row->prompts,
        [ratios](double confidence) { return medianInterval(ratios, confidence); }, arm.share);
    const QString who = QStringLiteral("%1's %2%3").arg(arm.candidateLabel, metricName(c.metric), inTest(c));
    const QString typical
        = QStringLiteral("%1 runs at %2× %3's on the typical prompt (median of %4 per-prompt "
                         "ratios, interval %5–%6)")
              .arg(who, number(*row->ratio), arm.baselineLabel)
              .arg(row->prompts)
              .arg(number(row->ratioCi->lo), number(row->ratioCi->hi));
    switch (j.result.outcome) {
    case Outcome::Pass:
        j.result.explanation = typical
            + QStringLiteral(": even the interval's worse end is within the margin (%1).").arg(required);
        break;
    case Outcome::Fail:
        j.result.explanation = typical
            + QStringLiteral(": even the interval's better end is beyond the margin (%1).").arg(required);
        j.change = QStringLiteral("%1 is %2 than %3's beyond the margin (%4; %5): %6.")
                       .arg(who, betterWord(c.metric, false), arm.baselineLabel, measured, required,
                           metricFix(c.metric));
        break;
    default:
        j.result.explanation = typical
            + QStringLiteral(": the interval straddles the margin (%1), so the data cannot tell yet%2.")
                  .arg(required, settleText(j.result));
        j.change = QStringLiteral("Whether %1 is %2 is open (%3)%4.")
                       .arg(who, required, measured, settleText(j.result));
        break;
    }
    return j;
}

Judged judgeGateNotWorse(const Arm& arm, const Criterion& c)
{
    const QString required = marginText(c);
    const QString subject = QStringLiteral("gate ") + c.gate;
    const GateComparison* row = arm.comparison
        ? findRow(arm.comparison->gates, c.test, [&](const GateComparison& r) { return r.gate == c.gate; })
        : nullptr;
    if (!row)
        return comparisonMissing(arm, c, subject, required);
    QString measured = QStringLiteral("%1 vs %2 of requests passed")
                           .arg(gateCount({row->bothPass + row->candidateOnly, row->pairs}),
                               gateCount({row->bothPass + row->baselineOnly, row->pairs}));
    measured
        += QStringLiteral("; over %1 distinct prompts %2 vs %3, difference %4")
               .arg(row->prompts)
               .arg(percent(row->candidateRate), percent(row->baselineRate), signedPercent(row->difference));
    if (row->differenceCi)
        measured += QStringLiteral(" [%1, %2]")
                        .arg(signedPercent(row->differenceCi->lo), signedPercent(row->differenceCi->hi));
    if (auto open = tooFewPrompts(arm, c, subject, measured, required, row->prompts, row->overPrompts,
            row->differenceCi.has_value()))
        return *open;

    Judged j;
    j.result.criterion = c;
    j.result.required = required;
    j.result.measured = measured;
    const std::array<double, 4> t = row->table;
    testBound(
        j.result, row->difference, *row->differenceCi, -marginOf(c), false, row->prompts,
        [t](double confidence) { return newcombePairedInterval(t[0], t[2], t[1], t[3], confidence); },
        arm.share);
    const QString who = QStringLiteral("%1 passes %2%3").arg(arm.candidateLabel, c.gate, inTest(c));
    const QString rates = QStringLiteral("%1 on %2 of the prompts, %3 %4 (difference %5)")
                              .arg(who, percent(row->candidateRate), arm.baselineLabel,
                                  percent(row->baselineRate), signedPercent(row->difference));
    switch (j.result.outcome) {
    case Outcome::Pass:
        j.result.explanation = rates
            + QStringLiteral(": even the interval's worse end is within the margin (%1).").arg(required);
        break;
    case Outcome::Fail: {
        j.result.explanation = rates
            + QStringLiteral(": even the interval's better end is beyond the margin (%1).").arg(required);
        const auto [passed, judged] = gateCounts(arm, c);
        j.change
            = QStringLiteral("%1 less often than %2 beyond the margin (%3); %4 of %5 of its answers %6: %7.")
                  .arg(who, arm.baselineLabel, measured)
                  .arg(judged - passed)
                  .arg(judged)
                  .arg(failedPhrase(c.gate), gateFix(c.gate));
        break;
    }
    default:
        j.result.explanation = rates
            + QStringLiteral(": the interval straddles the margin (%1), so the data cannot tell yet%2.")
                  .arg(required, settleText(j.result));
        j.change = QStringLiteral("Whether %1 %2 is open (%3)%4.")
                       .arg(who, required, measured, settleText(j.result));
        break;
    }
    return j;
}

} // namespace qs::criteria
