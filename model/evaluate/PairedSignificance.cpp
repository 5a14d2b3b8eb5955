// SPDX-License-Identifier: MIT
// Significance of paired differences: Wilcoxon signed-rank, McNemar, and the Wilson and
// Newcombe intervals of rates.
#include "model/evaluate/PairedComparison.h"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace qs {

WilcoxonResult wilcoxonSignedRank(const std::vector<double>& differences, WilcoxonMethod method)
{
    WilcoxonResult w;
    double scale = 1;
    for (double d : differences)
        if (std::isfinite(d))
            scale = std::max(scale, std::fabs(d));
    const double tolerance = 1e-9 * scale;
    std::vector<double> nonZero;
    for (double d : differences) {
        if (!std::isfinite(d))
            continue;
        if (std::fabs(d) <= tolerance)
            ++w.zeros;
        else
            nonZero.push_back(d);
    }
    std::sort(nonZero.begin(), nonZero.end(), [](double a, double b) { return std::fabs(a) < std::fabs(b); });
    const int n = int(nonZero.size());
    w.n = n;
    if (n == 0)
        return w;

    // Mid-ranks, doubled so that they are integers (a tie of ranks 3 and 4 has 2·3.5 = 7).
    std::vector<int> rank2(std::size_t(n), 0);
    double tieTerm = 0; // Σ (t³ − t) over tie groups
    for (int i = 0; i < n;) {
        int j = i;
        while (j + 1 < n
            && std::fabs(nonZero[std::size_t(j + 1)]) - std::fabs(nonZero[std::size_t(j)]) <= tolerance)
            ++j;
        for (int k = i; k <= j; ++k)
            rank2[std::size_t(k)] = i + j + 2;
        const double t = j - i + 1;
        tieTerm += t * t * t - t;
        i = j + 1;
    }
    long long wPlus2 = 0;
    for (int k = 0; k < n; ++k)
        if (nonZero[std::size_t(k)] > 0)
            wPlus2 += rank2[std::size_t(k)];
    const long long total2 = (long long)n * (n + 1);
    w.wPlus = double(wPlus2) / 2.0;
    w.wMinus = double(total2 - wPlus2) / 2.0;
    w.rankBiserial = (w.wPlus - w.wMinus) / (w.wPlus + w.wMinus);

    w.exact = method == WilcoxonMethod::Exact || (method == WilcoxonMethod::Auto && n <= 50);
    if (w.exact) {
        // Under H0 each rank is positive or negative with probability ½, independently: the
        // distribution of (doubled) W+ by dynamic programming over the ranks.
        std::vector<double> dist(std::size_t(total2) + 1, 0.0);
        dist[0] = 1;
        long long reach = 0;
        for (int r : rank2) {
            reach += r;
            for (long long s = reach; s >= 0; --s)
                dist[std::size_t(s)]
                    = 0.5 * dist[std::size_t(s)] + (s >= r ? 0.5 * dist[std::size_t(s - r)] : 0.0);
        }
        double lower = 0, upper = 0;
        for (long long s = 0; s <= total2; ++s) {
            if (s <= wPlus2)
                lower += dist[std::size_t(s)];
            if (s >= wPlus2)
                upper += dist[std::size_t(s)];
        }
        w.p = std::min(1.0, 2.0 * std::min(lower, upper));
        return w;
    }
    const double mean = double(n) * (n + 1) / 4.0;
    const double variance = double(n) * (n + 1) * (2.0 * n + 1) / 24.0 - tieTerm / 48.0;
    if (!(variance > 0)) {
        w.p = 1;
        return w;
    }
    const double deviation = w.wPlus - mean;
    const double corrected = std::max(0.0, std::fabs(deviation) - 0.5); // continuity correction
    const double z = (deviation < 0 ? -corrected : corrected) / std::sqrt(variance);
    w.z = z;
    w.p = std::min(1.0, std::erfc(std::fabs(z) / std::numbers::sqrt2));
    return w;
}

double mcnemarExactP(int baselineOnly, int candidateOnly)
{
    const int n = baselineOnly + candidateOnly;
    if (n <= 0)
        return 1;
    const int k = std::min(baselineOnly, candidateOnly);
    // P(X ≤ k) in log space: 2⁻ⁿ underflows for n > 1074.
    double tail = 0;
    for (int i = 0; i <= k; ++i)
        tail += std::exp(
            std::lgamma(n + 1.0) - std::lgamma(i + 1.0) - std::lgamma(n - i + 1.0) - n * std::numbers::ln2);
    return std::min(1.0, 2.0 * tail);
}

double normalQuantile(double p)
{
    if (!(p > 0))
        return -INFINITY;
    if (!(p < 1))
        return INFINITY;
    // Acklam's rational approximation, then one Halley step on erfc: ~1e-15 relative.
    static constexpr double a[] = {-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
        1.383577518672690e+02, -3.066479806614716e+01, 2.506628277459239e+00};
    static constexpr double b[] = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
        6.680131188771972e+01, -1.328068155288572e+01};
    static constexpr double c[] = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
        -2.549732539343734e+00, 4.374664141464968e+00, 2.938163982698783e+00};
    static constexpr double d[]
        = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00, 3.754408661907416e+00};
    constexpr double low = 0.02425;
    double x;
    if (p < low || p > 1 - low) {
        const double q = std::sqrt(-2 * std::log(p < low ? p : 1 - p));
        x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5])
            / ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
        if (p > 1 - low)
            x = -x;
    } else {
        const double q = p - 0.5;
        const double r = q * q;
        x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q
            / (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
    }
    const double e = 0.5 * std::erfc(-x / std::numbers::sqrt2) - p;
    const double u = e * std::sqrt(2 * std::numbers::pi) * std::exp(x * x / 2);
    return x - u / (1 + x * u / 2);
}

Interval wilsonInterval(double successes, double n, double confidence)
{
    if (n <= 0)
        return {0, 1};
    const double z = normalQuantile(0.5 + confidence / 2);
    const double p = successes / n;
    const double z2 = z * z;
    const double denominator = 1 + z2 / n;
    const double centre = (p + z2 / (2.0 * n)) / denominator;
    const double half = z * std::sqrt(p * (1 - p) / n + z2 / (4.0 * n * n)) / denominator;
    return {std::max(0.0, centre - half), std::min(1.0, centre + half)};
}

std::optional<Interval> newcombePairedInterval(
    double both, double firstOnly, double secondOnly, double neither, double confidence)
{
    const double n = both + firstOnly + secondOnly + neither;
    if (n <= 0)
        return std::nullopt;
    const double first = both + firstOnly; // successes of the first proportion
    const double second = both + secondOnly;
    const double p1 = first / n;
    const double p2 = second / n;
    const Interval w1 = wilsonInterval(first, n, confidence);
    const Interval w2 = wilsonInterval(second, n, confidence);
    // ψ: the correlation of p̂₁ and p̂₂, shrunk towards 0 by n/2 when positive (Newcombe).
    double psi = 0;
    if (first > 0 && first < n && second > 0 && second < n) {
        const double product = first * (n - first) * second * (n - second);
        const double a = both * neither - firstOnly * secondOnly;
        if (a > n / 2.0)
            psi = (a - n / 2.0) / std::sqrt(product);
        else if (a < 0)
            psi = a / std::sqrt(product);
    }
    const double delta = p1 - p2;
    const double dl1 = p1 - w1.lo, du1 = w1.hi - p1, dl2 = p2 - w2.lo, du2 = w2.hi - p2;
    const double lower = delta - std::sqrt(std::max(0.0, dl1 * dl1 - 2 * psi * dl1 * du2 + du2 * du2));
    const double upper = delta + std::sqrt(std::max(0.0, du1 * du1 - 2 * psi * du1 * dl2 + dl2 * dl2));
    return Interval {std::max(-1.0, lower), std::min(1.0, upper)};
}

} // namespace qs
