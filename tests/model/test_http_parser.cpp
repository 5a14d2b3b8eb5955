// SPDX-License-Identifier: MIT
#include "model/wire/HttpResponseParser.h"

#include <gtest/gtest.h>

using qs::HttpResponseParser;

namespace {
struct Parsed {
    HttpResponseParser parser;
    QByteArray body;
};

Parsed feedSplit(const QByteArray& wire, std::initializer_list<qsizetype> cuts, bool close = false)
{
    Parsed p;
    qsizetype from = 0;
    for (qsizetype cut : cuts) {
        p.parser.feed(QByteArrayView(wire).sliced(from, cut - from), p.body);
        from = cut;
    }
    p.parser.feed(QByteArrayView(wire).sliced(from), p.body);
    if (close)
        p.parser.connectionClosed();
    return p;
}

const QByteArray Chunked = "HTTP/1.1 200 OK\r\n"
                           "Content-Type: text/event-stream\r\n"
                           "Transfer-Encoding: chunked\r\n"
                           "Server: llama.cpp\r\n\r\n"
                           "7\r\ndata: {\r\n"
                           "11;ext=1\r\n}\n\ndata: [DONE]\n\n\r\n"
                           "0\r\nTrailer: x\r\n\r\n";
} // namespace

TEST(HttpResponseParser, ChunkedBodyAtEverySplit)
{
    for (qsizetype a = 0; a <= Chunked.size(); ++a) {
        const Parsed p = feedSplit(Chunked, {a});
        ASSERT_TRUE(p.parser.complete()) << "split at " << a << ": " << p.parser.error().toStdString();
        EXPECT_EQ(p.body, QByteArray("data: {}\n\ndata: [DONE]\n\n")) << "split at " << a;
        EXPECT_EQ(p.parser.statusCode(), 200);
        EXPECT_EQ(p.parser.header("SERVER"), "llama.cpp");
        EXPECT_TRUE(p.parser.chunked());
    }
}

TEST(HttpResponseParser, ChunkedBodyOneByteAtATime)
{
    Parsed p;
    for (char c : Chunked)
        p.parser.feed(QByteArrayView(&c, 1), p.body);
    EXPECT_TRUE(p.parser.complete());
    EXPECT_EQ(p.body, QByteArray("data: {}\n\ndata: [DONE]\n\n"));
}

TEST(HttpResponseParser, ContentLengthAndPipelinedLeftover)
{
    const QByteArray wire = "HTTP/1.1 400 Bad Request\r\ncontent-length: 5\r\n\r\nhelloHTTP/1.1 200";
    for (qsizetype a = 0; a <= wire.size(); ++a) {
        const Parsed p = feedSplit(wire, {a});
        ASSERT_TRUE(p.parser.complete()) << a;
        EXPECT_EQ(p.body, "hello");
        EXPECT_EQ(p.parser.statusCode(), 400);
        EXPECT_EQ(p.parser.reasonPhrase(), "Bad Request");
        EXPECT_EQ(p.parser.leftover(), "HTTP/1.1 200");
    }
}

TEST(HttpResponseParser, CloseDelimitedBodyCompletesOnClose)
{
    const QByteArray wire = "HTTP/1.0 200 OK\r\nContent-Type: text/event-stream\r\n\r\ndata: x\n\n";
    Parsed p = feedSplit(wire, {20});
    EXPECT_FALSE(p.parser.complete());
    EXPECT_TRUE(p.parser.connectionWillClose());
    p.parser.connectionClosed();
    EXPECT_TRUE(p.parser.complete());
    EXPECT_EQ(p.body, "data: x\n\n");
}

TEST(HttpResponseParser, TruncatedChunkedStreamFailsWithReason)
{
    const QByteArray wire = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nabc";
    Parsed p = feedSplit(wire, {}, true);
    EXPECT_TRUE(p.parser.failed());
    EXPECT_TRUE(p.parser.error().contains(QStringLiteral("middle of the response")));
    EXPECT_EQ(p.body, "abc"); // what arrived is kept
}

TEST(HttpResponseParser, InterimResponseIsSkipped)
{
    const QByteArray wire = "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n";
    const Parsed p = feedSplit(wire, {10, 30});
    EXPECT_TRUE(p.parser.complete());
    EXPECT_EQ(p.parser.statusCode(), 204);
}

TEST(HttpResponseParser, RejectsNonHttp)
{
    const Parsed p = feedSplit("SSH-2.0-OpenSSH_9.2\r\n", {});
    EXPECT_TRUE(p.parser.failed());
    EXPECT_TRUE(p.parser.error().contains(QStringLiteral("did not answer with HTTP")));
}

TEST(HttpResponseParser, RejectsBadChunkSize)
{
    const Parsed p = feedSplit("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", {});
    EXPECT_TRUE(p.parser.failed());
}

TEST(HttpResponseParser, ClosedBeforeAnyByte)
{
    Parsed p;
    p.parser.connectionClosed();
    EXPECT_TRUE(p.parser.failed());
    EXPECT_TRUE(p.parser.error().contains(QStringLiteral("without answering")));
}
