// SPDX-License-Identifier: MIT
#include "model/decide/recommend/Arm.h"
#include "model/decide/recommend/BoundTest.h"
#include "model/decide/recommend/Criteria.h"
#include "model/decide/recommend/CriterionText.h"

#include <algorithm>
#include <cmath>

namespace qs::criteria {

using Outcome = CriterionResult::Outcome;

Judged judgeGateThreshold(const Arm& arm, const Criterion& c)
{
    const auto [passed, judged] = gateCounts(arm, c);
    const int failures = judged - passed;
    const bool maxFailures = c.kind == Criterion::Kind::GateMaxFailures;
    QString required;
    if (maxFailures) {
        const int allowed = int(c.threshold);
        required = allowed == 0 ? QStringLiteral("none") : QStringLiteral("at most %1").arg(allowed);
    } else {
        required = QStringLiteral("≥ %1 passed").arg(percent(c.threshold));
        if (judged > 0)
            required
                += QStringLiteral(" (%1 of %2)").arg(int(std::ceil(c.threshold * judged - 1e-9))).arg(judged);
    }
    if (judged == 0)
        return inconclusive(c, QStringLiteral("no answer judged"), required,
            QStringLiteral(
                "No measured answer of %1%2 was judged for %3, so the criterion cannot be checked.")
                .arg(arm.candidateLabel, inTest(c), c.gate),
            QStringLiteral(
                "No answer of %1%2 was judged for %3%4: run a suite with such tests, or drop the criterion.")
                .arg(arm.candidateLabel, inTest(c), c.gate, notJudgedHint(c.gate)));

    Judged j;
    j.result.criterion = c;
    j.result.required = required;
    const QString failedText
        = QStringLiteral("%1 of %2 answers %3").arg(failures).arg(judged).arg(failedPhrase(c.gate));
    bool pass = false;
    if (maxFailures) {
        // An observed count: a failure that happened is certain, not an estimate.
        pass = failures <= int(c.threshold);
        j.result.measured = failedText;
        j.result.outcome = pass ? Outcome::Pass : Outcome::Fail;
    } else {
        // A rate over distinct prompts (each prompt's repeats collapsed to its pass fraction), with
        // the exact binomial interval: 1 of 1 is not "at least 60 %".
        const PromptRate rate = promptPassRate(arm, c);
        const Interval ci = promptRateInterval(rate.passed, rate.prompts);
        j.result.measured = QStringLiteral("%1 of %2 answers passed; %3 over %4 distinct prompts [%5–%6]")
                                .arg(passed)
                                .arg(judged)
                                .arg(percent(rate.rate()))
                                .arg(rate.prompts)
                                .arg(percent(ci.lo), percent(ci.hi));
        const double x = rate.passed;
        const int n = rate.prompts;
        testBound(
            j.result, rate.rate(), ci, c.threshold, false, n,
            [x, n](
                double confidence) { return std::optional<Interval>(promptRateInterval(x, n, confidence)); },
            arm.share);
        if (j.result.outcome == Outcome::Inconclusive) {
            j.result.explanation
                = QStringLiteral("%1 passes %2%3 on %4 of %5 distinct prompts, but the interval "
                                 "%6–%7 straddles the required %8%9.")
                      .arg(arm.candidateLabel, c.gate, inTest(c), percent(rate.rate()))
                      .arg(n)
                      .arg(percent(ci.lo), percent(ci.hi), percent(c.threshold), settleText(j.result));
            j.change
                = QStringLiteral("Whether %1 passes %2%3 at least %4 of the time is open (%5)%6; to pass "
                                 "more often, %7.")
                      .arg(arm.candidateLabel, c.gate, inTest(c), percent(c.threshold), j.result.measured,
                          settleText(j.result), gateFix(c.gate));
            return j;
        }
        pass = j.result.outcome == Outcome::Pass;
    }
    const QString limit = maxFailures
        ? (int(c.threshold) == 0 ? QStringLiteral("none is allowed")
                                 : QStringLiteral("at most %1 are allowed").arg(int(c.threshold)))
        : QStringLiteral("at least %1 must pass (the interval over prompts decides)")
              .arg(percent(c.threshold));
    j.result.explanation
        = QStringLiteral("%1: %2%3 (%4%5).")
              .arg(arm.candidateLabel, failedText, inTest(c),
                  pass ? QStringLiteral("within the limit: ") : QStringLiteral("over the limit: "), limit);
    if (!pass) {
        QString kinds;
        const auto tally = arm.evaluation.gateFailures.find({arm.candidate, c.test, c.gate});
        if (tally != arm.evaluation.gateFailures.end() && !tally->second.reasons.empty()) {
            std::vector<std::pair<int, QString>> byCount;
            for (const auto& [kind, countExample] : tally->second.reasons)
                byCount.push_back({countExample.first, kind});
            std::sort(byCount.begin(), byCount.end(),
                [](const auto& a, const auto& b) { return a.first > b.first; });
            QStringList parts;
            for (std::size_t i = 0; i < std::min<std::size_t>(3, byCount.size()); ++i)
                parts << QStringLiteral("%1 × %2").arg(byCount[i].first).arg(byCount[i].second);
            kinds = QStringLiteral(" (") + parts.join(QStringLiteral(", ")) + u')';
        }
        j.change = QStringLiteral("%1%2: %3%4, where %5; to pass, %6.")
                       .arg(arm.candidateLabel, inTest(c), failedText, kinds, limit, gateFix(c.gate));
    }
    return j;
}

Judged judgeMetricThreshold(const Arm& arm, const Criterion& c)
{
    const bool isMax = c.kind == Criterion::Kind::MetricMax;
    const QString required = (isMax ? QStringLiteral("≤ ") : QStringLiteral("≥ "))
        + limitWithUnit(c.threshold, c.metric) + QStringLiteral(" (") + c.statistic + u')';
    const auto d = distribution(arm, c);
    if (!d)
        return inconclusive(c, QStringLiteral("no value"), required,
            QStringLiteral("%1 has no successful measured request with %2%3.")
                .arg(arm.candidateLabel, metricId(c.metric), inTest(c)),
            QStringLiteral(
                "%1 has no successful measured request with %2%3: fix the failed requests (see the "
                "errors in the summary) and run again.")
                .arg(arm.candidateLabel, metricId(c.metric), inTest(c)));
    const double value = statisticOf(*d, c.statistic);
    Judged j;
    j.result.criterion = c;
    j.result.required = required;
    const std::vector<std::vector<double>> clusters = promptValues(arm, c);
    const int prompts = int(clusters.size());
    const StatisticEvidence evidence = statisticEvidence(clusters, c.statistic);
    j.result.measured = QStringLiteral("%1 %2 (n = %3 over %4 distinct prompts)")
                            .arg(c.statistic, withUnit(value, c.metric))
                            .arg(d->n)
                            .arg(prompts);
    if (!evidence.interval)
        return inconclusive(c, j.result.measured, required, evidence.why,
            QStringLiteral("%1's %2 %3%4 cannot be judged yet: %5.")
                .arg(arm.candidateLabel, metricName(c.metric), c.statistic, inTest(c), evidence.why));
    j.result.measured
        += QStringLiteral(" [%1–%2]").arg(number(evidence.interval->lo), number(evidence.interval->hi));
    const std::vector<double> resampled = evidence.resampled;
    testBound(
        j.result, value, *evidence.interval, c.threshold, isMax, prompts,
        [resampled](double confidence) { return percentileInterval(resampled, confidence); }, arm.share);
    if (j.result.outcome == Outcome::Inconclusive) {
        j.result.explanation = QStringLiteral("%1's %2 %3%4 is %5, but its interval over prompts (%6–%7) "
                                              "straddles %8%9.")
                                   .arg(arm.candidateLabel, metricName(c.metric), c.statistic, inTest(c),
                                       withUnit(value, c.metric), number(evidence.interval->lo),
                                       number(evidence.interval->hi), required, settleText(j.result));
        j.change = QStringLiteral("Whether %1's %2 %3%4 is %5 is open (%6)%7.")
                       .arg(arm.candidateLabel, metricName(c.metric), c.statistic, inTest(c), required,
                           j.result.measured, settleText(j.result));
        return j;
    }
    const bool pass = j.result.outcome == Outcome::Pass;
    j.result.explanation = QStringLiteral("%1's %2 %3%4 is %5, %6 %7.")
                               .arg(arm.candidateLabel, metricName(c.metric), c.statistic, inTest(c),
                                   withUnit(value, c.metric),
                                   pass ? QStringLiteral("within") : QStringLiteral("outside"), required);
    if (!pass) {
        const double gap = std::fabs(c.threshold - value);
        const QString need = isMax
            ? QStringLiteral("%1 less").arg(withUnit(gap, c.metric))
            : QStringLiteral("%1 more, %2")
                  .arg(withUnit(gap, c.metric), signedPercent(value > 0 ? gap / value : 1));
        j.change = QStringLiteral("%1's %2 %3%4 is %5 and must be %6 (%7): %8.")
                       .arg(arm.candidateLabel, metricName(c.metric), c.statistic, inTest(c),
                           withUnit(value, c.metric), required.section(QStringLiteral(" ("), 0, 0), need,
                           metricFix(c.metric));
    }
    return j;
}

} // namespace qs::criteria
