// SPDX-License-Identifier: MIT
// Each flaw of the seeds' benchmarks, replayed for real: RunController runs a suite against
// loopback emulators configured to reproduce it (real threads, sockets and streams), and the
// guardrail for that flaw — and only that one — fires on the result. A clean, fair comparison on
// every dialect fires none.
#include "GuardrailTestSupport.h"
#include "model/core/Clock.h"
#include "model/run/RunController.h"
#include "tests/model/ClientTestSupport.h"
#include "tests/support/Emulator.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonObject>
#include <atomic>
#include <cstdio>
#include <gtest/gtest.h>
#include <memory>

using namespace qs;
using namespace qs::test;

namespace {

// ---- small helpers (Served comes from tests/model/ClientTestSupport.h) ----------------------

RunEndpoint runEndpoint(
    const Served& served, const char* label, nlohmann::json extraBody = nlohmann::json::object())
{
    RunEndpoint e;
    e.endpoint = served.endpoint;
    e.endpoint.label = QString::fromUtf8(label);
    e.endpoint.extraBody = std::move(extraBody);
    e.spec = served.endpoint.baseUrl.toString();
    return e;
}

/// Runs to the end with the caller's event loop pumping (the controller's signals are queued).
RunResult runToEnd(RunRequest request)
{
    RunController controller;
    std::optional<RunResult> result;
    QString failed;
    bool done = false;
    QObject::connect(&controller, &RunController::finished,
        [&](const std::shared_ptr<const RunResult>& r, const RunStats&) {
            result = *r;
            done = true;
        });
    QObject::connect(&controller, &RunController::failed, [&](const QString& m) {
        failed = m;
        done = true;
    });
    controller.start(std::move(request));
    const qint64 until = monotonicNs() + qint64(120e9);
    while (!done && monotonicNs() < until)
        QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents, 50);
    EXPECT_TRUE(done) << "the run did not end within 120 s";
    EXPECT_TRUE(failed.isEmpty()) << failed.toStdString();
    return result.value_or(RunResult());
}

/// A voice-assistant-shaped suite built in code: a factual question, a tool call and a 2-turn chat.
Suite suite(int warmup = 1, int runs = 5)
{
    Suite s;
    s.id = QStringLiteral("replay");
    s.name = QStringLiteral("Replay");
    s.system = QStringLiteral("You are a concise voice assistant.");
    s.tools = nlohmann::json::array({{{"type", "function"},
        {"function",
            {{"name", "web_search"},
                {"parameters",
                    {{"type", "object"}, {"properties", {{"query", {{"type", "string"}}}}},
                        {"required", {"query"}}}}}}}});
    s.defaults.warmup = warmup;
    s.defaults.runs = runs;
    s.defaults.maxTokens = 64;
    s.defaults.thinking = false;
    SuiteTest factual;
    factual.id = QStringLiteral("factual");
    factual.turns = {QStringLiteral("What is the capital of Japan?")};
    SuiteTest weather;
    weather.id = QStringLiteral("weather");
    weather.turns = {QStringLiteral("What's the weather in Paris right now?")};
    weather.useTools = true;
    weather.expect.tool = ExpectedTool {QStringLiteral("web_search"), {QStringLiteral("query")}};
    SuiteTest chat;
    chat.id = QStringLiteral("chat");
    chat.turns = {QStringLiteral("Hi, I'm Sam."), QStringLiteral("What's my name?")};
    s.tests = {factual, weather, chat};
    s.raw = {{"id", "replay"}};
    s.source = QStringLiteral("test");
    return s;
}

/// How a simulated server behaves.
struct Behaviour {
    double ttftMs = 4;
    double tokensPerSecond = 400;
    int words = 4; ///< content tokens of a text answer
    QStringList reasoning; ///< thinking before the answer
    emu::ReasoningMode reasoningMode = emu::ReasoningMode::Parsed;
    bool thinkOnlyWhenAsked = false; ///< think only when chat_template_kwargs.enable_thinking is true
    emu::Fault fault = emu::Fault::None;
    double firstCallTtftMs = 0; ///< > 0: the first chat request is this slow (a cold start)
};

emu::ServerConfig server(emu::Dialect dialect, const char* modelId, Behaviour b = {}, bool toolParser = true)
{
    emu::ServerConfig c;
    c.dialect = dialect;
    c.modelId = QString::fromUtf8(modelId);
    c.toolParser = toolParser;
    // The replayed suites repeat their prompts; the prefix_cache guardrail has its own cases.
    c.prefixCaching = false;
    auto calls = std::make_shared<std::atomic<int>>(0);
    c.scriptFor = [b, calls](const emu::RequestInfo& info) {
        static const QStringList answer = {QStringLiteral("Tokyo "), QStringLiteral("is "),
            QStringLiteral("the "), QStringLiteral("capital. ")};
        emu::Script s;
        const bool first = calls->fetch_add(1) == 0;
        s.ttftMs = first && b.firstCallTtftMs > 0 ? b.firstCallTtftMs : b.ttftMs;
        s.tokensPerSecond = b.tokensPerSecond;
        s.fault = b.fault;
        if (info.body.value(QStringLiteral("ignore_eos")).toBool()) {
            // A server ignoring EOS generates until max_tokens.
            const int n = info.body.value(QStringLiteral("max_tokens")).toInt(16) + 1;
            for (int i = 0; i < n; ++i)
                s.content << answer.at(i % answer.size());
            return s;
        }
        if (info.hasTools)
            s.toolCalls = {emu::ToolCallSpec {
                QStringLiteral("web_search"), QStringLiteral("{\"query\": \"Paris weather\"}"), 2}};
        else
            for (int i = 0; i < b.words; ++i)
                s.content << answer.at(i % answer.size());
        const bool asked = info.body.value(QStringLiteral("chat_template_kwargs"))
                               .toObject()
                               .value(QStringLiteral("enable_thinking"))
                               .toBool(false);
        if (!b.reasoning.isEmpty() && (!b.thinkOnlyWhenAsked || asked)) {
            s.reasoning = b.reasoning;
            s.reasoningMode = b.reasoningMode;
        }
        return s;
    };
    return c;
}

QStringList thinking()
{
    QStringList t;
    for (const char* w : {"Thinking ", "Process: ", "1. ", "Analyze ", "the ", "request. ", "The ", "user ",
             "asks ", "for ", "a ", "capital. "})
        t << QString::fromUtf8(w);
    return t;
}

/// Runs `s` against A and B and returns the guardrails.
std::vector<Guardrail> replay(const Served& a, const Served& b, Suite s = suite(),
    nlohmann::json extraA = nlohmann::json::object(), nlohmann::json extraB = nlohmann::json::object(),
    RunResult* out = nullptr)
{
    RunRequest request;
    request.suite = std::move(s);
    request.endpoints = {runEndpoint(a, "A", std::move(extraA)), runEndpoint(b, "B", std::move(extraB))};
    const RunResult result = runToEnd(std::move(request));
    EXPECT_FALSE(result.records.empty());
    if (out)
        *out = result;
    const auto g = checkGuardrails(result);
    if (qEnvironmentVariableIsSet("QS_PRINT_GUARDRAILS"))
        std::printf("%s\n%s\n", describe(g).c_str(), toJson(g).dump(1).c_str());
    return g;
}

bool contains(const Guardrail* g, const char* needle)
{
    return g && g->evidence.contains(QString::fromUtf8(needle));
}

} // namespace

// ---- the clean, fair comparison -----------------------------------------------------------------

TEST(GuardrailReplay, CleanFairComparisonTriggersNothingOnEveryDialect)
{
    const std::pair<emu::Dialect, std::pair<const char*, const char*>> arms[] = {
        {emu::Dialect::LlamaServer, {"qwen3.5-9b-q8_0", "qwen3.5-9b-q4_k_m"}},
        {emu::Dialect::Vllm, {"RedHatAI/Qwen3.5-9B-FP8-dynamic", "AxionML/Qwen3.5-9B-NVFP4"}},
        {emu::Dialect::Sglang, {"Qwen/Qwen3.5-9B-AWQ", "AxionML/Qwen3.5-9B-NVFP4"}},
    };
    for (const auto& [dialect, models] : arms) {
        Served a(server(dialect, models.first));
        Served b(server(dialect, models.second));
        RunResult result;
        const auto g = replay(a, b, suite(), nlohmann::json::object(), nlohmann::json::object(), &result);
        EXPECT_TRUE(g.empty()) << models.first << " vs " << models.second << describe(g);
        // It really was a full run: warm-ups, five measured runs, tool calls through the API.
        EXPECT_EQ(result.records.size(), 2u * (3 + 5 * 4));
        int toolCalls = 0;
        for (const RunRecord& r : result.records) {
            EXPECT_TRUE(r.request.ok()) << r.request.failure.text().toStdString();
            toolCalls += r.request.response.toolCalls.empty() ? 0 : 1;
        }
        EXPECT_EQ(toolCalls, 2 * 6);
    }
}

// ---- the seeds' flaws, one by one ---------------------------------------------------------------

TEST(GuardrailReplay, BaseModelAgainstDistilledFineTuneOnDifferentRuntimes)
{
    // v1: AxionML's base Qwen3.5-9B NVFP4 on vLLM vs the Opus-Distilled Q4_K_M on llama-server.
    Served a(server(emu::Dialect::Vllm, "AxionML/Qwen3.5-9B-NVFP4"));
    Served b(server(emu::Dialect::LlamaServer, "Jackrong/Qwen3.5-9B-Claude-Opus-Distilled-Q4_K_M"));
    const auto g = replay(a, b);
    ASSERT_EQ(ids(g), QStringList({QStringLiteral("models_differ"), QStringLiteral("runtimes_differ")}))
        << describe(g);
    EXPECT_EQ(g[0].severity, Guardrail::Severity::Critical);
    EXPECT_TRUE(contains(&g[0], "'AxionML/Qwen3.5-9B-NVFP4'")) << g[0].evidence.toStdString();
    EXPECT_TRUE(contains(&g[0], "'/models/Jackrong/Qwen3.5-9B-Claude-Opus-Distilled-Q4_K_M.gguf'"));
    EXPECT_TRUE(contains(&g[0], "distilled (claude, opus, distilled) only in \"B\""));
    EXPECT_TRUE(contains(&g[1], "\"A\" vllm")) << g[1].evidence.toStdString();
    EXPECT_TRUE(contains(&g[1], "\"B\" llama-server"));
}

TEST(GuardrailReplay, ThinkingLeakedIntoContentOnOneArm)
{
    // v1: no --reasoning-parser, "Thinking Process: …" in every answer; the 82 ms was a thinking token.
    Behaviour leaky;
    leaky.reasoning = thinking();
    leaky.reasoningMode = emu::ReasoningMode::LeakedWithTags;
    leaky.tokensPerSecond = 200;
    Served a(server(emu::Dialect::Vllm, "qwen3.5-9b-nvfp4", leaky));
    Served b(server(emu::Dialect::Vllm, "qwen3.5-9b-fp8"));
    const auto g = replay(a, b);
    ASSERT_EQ(ids(g), QStringList({QStringLiteral("thinking_differs"), QStringLiteral("reasoning_in_ttft")}))
        << describe(g);
    const Guardrail* r = find(g, "reasoning_in_ttft");
    EXPECT_TRUE(contains(r, "\"A\": 20/20 measured requests began with thinking (20 leaked into content"))
        << r->evidence.toStdString();
    EXPECT_TRUE(contains(r, "median reasoning_ms"));
    EXPECT_EQ(r->endpoints, std::vector<int> {0});
    EXPECT_TRUE(contains(find(g, "thinking_differs"), "\"A\" in 20/20, \"B\" in 0/20"));
}

TEST(GuardrailReplay, ParsedReasoningOnOneArmOnly)
{
    // v2: with the reasoning parser, thinking is hidden in its own field but still precedes the answer.
    Behaviour thinker;
    thinker.reasoning = thinking();
    thinker.tokensPerSecond = 200;
    Served a(server(emu::Dialect::Sglang, "qwen3.5-9b-nvfp4", thinker));
    Served b(server(emu::Dialect::Sglang, "qwen3.5-9b-awq"));
    const auto g = replay(a, b);
    ASSERT_EQ(ids(g), QStringList({QStringLiteral("thinking_differs"), QStringLiteral("reasoning_in_ttft")}))
        << describe(g);
    const Guardrail* r = find(g, "reasoning_in_ttft");
    EXPECT_TRUE(contains(r, "\"A\": 20/20 measured requests began with thinking; median reasoning_ms"))
        << r->evidence.toStdString();
    EXPECT_FALSE(contains(r, "leaked"));
}

TEST(GuardrailReplay, DifferentThinkingSettingsPerArm)
{
    // The arms' extra_body asks one to think and the other not to.
    Behaviour obedient;
    obedient.reasoning = thinking();
    obedient.thinkOnlyWhenAsked = true;
    Served a(server(emu::Dialect::Vllm, "qwen3.5-9b-nvfp4", obedient));
    Served b(server(emu::Dialect::Vllm, "qwen3.5-9b-fp8", obedient));
    Suite s = suite();
    s.defaults.thinking.reset(); // the suite says nothing; the endpoints decide
    const auto g = replay(a, b, s, {{"chat_template_kwargs", {{"enable_thinking", true}}}},
        {{"chat_template_kwargs", {{"enable_thinking", false}}}});
    ASSERT_EQ(ids(g), QStringList({QStringLiteral("thinking_differs"), QStringLiteral("reasoning_in_ttft")}))
        << describe(g);
    EXPECT_EQ(g[0].severity, Guardrail::Severity::Critical);
    EXPECT_TRUE(contains(&g[0],
        "\"A\" sends chat_template_kwargs.enable_thinking=true, \"B\" sends "
        "chat_template_kwargs.enable_thinking=false"))
        << g[0].evidence.toStdString();
}

TEST(GuardrailReplay, NoUsageMeansEstimatedTokens)
{
    // v1 counted len(text)/4; here the server (or a proxy) drops usage and Quantscope must estimate.
    Behaviour noUsage;
    noUsage.fault = emu::Fault::NoUsageChunk;
    Served a(server(emu::Dialect::Vllm, "qwen3.5-9b-nvfp4", noUsage));
    Served b(server(emu::Dialect::Vllm, "qwen3.5-9b-fp8"));
    const auto g = replay(a, b);
    ASSERT_EQ(ids(g), QStringList {QStringLiteral("estimated_tokens")}) << describe(g);
    EXPECT_TRUE(contains(&g[0], "\"A\": completion_tokens of 20/20 measured requests are estimates"))
        << g[0].evidence.toStdString();
}

TEST(GuardrailReplay, ColdStartWithoutWarmUpsAndAbsorbedByWarmUps)
{
    // 004_*: 9360 ms on the first request after server start, then 82 ms; no warm-up.
    Behaviour cold;
    cold.firstCallTtftMs = 2000;
    {
        Served a(server(emu::Dialect::Vllm, "qwen3.5-9b-nvfp4", cold));
        Served b(server(emu::Dialect::Vllm, "qwen3.5-9b-fp8"));
        const auto g = replay(a, b, suite(0, 5));
        ASSERT_EQ(ids(g), QStringList {QStringLiteral("cold_start")}) << describe(g);
        EXPECT_EQ(g[0].severity, Guardrail::Severity::Warning);
        EXPECT_TRUE(contains(&g[0], "run 1: ttft_any 20")) << g[0].evidence.toStdString();
        EXPECT_TRUE(g[0].evidence.startsWith(QStringLiteral("\"A\" ")));
        EXPECT_TRUE(contains(&g[0], "no warm-up request before the first measured one on \"A\", \"B\""));
    }
    {
        Served a(server(emu::Dialect::Vllm, "qwen3.5-9b-nvfp4", cold));
        Served b(server(emu::Dialect::Vllm, "qwen3.5-9b-fp8"));
        const auto g = replay(a, b, suite(1, 5));
        EXPECT_TRUE(g.empty()) << describe(g);
    }
}

TEST(GuardrailReplay, VllmWithoutToolParserRefusesTools)
{
    // v1: vLLM without --enable-auto-tool-choice --tool-call-parser answered 400 to every tool call.
    Served a(server(emu::Dialect::Vllm, "qwen3.5-9b-nvfp4", {}, false));
    Served b(server(emu::Dialect::Vllm, "qwen3.5-9b-fp8"));
    const auto g = replay(a, b);
    ASSERT_EQ(ids(g), QStringList {QStringLiteral("tools_without_parser")}) << describe(g);
    EXPECT_EQ(g[0].severity, Guardrail::Severity::Critical);
    EXPECT_TRUE(contains(&g[0], "\"A\": 6 requests with tools were refused as tools_not_enabled"))
        << g[0].evidence.toStdString();
    EXPECT_TRUE(g[0].advice.contains(QStringLiteral("--enable-auto-tool-choice --tool-call-parser")));
    EXPECT_EQ(g[0].tests, QStringList {QStringLiteral("weather")});
}

TEST(GuardrailReplay, SglangWithoutToolParserPutsToolCallsInContent)
{
    Served a(server(emu::Dialect::Sglang, "qwen3.5-9b-nvfp4", {}, false));
    Served b(server(emu::Dialect::Sglang, "qwen3.5-9b-awq"));
    const auto g = replay(a, b);
    ASSERT_EQ(ids(g), QStringList {QStringLiteral("tools_without_parser")}) << describe(g);
    EXPECT_TRUE(contains(&g[0], "/server_info shows no tool_call_parser although 6 requests sent tools"))
        << g[0].evidence.toStdString();
    EXPECT_TRUE(contains(&g[0], "6/6 tool requests came back with tool-call markup in content"));
    EXPECT_TRUE(g[0].advice.contains(QStringLiteral("SGLang needs --tool-call-parser")));
}

TEST(GuardrailReplay, AnswersCutOffAtMaxTokensButNotThroughputRuns)
{
    Behaviour verbose;
    verbose.words = 12; // more than max_tokens = 8
    Served a(server(emu::Dialect::LlamaServer, "qwen3.5-9b-q8_0", verbose));
    Served b(server(emu::Dialect::LlamaServer, "qwen3.5-9b-q4_k_m"));
    Suite s = suite();
    s.defaults.maxTokens = 8;
    SuiteTest throughput;
    throughput.id = QStringLiteral("throughput");
    throughput.turns = {QStringLiteral("Write anything.")};
    throughput.ignoreEos = true; // both arms hit "length" here on purpose
    s.tests.push_back(throughput);
    const auto g = replay(a, b, s);
    ASSERT_EQ(ids(g), QStringList {QStringLiteral("truncated_answers")}) << describe(g);
    EXPECT_TRUE(contains(&g[0],
        "\"A\": 15/25 measured requests stopped at max_tokens=8 (finish_reason \"length\"): "
        "chat (10), factual (5)"))
        << g[0].evidence.toStdString();
    EXPECT_EQ(g[0].endpoints, std::vector<int> {0});
    EXPECT_FALSE(g[0].tests.contains(QStringLiteral("throughput")));
}

TEST(GuardrailReplay, DifferentRuntimesForTheSameModel)
{
    Served a(server(emu::Dialect::LlamaServer, "qwen3.5-9b-q8_0"));
    Served b(server(emu::Dialect::Vllm, "Qwen/Qwen3.5-9B-FP8"));
    const auto g = replay(a, b);
    ASSERT_EQ(ids(g), QStringList {QStringLiteral("runtimes_differ")}) << describe(g);
    EXPECT_TRUE(contains(&g[0], "\"A\" llama-server (emulated), \"B\" vllm (emulated)"))
        << g[0].evidence.toStdString();
}

TEST(GuardrailReplay, ThreeRunsAreTooFew)
{
    // v1-v2: n=3 per test.
    Served a(server(emu::Dialect::Vllm, "qwen3.5-9b-nvfp4"));
    Served b(server(emu::Dialect::Vllm, "qwen3.5-9b-fp8"));
    const auto g = replay(a, b, suite(1, 3));
    ASSERT_EQ(ids(g), QStringList {QStringLiteral("few_runs")}) << describe(g);
    EXPECT_TRUE(contains(&g[0], "\"A\": factual n=3")) << g[0].evidence.toStdString();
}

TEST(GuardrailReplay, SamplingSettingsThatDifferBetweenArms)
{
    Served a(server(emu::Dialect::Vllm, "qwen3.5-9b-nvfp4"));
    Served b(server(emu::Dialect::Vllm, "qwen3.5-9b-fp8"));
    const auto g = replay(a, b, suite(), nlohmann::json::object(), {{"temperature", 0.7}});
    ASSERT_EQ(ids(g), QStringList {QStringLiteral("settings_differ")}) << describe(g);
    EXPECT_TRUE(contains(&g[0], "\"A\" sends temperature=0.0, \"B\" sends temperature=0.7"))
        << g[0].evidence.toStdString();
}
