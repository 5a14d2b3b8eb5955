// SPDX-License-Identifier: MIT
// The fidelity guardrails over hand-built fidelity prompts added to the clean comparison: a
// clean fidelity run triggers none, and each flaw (a reference of another model, other prompt
// tokens, a server that ignores logprobs, sampling, drafting, another tokenizer) exactly its own.
#include "GuardrailTestSupport.h"
#include "tests/stats/FidelityTestSupport.h"

#include <gtest/gtest.h>

using namespace qs;
using namespace qs::test;

namespace {

QStringList fidelityIds(const std::vector<Guardrail>& guardrails)
{
    QStringList out;
    for (const QString& id : ids(guardrails))
        if (id.startsWith(QStringLiteral("fidelity_")))
            out << id;
    return out;
}

std::vector<TokenLogprob> answerTokens()
{
    return {token("Paris", {candidate("Paris", 0.9), candidate("Lyon", 0.05)}), certain(".")};
}

/// The clean FP8 vs NVFP4 comparison plus a BF16 reference of the same model, each answering
/// four fidelity prompts alike.
RunBuilder fidelityRun(const QString& referenceModel = QStringLiteral("Qwen/Qwen3.5-9B"))
{
    RunBuilder b = cleanRun();
    const int ref = b.addEndpoint(
        {QStringLiteral("BF16"), referenceModel, Runtime::Vllm, {}, QStringLiteral("10.0.0.3")});
    b.run.endpoints[std::size_t(ref)].reference = true;
    for (int i = 1; i <= 4; ++i)
        for (int e = 0; e <= ref; ++e)
            b.run.records.push_back(fidelityAnswer(e, QStringLiteral("capital"), i, answerTokens()));
    return b;
}

std::vector<RunRecord*> fidelityRecordsOf(RunBuilder& b, int endpoint)
{
    std::vector<RunRecord*> out;
    for (RunRecord& r : b.run.records)
        if (r.endpoint == endpoint && r.test == u"capital")
            out.push_back(&r);
    return out;
}

} // namespace

TEST(FidelityGuardrails, ACleanFidelityRunTriggersNothing)
{
    const auto g = checkGuardrails(fidelityRun().run);
    EXPECT_TRUE(fidelityIds(g).isEmpty()) << describe(g);
    EXPECT_TRUE(fidelityIds(checkGuardrails(cleanRun().run)).isEmpty());
}

TEST(FidelityGuardrails, AReferenceOfAnotherModelIsCritical)
{
    const auto g = checkGuardrails(fidelityRun(QStringLiteral("meta-llama/Llama-3.1-8B-Instruct")).run);
    ASSERT_EQ(fidelityIds(g), QStringList {QStringLiteral("fidelity_reference_other_model")}) << describe(g);
    const Guardrail* w = find(g, "fidelity_reference_other_model");
    EXPECT_EQ(w->severity, Guardrail::Severity::Critical);
    EXPECT_EQ(w->endpoints, (std::vector<int> {0, 1, 2}));
    EXPECT_TRUE(w->evidence.contains(
        QStringLiteral("the reference \"BF16\" serves 'meta-llama/Llama-3.1-8B-Instruct'")))
        << w->evidence.toStdString();
}

TEST(FidelityGuardrails, OtherPromptTokensAreFlagged)
{
    RunBuilder b = fidelityRun();
    fidelityRecordsOf(b, 1)[2]->request.response.usage->promptTokens = 33;
    const auto g = checkGuardrails(b.run);
    ASSERT_EQ(fidelityIds(g), QStringList {QStringLiteral("fidelity_prompt_mismatch")}) << describe(g);
    const Guardrail* w = find(g, "fidelity_prompt_mismatch");
    EXPECT_TRUE(
        w->evidence.contains(QStringLiteral("\"NVFP4\" counted other prompt tokens than the reference "
                                            "\"BF16\" on 1 of 4 fidelity prompts (e.g. capital: 33 vs 30 "
                                            "prompt tokens)")))
        << w->evidence.toStdString();
    EXPECT_EQ(w->tests, QStringList {QStringLiteral("capital")});
}

TEST(FidelityGuardrails, AServerThatIgnoresLogprobsIsNamed)
{
    RunBuilder b = fidelityRun();
    for (RunRecord* r : fidelityRecordsOf(b, 0))
        *r = textOnlyAnswer(0, QStringLiteral("capital"), r->iteration, QStringLiteral("Paris."));
    const auto g = checkGuardrails(b.run);
    ASSERT_EQ(fidelityIds(g), QStringList {QStringLiteral("fidelity_no_logprobs")}) << describe(g);
    const Guardrail* w = find(g, "fidelity_no_logprobs");
    EXPECT_TRUE(
        w->evidence.contains(QStringLiteral("\"FP8\" (vllm 0.17.1) sent no logprobs for 4 of 4 requests")))
        << w->evidence.toStdString();
    EXPECT_TRUE(w->advice.contains(QStringLiteral("--max-logprobs")));
    EXPECT_EQ(w->endpoints, std::vector<int> {0});
}

TEST(FidelityGuardrails, SamplingIsFlagged)
{
    RunBuilder b = fidelityRun();
    for (RunRecord* r : fidelityRecordsOf(b, 1))
        r->request.requestBody.edit()["temperature"] = 0.7;
    fidelityRecordsOf(b, 2)[0]->request.requestBody.edit().erase("temperature");
    const auto g = checkGuardrails(b.run);
    ASSERT_EQ(fidelityIds(g), QStringList {QStringLiteral("fidelity_not_greedy")}) << describe(g);
    const Guardrail* w = find(g, "fidelity_not_greedy");
    EXPECT_TRUE(w->evidence.contains(
        QStringLiteral("\"NVFP4\": 4 of 4 fidelity requests not greedy (temperature 0.7)")))
        << w->evidence.toStdString();
    EXPECT_TRUE(
        w->evidence.contains(QStringLiteral("\"BF16\": 1 of 4 fidelity requests not greedy (no temperature")))
        << w->evidence.toStdString();
}

TEST(FidelityGuardrails, DraftedTokensAreFlagged)
{
    RunBuilder b = fidelityRun();
    // llama-server's drafted tokens: logprob 0.0 and an empty top list; or timings.draft_n.
    TokenLogprob drafted = certain(".");
    drafted.top.clear();
    fidelityRecordsOf(b, 1)[0]->request.response.logprobs.tokens[1] = drafted;
    ServerTimings t;
    t.draftN = 12;
    fidelityRecordsOf(b, 0)[1]->request.response.timings = t;
    const auto g = checkGuardrails(b.run);
    ASSERT_EQ(fidelityIds(g), QStringList {QStringLiteral("fidelity_speculative_decoding")}) << describe(g);
    const Guardrail* w = find(g, "fidelity_speculative_decoding");
    EXPECT_TRUE(w->evidence.contains(QStringLiteral("\"FP8\": 12 drafted tokens (timings.draft_n)")))
        << w->evidence.toStdString();
    EXPECT_TRUE(
        w->evidence.contains(QStringLiteral("\"NVFP4\": 1 tokens with logprob 0 and no alternatives")))
        << w->evidence.toStdString();
}

TEST(FidelityGuardrails, TokenizersThatDifferAreInfo)
{
    RunBuilder b = fidelityRun();
    for (RunRecord* r : fidelityRecordsOf(b, 1))
        r->request.response.logprobs.tokens = {certain("Par"), certain("is"), certain(".")};
    const auto g = checkGuardrails(b.run);
    ASSERT_EQ(fidelityIds(g), QStringList {QStringLiteral("fidelity_tokenizers_differ")}) << describe(g);
    const Guardrail* w = find(g, "fidelity_tokenizers_differ");
    EXPECT_EQ(w->severity, Guardrail::Severity::Info);
    EXPECT_TRUE(w->evidence.contains(QStringLiteral(
        "\"NVFP4\" vs the reference \"BF16\": 4 of 4 prompts compared by characters (tokenizers differ)")))
        << w->evidence.toStdString();
}
