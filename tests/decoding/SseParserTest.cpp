// SPDX-License-Identifier: MIT
#include "model/wire/SseParser.h"

#include "TestSupport.h"

#include <gtest/gtest.h>

using namespace qs;
using namespace qs::test;

namespace {

std::vector<SseEvent> parseFeeds(
    std::initializer_list<QByteArrayView> pieces, qint64 finishStamp = 999, SseParser* parserOut = nullptr)
{
    SseParser local;
    SseParser& parser = parserOut ? *parserOut : local;
    std::vector<SseEvent> out;
    qint64 stamp = 1;
    for (QByteArrayView piece : pieces)
        parser.feed(piece, stamp++, out);
    parser.finish(finishStamp, out);
    return out;
}

std::vector<QByteArray> datas(const std::vector<SseEvent>& events)
{
    std::vector<QByteArray> out;
    for (const SseEvent& e : events)
        out.push_back(e.data);
    return out;
}

// ---------------------------------------------------------------- fixtures, every split

TEST(SseParserFixtures, FixturesArePresent)
{
    EXPECT_GE(fixtureNames().size(), 14);
}

TEST(SseParserFixtures, EverySplitPositionGivesTheSameEvents)
{
    for (const QString& name : fixtureNames()) {
        SCOPED_TRACE(name.toStdString());
        const QByteArray bytes = loadFixture(name);
        ASSERT_FALSE(bytes.isEmpty());
        const Parsed whole = parseInPieces(bytes, 0);
        ASSERT_FALSE(whole.events.empty());

        // Byte-at-a-time with stamp = index of the byte + 1 tells which byte completed each event.
        const Parsed single = parseInPieces(bytes, 1, 1);
        ASSERT_EQ(single.events.size(), whole.events.size());
        EXPECT_EQ(single.comments, whole.comments);
        for (size_t i = 0; i < whole.events.size(); ++i) {
            EXPECT_TRUE(sameContent(single.events[i], whole.events[i]))
                << "event " << i << ": " << testing::PrintToString(single.events[i]) << " vs "
                << testing::PrintToString(whole.events[i]);
            if (i > 0) {
                EXPECT_GE(single.events[i].stampNs, single.events[i - 1].stampNs);
            }
        }

        for (qsizetype k = 0; k <= bytes.size(); ++k) {
            SseParser parser;
            std::vector<SseEvent> events;
            parser.feed(QByteArrayView(bytes).first(k), 1, events);
            parser.feed(QByteArrayView(bytes).sliced(k), 2, events);
            parser.finish(3, events);
            ASSERT_EQ(events.size(), whole.events.size()) << "split at " << k;
            EXPECT_EQ(parser.commentCount(), whole.comments) << "split at " << k;
            EXPECT_EQ(parser.bytesFed(), bytes.size());
            for (size_t i = 0; i < events.size(); ++i) {
                ASSERT_TRUE(sameContent(events[i], whole.events[i])) << "split at " << k << ", event " << i;
                // The stamp is the one of the feed whose bytes completed the event.
                const qint64 completedBy = single.events[i].stampNs; // 1-based byte index
                const qint64 expected = !events[i].complete ? 3 : (completedBy <= k ? 1 : 2);
                ASSERT_EQ(events[i].stampNs, expected) << "split at " << k << ", event " << i;
            }
        }
    }
}

TEST(SseParserFixtures, KnownShapes)
{
    {
        const Parsed p
            = parseInPieces(loadFixture(QStringLiteral("llama-current-reasoning-tools-usage.sse")), 0);
        EXPECT_EQ(p.events.size(), 11u);
        EXPECT_EQ(p.comments, 3);
        EXPECT_EQ(p.events.back().data, QByteArray("[DONE]"));
        for (const SseEvent& e : p.events) {
            EXPECT_TRUE(e.event.isEmpty());
            EXPECT_TRUE(e.complete);
        }
    }
    {
        const Parsed p = parseInPieces(loadFixture(QStringLiteral("vllm-016-reasoning.sse")), 0);
        EXPECT_EQ(p.events.size(), 9u);
        EXPECT_EQ(p.comments, 3);
    }
    {
        // BOM + CRLF + event:/id:/retry: + a JSON payload split over two data: lines.
        const Parsed p = parseInPieces(loadFixture(QStringLiteral("proxy-crlf-bom-multiline.sse")), 0);
        ASSERT_EQ(p.events.size(), 5u);
        EXPECT_EQ(p.comments, 1);
        EXPECT_EQ(p.events[0].event, QByteArray("message"));
        EXPECT_EQ(p.events[0].id, QByteArray("1"));
        EXPECT_TRUE(p.events[0].data.startsWith("{\"id\":"));
        EXPECT_TRUE(p.events[1].data.startsWith("{\"id\":")) << "data: without a space";
        EXPECT_EQ(p.events[2].data.count('\n'), 1);
        EXPECT_TRUE(p.events[2].data.contains(",\n\"choices\":"));
        EXPECT_FALSE(p.events[2].data.contains('\r'));
        EXPECT_EQ(p.events[3].id, QByteArray("4"));
        EXPECT_EQ(p.events[4].event, QByteArray("done"));
        EXPECT_EQ(p.events[4].data, QByteArray("[DONE]"));
        EXPECT_EQ(p.events[4].id, QByteArray("4")) << "the last event id persists";
    }
    {
        const Parsed p = parseInPieces(loadFixture(QStringLiteral("proxy-cr-only.sse")), 0);
        ASSERT_EQ(p.events.size(), 5u);
        EXPECT_EQ(p.events.back().data, QByteArray("[DONE]"));
    }
    {
        const Parsed p = parseInPieces(loadFixture(QStringLiteral("vllm-truncated.sse")), 0, 1, 77);
        ASSERT_EQ(p.events.size(), 4u);
        EXPECT_TRUE(p.events[2].complete);
        EXPECT_FALSE(p.events[3].complete);
        EXPECT_EQ(p.events[3].stampNs, 77);
        EXPECT_TRUE(p.events[3].data.endsWith("}"));
    }
}

// ---------------------------------------------------------------- byte-level rules

TEST(SseParser, SplitInsideMultiByteUtf8)
{
    const QByteArray text
        = QStringLiteral("data: {\"content\":\"Gr\u00FC\u00DFe \U0001F642 \u5929\u6C17\"}\n\n").toUtf8();
    const qsizetype emoji = text.indexOf("\xF0\x9F\x99\x82");
    ASSERT_GT(emoji, 0);
    for (qsizetype k = emoji + 1; k < emoji + 4; ++k) {
        const auto events = parseFeeds({QByteArrayView(text).first(k), QByteArrayView(text).sliced(k)});
        ASSERT_EQ(events.size(), 1u);
        EXPECT_EQ(QString::fromUtf8(events[0].data),
            QStringLiteral("{\"content\":\"Gr\u00FC\u00DFe \U0001F642 \u5929\u6C17\"}"));
    }
}

TEST(SseParser, CrAtEndOfFeedThenLfIsOneLineEnd)
{
    // If CR|LF were two line ends, the LF would be a blank line and dispatch "a" alone.
    const auto events = parseFeeds({"data: a\r", "\ndata: b\r\n\r\n"});
    ASSERT_EQ(events.size(), 1u);
    EXPECT_EQ(events[0].data, QByteArray("a\nb"));
    EXPECT_EQ(events[0].stampNs, 2);
}

TEST(SseParser, CrCrIsTwoLineEnds)
{
    const auto events = parseFeeds({"data: a\r", "\rdata: b\r\r"});
    ASSERT_EQ(datas(events), (std::vector<QByteArray> {"a", "b"}));
    EXPECT_EQ(events[0].stampNs, 2);
}

TEST(SseParser, BlankLineEndedByCrCompletesEventBeforeTheLfArrives)
{
    const auto events = parseFeeds({"data: a\r\n\r", "\n"});
    ASSERT_EQ(events.size(), 1u);
    EXPECT_EQ(events[0].stampNs, 1);
    EXPECT_TRUE(events[0].complete);
}

TEST(SseParser, CrLfSplitAcrossEmptyFeed)
{
    const auto events = parseFeeds({"data: a\r", "", "\n", "\r\n"});
    ASSERT_EQ(events.size(), 1u);
    EXPECT_EQ(events[0].data, QByteArray("a"));
    EXPECT_EQ(events[0].stampNs, 4);
}

TEST(SseParser, MixedLineEnds)
{
    const auto events = parseFeeds({"data: 1\n\ndata: 2\r\n\r\ndata: 3\r\rdata: 4\n\r\n"});
    EXPECT_EQ(datas(events), (std::vector<QByteArray> {"1", "2", "3", "4"}));
}

TEST(SseParser, LeadingBomDropped)
{
    const QByteArray text("\xEF\xBB\xBF"
                          "data: x\n\n");
    for (qsizetype k = 0; k <= 4; ++k) {
        const auto events = parseFeeds({QByteArrayView(text).first(k), QByteArrayView(text).sliced(k)});
        ASSERT_EQ(events.size(), 1u) << "split at " << k;
        EXPECT_EQ(events[0].data, QByteArray("x"));
    }
    // One byte at a time.
    const Parsed p = parseInPieces(text, 1);
    ASSERT_EQ(p.events.size(), 1u);
    EXPECT_EQ(p.events[0].data, QByteArray("x"));
}

TEST(SseParser, BomOnlyAtStreamStart)
{
    // A BOM later in the stream is part of the field name, which then is unknown.
    auto events = parseFeeds({"data: a\n\n\xEF\xBB\xBF"
                              "data: b\n\n"});
    EXPECT_EQ(datas(events), (std::vector<QByteArray> {"a"}));
    // A partial BOM is not a BOM.
    events = parseFeeds({"\xEF\xBB", "data: x\n\ndata: y\n\n"});
    EXPECT_EQ(datas(events), (std::vector<QByteArray> {"y"}));
    // Only one BOM is dropped.
    events = parseFeeds({"\xEF\xBB\xBF\xEF\xBB\xBF"
                         "data: x\n\ndata: y\n\n"});
    EXPECT_EQ(datas(events), (std::vector<QByteArray> {"y"}));
}

TEST(SseParser, BomDroppedAgainAfterFinish)
{
    SseParser parser;
    std::vector<SseEvent> out;
    parser.feed("\xEF\xBB\xBF"
                "data: a\n\n",
        1, out);
    parser.finish(2, out);
    parser.feed("\xEF\xBB", 3, out);
    parser.feed("\xBF"
                "data: b\n\n",
        4, out);
    parser.finish(5, out);
    EXPECT_EQ(datas(out), (std::vector<QByteArray> {"a", "b"}));
}

TEST(SseParser, CommentsCountedNotDispatched)
{
    SseParser parser;
    std::vector<SseEvent> out;
    parser.feed(":\n\n: keep-alive\n\n", 10, out);
    EXPECT_TRUE(out.empty());
    EXPECT_EQ(parser.commentCount(), 2);
    EXPECT_EQ(parser.lastCommentNs(), 10);
    parser.feed("data: x\n:inside an event\n", 20, out);
    EXPECT_TRUE(out.empty());
    parser.feed(":", 30, out);
    EXPECT_EQ(parser.commentCount(), 3) << "a comment counts when its line ends";
    parser.feed("\n\n", 40, out);
    EXPECT_EQ(parser.commentCount(), 4);
    EXPECT_EQ(parser.lastCommentNs(), 40);
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0].data, QByteArray("x"));
    EXPECT_EQ(out[0].stampNs, 40);
}

TEST(SseParser, FieldRules)
{
    const auto events = parseFeeds({"data:nospace\n\n"
                                    "data:  two spaces\n\n"
                                    "data\n\n"
                                    "data:\n\n"
                                    "data: a\ndata\ndata: c\n\n"
                                    "retry: 10\nfoo: bar\nData: no\n\n"
                                    "event: only-event\n\n"
                                    "data: after\n\n"
                                    "data: x: y\n\n"});
    EXPECT_EQ(datas(events),
        (std::vector<QByteArray> {"nospace", " two spaces", "", "", "a\n\nc", "after", "x: y"}));
    // The event type of a block without data is discarded with it.
    EXPECT_TRUE(events[5].event.isEmpty());
}

TEST(SseParser, EventAndIdFields)
{
    const auto events = parseFeeds({"event: delta\nid: 7\ndata: a\n\n"
                                    "data: b\n\n"
                                    "id\ndata: c\n\n"});
    ASSERT_EQ(events.size(), 3u);
    EXPECT_EQ(events[0].event, QByteArray("delta"));
    EXPECT_EQ(events[0].id, QByteArray("7"));
    EXPECT_TRUE(events[1].event.isEmpty()) << "event type resets after dispatch";
    EXPECT_EQ(events[1].id, QByteArray("7")) << "the last event id persists";
    EXPECT_TRUE(events[2].id.isEmpty()) << "an empty id: resets it";

    SseParser parser;
    std::vector<SseEvent> out;
    static const char kWithNul[] = "id: 1\ndata: a\n\nid: b\0d\ndata: b\n\n";
    const QByteArray withNul(kWithNul, sizeof(kWithNul) - 1);
    parser.feed(withNul, 1, out);
    ASSERT_EQ(out.size(), 2u);
    EXPECT_EQ(out[1].id, QByteArray("1")) << "an id containing NUL is ignored";
}

TEST(SseParser, StampIsTheFeedThatCompletedTheEvent)
{
    const auto events = parseFeeds({"data: a\n", "\n"});
    ASSERT_EQ(events.size(), 1u);
    EXPECT_EQ(events[0].stampNs, 2);
    EXPECT_TRUE(events[0].complete);
}

TEST(SseParser, FinishFlushesUnterminatedEvent)
{
    {
        const auto events = parseFeeds({"data: a\n\ndata: b\ndata: c"}, 55);
        ASSERT_EQ(events.size(), 2u);
        EXPECT_TRUE(events[0].complete);
        EXPECT_EQ(events[1].data, QByteArray("b\nc"));
        EXPECT_FALSE(events[1].complete);
        EXPECT_EQ(events[1].stampNs, 55);
    }
    {
        const auto events = parseFeeds({"data: only\n"}, 55);
        ASSERT_EQ(events.size(), 1u);
        EXPECT_EQ(events[0].data, QByteArray("only"));
        EXPECT_FALSE(events[0].complete);
    }
    {
        const auto events = parseFeeds({"data: a\n\n: ping\nevent: x\n"});
        EXPECT_EQ(events.size(), 1u) << "nothing pending without a data field";
    }
}

TEST(SseParser, FinishResetsState)
{
    SseParser parser;
    std::vector<SseEvent> out;
    parser.feed("id: 5\nevent: e\ndata: partial", 1, out);
    EXPECT_GT(parser.pendingBytes(), 0);
    parser.finish(2, out);
    EXPECT_EQ(parser.pendingBytes(), 0);
    parser.feed("data: next\n\n", 3, out);
    ASSERT_EQ(out.size(), 2u);
    EXPECT_EQ(out[0].event, QByteArray("e"));
    EXPECT_EQ(out[1].data, QByteArray("next"));
    EXPECT_TRUE(out[1].event.isEmpty());
    EXPECT_TRUE(out[1].id.isEmpty());
    EXPECT_TRUE(out[1].complete);
}

TEST(SseParser, PendingAndByteCounters)
{
    SseParser parser;
    std::vector<SseEvent> out;
    parser.feed("data: abc", 1, out);
    EXPECT_EQ(parser.pendingBytes(), 9);
    parser.feed("\n", 2, out);
    EXPECT_EQ(parser.pendingBytes(), 3); // "abc" in the data buffer
    parser.feed("\n", 3, out);
    EXPECT_EQ(parser.pendingBytes(), 0);
    EXPECT_EQ(parser.bytesFed(), 11);
    EXPECT_EQ(out.size(), 1u);
}

TEST(SseParser, LargeEventAcrossManyFeeds)
{
    QByteArray payload(200'000, 'x');
    for (qsizetype i = 0; i < payload.size(); i += 97)
        payload[i] = char('a' + i % 26);
    const QByteArray text = "data: " + payload + "\n\n";
    const Parsed p = parseInPieces(text, 1500);
    ASSERT_EQ(p.events.size(), 1u);
    EXPECT_EQ(p.events[0].data, payload);
}

} // namespace
