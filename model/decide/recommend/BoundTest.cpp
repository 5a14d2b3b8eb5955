// SPDX-License-Identifier: MIT
#include "model/decide/recommend/BoundTest.h"

namespace qs::criteria {

void testBound(CriterionResult& r, double estimate, const Interval& interval, double limit, bool worseAbove,
    int prompts, const IntervalAt& intervalAt)
{
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
