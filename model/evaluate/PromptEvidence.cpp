// SPDX-License-Identifier: MIT
#include "model/evaluate/PromptEvidence.h"

#include "model/core/Percentile.h"
#include "model/evaluate/JudgedQuality.h"

#include <algorithm>
#include <cmath>
#include <random>

namespace qs {

namespace {

// P(X ≥ k), X ~ Binomial(n, ½), summed in log space (n may be in the thousands).
double upperTailHalf(int n, int k)
{
    if (k <= 0)
        return 1;
    if (k > n)
        return 0;
    const double logHalfN = n * std::log(0.5);
    double sum = 0;
    for (int i = k; i <= n; ++i)
        sum += std::exp(std::lgamma(n + 1.0) - std::lgamma(i + 1.0) - std::lgamma(n - i + 1.0) + logHalfN);
    return std::min(1.0, sum);
}

// Values within this of the bound count as on it (floating-point noise is not a side).
bool onBound(double v, double bound)
{
    return std::fabs(v - bound) <= 1e-12 * std::max(1.0, std::fabs(bound));
}

} // namespace

std::optional<Interval> medianInterval(std::vector<double> values, double confidence)
{
    const int n = int(values.size());
    if (n == 0)
        return std::nullopt;
    std::sort(values.begin(), values.end());
    const double alpha = 1 - confidence;
    // With k − 1 values below the k-th smallest, the two-sided sign test's p-value grows with k.
    const auto rejects = [&](int k) { return mcnemarExactP(k - 1, n - k + 1) <= alpha; };
    if (!rejects(1))
        return std::nullopt;
    int lo = 1, hi = (n + 1) / 2;
    while (lo < hi) {
        const int mid = (lo + hi + 1) / 2;
        if (rejects(mid))
            lo = mid;
        else
            hi = mid - 1;
    }
    return Interval {values[std::size_t(lo - 1)], values[std::size_t(n - lo)]};
}

double signTestPAbove(const std::vector<double>& values, double bound)
{
    int above = 0, n = 0;
    for (double v : values) {
        if (onBound(v, bound))
            continue;
        ++n;
        above += v > bound ? 1 : 0;
    }
    return n == 0 ? 1.0 : upperTailHalf(n, above);
}

double signTestPBelow(const std::vector<double>& values, double bound)
{
    std::vector<double> mirrored;
    mirrored.reserve(values.size());
    for (double v : values)
        mirrored.push_back(-v);
    return signTestPAbove(mirrored, -bound);
}

Interval promptRateInterval(double passed, int prompts, double confidence)
{
    if (prompts <= 0)
        return {0, 1};
    const double x = std::clamp(passed, 0.0, double(prompts));
    const int low = int(std::floor(x + 1e-9));
    const int high = int(std::ceil(x - 1e-9));
    return {clopperPearsonInterval(low, prompts, confidence).lo,
        clopperPearsonInterval(high, prompts, confidence).hi};
}

double pValueBeyond(const IntervalAt& intervalAt, double bound, bool above)
{
    const auto beyond = [&](double c) {
        const std::optional<Interval> ci = intervalAt(c);
        return ci && (above ? ci->lo > bound : ci->hi < bound);
    };
    double lo = 1e-6;
    if (!beyond(lo))
        return 1;
    double hi = 1 - 1e-9;
    if (beyond(hi))
        return (1 - hi) / 2;
    while (hi - lo > 1e-4) {
        const double mid = (lo + hi) / 2;
        (beyond(mid) ? lo : hi) = mid;
    }
    return (1 - lo) / 2;
}

std::vector<double> clusterResamples(const std::vector<std::vector<double>>& clusters,
    const ValuesStatistic& statistic, const BootstrapOptions& options)
{
    const std::size_t k = clusters.size();
    std::vector<double> stats;
    if (k < 2 || options.resamples <= 0)
        return stats;
    std::mt19937_64 engine(options.seed);
    std::vector<double> sample;
    stats.reserve(std::size_t(options.resamples));
    for (int r = 0; r < options.resamples; ++r) {
        sample.clear();
        for (std::size_t i = 0; i < k; ++i) {
            const auto& c = clusters[std::size_t(engine() % k)];
            sample.insert(sample.end(), c.begin(), c.end());
        }
        if (const auto s = statistic(sample); s && std::isfinite(*s))
            stats.push_back(*s);
    }
    if (stats.size() * 2 < std::size_t(options.resamples))
        stats.clear();
    std::sort(stats.begin(), stats.end());
    return stats;
}

std::optional<Interval> percentileInterval(const std::vector<double>& sorted, double confidence)
{
    if (sorted.empty())
        return std::nullopt;
    const double tail = (1 - confidence) / 2 * 100;
    return Interval {*percentile(sorted, tail), *percentile(sorted, 100 - tail)};
}

int minValuesForQuantile(double q, double confidence)
{
    q = std::clamp(q, 1e-6, 1 - 1e-6);
    const double alpha = (1 - confidence) / 2;
    // An order-statistic end beyond the q quantile exists once q^n (or (1 − q)^n) ≤ α/2.
    const double n = std::max(std::log(alpha) / std::log(q), std::log(alpha) / std::log(1 - q));
    return int(std::ceil(n - 1e-9));
}

std::optional<int> promptsToSettle(double estimate, const Interval& interval, double bound, int prompts)
{
    const double distance = std::fabs(bound - estimate);
    if (prompts <= 0 || onBound(estimate, bound) || distance <= 0)
        return std::nullopt;
    const double halfWidth = estimate > bound ? estimate - interval.lo : interval.hi - estimate;
    if (halfWidth <= 0)
        return prompts;
    const double needed = prompts * (halfWidth / distance) * (halfWidth / distance);
    if (!std::isfinite(needed) || needed > 1e6)
        return std::nullopt;
    return std::max(prompts, int(std::ceil(needed)));
}

} // namespace qs
