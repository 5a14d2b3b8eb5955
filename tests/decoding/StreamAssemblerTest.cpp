// SPDX-License-Identifier: MIT
#include "model/wire/StreamAssembler.h"

#include "TestSupport.h"

#include <gtest/gtest.h>

using namespace qs;

namespace {

SseEvent event(const QByteArray& data, qint64 stamp, bool complete = true)
{
    SseEvent e;
    e.data = data;
    e.stampNs = stamp;
    e.complete = complete;
    return e;
}

QByteArray contentChunk(const QString& text)
{
    return "{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"" + text.toUtf8() + "\"}}]}";
}

TEST(StreamAssembler, ToolCallsReassembledByIndexAndSorted)
{
    StreamAssembler a;
    // Index 1 starts first; names repeated (must not double); SGLang-style null ids later.
    a.add(event(
        R"({"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"call_b","type":"function","function":{"name":"get_time","arguments":""}}]}}]})",
        1));
    a.add(event(
        R"({"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_a","function":{"name":"get_weather","arguments":"{\"city\":"}}]}}]})",
        2));
    a.add(event(
        R"({"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":null,"function":{"name":"get_time","arguments":"{}"}}]}}]})",
        3));
    a.add(event(
        R"({"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"","function":{"name":null,"arguments":"\"Paris\"}"}}]}}]})",
        4));
    a.add(event(R"({"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]})", 5));

    const AssembledResponse& r = a.response();
    ASSERT_EQ(r.toolCalls.size(), 2u);
    EXPECT_EQ(r.toolCalls[0],
        (ToolCall {0, QStringLiteral("call_a"), QStringLiteral("function"), QStringLiteral("get_weather"),
            QStringLiteral("{\"city\":\"Paris\"}")}));
    EXPECT_EQ(r.toolCalls[1],
        (ToolCall {1, QStringLiteral("call_b"), QStringLiteral("function"), QStringLiteral("get_time"),
            QStringLiteral("{}")}));
    EXPECT_EQ(r.finishReason, QStringLiteral("tool_calls"));
    ASSERT_EQ(r.tokenEvents.size(), 4u);
    for (const TokenEvent& t : r.tokenEvents) {
        EXPECT_TRUE(t.toolCall);
        EXPECT_FALSE(t.hasContent());
        EXPECT_FALSE(t.hasReasoning());
    }
    EXPECT_EQ(r.emptyEvents, 1);
}

TEST(StreamAssembler, ToolCallTypeKeptWhenGiven)
{
    StreamAssembler a;
    a.add(event(
        R"({"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"type":"custom","function":{"name":"f","arguments":"x"}}]}}]})",
        1));
    ASSERT_EQ(a.response().toolCalls.size(), 1u);
    EXPECT_EQ(a.response().toolCalls[0].type, QStringLiteral("custom"));
}

TEST(StreamAssembler, TokenEventOffsetsInUtf16Units)
{
    StreamAssembler a;
    a.add(event(R"({"choices":[{"index":0,"delta":{"role":"assistant","content":null}}]})", 10));
    a.add(event(R"({"choices":[{"index":0,"delta":{"reasoning_content":"Think"}}]})", 20));
    a.add(event(R"({"choices":[{"index":0,"delta":{"reasoning_content":"!","content":"A"}}]})", 30));
    a.add(event(contentChunk(QStringLiteral("\U0001F642b")), 40)); // emoji = 2 UTF-16 units
    a.add(event(contentChunk(QStringLiteral("c")), 50));

    const AssembledResponse& r = a.response();
    EXPECT_EQ(r.content, QStringLiteral("A\U0001F642bc"));
    EXPECT_EQ(r.reasoning, QStringLiteral("Think!"));
    EXPECT_EQ(r.role, QStringLiteral("assistant"));
    ASSERT_EQ(r.tokenEvents.size(), 4u);

    const TokenEvent& t0 = r.tokenEvents[0];
    EXPECT_EQ(t0.stampNs, 20);
    EXPECT_EQ(std::tuple(t0.contentBegin, t0.contentEnd, t0.reasoningBegin, t0.reasoningEnd),
        std::tuple(0, 0, 0, 5));
    const TokenEvent& t1 = r.tokenEvents[1];
    EXPECT_EQ(std::tuple(t1.contentBegin, t1.contentEnd, t1.reasoningBegin, t1.reasoningEnd),
        std::tuple(0, 1, 5, 6));
    EXPECT_TRUE(t1.hasContent());
    EXPECT_TRUE(t1.hasReasoning());
    const TokenEvent& t2 = r.tokenEvents[2];
    EXPECT_EQ(std::tuple(t2.contentBegin, t2.contentEnd, t2.reasoningBegin, t2.reasoningEnd),
        std::tuple(1, 4, 6, 6));
    EXPECT_EQ(r.content.mid(t2.contentBegin, t2.contentEnd - t2.contentBegin), QStringLiteral("\U0001F642b"));
    const TokenEvent& t3 = r.tokenEvents[3];
    EXPECT_EQ(std::tuple(t3.contentBegin, t3.contentEnd), std::tuple(4, 5));
    EXPECT_EQ(t3.stampNs, 50);
    EXPECT_FALSE(t3.toolCall);

    EXPECT_EQ(r.emptyEvents, 1);
    EXPECT_EQ(r.dataEvents, 5);
    EXPECT_EQ(r.firstEventNs, 10);
    EXPECT_EQ(r.lastEventNs, 50);
}

TEST(StreamAssembler, UsageMergedFieldWise)
{
    StreamAssembler a;
    a.add(event(
        R"({"choices":[{"index":0,"delta":{"content":"a"}}],"usage":{"prompt_tokens":10,"total_tokens":11,"completion_tokens":1,"prompt_tokens_details":{"cached_tokens":4}}})",
        1));
    a.add(event(
        R"({"choices":[{"index":0,"delta":{"content":"b"}}],"usage":{"total_tokens":12,"completion_tokens":2}})",
        2));
    a.add(
        event(R"({"choices":[],"usage":{"completion_tokens":5,"total_tokens":15,"reasoning_tokens":3}})", 3));
    const AssembledResponse& r = a.response();
    ASSERT_TRUE(r.usage);
    EXPECT_EQ(*r.usage, (TokenUsage {10, 5, 15, 3, 4}));
    EXPECT_EQ(r.usageOnlyEvents, 1);
    EXPECT_EQ(r.emptyEvents, 0);
}

TEST(StreamAssembler, TimingsLastSeenWins)
{
    StreamAssembler a;
    a.add(event(
        R"({"choices":[{"index":0,"delta":{"content":"a"}}],"timings":{"prompt_n":5,"predicted_n":1}})", 1));
    a.add(event(
        R"({"choices":[{"index":0,"delta":{}}],"timings":{"prompt_n":5,"predicted_n":2,"predicted_ms":40.5}})",
        2));
    ASSERT_TRUE(a.response().timings);
    EXPECT_EQ(a.response().timings->predictedN, 2);
    EXPECT_EQ(a.response().timings->predictedMs, 40.5);
}

TEST(StreamAssembler, MalformedCountedAndSampled)
{
    StreamAssembler a;
    for (int i = 0; i < 7; ++i)
        a.add(event("garbage " + QByteArray::number(i), i));
    const AssembledResponse& r = a.response();
    EXPECT_EQ(r.malformedEvents, 7);
    EXPECT_EQ(r.dataEvents, 7);
    ASSERT_EQ(r.malformedSamples.size(), 5);
    EXPECT_TRUE(r.malformedSamples[0].contains(QLatin1String("garbage 0")));
    EXPECT_TRUE(r.malformedSamples[4].contains(QLatin1String("garbage 4")));
    EXPECT_TRUE(r.tokenEvents.empty());
}

TEST(StreamAssembler, ErrorDoneAndTruncation)
{
    StreamAssembler a;
    a.add(event(contentChunk(QStringLiteral("x")), 100));
    const StreamChunk& err
        = a.add(event(R"({"error":{"code":500,"message":"first","type":"server_error"}})", 200));
    EXPECT_EQ(err.kind, StreamChunk::Kind::Error);
    a.add(event(R"({"error":{"code":503,"message":"second","type":"server_error"}})", 250));
    a.add(event("[DONE]", 300));
    a.add(event(contentChunk(QStringLiteral("y")), 400, false));

    const AssembledResponse& r = a.response();
    ASSERT_TRUE(r.streamError);
    EXPECT_EQ(r.streamError->message, QStringLiteral("first"));
    EXPECT_EQ(r.streamErrorNs, 200);
    EXPECT_TRUE(r.sawDone);
    EXPECT_EQ(r.doneNs, 300);
    EXPECT_TRUE(r.truncatedEvent);
    EXPECT_EQ(r.content, QStringLiteral("xy"));
    EXPECT_EQ(r.dataEvents, 5);
    EXPECT_EQ(r.firstEventNs, 100);
    EXPECT_EQ(r.lastEventNs, 400);
}

TEST(StreamAssembler, AddReturnsTheDecodedChunk)
{
    StreamAssembler a;
    const StreamChunk& c
        = a.add(event(R"({"choices":[{"index":0,"delta":{"reasoning":"r","content":"c"}}]})", 1));
    EXPECT_EQ(c.content, QStringLiteral("c"));
    EXPECT_EQ(c.reasoning, QStringLiteral("r"));
    EXPECT_EQ(c.reasoningField, ReasoningField::Reasoning);
}

TEST(StreamAssembler, ReasoningFieldIsAUnion)
{
    StreamAssembler a;
    a.add(event(R"({"choices":[{"index":0,"delta":{"reasoning":"a"}}]})", 1));
    a.add(event(R"({"choices":[{"index":0,"delta":{"reasoning_content":"b"}}]})", 2));
    EXPECT_EQ(a.response().reasoningField, ReasoningField::Both);
    EXPECT_EQ(a.response().reasoning, QStringLiteral("ab"));
}

TEST(StreamAssembler, IdsAndFingerprint)
{
    StreamAssembler a;
    a.add(event(R"({"id":"","model":"","choices":[{"index":0,"delta":{}}]})", 1));
    a.add(event(
        R"({"id":"one","model":"m1","system_fingerprint":"fp1","choices":[{"index":0,"delta":{}}]})", 2));
    a.add(event(
        R"({"id":"two","model":"m2","system_fingerprint":"fp2","choices":[{"index":0,"delta":{}}]})", 3));
    a.add(event(R"({"id":"three","choices":[{"index":0,"delta":{}}]})", 4));
    const AssembledResponse& r = a.response();
    EXPECT_EQ(r.responseId, QStringLiteral("one"));
    EXPECT_EQ(r.model, QStringLiteral("m1"));
    EXPECT_EQ(r.systemFingerprint, QStringLiteral("fp2"));

    const AssembledResponse taken = a.takeResponse();
    EXPECT_EQ(taken.emptyEvents, 4);
}

} // namespace
