// SPDX-License-Identifier: MIT
// Multi-turn scaling and the total-latency crossover, on constructed numbers computed by hand.
#include "StatsTestSupport.h"
#include "model/evaluate/TurnScaling.h"

#include <gtest/gtest.h>

using namespace qs;
using namespace qs::test;

TEST(FitLine, ExactOnCollinearData)
{
    const auto fit = fitLine({0.4, 0.8, 1.2, 1.6, 2.0}, {300, 575, 850, 1125, 1400});
    ASSERT_TRUE(fit);
    EXPECT_EQ(fit->n, 5);
    EXPECT_NEAR(fit->slope, 687.5, 1e-9);
    EXPECT_NEAR(fit->intercept, 25, 1e-9);
    ASSERT_TRUE(fit->r2);
    EXPECT_NEAR(*fit->r2, 1.0, 1e-12);
}

TEST(FitLine, ByHandAndDegenerateCases)
{
    // x 1 2 3, y 1 3 2: x̄ 2, ȳ 2, Sxx 2, Sxy 1, Syy 2 → slope ½, intercept 1, r² = 1/(2·2) = ¼.
    const auto fit = fitLine({1, 2, 3}, {1, 3, 2});
    EXPECT_NEAR(fit->slope, 0.5, 1e-12);
    EXPECT_NEAR(fit->intercept, 1.0, 1e-12);
    EXPECT_NEAR(*fit->r2, 0.25, 1e-12);
    const auto flat = fitLine({1, 2, 3}, {90, 90, 90});
    ASSERT_TRUE(flat);
    EXPECT_DOUBLE_EQ(flat->slope, 0);
    EXPECT_FALSE(flat->r2) << "nothing to explain";
    EXPECT_FALSE(fitLine({2, 2, 2}, {1, 2, 3})) << "no spread in x";
    EXPECT_FALSE(fitLine({1}, {1}));
}

TEST(Crossover, HandComputed)
{
    // A: TTFT 90 ms, 20 tok/s (50 ms/token); B: TTFT 300 ms, 38 tok/s (26.3158 ms/token).
    // N* = (300 − 90) / (50 − 1000/38) = 210 / 23.68421 = 8.8667 tokens.
    const LatencyModel a {90, 20};
    const LatencyModel b {300, 38};
    const Crossover c = crossover(a, b);
    ASSERT_TRUE(c.tokens);
    EXPECT_NEAR(*c.tokens, 210.0 / (50.0 - 1000.0 / 38.0), 1e-9);
    EXPECT_NEAR(*c.tokens, 8.866666667, 1e-8);
    EXPECT_EQ(c.fasterShort, Faster::First);
    EXPECT_EQ(c.fasterLong, Faster::Second);
    EXPECT_NEAR(a.predictMs(*c.tokens), b.predictMs(*c.tokens), 1e-9);
    // B at turn 5 (TTFT 1400 ms): N* = 1310 / 23.68421 = 55.311.
    EXPECT_NEAR(*crossover(a, {1400, 38}).tokens, 55.31111111, 1e-7);
    // Swapping the arms swaps the answer, not N*.
    const Crossover swapped = crossover(b, a);
    EXPECT_NEAR(*swapped.tokens, *c.tokens, 1e-9);
    EXPECT_EQ(swapped.fasterShort, Faster::Second);
}

TEST(Crossover, DominanceAndEqualRates)
{
    // A starts sooner and decodes faster: faster at every length, no N*.
    const Crossover d = crossover({90, 40}, {300, 38});
    EXPECT_FALSE(d.tokens);
    EXPECT_EQ(d.fasterShort, Faster::First);
    EXPECT_EQ(d.fasterLong, Faster::First);
    const Crossover e = crossover({300, 20}, {90, 38});
    EXPECT_FALSE(e.tokens);
    EXPECT_EQ(e.fasterShort, Faster::Second);
    // Same rate: the one that starts sooner, at every length.
    const Crossover same = crossover({300, 30}, {100, 30});
    EXPECT_FALSE(same.tokens);
    EXPECT_EQ(same.fasterLong, Faster::Second);
    // Same TTFT: the faster decoder (N* = 0 is not a positive length).
    EXPECT_EQ(crossover({100, 30}, {100, 40}).fasterShort, Faster::Second);
    EXPECT_EQ(crossover({100, 30}, {100, 30}).fasterShort, Faster::Neither);
}

namespace {

// A: 90 ms at every turn, 20 tok/s. B: 300 → 1400 ms over 5 turns (+275 ms per turn),
// 38 tok/s. Prompt tokens 400 per turn. Answers 40 tokens. 5 conversations each.
RunResult conversationRun()
{
    RunResult run = makeRun({QStringLiteral("NVFP4"), QStringLiteral("Q4_K_M")});
    for (int i = 1; i <= 5; ++i)
        for (int turn = 1; turn <= 5; ++turn) {
            const double jitter = (i - 3) * 0.5; // symmetric: medians stay exact
            run.records.push_back(record({.endpoint = 0,
                .test = QStringLiteral("chat"),
                .turn = turn,
                .iteration = i,
                .ttftMs = 90 + jitter,
                .decodeTps = 20 + jitter * 0.01,
                .completionTokens = 40,
                .promptTokens = 400 * turn}));
            run.records.push_back(record({.endpoint = 1,
                .test = QStringLiteral("chat"),
                .turn = turn,
                .iteration = i,
                .ttftMs = 300 + 275.0 * (turn - 1) + jitter,
                .decodeTps = 38 + jitter * 0.01,
                .completionTokens = 40,
                .promptTokens = 400 * turn}));
        }
    // Noise that must not count: warm-ups, a failure, a single-turn test.
    run.records.push_back(record({.endpoint = 0,
        .test = QStringLiteral("chat"),
        .turn = 1,
        .iteration = 1,
        .ttftMs = 9360,
        .warmup = true}));
    run.records.push_back(failedRecord({.endpoint = 1,
        .test = QStringLiteral("chat"),
        .turn = 5,
        .iteration = 6,
        .ttftMs = 1,
        .decodeTps = 1}));
    run.records.push_back(record({.endpoint = 0, .test = QStringLiteral("greeting"), .ttftMs = 90}));
    run.records.push_back(record({.endpoint = 1, .test = QStringLiteral("greeting"), .ttftMs = 300}));
    return run;
}

} // namespace

TEST(TurnScaling, GrowthAndSlopePerEndpoint)
{
    const TurnScaling s = turnScaling(conversationRun());
    ASSERT_EQ(s.endpoints.size(), 2u) << "only the multi-turn test";
    const EndpointScaling& nv = s.endpoints[0];
    const EndpointScaling& q4 = s.endpoints[1];
    EXPECT_EQ(nv.endpointLabel, QStringLiteral("NVFP4"));
    ASSERT_EQ(q4.turns.size(), 5u);
    EXPECT_EQ(q4.turns[4].n, 5) << "the failed request is not a turn-5 sample";
    EXPECT_DOUBLE_EQ(*q4.turns[0].ttftAnyMs, 300);
    EXPECT_DOUBLE_EQ(*q4.turns[4].ttftAnyMs, 1400);
    EXPECT_DOUBLE_EQ(*q4.turns[4].promptTokens, 2000);
    EXPECT_DOUBLE_EQ(*nv.turns[0].ttftAnyMs, 90) << "not the 9360 ms warm-up";
    EXPECT_NEAR(*q4.ttftAnyGrowth, 1400.0 / 300.0, 1e-12);
    EXPECT_NEAR(*q4.ttftVisibleGrowth, 1400.0 / 300.0, 1e-12);
    EXPECT_NEAR(*nv.ttftAnyGrowth, 1.0, 1e-12);
    // TTFT = 25 + 275·turn = 25 + 0.6875·prompt: 687.5 ms per 1k prompt tokens. The per-request
    // jitter is symmetric and equal at every turn, so the slope is exact; r² just under 1.
    ASSERT_TRUE(q4.ttftAnyPerKiloToken);
    EXPECT_EQ(q4.ttftAnyPerKiloToken->n, 25);
    EXPECT_NEAR(q4.ttftAnyPerKiloToken->slope, 687.5, 1e-9);
    EXPECT_NEAR(q4.ttftAnyPerKiloToken->intercept, 25, 1e-9);
    EXPECT_GT(*q4.ttftAnyPerKiloToken->r2, 0.999);
    EXPECT_NEAR(nv.ttftAnyPerKiloToken->slope, 0, 1e-9);
    EXPECT_TRUE(q4.sentence.contains(QStringLiteral("300 → 1400 ms from turn 1 to turn 5 (×4.67)")))
        << q4.sentence.toStdString();
    EXPECT_TRUE(q4.sentence.contains(QStringLiteral(" ms per 1k prompt tokens (r² 1.00, 25 requests)")))
        << q4.sentence.toStdString();
    EXPECT_TRUE(q4.sentence.contains(QStringLiteral("; +68"))) << q4.sentence.toStdString();
}

TEST(TurnScaling, CrossoverPerTurnAndTheTurnTheWinnerChanges)
{
    const TurnScaling s = turnScaling(conversationRun());
    ASSERT_EQ(s.pairs.size(), 1u);
    const PairCrossover& p = s.pairs[0];
    EXPECT_EQ(p.first, 0);
    EXPECT_EQ(p.second, 1);
    ASSERT_EQ(p.turns.size(), 5u);
    const double gap = 50.0 - 1000.0 / 38.0;
    for (int t = 0; t < 5; ++t) {
        const double ttftB = 300 + 275.0 * t;
        ASSERT_TRUE(p.turns[std::size_t(t)].crossover.tokens) << t;
        EXPECT_NEAR(*p.turns[std::size_t(t)].crossover.tokens, (ttftB - 90) / gap, 1e-9) << t;
        EXPECT_EQ(p.turns[std::size_t(t)].crossover.fasterShort, Faster::First);
    }
    // N* by turn: 8.87, 20.48, 32.09, 43.70, 55.31.
    EXPECT_NEAR(*p.turns[3].crossover.tokens, 43.7, 1e-9);

    // Lengths: typical (40 tokens: the median of both arms), 50, 200.
    ASSERT_EQ(p.lengths.size(), 3u);
    const LengthOutlook& typical = p.lengths[0];
    EXPECT_TRUE(typical.typical);
    EXPECT_DOUBLE_EQ(typical.tokens, 40);
    // 40 tokens: A = 90 + 2000 = 2090 ms; B = TTFT + 1052.6: 1352.6, 1627.6, 1902.6, 2177.6 → A
    // from turn 4.
    ASSERT_TRUE(typical.changeTurn);
    EXPECT_EQ(*typical.changeTurn, 4);
    EXPECT_EQ(typical.fasterByTurn[0], std::make_pair(1, 1));
    EXPECT_EQ(typical.fasterByTurn[3], std::make_pair(4, 0));
    // 50 tokens: A = 2590; B = TTFT + 1315.8: 2440.8 at turn 4, 2715.8 at turn 5 → turn 5.
    EXPECT_DOUBLE_EQ(p.lengths[1].tokens, 50);
    EXPECT_EQ(p.lengths[1].changeTurn, 5);
    // 200 tokens: A = 10090; B at most 1400 + 5263 → B at every measured turn. Extrapolated:
    // D(t) = (90 − 25) − 275·t + 200 000·(1/20 − 1/38) = 4801.84 − 275·t → 0 at t = 17.46 → turn
    // 18, within the horizon of 4 × 5 turns.
    const LengthOutlook& long200 = p.lengths[2];
    EXPECT_FALSE(long200.changeTurn);
    EXPECT_EQ(long200.projectionHorizon, 20);
    ASSERT_TRUE(long200.projectedChangeTurn);
    EXPECT_EQ(*long200.projectedChangeTurn, 18);
    EXPECT_TRUE(long200.sentence.contains(QStringLiteral("NVFP4 would be faster from turn 18")))
        << long200.sentence.toStdString();

    EXPECT_TRUE(p.sentence.contains(QStringLiteral(
        "NVFP4 is faster for answers under 9 tokens at turn 1, under 55 at turn 5 (Q4_K_M for longer ones)")))
        << p.sentence.toStdString();
    EXPECT_TRUE(p.sentence.contains(
        QStringLiteral("For a typical 40-token answer, Q4_K_M is faster at turns 1–3, NVFP4 from turn 4.")))
        << p.sentence.toStdString();
}

TEST(TurnScaling, SeedV4NumbersDoNotCrossForLongAnswers)
{
    // The seeds' v4 medians: 27B NVFP4 193 → 321 ms at ~13 tok/s, 9B Q4_K_M 345 → 1434 ms at
    // ~37 tok/s. The seed guessed "200-token response: 27B wins at turn ~8+"; the model says the
    // 9B stays ahead (the 27B is faster only for answers under ~22 tokens at turn 5).
    RunResult run = makeRun({QStringLiteral("27B NVFP4"), QStringLiteral("9B Q4_K_M")});
    const double nv[] = {193, 202, 231, 278, 321};
    const double q4[] = {345, 377, 657, 1022, 1434};
    for (int i = 1; i <= 5; ++i)
        for (int turn = 1; turn <= 5; ++turn) {
            run.records.push_back(record({.endpoint = 0,
                .test = QStringLiteral("chat"),
                .turn = turn,
                .iteration = i,
                .ttftMs = nv[turn - 1],
                .decodeTps = 13,
                .completionTokens = 60}));
            run.records.push_back(record({.endpoint = 1,
                .test = QStringLiteral("chat"),
                .turn = turn,
                .iteration = i,
                .ttftMs = q4[turn - 1],
                .decodeTps = 37,
                .completionTokens = 60}));
        }
    const TurnScaling s = turnScaling(run);
    ASSERT_EQ(s.pairs.size(), 1u);
    const PairCrossover& p = s.pairs[0];
    EXPECT_NEAR(*p.turns[4].crossover.tokens, (1434.0 - 321.0) / (1000.0 / 13 - 1000.0 / 37), 1e-9);
    EXPECT_NEAR(*p.turns[4].crossover.tokens, 22.3, 0.1);
    const LengthOutlook& long200 = p.lengths[2];
    EXPECT_FALSE(long200.changeTurn);
    EXPECT_FALSE(long200.projectedChangeTurn) << long200.sentence.toStdString();
    for (const auto& [turn, faster] : long200.fasterByTurn)
        EXPECT_EQ(faster, 1) << turn;
}

TEST(TurnScaling, SingleTurnTestsAndJson)
{
    RunResult single = makeRun({QStringLiteral("A"), QStringLiteral("B")});
    single.records.push_back(record({.endpoint = 0}));
    single.records.push_back(record({.endpoint = 1}));
    const TurnScaling none = turnScaling(single);
    EXPECT_TRUE(none.endpoints.empty());
    EXPECT_TRUE(none.pairs.empty());

    const nlohmann::json j = toJson(turnScaling(conversationRun()));
    ASSERT_EQ(j["endpoints"].size(), 2u);
    EXPECT_EQ(j["endpoints"][1]["endpoint"], "Q4_K_M");
    EXPECT_EQ(j["endpoints"][1]["ttft_any_growth"], 4.667);
    EXPECT_EQ(j["endpoints"][1]["ttft_any_ms_per_1k_prompt_tokens"]["slope"], 687.5);
    EXPECT_EQ(j["endpoints"][1]["turns"][4]["ttft_any_ms"], 1400.0);
    const nlohmann::json& p = j["pairs"][0];
    EXPECT_EQ(p["first"]["label"], "NVFP4");
    EXPECT_EQ(p["turns"][0]["crossover_tokens"], 8.9);
    EXPECT_EQ(p["turns"][0]["faster_short"], "NVFP4");
    EXPECT_EQ(p["turns"][0]["faster_long"], "Q4_K_M");
    EXPECT_EQ(p["lengths"][0]["typical"], true);
    EXPECT_EQ(p["lengths"][0]["change_turn"], 4);
    EXPECT_EQ(p["lengths"][2]["projected_change_turn"], 18);
    EXPECT_EQ(p["lengths"][1]["projected_change_turn"], nullptr);
    EXPECT_TRUE(p["sentence"].is_string());
}
