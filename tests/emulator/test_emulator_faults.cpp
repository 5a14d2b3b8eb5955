// SPDX-License-Identifier: MIT
// Errors and scripted faults: exact HTTP error bodies, in-stream errors, disconnects, stalls.

#include "model/core/Clock.h"
#include "tests/emulator/EmulatorTestClient.h"

#include <QJsonArray>
#include <QThread>
#include <gtest/gtest.h>

using namespace qs::emu;
using namespace qs::emu::test;

namespace {

Script faultScript(Fault fault, int afterTokens, int tokens = 6)
{
    Script script = simpleScript(tokens, 10, 200);
    script.fault = fault;
    script.faultAfterTokens = afterTokens;
    return script;
}

QJsonObject longPrompt(int promptTokens, bool stream = true)
{
    QString text;
    for (int i = 0; i < promptTokens - 4; ++i)
        text += QStringLiteral("w ");
    return chatBody(stream, text);
}

} // namespace

// ---- HTTP errors -------------------------------------------------------------------------

TEST(EmulatorFaults, ContextExceededBodies)
{
    struct Case {
        Dialect dialect;
        QByteArray body;
    };
    for (const Case& c :
        {Case {Dialect::LlamaServer,
             R"({"error":{"code":400,"message":"request (5000 tokens) exceeds the available context size (4096 tokens), try increasing it","type":"exceed_context_size_error","n_prompt_tokens":5000,"n_ctx":4096}})"},
            Case {Dialect::Vllm,
                R"x({"error":{"message":"This model's maximum context length is 4096 tokens. However, your request has 5000 input tokens. Please reduce the length of the input messages. (parameter=input_tokens, value=5000)","type":"BadRequestError","param":"input_tokens","code":400}})x"},
            Case {Dialect::Sglang,
                R"({"object":"error","message":"The input (5000 tokens) is longer than the model's context length (4096 tokens).","type":"BadRequestError","param":null,"code":400})"}}) {
        ServerConfig config = baseConfig(c.dialect);
        config.contextSize = 4096;
        EmulatorThread emu;
        ASSERT_TRUE(emu.start(config));
        const RawResponse response = postChat(emu, longPrompt(5000)); // streaming, still a plain 400
        EXPECT_EQ(response.status, 400);
        EXPECT_FALSE(response.chunked);
        EXPECT_EQ(response.body, c.body);
        EXPECT_EQ(emu.server()->servedRequests()[0].httpStatus, 400);
    }
}

TEST(EmulatorFaults, ContextCountsMaxTokensExceptOnLlama)
{
    for (const Dialect dialect : {Dialect::LlamaServer, Dialect::Vllm, Dialect::Sglang}) {
        ServerConfig config = baseConfig(dialect);
        config.contextSize = 100;
        EmulatorThread emu;
        ASSERT_TRUE(emu.start(config));
        QJsonObject body = longPrompt(60);
        body.insert(QStringLiteral("max_tokens"), 50);
        const RawResponse response = postChat(emu, body);
        EXPECT_EQ(response.status, dialect == Dialect::LlamaServer ? 200 : 400) << int(dialect);
    }
}

TEST(EmulatorFaults, VllmToolsWithoutParser)
{
    const QByteArray message
        = R"("message":"\"auto\" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set","type":"BadRequestError","param":null,"code":400)";
    for (const Era era : {Era::Current, Era::Transitional, Era::Legacy}) {
        ServerConfig config = baseConfig(Dialect::Vllm, era);
        config.toolParser = false;
        EmulatorThread emu;
        ASSERT_TRUE(emu.start(config));
        const RawResponse response = postChat(emu, withTools(chatBody(true)));
        EXPECT_EQ(response.status, 400);
        const QByteArray expected = era == Era::Legacy
            ? QByteArray(QByteArrayLiteral(R"({"object":"error",)") + message + '}')
            : QByteArray(QByteArrayLiteral(R"({"error":{)") + message + "}}");
        EXPECT_EQ(response.body, expected);

        // "required" is constrained decoding and needs no parser; no tools needs nothing.
        QJsonObject required = withTools(chatBody(true));
        required.insert(QStringLiteral("tool_choice"), QStringLiteral("required"));
        EXPECT_EQ(postChat(emu, required).status, 200);
        EXPECT_EQ(postChat(emu, chatBody(true)).status, 200);
    }
}

TEST(EmulatorFaults, VllmUnknownModel)
{
    EmulatorThread emu;
    ASSERT_TRUE(emu.start(baseConfig(Dialect::Vllm)));
    QJsonObject body = chatBody(true);
    body.insert(QStringLiteral("model"), QStringLiteral("foo"));
    const RawResponse response = postChat(emu, body);
    EXPECT_EQ(response.status, 404);
    EXPECT_EQ(response.body,
        R"({"error":{"message":"The model `foo` does not exist.","type":"NotFoundError","param":"model","code":404}})");
    body.insert(QStringLiteral("model"), baseConfig(Dialect::Vllm).modelId);
    EXPECT_EQ(postChat(emu, body).status, 200);

    // llama-server and SGLang ignore the name.
    for (const Dialect dialect : {Dialect::LlamaServer, Dialect::Sglang}) {
        EmulatorThread other;
        ASSERT_TRUE(other.start(baseConfig(dialect)));
        body.insert(QStringLiteral("model"), QStringLiteral("foo"));
        EXPECT_EQ(postChat(other, body).status, 200);
    }
}

TEST(EmulatorFaults, ScriptedHttpErrorsPerDialect)
{
    struct Case {
        HttpErrorKind kind;
        int llama;
        int vllm;
        int sglang; // 200: SGLang does not fail (markup in content)
    };
    for (const Case& c : {Case {HttpErrorKind::ContextExceeded, 400, 400, 400},
             Case {HttpErrorKind::ModelNotFound, 404, 404, 404},
             Case {HttpErrorKind::ToolsNotEnabled, 500, 400, 200},
             Case {HttpErrorKind::Unauthorized, 401, 401, 401},
             Case {HttpErrorKind::ServerError, 500, 500, 500}, Case {HttpErrorKind::Loading, 503, 503, 503},
             Case {HttpErrorKind::BadRequest, 400, 400, 400}}) {
        for (const Dialect dialect : {Dialect::LlamaServer, Dialect::Vllm, Dialect::Sglang}) {
            ServerConfig config = baseConfig(dialect);
            config.script.fault = Fault::HttpError;
            config.script.httpError = c.kind;
            EmulatorThread emu;
            ASSERT_TRUE(emu.start(config));
            const RawResponse response = postChat(emu, withTools(chatBody(true)));
            const int expected = dialect == Dialect::LlamaServer ? c.llama
                : dialect == Dialect::Vllm                       ? c.vllm
                                                                 : c.sglang;
            EXPECT_EQ(response.status, expected) << int(c.kind) << " " << int(dialect);
            if (expected != 200 && c.kind != HttpErrorKind::Unauthorized) {
                EXPECT_TRUE(response.body.contains("\"message\":")) << response.body.constData();
            }
        }
    }
    // Two exact bodies from the doc.
    ServerConfig config = baseConfig(Dialect::LlamaServer);
    config.script.fault = Fault::HttpError;
    config.script.httpError = HttpErrorKind::Loading;
    EmulatorThread emu;
    ASSERT_TRUE(emu.start(config));
    EXPECT_EQ(postChat(emu, chatBody(true)).body,
        R"({"error":{"message":"Loading model","type":"unavailable_error","code":503}})");
    config.script.httpError = HttpErrorKind::ToolsNotEnabled;
    emu.server()->setConfig(config);
    EXPECT_EQ(postChat(emu, withTools(chatBody(true))).body,
        R"({"error":{"code":500,"message":"tools param requires --jinja flag","type":"server_error"}})");
}

// ---- in-stream faults ----------------------------------------------------------------------

TEST(EmulatorFaults, DisconnectMidStream)
{
    for (const Dialect dialect : {Dialect::LlamaServer, Dialect::Vllm, Dialect::Sglang}) {
        ServerConfig config = baseConfig(dialect);
        config.script = faultScript(Fault::DisconnectMidStream, 3);
        EmulatorThread emu;
        ASSERT_TRUE(emu.start(config));
        const RawResponse response = postChat(emu, chatBody(true));
        EXPECT_EQ(response.status, 200);
        EXPECT_FALSE(response.complete);
        EXPECT_TRUE(response.closed);
        EXPECT_FALSE(response.body.contains("[DONE]"));
        EXPECT_TRUE(response.body.contains("w2 "));
        EXPECT_FALSE(response.body.contains("w3 "));
        const auto served = emu.server()->servedRequests();
        ASSERT_EQ(served.size(), 1u);
        EXPECT_EQ(served[0].tokenWriteNs.size(), 3u);
        EXPECT_EQ(served[0].completionTokens, 3);
        EXPECT_GT(served[0].endNs, served[0].tokenWriteNs.back());
    }
}

TEST(EmulatorFaults, StallKeepsLlamaPingingAndOthersSilent)
{
    for (const Dialect dialect : {Dialect::LlamaServer, Dialect::Vllm}) {
        ServerConfig config = baseConfig(dialect);
        config.script = faultScript(Fault::Stall, 2, 4);
        config.script.stallMs = 300;
        config.pingIntervalMs = 50;
        EmulatorThread emu;
        ASSERT_TRUE(emu.start(config));
        const RawResponse response = postChat(emu, chatBody(true));
        EXPECT_TRUE(response.complete);
        const auto served = emu.server()->servedRequests();
        ASSERT_EQ(served[0].tokenWriteNs.size(), 4u);
        // Token 2 is due 300 ms after the cadence would have sent it (TTFT 10 + 2 × 5 + 300 =
        // 320 ms after the request) and the scheduler never writes early; token 1 went out before
        // the stall. Measured against the schedule, not as the gap between the two writes: a late
        // first write (up to 20 ms under qemu-user, scripts/check-arm64.sh) shortens that gap, not
        // the stall.
        const double secondMs = qs::msBetween(served[0].receivedNs, served[0].tokenWriteNs[2]);
        EXPECT_GE(secondMs, 319.5);
        EXPECT_LT(secondMs, 360.0);
        EXPECT_LT(qs::msBetween(served[0].receivedNs, served[0].tokenWriteNs[1]), 320.0 - 250.0);
        int commentEvents = 0;
        for (const QByteArray& event : response.events())
            commentEvents += event == ":" ? 1 : 0;
        if (dialect == Dialect::LlamaServer) {
            EXPECT_GE(commentEvents, 5);
        } else {
            EXPECT_EQ(commentEvents, 0);
        }
    }
}

TEST(EmulatorFaults, MalformedChunkThenContinues)
{
    ServerConfig config = baseConfig(Dialect::Vllm);
    config.script = faultScript(Fault::MalformedChunk, 2, 4);
    EmulatorThread emu;
    ASSERT_TRUE(emu.start(config));
    const RawResponse response = postChat(emu, chatBody(true));
    const QList<QByteArray> payloads = response.dataPayloads();
    ASSERT_EQ(payloads.size(), 8); // role, w0, w1, bad, w2, w3, finish, [DONE]
    EXPECT_EQ(payloads[3], R"({"choices":[{"delta":{"content":"x")");
    EXPECT_TRUE(payloads[4].contains("w2 "));
    EXPECT_EQ(payloads.last(), "[DONE]");
    EXPECT_EQ(emu.server()->servedRequests()[0].completionTokens, 4);
}

TEST(EmulatorFaults, NoUsageChunk)
{
    for (const Dialect dialect : {Dialect::LlamaServer, Dialect::Vllm, Dialect::Sglang}) {
        ServerConfig config = baseConfig(dialect);
        config.script = faultScript(Fault::NoUsageChunk, 0);
        EmulatorThread emu;
        ASSERT_TRUE(emu.start(config));
        QJsonObject body = chatBody(true);
        body.insert(QStringLiteral("stream_options"), QJsonObject {{QStringLiteral("include_usage"), true}});
        const RawResponse response = postChat(emu, body);
        EXPECT_TRUE(response.complete);
        EXPECT_FALSE(response.body.contains("\"usage\":{"));
        EXPECT_EQ(response.dataPayloads().last(), "[DONE]");
    }
}

TEST(EmulatorFaults, ErrorInStream)
{
    struct Case {
        Dialect dialect;
        QList<QByteArray> tail; // the last data payloads
        bool closes;
    };
    for (const Case& c :
        {Case {Dialect::LlamaServer,
             {R"({"error":{"code":500,"message":"Compute error.","type":"server_error"}})"}, true},
            Case {Dialect::Vllm,
                {R"({"error": {"message": "Internal server error", "type": "InternalServerError", "param": null, "code": 500}})",
                    "[DONE]"},
                false},
            Case {Dialect::Sglang,
                {R"({"error": {"object": "error", "message": "Generation aborted.", "type": "SERVICE_UNAVAILABLE", "param": null, "code": 503}})",
                    "[DONE]"},
                false}}) {
        ServerConfig config = baseConfig(c.dialect);
        config.script = faultScript(Fault::ErrorInStream, 2);
        EmulatorThread emu;
        ASSERT_TRUE(emu.start(config));
        TestClient client(emu.server()->port());
        client.postJson("/v1/chat/completions", chatBody(true));
        const RawResponse response = client.read();
        EXPECT_EQ(response.status, 200);
        const QList<QByteArray> payloads = response.dataPayloads();
        ASSERT_GE(payloads.size(), c.tail.size());
        EXPECT_EQ(payloads.mid(payloads.size() - c.tail.size()), c.tail) << int(c.dialect);
        EXPECT_TRUE(response.body.contains("w1 "));
        EXPECT_FALSE(response.body.contains("w2 "));
        EXPECT_EQ(client.waitForClose(300), c.closes) << int(c.dialect);
    }
}

TEST(EmulatorFaults, ErrorAsFirstResultIsAnHttpError)
{
    // Where the status line waits for the first result, an immediate failure is a plain 500.
    for (const auto& [dialect, era] :
        {std::pair {Dialect::Sglang, Era::Current}, std::pair {Dialect::LlamaServer, Era::Legacy}}) {
        ServerConfig config = baseConfig(dialect, era);
        config.script = faultScript(Fault::ErrorInStream, 0);
        EmulatorThread emu;
        ASSERT_TRUE(emu.start(config));
        const RawResponse response = postChat(emu, chatBody(true));
        EXPECT_EQ(response.status, 500);
        EXPECT_FALSE(response.chunked);
    }
}

TEST(EmulatorFaults, ClientDisconnectIsRecordedAndServerGoesOn)
{
    ServerConfig config = baseConfig(Dialect::Vllm);
    config.script = simpleScript(50, 10, 100);
    EmulatorThread emu;
    ASSERT_TRUE(emu.start(config));
    {
        TestClient client(emu.server()->port());
        client.postJson("/v1/chat/completions", chatBody(true));
        QThread::msleep(60);
        client.close();
    }
    QThread::msleep(50);
    const auto served = emu.server()->servedRequests();
    ASSERT_EQ(served.size(), 1u);
    EXPECT_GT(served[0].endNs, 0);
    EXPECT_LT(served[0].tokenWriteNs.size(), 50u);

    emu.server()->clearServedRequests();
    config.script = simpleScript(2, 5, 500);
    emu.server()->setConfig(config);
    EXPECT_EQ(postChat(emu, chatBody(true)).status, 200);
    EXPECT_EQ(emu.server()->servedRequests().size(), 1u);
}
