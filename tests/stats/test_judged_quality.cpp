// SPDX-License-Identifier: MIT
// Judged quality over hand-built judgings: the pairwise tallies of scripted judges, the exact
// interval and sign test, rubric medians and histograms, quotes, and the `summary --json` shape.
#include "JudgingTestSupport.h"
#include "StatsTestSupport.h"
#include "model/evaluate/Evaluation.h"
#include "model/evaluate/JudgedQuality.h"

#include <cmath>
#include <gtest/gtest.h>
#include <set>

using namespace qs;
using namespace qs::test;

namespace {

/// Endpoint 0 "base" and 1 "cand", test "t", `iterations` measured single-turn answers each.
/// `prompts` distinct prompts (tests "t1", "t2"…), each asked once on both arms; `repeats` > 1
/// asks each that many times.
RunResult pairedRun(int prompts, int baselineChars = 40, int candidateChars = 40, int repeats = 1)
{
    RunResult run = makeRun({QStringLiteral("base"), QStringLiteral("cand")});
    for (int i = 1; i <= prompts * repeats; ++i) {
        for (int e : {0, 1}) {
            RunRecord r
                = record({e, QStringLiteral("t%1").arg((i - 1) / repeats + 1), 1, (i - 1) % repeats + 1});
            r.request.response.content = QString(e == 0 ? baselineChars : candidateChars, u'x');
            run.records.push_back(r);
        }
    }
    return run;
}

std::set<std::string> keys(const nlohmann::json& object)
{
    std::set<std::string> out;
    for (const auto& [key, value] : object.items())
        out.insert(key);
    return out;
}

} // namespace

// ---- the exact statistics -------------------------------------------------------------------------

TEST(JudgedQuality, ClopperPearsonMatchesKnownValues)
{
    const auto check = [](int x, int n, double lo, double hi) {
        const Interval ci = clopperPearsonInterval(x, n);
        EXPECT_NEAR(ci.lo, lo, 1e-4) << x << "/" << n;
        EXPECT_NEAR(ci.hi, hi, 1e-4) << x << "/" << n;
    };
    check(0, 10, 0.0, 0.3085);
    check(5, 10, 0.1871, 0.8129);
    check(10, 10, 0.6915, 1.0);
    // x = 1 and x = n − 1 have closed forms: 1 − (1 − α/2)^(1/n) and its mirror.
    check(1, 10, 1 - std::pow(0.975, 0.1), 0.4450);
    check(9, 10, 0.5550, std::pow(0.975, 0.1));
    check(20, 20, std::pow(0.025, 1.0 / 20), 1.0);
    const Interval none = clopperPearsonInterval(0, 0);
    EXPECT_EQ(none.lo, 0);
    EXPECT_EQ(none.hi, 1);
    // Wider at 99 %, and symmetric: x of n mirrors n − x of n.
    const Interval c99 = clopperPearsonInterval(5, 10, 0.99);
    EXPECT_LT(c99.lo, 0.1871);
    EXPECT_GT(c99.hi, 0.8129);
    const Interval a = clopperPearsonInterval(3, 17), b = clopperPearsonInterval(14, 17);
    EXPECT_NEAR(a.lo, 1 - b.hi, 1e-12);
    EXPECT_NEAR(a.hi, 1 - b.lo, 1e-12);
}

TEST(JudgedQuality, SignTestIsTheExactBinomialTest)
{
    EXPECT_DOUBLE_EQ(signTest(0, 0), 1);
    EXPECT_DOUBLE_EQ(signTest(5, 5), 1);
    EXPECT_NEAR(signTest(20, 0), 2 * std::pow(0.5, 20), 1e-15);
    EXPECT_NEAR(signTest(0, 20), 2 * std::pow(0.5, 20), 1e-15);
    EXPECT_NEAR(signTest(8, 2), 2 * (1 + 10 + 45) / 1024.0, 1e-12); // 0.109375
}

// ---- blind pairwise ---------------------------------------------------------------------------------

TEST(JudgedQuality, AlwaysFirstJudgeGivesTiesNeverAWinner)
{
    RunResult run = pairedRun(20);
    ASSERT_EQ(judgePairs(run, 1, 0, alwaysFirst), 20);
    const JudgedQuality q = judgeQuality(run);
    ASSERT_TRUE(q.judged);
    ASSERT_EQ(q.pairwise.size(), 1u);
    const PairwiseResult& p = q.pairwise[0];
    EXPECT_EQ(p.candidate, 1);
    EXPECT_EQ(p.baseline, 0);
    EXPECT_EQ(p.candidateLabel, QStringLiteral("cand"));
    EXPECT_EQ(p.pairs, 20);
    EXPECT_EQ(p.wins, 0);
    EXPECT_EQ(p.losses, 0);
    EXPECT_EQ(p.ties, 20);
    EXPECT_EQ(p.inconsistent, 20);
    EXPECT_EQ(p.consistency, 0.0);
    EXPECT_EQ(p.firstPositionRate, 1.0);
    EXPECT_EQ(p.positionPicks, 40);
    EXPECT_FALSE(p.winRate);
    EXPECT_FALSE(p.winRateCi);
    EXPECT_EQ(p.winOrTieRate, 0.5);
    EXPECT_EQ(p.signTestP, 1);
    EXPECT_EQ(p.winner, -1);
    EXPECT_EQ(p.verdict, QStringLiteral("no_clear_difference"));
    EXPECT_EQ(q.pairwiseFor(1), &q.pairwise[0]);
    EXPECT_EQ(q.pairwiseFor(0), nullptr);
}

TEST(JudgedQuality, JudgePreferringTheCandidateInBothOrdersMakesItTheWinner)
{
    RunResult run = pairedRun(20);
    judgePairs(run, 1, 0, prefersCandidate);
    const PairwiseResult p = judgeQuality(run).pairwise.at(0);
    EXPECT_EQ(p.pairs, 20);
    EXPECT_EQ(p.wins, 20);
    EXPECT_EQ(p.losses, 0);
    EXPECT_EQ(p.ties, 0);
    EXPECT_EQ(p.consistency, 1.0);
    EXPECT_EQ(p.firstPositionRate, 0.5);
    EXPECT_EQ(p.winRate, 1.0);
    ASSERT_TRUE(p.winRateCi);
    EXPECT_GT(p.winRateCi->lo, 0.5);
    EXPECT_FALSE(p.winRateCi->contains(0.5));
    EXPECT_LT(p.signTestP, 0.001);
    EXPECT_EQ(p.winner, 1);
    EXPECT_EQ(p.verdict, QStringLiteral("candidate_better"));
}

TEST(JudgedQuality, JudgePreferringTheBaselineMakesTheBaselineTheWinner)
{
    RunResult run = pairedRun(12);
    judgePairs(run, 1, 0, prefersBaseline);
    const PairwiseResult p = judgeQuality(run).pairwise.at(0);
    EXPECT_EQ(p.losses, 12);
    EXPECT_EQ(p.winRate, 0.0);
    EXPECT_LT(p.winRateCi->hi, 0.5);
    EXPECT_EQ(p.winner, 0);
    EXPECT_EQ(p.verdict, QStringLiteral("baseline_better"));
}

TEST(JudgedQuality, TooFewPairsNeverNamesAWinner)
{
    RunResult run = pairedRun(4);
    judgePairs(run, 1, 0, prefersCandidate);
    const PairwiseResult p = judgeQuality(run).pairwise.at(0);
    EXPECT_EQ(p.wins, 4);
    EXPECT_EQ(p.winner, -1);
    EXPECT_EQ(p.verdict, QStringLiteral("too_few_pairs"));
    // With a lower threshold the same 4 wins are still no clear difference: 4/4 → [0.40, 1].
    const PairwiseResult q = judgeQuality(run, JudgeOptions {3, 3}).pairwise.at(0);
    EXPECT_EQ(q.verdict, QStringLiteral("no_clear_difference"));
    EXPECT_NEAR(q.winRateCi->lo, 0.3976, 1e-4);
}

// The case: a judge at temperature 0 prefers the candidate on 4 distinct prompts and the
// baseline on 1, each asked 5 times. 20 wins to 5 over pairs (0.59–0.93, p = 0.004) is 4 prompts to
// 1 (0.28–0.99, p = 0.375): no winner.
TEST(JudgedQuality, RepeatsOfAPromptAreOneVerdict)
{
    RunResult run = pairedRun(5, 40, 40, 5);
    judgePairs(run, 1, 0, [&run](bool candidateFirst, int i) {
        (void)run;
        return i < 20 ? prefersCandidate(candidateFirst, i) : prefersBaseline(candidateFirst, i);
    });
    const PairwiseResult p = judgeQuality(run, JudgeOptions {10, 5}).pairwise.at(0);
    EXPECT_EQ(p.pairs, 25);
    EXPECT_EQ(p.wins, 20);
    EXPECT_EQ(p.losses, 5);
    EXPECT_EQ(p.prompts, 5);
    EXPECT_EQ(p.promptWins, 4);
    EXPECT_EQ(p.promptLosses, 1);
    EXPECT_EQ(p.winRate, 0.8);
    EXPECT_NEAR(p.winRateCi->lo, 0.2836, 1e-4);
    EXPECT_NEAR(p.winRateCi->hi, 0.9949, 1e-4);
    EXPECT_DOUBLE_EQ(p.signTestP, 0.375);
    EXPECT_EQ(p.verdict, QStringLiteral("no_clear_difference"));
    EXPECT_NEAR(*p.promptWinShare, 0.8, 1e-12);
}

TEST(JudgedQuality, WinsLossesTiesAndInconsistentPairsAreTalliedApart)
{
    RunResult run = pairedRun(12);
    // 6 wins, 2 losses, 2 ties in both orders, 2 pairs where the judge always picked answer 1.
    judgePairs(run, 1, 0, [](bool candidateFirst, int i) {
        if (i < 6)
            return prefersCandidate(candidateFirst, i);
        if (i < 8)
            return prefersBaseline(candidateFirst, i);
        if (i < 10)
            return PairPick::Tie;
        return PairPick::First;
    });
    const PairwiseResult p = judgeQuality(run).pairwise.at(0);
    EXPECT_EQ(p.pairs, 12);
    EXPECT_EQ(p.wins, 6);
    EXPECT_EQ(p.losses, 2);
    EXPECT_EQ(p.ties, 4);
    EXPECT_EQ(p.inconsistent, 2);
    EXPECT_NEAR(*p.consistency, 10.0 / 12, 1e-12);
    EXPECT_EQ(p.positionPicks, 20); // ties pick no position
    EXPECT_NEAR(*p.firstPositionRate, 12.0 / 20, 1e-12);
    EXPECT_EQ(p.winRate, 0.75);
    EXPECT_NEAR(p.winRateCi->lo, 0.3491, 1e-4);
    EXPECT_NEAR(p.winRateCi->hi, 0.9681, 1e-4);
    EXPECT_NEAR(*p.winOrTieRate, 8.0 / 12, 1e-12);
    EXPECT_NEAR(p.signTestP, signTest(6, 2), 1e-15);
    EXPECT_EQ(p.verdict, QStringLiteral("no_clear_difference"));
}

TEST(JudgedQuality, FailedAndHalfJudgedPairsAreNotCounted)
{
    RunResult run = pairedRun(12);
    judgePairs(run, 1, 0, [](bool candidateFirst, int i) {
        if ((i < 3 && !candidateFirst) || i == 3) // 3 pairs with one order failed, 1 with both
            return PairPick::Failed;
        return prefersCandidate(candidateFirst, i);
    });
    // Pair 4's second order was never judged (a cancelled judging).
    auto& verdicts = run.judging.pairVerdicts;
    verdicts.erase(verdicts.begin() + 9);
    const JudgedQuality q = judgeQuality(run);
    const PairwiseResult& p = q.pairwise.at(0);
    EXPECT_EQ(p.failedPairs, 4);
    EXPECT_EQ(p.pairs, 7);
    EXPECT_EQ(p.wins, 7);
    EXPECT_EQ(p.verdict, QStringLiteral("too_few_pairs"));
    // Every read single-order judgement counts towards the position rate: 3 + 1 + 14.
    EXPECT_EQ(p.positionPicks, 18);
    ASSERT_EQ(q.notes.size(), 1);
    EXPECT_TRUE(
        q.notes[0].startsWith(QStringLiteral("1 pairs of cand against base were judged in one order")))
        << q.notes[0].toStdString();
}

TEST(JudgedQuality, ARetriedJudgementReplacesTheFailure)
{
    RunResult run = pairedRun(10);
    judgePairs(run, 1, 0, [](bool candidateFirst, int i) {
        return i == 0 ? PairPick::Failed : prefersCandidate(candidateFirst, i);
    });
    EXPECT_EQ(judgeQuality(run).pairwise.at(0).failedPairs, 1);
    const PairVerdict& failed = run.judging.pairVerdicts.front();
    for (bool candidateFirst : {true, false})
        run.judging.pairVerdicts.push_back(pairVerdict(1, 0, failed.test, failed.turn, failed.iteration,
            candidateFirst, prefersCandidate(candidateFirst, 0)));
    const PairwiseResult p = judgeQuality(run).pairwise.at(0);
    EXPECT_EQ(p.failedPairs, 0);
    EXPECT_EQ(p.wins, 10);
    EXPECT_EQ(p.winner, 1);
}

TEST(JudgedQuality, LengthDifferenceAndVerbosity)
{
    RunResult run = pairedRun(12, 40, 100);
    judgePairs(run, 1, 0, prefersCandidate);
    PairwiseResult p = judgeQuality(run).pairwise.at(0);
    EXPECT_EQ(p.medianLengthDifference, 60.0);
    EXPECT_EQ(p.lengthPicks, 24);
    EXPECT_EQ(p.longerPickedRate, 1.0);

    RunResult shorter = pairedRun(12, 40, 100);
    judgePairs(shorter, 1, 0, prefersBaseline);
    EXPECT_EQ(judgeQuality(shorter).pairwise.at(0).longerPickedRate, 0.0);

    RunResult same = pairedRun(12);
    judgePairs(same, 1, 0, prefersCandidate);
    p = judgeQuality(same).pairwise.at(0);
    EXPECT_EQ(p.medianLengthDifference, 0.0);
    EXPECT_EQ(p.lengthPicks, 0);
    EXPECT_FALSE(p.longerPickedRate);
}

TEST(JudgedQuality, NoJudgingIsNotJudged)
{
    const RunResult run = pairedRun(3);
    const JudgedQuality q = judgeQuality(run);
    EXPECT_FALSE(q.judged);
    EXPECT_TRUE(q.pairwise.empty());
    EXPECT_TRUE(toJson(q, run).is_null());
    EXPECT_FALSE(evaluate(run, 0, {}, false).judged.judged);
}

// ---- rubric ----------------------------------------------------------------------------------------

namespace {

RubricVerdict rubricVerdict(int endpoint, const QString& test, int iteration, std::map<QString, int> scores,
    const QString& reason = QStringLiteral("ok"))
{
    RubricVerdict v;
    v.answer = {endpoint, test, 1, iteration};
    v.scores = std::move(scores);
    v.reason = reason;
    if (v.scores.empty())
        v.exchange.error = QStringLiteral("timed out after 120 s: raise the judge's timeout");
    return v;
}

/// Tests "a" and "b" graded on "warm", "a" also on "speech"; "c" on nothing.
RunResult gradedRun()
{
    RunResult run = makeRun({QStringLiteral("base"), QStringLiteral("cand")});
    for (int e : {0, 1}) {
        for (const char* test : {"a", "b"})
            for (int i = 1; i <= 4; ++i)
                run.records.push_back(e == 1 && test == std::string("b") && i == 4
                        ? failedRecord({e, QString::fromLatin1(test), 1, i})
                        : record({e, QString::fromLatin1(test), 1, i}));
        run.records.push_back(record({e, QStringLiteral("c"), 1, 1}));
    }
    Rubric rubric;
    rubric.id = QStringLiteral("test-rubric");
    rubric.criteria.push_back(
        {QStringLiteral("warm"), QStringLiteral("Warm"), {}, {}, {QStringLiteral("a"), QStringLiteral("b")}});
    rubric.criteria.push_back(
        {QStringLiteral("speech"), QStringLiteral("Speech"), {}, {}, {QStringLiteral("a")}});
    Judging& j = run.judging;
    j.judge = testJudge();
    j.rubric = rubric;
    const QString w = QStringLiteral("warm"), s = QStringLiteral("speech");
    const QString a = QStringLiteral("a"), b = QStringLiteral("b");
    const int warmA[] = {5, 4, 4, 3}, speechA[] = {2, 2, 3, 5}, warmB[] = {1, 5, 5, 5};
    for (int i = 0; i < 4; ++i) {
        j.rubricVerdicts.push_back(rubricVerdict(0, a, i + 1, {{w, warmA[i]}, {s, speechA[i]}}));
        j.rubricVerdicts.push_back(rubricVerdict(0, b, i + 1, {{w, warmB[i]}},
            i == 0 ? QStringLiteral("generic, not personal") : QStringLiteral("fine")));
    }
    j.rubricVerdicts.push_back(rubricVerdict(1, a, 1, {{w, 3}, {s, 3}}));
    j.rubricVerdicts.push_back(rubricVerdict(1, a, 2, {}));
    j.rubricVerdicts.push_back(rubricVerdict(1, a, 3, {})); // failed, then retried
    j.rubricVerdicts.push_back(rubricVerdict(1, a, 3, {{w, 2}, {s, 2}}, QStringLiteral("cold")));
    j.rubricVerdicts.push_back(rubricVerdict(1, b, 1, {{w, 4}}));
    return run;
}

} // namespace

TEST(JudgedQuality, RubricMediansHistogramsAndArms)
{
    const RunResult run = gradedRun();
    const JudgedQuality q = judgeQuality(run);
    ASSERT_TRUE(q.rubric);
    ASSERT_EQ(q.rubricArms.size(), 2u);
    EXPECT_EQ(q.rubricArms[0].graded, 8);
    EXPECT_EQ(q.rubricArms[0].failed, 0);
    EXPECT_EQ(q.rubricArms[0].eligible, 8); // "c" has no criterion
    EXPECT_EQ(q.rubricArms[1].graded, 3);
    EXPECT_EQ(q.rubricArms[1].failed, 1);
    EXPECT_EQ(q.rubricArms[1].eligible, 7); // b/4 failed: nothing to grade

    const RubricScore* warm = q.score(0, QStringLiteral("warm"));
    ASSERT_TRUE(warm);
    EXPECT_EQ(warm->n, 8);
    EXPECT_EQ(warm->median, 4.5);
    EXPECT_EQ(warm->mean, 4.0);
    EXPECT_EQ(warm->histogram, (std::array<int, 5> {1, 0, 1, 2, 4}));
    const RubricScore* speech = q.score(0, QStringLiteral("speech"));
    ASSERT_TRUE(speech);
    EXPECT_EQ(speech->median, 2.5);
    EXPECT_EQ(speech->histogram, (std::array<int, 5> {0, 2, 1, 0, 1}));
    const RubricScore* warmB = q.score(0, QStringLiteral("warm"), QStringLiteral("b"));
    ASSERT_TRUE(warmB);
    EXPECT_EQ(warmB->n, 4);
    EXPECT_EQ(warmB->median, 5.0);
    EXPECT_FALSE(q.score(0, QStringLiteral("speech"), QStringLiteral("b")));
    EXPECT_FALSE(q.score(0, QStringLiteral("nonexistent")));
    const RubricScore* cand = q.score(1, QStringLiteral("warm"));
    ASSERT_TRUE(cand);
    EXPECT_EQ(cand->n, 3);
    EXPECT_EQ(cand->median, 3.0);

    // Order: per endpoint, pooled then each test in run order, criteria in rubric order.
    ASSERT_GE(q.rubricScores.size(), 4u);
    EXPECT_EQ(q.rubricScores[0].test, QString());
    EXPECT_EQ(q.rubricScores[0].criterion, QStringLiteral("warm"));
    EXPECT_EQ(q.rubricScores[1].criterion, QStringLiteral("speech"));
    EXPECT_EQ(q.rubricScores[2].test, QStringLiteral("a"));
}

TEST(JudgedQuality, QuotesTheLowestScoresFirstThenDecidedPairs)
{
    RunResult run = gradedRun();
    judgePairs(run, 1, 0, prefersBaseline);
    const JudgedQuality q = judgeQuality(run);
    ASSERT_EQ(q.quotes.size(), 6u);
    EXPECT_EQ(q.quotes[0].what, QStringLiteral("rubric 1/5 on warm"));
    EXPECT_EQ(q.quotes[0].reason, QStringLiteral("generic, not personal"));
    EXPECT_EQ(q.quotes[0].test, QStringLiteral("b"));
    EXPECT_EQ(q.quotes[1].what, QStringLiteral("rubric 2/5 on speech"));
    EXPECT_EQ(q.quotes[3].what, QStringLiteral("pair: preferred the baseline"));
    EXPECT_EQ(q.quotes[3].endpoint, 1);
    // Deterministic: the same file gives the same quotes.
    const JudgedQuality again = judgeQuality(run);
    for (std::size_t i = 0; i < q.quotes.size(); ++i)
        EXPECT_EQ(again.quotes[i].reason, q.quotes[i].reason);
}

// ---- summary --json -------------------------------------------------------------------------------

TEST(JudgedQuality, JsonHasExactlyTheDocumentedKeys)
{
    RunResult run = gradedRun();
    judgePairs(run, 1, 0, prefersCandidate);
    const nlohmann::json j = toJson(judgeQuality(run, JudgeOptions {5}), run);
    EXPECT_EQ(keys(j), (std::set<std::string> {"judge", "rubric", "pairwise"}));
    EXPECT_EQ(keys(j["judge"]),
        (std::set<std::string> {
            "model", "url", "runtime", "spec", "endpoint_label", "simulated", "temperature", "seed"}));
    EXPECT_EQ(j["judge"]["model"], "meta-llama/Llama-3.3-70B-Instruct");
    ASSERT_EQ(j["rubric"].size(), 2u);
    const nlohmann::json& arm = j["rubric"][0];
    EXPECT_EQ(keys(arm),
        (std::set<std::string> {"endpoint", "label", "graded", "failed", "eligible", "criteria", "tests"}));
    EXPECT_EQ(arm["label"], "base");
    EXPECT_EQ(keys(arm["criteria"]["warm"]), (std::set<std::string> {"median", "mean", "n", "histogram"}));
    EXPECT_EQ(arm["criteria"]["warm"]["histogram"], nlohmann::json({1, 0, 1, 2, 4}));
    EXPECT_EQ(arm["tests"]["b"]["warm"]["median"], 5.0);
    EXPECT_FALSE(arm["tests"].contains("c"));
    ASSERT_EQ(j["pairwise"].size(), 1u);
    const nlohmann::json& p = j["pairwise"][0];
    EXPECT_EQ(keys(p),
        (std::set<std::string> {"candidate", "baseline", "pairs", "wins", "losses", "ties", "inconsistent",
            "failed_pairs", "consistency", "first_position_rate", "win_rate", "win_rate_ci",
            "win_or_tie_rate", "sign_test_p", "median_length_difference", "longer_picked_rate", "winner",
            "verdict", "prompts", "prompt_wins", "prompt_losses", "prompt_ties", "prompt_win_share",
            "prompt_win_share_ci"}));
    EXPECT_EQ(p["candidate"], "cand");
    EXPECT_EQ(p["baseline"], "base");
    EXPECT_EQ(p["pairs"], 9); // a 1–4, b 1–4, c 1: every answer measured on both arms
    EXPECT_EQ(p["prompts"], 3); // …of three distinct prompts: too few to name a winner
    EXPECT_EQ(p["prompt_wins"], 3);
    EXPECT_EQ(p["winner"], nullptr);
    EXPECT_EQ(p["verdict"], "too_few_pairs");
    ASSERT_TRUE(p["prompt_win_share_ci"].is_array());
    ASSERT_TRUE(p["win_rate_ci"].is_array());
    EXPECT_EQ(p["win_rate_ci"].size(), 2u);
}

TEST(JudgedQuality, JsonNullsWhatWasNotMeasured)
{
    RunResult run = pairedRun(12);
    judgePairs(run, 1, 0, [](bool, int) { return PairPick::Tie; });
    const nlohmann::json p = toJson(judgeQuality(run), run)["pairwise"][0];
    EXPECT_TRUE(p["win_rate"].is_null());
    EXPECT_TRUE(p["win_rate_ci"].is_null());
    EXPECT_TRUE(p["first_position_rate"].is_null());
    EXPECT_TRUE(p["longer_picked_rate"].is_null());
    EXPECT_TRUE(p["winner"].is_null());
    EXPECT_EQ(p["consistency"], 1.0);
    EXPECT_EQ(p["verdict"], "no_clear_difference");
}

TEST(JudgedQuality, EvaluateFillsJudgedFromTheFile)
{
    RunResult run = pairedRun(20);
    judgePairs(run, 1, 0, prefersCandidate);
    const Evaluation e = evaluate(run, 0, {}, false);
    ASSERT_TRUE(e.judged.judged);
    EXPECT_EQ(e.judged.pairwiseFor(1)->winner, 1);
}
