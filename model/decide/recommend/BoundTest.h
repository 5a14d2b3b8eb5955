// SPDX-License-Identifier: MIT
#pragma once

#include "model/decide/Recommendation.h"
#include "model/evaluate/PromptEvidence.h"

namespace qs::criteria {

/// The one rule every interval-based criterion follows (docs/decision-profiles.md, "Margins and
/// error rates"): with `worseAbove`, values above `limit` are worse (a latency ratio, a p50 against
/// a maximum), else values below it (a pass rate, a decode rate against a minimum).
/// - Pass: the interval's worse end is within the limit.
/// - Fail: its better end is beyond the limit (shown worse than allowed); `pBeyond` is then read
///   off `intervalAt` for Holm's correction across the profile (without one, 0.025: the most a
///   fail of a 95 % interval can have, so the correction errs towards holding it).
/// - Otherwise inconclusive, with roughly how many distinct prompts would settle it.
/// `share` is the part of the error this verdict may spend (model/decide/Sequential.h): 1 for a
/// run of a fixed size; a run that looked k times until decided reads its intervals at the
/// stricter level 1 − 0.05·share (from `intervalAt`; without one, `interval`'s sides are widened
/// as a normal one's would be), so looking after every round never spends the stated error.
/// Sets outcome, estimate, interval, limit, worseAbove, prompts, pBeyond and promptsToSettle.
void testBound(CriterionResult& result, double estimate, const Interval& interval, double limit,
    bool worseAbove, int prompts, const IntervalAt& intervalAt, double share = 1);

/// `interval` (95 %) read at confidence `level` instead: from `intervalAt` when it gives one,
/// else its sides around `estimate` scaled by the normal quantiles' ratio.
Interval intervalAtLevel(
    double estimate, const Interval& interval, const IntervalAt& intervalAt, double level);

/// "; about 40 distinct prompts in all would settle it" (or why no number would), for an open one.
QString settleText(const CriterionResult& result);

} // namespace qs::criteria
