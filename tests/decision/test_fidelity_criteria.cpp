// SPDX-License-Identifier: MIT
// Fidelity criteria (issue #13): the profile forms on next-token drift from the reference — the
// flip rate, the mean KL, and the KL not worse than the baseline's — with clear errors, and judging
// them from Evaluation::fidelity (filled by hand here: the figures are the evaluate stage's job).
// No fidelity test, or a KL that is not comparable across tokenizers, is "not measured" (optional)
// or inconclusive, never a silent pass.
#include "model/decide/Recommendation.h"
#include "tests/decision/CriterionTestSupport.h"
#include "tests/decision/FidelityTestSupport.h"
#include "tests/stats/StatsTestSupport.h"

#include <gtest/gtest.h>

using namespace qs;
using namespace qs::test;
using json = nlohmann::json;
using Outcome = CriterionResult::Outcome;
using Decision = Recommendation::Decision;

namespace {

/// Q4_K_M (0, the baseline), NVFP4 (1) and BF16 (2), 10 measured requests each of test "fid".
RunResult threeArms()
{
    RunResult r = makeRun({QStringLiteral("Q4_K_M"), QStringLiteral("NVFP4"), QStringLiteral("BF16")});
    for (int e = 0; e < 3; ++e)
        for (int prompt = 1; prompt <= 8; ++prompt) // distinct prompts: the unit of evidence
            for (int it = 1; it <= 3; ++it) {
                Req q;
                q.endpoint = e;
                q.test = QStringLiteral("fid-%1").arg(prompt);
                q.iteration = it;
                r.records.push_back(record(q));
            }
    return r;
}

/// Fidelity against BF16 (2): the baseline flips 4 of 40 prompts at KL 0.02, NVFP4 `flips` of 40
/// at `kl` (nullopt: not comparable).
Fidelity againstBf16(int flips, std::optional<double> kl, std::optional<double> baselineKl = 0.02)
{
    Fidelity f;
    f.reference = 2;
    f.referenceMarked = true;
    f.referenceLabel = QStringLiteral("BF16");
    f.arms = {fidelityArm(0, QStringLiteral("Q4_K_M"), 2, f.referenceLabel, 40, 36, baselineKl),
        fidelityArm(1, QStringLiteral("NVFP4"), 2, f.referenceLabel, 40, 40 - flips, kl)};
    f.baseline = 0;
    if (kl && baselineKl) {
        // The paired ratio over the same 40 prompts and positions (pairedKlRatio's job), ±10 %.
        FidelityKlRatio paired;
        paired.baseline = 0;
        paired.candidate = 1;
        paired.prompts = 40;
        paired.answers = 40;
        paired.positions = 400;
        paired.baselineKl = baselineKl;
        paired.candidateKl = kl;
        paired.ratio = *kl / *baselineKl;
        paired.ratioCi = Interval {*paired.ratio * 0.9, *paired.ratio * 1.1};
        f.arms[1].klVsBaseline = paired;
    }
    return f;
}

/// Fidelity against the baseline (no reference marked): NVFP4 flips `flips` of 40 at KL 0.03.
Fidelity againstBaseline(int flips)
{
    Fidelity f;
    f.reference = 0;
    f.referenceLabel = QStringLiteral("Q4_K_M");
    f.arms = {fidelityArm(1, QStringLiteral("NVFP4"), 0, f.referenceLabel, 40, 40 - flips, 0.03),
        fidelityArm(2, QStringLiteral("BF16"), 0, f.referenceLabel, 40, 38, 0.01)};
    return f;
}

/// The recommendations for every candidate (NVFP4, then BF16), the baseline Q4_K_M.
std::vector<Recommendation> decide(const Fidelity& fidelity, const json& criteria)
{
    const RunResult r = threeArms();
    Evaluation ev = evaluate(r, 0);
    ev.guardrails.clear();
    ev.fidelity = fidelity;
    return recommend(r, ev, profile(criteria));
}

/// NVFP4's verdict on its only criterion.
CriterionResult nvfp4(const Fidelity& fidelity, const json& criterion)
{
    return decide(fidelity, json::array({criterion})).at(0).criteria.at(0);
}

json flipMax(double max, bool optional = false)
{
    json c = {{"fidelity", "flip_rate"}, {"max", max}};
    if (optional)
        c["optional"] = true;
    return c;
}

json klMax(double max, bool optional = false)
{
    json c = {{"fidelity", "kl"}, {"max", max}};
    if (optional)
        c["optional"] = true;
    return c;
}

json klNotWorse(double tolerance, bool optional = false)
{
    json c = {{"fidelity", "kl"}, {"not_worse_than_baseline", true}, {"tolerance", tolerance}};
    if (optional)
        c["optional"] = true;
    return c;
}

json withId(json c, const char* id)
{
    c["id"] = id;
    return c;
}

} // namespace

// ---- the profile forms ------------------------------------------------------------------------

TEST(FidelityCriteriaParse, FormsAndDefaults)
{
    const DecisionProfile p = profile(json::array({flipMax(0.25, true), klMax(0.05),
        {{"fidelity", "kl"}, {"not_worse_than_baseline", true}}, withId(klNotWorse(0.1, true), "kl_10")}));
    ASSERT_EQ(p.criteria.size(), 4u);
    const Criterion& flips = p.criteria[0];
    EXPECT_EQ(flips.kind, Criterion::Kind::FidelityFlipRateMax);
    EXPECT_TRUE(isFidelityCriterion(flips));
    EXPECT_FALSE(isGateCriterion(flips));
    EXPECT_FALSE(isResourceCriterion(flips));
    EXPECT_FALSE(isJudgeCriterion(flips));
    EXPECT_DOUBLE_EQ(flips.threshold, 0.25);
    EXPECT_TRUE(flips.optional);
    EXPECT_EQ(flips.id, QStringLiteral("fidelity_flip_rate_max"));
    EXPECT_EQ(flips.title, QStringLiteral("flip rate vs the reference ≤ 25 %"));
    const Criterion& kl = p.criteria[1];
    EXPECT_EQ(kl.kind, Criterion::Kind::FidelityKlMax);
    EXPECT_EQ(kl.id, QStringLiteral("fidelity_kl_max"));
    EXPECT_EQ(kl.title, QStringLiteral("mean KL from the reference ≤ 0.05 nats"));
    EXPECT_FALSE(kl.optional);
    const Criterion& notWorse = p.criteria[2];
    EXPECT_EQ(notWorse.kind, Criterion::Kind::FidelityKlNotWorse);
    EXPECT_EQ(notWorse.id, QStringLiteral("fidelity_kl_not_worse_than_baseline"));
    EXPECT_DOUBLE_EQ(marginOf(notWorse), 1.10); // the default margin
    EXPECT_EQ(
        notWorse.title, QStringLiteral("mean KL from the reference not worse than the baseline's (≤ +10 %)"));
    EXPECT_DOUBLE_EQ(p.criteria[3].tolerance, 0.1);
    EXPECT_DOUBLE_EQ(marginOf(p.criteria[3]), 1.1);

    EXPECT_EQ(criterionKindId(flips.kind), QStringLiteral("fidelity_flip_rate_max"));
    EXPECT_EQ(criterionKindId(kl.kind), QStringLiteral("fidelity_kl_max"));
    EXPECT_EQ(criterionKindId(notWorse.kind), QStringLiteral("fidelity_kl_not_worse"));
    const json j = toJson(flips);
    EXPECT_EQ(j.at("kind"), "fidelity_flip_rate_max");
    EXPECT_EQ(j.at("fidelity"), "flip_rate");
    EXPECT_DOUBLE_EQ(j.at("max").get<double>(), 0.25);
    EXPECT_EQ(j.at("optional"), true);
    EXPECT_FALSE(j.contains("metric"));
    const json nj = toJson(p.criteria[3]);
    EXPECT_EQ(nj.at("fidelity"), "kl");
    EXPECT_EQ(nj.at("not_worse_than_baseline"), true);
    EXPECT_DOUBLE_EQ(nj.at("margin").get<double>(), 1.1);
    // The JSON form reads back as the same criterion.
    for (const json& written : {j, toJson(kl), nj})
        EXPECT_EQ(readAndWrittenAgain(asWritten(written)), asWritten(written));
}

TEST(FidelityCriteriaParse, ErrorsSayWhatToDo)
{
    const std::vector<std::pair<json, std::string>> cases = {
        {{{"fidelity", "flip_rates"}, {"max", 0.2}},
            "profile.json: criteria[0].fidelity: unknown fidelity measure \"flip_rates\"; did you mean "
            "\"flip_rate\"?"},
        {{{"fidelity", "flip_rate"}},
            "profile.json: criteria[0]: a flip-rate criterion needs \"max\": the largest share of prompts "
            "whose answer may differ from the reference's, e.g. 0.25"},
        {flipMax(20),
            "profile.json: criteria[0].max: is a fraction from 0 to 1, found 20; write 0.2 for 20 %"},
        {flipMax(-0.1),
            "profile.json: criteria[0].max: must be a fraction from 0 to 1 (0.25 for \"a quarter of the "
            "prompts\"), found a number (-0.1)"},
        {{{"fidelity", "flip_rate"}, {"not_worse_than_baseline", true}},
            "profile.json: criteria[0].not_worse_than_baseline: applies to \"fidelity\": \"kl\"; "
            "\"flip_rate\" takes \"max\" (a share of prompts, 0.25 for 25 %)"},
        {{{"fidelity", "flip_rate"}, {"max", 0.2}, {"tolerance", 0.1}},
            "profile.json: criteria[0].tolerance: applies to \"not_worse_than_baseline\"; a \"max\" is a "
            "hard limit"},
        {{{"fidelity", "kl"}},
            "profile.json: criteria[0]: a KL criterion needs one of \"max\", \"not_worse_than_baseline\""},
        {{{"fidelity", "kl"}, {"max", 0.1}, {"not_worse_than_baseline", true}},
            "profile.json: criteria[0]: a KL criterion takes exactly one of \"max\", "
            "\"not_worse_than_baseline\", found max and not_worse_than_baseline; split it into two criteria"},
        {klMax(-0.5),
            "profile.json: criteria[0].max: must not be negative (a KL divergence in nats, e.g. 0.05), found "
            "a number (-0.5)"},
        {{{"fidelity", "kl"}, {"not_worse_than_baseline", false}},
            "profile.json: criteria[0].not_worse_than_baseline: is false; remove the criterion instead (a "
            "profile lists only what it requires)"},
        {klNotWorse(10), "profile.json: criteria[0].tolerance: is a fraction, found 10; write 0.1 for 10 %"},
        {{{"fidelity", "kl"}, {"max", 0.1}, {"test", "fid"}},
            "profile.json: criteria[0].test: does not apply to a fidelity criterion: it pools every fidelity "
            "prompt; remove \"test\""},
        {{{"fidelity", "kl"}, {"min", 0.1}},
            "profile.json: criteria[0].min: does not apply to a fidelity criterion; \"flip_rate\" takes "
            "\"max\", \"kl\" takes \"max\" or \"not_worse_than_baseline\""},
        {{{"fidelity", "kl"}, {"max", 0.1}, {"unit", "nats"}},
            "profile.json: criteria[0].unit: applies to a \"resource\" criterion only"},
        {{{"fidelity", "kl"}, {"max", 0.1}, {"min_median", 4}},
            "profile.json: criteria[0].min_median: applies to a \"judge\": \"rubric\" criterion only"},
        {{{"fidelity", "kl"}, {"gate", "coherent"}, {"max", 0.1}},
            "profile.json: criteria[0]: a criterion takes exactly one of \"gate\", \"metric\", \"resource\", "
            "\"judge\", \"fidelity\", \"verbosity\", found gate and fidelity; split it into two criteria"},
        {{{"fidelity", "kl"}, {"max", 0.1}, {"optional", "yes"}},
            "profile.json: criteria[0].optional: must be true or false, found a string (\"yes\")"},
    };
    for (const auto& [criterion, expected] : cases)
        EXPECT_EQ(parseError(criterion), expected) << criterion.dump();
}

// ---- flip rate ----------------------------------------------------------------------------------

TEST(FidelityCriteriaFlipRate, WithinOverOrOpenOnTheIntervalOverPrompts)
{
    // 2 of 40 distinct prompts differ: [1 %, 17 %], clear of 25 %.
    const CriterionResult within = nvfp4(againstBf16(2, 0.03), flipMax(0.25));
    EXPECT_EQ(within.outcome, Outcome::Pass) << within.explanation.toStdString();
    EXPECT_EQ(within.required, QStringLiteral("≤ 25 % of prompts differ from BF16"));
    EXPECT_TRUE(within.measured.contains(QStringLiteral("over 40 distinct prompts 5 %")))
        << within.measured.toStdString();
    EXPECT_TRUE(within.explanation.contains(QStringLiteral("within the limit of 25 %")))
        << within.explanation.toStdString();

    // 6 of 40 (15 %, interval 6 %–30 %) cannot be placed on either side of 25 %: open.
    const CriterionResult open = nvfp4(againstBf16(6, 0.03), flipMax(0.25));
    EXPECT_EQ(open.outcome, Outcome::Inconclusive);
    EXPECT_TRUE(open.explanation.contains(QStringLiteral("straddles the limit of 25 %")))
        << open.explanation.toStdString();

    // 12 of 40 (30 %, interval 17 %–47 %) is over 10 % for sure: a failure that keeps the baseline.
    const auto recs = decide(againstBf16(12, 0.03), json::array({flipMax(0.1)}));
    const Recommendation& r = recs.at(0);
    EXPECT_EQ(r.criteria.at(0).outcome, Outcome::Fail) << r.criteria.at(0).explanation.toStdString();
    EXPECT_EQ(r.decision, Decision::KeepBaseline);
    ASSERT_EQ(r.whatWouldChange.size(), 1);
    EXPECT_TRUE(r.whatWouldChange[0].startsWith(
        QStringLiteral("NVFP4 answers 12 of 40 fidelity prompts differently from the reference BF16 (flip "
                       "rate 30 %, at most 10 % "
                       "allowed)")))
        << r.whatWouldChange[0].toStdString();
}

TEST(FidelityCriteriaFlipRate, TheReferenceItselfPasses)
{
    // BF16 is a candidate too (the baseline is Q4_K_M): it is what the others are compared with.
    const auto recs = decide(againstBf16(6, 0.03), json::array({flipMax(0.1), klMax(0.01), klNotWorse(0)}));
    ASSERT_EQ(recs.size(), 2u);
    const Recommendation& bf16 = recs.at(1);
    EXPECT_EQ(bf16.candidateLabel, QStringLiteral("BF16"));
    for (const CriterionResult& c : bf16.criteria) {
        EXPECT_EQ(c.outcome, Outcome::Pass) << c.criterion.id.toStdString();
        EXPECT_EQ(c.measured, QStringLiteral("the reference"));
        EXPECT_EQ(c.explanation,
            QStringLiteral("BF16 is the fidelity reference: the other arms are compared with it, and it does "
                           "not drift from itself."));
    }
    EXPECT_EQ(bf16.decision, Decision::Switch);
}

TEST(FidelityCriteriaFlipRate, NotMeasuredIsNeverASilentPass)
{
    const Fidelity nothing;
    ASSERT_FALSE(nothing.measured());
    // Optional: not measured, the decision is made without it, the headline names it, and the
    // criteria share one sentence of what would change it.
    const Recommendation r = decide(nothing,
        json::array({flipMax(0.25, true), klNotWorse(0.1, true),
            {{"metric", "ttft_visible_ms"},
                {"max", 200}}})).at(0);
    EXPECT_EQ(r.criteria.at(0).outcome, Outcome::NotMeasured) << toJson(r).dump(1);
    EXPECT_EQ(r.criteria.at(1).outcome, Outcome::NotMeasured);
    EXPECT_EQ(r.criteria.at(0).measured, QStringLiteral("not measured"));
    EXPECT_EQ(r.criteria.at(0).explanation,
        QStringLiteral("The run has no fidelity test: no arm's greedy answers were compared token by token "
                       "with a reference's. The criterion is optional, so it decides nothing, but it was not "
                       "checked either."));
    EXPECT_EQ(r.decision, Decision::Switch);
    EXPECT_EQ(r.headline,
        QStringLiteral(
            "Switch from Q4_K_M to NVFP4: it meets all 1 criteria that were measured; not measured: "
            "flip rate vs the reference ≤ 25 %, mean KL from the reference not worse than the "
            "baseline's (≤ +10 %)"));
    ASSERT_EQ(r.whatWouldChange.size(), 1);
    EXPECT_EQ(r.whatWouldChange[0],
        QStringLiteral("Fidelity was not measured: run the built-in fidelity suite (`quantscope run --suite "
                       "fidelity --endpoint … --reference NAME`, NAME the highest-precision endpoint, e.g. "
                       "BF16) or mark the suite's tests \"fidelity\": true, and decide again."));

    // Not optional: inconclusive, and the decision waits for it.
    const Recommendation open = decide(nothing, json::array({flipMax(0.25)})).at(0);
    EXPECT_EQ(open.criteria.at(0).outcome, Outcome::Inconclusive);
    EXPECT_EQ(open.decision, Decision::Inconclusive);

    // Measured, but not for this candidate: named, with why.
    Fidelity other = againstBf16(2, 0.03);
    other.arms.pop_back();
    const CriterionResult missing = nvfp4(other, flipMax(0.25, true));
    EXPECT_EQ(missing.outcome, Outcome::NotMeasured);
    EXPECT_EQ(missing.measured, QStringLiteral("not measured on NVFP4"));
    EXPECT_TRUE(missing.explanation.startsWith(
        QStringLiteral("NVFP4 has no fidelity figures: it answered no fidelity prompt that the reference "
                       "BF16 answered too.")))
        << missing.explanation.toStdString();
    // An arm the server could not serve says so in its own words.
    other.arms.push_back(fidelityArm(1, QStringLiteral("NVFP4"), 2, QStringLiteral("BF16"), 0, 0, {}));
    other.arms.back().support = QStringLiteral("no logprobs from this server (it ignores `logprobs`)");
    EXPECT_TRUE(
        nvfp4(other, flipMax(0.25))
            .explanation.startsWith(QStringLiteral(
                "NVFP4 has no fidelity figures: no logprobs from this server (it ignores `logprobs`).")));
}

// ---- KL ----------------------------------------------------------------------------------------

TEST(FidelityCriteriaKl, MaxWithinAndOver)
{
    const Fidelity f = againstBf16(6, 0.0312);
    const CriterionResult within = nvfp4(f, klMax(0.05));
    EXPECT_EQ(within.outcome, Outcome::Pass);
    EXPECT_EQ(within.required, QStringLiteral("≤ 0.05 nats"));
    EXPECT_EQ(within.measured, QStringLiteral("mean KL 0.0312 nats [0.025 – 0.039], p99 0.0624"));
    EXPECT_EQ(within.explanation,
        QStringLiteral(
            "NVFP4's next-token distributions are on average 0.0312 nats from the reference BF16's "
            "(KL over both top lists and a tail bucket, every compared token pooled), within the "
            "limit of 0.05 nats."));
    // Over a limit the whole interval clears: a failure; a limit inside the interval: open.
    const CriterionResult over = nvfp4(f, klMax(0.02));
    EXPECT_EQ(over.outcome, Outcome::Fail);
    EXPECT_TRUE(over.explanation.contains(QStringLiteral("over the limit of 0.02 nats")))
        << over.explanation.toStdString();
    const CriterionResult open = nvfp4(f, klMax(0.03));
    EXPECT_EQ(open.outcome, Outcome::Inconclusive);
    EXPECT_TRUE(open.explanation.contains(QStringLiteral("straddles the limit of 0.03 nats")))
        << open.explanation.toStdString();
    // A KL read from lists that held too little of the probability can fail, never pass.
    Fidelity low = f;
    low.arms[1].klLowerBound = true;
    low.arms[1].klLowerBoundNote = QStringLiteral("the top lists held 62 % of the probability: KL reads low");
    EXPECT_EQ(nvfp4(low, klMax(0.05)).outcome, Outcome::Inconclusive);
    EXPECT_EQ(nvfp4(low, klMax(0.02)).outcome, Outcome::Fail);

    // Tiny values are written without rounding to zero.
    EXPECT_EQ(nvfp4(againstBf16(0, 3.2e-5), klMax(0.05)).measured,
        QStringLiteral("mean KL 3.2e-05 nats [2.6e-05 – 4.0e-05], p99 6.4e-05"));
}

TEST(FidelityCriteriaKl, NotComparableIsNotMeasuredNeverAPass)
{
    // Tokenizers differ: the flip rate is measured (on characters), the KL is not.
    const Fidelity f = againstBf16(6, std::nullopt);
    const CriterionResult optional = nvfp4(f, klMax(0.05, true));
    EXPECT_EQ(optional.outcome, Outcome::NotMeasured);
    EXPECT_EQ(optional.measured, QStringLiteral("KL not comparable: tokenizers differ"));
    EXPECT_EQ(optional.explanation,
        QStringLiteral(
            "KL cannot be compared between NVFP4 and the reference BF16: tokenizers differ. The flip "
            "rate and the shared prefix are still measured, on characters. The criterion is "
            "optional, so it decides nothing, but it was not checked either."));
    EXPECT_EQ(nvfp4(f, klMax(0.05)).outcome, Outcome::Inconclusive);
    EXPECT_EQ(nvfp4(f, klNotWorse(0.1, true)).outcome, Outcome::NotMeasured);
    EXPECT_EQ(nvfp4(f, flipMax(0.5)).outcome, Outcome::Pass); // 6 of 40: [6 %, 30 %]

    // Some prompts comparable, some not: judged over the comparable ones, and said so.
    Fidelity partial = againstBf16(6, 0.03);
    partial.arms[1].klComparable = false;
    partial.arms[1].comparablePrompts = 30;
    const CriterionResult some = nvfp4(partial, klMax(0.05));
    EXPECT_EQ(some.outcome, Outcome::Pass);
    EXPECT_TRUE(some.measured.endsWith(QStringLiteral(" over 30 of 40 prompts (the rest not comparable)")))
        << some.measured.toStdString();
}

TEST(FidelityCriteriaKl, NotWorseThanTheBaselineIsPairedAgainstTheMargin)
{
    // The baseline is 0.02 nats from BF16 over the same 40 prompts; the paired ratio ±10 %.
    const CriterionResult within = nvfp4(againstBf16(6, 0.019), klNotWorse(0.1));
    EXPECT_EQ(within.outcome, Outcome::Pass) << within.explanation.toStdString();
    EXPECT_EQ(within.required, QStringLiteral("KL ≤ 1.10× the baseline's (from BF16)"));
    EXPECT_EQ(within.measured,
        QStringLiteral("0.019 vs 0.02 nats over the same 400 positions of 40 distinct prompts, ratio 0.95 "
                       "[0.855–1.04]"));
    const CriterionResult close = nvfp4(againstBf16(6, 0.021), klNotWorse(0.1));
    EXPECT_EQ(close.outcome, Outcome::Inconclusive) << "5 % more, ±10 %: the data cannot tell";
    const Recommendation worse = decide(againstBf16(6, 0.03), json::array({klNotWorse(0.1)})).at(0);
    EXPECT_EQ(worse.criteria.at(0).outcome, Outcome::Fail);
    EXPECT_TRUE(worse.whatWouldChange.at(0).startsWith(QStringLiteral(
        "NVFP4 drifts further from the reference BF16 than the baseline Q4_K_M does (0.03 vs 0.02 nats")))
        << worse.whatWouldChange.at(0).toStdString();

    // The baseline's KL not comparable: not measured, naming the baseline.
    const CriterionResult baseOpen = nvfp4(againstBf16(6, 0.021, std::nullopt), klNotWorse(0.1, true));
    EXPECT_EQ(baseOpen.outcome, Outcome::NotMeasured);
    EXPECT_TRUE(baseOpen.explanation.startsWith(
        QStringLiteral("KL cannot be compared between Q4_K_M and the reference BF16: tokenizers differ.")))
        << baseOpen.explanation.toStdString();
}

TEST(FidelityCriteriaKl, NotWorseNeedsAReferenceOtherThanTheBaseline)
{
    // No reference marked: fidelity is against the baseline, whose KL from itself is 0.
    const Fidelity f = againstBaseline(2);
    const CriterionResult r = nvfp4(f, klNotWorse(0.1, true));
    EXPECT_EQ(r.outcome, Outcome::NotMeasured);
    EXPECT_EQ(r.measured, QStringLiteral("the reference is the baseline"));
    EXPECT_EQ(r.explanation,
        QStringLiteral(
            "The fidelity reference is the baseline Q4_K_M itself, whose KL from itself is 0: there "
            "is nothing to compare with. The criterion is optional, so it decides nothing, but it "
            "was not checked either."));
    const Recommendation open = decide(f, json::array({klNotWorse(0.1)})).at(0);
    EXPECT_EQ(open.criteria.at(0).outcome, Outcome::Inconclusive);
    EXPECT_TRUE(open.whatWouldChange.at(0).contains(QStringLiteral("--reference NAME")));
    // The flip rate and the KL limit still work against the baseline.
    EXPECT_EQ(nvfp4(f, flipMax(0.25)).outcome, Outcome::Pass); // 2 of 40: [1 %, 17 %]
    EXPECT_EQ(nvfp4(f, klMax(0.05)).outcome, Outcome::Pass);
}

TEST(FidelityCriteria, NoNanOrInfInTheJson)
{
    Fidelity f = againstBf16(40, 0.0);
    f.arms[0].klMean = 0.0; // a baseline identical to the reference: a ratio of 0 / 0 is never written
    for (const Recommendation& r : decide(
             f, json::array({flipMax(0.25), klMax(0.05), klNotWorse(0.1), withId(klNotWorse(0), "kl_0")}))) {
        const std::string text = toJson(r).dump();
        for (const char* bad : {"nan", "inf", "NaN", "Infinity"})
            EXPECT_EQ(text.find(bad), std::string::npos) << bad << '\n' << text;
    }
}

TEST(FidelityCriteriaBuiltin, VoiceAssistantAsksForFidelityOptionally)
{
    const DecisionProfile p = loadDecisionProfile(QStringLiteral("voice-assistant"));
    std::vector<const Criterion*> fidelity;
    for (const Criterion& c : p.criteria)
        if (isFidelityCriterion(c))
            fidelity.push_back(&c);
    ASSERT_EQ(fidelity.size(), 2u);
    EXPECT_EQ(fidelity[0]->id, QStringLiteral("fidelity_flips"));
    EXPECT_EQ(fidelity[0]->kind, Criterion::Kind::FidelityFlipRateMax);
    EXPECT_DOUBLE_EQ(fidelity[0]->threshold, 0.25);
    EXPECT_EQ(fidelity[1]->id, QStringLiteral("fidelity_kl_not_worse"));
    EXPECT_EQ(fidelity[1]->kind, Criterion::Kind::FidelityKlNotWorse);
    EXPECT_DOUBLE_EQ(fidelity[1]->tolerance, 0.1);
    for (const Criterion* c : fidelity) {
        EXPECT_TRUE(c->optional);
        EXPECT_FALSE(c->rationale.isEmpty());
    }
    EXPECT_TRUE(fidelity[0]->rationale.contains(QStringLiteral("<1% degradation vs FP16")));
}
