// SPDX-License-Identifier: MIT
#pragma once

// The seeds' three situations (issue #6, "How it is judged") and the conclusions their authors
// reached, as assertions shared by the live replay and the committed results files:
//   base-garbled    base Qwen3.5-9B NVFP4 with thinking off answers in gibberish → keep Q4_K_M,
//                   and say the models differ;
//   broken-manners  the same model in NVFP4, much faster TTFT but markdown, leaked thinking,
//                   broken tool calls and slow decode → keep Q4_K_M and say what would change it;
//   fair-switch     the same fine-tune in NVFP4 on a correctly configured server → switch.

#include "model/decide/DecisionProfile.h"
#include "model/decide/Recommendation.h"
#include "model/evaluate/Evaluation.h"

#include <gtest/gtest.h>

namespace qs::test {

struct Scenario {
    const char* name; ///< the results file is tests/data/results/scenario-NAME.json
    const char* candidateProfile; ///< the simulated profile of the candidate; the baseline is q4km-like
    const char* candidateLabel;
};

inline const Scenario scenarios[] = {
    {"base-garbled", "nvfp4-base-like", "NVFP4 base model, vLLM (simulated)"},
    {"broken-manners", "nvfp4-like", "NVFP4, vLLM (simulated)"},
    {"fair-switch", "nvfp4-fixed-like", "NVFP4 fixed server, vLLM (simulated)"},
};
inline const char* baselineLabel = "Q4_K_M, llama-server (simulated)";

struct Judgement {
    Evaluation evaluation;
    Recommendation recommendation;
};

inline Judgement judgeScenario(const RunResult& result)
{
    Judgement j {evaluate(result, 0), {}};
    const auto recs
        = recommend(result, j.evaluation, loadBuiltinDecisionProfile(QStringLiteral("voice-assistant")));
    EXPECT_EQ(recs.size(), 1u);
    if (!recs.empty())
        j.recommendation = recs.front();
    return j;
}

inline QStringList idsWith(const Recommendation& r, CriterionResult::Outcome outcome)
{
    QStringList ids;
    for (const CriterionResult& c : r.criteria)
        if (c.outcome == outcome)
            ids << c.criterion.id;
    return ids;
}

inline bool anyContains(const QStringList& lines, const QString& needle)
{
    for (const QString& l : lines)
        if (l.contains(needle, Qt::CaseInsensitive))
            return true;
    return false;
}

inline std::string dump(const Recommendation& r)
{
    return toJson(r).dump(1);
}

inline void expectScenario(const QString& name, const Judgement& j)
{
    using Outcome = CriterionResult::Outcome;
    const Recommendation& r = j.recommendation;
    const QStringList failed = idsWith(r, Outcome::Fail);
    const QStringList open = idsWith(r, Outcome::Inconclusive);
    EXPECT_EQ(r.baselineLabel, QString::fromUtf8(baselineLabel));
    // The committed files carry no telemetry, no judging and no fidelity test: the profile's
    // optional resource, judge and fidelity criteria are "not measured", named in the headline and
    // in what would change it, and change no decision. (A live replay may scrape the simulated servers'
    // /metrics; they report no memory or energy.)
    const bool telemetry = j.evaluation.resources.collected;
    EXPECT_EQ(idsWith(r, Outcome::NotMeasured),
        (QStringList {QStringLiteral("memory_budget"), QStringLiteral("energy_not_worse"),
            QStringLiteral("judged_answers_question"), QStringLiteral("judged_correct"),
            QStringLiteral("judged_warm_personal"), QStringLiteral("judged_spoken_length"),
            QStringLiteral("judged_not_worse"), QStringLiteral("fidelity_flips"),
            QStringLiteral("fidelity_kl_not_worse")}))
        << dump(r);
    EXPECT_TRUE(r.headline.contains(QStringLiteral(
        "; not measured: Peak memory within 110 GB, Energy per token not worse than the baseline, Judged: ")))
        << r.headline.toStdString();
    // A headline names three at most; the criteria list every one.
    EXPECT_TRUE(
        r.headline.endsWith(QStringLiteral("Judged: answers what was asked (median ≥ 4), and 6 more")))
        << r.headline.toStdString();
    // One sentence for both fidelity criteria: the fidelity suite did not run.
    EXPECT_TRUE(anyContains(r.whatWouldChange,
        QStringLiteral("Fidelity was not measured: run the built-in fidelity suite (`quantscope run --suite "
                       "fidelity")))
        << dump(r);
    // One sentence for the rubric criteria, one for the pairwise comparison.
    EXPECT_TRUE(
        anyContains(r.whatWouldChange, QStringLiteral("quantscope judge FILE --judge SPEC --rubric")));
    EXPECT_TRUE(
        anyContains(r.whatWouldChange, QStringLiteral("quantscope judge FILE --judge SPEC --pairwise")));
    EXPECT_TRUE(anyContains(r.whatWouldChange,
        QStringLiteral("Peak memory within 110 GB not measured on %1 (%2")
            .arg(r.candidateLabel,
                telemetry
                    ? QStringLiteral("its metrics pages report no memory")
                    : QStringLiteral("no server telemetry was collected in this run): give the endpoint "
                                     "metrics=URL of a DCGM exporter"))))
        << dump(r);
    if (name == u"base-garbled") {
        // Gibberish never completes a sentence: there is no first sentence to compare, and the
        // recommendation says so instead of guessing. Its noise runs about 1.4 times the baseline's
        // length (committed file: ratio 1.4 [1.11–1.58]), an interval across the 1.5× allowance.
        // Its 6 of 18 tool calls are shown below 60 % on their own (p ≈ 0.02), but not once the 11
        // judged criteria are weighed together (Holm): open, never a pass.
        QStringList expectedOpen;
        for (const char* id : {"tool_calls", "first_sentence_not_worse", "not_more_verbose"})
            if (open.contains(QString::fromUtf8(id)) || QString::fromUtf8(id) == u"first_sentence_not_worse")
                expectedOpen << QString::fromUtf8(id);
        EXPECT_EQ(open, expectedOpen) << dump(r);
        EXPECT_TRUE(r.criteria.at(6).measured.startsWith(
            QStringLiteral("no value of first_sentence_ms on NVFP4 base")))
            << dump(r);
    } else if (name == u"fair-switch") {
        EXPECT_TRUE(open.isEmpty()) << "about 50 distinct prompts decide every criterion\n" << dump(r);
    }

    if (name == u"base-garbled") {
        // v3: "NVFP4 base model is NOT viable — quality is zero"; "TTFT is real but irrelevant".
        EXPECT_EQ(r.decision, Recommendation::Decision::KeepBaseline) << dump(r);
        for (const char* id : {"answers_not_worse", "coherent_not_worse"})
            EXPECT_TRUE(failed.contains(QString::fromUtf8(id))) << id << '\n' << dump(r);
        EXPECT_TRUE(
            failed.contains(QStringLiteral("tool_calls")) || open.contains(QStringLiteral("tool_calls")))
            << dump(r);
        for (const char* id : {"thinking_leaks", "ttft_visible", "ttft_not_worse"})
            EXPECT_FALSE(failed.contains(QString::fromUtf8(id))) << id << '\n' << dump(r);
        bool modelsDiffer = false;
        for (const Guardrail& g : j.evaluation.guardrails)
            modelsDiffer |= g.id == u"models_differ" && g.severity == Guardrail::Severity::Critical;
        EXPECT_TRUE(modelsDiffer);
        ASSERT_FALSE(r.caveats.isEmpty()) << dump(r);
        EXPECT_TRUE(r.caveats.first().startsWith(QStringLiteral("The arms run different models"))) << dump(r);
        EXPECT_TRUE(
            anyContains(r.whatWouldChange, QStringLiteral("Serve the same fine-tune in both quantizations")));
        EXPECT_TRUE(anyContains(r.whatWouldChange, QStringLiteral("of its answers were garbled")));
        EXPECT_TRUE(r.headline.contains(QStringLiteral("the comparison is not fair")))
            << r.headline.toStdString();
    } else if (name == u"broken-manners") {
        // The same model, ~90 ms TTFT, but markdown, leaks and broken tool calls, ~20 tok/s.
        EXPECT_EQ(r.decision, Recommendation::Decision::KeepBaseline) << dump(r);
        // "2-6x more verbose" (003): the same model's answers run well over the 1.5× allowance.
        for (const char* id : {"thinking_leaks", "no_markdown", "decode_rate", "not_more_verbose"})
            EXPECT_TRUE(failed.contains(QString::fromUtf8(id))) << id << '\n' << dump(r);
        // 10 of 18 tool calls (56 %, interval 31–78 %) cannot be told from 60 %: open, never a pass.
        // Neither can a 3-point drop in right answers from a 15-point margin, nor first sentences
        // 1.24× slower (interval 1.01–1.41) from the 1.10 margin: what would change says so.
        EXPECT_TRUE(
            failed.contains(QStringLiteral("tool_calls")) || open.contains(QStringLiteral("tool_calls")))
            << dump(r);
        for (const char* id : {"ttft_visible", "ttft_not_worse", "answers_not_worse", "coherent_not_worse"})
            EXPECT_FALSE(failed.contains(QString::fromUtf8(id))) << id << '\n' << dump(r);
        EXPECT_TRUE(r.caveats.isEmpty()) << dump(r); // same model: nothing makes it unfair
        for (const char* needle : {"leaked thinking", "--reasoning-parser", "markdown", "--tool-call-parser",
                 "decode rate", "speculative decoding", "trained to be concise"})
            EXPECT_TRUE(anyContains(r.whatWouldChange, QString::fromUtf8(needle))) << needle << '\n'
                                                                                   << dump(r);
        EXPECT_TRUE(r.headline.startsWith(QStringLiteral("Keep Q4_K_M, llama-server (simulated): NVFP4, vLLM "
                                                         "(simulated) fails ")))
            << r.headline.toStdString();
    } else if (name == u"fair-switch") {
        EXPECT_EQ(r.decision, Recommendation::Decision::Switch) << dump(r);
        EXPECT_TRUE(failed.isEmpty()) << dump(r);
        EXPECT_TRUE(r.caveats.isEmpty()) << dump(r);
        // Only what was not measured could still change it: telemetry (two figures), a judge and
        // the fidelity suite.
        EXPECT_EQ(r.whatWouldChange.size(), 5) << dump(r);
        EXPECT_TRUE(r.headline.startsWith(QStringLiteral(
            "Switch from Q4_K_M, llama-server (simulated) to NVFP4 fixed server, vLLM (simulated): it "
            "meets all 11 criteria that were measured; not measured: ")))
            << r.headline.toStdString();
    } else {
        ADD_FAILURE() << "unknown scenario " << name.toStdString();
    }
}

} // namespace qs::test
