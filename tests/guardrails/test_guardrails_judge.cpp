// SPDX-License-Identifier: MIT
// The judge guardrails over hand-built judgings of the clean comparison: a good judge triggers
// nothing, and each scripted flaw (always the first answer, too few pairs, the judge is an arm,
// failures on one arm, a taste for long answers) triggers exactly its guardrail.
#include "GuardrailTestSupport.h"
#include "tests/stats/JudgingTestSupport.h"

#include <gtest/gtest.h>

using namespace qs;
using namespace qs::test;

namespace {

bool contains(const QString& haystack, const char* needle)
{
    return haystack.contains(QString::fromUtf8(needle));
}

/// The clean FP8 vs NVFP4 comparison (20 pairs), judged pairwise by `script` from another host.
RunBuilder judged(const JudgeScript& script)
{
    RunBuilder b = cleanRun();
    EXPECT_EQ(judgePairs(b.run, 1, 0, script), 20);
    return b;
}

QStringList judgeIds(const std::vector<Guardrail>& guardrails)
{
    QStringList out;
    for (const QString& id : ids(guardrails))
        if (id.startsWith(QStringLiteral("judge_")))
            out << id;
    return out;
}

} // namespace

TEST(JudgeGuardrails, AGoodJudgeTriggersNothing)
{
    const auto g = checkGuardrails(judged(prefersCandidate).run);
    EXPECT_TRUE(g.empty()) << describe(g);
}

TEST(JudgeGuardrails, AlwaysFirstJudgeShowsPositionBiasAndLowConsistency)
{
    const auto g = checkGuardrails(judged(alwaysFirst).run);
    ASSERT_EQ(
        ids(g), QStringList({QStringLiteral("judge_low_consistency"), QStringLiteral("judge_position_bias")}))
        << describe(g);
    for (const Guardrail& w : g) {
        EXPECT_EQ(w.severity, Guardrail::Severity::Warning);
        EXPECT_EQ(w.endpoints, (std::vector<int> {0, 1}));
    }
    EXPECT_TRUE(contains(g[0].evidence, "\"NVFP4\" vs \"FP8\": both orders agreed on 0 of 20 pairs (0 %)"))
        << g[0].evidence.toStdString();
    EXPECT_TRUE(contains(g[1].evidence, "picked the answer shown first in 40 of 40 judgements (100 %"))
        << g[1].evidence.toStdString();
    EXPECT_TRUE(contains(g[1].advice, "both orders"));
}

TEST(JudgeGuardrails, ModeratePositionPreferenceIsNotBias)
{
    // 12 of 20 pairs consistent for the candidate, 8 always-first: 28 of 40 picks first (70 %),
    // binomial p ≈ 0.02; consistency 60 % does fire.
    const auto g = checkGuardrails(judged([](bool candidateFirst, int i) {
        return i < 12 ? prefersCandidate(candidateFirst, i) : PairPick::First;
    }).run);
    EXPECT_EQ(judgeIds(g), QStringList {QStringLiteral("judge_low_consistency")}) << describe(g);
}

TEST(JudgeGuardrails, TooFewPairs)
{
    RunBuilder b = judged(prefersCandidate);
    b.run.judging.pairVerdicts.resize(8); // 4 pairs
    b.run.judging.pairVerdicts.push_back(
        pairVerdict(1, 0, QStringLiteral("chat"), 2, 5, true, PairPick::Failed)); // + 1 failed
    const auto g = checkGuardrails(b.run);
    ASSERT_EQ(ids(g), QStringList {QStringLiteral("judge_too_few_pairs")}) << describe(g);
    EXPECT_TRUE(
        contains(g[0].evidence, "4 pairs judged in both orders, 10 needed for a winner (1 more failed)"))
        << g[0].evidence.toStdString();
}

TEST(JudgeGuardrails, JudgeIsAnArmByUrlOrModel)
{
    RunBuilder b = judged(prefersCandidate);
    JudgeIdentity& judge = b.run.judging.judge;
    judge.url = QStringLiteral("http://10.0.0.2:8000/v1/");
    auto g = checkGuardrails(b.run);
    ASSERT_EQ(ids(g), QStringList {QStringLiteral("judge_is_an_arm")}) << describe(g);
    EXPECT_EQ(g[0].severity, Guardrail::Severity::Warning);
    EXPECT_EQ(g[0].endpoints, std::vector<int> {1});
    EXPECT_TRUE(contains(g[0].evidence, "is the endpoint \"NVFP4\"")) << g[0].evidence.toStdString();

    judge.url = QStringLiteral("http://10.0.0.9:8000");
    judge.model = QStringLiteral("redhatai/qwen3.5-9b-fp8-dynamic");
    g = checkGuardrails(b.run);
    ASSERT_EQ(ids(g), QStringList {QStringLiteral("judge_is_an_arm")}) << describe(g);
    // FP8's own model, and NVFP4's at another quantization.
    EXPECT_EQ(g[0].endpoints, (std::vector<int> {0, 1}));
    EXPECT_TRUE(contains(g[0].evidence, "is the model \"FP8\" serves")) << g[0].evidence.toStdString();
    EXPECT_TRUE(contains(g[0].evidence, "is \"NVFP4\"'s model")) << g[0].evidence.toStdString();

    // A different model of another family is no self-preference.
    judge.model = QStringLiteral("meta-llama/Llama-3.3-70B-Instruct");
    EXPECT_TRUE(checkGuardrails(b.run).empty());

    // The same weights at a third quantization: both arms.
    judge.model = QStringLiteral("Qwen/Qwen3.5-9B-Q8_0");
    g = checkGuardrails(b.run);
    ASSERT_EQ(ids(g), QStringList {QStringLiteral("judge_is_an_arm")}) << describe(g);
    EXPECT_EQ(g[0].endpoints, (std::vector<int> {0, 1}));
    EXPECT_TRUE(contains(g[0].evidence, "at another quantization")) << g[0].evidence.toStdString();
}

TEST(JudgeGuardrails, JudgeIsAnArmOnLoopback)
{
    RunBuilder b;
    b.addEndpoint({QStringLiteral("FP8"), QStringLiteral("RedHatAI/Qwen3.5-9B-FP8-dynamic"), Runtime::Vllm,
        {}, QStringLiteral("127.0.0.1")});
    b.addEndpoint({QStringLiteral("NVFP4"), QStringLiteral("AxionML/Qwen3.5-9B-NVFP4"), Runtime::Vllm, {},
        QStringLiteral("10.0.0.2")});
    b.standardTests();
    judgePairs(b.run, 1, 0, prefersCandidate);
    b.run.judging.judge.url = QStringLiteral("localhost:8000");
    const std::vector<Guardrail> all = checkGuardrails(b.run);
    const Guardrail* g = find(all, "judge_is_an_arm");
    ASSERT_TRUE(g);
    EXPECT_EQ(g->endpoints, std::vector<int> {0});
}

TEST(JudgeGuardrails, FailuresOnOneArm)
{
    RunBuilder b = cleanRun();
    b.run.judging.judge = testJudge();
    int failures = 0;
    for (const RunRecord& r : b.run.records) {
        if (r.warmup)
            continue;
        RubricVerdict v;
        v.answer = {r.endpoint, r.test, r.turn, r.iteration};
        if (r.endpoint == 1 && failures < 3) {
            ++failures;
            v.exchange.error = QStringLiteral("timed out after 120 s");
        } else {
            v.scores[QStringLiteral("warm")] = 4;
        }
        b.run.judging.rubricVerdicts.push_back(v);
    }
    const auto g = checkGuardrails(b.run);
    ASSERT_EQ(ids(g), QStringList {QStringLiteral("judge_failures_uneven")}) << describe(g);
    EXPECT_EQ(g[0].endpoints, (std::vector<int> {0, 1}));
    EXPECT_TRUE(contains(g[0].evidence,
        "rubric grades: the judge failed on 3 of 20 (15 %) of \"NVFP4\" but on 0 "
        "of 20 (0 %) of \"FP8\""))
        << g[0].evidence.toStdString();

    // Two failures are not a pattern.
    std::erase_if(b.run.judging.rubricVerdicts, [](const RubricVerdict& v) {
        return v.failed() && v.answer.test == u"factual" && v.answer.iteration == 1;
    });
    EXPECT_TRUE(judgeIds(checkGuardrails(b.run)).isEmpty());
}

TEST(JudgeGuardrails, JudgePreferringLongerAnswersIsNoted)
{
    RunBuilder b = cleanRun();
    b.forEach(1, [](RunRecord& r) {
        if (!r.request.response.content.isEmpty())
            r.request.response.content
                += QStringLiteral(" It is a vast, vibrant city of fourteen million people.");
    });
    judgePairs(b.run, 1, 0, prefersCandidate);
    const auto g = checkGuardrails(b.run);
    ASSERT_EQ(ids(g), QStringList {QStringLiteral("judge_verbosity")}) << describe(g);
    EXPECT_EQ(g[0].severity, Guardrail::Severity::Info);
    EXPECT_TRUE(contains(g[0].evidence, "picked the longer answer in 30 of 30 judgements (100 %)"))
        << g[0].evidence.toStdString();
    EXPECT_TRUE(contains(g[0].advice, "a voice assistant wants shorter"));
}
