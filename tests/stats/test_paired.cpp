// SPDX-License-Identifier: MIT
// Paired A/B statistics: tests against published and enumerated values, bootstrap
// reproducibility and coverage, the verdict rule, and pairing of a run.
#include "StatsTestSupport.h"
#include "model/evaluate/PairedComparison.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <gtest/gtest.h>

using namespace qs;
using namespace qs::test;

// ---------------------------------------------------------------------------------------------
// Wilcoxon signed-rank

namespace {

// Reference by brute force: all 2ⁿ sign assignments of the (doubled mid-)ranks.
double enumeratedWilcoxonP(const std::vector<double>& d)
{
    std::vector<double> nz;
    for (double x : d)
        if (x != 0)
            nz.push_back(x);
    const int n = int(nz.size());
    std::vector<double> abs;
    for (double x : nz)
        abs.push_back(std::fabs(x));
    std::vector<int> rank2(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) {
        int below = 0, equal = 0;
        for (int j = 0; j < n; ++j) {
            below += abs[std::size_t(j)] < abs[std::size_t(i)];
            equal += abs[std::size_t(j)] == abs[std::size_t(i)];
        }
        rank2[std::size_t(i)] = 2 * below + equal + 1; // 2 × mid-rank
    }
    int observed = 0;
    for (int i = 0; i < n; ++i)
        if (nz[std::size_t(i)] > 0)
            observed += rank2[std::size_t(i)];
    long long le = 0, ge = 0;
    for (long long mask = 0; mask < (1LL << n); ++mask) {
        int s = 0;
        for (int i = 0; i < n; ++i)
            if (mask & (1LL << i))
                s += rank2[std::size_t(i)];
        le += s <= observed;
        ge += s >= observed;
    }
    return std::min(1.0, 2.0 * double(std::min(le, ge)) / double(1LL << n));
}

} // namespace

TEST(Wilcoxon, DarwinExampleExactPublishedValue)
{
    // Darwin's Zea mays height differences (scipy.stats.wilcoxon documentation): W− = 24,
    // two-sided exact p = 0.041259765625 (= 2·676/2¹⁵).
    const std::vector<double> d {6, 8, 14, 16, 23, 24, 28, 29, 41, -48, 49, 56, 60, -67, 75};
    const WilcoxonResult w = wilcoxonSignedRank(d);
    EXPECT_TRUE(w.exact);
    EXPECT_EQ(w.n, 15);
    EXPECT_DOUBLE_EQ(w.wMinus, 24);
    EXPECT_DOUBLE_EQ(w.wPlus, 96);
    EXPECT_NEAR(w.p, 0.041259765625, 1e-12);
    EXPECT_NEAR(w.p, enumeratedWilcoxonP(d), 1e-12);
    EXPECT_DOUBLE_EQ(w.rankBiserial, (96.0 - 24.0) / 120.0);
}

TEST(Wilcoxon, DarwinExampleNormalApproximation)
{
    // mean n(n+1)/4 = 60, variance n(n+1)(2n+1)/24 = 310, z = (96 − 60 − ½)/√310 = 2.01627,
    // p = erfc(z/√2) = 0.0437723. (scipy's method="approx" without the continuity correction
    // gives 0.040888 = erfc(36/√310/√2).)
    const std::vector<double> d {6, 8, 14, 16, 23, 24, 28, 29, 41, -48, 49, 56, 60, -67, 75};
    const WilcoxonResult w = wilcoxonSignedRank(d, WilcoxonMethod::Normal);
    EXPECT_FALSE(w.exact);
    ASSERT_TRUE(w.z);
    EXPECT_NEAR(*w.z, 35.5 / std::sqrt(310.0), 1e-12);
    EXPECT_NEAR(w.p, 0.043772323763, 1e-10);
}

TEST(Wilcoxon, SmallSampleTableValues)
{
    // All differences of one sign: p = 2/2ⁿ. The smallest two-sided p with 5 pairs is 0.0625:
    // Wilcoxon can never reach 0.05 with 5 pairs.
    EXPECT_DOUBLE_EQ(wilcoxonSignedRank({1, 2, 3, 4, 5}).p, 0.0625);
    EXPECT_DOUBLE_EQ(wilcoxonSignedRank({-1, -2, -3, -4, -5, -6}).p, 0.03125);
    EXPECT_DOUBLE_EQ(wilcoxonSignedRank({-1, -2, -3, -4, -5, -6}).rankBiserial, -1);
    // n = 10, W+ = 8 (ranks 1, 3, 4 positive): P(W ≤ 8) = 25/1024 → p = 50/1024.
    EXPECT_NEAR(wilcoxonSignedRank({1, -2, 3, 4, -5, -6, -7, -8, -9, -10}).p, 50.0 / 1024.0, 1e-12);
}

TEST(Wilcoxon, TiesNormalApproximationByHand)
{
    // |d| sorted 1 1 2 2 3 3 4 5 → mid-ranks 1.5 1.5 3.5 3.5 5.5 5.5 7 8.
    // W+ = 1.5 + 3.5 + 3.5 + 5.5 + 7 + 8 = 29, W− = 7. mean 18; variance 8·9·17/24 − 3·(2³−2)/48
    // = 51 − 0.375 = 50.625; z = (29 − 18 − 0.5)/√50.625 = 1.47573; p = 0.140017.
    const std::vector<double> d {1, -1, 2, 2, 3, -3, 4, 5};
    const WilcoxonResult w = wilcoxonSignedRank(d, WilcoxonMethod::Normal);
    EXPECT_DOUBLE_EQ(w.wPlus, 29);
    EXPECT_DOUBLE_EQ(w.wMinus, 7);
    EXPECT_NEAR(*w.z, 10.5 / std::sqrt(50.625), 1e-12);
    EXPECT_NEAR(w.p, 0.140016503197, 1e-10);
    // Exact conditional distribution with the same mid-ranks: 20 of 256 sign patterns have
    // W+ ≥ 29 → p = 40/256.
    const WilcoxonResult e = wilcoxonSignedRank(d, WilcoxonMethod::Exact);
    EXPECT_NEAR(e.p, 0.15625, 1e-12);
    EXPECT_NEAR(e.p, enumeratedWilcoxonP(d), 1e-12);
}

TEST(Wilcoxon, ExactMatchesEnumerationOnRandomSamplesWithTies)
{
    Rng rng(2024);
    for (int trial = 0; trial < 200; ++trial) {
        const int n = 1 + int(rng.next() % 14);
        std::vector<double> d;
        for (int i = 0; i < n; ++i)
            d.push_back(double(int(rng.next() % 13)) - 6.0); // small integers: ties and zeros
        const WilcoxonResult w = wilcoxonSignedRank(d);
        EXPECT_NEAR(w.p, d.empty() ? 1.0 : enumeratedWilcoxonP(d), 1e-12) << "trial " << trial;
    }
}

TEST(Wilcoxon, ZerosAreDroppedAndNoiseIsNotATie)
{
    const WilcoxonResult w = wilcoxonSignedRank({0, 0, 1, 2, 3, 4, 5, 0});
    EXPECT_EQ(w.zeros, 3);
    EXPECT_EQ(w.n, 5);
    EXPECT_DOUBLE_EQ(w.p, 0.0625);
    const WilcoxonResult none = wilcoxonSignedRank({0, 0});
    EXPECT_EQ(none.n, 0);
    EXPECT_DOUBLE_EQ(none.p, 1);
    EXPECT_DOUBLE_EQ(none.rankBiserial, 0);
    // 0.1 + 0.2 − 0.3 is 5.6e-17, not a difference; 0.3 and 0.1 + 0.2 are tied.
    const WilcoxonResult noisy = wilcoxonSignedRank({0.1 + 0.2 - 0.3, 0.3, -(0.1 + 0.2), 1, 2});
    EXPECT_EQ(noisy.zeros, 1);
    EXPECT_DOUBLE_EQ(noisy.wMinus, 1.5);
}

TEST(Wilcoxon, AutoSwitchesToNormalAboveFifty)
{
    std::vector<double> d;
    for (int i = 1; i <= 50; ++i)
        d.push_back(i % 3 == 0 ? -i : i);
    EXPECT_TRUE(wilcoxonSignedRank(d).exact);
    d.push_back(51);
    const WilcoxonResult w = wilcoxonSignedRank(d);
    EXPECT_FALSE(w.exact);
    // Close to the exact distribution at this size.
    EXPECT_NEAR(w.p, wilcoxonSignedRank(d, WilcoxonMethod::Exact).p, 0.002);
}

// ---------------------------------------------------------------------------------------------
// McNemar, Wilson, Newcombe, Hodges–Lehmann

TEST(McNemar, ExactValuesByHand)
{
    EXPECT_DOUBLE_EQ(mcnemarExactP(5, 0), 0.0625); // 2·(1/32): the seeds' 5/5 vs 0/5
    EXPECT_NEAR(mcnemarExactP(2, 10), 158.0 / 4096.0, 1e-14); // 2·(1 + 12 + 66)/2¹²
    EXPECT_NEAR(mcnemarExactP(10, 2), 158.0 / 4096.0, 1e-14);
    EXPECT_DOUBLE_EQ(mcnemarExactP(3, 3), 1);
    EXPECT_DOUBLE_EQ(mcnemarExactP(0, 0), 1);
    // Cavo et al. 2012 (Fagerland, Lydersen & Laake, ch. 8): 6 vs 16 discordant pairs,
    // "McNemar exact conditional test: P = 0.052479".
    EXPECT_NEAR(mcnemarExactP(6, 16), 0.052479, 5e-7);
    // Large n stays finite (2⁻ⁿ underflows for n > 1074).
    EXPECT_NEAR(mcnemarExactP(600, 600), 1.0, 1e-12);
    EXPECT_LT(mcnemarExactP(500, 700), 1e-6);
}

TEST(Intervals, NormalQuantile)
{
    EXPECT_NEAR(normalQuantile(0.975), 1.959963984540054, 1e-12);
    EXPECT_NEAR(normalQuantile(0.5), 0.0, 1e-15);
    EXPECT_NEAR(normalQuantile(0.01), -2.326347874040841, 1e-12);
    EXPECT_NEAR(normalQuantile(0.9995), 3.290526731491926, 1e-11);
}

TEST(Intervals, WilsonAndNewcombe)
{
    const Interval w0 = wilsonInterval(0, 5);
    EXPECT_NEAR(w0.lo, 0, 1e-12);
    EXPECT_NEAR(w0.hi, 0.434482464783175, 1e-12);
    // Cavo et al. 2012: table (59, 6; 16, 80), Newcombe square-and-add: −0.0621 (−0.1186 to −0.0046).
    const auto n = newcombePairedInterval(59, 6, 16, 80);
    ASSERT_TRUE(n);
    EXPECT_NEAR(n->lo, -0.1186, 5e-5);
    EXPECT_NEAR(n->hi, -0.0046, 5e-5);
    EXPECT_NEAR(n->lo, -0.118621195638710, 1e-12);
    EXPECT_NEAR(n->hi, -0.004625113933051, 1e-12);
    // The seeds' factual gate: candidate 0/5, baseline 5/5 → −1, interval (−1, −0.386): excludes 0
    // although McNemar's exact p is only 0.0625.
    const auto seeds = newcombePairedInterval(0, 0, 5, 0);
    EXPECT_NEAR(seeds->lo, -1, 1e-12);
    EXPECT_NEAR(seeds->hi, -0.385549005690344, 1e-12);
    EXPECT_FALSE(newcombePairedInterval(0, 0, 0, 0));
    const auto same = newcombePairedInterval(5, 0, 0, 0);
    EXPECT_TRUE(same->contains(0));
}

TEST(Estimators, HodgesLehmannAndMedians)
{
    EXPECT_DOUBLE_EQ(*hodgesLehmann({1, 2, 3}), 2);
    // Walsh averages of (−1, 4, 10): −1, 1.5, 4.5, 4, 7, 10 → median (4 + 4.5)/2.
    EXPECT_DOUBLE_EQ(*hodgesLehmann({-1, 4, 10}), 4.25);
    EXPECT_FALSE(hodgesLehmann({}));
    const std::vector<PairedValue> pairs {{100, 50}, {200, 100}, {400, 100}, {300, 150}};
    EXPECT_DOUBLE_EQ(*ratioOfMedians(pairs), 100.0 / 250.0); // medians 250 and 100
    EXPECT_DOUBLE_EQ(*medianOfPairedRatios(pairs), 0.5); // 0.5 0.5 0.25 0.5
    EXPECT_DOUBLE_EQ(*medianOfPairedDifferences(pairs), -125); // −300 −150 −100 −50
    EXPECT_FALSE(ratioOfMedians({{0, 1}, {0, 2}}));
    EXPECT_FALSE(medianOfPairedRatios({{1, 1}, {0, 2}}));
}

// ---------------------------------------------------------------------------------------------
// Bootstrap

TEST(Bootstrap, ReproducibleWithTheFixedSeed)
{
    Rng rng(1);
    std::vector<PairedValue> pairs;
    for (int i = 0; i < 15; ++i)
        pairs.push_back({300 + 40 * rng.normal(), 90 + 10 * rng.normal()});
    const auto a = bootstrapInterval({pairs}, ratioOfMedians);
    const auto b = bootstrapInterval({pairs}, ratioOfMedians);
    ASSERT_TRUE(a && b);
    EXPECT_EQ(a->lo, b->lo); // bit for bit
    EXPECT_EQ(a->hi, b->hi);
    EXPECT_LT(a->lo, *ratioOfMedians(pairs));
    EXPECT_GT(a->hi, *ratioOfMedians(pairs));
    BootstrapOptions other;
    other.seed = 99;
    const auto c = bootstrapInterval({pairs}, ratioOfMedians, other);
    EXPECT_TRUE(c->lo != a->lo || c->hi != a->hi);
    EXPECT_NEAR(c->lo, a->lo, 0.05); // a different seed moves the ends only a little
}

TEST(Bootstrap, StrataKeepTheirSizes)
{
    // Stratum 1: three pairs with candidate 1; stratum 2: two pairs with candidate 100. Resampling
    // within strata keeps the mix, so the mean is (3·1 + 2·100)/5 in every resample.
    const std::vector<std::vector<PairedValue>> strata {{{1, 1}, {1, 1}, {1, 1}}, {{1, 100}, {1, 100}}};
    const auto i = bootstrapInterval(strata, [](const std::vector<PairedValue>& s) {
        double sum = 0;
        for (const PairedValue& p : s)
            sum += p.candidate;
        return std::optional<double>(sum / double(s.size()));
    });
    ASSERT_TRUE(i);
    EXPECT_DOUBLE_EQ(i->lo, 203.0 / 5.0);
    EXPECT_DOUBLE_EQ(i->hi, 203.0 / 5.0);
    EXPECT_FALSE(bootstrapInterval({}, ratioOfMedians));
    EXPECT_FALSE(bootstrapInterval({{{0, 1}, {0, 2}}}, ratioOfMedians)); // undefined everywhere
}

namespace {

struct Coverage {
    double share = 0; ///< experiments whose interval contains the truth
    double seconds = 0;
};

// `experiments` simulated A/B runs of `n` pairs with a known truth: baseline median 300 ms,
// candidate median 90 ms (ratio 0.3). Each pair shares a prompt effect of log-sd `shared` (what
// pairing is for) plus independent per-arm noise of log-sd 0.15.
Coverage ratioCoverage(
    const PairStatistic& statistic, double shared, int experiments, int n, std::uint64_t seed)
{
    const double truth = 0.3;
    Rng rng(seed);
    int covered = 0;
    const auto start = std::chrono::steady_clock::now();
    for (int e = 0; e < experiments; ++e) {
        std::vector<PairedValue> pairs;
        for (int i = 0; i < n; ++i) {
            const double prompt = shared * rng.normal();
            pairs.push_back(
                {300 * std::exp(prompt + 0.15 * rng.normal()), 90 * std::exp(prompt + 0.15 * rng.normal())});
        }
        const auto ci = bootstrapInterval({pairs}, statistic);
        covered += ci && ci->contains(truth);
    }
    return {double(covered) / experiments,
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()};
}

} // namespace

// 200 experiments × 20 pairs × 10 000 resamples each. With 200 experiments a true 95 % shows
// as 92–98 % (±2 binomial standard errors).
TEST(Bootstrap, RatioOfMediansCoversTheTruth)
{
    const Coverage c = ratioCoverage(ratioOfMedians, 0.0, 200, 20, 11);
    std::printf(
        "[ coverage ] ratio of medians, independent arms: %.1f %% (%.1f s)\n", c.share * 100, c.seconds);
    EXPECT_GE(c.share, 0.90);
    EXPECT_LE(c.share, 0.98);
}

TEST(Bootstrap, MedianOfPairedRatiosCoversTheTruth)
{
    const Coverage c = ratioCoverage(medianOfPairedRatios, 0.3, 200, 20, 12);
    std::printf("[ coverage ] median of paired ratios, shared prompt effect: %.1f %%\n", c.share * 100);
    EXPECT_GE(c.share, 0.90);
    EXPECT_LE(c.share, 0.98);
}

TEST(Bootstrap, RatioOfMediansIsConservativeWhenPromptsDominate)
{
    // When both arms move together with the prompt, the percentile interval of the ratio of
    // medians is wider than it needs to be (measured: ~99 % at 20 pairs). Conservative is the
    // safe side for the verdict rule: it can only withhold a winner, never invent one.
    const Coverage c = ratioCoverage(ratioOfMedians, 0.3, 200, 20, 13);
    std::printf("[ coverage ] ratio of medians, shared prompt effect: %.1f %%\n", c.share * 100);
    EXPECT_GE(c.share, 0.95);
}

TEST(Bootstrap, MedianPairedDifferenceCoversTheTruth)
{
    // 400 experiments (this one is cheap) for a tighter estimate.
    const double truth = -200; // candidate = baseline − 200 ms + symmetric noise
    Rng rng(14);
    int covered = 0;
    for (int e = 0; e < 400; ++e) {
        std::vector<PairedValue> pairs;
        for (int i = 0; i < 20; ++i) {
            const double base = 300 + 100 * std::fabs(rng.normal());
            pairs.push_back({base, base + truth + 30 * rng.normal()});
        }
        const auto ci = bootstrapInterval({pairs}, medianOfPairedDifferences);
        covered += ci && ci->contains(truth);
    }
    std::printf("[ coverage ] median paired difference: %.1f %%\n", covered / 4.0);
    EXPECT_GE(covered, 360);
    EXPECT_LE(covered, 392);
}

// ---------------------------------------------------------------------------------------------
// Verdict rule

TEST(Verdict, WinnerOnlyWhenTheIntervalExcludesNoDifference)
{
    const auto lower = Preferred::Lower;
    EXPECT_EQ(
        decideVerdict(15, 5, Interval {0.27, 0.33}, Interval {-220, -190}, lower), Verdict::CandidateBetter);
    EXPECT_EQ(decideVerdict(15, 5, Interval {1.10, 1.30}, std::nullopt, lower), Verdict::BaselineBetter);
    EXPECT_EQ(
        decideVerdict(15, 5, Interval {0.90, 1.05}, Interval {-30, -5}, lower), Verdict::NoClearDifference)
        << "the ratio interval decides when there is one";
    EXPECT_EQ(decideVerdict(15, 5, Interval {0.80, 1.00}, std::nullopt, lower), Verdict::NoClearDifference)
        << "an interval touching 1 does not exclude it";
    EXPECT_EQ(decideVerdict(15, 5, std::nullopt, Interval {-30, -5}, lower), Verdict::CandidateBetter);
    EXPECT_EQ(decideVerdict(15, 5, std::nullopt, Interval {0, 5}, lower), Verdict::NoClearDifference);
    EXPECT_EQ(decideVerdict(15, 5, std::nullopt, std::nullopt, lower), Verdict::NoClearDifference);
    EXPECT_EQ(decideVerdict(4, 5, Interval {0.27, 0.33}, Interval {-220, -190}, lower), Verdict::TooFewPairs);
    EXPECT_EQ(
        decideVerdict(15, 5, Interval {1.5, 2.0}, std::nullopt, Preferred::Higher), Verdict::CandidateBetter);
    EXPECT_EQ(
        decideVerdict(15, 5, Interval {0.4, 0.5}, std::nullopt, Preferred::Higher), Verdict::BaselineBetter);
    EXPECT_EQ(
        decideVerdict(15, 5, Interval {1.5, 2.0}, std::nullopt, Preferred::Neither), Verdict::CandidateMore);
    EXPECT_EQ(
        decideVerdict(15, 5, Interval {0.4, 0.5}, std::nullopt, Preferred::Neither), Verdict::CandidateFewer);
}

// ---------------------------------------------------------------------------------------------
// Pairing a run

namespace {

const MetricComparison* row(const ArmComparison& arm, Metric metric, const QString& test, int turn = 0)
{
    for (const MetricComparison& m : arm.metrics)
        if (m.metric == metric && m.test == test && m.turn == turn)
            return &m;
    return nullptr;
}

const GateComparison* gateRow(const ArmComparison& arm, const QString& gate, const QString& test)
{
    for (const GateComparison& g : arm.gates)
        if (g.gate == gate && g.test == test)
            return &g;
    return nullptr;
}

} // namespace

TEST(Pairing, IgnoresWarmupsFailuresMismatchedIterationsAndDuplicates)
{
    RunResult run = makeRun({QStringLiteral("Q4_K_M"), QStringLiteral("NVFP4")});
    const QString t = QStringLiteral("greeting");
    for (int i = 1; i <= 6; ++i) {
        run.records.push_back(record({.endpoint = 0, .test = t, .iteration = i, .ttftMs = 300.0 + i}));
        run.records.push_back(record({.endpoint = 1, .test = t, .iteration = i, .ttftMs = 90.0 + i}));
    }
    // Warm-ups share iteration numbers with measured runs: never paired.
    run.records.push_back(record({.endpoint = 0, .test = t, .iteration = 1, .ttftMs = 9360, .warmup = true}));
    run.records.push_back(record({.endpoint = 1, .test = t, .iteration = 1, .ttftMs = 1, .warmup = true}));
    // Iteration 7 only on the baseline, 8 only on the candidate.
    run.records.push_back(record({.endpoint = 0, .test = t, .iteration = 7, .ttftMs = 5000}));
    run.records.push_back(record({.endpoint = 1, .test = t, .iteration = 8, .ttftMs = 1}));
    // Iteration 9 failed on the candidate: a failed pair.
    run.records.push_back(record({.endpoint = 0, .test = t, .iteration = 9, .ttftMs = 5000}));
    run.records.push_back(failedRecord({.endpoint = 1, .test = t, .iteration = 9, .ttftMs = 1}));
    // Iteration 6 measured twice on the candidate: ambiguous, dropped.
    run.records.push_back(record({.endpoint = 1, .test = t, .iteration = 6, .ttftMs = 1}));

    const PairedComparison c = comparePaired(run);
    ASSERT_EQ(c.arms.size(), 1u);
    const ArmComparison& arm = c.arms[0];
    EXPECT_EQ(arm.baseline, 0);
    EXPECT_EQ(arm.candidate, 1);
    EXPECT_EQ(arm.duplicates, 1);
    EXPECT_EQ(arm.matched, 6); // iterations 1–5 and 9
    EXPECT_EQ(arm.pairedOk, 5);
    EXPECT_EQ(arm.failedPairs, 1);
    EXPECT_EQ(arm.baselineOnly, 1);
    EXPECT_EQ(arm.candidateOnly, 1);

    const MetricComparison* ttft = row(arm, Metric::TtftAny, t);
    ASSERT_TRUE(ttft);
    EXPECT_EQ(ttft->pairs, 5);
    EXPECT_DOUBLE_EQ(ttft->baselineMedian, 303);
    EXPECT_DOUBLE_EQ(ttft->candidateMedian, 93);
    EXPECT_DOUBLE_EQ(ttft->medianDifference, -210);
    EXPECT_FALSE(ttft->ratioIsMedianOfPairedRatios); // one test, one turn: ratio of medians
    EXPECT_DOUBLE_EQ(*ttft->ratio, 93.0 / 303.0);
    EXPECT_FALSE(row(arm, Metric::TtftAny, QString())) << "no pooled row for a single test";
}

namespace {

// The seeds' v3/v4 shape: the candidate starts 3× sooner and decodes ~2× slower; answers are
// equally long; the candidate fails the factual answer every time.
RunResult seedLikeRun(int runs)
{
    RunResult run = makeRun({QStringLiteral("Q4_K_M"), QStringLiteral("NVFP4")});
    Rng rng(5);
    for (const QString& test :
        {QStringLiteral("greeting"), QStringLiteral("factual"), QStringLiteral("long")}) {
        for (int i = 1; i <= runs; ++i) {
            const qint64 tokens = 30 + qint64(rng.next() % 40);
            RunRecord a = record({.endpoint = 0,
                .test = test,
                .iteration = i,
                .ttftMs = 290 + 20 * rng.normal(),
                .decodeTps = 38 + 2 * rng.normal(),
                .completionTokens = tokens + qint64(rng.next() % 5) - 2});
            RunRecord b = record({.endpoint = 1,
                .test = test,
                .iteration = i,
                .ttftMs = 88 + 5 * rng.normal(),
                .decodeTps = 20 + 1.5 * rng.normal(),
                .completionTokens = tokens + qint64(rng.next() % 5) - 2});
            const bool factual = test == QStringLiteral("factual");
            a.gates = {{"expected_answer", factual ? nlohmann::json(true) : nlohmann::json(nullptr)},
                {"no_markdown", true}};
            b.gates = {{"expected_answer", factual ? nlohmann::json(false) : nlohmann::json(nullptr)},
                {"no_markdown", true}};
            run.records.push_back(a);
            run.records.push_back(b);
        }
    }
    return run;
}

} // namespace

TEST(Paired, SeedLikeComparisonNamesWinnersOnlyWhereClear)
{
    const PairedComparison c = comparePaired(seedLikeRun(5));
    ASSERT_EQ(c.arms.size(), 1u);
    const ArmComparison& arm = c.arms[0];

    const MetricComparison* ttft = row(arm, Metric::TtftAny, QStringLiteral("greeting"));
    ASSERT_TRUE(ttft && ttft->ratioCi);
    EXPECT_EQ(ttft->pairs, 5);
    EXPECT_LT(ttft->ratioCi->hi, 1);
    EXPECT_NEAR(*ttft->ratio, 0.3, 0.05);
    EXPECT_EQ(ttft->verdict, Verdict::CandidateBetter);
    EXPECT_EQ(ttft->winner, 1);
    EXPECT_DOUBLE_EQ(ttft->wilcoxon.p, 0.0625); // 5 pairs, all lower: the smallest possible
    EXPECT_DOUBLE_EQ(ttft->wilcoxon.rankBiserial, -1);
    EXPECT_TRUE(ttft->sentence.contains(QStringLiteral("NVFP4 is faster"))) << ttft->sentence.toStdString();

    const MetricComparison* decode = row(arm, Metric::DecodeTps, QStringLiteral("long"));
    ASSERT_TRUE(decode);
    EXPECT_EQ(decode->verdict, Verdict::BaselineBetter);
    EXPECT_EQ(decode->winner, 0);
    EXPECT_TRUE(decode->sentence.contains(QStringLiteral("Q4_K_M decodes faster")));

    // Same answer lengths: no winner is named.
    for (const QString& test :
        {QStringLiteral("greeting"), QStringLiteral("factual"), QStringLiteral("long")}) {
        const MetricComparison* tokens = row(arm, Metric::CompletionTokens, test);
        ASSERT_TRUE(tokens);
        EXPECT_EQ(tokens->verdict, Verdict::NoClearDifference) << test.toStdString();
        EXPECT_EQ(tokens->winner, -1);
    }

    // Pooled over the three tests: over prompts. Three distinct prompts repeated five times are
    // three pieces of evidence, not fifteen: too few for an interval of their median, however
    // steady the repeats (the old pooled row called this "p < 0.001").
    const MetricComparison* pooled = row(arm, Metric::TtftAny, QString());
    ASSERT_TRUE(pooled);
    EXPECT_EQ(pooled->pairs, 15);
    EXPECT_EQ(pooled->prompts, 3);
    EXPECT_TRUE(pooled->overPrompts);
    ASSERT_EQ(pooled->promptRatios.size(), 3u);
    EXPECT_NEAR(*pooled->ratio, 0.3, 0.05);
    EXPECT_FALSE(pooled->ratioCi);
    EXPECT_EQ(pooled->verdict, Verdict::TooFewPairs);
    EXPECT_EQ(pooled->wilcoxon.n, 3);
    EXPECT_DOUBLE_EQ(pooled->wilcoxon.p, 0.25);
    EXPECT_TRUE(pooled->sentence.contains(QStringLiteral("over 3 distinct prompts")))
        << pooled->sentence.toStdString();
    EXPECT_FALSE(ttft->overPrompts);
    EXPECT_EQ(ttft->prompts, 1);

    // Gates: 0/5 vs 5/5 on the factual test. McNemar p = 0.0625, Newcombe interval excludes 0.
    const GateComparison* factual
        = gateRow(arm, QStringLiteral("expected_answer"), QStringLiteral("factual"));
    ASSERT_TRUE(factual);
    EXPECT_EQ(factual->pairs, 5);
    EXPECT_EQ(factual->baselineOnly, 5);
    EXPECT_DOUBLE_EQ(factual->mcnemarP, 0.0625);
    EXPECT_DOUBLE_EQ(factual->difference, -1);
    EXPECT_EQ(factual->verdict, Verdict::BaselineBetter);
    EXPECT_EQ(factual->winner, 0);
    EXPECT_FALSE(gateRow(arm, QStringLiteral("expected_answer"), QStringLiteral("greeting")))
        << "null gates are not paired";
    EXPECT_FALSE(gateRow(arm, QStringLiteral("expected_answer"), QString()))
        << "one test only: no pooled row";
    const GateComparison* markdown = gateRow(arm, QStringLiteral("no_markdown"), QString());
    ASSERT_TRUE(markdown);
    EXPECT_EQ(markdown->pairs, 15);
    EXPECT_EQ(markdown->prompts, 3);
    EXPECT_EQ(markdown->verdict, Verdict::TooFewPairs);
    EXPECT_DOUBLE_EQ(markdown->mcnemarP, 1);
}

TEST(Paired, TooFewPairs)
{
    const PairedComparison c = comparePaired(seedLikeRun(4));
    const MetricComparison* ttft = row(c.arms[0], Metric::TtftAny, QStringLiteral("greeting"));
    ASSERT_TRUE(ttft);
    EXPECT_EQ(ttft->pairs, 4);
    EXPECT_TRUE(ttft->ratioCi) << "the interval is still reported";
    EXPECT_EQ(ttft->verdict, Verdict::TooFewPairs);
    EXPECT_EQ(ttft->winner, -1);
    EXPECT_TRUE(ttft->sentence.contains(QStringLiteral("too few pairs")));
    EXPECT_EQ(gateRow(c.arms[0], QStringLiteral("expected_answer"), QStringLiteral("factual"))->verdict,
        Verdict::TooFewPairs);
}

TEST(Paired, NoDifferenceMeansNoWinner)
{
    // Both arms from the same distribution: across 40 simulated comparisons a winner may be
    // named only rarely (a 95 % interval excludes the truth ~5 % of the time).
    int winners = 0;
    ComparisonOptions options;
    options.metrics = {Metric::TtftAny};
    options.bootstrap.resamples = 2000;
    for (int s = 0; s < 40; ++s) {
        RunResult run = makeRun({QStringLiteral("A"), QStringLiteral("B")});
        Rng rng(100 + std::uint64_t(s));
        for (int i = 1; i <= 15; ++i) {
            const double prompt = 200 * std::exp(0.3 * rng.normal());
            run.records.push_back(
                record({.endpoint = 0, .iteration = i, .ttftMs = prompt * std::exp(0.1 * rng.normal())}));
            run.records.push_back(
                record({.endpoint = 1, .iteration = i, .ttftMs = prompt * std::exp(0.1 * rng.normal())}));
        }
        const PairedComparison c = comparePaired(run, options);
        winners += c.arms[0].metrics.at(0).winner >= 0;
    }
    EXPECT_LE(winners, 6);
}

TEST(Paired, MultiTurnRowsAndCandidates)
{
    RunResult run = makeRun({QStringLiteral("base"), QStringLiteral("c1"), QStringLiteral("c2")});
    for (int e = 0; e < 3; ++e)
        for (int i = 1; i <= 5; ++i)
            for (int turn = 1; turn <= 3; ++turn)
                run.records.push_back(record({.endpoint = e,
                    .test = QStringLiteral("chat"),
                    .turn = turn,
                    .iteration = i,
                    .ttftMs = (e == 0 ? 300.0 * turn : 100.0) + i}));
    ComparisonOptions options;
    options.bootstrap.resamples = 1000;
    const PairedComparison c = comparePaired(run, 0, {1, 2, 0, 7}, options); // 0 and 7 are ignored
    ASSERT_EQ(c.arms.size(), 2u);
    EXPECT_EQ(c.arms[1].candidateLabel, QStringLiteral("c2"));
    const MetricComparison* all = row(c.arms[0], Metric::TtftAny, QStringLiteral("chat"));
    ASSERT_TRUE(all);
    EXPECT_EQ(all->pairs, 15);
    EXPECT_TRUE(all->ratioIsMedianOfPairedRatios) << "turns of different length are pooled as paired ratios";
    for (int turn = 1; turn <= 3; ++turn) {
        const MetricComparison* r = row(c.arms[0], Metric::TtftAny, QStringLiteral("chat"), turn);
        ASSERT_TRUE(r);
        EXPECT_EQ(r->pairs, 5);
        EXPECT_FALSE(r->ratioIsMedianOfPairedRatios);
        EXPECT_DOUBLE_EQ(r->medianDifference, 100.0 - 300.0 * turn);
    }
}

TEST(Paired, JsonIsReproducible)
{
    const RunResult run = seedLikeRun(5);
    const nlohmann::json a = toJson(comparePaired(run));
    const nlohmann::json b = toJson(comparePaired(run));
    EXPECT_EQ(a.dump(), b.dump());
    EXPECT_EQ(a["method"]["resamples"], 10000);
    EXPECT_EQ(a["method"]["confidence"], 0.95);
    const nlohmann::json& arm = a["comparisons"][0];
    EXPECT_EQ(arm["baseline"]["label"], "Q4_K_M");
    EXPECT_EQ(arm["candidate"]["label"], "NVFP4");
    const nlohmann::json* ttft = nullptr;
    for (const nlohmann::json& m : arm["metrics"])
        if (m["metric"] == "ttft_any_ms" && m["test"] == "greeting")
            ttft = &m;
    ASSERT_TRUE(ttft);
    EXPECT_EQ((*ttft)["verdict"], "candidate_better");
    EXPECT_EQ((*ttft)["winner"], "NVFP4");
    EXPECT_EQ((*ttft)["ratio"]["kind"], "ratio_of_medians");
    EXPECT_TRUE((*ttft)["ratio"]["ci"]["low"].is_number());
    EXPECT_EQ((*ttft)["wilcoxon"]["method"], "exact");
    EXPECT_EQ((*ttft)["turn"], nullptr);
    bool pooledGate = false;
    for (const nlohmann::json& g : arm["gates"])
        if (g["gate"] == "expected_answer" && g["test"] == "factual") {
            EXPECT_EQ(g["baseline_passed"], "5/5");
            EXPECT_EQ(g["candidate_passed"], "0/5");
            EXPECT_EQ(g["winner"], "Q4_K_M");
        } else if (g["gate"] == "no_markdown" && g["test"].is_null()) {
            pooledGate = true;
        }
    EXPECT_TRUE(pooledGate);
}

namespace {
double bruteForceHodgesLehmann(const std::vector<double>& d)
{
    std::vector<double> walsh;
    for (std::size_t i = 0; i < d.size(); ++i)
        for (std::size_t j = i; j < d.size(); ++j)
            walsh.push_back((d[i] + d[j]) / 2.0);
    std::sort(walsh.begin(), walsh.end());
    const std::size_t lo = (walsh.size() - 1) / 2;
    return walsh.size() % 2 ? walsh[lo] : walsh[lo] + (walsh[lo + 1] - walsh[lo]) * 0.5;
}
} // namespace

TEST(Estimators, HodgesLehmannOfLargeSamplesIsExactWithoutListingTheWalshAverages)
{
    // Above 1,000 differences the selection algorithm is used: it must agree with listing all
    // n(n+1)/2 averages, for continuous data, heavy ties, odd and even counts of averages.
    qs::test::Rng rng(42);
    for (const std::size_t n : {1001u, 1002u, 1500u, 2000u}) {
        std::vector<double> continuous(n), ties(n), skewed(n);
        for (std::size_t i = 0; i < n; ++i) {
            continuous[i] = rng.normal() * 30 - 5;
            ties[i] = double(int(rng.uniform() * 7) - 3); // only seven distinct values
            skewed[i] = std::exp(rng.normal()) * 100;
        }
        for (const auto& d : {continuous, ties, skewed})
            EXPECT_DOUBLE_EQ(*hodgesLehmann(d), bruteForceHodgesLehmann(d)) << "n = " << n;
    }
    // 50,000 differences (1.25 billion Walsh averages, 10 GB if listed) in well under a second.
    std::vector<double> big(50000);
    for (double& v : big)
        v = rng.normal();
    const auto hl = hodgesLehmann(big);
    ASSERT_TRUE(hl);
    EXPECT_NEAR(*hl, 0.0, 0.05);
}

TEST(Comparison, BootstrapWorkIsBoundedForHugeFiles)
{
    RunResult run = qs::test::makeRun({QStringLiteral("A"), QStringLiteral("B")});
    for (int i = 1; i <= 400; ++i) {
        run.records.push_back(qs::test::record({.endpoint = 0, .iteration = i, .ttftMs = 100.0 + i % 7}));
        run.records.push_back(qs::test::record({.endpoint = 1, .iteration = i, .ttftMs = 60.0 + i % 5}));
    }
    ComparisonOptions options;
    options.metrics = {Metric::TtftAny};
    // 400 pairs × 3 rows × 2 intervals × 1 metric = 2,400 draws per resample.
    options.maxBootstrapDraws = 2400LL * 1500;
    const PairedComparison limited = comparePaired(run, options);
    EXPECT_EQ(limited.options.bootstrap.resamples, 1500);
    ASSERT_FALSE(limited.arms.empty());
    ASSERT_TRUE(limited.arms[0].metrics[0].ratioCi);
    EXPECT_LT(limited.arms[0].metrics[0].ratioCi->hi, 1.0);
    options.maxBootstrapDraws = 10; // never below minResamples
    EXPECT_EQ(comparePaired(run, options).options.bootstrap.resamples, 1000);
    options.maxBootstrapDraws = 0; // no bound
    EXPECT_EQ(comparePaired(run, options).options.bootstrap.resamples, 10000);
    EXPECT_EQ(
        comparePaired(run, ComparisonOptions {}).options.bootstrap.resamples, 10000); // small: untouched
}
