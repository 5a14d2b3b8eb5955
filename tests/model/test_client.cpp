// SPDX-License-Identifier: MIT
// StreamingClient end to end over real loopback sockets against the emulator, which runs on its
// own thread. Timing assertions compare the client's stamps with the emulator's own write stamps
// (same monotonic clock) and with the script, with tolerances that hold on a busy 2-core machine.
#include "ClientTestSupport.h"
#include "model/core/Clock.h"

#include <QCoreApplication>
#include <QEventLoop>
#include <QTimer>
#include <gtest/gtest.h>

using namespace qs;
using namespace qs::test;
using emu::Dialect;
using emu::Era;

namespace {
struct DialectCase {
    Dialect dialect;
    Era era;
    const char* name;
};

const DialectCase AllDialects[] = {
    {Dialect::LlamaServer, Era::Current, "llama_current"},
    {Dialect::LlamaServer, Era::Legacy, "llama_legacy"},
    {Dialect::Vllm, Era::Current, "vllm_current"},
    {Dialect::Vllm, Era::Transitional, "vllm_transitional"},
    {Dialect::Vllm, Era::Legacy, "vllm_legacy"},
    {Dialect::Sglang, Era::Current, "sglang_msgspec"},
    {Dialect::Sglang, Era::Legacy, "sglang_pydantic"},
};

class EachDialect : public ::testing::TestWithParam<DialectCase> { };

std::string caseName(const ::testing::TestParamInfo<DialectCase>& info)
{
    return info.param.name;
}
} // namespace

TEST_P(EachDialect, TimingMatchesScriptAndServerStamps)
{
    emu::Script s;
    s.reasoning = tokens(5, QStringLiteral("think"));
    s.content = tokens(20);
    s.ttftMs = 120;
    s.tokensPerSecond = 50;
    Served server(config(GetParam().dialect, GetParam().era, s));
    const RequestRecord r = runChatBlocking(server.endpoint, prompt());
    ASSERT_TRUE(r.ok()) << r.failure.text().toStdString();
    const RequestMetrics& m = r.metrics;

    EXPECT_EQ(r.response.reasoning, tokens(5, QStringLiteral("think")).join(QString()));
    EXPECT_EQ(r.response.content, tokens(20).join(QString()));
    EXPECT_EQ(m.tokenEvents, 25);
    EXPECT_FALSE(m.thinkingInContent);
    EXPECT_TRUE(r.response.sawDone);
    EXPECT_EQ(r.response.finishReason, QStringLiteral("stop"));

    // Against the script: TTFT 120 ms, 5 reasoning tokens at 50 tok/s before the first visible one.
    EXPECT_NEAR(*m.ttftAnyMs, 120, 30);
    EXPECT_NEAR(*m.reasoningMs, 5 * 20.0, 30);
    EXPECT_NEAR(*m.decodeTps, 50, 50 * 0.15);
    EXPECT_EQ(*m.completionTokens.value, 25);
    EXPECT_EQ(m.completionTokens.source, CountSource::ServerUsage);

    // Against the emulator's own stamps of the same events: the client's error.
    const auto served = server.served();
    ASSERT_EQ(served.size(), 1u);
    ASSERT_EQ(served[0].tokenWriteNs.size(), 25u);
    const double firstErrorMs
        = msBetween(served[0].tokenWriteNs.front(), r.response.tokenEvents.front().stampNs);
    // The emulator stamps a write after write() returns, so the client may read it sooner when the
    // server's thread waits for a core after the write (measured -1.4 ms under ASan beside other tests,
    // and past -0.5 ms in a release build on a busy 2-core machine).
    EXPECT_GE(firstErrorMs, -5);
    EXPECT_LT(firstErrorMs, 15) << "client stamped the first token late";
    const double lastErrorMs
        = msBetween(served[0].tokenWriteNs.back(), r.response.tokenEvents.back().stampNs);
    EXPECT_LT(lastErrorMs, 15);
}

TEST_P(EachDialect, ToolCallIsReassembledAndVisible)
{
    emu::Script s;
    s.toolCalls = {{QStringLiteral("web_search"), QStringLiteral(R"({"query": "weather in Paris"})"), 4}};
    s.ttftMs = 20;
    s.tokensPerSecond = 200;
    Served server(config(GetParam().dialect, GetParam().era, s));
    ChatRequest req = prompt("Weather in Paris?");
    req.tools = nlohmann::json::array({{{"type", "function"},
        {"function", {{"name", "web_search"}, {"parameters", nlohmann::json::object()}}}}});
    const RequestRecord r = runChatBlocking(server.endpoint, req);
    ASSERT_TRUE(r.ok()) << r.failure.text().toStdString();
    ASSERT_EQ(r.response.toolCalls.size(), 1u);
    EXPECT_EQ(r.response.toolCalls[0].name, QStringLiteral("web_search"));
    EXPECT_EQ(r.response.toolCalls[0].arguments, QStringLiteral(R"({"query": "weather in Paris"})"));
    EXPECT_FALSE(r.response.toolCalls[0].id.isEmpty());
    EXPECT_EQ(r.response.finishReason, QStringLiteral("tool_calls"));
    ASSERT_TRUE(r.metrics.ttftVisibleMs.has_value());
    EXPECT_DOUBLE_EQ(*r.metrics.ttftVisibleMs, *r.metrics.ttftAnyMs);
}

TEST_P(EachDialect, LeakedThinkingIsNotVisibleTtft)
{
    emu::Script s;
    s.reasoning = tokens(10, QStringLiteral("t"));
    s.content = tokens(5);
    s.reasoningMode = emu::ReasoningMode::LeakedWithTags;
    s.ttftMs = 30;
    s.tokensPerSecond = 100;
    Served server(config(GetParam().dialect, GetParam().era, s));
    const RequestRecord r = runChatBlocking(server.endpoint, prompt());
    ASSERT_TRUE(r.ok()) << r.failure.text().toStdString();
    EXPECT_TRUE(r.metrics.thinkingInContent);
    EXPECT_TRUE(r.response.content.contains(QStringLiteral("</think>")));
    // Ten thinking tokens at 10 ms each lie between the first token and the answer.
    EXPECT_GT(*r.metrics.reasoningMs, 80);
}

INSTANTIATE_TEST_SUITE_P(Dialects, EachDialect, ::testing::ValuesIn(AllDialects), caseName);

TEST(StreamingClient, LlamaServerTimingsAreKeptBesideTheClientsNumbers)
{
    emu::Script s;
    s.content = tokens(10);
    s.ttftMs = 40;
    s.tokensPerSecond = 100;
    Served server(config(Dialect::LlamaServer, Era::Current, s));
    const RequestRecord r = runChatBlocking(server.endpoint, prompt());
    ASSERT_TRUE(r.ok());
    ASSERT_TRUE(r.response.timings.has_value());
    EXPECT_EQ(r.response.timings->predictedN.value_or(0), 10);
    EXPECT_NEAR(r.response.timings->promptMs.value_or(0), 40, 20);
    EXPECT_EQ(r.serverHeader, QStringLiteral("llama.cpp"));
}

TEST(StreamingClient, LlamaPingsDuringPrefillAreNotTokens)
{
    emu::ServerConfig c = config(Dialect::LlamaServer, Era::Current, emu::simpleScript(3, 350, 100));
    c.pingIntervalMs = 100;
    Served server(c);
    const RequestRecord r = runChatBlocking(server.endpoint, prompt());
    ASSERT_TRUE(r.ok());
    EXPECT_GE(r.keepAlivePings, 2);
    EXPECT_LT(*r.metrics.ttfbMs, 100); // headers went out when the slot started
    EXPECT_NEAR(*r.metrics.ttftAnyMs, 350, 40); // but the first token came after prefill
}

TEST(StreamingClient, NoUsageChunkMeansFlaggedEstimate)
{
    emu::Script s = emu::simpleScript(6, 10, 200);
    s.fault = emu::Fault::NoUsageChunk;
    Served server(config(Dialect::Vllm, Era::Current, s));
    const RequestRecord r = runChatBlocking(server.endpoint, prompt());
    ASSERT_TRUE(r.ok());
    EXPECT_FALSE(r.response.usage.has_value());
    EXPECT_EQ(r.metrics.completionTokens.source, CountSource::Estimate);
    EXPECT_EQ(*r.metrics.completionTokens.value, 6);
    EXPECT_TRUE(r.metrics.notes.join(u' ').contains(QStringLiteral("estimate")));
}

TEST(StreamingClient, VllmToolsWithoutParserSaysWhichFlagsAreMissing)
{
    emu::ServerConfig c = config(Dialect::Vllm, Era::Current, emu::simpleScript(3, 10, 100));
    c.toolParser = false;
    Served server(c);
    ChatRequest req = prompt();
    req.tools = nlohmann::json::array({{{"type", "function"}, {"function", {{"name", "search_memory"}}}}});
    const RequestRecord r = runChatBlocking(server.endpoint, req);
    EXPECT_EQ(r.failure.kind, FailureKind::ToolsNotEnabled);
    EXPECT_EQ(r.httpStatus, 400);
    EXPECT_TRUE(r.failure.advice.contains(QStringLiteral("--enable-auto-tool-choice")));
    EXPECT_TRUE(r.failure.advice.contains(QStringLiteral("--tool-call-parser")));
}

TEST(StreamingClient, SglangWithoutToolParserPrintsTheCallAsText)
{
    emu::Script s;
    s.toolCalls = {{QStringLiteral("web_search"), QStringLiteral(R"({"query": "x"})"), 2}};
    emu::ServerConfig c = config(Dialect::Sglang, Era::Current, s);
    c.toolParser = false;
    Served server(c);
    ChatRequest req = prompt();
    req.tools = nlohmann::json::array({{{"type", "function"}, {"function", {{"name", "web_search"}}}}});
    const RequestRecord r = runChatBlocking(server.endpoint, req);
    ASSERT_TRUE(r.ok());
    EXPECT_TRUE(r.response.toolCalls.empty());
    EXPECT_TRUE(r.response.content.contains(QStringLiteral("web_search")));
}

TEST(StreamingClient, ContextExceededInEachDialect)
{
    for (Dialect d : {Dialect::LlamaServer, Dialect::Vllm, Dialect::Sglang}) {
        emu::ServerConfig c = config(d, Era::Current, emu::simpleScript(3, 10, 100));
        c.contextSize = 50;
        Served server(c);
        QString longPrompt;
        for (int i = 0; i < 100; ++i)
            longPrompt += QStringLiteral("word ");
        ChatRequest req = ChatRequest::fromPrompt(longPrompt);
        req.maxTokens = 10;
        const RequestRecord r = runChatBlocking(server.endpoint, req);
        EXPECT_EQ(r.failure.kind, FailureKind::ContextExceeded) << int(d) << r.failure.text().toStdString();
        EXPECT_EQ(r.httpStatus, 400);
    }
}

TEST(StreamingClient, VllmUnknownModelIs404ModelNotFound)
{
    Served server(config(Dialect::Vllm, Era::Current, emu::simpleScript(3, 10, 100)));
    server.endpoint.model = QStringLiteral("no-such-model");
    const RequestRecord r = runChatBlocking(server.endpoint, prompt());
    EXPECT_EQ(r.failure.kind, FailureKind::ModelNotFound);
    EXPECT_TRUE(r.failure.summary.contains(QStringLiteral("no-such-model")));
}

TEST(StreamingClient, MissingApiKeyNamesTheVariable)
{
    emu::ServerConfig c = config(Dialect::LlamaServer, Era::Current, emu::simpleScript(3, 10, 100));
    c.apiKey = QStringLiteral("s3cret");
    Served server(c);
    server.endpoint.apiKeyEnv = QStringLiteral("QS_TEST_MISSING_KEY");
    qunsetenv("QS_TEST_MISSING_KEY");
    RequestRecord r = runChatBlocking(server.endpoint, prompt());
    EXPECT_EQ(r.failure.kind, FailureKind::Unauthorized);
    EXPECT_TRUE(r.failure.advice.contains(QStringLiteral("QS_TEST_MISSING_KEY")));
    qputenv("QS_TEST_MISSING_KEY", "s3cret");
    r = runChatBlocking(server.endpoint, prompt());
    EXPECT_TRUE(r.ok()) << r.failure.text().toStdString();
    EXPECT_EQ(r.requestBody->dump().find("s3cret"), std::string::npos);
    qunsetenv("QS_TEST_MISSING_KEY");
}

TEST(StreamingClient, DisconnectMidStreamKeepsPartialResponse)
{
    for (Dialect d : {Dialect::LlamaServer, Dialect::Vllm, Dialect::Sglang}) {
        emu::Script s = emu::simpleScript(10, 20, 200);
        s.fault = emu::Fault::DisconnectMidStream;
        s.faultAfterTokens = 4;
        Served server(config(d, Era::Current, s));
        const RequestRecord r = runChatBlocking(server.endpoint, prompt());
        EXPECT_EQ(r.failure.kind, FailureKind::Disconnected) << int(d) << r.failure.text().toStdString();
        EXPECT_EQ(r.metrics.tokenEvents, 4);
        EXPECT_EQ(r.response.content, tokens(4).join(QString()));
        EXPECT_TRUE(r.metrics.ttftAnyMs.has_value());
        EXPECT_FALSE(r.response.sawDone);
    }
}

TEST(StreamingClient, StallPastIdleTimeoutEvenWithKeepAlivePings)
{
    for (Dialect d : {Dialect::LlamaServer, Dialect::Vllm}) {
        emu::Script s = emu::simpleScript(10, 20, 200);
        s.fault = emu::Fault::Stall;
        s.faultAfterTokens = 3;
        s.stallMs = 3000;
        emu::ServerConfig c = config(d, Era::Current, s);
        c.pingIntervalMs = 100; // llama-server keeps pinging through the stall
        Served server(c);
        server.endpoint.timeouts.idleMs = 400;
        const qint64 started = monotonicNs();
        const RequestRecord r = runChatBlocking(server.endpoint, prompt());
        const double tookMs = msBetween(started, monotonicNs());
        EXPECT_EQ(r.failure.kind, FailureKind::IdleTimeout) << int(d) << r.failure.text().toStdString();
        EXPECT_EQ(r.metrics.tokenEvents, 3);
        EXPECT_LT(tookMs, 2500) << "the stall was not cut short by the idle timeout";
    }
}

TEST(StreamingClient, FirstByteTimeout)
{
    Served server(config(Dialect::Vllm, Era::Current, emu::simpleScript(3, 3000, 100)));
    server.endpoint.timeouts.firstByteMs = 300;
    const RequestRecord r = runChatBlocking(server.endpoint, prompt());
    EXPECT_EQ(r.failure.kind, FailureKind::FirstByteTimeout) << r.failure.text().toStdString();
    EXPECT_EQ(r.metrics.tokenEvents, 0);
}

TEST(StreamingClient, MalformedChunkFailsTheRequestAndKeepsEverything)
{
    for (Dialect d : {Dialect::LlamaServer, Dialect::Vllm, Dialect::Sglang}) {
        emu::Script s = emu::simpleScript(6, 10, 200);
        s.fault = emu::Fault::MalformedChunk;
        s.faultAfterTokens = 2;
        Served server(config(d, Era::Current, s));
        const RequestRecord r = runChatBlocking(server.endpoint, prompt());
        // A corrupted stream is never a clean measurement…
        EXPECT_FALSE(r.ok()) << int(d);
        EXPECT_EQ(r.failure.kind, FailureKind::MalformedStream) << int(d) << r.failure.text().toStdString();
        EXPECT_EQ(r.failure.httpStatus, 200);
        EXPECT_TRUE(r.failure.summary.contains(QStringLiteral("1 of ")));
        EXPECT_TRUE(r.failure.summary.contains(QStringLiteral(R"("{"choices":[{"delta":{"content":"x"")")))
            << r.failure.summary.toStdString();
        EXPECT_TRUE(r.failure.advice.contains(QStringLiteral("proxy corrupted the stream")));
        // …but what did arrive is all kept: the answer around the bad event, usage, the timeline.
        EXPECT_EQ(r.response.malformedEvents, 1);
        EXPECT_EQ(r.response.content, tokens(6).join(QString())) << int(d);
        EXPECT_TRUE(r.response.sawDone || !r.response.finishReason.isEmpty());
        EXPECT_EQ(r.metrics.tokenEvents, 6);
        EXPECT_TRUE(r.response.usage && r.response.usage->completionTokens) << int(d);
        EXPECT_EQ(r.response.tokenEvents.size(), 6u);
    }
}

TEST(StreamingClient, ErrorObjectInsideTheStream)
{
    for (Dialect d : {Dialect::LlamaServer, Dialect::Vllm, Dialect::Sglang}) {
        emu::Script s = emu::simpleScript(8, 10, 200);
        s.fault = emu::Fault::ErrorInStream;
        s.faultAfterTokens = 3;
        Served server(config(d, Era::Current, s));
        const RequestRecord r = runChatBlocking(server.endpoint, prompt());
        EXPECT_EQ(r.failure.kind, FailureKind::StreamError) << int(d) << r.failure.text().toStdString();
        EXPECT_FALSE(r.failure.serverMessage.isEmpty());
        EXPECT_EQ(r.metrics.tokenEvents, 3);
        EXPECT_EQ(
            r.response.sawDone, d != Dialect::LlamaServer); // llama-server sends no [DONE] after an error
    }
}

TEST(StreamingClient, CancelKeepsWhatArrived)
{
    Served server(config(Dialect::LlamaServer, Era::Current, emu::simpleScript(100, 10, 50)));
    StreamingClient client;
    RequestRecord result;
    bool done = false;
    QObject::connect(&client, &StreamingClient::finished, [&](const RequestRecord& r) {
        result = r;
        done = true;
    });
    client.start(server.endpoint, prompt());
    QTimer::singleShot(250, &client, [&] { client.cancel(); });
    const qint64 until = monotonicNs() + qint64(5e9);
    while (!done && monotonicNs() < until)
        QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents, 50);
    ASSERT_TRUE(done);
    EXPECT_EQ(result.failure.kind, FailureKind::Cancelled);
    EXPECT_GT(result.metrics.tokenEvents, 2);
    EXPECT_LT(result.metrics.tokenEvents, 100);
}

TEST(StreamingClient, ReusesTheConnection)
{
    Served server(config(Dialect::Vllm, Era::Current, emu::simpleScript(3, 5, 200)));
    StreamingClient client;
    std::vector<RequestRecord> records;
    QObject::connect(
        &client, &StreamingClient::finished, [&](const RequestRecord& r) { records.push_back(r); });
    for (int i = 0; i < 3; ++i) {
        client.start(server.endpoint, prompt());
        const qint64 until = monotonicNs() + qint64(5e9);
        while (records.size() < std::size_t(i + 1) && monotonicNs() < until)
            QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents, 50);
    }
    ASSERT_EQ(records.size(), 3u);
    EXPECT_FALSE(records[0].timing.connectionReused);
    EXPECT_TRUE(records[1].timing.connectionReused);
    EXPECT_TRUE(records[2].timing.connectionReused);
    EXPECT_DOUBLE_EQ(*records[2].metrics.connectMs, 0);
    for (const RequestRecord& r : records)
        EXPECT_TRUE(r.ok());
}

TEST(StreamingClient, TenConcurrentStreamsAreNotQueued)
{
    // QNetworkAccessManager would hold 4 of these back (6 per host); our client must not.
    Served server(config(Dialect::Vllm, Era::Current, emu::simpleScript(5, 150, 100)));
    std::vector<std::unique_ptr<StreamingClient>> clients;
    std::vector<RequestRecord> records;
    for (int i = 0; i < 10; ++i) {
        clients.push_back(std::make_unique<StreamingClient>());
        QObject::connect(clients.back().get(), &StreamingClient::finished,
            [&](const RequestRecord& r) { records.push_back(r); });
        clients.back()->start(server.endpoint, prompt());
    }
    const qint64 until = monotonicNs() + qint64(10e9);
    while (records.size() < 10 && monotonicNs() < until)
        QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents, 50);
    ASSERT_EQ(records.size(), 10u);
    for (const RequestRecord& r : records) {
        ASSERT_TRUE(r.ok()) << r.failure.text().toStdString();
        EXPECT_LT(*r.metrics.ttftAnyMs, 150 + 200) << "a request was queued on the client side";
    }
}

TEST(StreamingClient, ServerThatIgnoresStreamIsFlagged)
{
    Served server(config(Dialect::Vllm, Era::Current, emu::simpleScript(4, 5, 200)));
    ChatRequest req = prompt();
    req.extraBody = {{"stream", false}, {"stream_options", nullptr}};
    const RequestRecord r = runChatBlocking(server.endpoint, req);
    EXPECT_EQ(r.failure.kind, FailureKind::NotStreaming) << r.failure.text().toStdString();
    EXPECT_EQ(r.response.content, tokens(4).join(QString()));
}

TEST(StreamingClient, ConnectionRefusedAndNonHttpPeers)
{
    Endpoint e;
    e.baseUrl = QUrl(QStringLiteral("http://127.0.0.1:%1").arg(closedPort()));
    RequestRecord r = runChatBlocking(e, prompt());
    EXPECT_EQ(r.failure.kind, FailureKind::ConnectionRefused);
    EXPECT_TRUE(r.failure.advice.contains(QStringLiteral("8080")));

    CannedServer ssh("SSH-2.0-OpenSSH_9.2\r\n");
    e.baseUrl = ssh.url();
    r = runChatBlocking(e, prompt());
    EXPECT_EQ(r.failure.kind, FailureKind::NotOpenAiCompatible) << r.failure.text().toStdString();

    CannedServer html("HTTP/1.1 404 Not Found\r\nContent-Type: text/html\r\nContent-Length: 22\r\n\r\n"
                      "<html>not here</html>\n");
    e.baseUrl = html.url();
    r = runChatBlocking(e, prompt());
    EXPECT_EQ(r.failure.kind, FailureKind::RouteNotFound) << r.failure.text().toStdString();

    CannedServer silentClose("");
    e.baseUrl = silentClose.url();
    r = runChatBlocking(e, prompt());
    EXPECT_EQ(r.failure.kind, FailureKind::Disconnected);
    EXPECT_TRUE(r.failure.summary.contains(QStringLiteral("without answering")));
}
