// SPDX-License-Identifier: MIT
// Stream and body bytes of each dialect and era, against the samples of
// shared/reference/server-stream-formats.md §6 and §7 (ids and timestamps normalised).

#include "model/core/Clock.h"
#include "tests/emulator/EmulatorTestClient.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <gtest/gtest.h>

using namespace qs::emu;
using namespace qs::emu::test;

namespace {

// One SSE event as the doc prints it.
QByteArray event(const char* json)
{
    return QByteArrayLiteral("data: ") + QByteArray(json) + QByteArrayLiteral("\n\n");
}

ServerConfig llamaConfig(Era era = Era::Current)
{
    ServerConfig config = baseConfig(Dialect::LlamaServer, era);
    config.modelId = QStringLiteral("Qwen3-8B-Q4_K_M.gguf");
    config.version = QStringLiteral("b9465-23e6dab86");
    return config;
}

ServerConfig vllmConfig(Era era = Era::Current)
{
    ServerConfig config = baseConfig(Dialect::Vllm, era);
    config.modelId = QStringLiteral("Qwen/Qwen3-8B");
    config.version = QStringLiteral("0.25.1-6cda6dc1");
    return config;
}

ServerConfig sglangConfig(Era era = Era::Current)
{
    return baseConfig(Dialect::Sglang, era);
}

QJsonObject sglangBody(bool stream)
{
    QJsonObject body = chatBody(stream);
    body.insert(QStringLiteral("model"), QStringLiteral("Qwen3-8B"));
    return body;
}

Script helloScript()
{
    Script script = simpleScript(0, 20, 200);
    script.content = QStringList {QStringLiteral("Hello"), QStringLiteral(" there!")};
    return script;
}

Script reasoningScript(ReasoningMode mode)
{
    Script script = simpleScript(0, 20, 200);
    script.reasoning = QStringList {QStringLiteral("The"), QStringLiteral(" user")};
    script.content = QStringList {QStringLiteral("Hi!")};
    script.reasoningMode = mode;
    return script;
}

Script toolScript(const QString& arguments, int fragments)
{
    Script script = simpleScript(0, 20, 200);
    script.toolCalls.push_back(ToolCallSpec {QStringLiteral("get_weather"), arguments, fragments});
    return script;
}

QJsonObject withUsage(
    QJsonObject body, const QJsonObject& options = {{QStringLiteral("include_usage"), true}})
{
    body.insert(QStringLiteral("stream_options"), options);
    return body;
}

} // namespace

// ---- llama-server --------------------------------------------------------------------------

TEST(EmulatorStreams, LlamaPlainMatchesDocSample)
{
    ServerConfig config = llamaConfig();
    config.script = helloScript();
    EmulatorThread emu;
    ASSERT_TRUE(emu.start(config));
    const RawResponse response = postChat(emu, chatBody(true));

    EXPECT_EQ(response.status, 200);
    EXPECT_EQ(response.header("Content-Type"), "text/event-stream");
    EXPECT_EQ(response.header("X-Accel-Buffering"), "no");
    EXPECT_EQ(response.header("Server"), "llama.cpp");
    EXPECT_TRUE(response.chunked);
    ASSERT_EQ(response.chunks.size(), 4u);
    // Role chunk and first token in one HTTP chunk (one write).
    EXPECT_EQ(normalized(response.chunks[0]),
        normalized(
            event(
                R"({"choices":[{"finish_reason":null,"index":0,"delta":{"role":"assistant","content":null}}],"created":1780390177,"id":"chatcmpl-uI7JNfldkYifvjYLehw5OnRid3v0JxBC","model":"Qwen3-8B-Q4_K_M.gguf","system_fingerprint":"b9465-23e6dab86","object":"chat.completion.chunk"})")
            + event(
                R"({"choices":[{"finish_reason":null,"index":0,"delta":{"content":"Hello"}}],"created":1780390177,"id":"chatcmpl-uI7JNfldkYifvjYLehw5OnRid3v0JxBC","model":"Qwen3-8B-Q4_K_M.gguf","system_fingerprint":"b9465-23e6dab86","object":"chat.completion.chunk"})")));
    EXPECT_EQ(normalized(response.chunks[1]),
        normalized(event(
            R"({"choices":[{"finish_reason":null,"index":0,"delta":{"content":" there!"}}],"created":1780390177,"id":"chatcmpl-uI7JNfldkYifvjYLehw5OnRid3v0JxBC","model":"Qwen3-8B-Q4_K_M.gguf","system_fingerprint":"b9465-23e6dab86","object":"chat.completion.chunk"})")));
    EXPECT_TRUE(
        normalized(response.chunks[2])
            .startsWith(
                R"(data: {"choices":[{"finish_reason":"stop","index":0,"delta":{}}],"created":T,"id":"ID","model":"Qwen3-8B-Q4_K_M.gguf","system_fingerprint":"b9465-23e6dab86","object":"chat.completion.chunk","timings":{"cache_n":0,"prompt_n":)"));
    EXPECT_EQ(response.chunks[3], "data: [DONE]\n\n");
    EXPECT_TRUE(response.complete);

    // The id is chatcmpl- + 32 alphanumerics, the same in every chunk.
    const QList<QByteArray> payloads = response.dataPayloads();
    const QString id = QJsonDocument::fromJson(payloads[0]).object().value(QLatin1String("id")).toString();
    EXPECT_EQ(id.size(), 9 + 32);
    for (qsizetype i = 0; i + 1 < payloads.size(); ++i)
        EXPECT_EQ(QJsonDocument::fromJson(payloads[i]).object().value(QLatin1String("id")).toString(), id);

    const QJsonObject timings
        = QJsonDocument::fromJson(payloads[3]).object().value(QLatin1String("timings")).toObject();
    EXPECT_EQ(timings.value(QLatin1String("prompt_n")).toInt(), 4 + 5); // 5 words + 4
    EXPECT_EQ(timings.value(QLatin1String("predicted_n")).toInt(), 2);
    EXPECT_GE(timings.value(QLatin1String("prompt_ms")).toDouble(), 19.0);
    EXPECT_GT(timings.value(QLatin1String("predicted_per_second")).toDouble(), 0.0);
}

TEST(EmulatorStreams, LlamaCurrentSendsHeadersThenPingsDuringPrefill)
{
    ServerConfig config = llamaConfig();
    config.script = simpleScript(2, 350, 100);
    config.pingIntervalMs = 100;
    EmulatorThread emu;
    ASSERT_TRUE(emu.start(config));
    TestClient client(emu.server()->port());
    const qint64 sent = client.postJson("/v1/chat/completions", chatBody(true));
    const RawResponse response = client.read();
    // Generous bounds (CI shares two cores between two test processes): what matters is that the
    // status line comes long before the 350 ms prefill ends.
    EXPECT_LT(qs::msBetween(sent, response.headNs), 150.0); // status line before prefill
    ASSERT_GE(response.chunks.size(), 4u);
    for (int i = 0; i < 3; ++i)
        EXPECT_EQ(response.chunks[std::size_t(i)], ":\n\n") << i;
    EXPECT_TRUE(response.chunks[3].startsWith("data: {\"choices\""));
    const auto served = emu.server()->servedRequests();
    ASSERT_EQ(served.size(), 1u);
    EXPECT_LT(qs::msBetween(served[0].receivedNs, served[0].headersSentNs), 150.0);
}

TEST(EmulatorStreams, LlamaLegacySendsHeadersWithFirstToken)
{
    ServerConfig config = llamaConfig(Era::Legacy);
    config.script = simpleScript(2, 150, 100);
    config.pingIntervalMs = 30;
    EmulatorThread emu;
    ASSERT_TRUE(emu.start(config));
    TestClient client(emu.server()->port());
    const qint64 sent = client.postJson("/v1/chat/completions", chatBody(true));
    const RawResponse response = client.read();
    EXPECT_GE(qs::msBetween(sent, response.headNs), 130.0);
    ASSERT_FALSE(response.chunks.empty());
    EXPECT_TRUE(response.chunks[0].startsWith("data: ")); // no pings
    EXPECT_FALSE(response.body.contains(":\n\n:"));
    const auto served = emu.server()->servedRequests();
    EXPECT_EQ(served[0].headersSentNs, served[0].tokenWriteNs.front());
}

TEST(EmulatorStreams, LlamaReasoningParsedAndLeaked)
{
    ServerConfig config = llamaConfig();
    config.script = reasoningScript(ReasoningMode::Parsed);
    EmulatorThread emu;
    ASSERT_TRUE(emu.start(config));
    RawResponse response = postChat(emu, chatBody(true));
    QList<QByteArray> payloads = response.dataPayloads();
    ASSERT_GE(payloads.size(), 5);
    EXPECT_EQ(normalized(payloads[1]),
        R"({"choices":[{"finish_reason":null,"index":0,"delta":{"reasoning_content":"The"}}],"created":T,"id":"ID","model":"Qwen3-8B-Q4_K_M.gguf","system_fingerprint":"b9465-23e6dab86","object":"chat.completion.chunk"})");
    EXPECT_TRUE(payloads[3].contains(R"("delta":{"content":"Hi!"})"));

    config.script = reasoningScript(ReasoningMode::LeakedWithTags);
    emu.server()->setConfig(config);
    response = postChat(emu, chatBody(true));
    QString content;
    for (const QByteArray& payload : response.dataPayloads()) {
        const QJsonObject delta = QJsonDocument::fromJson(payload)
                                      .object()
                                      .value(QLatin1String("choices"))
                                      .toArray()
                                      .at(0)
                                      .toObject()
                                      .value(QLatin1String("delta"))
                                      .toObject();
        EXPECT_FALSE(delta.contains(QLatin1String("reasoning_content")));
        content += delta.value(QLatin1String("content")).toString();
    }
    EXPECT_EQ(content, QLatin1String("<think>The user</think>Hi!"));
    EXPECT_TRUE(
        response.dataPayloads()[1].contains(R"("delta":{"content":"<think>"})")); // the tag is its own token

    config.script = reasoningScript(ReasoningMode::LeakedBareClose);
    emu.server()->setConfig(config);
    response = postChat(emu, chatBody(true));
    EXPECT_TRUE(response.body.contains(R"("delta":{"content":"</think>"})"));
    EXPECT_FALSE(response.body.contains("<think>"));

    // ServedRequest: reasoning is not visible, leaked reasoning is.
    const auto served = emu.server()->servedRequests();
    ASSERT_EQ(served.size(), 3u);
    EXPECT_EQ(served[0].firstVisibleWriteNs, served[0].tokenWriteNs[2]);
    EXPECT_EQ(served[1].firstVisibleWriteNs, served[1].tokenWriteNs[0]);
    EXPECT_EQ(served[0].completionTokens, 3);
    EXPECT_EQ(served[1].completionTokens, 5); // <think>, 2 reasoning, </think>, 1 content
}

TEST(EmulatorStreams, LlamaToolCallMatchesDocShape)
{
    ServerConfig config = llamaConfig();
    config.script = toolScript(QStringLiteral(R"({"location":"Paris"})"), 2);
    EmulatorThread emu;
    ASSERT_TRUE(emu.start(config));
    const RawResponse response = postChat(emu, withTools(chatBody(true)));
    const QList<QByteArray> payloads = response.dataPayloads();
    ASSERT_EQ(payloads.size(), 5);
    EXPECT_EQ(normalized(payloads[1]),
        R"({"choices":[{"finish_reason":null,"index":0,"delta":{"tool_calls":[{"index":0,"id":"ID","type":"function","function":{"name":"get_weather","arguments":"{\"location"}}]}}],"created":T,"id":"ID","model":"Qwen3-8B-Q4_K_M.gguf","system_fingerprint":"b9465-23e6dab86","object":"chat.completion.chunk"})");
    EXPECT_EQ(normalized(payloads[2]),
        R"({"choices":[{"finish_reason":null,"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\":\"Paris\"}"}}]}}],"created":T,"id":"ID","model":"Qwen3-8B-Q4_K_M.gguf","system_fingerprint":"b9465-23e6dab86","object":"chat.completion.chunk"})");
    EXPECT_TRUE(
        payloads[3].startsWith(R"({"choices":[{"finish_reason":"tool_calls","index":0,"delta":{}}])"));
    const QString toolId = QJsonDocument::fromJson(payloads[1])
                               .object()[QLatin1String("choices")][0][QLatin1String("delta")]
                                        [QLatin1String("tool_calls")][0][QLatin1String("id")]
                               .toString();
    EXPECT_EQ(toolId.size(), 32);
}

TEST(EmulatorStreams, LlamaUsageChunkCarriesTimingsInTheSameWrite)
{
    ServerConfig config = llamaConfig();
    config.script = helloScript();
    EmulatorThread emu;
    ASSERT_TRUE(emu.start(config));
    RawResponse response = postChat(emu, withUsage(chatBody(true)));
    ASSERT_EQ(response.chunks.size(), 4u);
    const QByteArray tail = normalized(response.chunks[2]);
    EXPECT_TRUE(tail.startsWith(event(
        R"({"choices":[{"finish_reason":"stop","index":0,"delta":{}}],"created":T,"id":"ID","model":"Qwen3-8B-Q4_K_M.gguf","system_fingerprint":"b9465-23e6dab86","object":"chat.completion.chunk"})")));
    EXPECT_TRUE(tail.contains(
        R"(data: {"choices":[],"created":T,"id":"ID","model":"Qwen3-8B-Q4_K_M.gguf","system_fingerprint":"b9465-23e6dab86","object":"chat.completion.chunk","usage":{"completion_tokens":2,"prompt_tokens":9,"total_tokens":11},"timings":{"cache_n":0,)"));
    EXPECT_EQ(response.chunks[3], "data: [DONE]\n\n");

    config.script.includeTimings = false;
    emu.server()->setConfig(config);
    response = postChat(emu, chatBody(true));
    EXPECT_FALSE(response.body.contains("timings"));
    EXPECT_FALSE(response.body.contains("usage")); // include_usage defaults to false
}

TEST(EmulatorStreams, LlamaNonStreamingBody)
{
    ServerConfig config = llamaConfig();
    config.script = reasoningScript(ReasoningMode::Parsed);
    EmulatorThread emu;
    ASSERT_TRUE(emu.start(config));
    const RawResponse response = postChat(emu, chatBody(false));
    EXPECT_EQ(response.header("Content-Type"), "application/json; charset=utf-8");
    EXPECT_TRUE(
        normalized(response.body)
            .startsWith(
                R"({"choices":[{"finish_reason":"stop","index":0,"message":{"role":"assistant","reasoning_content":"The user","content":"Hi!"}}],"created":T,"model":"Qwen3-8B-Q4_K_M.gguf","system_fingerprint":"b9465-23e6dab86","object":"chat.completion","usage":{"completion_tokens":3,"prompt_tokens":9,"total_tokens":12},"id":"ID","timings":{)"));
}

// ---- vLLM ----------------------------------------------------------------------------------

TEST(EmulatorStreams, VllmCurrentPlainMatchesDocSample)
{
    ServerConfig config = vllmConfig();
    config.script = helloScript();
    config.script.ttftMs = 150;
    EmulatorThread emu;
    ASSERT_TRUE(emu.start(config));
    TestClient client(emu.server()->port());
    const qint64 sent = client.postJson("/v1/chat/completions", chatBody(true));
    const RawResponse response = client.read();
    EXPECT_EQ(response.header("content-type"), "text/event-stream; charset=utf-8");
    EXPECT_EQ(response.header("server"), "uvicorn");
    EXPECT_LT(qs::msBetween(sent, response.headNs), 100.0); // headers before the 150 ms prefill
    const QList<QByteArray> payloads = response.dataPayloads();
    ASSERT_EQ(payloads.size(), 5);
    EXPECT_EQ(response.chunks.size(), 5u); // one HTTP chunk per yield
    EXPECT_EQ(normalized(payloads[0]),
        normalized(
            R"({"id":"chatcmpl-84fd71592962667f","object":"chat.completion.chunk","created":1779158289,"model":"Qwen/Qwen3-8B","choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}],"prompt_token_ids":null})"));
    EXPECT_EQ(normalized(payloads[1]),
        normalized(
            R"({"id":"chatcmpl-84fd71592962667f","object":"chat.completion.chunk","created":1779158289,"model":"Qwen/Qwen3-8B","choices":[{"index":0,"delta":{"content":"Hello"},"logprobs":null,"finish_reason":null,"token_ids":null}]})"));
    EXPECT_EQ(normalized(payloads[3]),
        normalized(
            R"({"id":"chatcmpl-84fd71592962667f","object":"chat.completion.chunk","created":1779158289,"model":"Qwen/Qwen3-8B","choices":[{"index":0,"delta":{"content":""},"logprobs":null,"finish_reason":"stop","stop_reason":null,"token_ids":null}],"system_fingerprint":"vllm-0.25.1-6cda6dc1"})"));
    EXPECT_EQ(payloads[4], "[DONE]");
    // 16 hex in 2026 builds.
    const QString id = QJsonDocument::fromJson(payloads[0]).object().value(QLatin1String("id")).toString();
    EXPECT_EQ(id.size(), 9 + 16);
}

TEST(EmulatorStreams, VllmReasoningFieldPerEra)
{
    struct Case {
        Era era;
        const char* role;
        const char* reasoning;
        const char* content;
    };
    for (const Case& c : {Case {Era::Current, R"({"role":"assistant","content":""})",
                              R"({"reasoning":"The"})", R"({"content":"Hi!"})"},
             Case {Era::Transitional, R"({"role":"assistant","content":"","reasoning_content":null})",
                 R"({"reasoning":"The","reasoning_content":"The"})",
                 R"({"content":"Hi!","reasoning_content":null})"},
             Case {Era::Legacy, R"({"role":"assistant","content":""})", R"({"reasoning_content":"The"})",
                 R"({"content":"Hi!"})"}}) {
        ServerConfig config = vllmConfig(c.era);
        config.script = reasoningScript(ReasoningMode::Parsed);
        EmulatorThread emu;
        ASSERT_TRUE(emu.start(config));
        const QList<QByteArray> payloads = postChat(emu, chatBody(true)).dataPayloads();
        ASSERT_EQ(payloads.size(), 6);
        EXPECT_TRUE(payloads[0].contains(QByteArray(QByteArrayLiteral("\"delta\":") + c.role)))
            << payloads[0].constData();
        EXPECT_TRUE(payloads[1].contains(QByteArray(QByteArrayLiteral("\"delta\":") + c.reasoning)))
            << payloads[1].constData();
        EXPECT_TRUE(payloads[3].contains(QByteArray(QByteArrayLiteral("\"delta\":") + c.content)))
            << payloads[3].constData();
        EXPECT_EQ(payloads[4].contains("system_fingerprint"), c.era == Era::Current);
        if (c.era == Era::Transitional) {
            EXPECT_TRUE(payloads[4].contains(R"("delta":{"content":"","reasoning_content":null})"));
        }
    }
}

TEST(EmulatorStreams, VllmUsageOnceStreamOptionsIsPresent)
{
    ServerConfig config = vllmConfig();
    config.script = reasoningScript(ReasoningMode::Parsed);
    EmulatorThread emu;
    ASSERT_TRUE(emu.start(config));

    QList<QByteArray> payloads = postChat(emu, withUsage(chatBody(true), QJsonObject {})).dataPayloads();
    ASSERT_EQ(payloads.size(), 7);
    EXPECT_FALSE(payloads[4].contains("system_fingerprint")); // it moves to the usage chunk
    EXPECT_EQ(normalized(payloads[5]),
        R"({"id":"ID","object":"chat.completion.chunk","created":T,"model":"Qwen/Qwen3-8B","choices":[],"usage":{"prompt_tokens":9,"total_tokens":12,"completion_tokens":3,"completion_tokens_details":{"reasoning_tokens":2}},"system_fingerprint":"vllm-0.25.1-6cda6dc1"})");

    payloads
        = postChat(emu, withUsage(chatBody(true), QJsonObject {{QStringLiteral("include_usage"), false}}))
              .dataPayloads();
    EXPECT_EQ(payloads.size(), 6);
    payloads = postChat(emu, chatBody(true)).dataPayloads();
    EXPECT_EQ(payloads.size(), 6);

    config = vllmConfig(Era::Legacy);
    config.script = helloScript();
    emu.server()->setConfig(config);
    payloads = postChat(emu, withUsage(chatBody(true))).dataPayloads();
    EXPECT_EQ(normalized(payloads[4]),
        R"({"id":"ID","object":"chat.completion.chunk","created":T,"model":"Qwen/Qwen3-8B","choices":[],"usage":{"prompt_tokens":9,"total_tokens":11,"completion_tokens":2}})");
}

TEST(EmulatorStreams, VllmToolCallMatchesDocSample)
{
    ServerConfig config = vllmConfig(Era::Legacy);
    config.script = toolScript(QStringLiteral(R"({"location": "Paris"})"), 2);
    EmulatorThread emu;
    ASSERT_TRUE(emu.start(config));
    const QList<QByteArray> payloads = postChat(emu, withTools(chatBody(true))).dataPayloads();
    ASSERT_EQ(payloads.size(), 6);
    EXPECT_EQ(normalized(payloads[1]),
        R"({"id":"ID","object":"chat.completion.chunk","created":T,"model":"Qwen/Qwen3-8B","choices":[{"index":0,"delta":{"tool_calls":[{"id":"TOOL","type":"function","index":0,"function":{"name":"get_weather"}}]},"logprobs":null,"finish_reason":null,"token_ids":null}]})");
    EXPECT_EQ(normalized(payloads[2]),
        R"({"id":"ID","object":"chat.completion.chunk","created":T,"model":"Qwen/Qwen3-8B","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"location"}}]},"logprobs":null,"finish_reason":null,"token_ids":null}]})");
    EXPECT_EQ(normalized(payloads[4]),
        R"({"id":"ID","object":"chat.completion.chunk","created":T,"model":"Qwen/Qwen3-8B","choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"tool_calls","stop_reason":null,"token_ids":null}]})");
    EXPECT_TRUE(QJsonDocument::fromJson(payloads[1]).toJson().contains("chatcmpl-tool-"));

    config.era = Era::Transitional;
    emu.server()->setConfig(config);
    const QList<QByteArray> transitional = postChat(emu, withTools(chatBody(true))).dataPayloads();
    EXPECT_TRUE(transitional[1].contains(R"("delta":{"reasoning_content":null,"tool_calls":[)"));
}

TEST(EmulatorStreams, VllmNonStreamingBodyPerEra)
{
    ServerConfig config = vllmConfig();
    config.script = reasoningScript(ReasoningMode::Parsed);
    EmulatorThread emu;
    ASSERT_TRUE(emu.start(config));
    RawResponse response = postChat(emu, chatBody(false));
    EXPECT_EQ(response.header("content-type"), "application/json");
    EXPECT_TRUE(
        normalized(response.body)
            .startsWith(
                R"({"id":"ID","object":"chat.completion","created":T,"model":"Qwen/Qwen3-8B","choices":[{"index":0,"message":{"role":"assistant","content":"Hi!","refusal":null,"annotations":null,"audio":null,"function_call":null,"reasoning":"The user"},"logprobs":null,"finish_reason":"stop","stop_reason":null,"token_ids":null}],"service_tier":null,"system_fingerprint":"vllm-0.25.1-6cda6dc1","usage":{"prompt_tokens":9,"total_tokens":12,"completion_tokens":3,"prompt_tokens_details":null},"prompt_logprobs":null,"prompt_token_ids":null,"kv_transfer_params":null})"));
    config.era = Era::Transitional;
    emu.server()->setConfig(config);
    response = postChat(emu, chatBody(false));
    EXPECT_TRUE(
        response.body.contains(R"("tool_calls":[],"reasoning":"The user","reasoning_content":"The user"})"));
}

// ---- SGLang --------------------------------------------------------------------------------

TEST(EmulatorStreams, SglangCurrentPlainMatchesDocSample)
{
    ServerConfig config = sglangConfig();
    config.script = helloScript();
    config.script.content = QStringList {QStringLiteral("Hello")};
    config.script.ttftMs = 120;
    EmulatorThread emu;
    ASSERT_TRUE(emu.start(config));
    TestClient client(emu.server()->port());
    const qint64 sent = client.postJson("/v1/chat/completions", sglangBody(true));
    const RawResponse response = client.read();
    EXPECT_GE(qs::msBetween(sent, response.headNs), 100.0); // nothing before the first token
    EXPECT_EQ(response.header("content-type"), "text/event-stream; charset=utf-8");
    const QList<QByteArray> payloads = response.dataPayloads();
    ASSERT_EQ(payloads.size(), 4);
    EXPECT_EQ(normalized(payloads[0]),
        normalized(
            R"({"id":"8fe1630f301c48a3bf7c4600cd5b17bc","object":"chat.completion.chunk","created":1779609667,"model":"Qwen3-8B","choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null,"matched_stop":null}]})"));
    EXPECT_EQ(normalized(payloads[1]),
        normalized(
            R"({"id":"8fe1630f301c48a3bf7c4600cd5b17bc","object":"chat.completion.chunk","created":1779609667,"model":"Qwen3-8B","choices":[{"index":0,"delta":{"content":"Hello"},"logprobs":null,"finish_reason":null,"matched_stop":null}]})"));
    EXPECT_EQ(normalized(payloads[2]),
        normalized(
            R"({"id":"8fe1630f301c48a3bf7c4600cd5b17bc","object":"chat.completion.chunk","created":1779609668,"model":"Qwen3-8B","choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"stop","matched_stop":151645}]})"));
    EXPECT_EQ(payloads[3], "[DONE]");
    // 32 hex, no chatcmpl- prefix.
    const QString id = QJsonDocument::fromJson(payloads[0]).object().value(QLatin1String("id")).toString();
    EXPECT_EQ(id.size(), 32);

    // The model is echoed, "default" when none was sent.
    const QList<QByteArray> noModel = postChat(emu, chatBody(true)).dataPayloads();
    EXPECT_TRUE(noModel[0].contains(R"("model":"default")"));
}

TEST(EmulatorStreams, SglangLegacyMatchesDocSample)
{
    ServerConfig config = sglangConfig(Era::Legacy);
    config.script = helloScript();
    config.script.content = QStringList {QStringLiteral("Hello")};
    EmulatorThread emu;
    ASSERT_TRUE(emu.start(config));
    const QList<QByteArray> payloads = postChat(emu, sglangBody(true)).dataPayloads();
    ASSERT_EQ(payloads.size(), 4);
    EXPECT_EQ(normalized(payloads[0]),
        normalized(
            R"({"id":"8fe1630f301c48a3bf7c4600cd5b17bc","object":"chat.completion.chunk","created":1779609667,"model":"Qwen3-8B","choices":[{"index":0,"delta":{"role":"assistant","content":"","reasoning_content":null,"tool_calls":null},"logprobs":null,"finish_reason":null,"matched_stop":null}],"usage":null})"));
    EXPECT_EQ(normalized(payloads[1]),
        normalized(
            R"({"id":"8fe1630f301c48a3bf7c4600cd5b17bc","object":"chat.completion.chunk","created":1779609667,"model":"Qwen3-8B","choices":[{"index":0,"delta":{"role":null,"content":"Hello","reasoning_content":null,"tool_calls":null},"logprobs":null,"finish_reason":null,"matched_stop":null}],"usage":null})"));
    EXPECT_EQ(normalized(payloads[2]),
        normalized(
            R"({"id":"8fe1630f301c48a3bf7c4600cd5b17bc","object":"chat.completion.chunk","created":1779609668,"model":"Qwen3-8B","choices":[{"index":0,"delta":{"role":null,"content":null,"reasoning_content":null,"tool_calls":null},"logprobs":null,"finish_reason":"stop","matched_stop":151645}],"usage":null})"));
}

TEST(EmulatorStreams, SglangReasoningToolCallAndUsage)
{
    ServerConfig config = sglangConfig();
    config.script = toolScript(QStringLiteral(R"({"location": "Paris"})"), 1);
    config.script.reasoning = QStringList {QStringLiteral("The user")};
    EmulatorThread emu;
    ASSERT_TRUE(emu.start(config));
    const QList<QByteArray> payloads = postChat(emu, withUsage(withTools(sglangBody(true)))).dataPayloads();
    ASSERT_EQ(payloads.size(), 7);
    EXPECT_EQ(normalized(payloads[1]),
        R"({"id":"ID","object":"chat.completion.chunk","created":T,"model":"Qwen3-8B","choices":[{"index":0,"delta":{"reasoning_content":"The user"},"logprobs":null,"finish_reason":null,"matched_stop":null}]})");
    EXPECT_EQ(normalized(payloads[2]),
        R"({"id":"ID","object":"chat.completion.chunk","created":T,"model":"Qwen3-8B","choices":[{"index":0,"delta":{"role":null,"content":null,"reasoning_content":null,"tool_calls":[{"id":"TOOL","index":0,"type":"function","function":{"name":"get_weather","arguments":""}}]},"logprobs":null,"finish_reason":null,"matched_stop":null}],"usage":null})");
    EXPECT_EQ(normalized(payloads[3]),
        R"({"id":"ID","object":"chat.completion.chunk","created":T,"model":"Qwen3-8B","choices":[{"index":0,"delta":{"role":null,"content":null,"reasoning_content":null,"tool_calls":[{"id":null,"index":0,"type":"function","function":{"name":null,"arguments":"{\"location\": \"Paris\"}"}}]},"logprobs":null,"finish_reason":null,"matched_stop":null}],"usage":null})");
    EXPECT_EQ(normalized(payloads[4]),
        R"({"id":"ID","object":"chat.completion.chunk","created":T,"model":"Qwen3-8B","choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"tool_calls","matched_stop":null}]})");
    EXPECT_EQ(normalized(payloads[5]),
        R"({"id":"ID","object":"chat.completion.chunk","created":T,"model":"Qwen3-8B","choices":[],"usage":{"prompt_tokens":9,"total_tokens":12,"completion_tokens":3,"prompt_tokens_details":null,"reasoning_tokens":1}})");
}

TEST(EmulatorStreams, SglangWithoutToolParserPrintsMarkup)
{
    ServerConfig config = sglangConfig();
    config.toolParser = false;
    config.script = toolScript(QStringLiteral(R"({"query": "Paris weather"})"), 2);
    config.script.toolCalls[0].name = QStringLiteral("web_search");
    EmulatorThread emu;
    ASSERT_TRUE(emu.start(config));
    const RawResponse response = postChat(emu, withTools(sglangBody(true)));
    QString content;
    for (const QByteArray& payload : response.dataPayloads()) {
        EXPECT_FALSE(payload.contains("tool_calls"));
        content
            += QJsonDocument::fromJson(payload)
                   .object()[QLatin1String("choices")][0][QLatin1String("delta")][QLatin1String("content")]
                   .toString();
    }
    EXPECT_EQ(content,
        QStringLiteral("<tool_call>\n{\"name\": \"web_search\", \"arguments\": {\"query\": \"Paris "
                       "weather\"}}\n</tool_call>"));
    EXPECT_TRUE(response.body.contains(R"("finish_reason":"stop","matched_stop":151645)"));
}

TEST(EmulatorStreams, SglangNonStreamingBody)
{
    ServerConfig config = sglangConfig();
    config.script = helloScript();
    EmulatorThread emu;
    ASSERT_TRUE(emu.start(config));
    const RawResponse response = postChat(emu, sglangBody(false));
    EXPECT_EQ(normalized(response.body),
        R"({"id":"ID","object":"chat.completion","created":T,"model":"Qwen3-8B","choices":[{"index":0,"message":{"role":"assistant","content":"Hello there!","reasoning_content":null,"tool_calls":null},"logprobs":null,"finish_reason":"stop","matched_stop":151645}],"usage":{"prompt_tokens":9,"total_tokens":11,"completion_tokens":2,"prompt_tokens_details":null,"reasoning_tokens":0},"metadata":{"weight_version":"default"}})");
}

// ---- common rules --------------------------------------------------------------------------

TEST(EmulatorStreams, MaxTokensTruncatesWithLength)
{
    for (const Dialect dialect : {Dialect::LlamaServer, Dialect::Vllm, Dialect::Sglang}) {
        ServerConfig config = baseConfig(dialect);
        config.script = simpleScript(10, 10, 500);
        EmulatorThread emu;
        ASSERT_TRUE(emu.start(config));
        QJsonObject body = withUsage(chatBody(true));
        body.insert(QStringLiteral("max_tokens"), 4);
        const RawResponse response = postChat(emu, body);
        EXPECT_TRUE(response.body.contains(R"("finish_reason":"length")"));
        EXPECT_TRUE(response.body.contains(R"("completion_tokens":4)"));
        EXPECT_FALSE(response.body.contains("w4 "));
        EXPECT_EQ(emu.server()->servedRequests()[0].tokenWriteNs.size(), 4u);
    }
}

TEST(EmulatorStreams, ScriptForSeesTheRequest)
{
    ServerConfig config = baseConfig(Dialect::Vllm);
    RequestInfo seen;
    config.scriptFor = [&seen](const RequestInfo& info) {
        seen = info;
        return simpleScript(info.promptTokens, 5, 500);
    };
    EmulatorThread emu;
    ASSERT_TRUE(emu.start(config));
    const RawResponse response
        = postChat(emu, withTools(withUsage(chatBody(true, QStringLiteral("one two three")))));
    EXPECT_EQ(response.status, 200);
    EXPECT_EQ(seen.method, "POST");
    EXPECT_EQ(seen.path, "/v1/chat/completions");
    EXPECT_EQ(seen.promptTokens, 7);
    EXPECT_TRUE(seen.stream);
    EXPECT_TRUE(seen.includeUsage);
    EXPECT_TRUE(seen.hasTools);
    EXPECT_EQ(emu.server()->servedRequests()[0].completionTokens, 7);
    EXPECT_EQ(emu.server()->servedRequests()[0].request.promptTokens, 7);
}
