// SPDX-License-Identifier: MIT
// The client against servers that misbehave on purpose (issue #14, "Hostile servers"): each must
// end with a clear failure within the configured timeouts, without buffering what the server
// throws at it, and a run with such an endpoint goes on for the others.
#include "ClientTestSupport.h"
#include "RunTestSupport.h"
#include "SuiteFixtures.h"
#include "model/wire/EndpointProbe.h"
#include "tests/support/HostileServer.h"

#include <QElapsedTimer>
#include <gtest/gtest.h>
#include <thread>

using namespace qs;
using namespace qs::test;
using emu::HostileConnection;
using emu::HostileServer;

namespace {
// Short timeouts so every case ends in seconds; the assertions allow generous slack on top.
constexpr int FirstByteMs = 1500;
constexpr int IdleMs = 1000;
constexpr qint64 Slack = 4000; // a busy 2-core machine running two tests at once
// What the server may have written when the client gave up at its limits: the client's own
// limit (8 MiB for a stream line) plus the kernel's socket buffers, far below what was offered.
constexpr qint64 MaxWritten = 48ll << 20;

const QByteArray SseHead = emu::httpHead("200 OK", "Content-Type: text/event-stream\r\n");

QByteArray event(const char* content, const char* finish = nullptr)
{
    const QByteArray f = finish ? QByteArray("\"") + finish + "\"" : QByteArray("null");
    return QByteArray(
               R"(data: {"id":"x","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":")")
        + content + R"("},"finish_reason":)" + f + "}]}\n\n";
}
const QByteArray GoodStream = event("Hello") + event(" world", "stop") + "data: [DONE]\n\n";

struct Result {
    RequestRecord record;
    qint64 ms = 0;
};

Endpoint endpointAt(const HostileServer& server)
{
    Endpoint e;
    e.label = QStringLiteral("hostile");
    e.baseUrl = server.baseUrl();
    e.model = QStringLiteral("hostile");
    e.timeouts.connectMs = 2000;
    e.timeouts.firstByteMs = FirstByteMs;
    e.timeouts.idleMs = IdleMs;
    return e;
}

Result request(const HostileServer& server, std::optional<int> maxTokens = 64)
{
    ChatRequest chat = prompt();
    chat.maxTokens = maxTokens;
    QElapsedTimer t;
    t.start();
    Result r {runChatBlocking(endpointAt(server), chat), 0};
    r.ms = t.elapsed();
    return r;
}

std::string text(const RequestRecord& r)
{
    return r.failure.text().toStdString();
}

/// The hostile server was refused: `kind`, a summary naming `needle`, before `deadlineMs`, and
/// long before the server could push MaxWritten bytes into the client.
void expectRefused(
    const HostileServer& server, const Result& r, FailureKind kind, const char* needle, qint64 deadlineMs)
{
    EXPECT_EQ(r.record.failure.kind, kind) << text(r.record);
    EXPECT_TRUE(r.record.failure.summary.contains(QString::fromUtf8(needle))) << text(r.record);
    EXPECT_LT(r.ms, deadlineMs);
    EXPECT_LT(server.bytesWritten(), MaxWritten);
}

// One script for every POST.
HostileServer serve(std::function<void(HostileConnection&)> play)
{
    return HostileServer([play = std::move(play)](HostileConnection& c, int) {
        play(c);
        return false;
    });
}
} // namespace

// The parsers' limits on their own, fed whole and in pieces (the fuzz targets' split property).
namespace {
HttpResponseParser parseHttp(const QByteArray& wire, qsizetype piece)
{
    HttpResponseParser p;
    QByteArray body;
    for (qsizetype i = 0; i < wire.size() && !p.failed(); i += piece)
        p.feed(QByteArrayView(wire).sliced(i, qMin(piece, wire.size() - i)), body);
    return p;
}

std::vector<SseEvent> feedSse(SseParser& p, const QByteArray& stream, qsizetype piece)
{
    std::vector<SseEvent> out;
    for (qsizetype i = 0; i < stream.size(); i += piece)
        p.feed(QByteArrayView(stream).sliced(i, qMin(piece, stream.size() - i)), 1, out);
    return out;
}
} // namespace

TEST(HostileLimits, HeadersArrivingWholeInOneReadAreBoundedToo)
{
    QByteArray wire = "HTTP/1.1 200 OK\r\n";
    for (int i = 0; i < 100; ++i)
        wire += "X-Pad-" + QByteArray::number(i) + ": " + QByteArray(3000, 'a') + "\r\n";
    wire += "\r\n";
    for (const qsizetype piece : {wire.size(), qsizetype(1000), qsizetype(7)}) {
        const HttpResponseParser p = parseHttp(wire, piece);
        EXPECT_TRUE(p.failed()) << piece;
        EXPECT_EQ(p.error(), QStringLiteral("the HTTP response headers exceed 256 KiB")) << piece;
    }
    QByteArray many = "HTTP/1.1 200 OK\r\n";
    for (int i = 0; i < 300; ++i)
        many += "X: 1\r\n";
    EXPECT_TRUE(
        parseHttp(many + "\r\n", many.size() + 2).error().contains(QStringLiteral("256 header fields")));
}

TEST(HostileLimits, ChunkSizesParseWithoutOverflowAndFailAlikeWholeOrSplit)
{
    const QByteArray head = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n";
    const struct {
        QByteArray size;
        const char* error;
    } cases[] = {
        {"8000000000000000", "absurd chunk size"},
        {"ffffffffffffffffffff", "malformed chunk size"},
        {"0x10", "malformed chunk size"},
        {"-1", "malformed chunk size"},
        {QByteArray(5000, '0') + "5", "longer than 4 KiB"},
    };
    for (const auto& c : cases) {
        const QByteArray wire = head + c.size + "\r\nhello\r\n0\r\n\r\n";
        const HttpResponseParser whole = parseHttp(wire, wire.size());
        const HttpResponseParser split = parseHttp(wire, 3);
        EXPECT_TRUE(whole.error().contains(QLatin1String(c.error))) << whole.error().toStdString();
        EXPECT_EQ(whole.error(), split.error());
    }
    // The largest legitimate sizes still parse, upper or lower case, with extensions.
    const QByteArray ok = head + "5;ext=1\r\nhello\r\nA\r\n0123456789\r\n0\r\n\r\n";
    EXPECT_TRUE(parseHttp(ok, ok.size()).complete());
    EXPECT_TRUE(parseHttp(ok, 1).complete());
}

TEST(HostileLimits, StreamLinesAreBoundedButTheLargestRealEventsPass)
{
    const qint64 stamp = 1;
    // A 7 MiB event (one tool call's arguments in one piece) passes, whole or in pieces.
    const QByteArray big = "data: {\"x\":\"" + QByteArray(7 << 20, 'a') + "\"}\n\n";
    for (const qsizetype piece : {big.size(), qsizetype(65536)}) {
        SseParser p;
        const std::vector<SseEvent> out = feedSse(p, big, piece);
        EXPECT_FALSE(p.failed());
        ASSERT_EQ(out.size(), 1u);
        EXPECT_EQ(out[0].data.size(), big.size() - 8);
    }
    // A 9 MiB line fails, whole or in pieces, with the same reason, and lets nothing through.
    const QByteArray huge = "data: ok\n\ndata: " + QByteArray(9 << 20, 'a') + "\n\n";
    QString reason;
    for (const qsizetype piece : {huge.size(), qsizetype(65536)}) {
        SseParser p;
        std::vector<SseEvent> out = feedSse(p, huge, piece);
        EXPECT_TRUE(p.failed());
        EXPECT_LT(p.pendingBytes(), SseParser::MaxEventBytes);
        p.finish(stamp, out);
        ASSERT_EQ(out.size(), 1u);
        EXPECT_EQ(out[0].data, "ok");
        EXPECT_TRUE(reason.isEmpty() || reason == p.error());
        reason = p.error();
    }
    EXPECT_EQ(reason, QStringLiteral("a stream line longer than 8 MiB"));
    // Many lines that together pass the limit in one event fail too.
    SseParser p;
    std::vector<SseEvent> out;
    for (int i = 0; i < 9; ++i)
        p.feed(QByteArray("data: " + QByteArray(1 << 20, 'b') + "\n"), stamp, out);
    EXPECT_TRUE(p.failed());
    EXPECT_TRUE(out.empty());
}

TEST(HostileServer, EndlessHeaderLinesAreRefusedAtTheFieldOrByteLimit)
{
    HostileServer server = serve([](HostileConnection& c) {
        c.send("HTTP/1.1 200 OK\r\n");
        c.sendRepeated(
            "X-Pad: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\r\n", -1);
    });
    const Result r = request(server);
    expectRefused(server, r, FailureKind::NotOpenAiCompatible, "header fields", FirstByteMs + Slack);
}

TEST(HostileServer, AHeaderLineWithoutEndIsRefusedAt256KiB)
{
    HostileServer server = serve([](HostileConnection& c) {
        c.send("HTTP/1.1 200 OK\r\nX-Pad: ");
        c.sendRepeated("a", -1);
    });
    const Result r = request(server);
    expectRefused(server, r, FailureKind::NotOpenAiCompatible, "256 KiB", FirstByteMs + Slack);
}

TEST(HostileServer, AGigabyteLineWithoutNewlineIsRefusedAtTheLineLimit)
{
    HostileServer server = serve([](HostileConnection& c) {
        c.send(SseHead + event("before"));
        c.send("data: ");
        c.sendRepeated("x", 1ll << 30);
    });
    const Result r = request(server);
    expectRefused(server, r, FailureKind::MalformedStream, "MiB", IdleMs + Slack);
    EXPECT_EQ(r.record.response.content, QStringLiteral("before")); // what came before is kept
}

TEST(HostileServer, AbsurdChunkSizesAreRefused)
{
    for (const char* size : {"8000000000000000", "ffffffffffffffffffff", "7fffffffffffffff", "40000001"}) {
        SCOPED_TRACE(size);
        HostileServer server = serve([size](HostileConnection& c) {
            c.send(
                emu::httpHead("200 OK", "Content-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n"));
            c.send(QByteArray(size) + "\r\n");
            c.sendRepeated(GoodStream, -1);
        });
        const Result r = request(server);
        expectRefused(server, r, FailureKind::NotOpenAiCompatible, "chunk size", FirstByteMs + Slack);
    }
}

TEST(HostileServer, AChunkSizeLineWithoutEndIsRefused)
{
    HostileServer server = serve([](HostileConnection& c) {
        c.send(emu::httpHead("200 OK", "Content-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n"));
        c.sendRepeated("0", -1);
    });
    const Result r = request(server);
    expectRefused(server, r, FailureKind::NotOpenAiCompatible, "chunk size", FirstByteMs + Slack);
}

TEST(HostileServer, ATrickleThatNeverCompletesAnEventEndsAtTheFirstByteTimeout)
{
    HostileServer server = serve([](HostileConnection& c) {
        c.send(SseHead);
        c.trickle("data: {\"choices\":[", 100, true);
    });
    const Result r = request(server);
    EXPECT_EQ(r.record.failure.kind, FailureKind::FirstByteTimeout) << text(r.record);
    EXPECT_TRUE(r.record.failure.summary.contains(QStringLiteral("no complete event"))) << text(r.record);
    EXPECT_GE(r.ms, FirstByteMs - 100);
    EXPECT_LT(r.ms, FirstByteMs + Slack);
}

TEST(HostileServer, ATrickleAfterSomeEventsEndsAtTheIdleTimeoutAndKeepsTheEvents)
{
    HostileServer server = serve([](HostileConnection& c) {
        c.send(SseHead + event("Hello"));
        c.trickle("data: {\"choices\":[", 100, true);
    });
    const Result r = request(server);
    EXPECT_EQ(r.record.failure.kind, FailureKind::IdleTimeout) << text(r.record);
    EXPECT_EQ(r.record.response.content, QStringLiteral("Hello"));
    EXPECT_GE(r.ms, IdleMs - 100);
    EXPECT_LT(r.ms, IdleMs + Slack);
}

TEST(HostileServer, AStreamOfValidEventsThatNeverEndsStopsPastMaxTokens)
{
    HostileServer server = serve([](HostileConnection& c) {
        c.send(SseHead);
        while (c.send(event("tok")))
            std::this_thread::sleep_for(std::chrono::milliseconds(5)); // steady: the idle timer never fires
    });
    const Result r = request(server, 8);
    EXPECT_EQ(r.record.failure.kind, FailureKind::MalformedStream) << text(r.record);
    EXPECT_TRUE(r.record.failure.summary.contains(QStringLiteral("max_tokens"))) << text(r.record);
    EXPECT_TRUE(r.record.response.content.startsWith(QStringLiteral("toktok")));
    EXPECT_LT(r.ms, 10 * IdleMs);
}

TEST(HostileServer, KeepAliveCommentsForeverAreNotProgress)
{
    HostileServer server = serve([](HostileConnection& c) {
        c.send(SseHead);
        while (c.send(": ping\n\n"))
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
    });
    const Result r = request(server);
    EXPECT_EQ(r.record.failure.kind, FailureKind::FirstByteTimeout) << text(r.record);
    EXPECT_LT(r.ms, FirstByteMs + Slack);
}

TEST(HostileServer, AnErrorBodyTrickledForeverEndsAtTheIdleTimeoutAndKeepsItsStatus)
{
    HostileServer server = serve([](HostileConnection& c) {
        c.send(emu::httpHead("500 Internal Server Error", "Content-Type: application/json\r\n"));
        c.trickle(R"({"error":{"message":"slow)", 100, true);
    });
    const Result r = request(server);
    EXPECT_EQ(r.record.failure.kind, FailureKind::ServerError) << text(r.record); // the status says most
    EXPECT_EQ(r.record.failure.httpStatus, 500);
    EXPECT_LT(r.ms, FirstByteMs + IdleMs + Slack);
}

TEST(HostileServer, AContentLengthLongerThanTheBodyThenCloseKeepsWhatArrived)
{
    HostileServer server = serve([](HostileConnection& c) {
        const QByteArray body = event("Hello") + event(" wor");
        c.send(emu::httpHead("200 OK",
                   "Content-Type: text/event-stream\r\nContent-Length: "
                       + QByteArray::number(body.size() + 1000) + "\r\n")
            + body);
    });
    const Result r = request(server);
    EXPECT_EQ(r.record.failure.kind, FailureKind::Disconnected) << text(r.record);
    EXPECT_TRUE(r.record.failure.summary.contains(QStringLiteral("1000 bytes before the end")))
        << text(r.record);
    EXPECT_EQ(r.record.response.content, QStringLiteral("Hello wor"));
    EXPECT_LT(r.ms, Slack);
}

TEST(HostileServer, AContentLengthLongerThanTheBodyThenHangEndsAtTheIdleTimeout)
{
    HostileServer server = serve([](HostileConnection& c) {
        const QByteArray body = event("Hello");
        c.send(emu::httpHead("200 OK",
                   "Content-Type: text/event-stream\r\nContent-Length: "
                       + QByteArray::number(body.size() + 1000) + "\r\n")
            + body);
        c.hang();
    });
    const Result r = request(server);
    EXPECT_EQ(r.record.failure.kind, FailureKind::IdleTimeout) << text(r.record);
    EXPECT_TRUE(r.record.failure.summary.contains(QStringLiteral("1000 bytes"))) << text(r.record);
    EXPECT_EQ(r.record.response.content, QStringLiteral("Hello"));
    EXPECT_LT(r.ms, IdleMs + Slack);
}

TEST(HostileServer, BytesBeyondAShortContentLengthAreNeverReadAsTheNextResponse)
{
    // The first answer's Content-Length covers half its stream; the rest, sent on, is shaped like
    // a whole response of its own. The client must not take it as the answer to its next request.
    const QByteArray injected = emu::httpResponse("200 OK", "text/event-stream", event("INJECTED", "stop"));
    HostileServer server([&](HostileConnection& c, int post) {
        if (post == 0 && c.clientGone() == false && server.connections() == 1) {
            const QByteArray body = event("Hello");
            c.send(emu::httpHead("200 OK",
                       "Content-Type: text/event-stream\r\nContent-Length: " + QByteArray::number(body.size())
                           + "\r\n")
                + body);
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
            c.send(GoodStream + injected);
            c.hang();
            return false;
        }
        c.send(emu::httpResponse("200 OK", "text/event-stream", GoodStream));
        return true;
    });
    StreamingClient client;
    const auto once = [&] {
        RequestRecord out;
        QEventLoop loop;
        QObject::connect(&client, &StreamingClient::finished, &loop, [&](const RequestRecord& r) {
            out = r;
            loop.quit();
        });
        client.start(endpointAt(server), prompt());
        loop.exec();
        return out;
    };
    const RequestRecord first = once();
    EXPECT_EQ(first.failure.kind, FailureKind::Disconnected) << text(first); // no [DONE] within the body
    EXPECT_EQ(first.response.content, QStringLiteral("Hello"));
    std::this_thread::sleep_for(std::chrono::milliseconds(300)); // the extra bytes are on their way
    QCoreApplication::processEvents();
    const RequestRecord second = once();
    EXPECT_TRUE(second.ok()) << text(second);
    EXPECT_EQ(second.response.content, QStringLiteral("Hello world"));
    EXPECT_EQ(server.connections(), 2);
}

TEST(HostileServer, AnUnaskedCompressedBodyIsRefusedByName)
{
    HostileServer server = serve([](HostileConnection& c) {
        // A real gzip member: header, one stored deflate block, CRC-32 and length.
        const QByteArray plain = GoodStream;
        quint32 crc = 0xffffffffu;
        for (const char ch : plain) {
            crc ^= quint8(ch);
            for (int k = 0; k < 8; ++k)
                crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1u)));
        }
        crc = ~crc;
        const auto le32 = [](quint32 v) {
            QByteArray out;
            for (int shift = 0; shift < 32; shift += 8)
                out.append(char(v >> shift));
            return out;
        };
        const quint16 n = quint16(plain.size());
        QByteArray gz("\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff", 10);
        gz.append(char(1)); // final block, stored
        gz.append(le32(quint32(n) | quint32(quint16(~n)) << 16));
        gz += plain + le32(crc) + le32(quint32(plain.size()));
        c.send(emu::httpHead("200 OK",
                   "Content-Type: text/event-stream\r\nContent-Encoding: gzip\r\nContent-Length: "
                       + QByteArray::number(gz.size()) + "\r\n")
            + gz);
    });
    const Result r = request(server);
    EXPECT_EQ(r.record.failure.kind, FailureKind::NotOpenAiCompatible) << text(r.record);
    EXPECT_TRUE(r.record.failure.summary.contains(QStringLiteral("Content-Encoding: gzip")))
        << text(r.record);
    EXPECT_TRUE(r.record.failure.advice.contains(QStringLiteral("compression"))) << text(r.record);
    EXPECT_LT(r.ms, Slack);
}

TEST(HostileServer, RedirectsAreNamedAndNeverFollowed)
{
    for (const char* status : {"301 Moved Permanently", "302 Found", "307 Temporary Redirect"}) {
        SCOPED_TRACE(status);
        HostileServer server([status, &server](HostileConnection& c, int) {
            const QByteArray self = server.baseUrl().toEncoded() + "/v1/chat/completions";
            c.send(emu::httpHead(status, "Location: " + self + "\r\nContent-Length: 0\r\n"));
            return true;
        });
        const Result r = request(server);
        EXPECT_EQ(r.record.failure.kind, FailureKind::InvalidUrl) << text(r.record);
        EXPECT_TRUE(r.record.failure.summary.contains(QStringLiteral("redirect"))) << text(r.record);
        EXPECT_TRUE(r.record.failure.summary.contains(server.baseUrl().toString())) << text(r.record);
        EXPECT_EQ(r.record.failure.httpStatus, QByteArray(status).left(3).toInt());
        EXPECT_EQ(server.posts(), 1);
        EXPECT_LT(r.ms, Slack);
    }
}

TEST(HostileServer, TheProbeNamesARedirectingEndpointAndStopsOnEndlessOrTrickledAnswers)
{
    {
        HostileServer server(
            [](HostileConnection& c, int) {
                c.send(emu::httpHead("301 Moved Permanently",
                    "Location: https://127.0.0.1:1/v1/models\r\nContent-Length: 0\r\n"));
                return true;
            },
            false);
        const ProbeResult p = probeBlocking(endpointAt(server), 1);
        EXPECT_EQ(p.failure.kind, FailureKind::InvalidUrl) << p.failure.text().toStdString();
        EXPECT_TRUE(p.failure.summary.contains(QStringLiteral("redirects to https://127.0.0.1:1/v1/models")))
            << p.failure.text().toStdString();
    }
    {
        HostileServer server(
            [](HostileConnection& c, int) {
                c.send(emu::httpHead("200 OK", "Content-Type: application/json\r\n") + "{\"data\":[\"");
                c.sendRepeated("x", -1);
                return false;
            },
            false);
        QElapsedTimer t;
        t.start();
        const ProbeResult p = probeBlocking(endpointAt(server), 1);
        EXPECT_TRUE(p.failure.summary.contains(QStringLiteral("8 MiB"))) << p.failure.text().toStdString();
        EXPECT_LT(t.elapsed(), Slack);
        EXPECT_LT(server.bytesWritten(), MaxWritten);
    }
    {
        HostileServer server(
            [](HostileConnection& c, int) {
                c.send(emu::httpHead("200 OK", "Content-Type: application/json\r\n"));
                c.trickle("{\"data\":[", 100, true);
                return false;
            },
            false);
        Endpoint e = endpointAt(server);
        e.timeouts.totalMs = 2000;
        QElapsedTimer t;
        t.start();
        const ProbeResult p = probeBlocking(e, 1);
        EXPECT_EQ(p.failure.kind, FailureKind::TotalTimeout) << p.failure.text().toStdString();
        EXPECT_LT(t.elapsed(), e.timeouts.totalMs + Slack);
    }
}

TEST(HostileServer, ARunWithAHostileEndpointGoesOnForTheGoodOne)
{
    // Every request to the hostile endpoint meets a different misbehaviour.
    std::atomic<int> posts {0};
    HostileServer hostile([&posts](HostileConnection& c, int) {
        switch (posts++ % 4) {
        case 0:
            c.send("HTTP/1.1 200 OK\r\n");
            c.sendRepeated("X-Pad: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\r\n", -1);
            break;
        case 1:
            c.send(SseHead + "data: ");
            c.sendRepeated("x", 1ll << 30);
            break;
        case 2:
            c.send(SseHead);
            c.trickle("data: {", 100, true);
            break;
        default:
            c.send(emu::httpHead("302 Found", "Location: http://elsewhere/\r\nContent-Length: 0\r\n"));
            return true;
        }
        return false;
    });
    Served good(config(emu::Dialect::Vllm, emu::Era::Current, emu::simpleScript(4, 5, 400)));
    RunRequest request;
    request.suite = smallSuite(0, 1);
    RunEndpoint a;
    a.endpoint = good.endpoint;
    a.endpoint.label = QStringLiteral("good");
    a.spec = good.endpoint.baseUrl.toString();
    RunEndpoint b;
    b.endpoint = endpointAt(hostile);
    b.spec = hostile.baseUrl().toString();
    request.endpoints = {a, b};
    QElapsedTimer t;
    t.start();
    const Outcome o = run(request);
    ASSERT_TRUE(o.result) << o.failed.toStdString();
    int hostileRecords = 0;
    for (const RunRecord& r : o.result->records) {
        if (r.endpoint == 0) {
            EXPECT_TRUE(r.request.ok()) << text(r.request);
            continue;
        }
        ++hostileRecords;
        EXPECT_TRUE(r.request.failure.isFailure());
        EXPECT_FALSE(r.request.failure.summary.isEmpty());
        EXPECT_FALSE(r.request.failure.advice.isEmpty());
    }
    EXPECT_GT(hostileRecords, 0);
    EXPECT_TRUE(o.result->complete);
    EXPECT_LT(hostile.bytesWritten(), 4 * MaxWritten);
    EXPECT_LT(t.elapsed(), 60000);
}
