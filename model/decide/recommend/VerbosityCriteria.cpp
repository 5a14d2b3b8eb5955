// SPDX-License-Identifier: MIT
// verbosity_max_ratio: does the candidate talk longer than the baseline? The seeds' NVFP4 base
// model was "2-6x more verbose" (003) and wrote "2-3x more tokens per response" (004), which a
// listener hears as a slower, wordier assistant. Each prompt's completion tokens on the candidate
// are divided by the same prompt's on the baseline (pairs matched by test, turn and run, as
// PairedComparison matches them), over answers a listener hears: a request that asked for thinking
// counts its reasoning tokens, and a tool call is not an answer, so both are left out.
#include "model/decide/recommend/Arm.h"
#include "model/decide/recommend/BoundTest.h"
#include "model/decide/recommend/Criteria.h"
#include "model/decide/recommend/CriterionText.h"
#include "model/evaluate/PairedComparison.h"

#include <algorithm>
#include <map>
#include <set>

namespace qs::criteria {

using Outcome = CriterionResult::Outcome;

namespace {

struct LengthPairs {
    std::vector<double> ratios; ///< candidate ÷ baseline completion tokens, one per pair
    std::vector<double> candidate; ///< tokens
    std::vector<double> baseline;
    std::set<std::pair<QString, int>> prompts; ///< (test, turn) with at least one pair
    /// One ratio per distinct prompt (a test; a conversation's turns together): the median of its
    /// pairs' ratios. The unit of evidence: repeats of a prompt never narrow the interval.
    std::map<QString, std::vector<double>> byPrompt;
    std::vector<double> promptRatios() const
    {
        std::vector<double> out;
        for (const auto& [test, promptRatios] : byPrompt)
            out.push_back(*median(promptRatios));
        return out;
    }
    int thinkingOn = 0; ///< pairs left out: a request asked for thinking
    int toolCalls = 0; ///< pairs left out: a reply was a tool call
};

LengthPairs fromPairs(const std::vector<LengthPair>& pairs, const QString& test)
{
    LengthPairs out;
    for (const LengthPair& p : pairs) {
        if (!test.isEmpty() && p.test != test)
            continue;
        switch (p.use) {
        case LengthPair::Use::ThinkingOn:
            ++out.thinkingOn;
            break;
        case LengthPair::Use::ToolCall:
            ++out.toolCalls;
            break;
        case LengthPair::Use::Compared:
            out.ratios.push_back(p.candidateTokens / p.baselineTokens);
            out.candidate.push_back(p.candidateTokens);
            out.baseline.push_back(p.baselineTokens);
            out.prompts.insert({p.test, p.turn});
            out.byPrompt[p.test].push_back(p.candidateTokens / p.baselineTokens);
            break;
        }
    }
    return out;
}

// The evaluation paired them on its worker thread (Evaluation::lengths); a recommendation against
// another baseline than the evaluation's pairs them here.
LengthPairs lengthPairs(const Arm& arm, const QString& test)
{
    if (arm.evaluation.baseline == arm.baseline)
        for (const ArmLengths& a : arm.evaluation.lengths)
            if (a.endpoint == arm.candidate)
                return fromPairs(a.pairs, test);
    for (const ArmLengths& a : answerLengths(arm.result, arm.baseline))
        if (a.endpoint == arm.candidate)
            return fromPairs(a.pairs, test);
    return {};
}

QString leftOutText(const LengthPairs& p)
{
    QStringList parts;
    if (p.thinkingOn > 0)
        parts << QStringLiteral("%1 with thinking on").arg(p.thinkingOn);
    if (p.toolCalls > 0)
        parts << QStringLiteral("%1 tool calls").arg(p.toolCalls);
    return parts.isEmpty() ? QString()
                           : QStringLiteral("; left out: ") + parts.join(QStringLiteral(", "))
            + QStringLiteral(" (not spoken answers)");
}

QString times(double ratio)
{
    return number(ratio) + QStringLiteral("×");
}

} // namespace

Judged judgeVerbosity(const Arm& arm, const Criterion& c)
{
    const QString required = QStringLiteral("≤ %1 %2's").arg(times(c.threshold), arm.baselineLabel);
    const LengthPairs p = lengthPairs(arm, c.test);
    const int n = int(p.ratios.size());
    const QString leftOut = leftOutText(p);
    if (n == 0)
        return inconclusive(c, QStringLiteral("no pairs") + leftOut, required,
            QStringLiteral("No spoken answer of %1 and %2%3 can be paired by prompt to compare their "
                           "lengths (requests with thinking on and tool calls are left out).")
                .arg(arm.candidateLabel, arm.baselineLabel, inTest(c)),
            QStringLiteral("No spoken answer of %1 and %2%3 to compare answer lengths: run both endpoints "
                           "with the same suite, with tests answered in text with thinking off.")
                .arg(arm.candidateLabel, arm.baselineLabel, inTest(c)));

    const std::vector<double> perPrompt = p.promptRatios();
    const int prompts = int(perPrompt.size());
    const double ratio = *median(perPrompt);
    const ComparisonOptions& options = arm.evaluation.comparison.options;
    std::optional<Interval> interval;
    if (prompts >= options.minPrompts)
        interval = medianInterval(perPrompt, options.bootstrap.confidence);
    QString measured = QStringLiteral("ratio %1").arg(number(ratio));
    if (interval)
        measured += QStringLiteral(" [%1–%2]").arg(number(interval->lo), number(interval->hi));
    measured += QStringLiteral(" (median %1 vs %2 tokens), %3 pairs over %4 distinct prompts")
                    .arg(number(*median(p.candidate)), number(*median(p.baseline)))
                    .arg(n)
                    .arg(prompts)
        + leftOut;
    const QString who = QStringLiteral("%1's answers%2").arg(arm.candidateLabel, inTest(c));
    const QString runs = QStringLiteral("%1 times the length of %2's (the median of the per-prompt ratios)")
                             .arg(number(ratio), arm.baselineLabel);
    if (!interval)
        return inconclusive(c, measured, required,
            QStringLiteral("Only %1 distinct prompts compare the lengths, too few for an interval of their "
                           "ratio (at least %2; repeats of a prompt are one ratio).")
                .arg(prompts)
                .arg(options.minPrompts),
            QStringLiteral("Only %1 distinct prompts%2 compare the lengths of %3's and %4's: run a suite "
                           "with at least %5 distinct prompts answered in text.")
                .arg(prompts)
                .arg(inTest(c), arm.candidateLabel, arm.baselineLabel)
                .arg(options.minPrompts));
    const Interval ci = interval.value_or(Interval {});
    Judged j;
    j.result.criterion = c;
    j.result.measured = measured;
    j.result.required = required;
    testBound(
        j.result, ratio, ci, c.threshold, true, prompts,
        [perPrompt](double confidence) { return medianInterval(perPrompt, confidence); }, arm.share);
    if (j.result.outcome == Outcome::Pass) {
        j.result.explanation = who + QStringLiteral(" run ") + runs
            + QStringLiteral("; the interval's upper end, %1, is within the allowance of %2.")
                  .arg(number(ci.hi), times(c.threshold));
    } else if (j.result.outcome == Outcome::Fail) {
        j.result.explanation = who + QStringLiteral(" run ") + runs
            + QStringLiteral("; even the interval's lower end, %1, is above the allowance of %2.")
                  .arg(number(ci.lo), times(c.threshold));
        j.change = QStringLiteral("%1 are %2 as long as %3's (%4) and may be at most %5: %6.")
                       .arg(who, times(ratio), arm.baselineLabel, measured, times(c.threshold),
                           metricFix(Metric::CompletionTokens));
    } else {
        j.result.explanation = who + QStringLiteral(" run ") + runs
            + QStringLiteral(", but the interval [%1–%2] contains the allowance of %3: the data cannot tell "
                             "whether they stay within it%4.")
                  .arg(number(ci.lo), number(ci.hi), times(c.threshold), settleText(j.result));
        j.change = QStringLiteral("Whether %1 stay within %2 of %3's length is open (%4)%5.")
                       .arg(who, times(c.threshold), arm.baselineLabel, measured, settleText(j.result));
    }
    return j;
}

} // namespace qs::criteria
