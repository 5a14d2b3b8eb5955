// SPDX-License-Identifier: MIT
#pragma once

#include "model/evaluate/PairedComparison.h"

#include <functional>
#include <optional>
#include <vector>

namespace qs {

// Inference over distinct prompts (docs/methodology.md §9.7). The unit of evidence is a distinct
// prompt — a whole conversation for a multi-turn test. Repeats of one prompt are first collapsed to
// one value per prompt (they steady that value), and only then is an interval drawn over the
// prompts, so repeating a prompt never narrows an interval about the model.

/// Distribution-free interval for the median of independent values: the sign test inverted, i.e.
/// the k-th smallest and k-th largest value, k the largest for which the two-sided sign test still
/// rejects at 1 − confidence. Coverage is at least `confidence` for any continuous distribution.
/// Nothing when even [min, max] is not that sure: fewer than 6 values at 95 %.
std::optional<Interval> medianInterval(std::vector<double> values, double confidence = 0.95);

/// One-sided sign test of "the median is at most `bound`" against "it is above": P(X ≥ k) with
/// X ~ Binomial(n, ½), k the values above `bound`, n the values not equal to it; 1 when n = 0.
double signTestPAbove(const std::vector<double>& values, double bound);
/// The mirror image: "at least `bound`" against "below".
double signTestPBelow(const std::vector<double>& values, double bound);

/// Exact Clopper–Pearson interval of a rate over prompts whose repeats may disagree: `passed` is the
/// sum of the prompts' own pass fractions. The lower end is computed from its floor and the upper
/// from its ceiling, so the interval is never narrower than a whole-prompt count would give.
Interval promptRateInterval(double passed, int prompts, double confidence = 0.95);

/// An interval method at any confidence level (nothing where it cannot give one).
using IntervalAt = std::function<std::optional<Interval>(double confidence)>;

/// The one-sided p-value of "the figure is beyond `bound`" read off an interval method: (1 − c*)/2,
/// c* the highest two-sided confidence at which the interval still lies wholly beyond `bound`
/// (above it when `above`, else below). 1 when not even a point estimate is beyond it. Bisection
/// to 1e-4; the method must widen as the confidence grows.
double pValueBeyond(const IntervalAt& intervalAt, double bound, bool above);

using ValuesStatistic = std::function<std::optional<double>(const std::vector<double>&)>;

/// A cluster bootstrap over prompts: `options.resamples` times, draw as many whole clusters as
/// there are with replacement and evaluate `statistic` on all their values together. The
/// statistics, sorted (undefined ones left out); empty with fewer than 2 clusters or when the
/// statistic is undefined for more than half of the resamples. Deterministic for a seed.
std::vector<double> clusterResamples(const std::vector<std::vector<double>>& clusters,
    const ValuesStatistic& statistic, const BootstrapOptions& options = {});
/// The two-sided `confidence` percentile interval (type 7) of sorted resampled statistics.
std::optional<Interval> percentileInterval(const std::vector<double>& sortedStatistics, double confidence);

/// The least number of values for which a distribution-free interval of the `q` quantile
/// (0 < q < 1) has an end on the far side at `confidence`: a p99 needs 368 values at 95 %, a p95 72, a p90
/// 36, a p50 6. Fewer, and the sample cannot estimate that quantile (its "p99" is just its maximum).
int minValuesForQuantile(double q, double confidence = 0.95);

/// Roughly how many distinct prompts in all would bring an interval's relevant end past `bound`,
/// assuming its half-width shrinks as 1/√prompts: prompts · (halfWidth / |bound − estimate|)².
/// Nothing when the estimate sits on the bound (no number of prompts settles it).
std::optional<int> promptsToSettle(double estimate, const Interval& interval, double bound, int prompts);

} // namespace qs
