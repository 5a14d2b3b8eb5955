// SPDX-License-Identifier: MIT
#include "model/decide/recommend/BoundTest.h"

#include "model/evaluate/PairedComparison.h"

#include <cmath>

namespace qs::criteria {

Interval intervalAtLevel(
    double estimate, const Interval& interval, const IntervalAt& intervalAt, double level)
{
    if (std::abs(level - 0.95) < 1e-12)
        return interval;
    if (intervalAt)
        if (const std::optional<Interval> at = intervalAt(level))
            return *at;
    const double scale = normalQuantile(0.5 + level / 2) / normalQuantile(0.975);
    return {estimate - (estimate - interval.lo) * scale, estimate + (interval.hi - estimate) * scale};
}

void testBound(CriterionResult& r, double estimate, const Interval& given, double limit, bool worseAbove,
    int prompts, const IntervalAt& intervalAt, double share)
{
    const Interval interval = intervalAtLevel(estimate, given, intervalAt, 1 - 0.05 * share);
    r.estimate = estimate;
    r.interval = interval;
    r.limit = limit;
    r.worseAbove = worseAbove;
    r.prompts = prompts;
    const double worseEnd = worseAbove ? interval.hi : interval.lo;
    const double betterEnd = worseAbove ? interval.lo : interval.hi;
    const bool within = worseAbove ? worseEnd <= limit : worseEnd >= limit;
    const bool beyond = worseAbove ? betterEnd > limit : betterEnd < limit;
    if (within) {
        r.outcome = CriterionResult::Outcome::Pass;
    } else if (beyond) {
        r.outcome = CriterionResult::Outcome::Fail;
        r.pBeyond = intervalAt ? pValueBeyond(intervalAt, limit, worseAbove) : 0.025;
    } else {
        r.outcome = CriterionResult::Outcome::Inconclusive;
        r.promptsToSettle = promptsToSettle(estimate, interval, limit, prompts);
    }
}

QString settleText(const CriterionResult& r)
{
    if (r.outcome != CriterionResult::Outcome::Inconclusive || !r.estimate || !r.prompts)
        return {};
    if (!r.promptsToSettle)
        return QStringLiteral("; the estimate sits on the limit, so more prompts alone may never settle it");
    if (*r.promptsToSettle > 20 * r.prompts)
        return QStringLiteral("; it would take more than %1 distinct prompts to settle").arg(20 * r.prompts);
    return QStringLiteral("; roughly %1 distinct prompts in all (%2 now) would settle it")
        .arg(*r.promptsToSettle)
        .arg(r.prompts);
}

} // namespace qs::criteria
