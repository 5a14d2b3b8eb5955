// SPDX-License-Identifier: MIT
// HTTP plumbing and the non-chat routes of each emulated server.

#include "model/core/Clock.h"
#include "tests/emulator/EmulatorTestClient.h"
#include "tests/support/HttpRequestReader.h"

#include <QCoreApplication>
#include <QDeadlineTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTcpSocket>
#include <QThread>
#include <gtest/gtest.h>

using namespace qs::emu;
using namespace qs::emu::test;

namespace {

QByteArray authHeader(const char* key)
{
    return QByteArrayLiteral("Authorization: Bearer ") + QByteArray(key);
}

} // namespace

// ---- request reader (unit) ---------------------------------------------------------------

TEST(HttpRequestReader, ParsesRequestSplitIntoSingleBytes)
{
    const QByteArray wire = QByteArrayLiteral(
        "POST /v1/chat/completions?x=1 HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\nhello");
    detail::HttpRequestReader reader;
    for (char c : wire)
        reader.feed(QByteArrayView(&c, 1), 7);
    ASSERT_TRUE(reader.hasRequest());
    const detail::HttpRequest request = reader.takeRequest();
    EXPECT_EQ(request.method, "POST");
    EXPECT_EQ(request.path, "/v1/chat/completions");
    EXPECT_EQ(request.target, "/v1/chat/completions?x=1");
    EXPECT_EQ(request.header("content-length"), "5");
    EXPECT_EQ(request.body, "hello");
    EXPECT_EQ(request.completedNs, 7);
    EXPECT_FALSE(reader.failed());
}

TEST(HttpRequestReader, ParsesPipelinedAndChunkedRequests)
{
    detail::HttpRequestReader reader;
    reader.feed("GET /health HTTP/1.1\r\n\r\nPOST /x HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"
                "3\r\nabc\r\n2;ext=1\r\nde\r\n0\r\n\r\nGET /h2 HTTP/1.0\r\n\r\n",
        1);
    ASSERT_TRUE(reader.hasRequest());
    EXPECT_EQ(reader.takeRequest().path, "/health");
    ASSERT_TRUE(reader.hasRequest());
    EXPECT_EQ(reader.takeRequest().body, "abcde");
    ASSERT_TRUE(reader.hasRequest());
    const detail::HttpRequest old = reader.takeRequest();
    EXPECT_EQ(old.versionMinor, 0);
    EXPECT_FALSE(old.keepAlive());
    EXPECT_FALSE(reader.hasRequest());
}

TEST(HttpRequestReader, RejectsMalformedInput)
{
    for (const char* wire :
        {"GARBAGE\r\n\r\n", "GET /x HTTP/2.0\r\n\r\n", "GET /x HTTP/1.1\r\nNoColon\r\n\r\n",
            "POST /x HTTP/1.1\r\nContent-Length: abc\r\n\r\n", "GET /x HTTP/1.1\r\nBad Name: v\r\n\r\n"}) {
        detail::HttpRequestReader reader;
        reader.feed(QByteArrayView(wire), 1);
        EXPECT_TRUE(reader.failed()) << wire;
    }
}

// ---- health ------------------------------------------------------------------------------

TEST(EmulatorHttp, LlamaHealthAndHeaders)
{
    EmulatorThread emu;
    ASSERT_TRUE(emu.start(baseConfig(Dialect::LlamaServer)));
    TestClient client(emu.server()->port());
    for (const QByteArray& path : {QByteArrayLiteral("/health"), QByteArrayLiteral("/v1/health")}) {
        client.get(path);
        const RawResponse response = client.read();
        EXPECT_EQ(response.status, 200);
        EXPECT_EQ(response.body, R"({"status":"ok"})");
        EXPECT_EQ(response.header("Server"), "llama.cpp");
        EXPECT_EQ(response.header("Content-Type"), "application/json; charset=utf-8");
        EXPECT_EQ(response.header("Keep-Alive"), "timeout=5, max=100");
        EXPECT_TRUE(response.headBytes.startsWith("HTTP/1.1 200 OK\r\n"));
    }
}

TEST(EmulatorHttp, VllmAndSglangHealthIsEmpty)
{
    for (const Dialect dialect : {Dialect::Vllm, Dialect::Sglang}) {
        EmulatorThread emu;
        ASSERT_TRUE(emu.start(baseConfig(dialect)));
        TestClient client(emu.server()->port());
        client.get("/health");
        const RawResponse response = client.read();
        EXPECT_EQ(response.status, 200);
        EXPECT_TRUE(response.body.isEmpty());
        EXPECT_EQ(response.header("content-length"), "0");
        EXPECT_EQ(response.header("server"), "uvicorn");
        EXPECT_TRUE(response.headBytes.contains("\r\nserver: uvicorn\r\n"));
        EXPECT_FALSE(response.header("date").isEmpty());
    }
}

TEST(EmulatorHttp, SglangHealthGenerateAnswersAfterAPrefill)
{
    ServerConfig config = baseConfig(Dialect::Sglang);
    config.script.ttftMs = 80;
    EmulatorThread emu;
    ASSERT_TRUE(emu.start(config));
    TestClient client(emu.server()->port());
    const qint64 sent = client.get("/health_generate");
    const RawResponse response = client.read();
    EXPECT_EQ(response.status, 200);
    EXPECT_TRUE(response.body.isEmpty());
    EXPECT_GE(qs::msBetween(sent, response.headNs), 60.0);
}

// ---- models, props, version, server_info ---------------------------------------------------

TEST(EmulatorHttp, LlamaModelsAndProps)
{
    ServerConfig config = baseConfig(Dialect::LlamaServer);
    config.contextSize = 8192;
    config.version = QStringLiteral("b9465-23e6dab86");
    EmulatorThread emu;
    ASSERT_TRUE(emu.start(config));
    TestClient client(emu.server()->port());

    client.get("/v1/models");
    const QJsonObject models = client.read().json();
    EXPECT_EQ(models.value(QLatin1String("object")).toString(), QLatin1String("list"));
    const QJsonObject card = models.value(QLatin1String("data")).toArray().at(0).toObject();
    EXPECT_EQ(card.value(QLatin1String("id")).toString(), config.modelId);
    EXPECT_EQ(card.value(QLatin1String("owned_by")).toString(), QLatin1String("llamacpp"));
    EXPECT_EQ(card.value(QLatin1String("meta")).toObject().value(QLatin1String("n_ctx")).toInt(), 8192);
    EXPECT_TRUE(models.value(QLatin1String("models")).isArray());

    client.get("/props");
    const RawResponse propsResponse = client.read();
    EXPECT_TRUE(propsResponse.body.startsWith(R"({"default_generation_settings":{"params":{)"));
    const QJsonObject props = propsResponse.json();
    EXPECT_EQ(props.value(QLatin1String("default_generation_settings"))
                  .toObject()
                  .value(QLatin1String("n_ctx"))
                  .toInt(),
        8192);
    EXPECT_EQ(props.value(QLatin1String("total_slots")).toInt(), 1);
    EXPECT_EQ(props.value(QLatin1String("model_alias")).toString(), config.modelId);
    EXPECT_TRUE(props.value(QLatin1String("model_path")).toString().endsWith(QLatin1String(".gguf")));
    EXPECT_FALSE(props.value(QLatin1String("chat_template")).toString().isEmpty());
    EXPECT_EQ(props.value(QLatin1String("build_info")).toString(), QLatin1String("b9465-23e6dab86"));
}

TEST(EmulatorHttp, VllmModelsAndVersion)
{
    ServerConfig config = baseConfig(Dialect::Vllm);
    config.modelId = QStringLiteral("Qwen/Qwen3-8B");
    config.contextSize = 40960;
    config.version = QStringLiteral("0.25.1");
    EmulatorThread emu;
    ASSERT_TRUE(emu.start(config));
    TestClient client(emu.server()->port());

    client.get("/v1/models");
    const RawResponse modelsResponse = client.read();
    EXPECT_EQ(modelsResponse.header("content-type"), "application/json");
    EXPECT_TRUE(modelsResponse.body.startsWith(
        R"({"object":"list","data":[{"id":"Qwen/Qwen3-8B","object":"model","created":)"));
    const QJsonObject card = modelsResponse.json().value(QLatin1String("data")).toArray().at(0).toObject();
    EXPECT_EQ(card.value(QLatin1String("owned_by")).toString(), QLatin1String("vllm"));
    EXPECT_EQ(card.value(QLatin1String("max_model_len")).toInt(), 40960);
    EXPECT_EQ(card.value(QLatin1String("root")).toString(), QLatin1String("Qwen/Qwen3-8B"));
    EXPECT_TRUE(card.value(QLatin1String("parent")).isNull());
    EXPECT_EQ(card.value(QLatin1String("permission")).toArray().size(), 1);

    client.get("/version");
    const RawResponse version = client.read();
    EXPECT_EQ(version.body, R"({"version":"0.25.1"})");

    client.get("/props"); // llama-server only
    const RawResponse props = client.read();
    EXPECT_EQ(props.status, 404);
    EXPECT_EQ(props.body, R"({"detail":"Not Found"})");
}

TEST(EmulatorHttp, SglangModelsAndServerInfo)
{
    ServerConfig config = baseConfig(Dialect::Sglang);
    config.contextSize = 32768;
    config.version = QStringLiteral("0.5.9");
    config.toolParser = false;
    EmulatorThread emu;
    ASSERT_TRUE(emu.start(config));
    TestClient client(emu.server()->port());

    client.get("/v1/models");
    const QJsonObject card = client.read().json().value(QLatin1String("data")).toArray().at(0).toObject();
    EXPECT_EQ(card.value(QLatin1String("owned_by")).toString(), QLatin1String("sglang"));
    EXPECT_EQ(card.value(QLatin1String("max_model_len")).toInt(), 32768);

    for (const QByteArray& path :
        {QByteArrayLiteral("/server_info"), QByteArrayLiteral("/get_server_info")}) {
        client.get(path);
        const QJsonObject info = client.read().json();
        EXPECT_EQ(info.value(QLatin1String("version")).toString(), QLatin1String("0.5.9"))
            << path.constData();
        EXPECT_EQ(info.value(QLatin1String("model_path")).toString(), config.modelId);
        EXPECT_EQ(info.value(QLatin1String("context_length")).toInt(), 32768);
        EXPECT_TRUE(info.contains(QLatin1String("tool_call_parser")));
        EXPECT_TRUE(info.value(QLatin1String("tool_call_parser")).isNull());
        EXPECT_EQ(info.value(QLatin1String("reasoning_parser")).toString(), QLatin1String("qwen3"));
    }
}

// ---- unknown routes, keys ----------------------------------------------------------------

TEST(EmulatorHttp, UnknownRouteBodies)
{
    struct Case {
        Dialect dialect;
        int status;
        QByteArray body;
    };
    for (const Case& c :
        {Case {Dialect::LlamaServer, 404,
             R"({"error":{"message":"File Not Found","type":"not_found_error","code":404}})"},
            Case {Dialect::Vllm, 404, R"({"detail":"Not Found"})"},
            Case {Dialect::Sglang, 404, R"({"detail":"Not Found"})"}}) {
        EmulatorThread emu;
        ASSERT_TRUE(emu.start(baseConfig(c.dialect)));
        TestClient client(emu.server()->port());
        client.get("/no/such/route");
        const RawResponse response = client.read();
        EXPECT_EQ(response.status, c.status);
        EXPECT_EQ(response.body, c.body);
    }
    // FastAPI knows the chat path, but not for GET.
    EmulatorThread emu;
    ASSERT_TRUE(emu.start(baseConfig(Dialect::Vllm)));
    TestClient client(emu.server()->port());
    client.get("/v1/chat/completions");
    const RawResponse response = client.read();
    EXPECT_EQ(response.status, 405);
    EXPECT_EQ(response.body, R"({"detail":"Method Not Allowed"})");
}

TEST(EmulatorHttp, LlamaApiKey)
{
    ServerConfig config = baseConfig(Dialect::LlamaServer);
    config.apiKey = QStringLiteral("sekret");
    EmulatorThread emu;
    ASSERT_TRUE(emu.start(config));
    TestClient client(emu.server()->port());

    client.postJson("/v1/chat/completions", chatBody(true));
    RawResponse response = client.read();
    EXPECT_EQ(response.status, 401);
    EXPECT_EQ(
        response.body, R"({"error":{"message":"Invalid API Key","type":"authentication_error","code":401}})");

    client.postJson("/v1/chat/completions", chatBody(true), {authHeader("wrong")});
    EXPECT_EQ(client.read().status, 401);

    client.get("/props");
    EXPECT_EQ(client.read().status, 401);

    // llama-server's middleware lists /health, /v1/health, /models and /v1/models as public.
    client.get("/health");
    EXPECT_EQ(client.read().status, 200);
    client.get("/v1/models");
    EXPECT_EQ(client.read().status, 200);

    client.postJson("/v1/chat/completions", chatBody(true), {authHeader("sekret")});
    response = client.read();
    EXPECT_EQ(response.status, 200);
    EXPECT_TRUE(response.complete);
    client.postJson("/v1/chat/completions", chatBody(false), {QByteArrayLiteral("X-Api-Key: sekret")});
    EXPECT_EQ(client.read().status, 200);

    const auto served = emu.server()->servedRequests();
    ASSERT_EQ(served.size(), 4u);
    EXPECT_EQ(served[0].httpStatus, 401);
    EXPECT_EQ(served[2].httpStatus, 200);
}

TEST(EmulatorHttp, VllmAndSglangApiKey)
{
    for (const Dialect dialect : {Dialect::Vllm, Dialect::Sglang}) {
        ServerConfig config = baseConfig(dialect);
        config.apiKey = QStringLiteral("sekret");
        EmulatorThread emu;
        ASSERT_TRUE(emu.start(config));
        TestClient client(emu.server()->port());

        client.postJson("/v1/chat/completions", chatBody(false));
        RawResponse response = client.read();
        EXPECT_EQ(response.status, 401);
        EXPECT_EQ(response.body, R"({"error":"Unauthorized"})");

        client.get("/v1/models");
        EXPECT_EQ(client.read().status, 401);
        client.get("/v1/models", {authHeader("sekret")});
        EXPECT_EQ(client.read().status, 200);
        client.get("/health");
        EXPECT_EQ(client.read().status, 200);
        client.postJson("/v1/chat/completions", chatBody(false), {authHeader("sekret")});
        EXPECT_EQ(client.read().status, 200);
    }
}

// ---- connection handling -----------------------------------------------------------------

TEST(EmulatorHttp, KeepAliveServesSeveralRequestsOnOneConnection)
{
    EmulatorThread emu;
    ASSERT_TRUE(emu.start(baseConfig(Dialect::Vllm)));
    TestClient client(emu.server()->port());
    for (int i = 0; i < 3; ++i) {
        client.postJson("/v1/chat/completions", chatBody(true));
        const RawResponse stream = client.read();
        EXPECT_EQ(stream.status, 200);
        EXPECT_TRUE(stream.complete);
        EXPECT_EQ(stream.dataPayloads().last(), "[DONE]");
        client.get("/health");
        EXPECT_EQ(client.read().status, 200);
    }
    EXPECT_TRUE(client.isConnected());
    EXPECT_EQ(emu.server()->servedRequests().size(), 3u);
}

TEST(EmulatorHttp, ServedLogKeepsOnlyItsLimit)
{
    ServerConfig config = baseConfig(Dialect::Vllm);
    config.servedLogLimit = 2; // what the app's simulated endpoints do, so long runs stay flat
    EmulatorThread emu;
    ASSERT_TRUE(emu.start(config));
    TestClient client(emu.server()->port());
    for (int i = 0; i < 7; ++i) {
        client.postJson("/v1/chat/completions", chatBody(false));
        EXPECT_EQ(client.read().status, 200);
    }
    // Dropped in batches: never more than twice the limit, never fewer than the limit.
    const std::size_t kept = emu.server()->servedRequests().size();
    EXPECT_GE(kept, 2u);
    EXPECT_LT(kept, 4u);
}

TEST(EmulatorHttp, PipelinedRequestsAreAnsweredInOrder)
{
    EmulatorThread emu;
    ASSERT_TRUE(emu.start(baseConfig(Dialect::LlamaServer)));
    TestClient client(emu.server()->port());
    client.sendRaw("GET /no-such HTTP/1.1\r\nHost: x\r\n\r\nGET /health HTTP/1.1\r\nHost: x\r\n\r\n");
    EXPECT_EQ(client.read().status, 404);
    EXPECT_EQ(client.read().status, 200);
}

TEST(EmulatorHttp, ConnectionCloseIsHonoured)
{
    for (const Dialect dialect : {Dialect::LlamaServer, Dialect::Sglang}) {
        EmulatorThread emu;
        ASSERT_TRUE(emu.start(baseConfig(dialect)));
        TestClient client(emu.server()->port());
        client.postJson("/v1/chat/completions", chatBody(true), {QByteArrayLiteral("Connection: close")});
        const RawResponse response = client.read();
        EXPECT_EQ(response.status, 200);
        EXPECT_TRUE(response.complete);
        EXPECT_EQ(response.header("Connection").toLower(), "close");
        EXPECT_TRUE(client.waitForClose());
    }
}

TEST(EmulatorHttp, RequestArrivingInManyPieces)
{
    EmulatorThread emu;
    ASSERT_TRUE(emu.start(baseConfig(Dialect::Sglang)));
    TestClient client(emu.server()->port());
    const QByteArray body = QJsonDocument(chatBody(false)).toJson(QJsonDocument::Compact);
    const QByteArray wire
        = QByteArrayLiteral("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: ")
        + QByteArray::number(body.size()) + QByteArrayLiteral("\r\n\r\n") + body;
    for (qsizetype i = 0; i < wire.size(); i += 7) {
        client.sendRaw(wire.mid(i, 7));
        if (i % 70 == 0)
            QThread::usleep(500);
    }
    const RawResponse response = client.read();
    EXPECT_EQ(response.status, 200);
    EXPECT_EQ(response.json().value(QLatin1String("object")).toString(), QLatin1String("chat.completion"));
}

TEST(EmulatorHttp, ChunkedRequestBodyAndExpectContinue)
{
    EmulatorThread emu;
    ASSERT_TRUE(emu.start(baseConfig(Dialect::Vllm)));
    TestClient client(emu.server()->port());
    const QByteArray body = QJsonDocument(chatBody(false)).toJson(QJsonDocument::Compact);
    client.sendRaw(
        QByteArrayLiteral("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\n"
                          "Transfer-Encoding: chunked\r\n\r\n"));
    client.sendRaw(QByteArray::number(body.size(), 16) + QByteArrayLiteral("\r\n") + body
        + QByteArrayLiteral("\r\n0\r\n\r\n"));
    const RawResponse response = client.read();
    EXPECT_EQ(response.status, 200);
    EXPECT_FALSE(response.json().isEmpty());
}

TEST(EmulatorHttp, MalformedHttpGets400AndClose)
{
    EmulatorThread emu;
    ASSERT_TRUE(emu.start(baseConfig(Dialect::LlamaServer)));
    TestClient client(emu.server()->port());
    client.sendRaw("HELLO THERE\r\n\r\n");
    const RawResponse response = client.read();
    EXPECT_EQ(response.status, 400);
    EXPECT_TRUE(client.waitForClose());
}

TEST(EmulatorHttp, MalformedJsonBodies)
{
    struct Case {
        Dialect dialect;
        int status;
        QByteArray prefix;
    };
    for (const Case& c :
        {Case {Dialect::LlamaServer, 500,
             R"({"error":{"code":500,"message":"[json.exception.parse_error.101] parse error)"},
            Case {Dialect::Vllm, 400, R"({"error":{"message":"1 validation error:\n)"},
            Case {Dialect::Sglang, 400, R"({"object":"error","message":"[{'type': 'json_invalid')"}}) {
        EmulatorThread emu;
        ASSERT_TRUE(emu.start(baseConfig(c.dialect)));
        TestClient client(emu.server()->port());
        client.sendRaw(
            "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: 9\r\n\r\n{\"oops\":,");
        const RawResponse response = client.read();
        EXPECT_EQ(response.status, c.status);
        EXPECT_TRUE(response.body.startsWith(c.prefix)) << response.body.constData();
    }
}

TEST(EmulatorHttp, EmulatorThreadStartsAndStopsRepeatedly)
{
    for (int i = 0; i < 5; ++i) {
        EmulatorThread emu;
        ASSERT_TRUE(emu.start(baseConfig(Dialect(i % 3))));
        TestClient client(emu.server()->port());
        client.postJson("/v1/chat/completions", chatBody(true)); // stopped mid-response
    }
    EmulatorThread twice;
    ASSERT_TRUE(twice.start(baseConfig(Dialect::Vllm)));
    EXPECT_FALSE(twice.start(baseConfig(Dialect::Vllm)));
    EXPECT_NE(twice.baseUrl().port(), -1);
    EXPECT_EQ(twice.baseUrl().host(), QLatin1String("127.0.0.1"));
}

TEST(EmulatorHttp, ServerInCallerThread)
{
    // Also usable directly in a thread with an event loop (here: driven by processEvents).
    EmulatorServer server(baseConfig(Dialect::LlamaServer));
    ASSERT_TRUE(server.listen());
    QTcpSocket socket;
    socket.connectToHost(QStringLiteral("127.0.0.1"), server.port());
    socket.write("GET /health HTTP/1.1\r\nHost: x\r\n\r\n");
    QByteArray received;
    QDeadlineTimer deadline(5000);
    while (!received.contains(R"({"status":"ok"})") && !deadline.hasExpired()) {
        QCoreApplication::processEvents(QEventLoop::AllEvents, 10);
        received += socket.readAll();
    }
    EXPECT_TRUE(received.startsWith("HTTP/1.1 200 OK"));
}
