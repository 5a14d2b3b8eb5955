// SPDX-License-Identifier: MIT
// The paired estimators (ratio of medians, median of ratios and differences, Hodges–Lehmann)
// and the stratified bootstrap of their intervals.
#include "model/core/Percentile.h"
#include "model/evaluate/PairedComparison.h"

#include <algorithm>
#include <cmath>
#include <random>

namespace qs {

namespace {

// Type-7 median of a non-empty vector, reordering it (nth_element: O(n), for the bootstrap's
// inner loop). Same expression as qs::percentile, so the results are identical.
double medianInPlace(std::vector<double>& v)
{
    const std::size_t lo = (v.size() - 1) / 2;
    std::nth_element(v.begin(), v.begin() + std::ptrdiff_t(lo), v.end());
    if (v.size() % 2 == 1)
        return v[lo];
    const double hi = *std::min_element(v.begin() + std::ptrdiff_t(lo) + 1, v.end());
    return v[lo] + (hi - v[lo]) * 0.5;
}

} // namespace

std::optional<Interval> bootstrapInterval(const std::vector<std::vector<PairedValue>>& strata,
    const PairStatistic& statistic, const BootstrapOptions& options)
{
    std::size_t total = 0;
    for (const auto& s : strata)
        total += s.size();
    if (total == 0 || options.resamples <= 0)
        return std::nullopt;
    std::mt19937_64 engine(options.seed);
    std::vector<PairedValue> sample;
    sample.reserve(total);
    std::vector<double> estimates;
    estimates.reserve(std::size_t(options.resamples));
    for (int r = 0; r < options.resamples; ++r) {
        sample.clear();
        for (const auto& s : strata)
            for (std::size_t k = 0; k < s.size(); ++k)
                sample.push_back(s[std::size_t(engine() % s.size())]);
        if (const auto v = statistic(sample); v && std::isfinite(*v))
            estimates.push_back(*v);
    }
    if (estimates.size() * 2 < std::size_t(options.resamples))
        return std::nullopt;
    const double tail = (1.0 - options.confidence) / 2.0 * 100.0;
    std::sort(estimates.begin(), estimates.end());
    return Interval {*percentile(estimates, tail), *percentile(estimates, 100.0 - tail)};
}

// The three statistics below run 10,000 times per interval: they reuse per-thread scratch
// buffers instead of allocating on every call.

std::optional<double> ratioOfMedians(const std::vector<PairedValue>& pairs)
{
    if (pairs.empty())
        return std::nullopt;
    thread_local std::vector<double> b, c;
    b.clear();
    c.clear();
    for (const PairedValue& p : pairs) {
        b.push_back(p.baseline);
        c.push_back(p.candidate);
    }
    const double mb = medianInPlace(b);
    if (!(mb > 0))
        return std::nullopt;
    return medianInPlace(c) / mb;
}

std::optional<double> medianOfPairedRatios(const std::vector<PairedValue>& pairs)
{
    if (pairs.empty())
        return std::nullopt;
    thread_local std::vector<double> r;
    r.clear();
    for (const PairedValue& p : pairs) {
        if (!(p.baseline > 0))
            return std::nullopt;
        r.push_back(p.candidate / p.baseline);
    }
    return medianInPlace(r);
}

std::optional<double> medianOfPairedDifferences(const std::vector<PairedValue>& pairs)
{
    if (pairs.empty())
        return std::nullopt;
    thread_local std::vector<double> d;
    d.clear();
    for (const PairedValue& p : pairs)
        d.push_back(p.candidate - p.baseline);
    return medianInPlace(d);
}

namespace {

// Walsh sums dᵢ + dⱼ (i ≤ j) of sorted `d` that are ≤ t: two pointers, O(n).
std::uint64_t walshSumsAtMost(const std::vector<double>& d, double t)
{
    std::uint64_t count = 0;
    std::ptrdiff_t j = std::ptrdiff_t(d.size()) - 1;
    for (std::ptrdiff_t i = 0; i < std::ptrdiff_t(d.size()); ++i) {
        while (j >= i && d[std::size_t(i)] + d[std::size_t(j)] > t)
            --j;
        if (j < i)
            break;
        count += std::uint64_t(j - i + 1);
    }
    return count;
}

// The k-th smallest (1-based) Walsh sum of sorted `d`, without materialising the n(n+1)/2 sums
// (50,000 differences would need 10 GB): bisect on the value until the bracket (lo, hi] holds
// only the answer's neighbourhood, then take the smallest sum above lo, which is exact.
double kthWalshSum(const std::vector<double>& d, std::uint64_t k)
{
    double lo = 2 * d.front();
    double hi = 2 * d.back();
    if (walshSumsAtMost(d, lo) >= k)
        return lo;
    // Invariant: count(lo) < k ≤ count(hi).
    for (int step = 0; step < 200; ++step) {
        const double mid = lo + (hi - lo) / 2;
        if (!(mid > lo && mid < hi))
            break; // adjacent doubles
        if (walshSumsAtMost(d, mid) >= k)
            hi = mid;
        else
            lo = mid;
    }
    double best = hi;
    std::ptrdiff_t j = std::ptrdiff_t(d.size()) - 1;
    for (std::ptrdiff_t i = 0; i < std::ptrdiff_t(d.size()); ++i) {
        // Smallest j ≥ i with dᵢ + dⱼ > lo; as i grows that j can only shrink.
        while (j > i && d[std::size_t(i)] + d[std::size_t(j - 1)] > lo)
            --j;
        if (j < i)
            j = i;
        const double sum = d[std::size_t(i)] + d[std::size_t(j)];
        if (sum > lo)
            best = std::min(best, sum);
    }
    return best;
}

} // namespace

std::optional<double> hodgesLehmann(const std::vector<double>& differences)
{
    if (differences.empty())
        return std::nullopt;
    const std::size_t n = differences.size();
    if (n <= 1000) {
        // Small samples: materialise the Walsh averages (at most 500,500 of them).
        std::vector<double> walsh;
        walsh.reserve(n * (n + 1) / 2);
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t j = i; j < n; ++j)
                walsh.push_back((differences[i] + differences[j]) / 2.0);
        return medianInPlace(walsh);
    }
    std::vector<double> d = differences;
    std::sort(d.begin(), d.end());
    const std::uint64_t m = std::uint64_t(n) * (n + 1) / 2;
    const std::uint64_t k = (m - 1) / 2 + 1; // the lower middle, as medianInPlace
    const double a = kthWalshSum(d, k) / 2.0;
    if (m % 2 == 1)
        return a;
    const double b = kthWalshSum(d, k + 1) / 2.0;
    return a + (b - a) * 0.5;
}

} // namespace qs
