// SPDX-License-Identifier: MIT
// Judge criteria (issue #12): the profile forms on what an LLM judge said — a rubric criterion's
// median score, and the blind pairwise comparison not finding the baseline better — with clear
// errors, and judging them from Evaluation::judged (filled by hand here: the figures are the
// evaluate stage's job). Nothing judged is "not measured" (optional) or inconclusive, never a
// silent pass; a judge that contradicts itself decides nothing.
#include "model/decide/Recommendation.h"
#include "model/evaluate/PromptEvidence.h"
#include "tests/decision/CriterionTestSupport.h"
#include "tests/stats/JudgingTestSupport.h"
#include "tests/stats/StatsTestSupport.h"

#include <gtest/gtest.h>

using namespace qs;
using namespace qs::test;
using json = nlohmann::json;
using Outcome = CriterionResult::Outcome;
using Decision = Recommendation::Decision;

namespace {

/// Two arms, "Q4_K_M" (baseline) and "NVFP4", 10 measured requests each of tests "chat" and "facts".
RunResult twoArms()
{
    RunResult r = makeRun({QStringLiteral("Q4_K_M"), QStringLiteral("NVFP4")});
    for (const char* test : {"chat", "facts"})
        for (int e = 0; e < 2; ++e)
            for (int it = 1; it <= 10; ++it) {
                Req q;
                q.endpoint = e;
                q.test = QString::fromUtf8(test);
                q.iteration = it;
                q.ttftMs = 100 + it;
                r.records.push_back(record(q));
            }
    return r;
}

Rubric voiceRubric()
{
    Rubric r;
    r.id = QStringLiteral("voice-assistant");
    r.name = QStringLiteral("Voice assistant");
    for (const char* id : {"answers_question", "correct", "warm_personal", "spoken_length", "persona"}) {
        RubricCriterion c;
        c.id = QString::fromUtf8(id);
        c.title = QStringLiteral("Title of ") + c.id;
        if (c.id == u"persona")
            c.tests = {QStringLiteral("chat")};
        r.criteria.push_back(c);
    }
    return r;
}

/// A rubric run: NVFP4 (1) median 3 on warm_personal, 4 on correct; the baseline 4 on both; each
/// graded on 8 distinct prompts (tests "p1"…"p8"), the unit the decision counts.
JudgedQuality graded()
{
    JudgedQuality q;
    q.judged = true;
    q.judge.model = QStringLiteral("qwen3-32b");
    q.judge.url = QStringLiteral("http://10.0.0.7:8000");
    q.rubric = voiceRubric();
    q.rubricArms = {{0, 20, 0, 20}, {1, 18, 2, 20}};
    q.rubricScores = {rubricScore(0, "warm_personal", 4, 20), rubricScore(0, "correct", 4, 20),
        rubricScore(1, "warm_personal", 3, 18), rubricScore(1, "correct", 4, 18),
        rubricScore(1, "correct", 5, 9, "facts")};
    for (int i = 1; i <= 8; ++i) {
        // append, not "p" + std::to_string(i): GCC 12 -O3 (aarch64) warns a bogus -Wrestrict on it
        const std::string test = std::string("p").append(std::to_string(i));
        q.rubricScores.push_back(rubricScore(1, "warm_personal", 3, 2, test.c_str()));
        q.rubricScores.push_back(rubricScore(1, "correct", 4, 2, test.c_str()));
    }
    return q;
}

PairwiseResult pairwise(int wins, int losses, int ties, int inconsistent, int winner, const char* verdict)
{
    PairwiseResult p;
    p.candidate = 1;
    p.baseline = 0;
    p.candidateLabel = QStringLiteral("NVFP4");
    p.baselineLabel = QStringLiteral("Q4_K_M");
    p.wins = wins;
    p.losses = losses;
    p.ties = ties;
    p.inconsistent = inconsistent;
    p.pairs = wins + losses + ties;
    if (p.pairs > 0)
        p.consistency = double(p.pairs - inconsistent) / p.pairs;
    if (wins + losses > 0) {
        p.winRate = double(wins) / (wins + losses);
        p.winRateCi = Interval {std::max(0.0, *p.winRate - 0.25), std::min(1.0, *p.winRate + 0.25)};
    }
    // Each pair its own distinct prompt, as in a suite asked once per prompt.
    p.prompts = p.pairs;
    p.promptWins = wins;
    p.promptLosses = losses;
    p.promptTies = ties;
    if (p.pairs > 0) {
        p.promptWinShare = (wins + 0.5 * ties) / p.pairs;
        p.promptWinShareCi = promptRateInterval(wins + 0.5 * ties, p.pairs);
    }
    p.firstPositionRate = 0.5;
    p.signTestP = 0.03;
    p.winner = winner;
    p.verdict = QString::fromUtf8(verdict);
    return p;
}

JudgedQuality compared(const PairwiseResult& p)
{
    JudgedQuality q;
    q.judged = true;
    q.judge.model = QStringLiteral("qwen3-32b");
    q.pairwise = {p};
    return q;
}

Recommendation judge(const JudgedQuality& judged, const json& criteria)
{
    const RunResult r = twoArms();
    Evaluation ev = evaluate(r, 0);
    ev.guardrails.clear();
    ev.judged = judged;
    return recommend(r, ev, profile(criteria)).at(0);
}

const CriterionResult& only(const Recommendation& r)
{
    return r.criteria.at(0);
}

json rubricMin(const char* criterion, const json& min, bool optional = false)
{
    json c = {{"judge", "rubric"}, {"criterion", criterion}, {"min_median", min}};
    if (optional)
        c["optional"] = true;
    return c;
}

const json notWorse = {{"judge", "pairwise"}, {"not_worse_than_baseline", true}};
const json optionalNotWorse = {{"judge", "pairwise"}, {"not_worse_than_baseline", true}, {"optional", true}};

} // namespace

// ---- the profile forms ------------------------------------------------------------------------

TEST(JudgeCriteriaParse, FormsAndDefaults)
{
    const DecisionProfile p = profile(json::array({
        rubricMin("warm_personal", 3, true),
        {{"judge", "rubric"}, {"criterion", "correct"}, {"min_median", 4.5}, {"test", "facts"}},
        notWorse,
    }));
    ASSERT_EQ(p.criteria.size(), 3u);
    const Criterion& warm = p.criteria[0];
    EXPECT_EQ(warm.kind, Criterion::Kind::JudgeRubricMin);
    EXPECT_TRUE(isJudgeCriterion(warm));
    EXPECT_FALSE(isGateCriterion(warm));
    EXPECT_FALSE(isResourceCriterion(warm));
    EXPECT_EQ(warm.rubricCriterion, QStringLiteral("warm_personal"));
    EXPECT_DOUBLE_EQ(warm.threshold, 3);
    EXPECT_TRUE(warm.optional);
    EXPECT_EQ(warm.id, QStringLiteral("judge_warm_personal_min_median"));
    EXPECT_EQ(warm.title, QStringLiteral("judged warm_personal: median ≥ 3"));
    EXPECT_EQ(p.criteria[1].id, QStringLiteral("judge_correct_min_median_facts"));
    EXPECT_EQ(p.criteria[1].title, QStringLiteral("judged correct: median ≥ 4.5 (facts)"));
    EXPECT_FALSE(p.criteria[1].optional);
    const Criterion& pair = p.criteria[2];
    EXPECT_EQ(pair.kind, Criterion::Kind::JudgePairwiseNotWorse);
    EXPECT_EQ(pair.id, QStringLiteral("judge_pairwise_not_worse_than_baseline"));
    EXPECT_EQ(pair.title, QStringLiteral("judged not worse than the baseline (blind pairwise)"));

    EXPECT_EQ(criterionKindId(warm.kind), QStringLiteral("judge_rubric_min"));
    EXPECT_EQ(criterionKindId(pair.kind), QStringLiteral("judge_pairwise_not_worse"));
    // The JSON form reads back as the same criterion.
    const json j = toJson(warm);
    EXPECT_EQ(j.at("kind"), "judge_rubric_min");
    EXPECT_EQ(j.at("judge"), "rubric");
    EXPECT_EQ(j.at("criterion"), "warm_personal");
    EXPECT_DOUBLE_EQ(j.at("min_median").get<double>(), 3);
    EXPECT_EQ(j.at("optional"), true);
    EXPECT_FALSE(j.contains("metric"));
    const json pj = toJson(pair);
    EXPECT_EQ(pj.at("kind"), "judge_pairwise_not_worse");
    EXPECT_EQ(pj.at("judge"), "pairwise");
    EXPECT_EQ(pj.at("not_worse_than_baseline"), true);
    EXPECT_EQ(pj.at("optional"), false);
    for (const json& written : {j, pj})
        EXPECT_EQ(readAndWrittenAgain(asWritten(written)), asWritten(written));
}

TEST(JudgeCriteriaParse, ErrorsSayWhatToDo)
{
    const std::vector<std::pair<json, std::string>> cases = {
        {{{"judge", "rubrik"}, {"criterion", "correct"}, {"min_median", 4}},
            "profile.json: criteria[0].judge: unknown judge form \"rubrik\"; did you mean \"rubric\"?"},
        {{{"judge", "rubric"}, {"min_median", 4}},
            "profile.json: criteria[0]: a rubric judge criterion needs \"criterion\": the id of a rubric "
            "criterion, e.g. \"warm_personal\""},
        {{{"judge", "rubric"}, {"criterion", "correct"}},
            "profile.json: criteria[0]: a rubric judge criterion needs \"min_median\": the least median "
            "score, 1 to 5"},
        {rubricMin("correct", 0),
            "profile.json: criteria[0].min_median: is a score on the rubric's 1–5 scale, found a number (0); "
            "write e.g. 4 for \"mostly good\""},
        {rubricMin("correct", 6),
            "profile.json: criteria[0].min_median: is a score on the rubric's 1–5 scale, found a number (6); "
            "write e.g. 4 for \"mostly good\""},
        {{{"judge", "rubric"}, {"criterion", "correct"}, {"min_median", "4"}},
            "profile.json: criteria[0].min_median: must be a number, found a string (\"4\")"},
        {rubricMin("warm personal", 3),
            "profile.json: criteria[0].criterion: \"warm personal\" is not a valid id; use 1 to 128 letters, "
            "digits, '.', '_' or '-' (no spaces)"},
        {{{"judge", "rubric"}, {"criterion", "correct"}, {"min_median", 4},
             {"not_worse_than_baseline", true}},
            "profile.json: criteria[0].not_worse_than_baseline: applies to \"judge\": \"pairwise\"; a rubric "
            "criterion takes \"min_median\""},
        {{{"judge", "pairwise"}},
            "profile.json: criteria[0]: a pairwise judge criterion needs \"not_worse_than_baseline\": true"},
        {{{"judge", "pairwise"}, {"not_worse_than_baseline", false}},
            "profile.json: criteria[0].not_worse_than_baseline: is false; remove the criterion instead (a "
            "profile lists only what it requires)"},
        {{{"judge", "pairwise"}, {"not_worse_than_baseline", true}, {"min_median", 4}},
            "profile.json: criteria[0].min_median: applies to \"judge\": \"rubric\" only; the pairwise "
            "comparison takes \"not_worse_than_baseline\": true"},
        {{{"judge", "pairwise"}, {"not_worse_than_baseline", true}, {"test", "chat"}},
            "profile.json: criteria[0].test: does not apply to \"judge\": \"pairwise\": the comparison pools "
            "every judged pair; remove \"test\""},
        {{{"judge", "rubric"}, {"criterion", "correct"}, {"max", 4}},
            "profile.json: criteria[0].max: does not apply to a judge criterion; \"judge\": \"rubric\" takes "
            "\"criterion\" and \"min_median\", \"judge\": \"pairwise\" takes \"not_worse_than_baseline\""},
        {{{"judge", "rubric"}, {"criterion", "correct"}, {"min_median", 4}, {"tolerance", 0.1}},
            "profile.json: criteria[0].tolerance: applies to a \"resource\" criterion only"},
        {{{"judge", "rubric"}, {"criterion", "correct"}, {"min_medain", 4}},
            "profile.json: criteria[0].min_medain: unknown key; did you mean \"min_median\"?"},
        {{{"judge", "pairwise"}, {"not_worse_than_baseline", true}, {"optional", 1}},
            "profile.json: criteria[0].optional: must be true or false, found a number (1)"},
        {{{"gate", "coherent"}, {"min_pass_rate", 0.5}, {"criterion", "correct"}},
            "profile.json: criteria[0].criterion: applies to a \"judge\": \"rubric\" criterion only"},
        {{{"gate", "coherent"}, {"judge", "pairwise"}, {"not_worse_than_baseline", true}},
            "profile.json: criteria[0]: a criterion takes exactly one of \"gate\", \"metric\", \"resource\", "
            "\"judge\", \"fidelity\", \"verbosity\", found gate and judge; split it into two criteria"},
        {{{"judge", 3}}, "profile.json: criteria[0].judge: must be a string, found a number (3)"},
    };
    for (const auto& [criterion, expected] : cases)
        EXPECT_EQ(parseError(criterion), expected) << criterion.dump();
}

// ---- rubric ------------------------------------------------------------------------------------

TEST(JudgeCriteriaRubric, MedianPassesAtOrAboveTheMinimum)
{
    const Recommendation r = judge(graded(), json::array({rubricMin("correct", 4)}));
    const CriterionResult& c = only(r);
    EXPECT_EQ(c.outcome, Outcome::Pass) << toJson(r).dump(1);
    EXPECT_EQ(c.required, QStringLiteral("median ≥ 4 of 5"));
    EXPECT_EQ(c.measured,
        QStringLiteral("median 4 (n 18, 2 judge failures); Q4_K_M: 4; 9 distinct prompts, median of their "
                       "medians 4 [4–4]"));
    EXPECT_EQ(c.prompts, 9); // p1…p8 and "facts"
    EXPECT_TRUE(c.explanation.startsWith(QStringLiteral(
        "The judge (qwen3-32b) gave NVFP4's answers a median of 4 of 5 on \"Title of correct\"")))
        << c.explanation.toStdString();
    EXPECT_TRUE(c.explanation.contains(QStringLiteral("(1s to 5s: 0, 0, 0, 18, 0)")));
    EXPECT_TRUE(c.explanation.endsWith(QStringLiteral("at or above the required 4.")));
    EXPECT_EQ(r.decision, Decision::Switch);
    EXPECT_TRUE(r.whatWouldChange.isEmpty());
}

TEST(JudgeCriteriaRubric, MedianBelowTheMinimumFailsWithTheFix)
{
    const Recommendation r = judge(graded(), json::array({rubricMin("warm_personal", 4, true)}));
    const CriterionResult& c = only(r);
    EXPECT_EQ(c.outcome, Outcome::Fail) << toJson(r).dump(1);
    EXPECT_TRUE(
        c.measured.startsWith(QStringLiteral("median 3 (n 18, 2 judge failures); Q4_K_M: 4; 8 distinct")));
    EXPECT_TRUE(c.explanation.endsWith(QStringLiteral("below the required 4.")))
        << c.explanation.toStdString();
    EXPECT_EQ(r.decision, Decision::KeepBaseline);
    ASSERT_EQ(r.whatWouldChange.size(), 1);
    EXPECT_TRUE(r.whatWouldChange[0].startsWith(
        QStringLiteral("NVFP4's answers score a median of 3 of 5 on \"warm_personal\" and must score at "
                       "least 4 (Q4_K_M: 4)")))
        << r.whatWouldChange[0].toStdString();
    EXPECT_TRUE(r.whatWouldChange[0].contains(QStringLiteral("coherent, but generic")));
}

TEST(JudgeCriteriaRubric, OneTest)
{
    const Recommendation r = judge(graded(),
        json::array(
            {{{"judge", "rubric"}, {"criterion", "correct"}, {"min_median", 4.5}, {"test", "facts"}}}));
    // One test is one prompt: its scores say how the judge graded that prompt, not the endpoint.
    EXPECT_EQ(only(r).outcome, Outcome::Inconclusive) << toJson(r).dump(1);
    EXPECT_TRUE(only(r).measured.startsWith(QStringLiteral("median 5 (n 9, 2 judge failures)")));
    // No score in that test for this criterion: nothing graded, never a pass.
    const Recommendation none = judge(graded(),
        json::array(
            {{{"judge", "rubric"}, {"criterion", "warm_personal"}, {"min_median", 3}, {"test", "facts"}}}));
    EXPECT_EQ(only(none).outcome, Outcome::Inconclusive) << toJson(none).dump(1);
    EXPECT_TRUE(only(none).explanation.startsWith(
        QStringLiteral("The judge graded none of NVFP4's answers on \"warm_personal\" in test \"facts\" (it "
                       "failed on 2 of 20")))
        << only(none).explanation.toStdString();
}

TEST(JudgeCriteriaRubric, NotJudgedIsNeverASilentPass)
{
    JudgedQuality nothing;
    ASSERT_FALSE(nothing.judged);
    // Optional: not measured, the decision is made without it, and the headline names it.
    const json criteria = json::array({rubricMin("correct", 4, true), rubricMin("warm_personal", 3, true),
        {{"metric", "ttft_visible_ms"}, {"max", 200}}});
    const Recommendation r = judge(nothing, criteria);
    EXPECT_EQ(r.criteria.at(0).outcome, Outcome::NotMeasured) << toJson(r).dump(1);
    EXPECT_EQ(r.criteria.at(1).outcome, Outcome::NotMeasured);
    EXPECT_EQ(r.criteria.at(0).measured, QStringLiteral("not judged"));
    EXPECT_TRUE(r.criteria.at(0).explanation.contains(QStringLiteral("optional, so it decides nothing")));
    EXPECT_EQ(r.decision, Decision::Switch);
    EXPECT_EQ(r.headline,
        QStringLiteral(
            "Switch from Q4_K_M to NVFP4: it meets all 1 criteria that were measured; not measured: "
            "judged correct: median ≥ 4, judged warm_personal: median ≥ 3"));
    // One cause, one sentence: both rubric criteria share it.
    ASSERT_EQ(r.whatWouldChange.size(), 1) << toJson(r).dump(1);
    EXPECT_TRUE(
        r.whatWouldChange[0].contains(QStringLiteral("run `quantscope judge FILE --judge SPEC --rubric")))
        << r.whatWouldChange[0].toStdString();

    // Not optional: inconclusive, and the decision waits for it.
    const Recommendation open = judge(nothing, json::array({rubricMin("correct", 4)}));
    EXPECT_EQ(only(open).outcome, Outcome::Inconclusive);
    EXPECT_EQ(open.decision, Decision::Inconclusive);
    EXPECT_FALSE(only(open).explanation.contains(QStringLiteral("optional")));
}

TEST(JudgeCriteriaRubric, NoRubricOrAnUnknownCriterion)
{
    JudgedQuality pairsOnly = compared(pairwise(8, 2, 2, 0, -1, "no_clear_difference"));
    const Recommendation noRubric = judge(pairsOnly, json::array({rubricMin("correct", 4, true)}));
    EXPECT_EQ(only(noRubric).outcome, Outcome::NotMeasured);
    EXPECT_EQ(only(noRubric).measured, QStringLiteral("no rubric"));
    EXPECT_TRUE(noRubric.whatWouldChange.at(0).contains(QStringLiteral("--rubric RUBRIC")));

    // A criterion the rubric that was used does not have: say which ids it has.
    const Recommendation unknown = judge(graded(), json::array({rubricMin("friendly", 4, true)}));
    EXPECT_EQ(only(unknown).outcome, Outcome::NotMeasured) << toJson(unknown).dump(1);
    EXPECT_EQ(only(unknown).measured, QStringLiteral("not in rubric \"voice-assistant\""));
    EXPECT_EQ(only(unknown).explanation.left(150),
        QStringLiteral(
            "The rubric \"voice-assistant\" the judge used has no criterion \"friendly\" (its criteria: "
            "answers_question, correct, warm_personal, spoken_length, persona).")
            .left(150));
    const Recommendation unknownRequired = judge(graded(), json::array({rubricMin("friendly", 4)}));
    EXPECT_EQ(only(unknownRequired).outcome, Outcome::Inconclusive);
    EXPECT_TRUE(unknownRequired.whatWouldChange.at(0).contains(
        QStringLiteral("change the profile's \"criterion\" to one of answers_question, correct")));

    // A criterion that does not apply to the criterion's test.
    const Recommendation notHere = judge(graded(),
        json::array({{{"judge", "rubric"}, {"criterion", "persona"}, {"min_median", 3}, {"test", "facts"}}}));
    EXPECT_EQ(only(notHere).outcome, Outcome::Inconclusive);
    EXPECT_EQ(only(notHere).measured, QStringLiteral("not graded in this test"));
    EXPECT_TRUE(only(notHere).explanation.contains(QStringLiteral("(it grades: chat)")));
}

// ---- pairwise ----------------------------------------------------------------------------------

TEST(JudgeCriteriaPairwise, NoClearDifferenceOrCandidateBetterPasses)
{
    const Recommendation even
        = judge(compared(pairwise(7, 6, 3, 1, -1, "no_clear_difference")), json::array({notWorse}));
    // About even over 16 prompts: the interval reaches well below 45 %, so it cannot pass yet.
    EXPECT_EQ(only(even).outcome, Outcome::Inconclusive) << toJson(even).dump(1);
    EXPECT_EQ(only(even).required, QStringLiteral("win share ≥ 45 % against Q4_K_M (blind, both orders)"));
    EXPECT_TRUE(only(even).measured.startsWith(
        QStringLiteral("7 wins, 3 ties, 6 losses of 16 pairs; win share 53 % over 16 distinct prompts [")))
        << only(even).measured.toStdString();
    EXPECT_TRUE(only(even).explanation.contains(QStringLiteral("straddles")))
        << only(even).explanation.toStdString();
    const Recommendation better
        = judge(compared(pairwise(14, 2, 4, 2, 1, "candidate_better")), json::array({notWorse}));
    EXPECT_EQ(only(better).outcome, Outcome::Pass);
    EXPECT_TRUE(only(better).explanation.contains(QStringLiteral("even the interval's lower end is within")))
        << only(better).explanation.toStdString();
    EXPECT_EQ(better.decision, Decision::Switch);
}

TEST(JudgeCriteriaPairwise, BaselineBetterFailsWithTheInterval)
{
    const Recommendation r
        = judge(compared(pairwise(2, 16, 2, 1, 0, "baseline_better")), json::array({optionalNotWorse}));
    const CriterionResult& c = only(r);
    EXPECT_EQ(c.outcome, Outcome::Fail) << toJson(r).dump(1);
    EXPECT_TRUE(c.explanation.startsWith(QStringLiteral(
        "In a blind comparison by the judge (qwen3-32b), NVFP4's win share 15 % over 20 distinct prompts")))
        << c.explanation.toStdString();
    EXPECT_TRUE(
        c.explanation.contains(QStringLiteral("even the interval's upper end is below win share ≥ 45 %")));
    EXPECT_EQ(r.decision, Decision::KeepBaseline);
    ASSERT_EQ(r.whatWouldChange.size(), 1);
    EXPECT_TRUE(
        r.whatWouldChange[0].contains(QStringLiteral("NVFP4 won 2 and lost 16 of 20 distinct prompts")))
        << r.whatWouldChange[0].toStdString();
    // A 3-to-14 split over 20 prompts cannot be told from the 45 % margin: open, not a fail.
    EXPECT_EQ(
        only(judge(compared(pairwise(3, 14, 3, 2, 0, "baseline_better")), json::array({optionalNotWorse})))
            .outcome,
        Outcome::Inconclusive);
}

TEST(JudgeCriteriaPairwise, TooFewPairsOrAnInconsistentJudgeDecideNothing)
{
    // Too few pairs: open even when optional (the judge ran; it did not say enough).
    const Recommendation few
        = judge(compared(pairwise(4, 0, 1, 0, -1, "too_few_pairs")), json::array({optionalNotWorse}));
    EXPECT_EQ(only(few).outcome, Outcome::Inconclusive) << toJson(few).dump(1);
    EXPECT_TRUE(only(few).explanation.startsWith(
        QStringLiteral("Only 5 distinct prompts were judged in both orders (at least 6 are needed")))
        << only(few).explanation.toStdString();
    EXPECT_TRUE(few.whatWouldChange.at(0).contains(QStringLiteral("more distinct prompts")));

    // A judge that always picks the first answer: every pair inconsistent, a tie, never a winner.
    PairwiseResult first = pairwise(0, 0, 20, 20, -1, "no_clear_difference");
    first.firstPositionRate = 1.0;
    const Recommendation biased = judge(compared(first), json::array({optionalNotWorse}));
    EXPECT_EQ(only(biased).outcome, Outcome::Inconclusive) << toJson(biased).dump(1);
    EXPECT_EQ(only(biased).explanation,
        QStringLiteral(
            "The judge (qwen3-32b) gave the same verdict in both orders on only 0 % of the pairs (at "
            "least 70 % needed), and picked the answer shown first in 100 % of its picks: its "
            "verdicts cannot be trusted, so they decide nothing."));
    EXPECT_TRUE(only(biased).measured.contains(QStringLiteral("win share 50 % over 20 distinct prompts")));
    EXPECT_EQ(biased.decision, Decision::Inconclusive);
    EXPECT_TRUE(biased.whatWouldChange.at(0).contains(QStringLiteral("stronger judge")));

    // Even a baseline "win" by a judge that contradicts itself (65 %) does not fail the candidate.
    const Recommendation shaky
        = judge(compared(pairwise(2, 11, 7, 7, 0, "baseline_better")), json::array({notWorse}));
    EXPECT_EQ(only(shaky).outcome, Outcome::Inconclusive) << toJson(shaky).dump(1);
}

TEST(JudgeCriteriaPairwise, NotJudgedOrAgainstAnotherBaseline)
{
    const Recommendation nothing = judge(JudgedQuality {}, json::array({optionalNotWorse}));
    EXPECT_EQ(only(nothing).outcome, Outcome::NotMeasured);
    EXPECT_TRUE(nothing.whatWouldChange.at(0).contains(QStringLiteral(
        "run `quantscope judge FILE --judge SPEC --pairwise BASELINE --out FILE` with BASELINE the "
        "baseline, Q4_K_M")))
        << nothing.whatWouldChange.at(0).toStdString();
    EXPECT_TRUE(nothing.headline.endsWith(
        QStringLiteral("; not measured: judged not worse than the baseline (blind pairwise)")))
        << nothing.headline.toStdString();
    EXPECT_EQ(only(judge(JudgedQuality {}, json::array({notWorse}))).outcome, Outcome::Inconclusive);

    // A rubric ran, pairs did not.
    const Recommendation rubricOnly = judge(graded(), json::array({optionalNotWorse}));
    EXPECT_EQ(only(rubricOnly).outcome, Outcome::NotMeasured);
    EXPECT_TRUE(only(rubricOnly).explanation.startsWith(QStringLiteral("The judge compared no pairs")));

    // The judging was made against another baseline.
    PairwiseResult other = pairwise(10, 2, 2, 0, 1, "candidate_better");
    other.baseline = 2;
    other.baselineLabel = QStringLiteral("FP8");
    const Recommendation elsewhere = judge(compared(other), json::array({optionalNotWorse}));
    EXPECT_EQ(only(elsewhere).outcome, Outcome::NotMeasured);
    EXPECT_EQ(only(elsewhere).measured, QStringLiteral("compared with FP8"));
}

// ---- the built-in profile ---------------------------------------------------------------------

TEST(JudgeCriteriaBuiltin, VoiceAssistantAsksTheJudgeOptionally)
{
    const DecisionProfile p = loadBuiltinDecisionProfile(QStringLiteral("voice-assistant"));
    std::vector<std::pair<QString, double>> rubric;
    int pairwiseCriteria = 0;
    for (const Criterion& c : p.criteria) {
        if (!isJudgeCriterion(c))
            continue;
        EXPECT_TRUE(c.optional) << c.id.toStdString();
        EXPECT_FALSE(c.rationale.isEmpty());
        if (c.kind == Criterion::Kind::JudgeRubricMin)
            rubric.emplace_back(c.rubricCriterion, c.threshold);
        else
            ++pairwiseCriteria;
    }
    EXPECT_EQ(rubric,
        (std::vector<std::pair<QString, double>> {{QStringLiteral("answers_question"), 4},
            {QStringLiteral("correct"), 4}, {QStringLiteral("warm_personal"), 3},
            {QStringLiteral("spoken_length"), 4}}));
    EXPECT_EQ(pairwiseCriteria, 1);

    // Judged: the judge criteria decide with the rest.
    const RunResult r = twoArms();
    Evaluation ev = evaluate(r, 0);
    ev.judged = graded();
    ev.judged.rubricScores.push_back(rubricScore(1, "answers_question", 5, 18));
    ev.judged.rubricScores.push_back(rubricScore(1, "spoken_length", 4, 18));
    ev.judged.pairwise = {pairwise(1, 18, 1, 0, 0, "baseline_better")};
    const Recommendation rec = recommend(r, ev, p).at(0);
    QStringList failed;
    for (const CriterionResult& c : rec.criteria)
        if (isJudgeCriterion(c.criterion) && c.outcome == Outcome::Fail)
            failed << c.criterion.id;
    EXPECT_EQ(failed, (QStringList {QStringLiteral("judged_not_worse")})) << toJson(rec).dump(1);
    EXPECT_EQ(rec.decision, Decision::KeepBaseline);
}
