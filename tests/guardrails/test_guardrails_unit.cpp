// SPDX-License-Identifier: MIT
// Every guardrail over hand-built runs: a clean, fair comparison triggers nothing, and each
// spoiled copy of it triggers exactly the guardrail for what was spoiled.
#include "GuardrailTestSupport.h"

#include <gtest/gtest.h>

using namespace qs;
using namespace qs::test;

namespace {
bool contains(const QString& haystack, const char* needle)
{
    return haystack.contains(QString::fromUtf8(needle));
}
} // namespace

// ---- model identity -----------------------------------------------------------------------------

TEST(ModelIdentity, QuantizationTokensOrgsPathsAndExtensionsAreRemoved)
{
    const ModelIdentity a = modelIdentity({QStringLiteral("AxionML/Qwen3.5-9B-NVFP4")});
    EXPECT_EQ(a.tokens, QStringList({QStringLiteral("qwen3.5"), QStringLiteral("9b")}));
    EXPECT_EQ(a.families, QStringList {QStringLiteral("qwen3.5")});
    EXPECT_EQ(a.sizes, QStringList {QStringLiteral("9b")});
    for (const char* name : {"qwen3.5-9b-q4_k_m", "/home/me/models/Qwen3.5-9B-Q4_K_M.gguf",
             "Qwen/Qwen3.5-9B-AWQ", "RedHatAI/Qwen3.5-9B-FP8-dynamic", "Qwen3.5-9B-GPTQ-Int4",
             "mlx-community/Qwen3.5-9B-4bit", "Qwen3.5-9B-w4a16-g128",
             "unsloth/Qwen3.5-9B-UD-Q4_K_XL-00001-of-00002.gguf", "qwen3.5-9b.Q8_0.gguf",
             "Qwen3.5-9B-quantized.w4a16", "qwen3.5-9b-bf16", "Qwen3.5-9B-IQ4_XS", "sim-qwen3.5-9b-nvfp4",
             "~/.cache/huggingface/hub/models--Qwen--Qwen3.5-9B/snapshots/0123456789abcdef0123"}) {
        const ModelIdentity b = modelIdentity({QString::fromUtf8(name)});
        EXPECT_EQ(b.tokens, a.tokens) << name << " → " << b.tokens.join(u' ').toStdString();
    }
}

TEST(ModelIdentity, VariantsSizesAndFamiliesAreRecognised)
{
    const ModelIdentity d
        = modelIdentity({QStringLiteral("Jackrong/Qwen3.5-9B-Claude-Opus-Distilled-Q4_K_M")});
    ASSERT_EQ(d.variants.size(), 1u);
    EXPECT_EQ(d.variants[0].first, QStringLiteral("distilled"));
    EXPECT_EQ(d.variants[0].second,
        QStringList({QStringLiteral("claude"), QStringLiteral("opus"), QStringLiteral("distilled")}));
    const ModelIdentity l = modelIdentity({QStringLiteral("meta-llama/Meta-Llama-3.1-8B-Instruct-AWQ")});
    EXPECT_EQ(l.families, QStringList {QStringLiteral("llama3.1")});
    EXPECT_EQ(l.sizes, QStringList {QStringLiteral("8b")});
    EXPECT_EQ(l.variants.at(0).first, QStringLiteral("instruct"));
    const ModelIdentity m = modelIdentity({QStringLiteral("Qwen/Qwen3-30B-A3B-Thinking-2507-FP8")});
    EXPECT_EQ(m.sizes, QStringList({QStringLiteral("30b"), QStringLiteral("a3b")}));
    EXPECT_EQ(m.other, QStringList {QStringLiteral("2507")});
    EXPECT_FALSE(modelIdentity({QStringLiteral("/model")}).informative());
    EXPECT_FALSE(modelIdentity({QStringLiteral("default")}).informative());
}

// ---- the clean comparison ------------------------------------------------------------------------

TEST(Guardrails, CleanFairComparisonTriggersNothing)
{
    for (Runtime rt : {Runtime::Vllm, Runtime::LlamaServer, Runtime::Sglang}) {
        const auto g = checkGuardrails(cleanRun(rt).run);
        EXPECT_TRUE(g.empty()) << runtimeName(rt).toStdString() << describe(g);
    }
}

TEST(Guardrails, SimulatedEndpointsOnlyAddTheInformationalNote)
{
    RunBuilder b = cleanRun();
    b.run.endpoints[1].simulated = true;
    b.run.endpoints[1].spec = QStringLiteral("sim:nvfp4-like");
    const auto g = checkGuardrails(b.run);
    ASSERT_EQ(ids(g), QStringList {QStringLiteral("simulated_endpoints")}) << describe(g);
    EXPECT_EQ(g[0].severity, Guardrail::Severity::Info);
    EXPECT_EQ(g[0].endpoints, std::vector<int> {1});
    EXPECT_TRUE(contains(g[0].evidence, "\"NVFP4\" is simulated"));
}

TEST(Guardrails, SingleEndpointRunHasNothingToCompare)
{
    RunBuilder b;
    b.addEndpoint({QStringLiteral("only"), QStringLiteral("/model")});
    b.standardTests();
    const auto g = checkGuardrails(b.run);
    EXPECT_TRUE(g.empty()) << describe(g);
}

// ---- models_differ ---------------------------------------------------------------------------------

namespace {
std::vector<Guardrail> twoModels(const ArmSpec& a, const ArmSpec& b)
{
    RunBuilder r;
    r.addEndpoint(a);
    r.addEndpoint(b);
    r.standardTests();
    return checkGuardrails(r.run);
}
} // namespace

TEST(Guardrails, BaseVersusDistilledIsNotAQuantizationComparison)
{
    // The seeds' v1-v3: base Qwen3.5-9B in NVFP4 against the Opus-Distilled fine-tune in Q4_K_M.
    const auto g = twoModels({QStringLiteral("NVFP4"), QStringLiteral("axionml/qwen3.5-9b-nvfp4")},
        {QStringLiteral("Q4_K_M"), QStringLiteral("jackrong/qwen3.5-9b-claude-opus-distilled-q4_k_m"),
            Runtime::Vllm, {}, QStringLiteral("10.0.0.2")});
    ASSERT_EQ(ids(g), QStringList {QStringLiteral("models_differ")}) << describe(g);
    EXPECT_EQ(g[0].severity, Guardrail::Severity::Critical);
    EXPECT_TRUE(contains(g[0].evidence, "'axionml/qwen3.5-9b-nvfp4'")) << g[0].evidence.toStdString();
    EXPECT_TRUE(contains(g[0].evidence, "'jackrong/qwen3.5-9b-claude-opus-distilled-q4_k_m'"));
    EXPECT_TRUE(contains(g[0].evidence, "distilled (claude, opus, distilled) only in \"Q4_K_M\""));
    EXPECT_EQ(g[0].endpoints, std::vector<int>({0, 1}));
}

TEST(Guardrails, DifferentSizesAndFamiliesAreCritical)
{
    // The seeds' v4: 27B NVFP4 against 9B Q4_K_M.
    auto g = twoModels({QStringLiteral("27B"), QStringLiteral("surogate/Qwen3.5-27B-NVFP4")},
        {QStringLiteral("9B"), QStringLiteral("Qwen/Qwen3.5-9B-AWQ")});
    ASSERT_EQ(ids(g), QStringList {QStringLiteral("models_differ")}) << describe(g);
    EXPECT_EQ(g[0].severity, Guardrail::Severity::Critical);
    EXPECT_TRUE(contains(g[0].evidence, "different sizes (27b vs 9b)")) << g[0].evidence.toStdString();

    g = twoModels({QStringLiteral("llama"), QStringLiteral("meta-llama/Llama-3.1-8B-Instruct-AWQ")},
        {QStringLiteral("qwen"), QStringLiteral("Qwen/Qwen2.5-8B-Instruct-FP8")});
    ASSERT_EQ(ids(g), QStringList {QStringLiteral("models_differ")}) << describe(g);
    EXPECT_TRUE(contains(g[0].evidence, "different model families (llama3.1 vs qwen2.5)"))
        << g[0].evidence.toStdString();

    g = twoModels({QStringLiteral("base"), QStringLiteral("Qwen/Qwen3-8B-Base-AWQ")},
        {QStringLiteral("post-trained"), QStringLiteral("Qwen/Qwen3-8B-FP8")});
    ASSERT_EQ(ids(g), QStringList {QStringLiteral("models_differ")}) << describe(g);
    EXPECT_EQ(g[0].severity, Guardrail::Severity::Critical);
    EXPECT_TRUE(contains(g[0].evidence, "base (base) only in \"base\""));
}

TEST(Guardrails, AnUnsuffixedNameAgainstInstructIsOnlyAWarning)
{
    const auto g = twoModels({QStringLiteral("a"), QStringLiteral("Qwen/Qwen3.5-27B-FP8")},
        {QStringLiteral("b"), QStringLiteral("someone/Qwen3.5-27B-Instruct-NVFP4")});
    ASSERT_EQ(ids(g), QStringList {QStringLiteral("models_differ")}) << describe(g);
    EXPECT_EQ(g[0].severity, Guardrail::Severity::Warning);
}

TEST(Guardrails, AliasPlusModelPathOfTheSameFineTuneIsClean)
{
    // The seeds' same-model comparison: llama-server --alias qwen3.5-9b with the distilled GGUF,
    // against the self-quantized NVFP4 of the same fine-tune (named a little differently).
    const auto g
        = twoModels({QStringLiteral("Q4_K_M"), QStringLiteral("qwen3.5-9b"), Runtime::Vllm,
                        QStringLiteral("/home/rajesh/models/Qwen3.5-9B-Claude-Opus-Distilled-Q4_K_M.gguf")},
            {QStringLiteral("NVFP4"), QStringLiteral("rajesh/Qwen3.5-9B-Opus-Distilled-NVFP4")});
    EXPECT_TRUE(g.empty()) << describe(g);
}

TEST(Guardrails, NamesThatDifferInUnknownWordsAreInformational)
{
    const auto g = twoModels({QStringLiteral("a"), QStringLiteral("Qwen/Qwen3-4B-Instruct-2507-FP8")},
        {QStringLiteral("b"), QStringLiteral("Qwen/Qwen3-4B-Instruct-AWQ")});
    ASSERT_EQ(ids(g), QStringList {QStringLiteral("models_differ")}) << describe(g);
    EXPECT_EQ(g[0].severity, Guardrail::Severity::Info);
    EXPECT_TRUE(contains(g[0].evidence, "only \"a\" has 2507")) << g[0].evidence.toStdString();
}

TEST(Guardrails, AnUninformativeModelNameIsReported)
{
    // The seeds served vLLM with --model /model: the name says nothing.
    const auto g = twoModels({QStringLiteral("vllm"), QStringLiteral("/model")},
        {QStringLiteral("llama"), QStringLiteral("qwen3.5-9b-q4_k_m")});
    ASSERT_EQ(ids(g), QStringList {QStringLiteral("model_unknown")}) << describe(g);
    EXPECT_EQ(g[0].severity, Guardrail::Severity::Info);
    EXPECT_EQ(g[0].endpoints, std::vector<int> {0});
}

TEST(Guardrails, AModelNameTheServerIgnoresIsReplacedByTheListedOne)
{
    RunBuilder b = cleanRun();
    // The user typed the distilled name, but llama-server/SGLang serve (and list) the base model.
    b.run.endpoints[1].endpoint.model = QStringLiteral("AxionML/Qwen3.5-9B-Opus-Distilled-NVFP4");
    b.run.endpoints[1].probe["model_listed"] = false;
    b.run.endpoints[1].probe["models"] = {"AxionML/Qwen3.5-9B-NVFP4"};
    b.run.endpoints[1].probe["model_path"] = "";
    EXPECT_TRUE(checkGuardrails(b.run).empty());
    b.run.endpoints[0].endpoint.model = QStringLiteral("Jackrong/Qwen3.5-9B-Opus-Distilled-FP8");
    b.run.endpoints[0].probe["model"] = "Jackrong/Qwen3.5-9B-Opus-Distilled-FP8";
    b.run.endpoints[0].probe["model_path"] = "";
    const auto g = checkGuardrails(b.run);
    ASSERT_EQ(ids(g), QStringList {QStringLiteral("models_differ")}) << describe(g);
}

// ---- thinking ---------------------------------------------------------------------------------------

namespace {
void leakThinking(RunRecord& r)
{
    RequestRecord& q = r.request;
    q.response.content
        = QStringLiteral("<think>Thinking Process: 1. **Analyze the Request:** a capital.</think>\n\n")
        + q.response.content;
    q.metrics.thinkingInContent = true;
    q.metrics.visibleContentOffset = int(q.response.content.indexOf(QStringLiteral("</think>"))) + 8;
    q.metrics.ttftAnyMs = 82;
    q.metrics.ttftVisibleMs = 4782;
    q.metrics.reasoningMs = 4700;
}
} // namespace

TEST(Guardrails, ThinkingLeakedIntoContentMeansTtftAnyIsAThinkingToken)
{
    RunBuilder b = cleanRun();
    b.forEach(1, [](RunRecord& r) {
        if (r.test == u"factual")
            leakThinking(r);
    });
    const auto g = checkGuardrails(b.run);
    ASSERT_EQ(ids(g), QStringList({QStringLiteral("thinking_differs"), QStringLiteral("reasoning_in_ttft")}))
        << describe(g);
    const Guardrail* r = find(g, "reasoning_in_ttft");
    EXPECT_EQ(r->severity, Guardrail::Severity::Warning);
    EXPECT_TRUE(contains(r->evidence, "\"NVFP4\": 5/20 measured requests began with thinking"))
        << r->evidence.toStdString();
    EXPECT_TRUE(contains(r->evidence, "5 leaked into content"));
    EXPECT_TRUE(
        contains(r->evidence, "median reasoning_ms 4700 ms (ttft_any 82 ms vs ttft_visible 4782 ms)"));
    EXPECT_EQ(r->tests, QStringList {QStringLiteral("factual")});
    const Guardrail* t = find(g, "thinking_differs");
    EXPECT_EQ(t->severity, Guardrail::Severity::Warning); // same settings sent, different behaviour
    EXPECT_TRUE(contains(t->evidence, "\"NVFP4\" in 5/20, \"FP8\" in 0/20")) << t->evidence.toStdString();
}

TEST(Guardrails, ReasoningThatUsesTheWholeBudgetLeavesNoVisibleAnswer)
{
    RunBuilder b = cleanRun();
    b.forEach(1, [](RunRecord& r) {
        if (r.test != u"factual")
            return;
        r.request.response.reasoning = QStringLiteral("The user asks for a capital. Let me think carefully");
        r.request.response.content.clear();
        r.request.response.finishReason = QStringLiteral("length");
        r.request.metrics.ttftVisibleMs.reset();
        r.request.metrics.reasoningMs.reset();
    });
    const auto g = checkGuardrails(b.run);
    ASSERT_EQ(ids(g),
        QStringList({QStringLiteral("thinking_differs"), QStringLiteral("reasoning_in_ttft"),
            QStringLiteral("truncated_answers")}))
        << describe(g);
    EXPECT_TRUE(contains(find(g, "reasoning_in_ttft")->evidence, "5 had no visible answer at all"));
    EXPECT_TRUE(contains(find(g, "truncated_answers")->evidence,
        "\"NVFP4\": 5/20 measured requests stopped at max_tokens=256 (finish_reason \"length\"): factual "
        "(5); 5 of "
        "them had no visible answer"))
        << find(g, "truncated_answers")->evidence.toStdString();
}

TEST(Guardrails, DifferentThinkingSettingsAreCritical)
{
    RunBuilder b = cleanRun();
    b.forEach(0,
        [](RunRecord& r) { r.request.requestBody.edit()["chat_template_kwargs"]["enable_thinking"] = true; });
    const auto g = checkGuardrails(b.run);
    ASSERT_EQ(ids(g), QStringList {QStringLiteral("thinking_differs")}) << describe(g);
    EXPECT_EQ(g[0].severity, Guardrail::Severity::Critical);
    EXPECT_TRUE(contains(g[0].evidence,
        "tests factual, weather, chat: \"FP8\" sends chat_template_kwargs.enable_thinking=true, \"NVFP4\" "
        "sends "
        "chat_template_kwargs.enable_thinking=false"))
        << g[0].evidence.toStdString();
    EXPECT_EQ(g[0].tests.size(), 3);
}

// ---- tokens ---------------------------------------------------------------------------------------------

TEST(Guardrails, EstimatedTokenCountsAreFlagged)
{
    RunBuilder b = cleanRun();
    b.forEach(1, [](RunRecord& r) {
        r.request.response.usage.reset();
        r.request.metrics.completionTokens.source = CountSource::Estimate;
        r.request.metrics.promptTokens = {};
    });
    const auto g = checkGuardrails(b.run);
    ASSERT_EQ(ids(g), QStringList {QStringLiteral("estimated_tokens")}) << describe(g);
    EXPECT_TRUE(
        contains(g[0].evidence, "\"NVFP4\": completion_tokens of 20/20 measured requests are estimates"));
}

TEST(Guardrails, UsageAndTimingsThatDisagreeAreFlagged)
{
    RunBuilder b = cleanRun(Runtime::LlamaServer);
    b.forEach(1, [](RunRecord& r) {
        if (r.request.response.toolCalls.empty())
            r.request.response.timings->predictedN = 10;
    });
    const auto g = checkGuardrails(b.run);
    ASSERT_EQ(ids(g), QStringList {QStringLiteral("token_count_mismatch")}) << describe(g);
    EXPECT_TRUE(contains(g[0].evidence, "median usage.completion_tokens 20 vs timings.predicted_n 10"))
        << g[0].evidence.toStdString();
}

TEST(Guardrails, MoreEventsThanTokensIsImpossibleAndFlagged)
{
    RunBuilder b = cleanRun();
    b.forEach(0, [](RunRecord& r) {
        if (r.request.response.toolCalls.empty())
            r.request.metrics.tokenEvents = 35; // e.g. usage that leaves out the reasoning tokens
    });
    const auto g = checkGuardrails(b.run);
    ASSERT_EQ(ids(g), QStringList {QStringLiteral("token_count_mismatch")}) << describe(g);
    EXPECT_TRUE(contains(g[0].evidence, "fewer tokens than streamed events"));
    EXPECT_TRUE(contains(g[0].evidence, "median completion_tokens 20 vs 35 token-bearing events"));
}

TEST(Guardrails, BatchedEventsSmallDifferencesAndSingleOutliersAreNotFlagged)
{
    RunBuilder b = cleanRun();
    // vLLM/SGLang may put several tokens in one event (stream interval, speculative decoding).
    b.forEach(1, [](RunRecord& r) { r.request.metrics.tokenEvents = 7; });
    // One more event than tokens: the usual off-by-one.
    b.forEach(0, [](RunRecord& r) { r.request.metrics.tokenEvents = 21; });
    EXPECT_TRUE(checkGuardrails(b.run).empty()) << describe(checkGuardrails(b.run));

    RunBuilder l = cleanRun(Runtime::LlamaServer);
    int n = 0;
    l.forEach(1, [&n](RunRecord& r) {
        if (n++ == 0)
            r.request.response.timings->predictedN = 40; // one odd request is not "consistent"
    });
    EXPECT_TRUE(checkGuardrails(l.run).empty()) << describe(checkGuardrails(l.run));

    // llama-server streams one token per event: many more tokens than events is suspicious.
    l.forEach(0, [](RunRecord& r) {
        if (r.request.response.toolCalls.empty())
            r.request.metrics.tokenEvents = 8;
    });
    const auto g = checkGuardrails(l.run);
    ASSERT_EQ(ids(g), QStringList {QStringLiteral("token_count_mismatch")}) << describe(g);
    EXPECT_TRUE(contains(g[0].evidence, "more tokens than events on a one-token-per-event server"));
}

// ---- runs ----------------------------------------------------------------------------------------------

TEST(Guardrails, FewerThanFiveRunsAreANoteNotAWarning)
{
    RunBuilder b;
    b.addEndpoint({QStringLiteral("A"), QStringLiteral("qwen3.5-9b-nvfp4")});
    b.addEndpoint({QStringLiteral("B"), QStringLiteral("qwen3.5-9b-awq"), Runtime::Vllm, {},
        QStringLiteral("10.0.0.2")});
    b.standardTests(2, 3);
    const auto g = checkGuardrails(b.run);
    ASSERT_EQ(ids(g), QStringList {QStringLiteral("few_runs")}) << describe(g);
    // Repeats of one prompt steady its own row; they are not evidence about the endpoints (§9.7).
    EXPECT_EQ(g[0].severity, Guardrail::Severity::Info);
    EXPECT_TRUE(g[0].advice.contains(QStringLiteral("distinct prompts"))) << g[0].advice.toStdString();
    EXPECT_TRUE(contains(g[0].evidence, "\"A\": factual n=3, weather n=3, chat n=3, chat turn 2 n=3"))
        << g[0].evidence.toStdString();
    EXPECT_EQ(g[0].tests,
        QStringList({QStringLiteral("factual"), QStringLiteral("weather"), QStringLiteral("chat")}));
}

TEST(Guardrails, FailedRunsCountAgainstTheMinimum)
{
    RunBuilder b = cleanRun();
    int n = 0;
    b.forEach(1, [&n](RunRecord& r) {
        if (r.test == u"factual" && n++ < 1)
            r.request.failure = makeFailure(FailureKind::IdleTimeout, QStringLiteral("idle"), QString());
    });
    const auto g = checkGuardrails(b.run);
    ASSERT_EQ(ids(g), QStringList {QStringLiteral("few_runs")}) << describe(g);
    EXPECT_TRUE(contains(g[0].evidence, "\"NVFP4\": factual n=4 (of 5)")) << g[0].evidence.toStdString();
}

TEST(Guardrails, TheSeedsColdStartInAnN3TableIsFlagged)
{
    // 004_*: NVFP4 greeting runs 9360, 82, 81 ms; n=3, no warm-up.
    RunBuilder b;
    b.addEndpoint({QStringLiteral("NVFP4"), QStringLiteral("qwen3.5-9b-nvfp4")});
    b.addEndpoint({QStringLiteral("Q4_K_M"), QStringLiteral("qwen3.5-9b-q4_k_m"), Runtime::Vllm, {},
        QStringLiteral("10.0.0.2")});
    const double nvfp4[] = {9360, 82, 81};
    const double q4[] = {287, 279, 307};
    for (int i = 1; i <= 3; ++i) {
        b.text(0, QStringLiteral("greeting"), i, false, nvfp4[i - 1]);
        b.text(1, QStringLiteral("greeting"), i, false, q4[i - 1]);
    }
    const auto g = checkGuardrails(b.run);
    // Warnings before notes: the cold start matters; few repeats are only a note (§9.7).
    ASSERT_EQ(ids(g), QStringList({QStringLiteral("cold_start"), QStringLiteral("few_runs")})) << describe(g);
    const Guardrail* c = find(g, "cold_start");
    EXPECT_EQ(c->severity, Guardrail::Severity::Warning);
    EXPECT_TRUE(contains(c->evidence,
        "\"NVFP4\" greeting run 1: ttft_any 9360 ms vs median 82 ms of the other 2 runs (114.8×)"))
        << c->evidence.toStdString();
    EXPECT_TRUE(
        contains(c->evidence, "no warm-up request before the first measured one on \"NVFP4\", \"Q4_K_M\""));
    EXPECT_TRUE(contains(c->advice, "9.3 s and 110 s"));
}

TEST(Guardrails, ColdStartOutlierAfterWarmUpsAndMissingWarmUps)
{
    RunBuilder b = cleanRun();
    b.forEach(0, [](RunRecord& r) {
        if (r.test == u"weather" && r.iteration == 1)
            r.request.metrics.ttftAnyMs = 2400;
    });
    auto g = checkGuardrails(b.run);
    ASSERT_EQ(ids(g), QStringList {QStringLiteral("cold_start")}) << describe(g);
    EXPECT_EQ(g[0].severity, Guardrail::Severity::Warning);
    EXPECT_EQ(g[0].tests, QStringList {QStringLiteral("weather")});

    // No warm-ups and no outlier: informational.
    RunBuilder c;
    c.addEndpoint({QStringLiteral("A"), QStringLiteral("qwen3.5-9b-nvfp4")});
    c.addEndpoint({QStringLiteral("B"), QStringLiteral("qwen3.5-9b-awq"), Runtime::Vllm, {},
        QStringLiteral("10.0.0.2")});
    c.standardTests(0, 5);
    g = checkGuardrails(c.run);
    ASSERT_EQ(ids(g), QStringList {QStringLiteral("cold_start")}) << describe(g);
    EXPECT_EQ(g[0].severity, Guardrail::Severity::Info);
    // A first run 5× slower but by less than 500 ms is not a cold start.
    c.forEach(1, [](RunRecord& r) {
        if (r.iteration == 1 && r.test == u"factual")
            r.request.metrics.ttftAnyMs = 550;
    });
    g = checkGuardrails(c.run);
    ASSERT_EQ(ids(g), QStringList {QStringLiteral("cold_start")}) << describe(g);
    EXPECT_EQ(g[0].severity, Guardrail::Severity::Info);
}

TEST(Guardrails, RepeatedPromptsServedFromThePrefixCacheAreReportedNotCalledColdStarts)
{
    RunBuilder b = cleanRun(Runtime::LlamaServer);
    b.forEach(1, [](RunRecord& r) {
        if (r.test != u"factual")
            return;
        if (r.iteration == 1) {
            r.request.metrics.ttftAnyMs = 1200; // full prefill of a fresh question
            return;
        }
        r.request.response.timings->cacheN = 99;
        r.request.response.timings->promptN = 1;
        r.request.metrics.cachedPromptTokens = {99, CountSource::ServerTimings};
        r.request.metrics.ttftAnyMs = 40;
    });
    const auto g = checkGuardrails(b.run);
    ASSERT_EQ(ids(g), QStringList {QStringLiteral("prefix_cache")}) << describe(g);
    EXPECT_EQ(g[0].severity, Guardrail::Severity::Info);
    EXPECT_TRUE(contains(g[0].evidence,
        "\"Q4_K_M\": 4/20 measured requests repeated an earlier prompt and found 99 % "
        "of it cached (median of 100 prompt tokens)"))
        << g[0].evidence.toStdString();
    EXPECT_TRUE(contains(g[0].advice, "cache_prompt"));
}

TEST(Guardrails, ACachedHistoryInAConversationIsRealisticAndNotFlagged)
{
    RunBuilder b = cleanRun(Runtime::LlamaServer);
    b.forEach(1, [](RunRecord& r) {
        if (r.test == u"chat" && r.turn == 2 && r.iteration == 1) {
            r.request.response.timings->cacheN = 95; // turn 1 is cached; the new question is not a repeat
            r.request.metrics.cachedPromptTokens = {95, CountSource::ServerTimings};
        }
    });
    EXPECT_TRUE(checkGuardrails(b.run).empty()) << describe(checkGuardrails(b.run));
}

TEST(Guardrails, LlamaServerWithoutAnyCacheReportIsAskedAbout)
{
    RunBuilder b = cleanRun(Runtime::LlamaServer);
    b.forEach(0, [](RunRecord& r) {
        r.request.response.timings.reset();
        r.request.metrics.cachedPromptTokens = {};
    });
    auto g = checkGuardrails(b.run);
    ASSERT_EQ(ids(g), QStringList {QStringLiteral("prefix_cache")}) << describe(g);
    EXPECT_TRUE(contains(g[0].evidence, "caches prompts by default"));
    // cache_prompt: false answers the question.
    b.forEach(0, [](RunRecord& r) { r.request.requestBody.edit()["cache_prompt"] = false; });
    b.forEach(1, [](RunRecord& r) { r.request.requestBody.edit()["cache_prompt"] = false; });
    g = checkGuardrails(b.run);
    EXPECT_TRUE(g.empty()) << describe(g);
}

// ---- servers ------------------------------------------------------------------------------------------

TEST(Guardrails, DifferentRuntimesAreNamed)
{
    RunBuilder b;
    b.addEndpoint({QStringLiteral("Q4_K_M"), QStringLiteral("qwen3.5-9b-q4_k_m"), Runtime::LlamaServer});
    b.addEndpoint({QStringLiteral("NVFP4"), QStringLiteral("qwen3.5-9b-nvfp4"), Runtime::Vllm, {},
        QStringLiteral("10.0.0.2")});
    b.standardTests();
    const auto g = checkGuardrails(b.run);
    ASSERT_EQ(ids(g), QStringList {QStringLiteral("runtimes_differ")}) << describe(g);
    EXPECT_EQ(g[0].evidence, QStringLiteral("\"Q4_K_M\" llama-server (b9478), \"NVFP4\" vllm (0.17.1)"));
}

TEST(Guardrails, ToolsRefusedByVllmWithoutTheToolParser)
{
    RunBuilder b = cleanRun();
    b.forEach(
        1,
        [](RunRecord& r) {
            if (r.test != u"weather")
                return;
            r.request.httpStatus = 400;
            r.request.response = AssembledResponse();
            r.request.metrics = RequestMetrics();
            r.request.failure = makeFailure(FailureKind::ToolsNotEnabled,
                QStringLiteral("vLLM refused the tools"), QStringLiteral("add the flags"), 400);
            r.request.failure.serverMessage = QStringLiteral(
                "\"auto\" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set");
        },
        true);
    const auto g = checkGuardrails(b.run);
    ASSERT_EQ(ids(g), QStringList {QStringLiteral("tools_without_parser")}) << describe(g);
    EXPECT_EQ(g[0].severity, Guardrail::Severity::Critical);
    EXPECT_TRUE(contains(g[0].evidence, "\"NVFP4\": 7 requests with tools were refused as tools_not_enabled"))
        << g[0].evidence.toStdString();
    EXPECT_TRUE(contains(g[0].advice, "--enable-auto-tool-choice --tool-call-parser"));
    EXPECT_TRUE(contains(g[0].advice, "not the model"));
    EXPECT_EQ(g[0].tests, QStringList {QStringLiteral("weather")});
}

TEST(Guardrails, ToolMarkupInContentWithoutAnyStructuredCall)
{
    RunBuilder b = cleanRun(Runtime::Sglang);
    const auto markup = [](RunRecord& r) {
        if (r.test != u"weather")
            return;
        r.request.response.toolCalls.clear();
        r.request.response.content = QStringLiteral(
            "<tool_call>\n{\"name\": \"web_search\", \"arguments\": {\"query\": \"Paris\"}}\n</tool_call>");
        r.request.response.finishReason = QStringLiteral("stop");
    };
    b.forEach(1, markup, true);
    auto g = checkGuardrails(b.run);
    ASSERT_EQ(ids(g), QStringList {QStringLiteral("tools_without_parser")}) << describe(g);
    EXPECT_TRUE(
        contains(g[0].evidence, "\"NVFP4\": 7/7 tool requests came back with tool-call markup in content"))
        << g[0].evidence.toStdString();
    EXPECT_TRUE(contains(g[0].advice, "SGLang needs --tool-call-parser"));

    // The probe says so too.
    b.run.endpoints[1].probe["runtime_evidence"] = "/v1/models owned_by \"sglang\"; GET /server_info";
    g = checkGuardrails(b.run);
    EXPECT_TRUE(
        contains(g.at(0).evidence, "/server_info shows no tool_call_parser although 7 requests sent tools"))
        << describe(g);

    // With a parser that works most of the time, markup is the model's own slip (a quality gate).
    RunBuilder ok = cleanRun(Runtime::Sglang);
    ok.run.endpoints[1].probe["runtime_evidence"] = "GET /server_info";
    ok.run.endpoints[1].probe["tool_call_parser"] = "qwen3_coder";
    int n = 0;
    ok.forEach(1, [&](RunRecord& r) {
        if (r.test == u"weather" && n++ < 2)
            markup(r);
    });
    EXPECT_TRUE(checkGuardrails(ok.run).empty()) << describe(checkGuardrails(ok.run));
}

TEST(Guardrails, TruncatedAnswersExceptIgnoreEosThroughput)
{
    RunBuilder b = cleanRun();
    b.forEach(0, [](RunRecord& r) {
        r.request.requestBody.edit()["ignore_eos"] = true; // throughput: "length" is the point
        r.request.response.finishReason = QStringLiteral("length");
    });
    b.forEach(1, [](RunRecord& r) {
        r.request.requestBody.edit()["ignore_eos"] = true;
        r.request.response.finishReason = QStringLiteral("length");
    });
    EXPECT_TRUE(checkGuardrails(b.run).empty()) << describe(checkGuardrails(b.run));

    RunBuilder c = cleanRun();
    int n = 0;
    c.forEach(1, [&n](RunRecord& r) {
        if (r.test == u"factual" && n++ < 3)
            r.request.response.finishReason = QStringLiteral("length");
    });
    const auto g = checkGuardrails(c.run);
    ASSERT_EQ(ids(g), QStringList {QStringLiteral("truncated_answers")}) << describe(g);
    EXPECT_TRUE(contains(g[0].evidence, "\"NVFP4\": 3/20 measured requests stopped at max_tokens=256"));
}

// ---- settings and the shape of the run ------------------------------------------------------------

TEST(Guardrails, DifferentSamplingSettingsAreFlagged)
{
    RunBuilder b = cleanRun();
    b.forEach(1, [](RunRecord& r) {
        r.request.requestBody.edit()["temperature"] = 0.7;
        r.request.requestBody.edit()["max_tokens"] = 512;
    });
    const auto g = checkGuardrails(b.run);
    ASSERT_EQ(ids(g), QStringList {QStringLiteral("settings_differ")}) << describe(g);
    EXPECT_TRUE(contains(g[0].evidence,
        "tests factual, weather, chat: \"FP8\" sends max_tokens=256, temperature=0.0, \"NVFP4\" sends "
        "max_tokens=512, temperature=0.7"))
        << g[0].evidence.toStdString();

    // A per-test override on one arm only.
    RunBuilder one = cleanRun();
    one.forEach(0, [](RunRecord& r) {
        if (r.test == u"chat")
            r.request.requestBody.edit()["top_p"] = 0.8;
    });
    const auto h = checkGuardrails(one.run);
    ASSERT_EQ(ids(h), QStringList {QStringLiteral("settings_differ")}) << describe(h);
    EXPECT_EQ(h[0].evidence, QStringLiteral("test chat: \"FP8\" sends top_p=0.8, \"NVFP4\" sends nothing"));
    EXPECT_EQ(h[0].tests, QStringList {QStringLiteral("chat")});
}

// llama-server is sent n_probs where it refuses logprobs (tools in a stream): the same ask.
TEST(Guardrails, LlamaServersNProbsIsTheSameLogprobsAsk)
{
    RunBuilder b = cleanRun();
    b.forEach(0, [](RunRecord& r) {
        r.request.requestBody.edit()["logprobs"] = true;
        r.request.requestBody.edit()["top_logprobs"] = 20;
    });
    b.forEach(1, [](RunRecord& r) { r.request.requestBody.edit()["n_probs"] = 20; });
    // (These records carry no logprobs, so fidelity_no_logprobs speaks; the settings are the same.)
    const auto same = checkGuardrails(b.run);
    EXPECT_FALSE(ids(same).contains(QStringLiteral("settings_differ"))) << describe(same);

    b.forEach(1, [](RunRecord& r) { r.request.requestBody.edit()["n_probs"] = 5; });
    const auto g = checkGuardrails(b.run);
    ASSERT_EQ(ids(g).first(), QStringLiteral("settings_differ")) << describe(g);
    EXPECT_TRUE(contains(g[0].evidence, "\"FP8\" sends top_logprobs=20, \"NVFP4\" sends top_logprobs=5"))
        << g[0].evidence.toStdString();
}

TEST(Guardrails, DifferentConcurrencyIsFlagged)
{
    RunBuilder b = cleanRun();
    b.forEach(1, [](RunRecord& r) { r.concurrency = 4; });
    const auto g = checkGuardrails(b.run);
    ASSERT_EQ(ids(g), QStringList {QStringLiteral("concurrency_differs")}) << describe(g);
    EXPECT_TRUE(contains(g[0].evidence, "test factual: \"FP8\" at 1, \"NVFP4\" at 4"));
}

TEST(Guardrails, FailuresConcentratedOnOneArm)
{
    RunBuilder b = cleanRun();
    int n = 0;
    b.forEach(1, [&n](RunRecord& r) {
        if (n++ % 3 == 0)
            r.request.failure = makeFailure(FailureKind::Disconnected, QStringLiteral("gone"), QString());
    });
    const auto g = checkGuardrails(b.run);
    ASSERT_TRUE(find(g, "failures")) << describe(g);
    EXPECT_TRUE(
        contains(find(g, "failures")->evidence, "\"NVFP4\": 7/20 measured requests failed (disconnected 7)"))
        << find(g, "failures")->evidence.toStdString();
}

TEST(Guardrails, OneCorruptedStreamIsNamedWithItsEndpoint)
{
    RunBuilder b = cleanRun();
    int n = 0;
    b.forEach(1, [&n](RunRecord& r) {
        if (n++ == 4) {
            r.request.failure = makeFailure(FailureKind::MalformedStream, QStringLiteral("bad"), QString());
            r.request.response.malformedEvents = 3;
        }
    });
    const auto g = checkGuardrails(b.run);
    // One is below the `failures` rate, but a corrupted stream is worth a warning of its own; and
    // being a failure, it leaves its cell one successful run short (`few_runs`).
    ASSERT_EQ(ids(g), (QStringList {QStringLiteral("malformed_streams"), QStringLiteral("few_runs")}))
        << describe(g);
    const Guardrail* m = find(g, "malformed_streams");
    EXPECT_TRUE(contains(m->evidence, "\"NVFP4\": 1 of ")) << m->evidence.toStdString();
    EXPECT_TRUE(contains(m->evidence, "had 3 event(s)")) << m->evidence.toStdString();
    EXPECT_EQ(m->endpoints, std::vector<int> {1});
    EXPECT_EQ(m->severity, Guardrail::Severity::Warning);
}

TEST(Guardrails, ParallelArmsOnOneMachine)
{
    RunBuilder b = cleanRun();
    b.run.settings.order = RunOrder::Parallel;
    EXPECT_TRUE(checkGuardrails(b.run).empty()); // separate machines: fine
    b.run.endpoints[0].endpoint.baseUrl = QUrl(QStringLiteral("http://localhost:8003"));
    b.run.endpoints[1].endpoint.baseUrl = QUrl(QStringLiteral("http://127.0.0.1:8000"));
    const auto g = checkGuardrails(b.run);
    ASSERT_EQ(ids(g), QStringList {QStringLiteral("parallel_same_host")}) << describe(g);

    // The dashboard's demo: two simulated endpoints side by side share no GPU, their timings are
    // scheduled; parallel order spoils nothing there, and the demo must not warn about itself.
    for (RunEndpoint& e : b.run.endpoints)
        e.simulated = true;
    EXPECT_EQ(ids(checkGuardrails(b.run)), QStringList {QStringLiteral("simulated_endpoints")});
}

// ---- output ---------------------------------------------------------------------------------------------

TEST(Guardrails, CriticalFirstAndJson)
{
    RunBuilder b = cleanRun();
    b.run.endpoints[1].endpoint.model = QStringLiteral("Qwen/Qwen3.5-27B-NVFP4");
    b.run.endpoints[1].probe["model"] = "Qwen/Qwen3.5-27B-NVFP4";
    b.run.endpoints[1].probe["model_path"] = "";
    b.run.endpoints[1].simulated = true;
    b.forEach(1, [](RunRecord& r) { r.request.metrics.completionTokens.source = CountSource::Estimate; });
    const auto g = checkGuardrails(b.run);
    ASSERT_EQ(ids(g),
        QStringList({QStringLiteral("models_differ"), QStringLiteral("estimated_tokens"),
            QStringLiteral("simulated_endpoints")}))
        << describe(g);
    const nlohmann::json j = toJson(g);
    ASSERT_TRUE(j.is_array());
    ASSERT_EQ(j.size(), 3u);
    EXPECT_EQ(j[0]["id"], "models_differ");
    EXPECT_EQ(j[0]["severity"], "critical");
    EXPECT_EQ(j[1]["severity"], "warning");
    EXPECT_EQ(j[2]["severity"], "info");
    EXPECT_EQ(j[0]["endpoints"], nlohmann::json({0, 1}));
    EXPECT_TRUE(j[1]["tests"].is_array());
    for (const char* key : {"id", "severity", "title", "evidence", "advice", "endpoints", "tests"})
        EXPECT_TRUE(j[0].contains(key)) << key;
}
