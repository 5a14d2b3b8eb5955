// SPDX-License-Identifier: MIT
#include "model/evaluate/PairedComparison.h"

#include "model/core/Percentile.h"

#include <QStringList>
#include <algorithm>
#include <cmath>
#include <map>
#include <numbers>
#include <random>
#include <set>
#include <tuple>

namespace qs {

// ---------------------------------------------------------------------------------------------
// Estimators and their bootstrap

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

// ---------------------------------------------------------------------------------------------
// Tests

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

Interval wilsonInterval(int successes, int n, double confidence)
{
    if (n <= 0)
        return {0, 1};
    const double z = normalQuantile(0.5 + confidence / 2);
    const double p = double(successes) / n;
    const double z2 = z * z;
    const double denominator = 1 + z2 / n;
    const double centre = (p + z2 / (2.0 * n)) / denominator;
    const double half = z * std::sqrt(p * (1 - p) / n + z2 / (4.0 * n * n)) / denominator;
    return {std::max(0.0, centre - half), std::min(1.0, centre + half)};
}

std::optional<Interval> newcombePairedInterval(
    int both, int firstOnly, int secondOnly, int neither, double confidence)
{
    const int n = both + firstOnly + secondOnly + neither;
    if (n <= 0)
        return std::nullopt;
    const int first = both + firstOnly; // successes of the first proportion
    const int second = both + secondOnly;
    const double p1 = double(first) / n;
    const double p2 = double(second) / n;
    const Interval w1 = wilsonInterval(first, n, confidence);
    const Interval w2 = wilsonInterval(second, n, confidence);
    // ψ: the correlation of p̂₁ and p̂₂, shrunk towards 0 by n/2 when positive (Newcombe).
    double psi = 0;
    if (first > 0 && first < n && second > 0 && second < n) {
        const double product = double(first) * (n - first) * double(second) * (n - second);
        const double a = double(both) * neither - double(firstOnly) * secondOnly;
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

// ---------------------------------------------------------------------------------------------
// Verdicts

QString verdictId(Verdict verdict)
{
    switch (verdict) {
    case Verdict::TooFewPairs:
        return QStringLiteral("too_few_pairs");
    case Verdict::NoClearDifference:
        return QStringLiteral("no_clear_difference");
    case Verdict::CandidateBetter:
        return QStringLiteral("candidate_better");
    case Verdict::BaselineBetter:
        return QStringLiteral("baseline_better");
    case Verdict::CandidateMore:
        return QStringLiteral("candidate_more");
    case Verdict::CandidateFewer:
        return QStringLiteral("candidate_fewer");
    }
    return {};
}

Verdict decideVerdict(int pairs, int minPairs, const std::optional<Interval>& ratioCi,
    const std::optional<Interval>& differenceCi, Preferred preferred)
{
    if (pairs < minPairs)
        return Verdict::TooFewPairs;
    int direction = 0; // +1: candidate higher, −1: lower
    if (ratioCi)
        direction = ratioCi->lo > 1 ? 1 : ratioCi->hi < 1 ? -1 : 0;
    else if (differenceCi)
        direction = differenceCi->lo > 0 ? 1 : differenceCi->hi < 0 ? -1 : 0;
    if (direction == 0)
        return Verdict::NoClearDifference;
    switch (preferred) {
    case Preferred::Lower:
        return direction < 0 ? Verdict::CandidateBetter : Verdict::BaselineBetter;
    case Preferred::Higher:
        return direction > 0 ? Verdict::CandidateBetter : Verdict::BaselineBetter;
    case Preferred::Neither:
        break;
    }
    return direction > 0 ? Verdict::CandidateMore : Verdict::CandidateFewer;
}

// ---------------------------------------------------------------------------------------------
// Pairing a run

namespace {

using Key = std::tuple<QString, int, int>; // test, turn, iteration

struct ArmIndex {
    std::map<Key, const RunRecord*> records;
    std::set<Key> duplicates;
};

struct MatchedPair {
    const RunRecord* baseline = nullptr;
    const RunRecord* candidate = nullptr;
};

QString number(double v, int decimals)
{
    return QString::number(v, 'f', decimals);
}

QString formatValue(double v, Metric metric)
{
    switch (metric) {
    case Metric::DecodeTps:
        return number(v, 1);
    case Metric::CompletionTokens:
    case Metric::PromptTokens:
        return number(v, v == std::round(v) ? 0 : 1);
    default:
        return number(v, std::fabs(v) >= 100 ? 0 : std::fabs(v) >= 10 ? 1 : 2);
    }
}

QString formatSigned(double v, Metric metric)
{
    return (v > 0 ? QStringLiteral("+") : QString()) + formatValue(v, metric);
}

QString formatRatio(double v)
{
    return number(v, v < 0.1 ? 3 : 2);
}

QString formatP(double p)
{
    return p < 0.001 ? QStringLiteral("p < 0.001") : QStringLiteral("p = ") + QString::number(p, 'g', 2);
}

QString rowName(const QString& test, int turn)
{
    if (test.isEmpty())
        return QStringLiteral("all tests");
    return turn > 0 ? test + QStringLiteral(" turn ") + QString::number(turn) : test;
}

QString metricVerdictPhrase(
    Verdict v, Metric metric, const QString& winner, const QString& candidate, int minPairs)
{
    switch (v) {
    case Verdict::TooFewPairs:
        return QStringLiteral("too few pairs to judge (fewer than %1)").arg(minPairs);
    case Verdict::NoClearDifference:
        return QStringLiteral("no clear difference");
    case Verdict::CandidateBetter:
    case Verdict::BaselineBetter:
        return winner
            + (metric == Metric::DecodeTps ? QStringLiteral(" decodes faster")
                                           : QStringLiteral(" is faster"));
    case Verdict::CandidateMore:
        return candidate + QStringLiteral(" writes more tokens");
    case Verdict::CandidateFewer:
        return candidate + QStringLiteral(" writes fewer tokens");
    }
    return {};
}

int winnerOf(Verdict v, const ArmComparison& arm)
{
    return v == Verdict::CandidateBetter ? arm.candidate : v == Verdict::BaselineBetter ? arm.baseline : -1;
}

QString labelOf(int endpoint, const ArmComparison& arm)
{
    return endpoint == arm.candidate ? arm.candidateLabel
        : endpoint == arm.baseline   ? arm.baselineLabel
                                     : QString();
}

std::optional<MetricComparison> compareMetric(Metric metric, const QString& test, int turn,
    const std::vector<std::vector<PairedValue>>& strata, bool pooledCells, const ComparisonOptions& options,
    const ArmComparison& arm)
{
    std::vector<PairedValue> all;
    for (const auto& s : strata)
        all.insert(all.end(), s.begin(), s.end());
    if (all.empty())
        return std::nullopt;
    MetricComparison row;
    row.metric = metric;
    row.test = test;
    row.turn = turn;
    row.pairs = int(all.size());
    std::vector<double> base, cand, diffs;
    for (const PairedValue& p : all) {
        base.push_back(p.baseline);
        cand.push_back(p.candidate);
        diffs.push_back(p.candidate - p.baseline);
    }
    row.baselineMedian = *median(base);
    row.candidateMedian = *median(cand);
    row.ratioIsMedianOfPairedRatios = pooledCells;
    const bool positive = std::all_of(base.begin(), base.end(), [](double v) { return v > 0; });
    const PairStatistic ratio
        = pooledCells ? PairStatistic(medianOfPairedRatios) : PairStatistic(ratioOfMedians);
    const bool resample = row.pairs >= 2;
    if (positive) {
        row.ratio = ratio(all);
        if (row.ratio && resample)
            row.ratioCi = bootstrapInterval(strata, ratio, options.bootstrap);
    }
    row.medianDifference = *medianOfPairedDifferences(all);
    if (resample)
        row.differenceCi = bootstrapInterval(strata, medianOfPairedDifferences, options.bootstrap);
    row.hodgesLehmann = *hodgesLehmann(diffs);
    row.wilcoxon = wilcoxonSignedRank(diffs);
    row.verdict = decideVerdict(
        row.pairs, options.minPairs, row.ratioCi, row.differenceCi, preferredDirection(metric));
    row.winner = winnerOf(row.verdict, arm);

    // "NVFP4 vs Q4_K_M, ttft_any_ms, greeting: 88 vs 297 ms, ratio 0.30 [0.28–0.31], paired
    //  difference -209 ms [-220, -198], Wilcoxon p = 0.002, r = -1.00, 15 pairs: NVFP4 is faster"
    const QString unit = metricUnit(metric);
    QString s = arm.candidateLabel + QStringLiteral(" vs ") + arm.baselineLabel + QStringLiteral(", ")
        + metricId(metric) + QStringLiteral(", ") + rowName(test, turn) + QStringLiteral(": ")
        + formatValue(row.candidateMedian, metric) + QStringLiteral(" vs ")
        + formatValue(row.baselineMedian, metric) + QLatin1Char(' ') + unit;
    if (row.ratio) {
        s += QStringLiteral(", ratio ") + formatRatio(*row.ratio);
        if (row.ratioCi)
            s += QStringLiteral(" [") + formatRatio(row.ratioCi->lo) + QStringLiteral("–")
                + formatRatio(row.ratioCi->hi) + QLatin1Char(']');
    }
    s += QStringLiteral(", paired difference ") + formatSigned(row.medianDifference, metric);
    if (row.differenceCi)
        s += QStringLiteral(" [") + formatSigned(row.differenceCi->lo, metric) + QStringLiteral(", ")
            + formatSigned(row.differenceCi->hi, metric) + QLatin1Char(']');
    s += QLatin1Char(' ') + unit + QStringLiteral(", Wilcoxon ") + formatP(row.wilcoxon.p)
        + QStringLiteral(", r = ") + number(row.wilcoxon.rankBiserial, 2) + QStringLiteral(", ")
        + QString::number(row.pairs)
        + (row.pairs == 1 ? QStringLiteral(" pair: ") : QStringLiteral(" pairs: "))
        + metricVerdictPhrase(
            row.verdict, metric, labelOf(row.winner, arm), arm.candidateLabel, options.minPairs);
    row.sentence = s;
    return row;
}

GateComparison compareGate(const QString& gate, const QString& test,
    const std::vector<std::pair<bool, bool>>& pairs, const ComparisonOptions& options,
    const ArmComparison& arm)
{
    GateComparison g;
    g.gate = gate;
    g.test = test;
    g.pairs = int(pairs.size());
    for (const auto& [base, cand] : pairs) {
        if (base && cand)
            ++g.bothPass;
        else if (base)
            ++g.baselineOnly;
        else if (cand)
            ++g.candidateOnly;
        else
            ++g.bothFail;
    }
    if (g.pairs > 0) {
        g.baselineRate = double(g.bothPass + g.baselineOnly) / g.pairs;
        g.candidateRate = double(g.bothPass + g.candidateOnly) / g.pairs;
    }
    g.difference = g.candidateRate - g.baselineRate;
    g.differenceCi = newcombePairedInterval(
        g.bothPass, g.candidateOnly, g.baselineOnly, g.bothFail, options.bootstrap.confidence);
    g.mcnemarP = mcnemarExactP(g.baselineOnly, g.candidateOnly);
    g.verdict = decideVerdict(g.pairs, options.minPairs, std::nullopt, g.differenceCi, Preferred::Higher);
    g.winner = winnerOf(g.verdict, arm);

    const auto percent
        = [](double v) -> QString { return QString::number(std::round(v * 100)) + QLatin1Char('%'); };
    const auto signedPercent
        = [&](double v) -> QString { return (v > 0.0005 ? QStringLiteral("+") : QString()) + percent(v); };
    QString s = gate + QStringLiteral(", ") + rowName(test, 0) + QStringLiteral(": ") + arm.candidateLabel
        + QLatin1Char(' ') + gateCount({g.bothPass + g.candidateOnly, g.pairs}) + QStringLiteral(" vs ")
        + arm.baselineLabel + QLatin1Char(' ') + gateCount({g.bothPass + g.baselineOnly, g.pairs});
    if (g.differenceCi)
        s += QStringLiteral(", difference ") + signedPercent(g.difference) + QStringLiteral(" [")
            + signedPercent(g.differenceCi->lo) + QStringLiteral(", ") + signedPercent(g.differenceCi->hi)
            + QLatin1Char(']');
    s += QStringLiteral(", McNemar ") + formatP(g.mcnemarP) + QStringLiteral(": ");
    switch (g.verdict) {
    case Verdict::TooFewPairs:
        s += QStringLiteral("too few pairs to judge (fewer than %1)").arg(options.minPairs);
        break;
    case Verdict::CandidateBetter:
    case Verdict::BaselineBetter:
        s += labelOf(g.winner, arm) + QStringLiteral(" passes more often");
        break;
    default:
        s += QStringLiteral("no clear difference");
    }
    g.sentence = s;
    return g;
}

ArmComparison compareArm(const RunResult& result, const std::vector<ArmIndex>& index, int baseline,
    int candidate, const QStringList& tests, const std::map<QString, int>& maxTurn,
    const ComparisonOptions& options)
{
    ArmComparison arm;
    arm.baseline = baseline;
    arm.candidate = candidate;
    arm.baselineLabel = result.endpoints[std::size_t(baseline)].endpoint.displayName();
    arm.candidateLabel = result.endpoints[std::size_t(candidate)].endpoint.displayName();
    const ArmIndex& b = index[std::size_t(baseline)];
    const ArmIndex& c = index[std::size_t(candidate)];
    std::set<Key> ambiguous = b.duplicates;
    ambiguous.insert(c.duplicates.begin(), c.duplicates.end());
    arm.duplicates = int(ambiguous.size());

    std::vector<std::pair<Key, MatchedPair>> matched;
    for (const auto& [key, record] : b.records) {
        if (ambiguous.count(key))
            continue;
        const auto it = c.records.find(key);
        if (it == c.records.end()) {
            ++arm.baselineOnly;
            continue;
        }
        matched.push_back({key, {record, it->second}});
    }
    for (const auto& [key, record] : c.records)
        if (!ambiguous.count(key) && !b.records.count(key))
            ++arm.candidateOnly;
    arm.matched = int(matched.size());
    for (const auto& [key, pair] : matched) {
        if (pair.baseline->request.ok() && pair.candidate->request.ok())
            ++arm.pairedOk;
        else
            ++arm.failedPairs;
    }

    // Metrics: strata are (test, turn) cells.
    for (Metric metric : options.metrics) {
        std::map<std::pair<QString, int>, std::vector<PairedValue>> cells;
        for (const auto& [key, pair] : matched) {
            if (!pair.baseline->request.ok() || !pair.candidate->request.ok())
                continue;
            const auto bv = metricValue(pair.baseline->request.metrics, metric);
            const auto cv = metricValue(pair.candidate->request.metrics, metric);
            if (bv && cv && std::isfinite(*bv) && std::isfinite(*cv))
                cells[{std::get<0>(key), std::get<1>(key)}].push_back({*bv, *cv});
        }
        const auto strataOf = [&](const QString& test, int turn) {
            std::vector<std::vector<PairedValue>> strata;
            for (const auto& [cell, pairs] : cells)
                if ((test.isEmpty() || cell.first == test) && (turn == 0 || cell.second == turn))
                    strata.push_back(pairs);
            return strata;
        };
        std::set<QString> testsWithPairs;
        for (const auto& [cell, pairs] : cells)
            testsWithPairs.insert(cell.first);
        if (testsWithPairs.size() >= 2)
            if (auto row = compareMetric(metric, {}, 0, strataOf({}, 0), true, options, arm))
                arm.metrics.push_back(std::move(*row));
        for (const QString& test : tests) {
            const int turns = maxTurn.at(test);
            if (auto row = compareMetric(metric, test, 0, strataOf(test, 0), turns > 1, options, arm))
                arm.metrics.push_back(std::move(*row));
            if (turns > 1)
                for (int turn = 1; turn <= turns; ++turn)
                    if (auto row
                        = compareMetric(metric, test, turn, strataOf(test, turn), false, options, arm))
                        arm.metrics.push_back(std::move(*row));
        }
    }

    // Gates: every gate that was judged (true/false) on both arms of a pair.
    std::map<QString, std::map<QString, std::vector<std::pair<bool, bool>>>> gates; // gate -> test -> pairs
    for (const auto& [key, pair] : matched) {
        const nlohmann::json& bg = pair.baseline->gates;
        const nlohmann::json& cg = pair.candidate->gates;
        if (!bg.is_object() || !cg.is_object())
            continue;
        for (const auto& [name, value] : bg.items()) {
            const auto other = cg.find(name);
            if (value.is_boolean() && other != cg.end() && other->is_boolean())
                gates[QString::fromStdString(name)][std::get<0>(key)].push_back(
                    {value.get<bool>(), other->get<bool>()});
        }
    }
    for (const auto& [gate, byTest] : gates) {
        if (byTest.size() >= 2) {
            std::vector<std::pair<bool, bool>> pooled;
            for (const auto& [test, pairs] : byTest)
                pooled.insert(pooled.end(), pairs.begin(), pairs.end());
            arm.gates.push_back(compareGate(gate, {}, pooled, options, arm));
        }
        for (const QString& test : tests)
            if (const auto it = byTest.find(test); it != byTest.end())
                arm.gates.push_back(compareGate(gate, test, it->second, options, arm));
    }
    return arm;
}

} // namespace

PairedComparison comparePaired(const RunResult& result, int baseline, const std::vector<int>& candidates,
    const ComparisonOptions& options)
{
    PairedComparison out;
    out.options = options;
    const int endpoints = int(result.endpoints.size());
    if (baseline < 0 || baseline >= endpoints)
        return out;
    std::vector<ArmIndex> index(static_cast<std::size_t>(endpoints));
    QStringList tests; // in the order they first ran
    std::map<QString, int> maxTurn;
    for (const RunRecord& r : result.records) {
        if (r.warmup || r.endpoint < 0 || r.endpoint >= endpoints)
            continue;
        if (!tests.contains(r.test))
            tests << r.test;
        maxTurn[r.test] = std::max(maxTurn[r.test], r.turn);
        ArmIndex& arm = index[std::size_t(r.endpoint)];
        const Key key {r.test, r.turn, r.iteration};
        if (!arm.records.emplace(key, &r).second)
            arm.duplicates.insert(key);
    }
    // Bound the bootstrap's work. Each matched pair enters up to three rows (all tests, its test,
    // its turn), each with a ratio and a difference interval per metric.
    std::int64_t draws = 0;
    const ArmIndex& base = index[std::size_t(baseline)];
    for (int candidate : candidates) {
        if (candidate == baseline || candidate < 0 || candidate >= endpoints)
            continue;
        std::int64_t matched = 0;
        for (const auto& [key, record] : index[std::size_t(candidate)].records)
            matched += base.records.count(key) ? 1 : 0;
        draws += matched * 3 * 2 * std::int64_t(options.metrics.size());
    }
    ComparisonOptions used = options;
    if (draws > 0 && options.maxBootstrapDraws > 0
        && draws * std::int64_t(options.bootstrap.resamples) > options.maxBootstrapDraws) {
        const std::int64_t affordable = options.maxBootstrapDraws / draws;
        used.bootstrap.resamples = int(std::clamp<std::int64_t>(affordable,
            std::min(options.minResamples, options.bootstrap.resamples), options.bootstrap.resamples));
    }
    out.options = used;
    for (int candidate : candidates)
        if (candidate != baseline && candidate >= 0 && candidate < endpoints)
            out.arms.push_back(compareArm(result, index, baseline, candidate, tests, maxTurn, used));
    return out;
}

PairedComparison comparePaired(const RunResult& result, const ComparisonOptions& options)
{
    std::vector<int> candidates;
    for (int e = 1; e < int(result.endpoints.size()); ++e)
        candidates.push_back(e);
    return comparePaired(result, 0, candidates, options);
}

// ---------------------------------------------------------------------------------------------
// JSON

namespace {

nlohmann::json intervalJson(const std::optional<Interval>& i, int decimals)
{
    if (!i)
        return nullptr;
    return {{"low", roundedJson(i->lo, decimals)}, {"high", roundedJson(i->hi, decimals)}};
}

nlohmann::json testJson(const QString& test)
{
    return test.isEmpty() ? nlohmann::json(nullptr) : nlohmann::json(test.toStdString());
}

nlohmann::json winnerJson(int winner, const ArmComparison& arm)
{
    return winner < 0 ? nlohmann::json(nullptr) : nlohmann::json(labelOf(winner, arm).toStdString());
}

} // namespace

nlohmann::json toJson(const WilcoxonResult& w)
{
    return {{"p", significantJson(w.p, 4)}, {"method", w.exact ? "exact" : "normal"}, {"n_nonzero", w.n},
        {"zeros_dropped", w.zeros}, {"w_plus", w.wPlus}, {"w_minus", w.wMinus}, {"z", roundedJson(w.z, 4)}};
}

nlohmann::json toJson(const MetricComparison& row, const ArmComparison& arm)
{
    nlohmann::json ratio = nullptr;
    if (row.ratio)
        ratio = {{"kind", row.ratioIsMedianOfPairedRatios ? "median_of_paired_ratios" : "ratio_of_medians"},
            {"estimate", roundedJson(row.ratio, 4)}, {"ci", intervalJson(row.ratioCi, 4)}};
    return {{"metric", metricId(row.metric).toStdString()}, {"test", testJson(row.test)},
        {"turn", row.turn == 0 ? nlohmann::json(nullptr) : nlohmann::json(row.turn)}, {"pairs", row.pairs},
        {"baseline_median", roundedJson(row.baselineMedian, 3)},
        {"candidate_median", roundedJson(row.candidateMedian, 3)}, {"ratio", ratio},
        {"median_difference",
            {{"estimate", roundedJson(row.medianDifference, 3)}, {"ci", intervalJson(row.differenceCi, 3)}}},
        {"hodges_lehmann", roundedJson(row.hodgesLehmann, 3)}, {"wilcoxon", toJson(row.wilcoxon)},
        {"rank_biserial", roundedJson(row.wilcoxon.rankBiserial, 4)},
        {"verdict", verdictId(row.verdict).toStdString()}, {"winner", winnerJson(row.winner, arm)},
        {"sentence", row.sentence.toStdString()}};
}

nlohmann::json toJson(const GateComparison& g, const ArmComparison& arm)
{
    return {{"gate", g.gate.toStdString()}, {"test", testJson(g.test)}, {"pairs", g.pairs},
        {"both_pass", g.bothPass}, {"baseline_only", g.baselineOnly}, {"candidate_only", g.candidateOnly},
        {"both_fail", g.bothFail},
        {"baseline_passed", gateCount({g.bothPass + g.baselineOnly, g.pairs}).toStdString()},
        {"candidate_passed", gateCount({g.bothPass + g.candidateOnly, g.pairs}).toStdString()},
        {"baseline_rate", roundedJson(g.baselineRate, 4)},
        {"candidate_rate", roundedJson(g.candidateRate, 4)}, {"difference", roundedJson(g.difference, 4)},
        {"difference_ci", intervalJson(g.differenceCi, 4)}, {"mcnemar_p", significantJson(g.mcnemarP, 4)},
        {"verdict", verdictId(g.verdict).toStdString()}, {"winner", winnerJson(g.winner, arm)},
        {"sentence", g.sentence.toStdString()}};
}

nlohmann::json toJson(const ArmComparison& arm)
{
    nlohmann::json metrics = nlohmann::json::array();
    for (const MetricComparison& m : arm.metrics)
        metrics.push_back(toJson(m, arm));
    nlohmann::json gates = nlohmann::json::array();
    for (const GateComparison& g : arm.gates)
        gates.push_back(toJson(g, arm));
    return {{"baseline", {{"index", arm.baseline}, {"label", arm.baselineLabel.toStdString()}}},
        {"candidate", {{"index", arm.candidate}, {"label", arm.candidateLabel.toStdString()}}},
        {"matched", arm.matched}, {"paired_ok", arm.pairedOk}, {"baseline_only", arm.baselineOnly},
        {"candidate_only", arm.candidateOnly}, {"failed_pairs", arm.failedPairs},
        {"duplicates", arm.duplicates}, {"metrics", metrics}, {"gates", gates}};
}

nlohmann::json toJson(const PairedComparison& c)
{
    nlohmann::json arms = nlohmann::json::array();
    for (const ArmComparison& a : c.arms)
        arms.push_back(toJson(a));
    return {{"method",
                {{"bootstrap", "percentile, resampling pairs within (test, turn) strata"},
                    {"resamples", c.options.bootstrap.resamples}, {"seed", c.options.bootstrap.seed},
                    {"confidence", c.options.bootstrap.confidence}, {"min_pairs", c.options.minPairs},
                    {"wilcoxon", "signed-rank on paired differences, zeros dropped, exact up to 50 pairs"},
                    {"gates", "McNemar exact; Newcombe square-and-add interval"}}},
        {"comparisons", arms}};
}

} // namespace qs
