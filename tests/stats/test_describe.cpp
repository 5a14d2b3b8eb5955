// SPDX-License-Identifier: MIT
// Descriptive statistics per endpoint × test (× turn), checked against values computed by hand.
#include "StatsTestSupport.h"
#include "model/core/Percentile.h"
#include "model/evaluate/Statistics.h"

#include <gtest/gtest.h>
#include <limits>

using namespace qs;
using namespace qs::test;

TEST(Describe, EightValuesByHand)
{
    // sorted 2 4 4 4 5 5 7 9; mean 40/8 = 5; Σ(x − 5)² = 9+1+1+1+0+0+4+16 = 32; s² = 32/7.
    // Type 7: rank = p/100·7. p50: 3.5 → 4 + 0.5·(5 − 4) = 4.5; p90: 6.3 → 7 + 0.3·2 = 7.6;
    // p95: 6.65 → 8.3; p99: 6.93 → 8.86.
    const auto d = describe({9, 4, 2, 4, 5, 4, 7, 5});
    ASSERT_TRUE(d);
    EXPECT_EQ(d->n, 8);
    EXPECT_DOUBLE_EQ(d->mean, 5.0);
    ASSERT_TRUE(d->stdev);
    EXPECT_NEAR(*d->stdev, std::sqrt(32.0 / 7.0), 1e-12);
    EXPECT_NEAR(*d->stdev, 2.138089935, 1e-9);
    EXPECT_DOUBLE_EQ(d->min, 2);
    EXPECT_DOUBLE_EQ(d->max, 9);
    EXPECT_NEAR(d->p50, 4.5, 1e-12);
    EXPECT_NEAR(d->p90, 7.6, 1e-12);
    EXPECT_NEAR(d->p95, 8.3, 1e-12);
    EXPECT_NEAR(d->p99, 8.86, 1e-12);
}

TEST(Describe, FiveValuesByHand)
{
    // 10 20 30 40 50: mean 30, s² = (400+100+0+100+400)/4 = 250; rank = p/100·4.
    // p50: 2 → 30; p90: 3.6 → 40 + 0.6·10 = 46; p95: 3.8 → 48; p99: 3.96 → 49.6.
    const auto d = describe({50, 10, 40, 20, 30});
    ASSERT_TRUE(d);
    EXPECT_DOUBLE_EQ(d->mean, 30);
    EXPECT_NEAR(*d->stdev, std::sqrt(250.0), 1e-12);
    EXPECT_NEAR(d->p50, 30, 1e-12);
    EXPECT_NEAR(d->p90, 46, 1e-12);
    EXPECT_NEAR(d->p95, 48, 1e-12);
    EXPECT_NEAR(d->p99, 49.6, 1e-12);
}

TEST(Describe, SingleValueHasNoStdev)
{
    const auto d = describe({82});
    ASSERT_TRUE(d);
    EXPECT_EQ(d->n, 1);
    EXPECT_FALSE(d->stdev);
    EXPECT_DOUBLE_EQ(d->p50, 82);
    EXPECT_DOUBLE_EQ(d->p99, 82);
    EXPECT_EQ(toJson(*d)["stdev"], nullptr);
}

TEST(Describe, EmptyAndNonFinite)
{
    EXPECT_FALSE(describe({}));
    EXPECT_FALSE(describe({std::numeric_limits<double>::quiet_NaN()}));
    const auto d
        = describe({1, std::numeric_limits<double>::infinity(), 3, std::numeric_limits<double>::quiet_NaN()});
    ASSERT_TRUE(d);
    EXPECT_EQ(d->n, 2);
    EXPECT_DOUBLE_EQ(d->mean, 2);
}

TEST(Describe, StdevIsStableForLargeTightValues)
{
    // One-pass Σx² − n·x̄² would lose every digit here.
    const auto d = describe({1e9 + 1, 1e9 + 2, 1e9 + 3});
    ASSERT_TRUE(d);
    EXPECT_NEAR(*d->stdev, 1.0, 1e-9);
}

TEST(Describe, MedianMatchesPercentileOfMethodology)
{
    EXPECT_DOUBLE_EQ(*median({3, 1, 2}), 2);
    EXPECT_DOUBLE_EQ(*median({4, 1, 3, 2}), 2.5);
    EXPECT_FALSE(median({}));
    Rng rng(7);
    for (int trial = 0; trial < 50; ++trial) {
        std::vector<double> v;
        for (int i = 0; i < 1 + trial; ++i)
            v.push_back(rng.normal() * 100);
        const auto d = describe(v);
        EXPECT_DOUBLE_EQ(d->p50, *percentile(v, 50));
        EXPECT_DOUBLE_EQ(d->p90, *percentile(v, 90));
        EXPECT_DOUBLE_EQ(d->p99, *percentile(v, 99));
        EXPECT_DOUBLE_EQ(*median(v), *percentile(v, 50));
    }
}

TEST(Describe, MetricIdsRoundTrip)
{
    for (Metric m : {Metric::TtftAny, Metric::TtftVisible, Metric::FirstSentence, Metric::E2e,
             Metric::DecodeTps, Metric::CompletionTokens, Metric::PromptTokens})
        EXPECT_EQ(metricFromId(metricId(m)), m);
    EXPECT_EQ(preferredDirection(Metric::TtftAny), Preferred::Lower);
    EXPECT_EQ(preferredDirection(Metric::DecodeTps), Preferred::Higher);
    EXPECT_EQ(preferredDirection(Metric::CompletionTokens), Preferred::Neither);
}

namespace {

RunResult cellRun()
{
    RunResult run = makeRun({QStringLiteral("Q4_K_M"), QStringLiteral("NVFP4")});
    // Warm-ups with absurd values: must not show anywhere.
    run.records.push_back(
        record({.endpoint = 0, .test = QStringLiteral("factual"), .ttftMs = 9360, .warmup = true}));
    run.records.push_back(
        record({.endpoint = 1, .test = QStringLiteral("factual"), .ttftMs = 110000, .warmup = true}));
    const double q4[] = {287, 279, 307, 278, 283};
    const double nv[] = {82, 81, 82, 84, 83};
    for (int i = 0; i < 5; ++i) {
        RunRecord a
            = record({.endpoint = 0, .test = QStringLiteral("factual"), .iteration = i + 1, .ttftMs = q4[i]});
        RunRecord b
            = record({.endpoint = 1, .test = QStringLiteral("factual"), .iteration = i + 1, .ttftMs = nv[i]});
        a.gates = {{"expected_answer", true}, {"no_markdown", true}, {"tool_call", nullptr}};
        b.gates = {{"expected_answer", i < 3 ? false : true}, {"no_markdown", true}, {"tool_call", nullptr}};
        run.records.push_back(a);
        run.records.push_back(b);
    }
    // A failed request: counted, never in the timings; its gates still count.
    RunRecord failed
        = failedRecord({.endpoint = 1, .test = QStringLiteral("factual"), .iteration = 6, .ttftMs = 1});
    failed.gates = {{"expected_answer", false}, {"no_markdown", nullptr}};
    run.records.push_back(failed);
    // A three-turn conversation on one endpoint.
    for (int it = 1; it <= 2; ++it)
        for (int turn = 1; turn <= 3; ++turn)
            run.records.push_back(record({.endpoint = 0,
                .test = QStringLiteral("chat"),
                .turn = turn,
                .iteration = it,
                .ttftMs = 300.0 * turn + it}));
    return run;
}

const CellStatistics* find(
    const std::vector<CellStatistics>& cells, int endpoint, const QString& test, int turn)
{
    for (const CellStatistics& c : cells)
        if (c.endpoint == endpoint && c.test == test && c.turn == turn)
            return &c;
    return nullptr;
}

} // namespace

TEST(CellStatistics, MeasuredOnlyFailuresCountedGatesAsFractions)
{
    const auto cells = cellStatistics(cellRun());
    // factual × 2 endpoints, chat (all turns + 3 turns) × 1 endpoint.
    ASSERT_EQ(cells.size(), 6u);
    const CellStatistics* q4 = find(cells, 0, QStringLiteral("factual"), 0);
    const CellStatistics* nv = find(cells, 1, QStringLiteral("factual"), 0);
    ASSERT_TRUE(q4 && nv);
    EXPECT_EQ(q4->endpointLabel, QStringLiteral("Q4_K_M"));
    EXPECT_EQ(q4->measured, 5);
    EXPECT_EQ(nv->measured, 6);
    EXPECT_EQ(nv->ok, 5);
    EXPECT_EQ(nv->failed, 1);

    const Distribution& t = q4->metrics.at(QStringLiteral("ttft_any_ms"));
    EXPECT_EQ(t.n, 5);
    EXPECT_DOUBLE_EQ(t.p50, 283); // 278 279 283 287 307
    EXPECT_DOUBLE_EQ(t.max, 307); // not the 9360 ms warm-up
    EXPECT_DOUBLE_EQ(t.mean, (287 + 279 + 307 + 278 + 283) / 5.0);
    EXPECT_EQ(nv->metrics.at(QStringLiteral("ttft_any_ms")).n, 5); // the failure is not in it
    EXPECT_DOUBLE_EQ(nv->metrics.at(QStringLiteral("ttft_any_ms")).min, 81);

    // expected_answer: 2 of 5 passed + the failed request's false = 2/6; tool_call null everywhere.
    EXPECT_EQ(nv->gates.at(QStringLiteral("expected_answer")), std::make_pair(2, 6));
    EXPECT_EQ(gateCount(nv->gates.at(QStringLiteral("expected_answer"))), QStringLiteral("2/6"));
    EXPECT_EQ(nv->gates.at(QStringLiteral("no_markdown")), std::make_pair(5, 5)); // null not counted
    EXPECT_EQ(nv->gates.at(QStringLiteral("tool_call")), std::make_pair(0, 0));
    EXPECT_EQ(q4->gates.at(QStringLiteral("expected_answer")), std::make_pair(5, 5));
}

TEST(CellStatistics, MultiTurnTestsGetPerTurnCells)
{
    const auto cells = cellStatistics(cellRun());
    const CellStatistics* all = find(cells, 0, QStringLiteral("chat"), 0);
    ASSERT_TRUE(all);
    EXPECT_EQ(all->measured, 6);
    for (int turn = 1; turn <= 3; ++turn) {
        const CellStatistics* c = find(cells, 0, QStringLiteral("chat"), turn);
        ASSERT_TRUE(c) << turn;
        EXPECT_EQ(c->measured, 2);
        EXPECT_DOUBLE_EQ(c->metrics.at(QStringLiteral("ttft_any_ms")).p50, 300.0 * turn + 1.5);
    }
    // Single-turn tests have no per-turn cells.
    EXPECT_FALSE(find(cells, 0, QStringLiteral("factual"), 1));
}

TEST(CellStatistics, Json)
{
    const auto cells = cellStatistics(cellRun());
    const nlohmann::json j = toJson(cells);
    ASSERT_EQ(j.size(), 6u);
    const nlohmann::json& nv = j[1];
    EXPECT_EQ(nv["endpoint"], "NVFP4");
    EXPECT_EQ(nv["test"], "factual");
    EXPECT_EQ(nv["turn"], nullptr);
    EXPECT_EQ(nv["gates"]["expected_answer"]["text"], "2/6");
    EXPECT_EQ(nv["metrics"]["ttft_any_ms"]["p50"], 82.0);
    EXPECT_EQ(nv["metrics"]["ttft_any_ms"]["n"], 5);
    EXPECT_TRUE(nv["metrics"].contains("first_sentence_ms"));
    EXPECT_EQ(j[2]["turn"], nullptr); // chat, all turns
    EXPECT_EQ(j[3]["turn"], 1);

    // Rounding: three decimals, and no negative zero.
    EXPECT_EQ(roundedJson(1.23456, 3), 1.235);
    EXPECT_EQ(roundedJson(-0.0001, 3).dump(), "0.0");
    EXPECT_EQ(roundedJson(std::nullopt, 3), nullptr);
    EXPECT_EQ(significantJson(0.000123456, 3), 0.000123);
    EXPECT_EQ(significantJson(0.052478790283203125, 4), 0.05248);
}
