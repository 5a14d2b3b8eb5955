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

/// `n` distinct prompts (tests) "p1", "p2"…
QStringList prompts(int n)
{
    QStringList out;
    for (int i = 1; i <= n; ++i)
        out << QStringLiteral("p%1").arg(i);
    return out;
}

/// Two arms ("Q4_K_M" baseline, "NVFP4" candidate), `runs` measured runs of each test. By default
/// 8 distinct prompts, 3 runs each: the prompt is the unit of evidence, the runs steady the clock.
RunResult run(const ArmSpec& base, const ArmSpec& cand, int runs = 3, const QStringList& tests = prompts(8),
    const QStringList& extra = {})
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
    EXPECT_EQ(pass.measured, QStringLiteral("0 of 24 answers leaked thinking into the answer"));
    EXPECT_EQ(pass.required, QStringLiteral("none"));

    const Recommendation rec = recommendOne(run(clean, leaky), json::array({leaks}));
    const CriterionResult& fail = rec.criteria.at(0);
    EXPECT_EQ(fail.outcome, Outcome::Fail);
    EXPECT_EQ(fail.measured, QStringLiteral("3 of 24 answers leaked thinking into the answer"));
    EXPECT_EQ(fail.explanation,
        QStringLiteral(
            "NVFP4: 3 of 24 answers leaked thinking into the answer (over the limit: none is allowed)."));
    EXPECT_EQ(fail.pBeyond, 0) << "an observed leak is certain, not an estimate";
    ASSERT_EQ(rec.whatWouldChange.size(), 1);
    EXPECT_TRUE(rec.whatWouldChange[0].startsWith(QStringLiteral("NVFP4: 3 of 24 answers leaked thinking")));
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

TEST(RecommendGateThreshold, MinPassRateIsJudgedOnItsIntervalOverPrompts)
{
    // 20 distinct prompts, one run each: the rate is over prompts, with the exact binomial interval.
    const json tools = {{"gate", "tool_call"}, {"min_pass_rate", 0.6}};
    ArmSpec base;
    base.gates = gate("tool_call", 0);
    ArmSpec most;
    most.gates = gate("tool_call", 2); // 18 of 20: [68 %, 99 %], clear of 60 %
    ArmSpec some;
    some.gates = gate("tool_call", 8); // 12 of 20 = 60 %: [36 %, 81 %], straddles it
    ArmSpec few;
    few.gates = gate("tool_call", 15); // 5 of 20: [9 %, 49 %], below it

    const CriterionResult pass = single(run(base, most, 1, prompts(20)), tools);
    EXPECT_EQ(pass.outcome, Outcome::Pass);
    EXPECT_TRUE(
        pass.measured.startsWith(QStringLiteral("18 of 20 answers passed; 90 % over 20 distinct prompts")))
        << pass.measured.toStdString();
    EXPECT_EQ(pass.required, QStringLiteral("≥ 60 % passed (12 of 20)"));
    ASSERT_TRUE(pass.interval);
    EXPECT_NEAR(pass.interval->lo, 0.683, 0.001);

    const CriterionResult at = single(run(base, some, 1, prompts(20)), tools);
    EXPECT_EQ(at.outcome, Outcome::Inconclusive) << "exactly 60 % of 20 proves nothing about 60 %";
    EXPECT_TRUE(at.explanation.contains(QStringLiteral("straddles"))) << at.explanation.toStdString();

    const Recommendation rec = recommendOne(run(base, few, 1, prompts(20)), json::array({tools}));
    EXPECT_EQ(rec.criteria[0].outcome, Outcome::Fail);
    EXPECT_TRUE(
        rec.whatWouldChange.at(0).contains(QStringLiteral("--enable-auto-tool-choice --tool-call-parser")));

    // 1 of 1 is not "at least 60 %".
    EXPECT_EQ(single(run(base, base, 1, prompts(1)), tools).outcome, Outcome::Inconclusive);
}

TEST(RecommendGateThreshold, TestFilterCountsOnlyThatTest)
{
    // Failures only in test "p1" (its requests are i = 0..2).
    ArmSpec base;
    base.gates = gate("no_markdown", 0);
    ArmSpec cand;
    cand.gates = gate("no_markdown", 2);
    const RunResult r = run(base, cand);
    const CriterionResult inA = single(r, {{"gate", "no_markdown"}, {"max_failures", 0}, {"test", "p1"}});
    EXPECT_EQ(inA.outcome, Outcome::Fail);
    EXPECT_EQ(inA.measured, QStringLiteral("2 of 3 answers contained markdown"));
    EXPECT_EQ(
        single(r, {{"gate", "no_markdown"}, {"max_failures", 0}, {"test", "p2"}}).outcome, Outcome::Pass);

    const CriterionResult missing
        = single(r, {{"gate", "no_markdown"}, {"max_failures", 0}, {"test", "zzz"}});
    EXPECT_EQ(missing.outcome, Outcome::Inconclusive);
    EXPECT_EQ(missing.measured, QStringLiteral("no such test"));
}

// ---- metric thresholds ------------------------------------------------------------------------

TEST(RecommendMetricThreshold, MaxAndMinAgainstTheStatisticsInterval)
{
    ArmSpec base;
    ArmSpec fast;
    fast.ttftMs = 90;
    fast.decodeTps = 20;
    const RunResult r = run(base, fast);

    const CriterionResult ttft = single(r, {{"metric", "ttft_visible_ms"}, {"max", 120}});
    EXPECT_EQ(ttft.outcome, Outcome::Pass);
    EXPECT_TRUE(ttft.measured.startsWith(QStringLiteral("p50 90.0 ms (n = 24 over 8 distinct prompts) [")))
        << ttft.measured.toStdString();
    EXPECT_EQ(ttft.required, QStringLiteral("≤ 120 ms (p50)"));
    EXPECT_EQ(single(r, {{"metric", "ttft_visible_ms"}, {"max", 91}}).outcome, Outcome::Pass);

    // 24 values cannot estimate a p99 (its "p99" is about the maximum): open, not a fail.
    const CriterionResult p99 = single(r, {{"metric", "ttft_visible_ms"}, {"max", 91}, {"statistic", "p99"}});
    EXPECT_EQ(p99.outcome, Outcome::Inconclusive);
    EXPECT_TRUE(p99.explanation.contains(QStringLiteral("24 values cannot estimate a p99")))
        << p99.explanation.toStdString();

    const Recommendation rec = recommendOne(r, json::array({{{"metric", "decode_tps"}, {"min", 25}}}));
    EXPECT_EQ(rec.criteria[0].outcome, Outcome::Fail);
    EXPECT_TRUE(rec.criteria[0].measured.startsWith(
        QStringLiteral("p50 20.2 tok/s (n = 24 over 8 distinct prompts)")))
        << rec.criteria[0].measured.toStdString();
    ASSERT_EQ(rec.whatWouldChange.size(), 1);
    EXPECT_TRUE(rec.whatWouldChange[0].startsWith(
        QStringLiteral("NVFP4's decode rate p50 is 20.2 tok/s and must be ≥ 25 tok/s")))
        << rec.whatWouldChange[0].toStdString();
    EXPECT_TRUE(rec.whatWouldChange[0].contains(QStringLiteral("enable CUDA graphs")));

    ArmSpec slow;
    slow.ttftMs = 310;
    const Recommendation late
        = recommendOne(run(base, slow), json::array({{{"metric", "ttft_visible_ms"}, {"max", 120}}}));
    EXPECT_TRUE(late.whatWouldChange.at(0).startsWith(
        QStringLiteral("NVFP4's TTFT (visible) p50 is 310 ms and must be ≤ 120 ms (190 ms less)")))
        << late.whatWouldChange.at(0).toStdString();

    // One prompt: its repeats say how steady it is, not what the endpoint does on prompts.
    EXPECT_EQ(single(run(base, fast, 10, prompts(1)), {{"metric", "ttft_visible_ms"}, {"max", 120}}).outcome,
        Outcome::Inconclusive);
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

TEST(RecommendNotWorse, MetricAgainstTheMargin)
{
    const json ttft = {{"metric", "ttft_visible_ms"}, {"not_worse_than_baseline", true}};
    ArmSpec base;
    ArmSpec slower;
    slower.ttftMs = 450;
    ArmSpec faster;
    faster.ttftMs = 95;
    ArmSpec same; // identical values

    const Recommendation worse = recommendOne(run(base, slower), json::array({ttft}));
    EXPECT_EQ(worse.criteria[0].outcome, Outcome::Fail);
    EXPECT_EQ(worse.criteria[0].required, QStringLiteral("≤ 1.10× the baseline's"));
    EXPECT_TRUE(worse.criteria[0].measured.startsWith(QStringLiteral("median 450 vs 300 ms, ratio 1.5")))
        << worse.criteria[0].measured.toStdString();
    EXPECT_TRUE(worse.criteria[0].measured.endsWith(QStringLiteral(", 8 distinct prompts")));
    EXPECT_EQ(worse.criteria[0].prompts, 8);
    EXPECT_TRUE(worse.whatWouldChange.at(0).startsWith(QStringLiteral(
        "NVFP4's TTFT (visible) is slower than Q4_K_M's beyond the margin (median 450 vs 300 ms")))
        << worse.whatWouldChange.at(0).toStdString();

    const CriterionResult better = single(run(base, faster), ttft);
    EXPECT_EQ(better.outcome, Outcome::Pass);
    EXPECT_TRUE(
        better.explanation.contains(QStringLiteral("even the interval's worse end is within the margin")))
        << better.explanation.toStdString();
    EXPECT_EQ(single(run(base, same), ttft).outcome, Outcome::Pass);

    // A candidate 8 % slower on every prompt is within a 10 % margin; with a 5 % one it fails.
    ArmSpec slightly;
    slightly.ttftMs = 324;
    EXPECT_EQ(single(run(base, slightly), ttft).outcome, Outcome::Pass);
    json tight = ttft;
    tight["margin"] = 1.05;
    EXPECT_EQ(single(run(base, slightly), tight).outcome, Outcome::Fail);

    // Decode: higher is better, so a lower rate is worse.
    ArmSpec slowDecode;
    slowDecode.decodeTps = 20;
    EXPECT_EQ(
        single(run(base, slowDecode), {{"metric", "decode_tps"}, {"not_worse_than_baseline", true}}).outcome,
        Outcome::Fail);
}

TEST(RecommendNotWorse, TooFewPromptsAndNoComparisonAreInconclusive)
{
    const json ttft = {{"metric", "ttft_visible_ms"}, {"not_worse_than_baseline", true}};
    ArmSpec base;
    ArmSpec slower;
    slower.ttftMs = 450;
    // Four distinct prompts, however often repeated: fewer than the 6 an interval over prompts needs.
    const Recommendation few = recommendOne(run(base, slower, 10, prompts(4)), json::array({ttft}));
    EXPECT_EQ(few.criteria[0].outcome, Outcome::Inconclusive);
    EXPECT_EQ(few.decision, Decision::Inconclusive);
    EXPECT_TRUE(few.whatWouldChange.at(0).startsWith(
        QStringLiteral("Only 4 distinct prompts compare ttft_visible_ms of NVFP4 and Q4_K_M, fewer than 6")))
        << few.whatWouldChange.at(0).toStdString();

    const CriterionResult skipped = single(run(base, slower), ttft, false);
    EXPECT_EQ(skipped.outcome, Outcome::Inconclusive);
    EXPECT_EQ(skipped.measured, QStringLiteral("not compared"));
}

TEST(RecommendNotWorse, OnePromptDecidesNothing)
{
    // One test is one prompt: its ten repeats measure the clock, not the endpoints.
    ArmSpec base;
    ArmSpec slower;
    slower.ttftMs = 450;
    const RunResult r = run(base, slower, 10, {QStringLiteral("only")});
    for (const json& c : {json {{"metric", "ttft_visible_ms"}, {"not_worse_than_baseline", true}},
             json {{"metric", "ttft_visible_ms"}, {"not_worse_than_baseline", true}, {"test", "only"}}}) {
        const CriterionResult one = single(r, c);
        EXPECT_EQ(one.outcome, Outcome::Inconclusive);
        EXPECT_TRUE(one.explanation.contains(QStringLiteral("rests on one prompt")))
            << one.explanation.toStdString();
    }
}

TEST(RecommendNotWorse, GateAgainstTheMarginOverPrompts)
{
    const json answers = {{"gate", "expected_answer"}, {"not_worse_than_baseline", true}};
    ArmSpec base;
    base.gates = gate("expected_answer", 0);
    ArmSpec wrong;
    wrong.gates = gate("expected_answer", 24);
    ArmSpec right = base;

    const Recommendation rec = recommendOne(run(base, wrong), json::array({answers}));
    EXPECT_EQ(rec.criteria[0].outcome, Outcome::Fail);
    ASSERT_EQ(rec.whatWouldChange.size(), 1);
    EXPECT_TRUE(rec.whatWouldChange[0].contains(
        QStringLiteral("; 24 of 24 of its answers missed the expected answer: check the model")))
        << rec.whatWouldChange[0].toStdString();
    EXPECT_TRUE(rec.criteria[0].measured.startsWith(QStringLiteral(
        "0/24 vs 24/24 of requests passed; over 8 distinct prompts 0 % vs 100 %, difference -100 %")))
        << rec.criteria[0].measured.toStdString();
    EXPECT_EQ(rec.decision, Decision::KeepBaseline);

    // Both perfect on 8 prompts: Newcombe's interval still reaches 32 points down, so a 5-point
    // margin cannot be shown (about 73 perfect prompts can); 80 prompts show it.
    const CriterionResult eight = single(run(base, right), answers);
    EXPECT_EQ(eight.outcome, Outcome::Inconclusive);
    EXPECT_TRUE(eight.explanation.contains(QStringLiteral("straddles the margin")))
        << eight.explanation.toStdString();
    const CriterionResult eighty = single(run(base, right, 1, prompts(80)), answers);
    EXPECT_EQ(eighty.outcome, Outcome::Pass) << eighty.explanation.toStdString();
    json wide = answers;
    wide["margin"] = 0.35;
    EXPECT_EQ(single(run(base, right), wide).outcome, Outcome::Pass);

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
    // 8 prompts can show a 35-point margin on a gate, not a 5-point one (RecommendNotWorse above).
    {{"id", "coherent"}, {"title", "Coherent"}, {"gate", "coherent"}, {"not_worse_than_baseline", true},
        {"margin", 0.35}},
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
    const RunResult r = run(ArmSpec {}, goodCandidate(), 3, prompts(8), {QStringLiteral("NVFP4 base")});
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
    EXPECT_TRUE(decode.at("measured")
                    .get<std::string>()
                    .starts_with("p50 20.2 tok/s (n = 24 over 8 distinct prompts)"))
        << decode.at("measured");
    EXPECT_EQ(decode.at("prompts"), 8);
    EXPECT_LT(decode.at("interval").at("high").get<double>(), 25);
    EXPECT_EQ(decode.at("limit"), 25);
    EXPECT_EQ(decode.at("worse_side"), "below");
    EXPECT_TRUE(j.at("error_rates").get<std::string>().find("at most 5 % of the time") != std::string::npos);
    EXPECT_EQ(decode.at("required"), "≥ 25 tok/s (p50)");
    EXPECT_EQ(j.at("what_would_change").size(), 1u);
    EXPECT_TRUE(j.at("caveats").empty());
    EXPECT_EQ(outcomeId(Outcome::Inconclusive), QStringLiteral("inconclusive"));
    EXPECT_EQ(decisionId(Decision::Switch), QStringLiteral("switch"));
}
