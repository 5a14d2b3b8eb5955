// SPDX-License-Identifier: MIT
// recommend() on runs built in code: each kind of criterion passes, fails and cannot be decided
// for the reason it should, and the decision rule never names a winner the data cannot support.
#include "model/decide/Recommendation.h"
#include "tests/stats/StatsTestSupport.h"

#include <functional>
#include <gtest/gtest.h>

using namespace qs;
using namespace qs::test;
using json = nlohmann::json;
using Outcome = CriterionResult::Outcome;
using Decision = Recommendation::Decision;

namespace {

/// How one arm behaves: request timings and the gate verdicts of request `i` (0-based over the
/// arm's measured requests) of test `test`.
struct ArmSpec {
    double ttftMs = 300;
    double decodeTps = 38;
    std::function<json(const QString& test, int i)> gates = [](const QString&, int) {
        return json {{"non_empty", true}, {"coherent", true}, {"no_thinking_leak", true}};
    };
    bool failAll = false;
};

/// Two arms ("Q4_K_M" baseline, "NVFP4" candidate), `runs` measured runs of each test.
RunResult run(const ArmSpec& base, const ArmSpec& cand, int runs = 10,
    const QStringList& tests = {QStringLiteral("a"), QStringLiteral("b")}, const QStringList& extra = {})
{
    RunResult r = makeRun(QStringList {QStringLiteral("Q4_K_M"), QStringLiteral("NVFP4")} + extra);
    const ArmSpec* specs[] = {&base, &cand};
    for (int e = 0; e < int(r.endpoints.size()); ++e) {
        const ArmSpec& spec = *specs[std::min(e, 1)];
        int i = 0;
        for (const QString& test : tests)
            for (int it = 1; it <= runs; ++it, ++i) {
                Req q;
                q.endpoint = e;
                q.test = test;
                q.iteration = it;
                // Small deterministic spread, so that intervals are not degenerate.
                q.ttftMs = spec.ttftMs * (1 + 0.01 * ((it * 7) % 5 - 2));
                q.decodeTps = spec.decodeTps * (1 + 0.01 * ((it * 3) % 5 - 2));
                RunRecord rec = spec.failAll ? failedRecord(q) : record(q);
                rec.gates = spec.gates(test, i);
                r.records.push_back(rec);
            }
    }
    return r;
}

DecisionProfile profile(const json& criteria)
{
    return parseDecisionProfile({{"id", "test"}, {"criteria", criteria}}, QStringLiteral("test"));
}

/// The evaluation without guardrails (those of a hand-built run are not the point here).
Evaluation evaluation(const RunResult& r, bool withComparison = true, int baseline = 0)
{
    Evaluation ev = evaluate(r, baseline, {}, withComparison);
    ev.guardrails.clear();
    return ev;
}

Recommendation recommendOne(const RunResult& r, const json& criteria, bool withComparison = true)
{
    const auto recs = recommend(r, evaluation(r, withComparison), profile(criteria));
    EXPECT_EQ(recs.size(), r.endpoints.size() - 1);
    return recs.at(0);
}

CriterionResult single(const RunResult& r, const json& criterion, bool withComparison = true)
{
    const Recommendation rec = recommendOne(r, json::array({criterion}), withComparison);
    EXPECT_EQ(rec.criteria.size(), 1u);
    return rec.criteria.at(0);
}

// Gate helpers: `failing(n)` fails the first n requests of the arm, every test pooled.
std::function<json(const QString&, int)> gate(const char* name, int failures)
{
    return [name, failures](const QString&, int i) {
        return json {{"non_empty", true}, {"coherent", true}, {name, i >= failures}};
    };
}

} // namespace

// ---- gate thresholds --------------------------------------------------------------------------

TEST(RecommendGateThreshold, MaxFailuresPassFailAndNothingJudged)
{
    const json leaks = {{"gate", "no_thinking_leak"}, {"max_failures", 0}};
    ArmSpec clean;
    ArmSpec leaky;
    leaky.gates = gate("no_thinking_leak", 3);
    const CriterionResult pass = single(run(clean, clean), leaks);
    EXPECT_EQ(pass.outcome, Outcome::Pass);
    EXPECT_EQ(pass.measured, QStringLiteral("0 of 20 answers leaked thinking into the answer"));
    EXPECT_EQ(pass.required, QStringLiteral("none"));

    const Recommendation rec = recommendOne(run(clean, leaky), json::array({leaks}));
    const CriterionResult& fail = rec.criteria.at(0);
    EXPECT_EQ(fail.outcome, Outcome::Fail);
    EXPECT_EQ(fail.measured, QStringLiteral("3 of 20 answers leaked thinking into the answer"));
    EXPECT_EQ(fail.explanation,
        QStringLiteral(
            "NVFP4: 3 of 20 answers leaked thinking into the answer (over the limit: none is allowed)."));
    ASSERT_EQ(rec.whatWouldChange.size(), 1);
    EXPECT_TRUE(rec.whatWouldChange[0].startsWith(QStringLiteral("NVFP4: 3 of 20 answers leaked thinking")));
    EXPECT_TRUE(rec.whatWouldChange[0].contains(QStringLiteral("--reasoning-parser qwen3")));
    EXPECT_TRUE(rec.whatWouldChange[0].contains(QStringLiteral("enable_thinking=false")));

    // One leak allowed: 3 is still too many, 1 is not.
    EXPECT_EQ(single(run(clean, leaky), {{"gate", "no_thinking_leak"}, {"max_failures", 3}}).outcome,
        Outcome::Pass);
    EXPECT_EQ(single(run(clean, leaky), {{"gate", "no_thinking_leak"}, {"max_failures", 2}}).outcome,
        Outcome::Fail);

    // The gate never applied (null everywhere): nothing to judge.
    ArmSpec unjudged;
    unjudged.gates = [](const QString&, int) { return json {{"tool_call", nullptr}, {"non_empty", true}}; };
    const CriterionResult none
        = single(run(unjudged, unjudged), {{"gate", "tool_call"}, {"min_pass_rate", 0.6}});
    EXPECT_EQ(none.outcome, Outcome::Inconclusive);
    EXPECT_EQ(none.measured, QStringLiteral("no answer judged"));
}

TEST(RecommendGateThreshold, MinPassRateAtAndBelowTheThreshold)
{
    const json tools = {{"gate", "tool_call"}, {"min_pass_rate", 0.6}};
    ArmSpec base;
    base.gates = gate("tool_call", 0);
    ArmSpec sixOfTen;
    sixOfTen.gates = gate("tool_call", 8); // 12 of 20 pass: exactly 60 %
    ArmSpec fiveOfTen;
    fiveOfTen.gates = gate("tool_call", 10);

    const CriterionResult at = single(run(base, sixOfTen), tools);
    EXPECT_EQ(at.outcome, Outcome::Pass);
    EXPECT_EQ(at.measured, QStringLiteral("12 of 20 passed (60 %)"));
    EXPECT_EQ(at.required, QStringLiteral("≥ 60 % passed (12 of 20)"));

    const Recommendation rec = recommendOne(run(base, fiveOfTen), json::array({tools}));
    EXPECT_EQ(rec.criteria[0].outcome, Outcome::Fail);
    EXPECT_EQ(rec.criteria[0].measured, QStringLiteral("10 of 20 passed (50 %)"));
    EXPECT_TRUE(
        rec.whatWouldChange.at(0).contains(QStringLiteral("--enable-auto-tool-choice --tool-call-parser")));
}

TEST(RecommendGateThreshold, TestFilterCountsOnlyThatTest)
{
    // Failures only in test "a" (its requests are i = 0..9).
    ArmSpec base;
    base.gates = gate("no_markdown", 0);
    ArmSpec cand;
    cand.gates = gate("no_markdown", 4);
    const RunResult r = run(base, cand);
    const CriterionResult inA = single(r, {{"gate", "no_markdown"}, {"max_failures", 0}, {"test", "a"}});
    EXPECT_EQ(inA.outcome, Outcome::Fail);
    EXPECT_EQ(inA.measured, QStringLiteral("4 of 10 answers contained markdown"));
    EXPECT_EQ(
        single(r, {{"gate", "no_markdown"}, {"max_failures", 0}, {"test", "b"}}).outcome, Outcome::Pass);

    const CriterionResult missing
        = single(r, {{"gate", "no_markdown"}, {"max_failures", 0}, {"test", "zzz"}});
    EXPECT_EQ(missing.outcome, Outcome::Inconclusive);
    EXPECT_EQ(missing.measured, QStringLiteral("no such test"));
}

// ---- metric thresholds ------------------------------------------------------------------------

TEST(RecommendMetricThreshold, MaxAndMinAgainstTheStatistic)
{
    ArmSpec base;
    ArmSpec fast;
    fast.ttftMs = 90;
    fast.decodeTps = 20;
    const RunResult r = run(base, fast);

    const CriterionResult ttft = single(r, {{"metric", "ttft_visible_ms"}, {"max", 120}});
    EXPECT_EQ(ttft.outcome, Outcome::Pass);
    EXPECT_EQ(ttft.measured, QStringLiteral("p50 90.0 ms (n = 20)"));
    EXPECT_EQ(ttft.required, QStringLiteral("≤ 120 ms (p50)"));

    // p99 of 90 ms ± 2 % is 91.8 ms: over a 91 ms limit although the median is under it.
    EXPECT_EQ(single(r, {{"metric", "ttft_visible_ms"}, {"max", 91}}).outcome, Outcome::Pass);
    EXPECT_EQ(
        single(r, {{"metric", "ttft_visible_ms"}, {"max", 91}, {"statistic", "p99"}}).outcome, Outcome::Fail);

    const Recommendation rec = recommendOne(r, json::array({{{"metric", "decode_tps"}, {"min", 25}}}));
    EXPECT_EQ(rec.criteria[0].outcome, Outcome::Fail);
    EXPECT_EQ(rec.criteria[0].measured, QStringLiteral("p50 20.0 tok/s (n = 20)"));
    ASSERT_EQ(rec.whatWouldChange.size(), 1);
    EXPECT_EQ(rec.whatWouldChange[0],
        QStringLiteral(
            "NVFP4's decode rate p50 is 20.0 tok/s and must be ≥ 25 tok/s (5 tok/s more, +25 %): "
            "enable CUDA graphs (vLLM without --enforce-eager, once the GPU supports them), speculative "
            "decoding (MTP: --speculative-config), or a smaller model."));

    ArmSpec slow;
    slow.ttftMs = 310;
    const Recommendation late
        = recommendOne(run(base, slow), json::array({{{"metric", "ttft_visible_ms"}, {"max", 120}}}));
    EXPECT_TRUE(late.whatWouldChange.at(0).startsWith(
        QStringLiteral("NVFP4's TTFT (visible) p50 is 310 ms and must be ≤ 120 ms (190 ms less)")))
        << late.whatWouldChange.at(0).toStdString();
}

TEST(RecommendMetricThreshold, NoSuccessfulRequestIsInconclusive)
{
    ArmSpec base;
    ArmSpec broken;
    broken.failAll = true;
    const CriterionResult c = single(run(base, broken), {{"metric", "decode_tps"}, {"min", 25}});
    EXPECT_EQ(c.outcome, Outcome::Inconclusive);
    EXPECT_EQ(c.measured, QStringLiteral("no value"));
}

// ---- not worse than the baseline ----------------------------------------------------------------

TEST(RecommendNotWorse, MetricFailsOnlyWhenTheBaselineIsClearlyBetter)
{
    const json ttft = {{"metric", "ttft_visible_ms"}, {"not_worse_than_baseline", true}};
    ArmSpec base;
    ArmSpec slower;
    slower.ttftMs = 450;
    ArmSpec faster;
    faster.ttftMs = 95;
    ArmSpec same; // identical values: no clear difference

    const Recommendation worse = recommendOne(run(base, slower), json::array({ttft}));
    EXPECT_EQ(worse.criteria[0].outcome, Outcome::Fail);
    EXPECT_EQ(worse.criteria[0].required, QStringLiteral("not worse than Q4_K_M"));
    EXPECT_TRUE(worse.criteria[0].measured.startsWith(QStringLiteral("median 450 vs 300 ms, ratio 1.5")))
        << worse.criteria[0].measured.toStdString();
    EXPECT_TRUE(worse.criteria[0].measured.endsWith(QStringLiteral(", 20 pairs")));
    EXPECT_TRUE(worse.whatWouldChange.at(0).startsWith(
        QStringLiteral("NVFP4's TTFT (visible) is slower than Q4_K_M's (median 450 vs 300 ms")));

    const CriterionResult better = single(run(base, faster), ttft);
    EXPECT_EQ(better.outcome, Outcome::Pass);
    EXPECT_EQ(better.explanation, QStringLiteral("NVFP4's TTFT (visible) is faster than Q4_K_M's."));
    const CriterionResult tie = single(run(base, same), ttft);
    EXPECT_EQ(tie.outcome, Outcome::Pass);
    EXPECT_EQ(
        tie.explanation, QStringLiteral("NVFP4's TTFT (visible) shows no clear difference from Q4_K_M's."));

    // Decode: higher is better, so a lower rate is worse.
    ArmSpec slowDecode;
    slowDecode.decodeTps = 20;
    EXPECT_EQ(
        single(run(base, slowDecode), {{"metric", "decode_tps"}, {"not_worse_than_baseline", true}}).outcome,
        Outcome::Fail);
}

TEST(RecommendNotWorse, TooFewPairsAndNoComparisonAreInconclusive)
{
    const json ttft = {{"metric", "ttft_visible_ms"}, {"not_worse_than_baseline", true}};
    ArmSpec base;
    ArmSpec slower;
    slower.ttftMs = 450;
    // Two runs of two tests: 4 pairs, fewer than the 5 the verdict needs.
    const Recommendation few = recommendOne(run(base, slower, 2), json::array({ttft}));
    EXPECT_EQ(few.criteria[0].outcome, Outcome::Inconclusive);
    EXPECT_EQ(few.decision, Decision::Inconclusive);
    EXPECT_TRUE(few.whatWouldChange.at(0).startsWith(
        QStringLiteral("Only 4 paired requests compare ttft_visible_ms of NVFP4 and Q4_K_M, fewer than 5: "
                       "run at least 5 measured runs")))
        << few.whatWouldChange.at(0).toStdString();

    const CriterionResult skipped = single(run(base, slower), ttft, false);
    EXPECT_EQ(skipped.outcome, Outcome::Inconclusive);
    EXPECT_EQ(skipped.measured, QStringLiteral("not compared"));
}

TEST(RecommendNotWorse, OneTestRunUsesThatTestsRow)
{
    // With pairs in one test only there is no pooled row; that test's row decides.
    ArmSpec base;
    ArmSpec slower;
    slower.ttftMs = 450;
    const RunResult r = run(base, slower, 10, {QStringLiteral("only")});
    EXPECT_EQ(
        single(r, {{"metric", "ttft_visible_ms"}, {"not_worse_than_baseline", true}}).outcome, Outcome::Fail);
    EXPECT_EQ(single(r, {{"metric", "ttft_visible_ms"}, {"not_worse_than_baseline", true}, {"test", "only"}})
                  .outcome,
        Outcome::Fail);
}

TEST(RecommendNotWorse, GateComparedWithMcNemar)
{
    const json answers = {{"gate", "expected_answer"}, {"not_worse_than_baseline", true}};
    ArmSpec base;
    base.gates = gate("expected_answer", 0);
    ArmSpec wrong;
    wrong.gates = gate("expected_answer", 20);
    ArmSpec right = base;

    const Recommendation rec = recommendOne(run(base, wrong), json::array({answers}));
    EXPECT_EQ(rec.criteria[0].outcome, Outcome::Fail);
    ASSERT_EQ(rec.whatWouldChange.size(), 1);
    EXPECT_TRUE(rec.whatWouldChange[0].contains(
        QStringLiteral("; 20 of 20 of its answers missed the expected answer: check the model")))
        << rec.whatWouldChange[0].toStdString();
    EXPECT_TRUE(
        rec.criteria[0].measured.startsWith(QStringLiteral("0/20 vs 20/20 passed, difference -100 %")))
        << rec.criteria[0].measured.toStdString();
    EXPECT_EQ(rec.decision, Decision::KeepBaseline);

    const CriterionResult same = single(run(base, right), answers);
    EXPECT_EQ(same.outcome, Outcome::Pass);
    EXPECT_EQ(same.explanation,
        QStringLiteral("NVFP4 and Q4_K_M pass expected_answer about equally often (no clear difference)."));

    // Never judged on either arm: no row to read.
    const CriterionResult none = single(run(ArmSpec {}, ArmSpec {}), answers);
    EXPECT_EQ(none.outcome, Outcome::Inconclusive);
    EXPECT_EQ(none.measured, QStringLiteral("no answer judged for expected_answer on NVFP4"));
    EXPECT_EQ(none.explanation,
        QStringLiteral(
            "NVFP4 has no answer judged for expected_answer (only tests with \"expect\" patterns are "
            "judged for it), so there is nothing to compare."));
}

// ---- the decision rule --------------------------------------------------------------------------

namespace {

const json voiceLike = json::array({
    {{"id", "leaks"}, {"title", "No thinking leaks"}, {"gate", "no_thinking_leak"}, {"max_failures", 0}},
    {{"id", "ttft"}, {"title", "TTFT ≤ 120 ms"}, {"metric", "ttft_visible_ms"}, {"max", 120}},
    {{"id", "decode"}, {"title", "Decode ≥ 25 tok/s"}, {"metric", "decode_tps"}, {"min", 25}},
    {{"id", "coherent"}, {"title", "Coherent"}, {"gate", "coherent"}, {"not_worse_than_baseline", true}},
});

ArmSpec goodCandidate()
{
    ArmSpec c;
    c.ttftMs = 90;
    c.decodeTps = 40;
    return c;
}

Guardrail critical(std::vector<int> endpoints)
{
    Guardrail g;
    g.id = QStringLiteral("models_differ");
    g.severity = Guardrail::Severity::Critical;
    g.title = QStringLiteral("The arms run different models, not just different quantizations");
    g.evidence = QStringLiteral("base only in NVFP4");
    g.advice = QStringLiteral("Compare the same fine-tune.");
    g.endpoints = std::move(endpoints);
    return g;
}

} // namespace

TEST(RecommendDecision, EveryCriterionPassedSwitches)
{
    const RunResult r = run(ArmSpec {}, goodCandidate());
    const auto recs = recommend(r, evaluation(r), profile(voiceLike));
    ASSERT_EQ(recs.size(), 1u);
    const Recommendation& rec = recs[0];
    EXPECT_EQ(rec.decision, Decision::Switch);
    EXPECT_EQ(rec.baseline, 0);
    EXPECT_EQ(rec.candidate, 1);
    EXPECT_EQ(rec.headline, QStringLiteral("Switch from Q4_K_M to NVFP4: it meets all 4 criteria"));
    EXPECT_TRUE(rec.whatWouldChange.isEmpty());
    EXPECT_TRUE(rec.caveats.isEmpty());
    for (const CriterionResult& c : rec.criteria)
        EXPECT_EQ(c.outcome, Outcome::Pass)
            << c.criterion.id.toStdString() << ": " << c.explanation.toStdString();
}

TEST(RecommendDecision, AFailureKeepsTheBaselineEvenWithOpenCriteria)
{
    ArmSpec cand = goodCandidate();
    cand.decodeTps = 20; // fails "Decode ≥ 25 tok/s"
    json criteria = voiceLike;
    criteria.push_back({{"id", "tools"}, {"title", "Tool calls"}, {"gate", "tool_call"},
        {"min_pass_rate", 0.6}}); // never judged
    const RunResult r = run(ArmSpec {}, cand);
    const Recommendation rec = recommend(r, evaluation(r), profile(criteria)).at(0);
    EXPECT_EQ(rec.decision, Decision::KeepBaseline);
    EXPECT_EQ(rec.headline, QStringLiteral("Keep Q4_K_M: NVFP4 fails 1 of 5 criteria (Decode ≥ 25 tok/s)"));
    ASSERT_EQ(rec.whatWouldChange.size(), 2);
    EXPECT_TRUE(rec.whatWouldChange[0].startsWith(QStringLiteral("NVFP4's decode rate"))); // failed first
    EXPECT_TRUE(
        rec.whatWouldChange[1].startsWith(QStringLiteral("No answer of NVFP4 was judged for tool_call")));
    EXPECT_EQ(rec.criteria[4].outcome, Outcome::Inconclusive);
}

TEST(RecommendDecision, OpenCriteriaWithoutFailuresAreInconclusive)
{
    json criteria = voiceLike;
    criteria.push_back(
        {{"id", "tools"}, {"title", "Tool calls"}, {"gate", "tool_call"}, {"min_pass_rate", 0.6}});
    const RunResult r = run(ArmSpec {}, goodCandidate());
    const Recommendation rec = recommend(r, evaluation(r), profile(criteria)).at(0);
    EXPECT_EQ(rec.decision, Decision::Inconclusive);
    EXPECT_EQ(rec.headline,
        QStringLiteral(
            "No recommendation between Q4_K_M and NVFP4 yet: NVFP4 passes every criterion that could be "
            "judged, but 1 of 5 criteria could not be decided (Tool calls)"));
}

TEST(RecommendDecision, ACriticalGuardrailBlocksTheSwitch)
{
    const RunResult r = run(ArmSpec {}, goodCandidate());
    Evaluation ev = evaluation(r);
    Guardrail warning = critical({0, 1});
    warning.severity = Guardrail::Severity::Warning;
    ev.guardrails = {warning};
    EXPECT_EQ(recommend(r, ev, profile(voiceLike)).at(0).decision, Decision::Switch); // a warning does not

    ev.guardrails = {critical({0, 1})};
    const Recommendation rec = recommend(r, ev, profile(voiceLike)).at(0);
    EXPECT_EQ(rec.decision, Decision::Inconclusive);
    EXPECT_TRUE(rec.headline.endsWith(QStringLiteral(
        "but the comparison is not fair: The arms run different models, not just different quantizations")))
        << rec.headline.toStdString();
    EXPECT_EQ(rec.caveats,
        QStringList {QStringLiteral(
            "The arms run different models, not just different quantizations: base only in NVFP4")});
    ASSERT_EQ(rec.whatWouldChange.size(), 1);
    EXPECT_TRUE(
        rec.whatWouldChange[0].startsWith(QStringLiteral("Serve the same fine-tune in both quantizations")));
    EXPECT_TRUE(rec.whatWouldChange[0].contains(QStringLiteral("base only in NVFP4")));

    // A guardrail about the baseline alone counts too; one about another pair does not.
    ev.guardrails = {critical({0})};
    EXPECT_EQ(recommend(r, ev, profile(voiceLike)).at(0).decision, Decision::Inconclusive);
}

TEST(RecommendDecision, EachCandidateIsJudgedOnItsOwnGuardrailsAndBaseline)
{
    // Endpoints 1 and 2 behave alike; a critical guardrail names the pair (0, 2) only.
    const RunResult r = run(ArmSpec {}, goodCandidate(), 10, {QStringLiteral("a"), QStringLiteral("b")},
        {QStringLiteral("NVFP4 base")});
    Evaluation ev = evaluation(r);
    ev.guardrails = {critical({0, 2})};
    const auto recs = recommend(r, ev, profile(voiceLike));
    ASSERT_EQ(recs.size(), 2u);
    EXPECT_EQ(recs[0].candidateLabel, QStringLiteral("NVFP4"));
    EXPECT_EQ(recs[0].decision, Decision::Switch);
    EXPECT_EQ(recs[1].candidateLabel, QStringLiteral("NVFP4 base"));
    EXPECT_EQ(recs[1].decision, Decision::Inconclusive);
    EXPECT_EQ(recs[1].caveats.size(), 1);

    // Another baseline: every other endpoint is a candidate, judged against it.
    const Evaluation ev1 = evaluation(r, true, 1);
    const auto from1 = recommend(r, ev1, profile(voiceLike));
    ASSERT_EQ(from1.size(), 2u);
    EXPECT_EQ(from1[0].baseline, 1);
    EXPECT_EQ(from1[0].candidate, 0);
    EXPECT_EQ(from1[0].decision, Decision::KeepBaseline); // Q4_K_M's 300 ms fails the 120 ms limit
    EXPECT_EQ(from1[1].candidate, 2);
}

TEST(RecommendDecision, JsonCarriesEverything)
{
    ArmSpec cand = goodCandidate();
    cand.decodeTps = 20;
    const RunResult r = run(ArmSpec {}, cand);
    const Recommendation rec = recommend(r, evaluation(r), profile(voiceLike)).at(0);
    const json j = toJson(rec);
    EXPECT_EQ(j.at("decision"), "keep_baseline");
    EXPECT_EQ(j.at("baseline_label"), "Q4_K_M");
    EXPECT_EQ(j.at("candidate_label"), "NVFP4");
    EXPECT_EQ(j.at("headline"), rec.headline.toStdString());
    ASSERT_EQ(j.at("criteria").size(), 4u);
    const json& decode = j.at("criteria").at(2);
    EXPECT_EQ(decode.at("id"), "decode");
    EXPECT_EQ(decode.at("kind"), "metric_min");
    EXPECT_EQ(decode.at("outcome"), "fail");
    EXPECT_EQ(decode.at("measured"), "p50 20.0 tok/s (n = 20)");
    EXPECT_EQ(decode.at("required"), "≥ 25 tok/s (p50)");
    EXPECT_EQ(j.at("what_would_change").size(), 1u);
    EXPECT_TRUE(j.at("caveats").empty());
    EXPECT_EQ(outcomeId(Outcome::Inconclusive), QStringLiteral("inconclusive"));
    EXPECT_EQ(decisionId(Decision::Switch), QStringLiteral("switch"));
}
