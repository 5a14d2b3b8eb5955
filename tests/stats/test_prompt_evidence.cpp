// SPDX-License-Identifier: MIT
// PromptEvidence: the small exact pieces the decision rests on, checked against hand-computed values.
#include "model/evaluate/PromptEvidence.h"

#include <cmath>
#include <gtest/gtest.h>

using namespace qs;

TEST(PromptEvidence, MedianIntervalIsTheSignTestsOrderStatistics)
{
    // 5 values cannot give a 95 % interval (even [min, max] covers only 93.75 %).
    EXPECT_FALSE(medianInterval({1, 2, 3, 4, 5}));
    // 6 values: [min, max] (1 − 2/64 = 96.9 %).
    const auto six = medianInterval({6, 1, 5, 2, 4, 3});
    ASSERT_TRUE(six);
    EXPECT_DOUBLE_EQ(six->lo, 1);
    EXPECT_DOUBLE_EQ(six->hi, 6);
    // 16 values: the 4th smallest and the 4th largest (P(X ≤ 3) = 0.0106, doubled 0.021 ≤ 0.05).
    std::vector<double> v;
    for (int i = 1; i <= 16; ++i)
        v.push_back(i);
    const auto sixteen = medianInterval(v);
    ASSERT_TRUE(sixteen);
    EXPECT_DOUBLE_EQ(sixteen->lo, 4);
    EXPECT_DOUBLE_EQ(sixteen->hi, 13);
}

TEST(PromptEvidence, SignTestPValuesAreOneSided)
{
    // 8 of 8 above the bound: 1/256; 4 of 8: P(X ≥ 4) = 163/256.
    EXPECT_NEAR(signTestPAbove({2, 2, 2, 2, 2, 2, 2, 2}, 1), 1.0 / 256, 1e-12);
    EXPECT_NEAR(signTestPAbove({0, 0, 0, 0, 2, 2, 2, 2}, 1), 163.0 / 256, 1e-12);
    EXPECT_NEAR(signTestPBelow({0, 0, 0, 0, 0, 0, 0, 0}, 1), 1.0 / 256, 1e-12);
    EXPECT_DOUBLE_EQ(signTestPAbove({1, 1, 1}, 1), 1); // all on the bound: no evidence
}

TEST(PromptEvidence, PromptRateIntervalIsConservativeForFractions)
{
    // Whole prompts: Clopper–Pearson.
    const Interval whole = promptRateInterval(18, 20);
    EXPECT_NEAR(whole.lo, 0.6830, 1e-3);
    EXPECT_NEAR(whole.hi, 0.9877, 1e-3);
    // 17.5 of 20: the lower end of 17, the upper end of 18.
    const Interval half = promptRateInterval(17.5, 20);
    EXPECT_DOUBLE_EQ(half.lo, promptRateInterval(17, 20).lo);
    EXPECT_DOUBLE_EQ(half.hi, whole.hi);
    EXPECT_DOUBLE_EQ(promptRateInterval(1, 1).hi, 1);
    EXPECT_NEAR(promptRateInterval(1, 1).lo, 0.025, 1e-9);
}

TEST(PromptEvidence, PValueByInversionMatchesTheClosedForm)
{
    // A normal interval estimate ± z·se: the p-value of "above 1" is 1 − Φ((estimate − 1)/se).
    const double estimate = 1.2, se = 0.08;
    const IntervalAt at = [&](double c) -> std::optional<Interval> {
        const double z = normalQuantile(0.5 + c / 2);
        return Interval {estimate - z * se, estimate + z * se};
    };
    const double expected = 0.5 * std::erfc((estimate - 1) / se / std::sqrt(2.0));
    EXPECT_NEAR(pValueBeyond(at, 1, true), expected, 1e-4);
    EXPECT_DOUBLE_EQ(pValueBeyond(at, 1.3, true), 1); // not beyond at all
    EXPECT_NEAR(
        pValueBeyond(at, 1.35, false), 0.5 * std::erfc((1.35 - estimate) / se / std::sqrt(2.0)), 1e-4);
}

TEST(PromptEvidence, ClusterResamplesDrawWholePrompts)
{
    // Two prompts, one always 1 and one always 3: every resample's mean is 1, 2 or 3 — never a
    // mixture that splits a prompt.
    const std::vector<std::vector<double>> clusters {{1, 1, 1}, {3, 3, 3}};
    const auto mean = [](const std::vector<double>& v) -> std::optional<double> {
        double sum = 0;
        for (double x : v)
            sum += x;
        return sum / double(v.size());
    };
    BootstrapOptions options;
    options.resamples = 500;
    const std::vector<double> stats = clusterResamples(clusters, mean, options);
    ASSERT_EQ(stats.size(), 500u);
    for (double s : stats)
        EXPECT_TRUE(s == 1 || s == 2 || s == 3) << s;
    EXPECT_TRUE(std::is_sorted(stats.begin(), stats.end()));
    EXPECT_TRUE(clusterResamples({{1, 2, 3}}, mean).empty()) << "one prompt is not a sample of prompts";
    const auto ci = percentileInterval(stats, 0.95);
    ASSERT_TRUE(ci);
    EXPECT_DOUBLE_EQ(ci->lo, 1);
    EXPECT_DOUBLE_EQ(ci->hi, 3);
}

TEST(PromptEvidence, QuantilesNeedEnoughValues)
{
    EXPECT_EQ(minValuesForQuantile(0.5), 6);
    EXPECT_EQ(minValuesForQuantile(0.9), 36);
    EXPECT_EQ(minValuesForQuantile(0.95), 72);
    EXPECT_EQ(minValuesForQuantile(0.99), 368);
}

TEST(PromptEvidence, PromptsToSettleScalesWithTheSquareOfTheWidth)
{
    // Estimate 1.05, interval [0.95, 1.15] over 10 prompts, limit 1.10: the upper half-width 0.10
    // must shrink to 0.05 → 4× the prompts.
    EXPECT_EQ(promptsToSettle(1.05, {0.95, 1.15}, 1.10, 10), 40);
    EXPECT_FALSE(promptsToSettle(1.10, {1.0, 1.2}, 1.10, 10)) << "on the limit: no number settles it";
}
