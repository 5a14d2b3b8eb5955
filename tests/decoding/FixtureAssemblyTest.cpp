// SPDX-License-Identifier: MIT
// Every recorded stream in tests/data/streams, framed, decoded and assembled end to end.
#include "TestSupport.h"
#include "model/wire/SseParser.h"
#include "model/wire/StreamAssembler.h"

#include <cctype>
#include <gtest/gtest.h>
#include <optional>
#include <vector>

using namespace qs;
using namespace qs::test;

namespace {

struct Expect {
    const char* file = "";
    QString content {};
    QString reasoning {};
    ReasoningField field = ReasoningField::None;
    std::vector<ToolCall> tools {};
    QString finish {};
    std::optional<TokenUsage> usage {};
    std::optional<ServerTimings> timings {};
    std::optional<ServerError> error {};
    bool sawDone = true;
    int dataEvents = 0;
    int tokenEvents = 0;
    int emptyEvents = 0;
    int usageOnlyEvents = 0;
    int malformedEvents = 0;
    bool truncated = false;
    int comments = 0;
    QString responseId {};
    QString model {};
    QString fingerprint {};
    QString role = QStringLiteral("assistant");
    int logprobTokens = 0; ///< entries of logprobs.content over the stream
};

void PrintTo(const Expect& e, std::ostream* os)
{
    *os << e.file;
}

QString s(const char* utf8)
{
    return QString::fromUtf8(utf8);
}

ServerError error(int code, const char* type, const char* message)
{
    ServerError e;
    e.code = code;
    e.type = s(type);
    e.message = s(message);
    return e;
}

const ServerTimings kPlainTimings {.cacheN = 0,
    .promptN = 12,
    .promptMs = 41.2,
    .promptPerTokenMs = 3.4333333333333336,
    .promptPerSecond = 291.2621359223301,
    .predictedN = 3,
    .predictedMs = 58.9,
    .predictedPerTokenMs = 19.633333333333333,
    .predictedPerSecond = 50.93378607809847,
    .draftN = std::nullopt,
    .draftNAccepted = std::nullopt};

std::vector<Expect> expectations()
{
    const QString llamaModel = s("Qwen3-8B-Q4_K_M.gguf");
    const QString llamaFp = s("b9465-23e6dab86");
    return {
        {.file = "llama-current-plain.sse",
            .content = s("Hello there!"),
            .finish = s("stop"),
            .timings = kPlainTimings,
            .dataEvents = 5,
            .tokenEvents = 2,
            .emptyEvents = 2,
            .responseId = s("chatcmpl-uI7JNfldkYifvjYLehw5OnRid3v0JxBC"),
            .model = llamaModel,
            .fingerprint = llamaFp},
        {.file = "llama-current-reasoning-tools-usage.sse",
            .content = s("Let me check."),
            .reasoning = s("Okay, the user wants the weather in Zürich.\n"),
            .field = ReasoningField::ReasoningContent,
            .tools = {{0, s("Yt3mbB2kQ7ZbX1uE0pV8sQfN4rLcH9aW"), s("function"), s("get_weather"),
                          s(R"({"location":"Zürich"})")},
                {1, s("Pq8cR2mN5vXa0LbT7kYe3HuJ9sWd1FgZ"), s("function"), s("get_time"),
                    s(R"({"tz":"Europe/Zurich"})")}},
            .finish = s("tool_calls"),
            .usage = TokenUsage {87, 42, 129, std::nullopt, 64},
            .timings = ServerTimings {.cacheN = 64,
                .promptN = 23,
                .promptMs = 35.125,
                .promptPerTokenMs = 1.5271739130434783,
                .promptPerSecond = 654.8042704626335,
                .predictedN = 42,
                .predictedMs = 812.5,
                .predictedPerTokenMs = 19.345238095238095,
                .predictedPerSecond = 51.69230769230769,
                .draftN = 10,
                .draftNAccepted = 7},
            .dataEvents = 11,
            .tokenEvents = 7,
            .emptyEvents = 2,
            .usageOnlyEvents = 1,
            .comments = 3,
            .responseId = s("chatcmpl-Q2k9VbN3xTe7LmR0aWq5ZyH8sDf4GjUc"),
            .model = llamaModel,
            .fingerprint = llamaFp},
        {.file = "llama-current-logprobs.sse",
            .content = s(" The capital is Paris —."),
            .finish = s("stop"),
            .usage = TokenUsage {15, 8, 23, std::nullopt, 0},
            .timings = ServerTimings {.cacheN = 0,
                .promptN = 15,
                .promptMs = 30.0,
                .promptPerTokenMs = 2.0,
                .promptPerSecond = 500.0,
                .predictedN = 8,
                .predictedMs = 160.0,
                .predictedPerTokenMs = 20.0,
                .predictedPerSecond = 50.0,
                .draftN = std::nullopt,
                .draftNAccepted = std::nullopt},
            .dataEvents = 9,
            .tokenEvents = 5,
            .emptyEvents = 2,
            .usageOnlyEvents = 1,
            .responseId = s("chatcmpl-Lp7rQb2mXe9TzUa4Rk1Jp6Lc0HdYsVfW"),
            .model = llamaModel,
            .fingerprint = llamaFp,
            .logprobTokens = 6},
        {.file = "llama-legacy-usage-on-finish.sse",
            .content = s("日本語で🙂!"),
            .finish = s("length"),
            .usage = TokenUsage {12, 4, 16, std::nullopt, std::nullopt},
            .timings = ServerTimings {.cacheN = 3,
                .promptN = 9,
                .promptMs = 20.0,
                .promptPerTokenMs = 2.2222222222222223,
                .promptPerSecond = 450.0,
                .predictedN = 4,
                .predictedMs = 80.0,
                .predictedPerTokenMs = 20.0,
                .predictedPerSecond = 50.0,
                .draftN = std::nullopt,
                .draftNAccepted = std::nullopt},
            .dataEvents = 6,
            .tokenEvents = 3,
            .emptyEvents = 2,
            .responseId = s("chatcmpl-Wm3oXn8bQe1TzUa6Rk0Jp5Lc9HdYsVfG"),
            .model = s("gpt-3.5-turbo"),
            .fingerprint = s("b5200-1b2c3d4e")},
        {.file = "llama-error-midstream.sse",
            .content = s("The answer is"),
            .error = error(500, "server_error", "failed to process speculative batch"),
            .sawDone = false,
            .dataEvents = 4,
            .tokenEvents = 2,
            .emptyEvents = 1,
            .comments = 1,
            .responseId = s("chatcmpl-Er7rNo9DoNeXy2Zq4Wv6Ut8Sr1Qp3OnM"),
            .model = llamaModel,
            .fingerprint = llamaFp},
        {.file = "vllm-016-reasoning.sse",
            .content = s("Hi! How can I help?"),
            .reasoning = s("The user says hi."),
            .field = ReasoningField::Reasoning,
            .finish = s("stop"),
            .usage = TokenUsage {12, 28, 40, 20, 8},
            .dataEvents = 9,
            .tokenEvents = 5,
            .emptyEvents = 2,
            .usageOnlyEvents = 1,
            .comments = 3,
            .responseId = s("chatcmpl-84fd71592962667f"),
            .model = s("Qwen/Qwen3-8B"),
            .fingerprint = s("vllm-0.25.1-6cda6dc1")},
        {.file = "vllm-transitional-reasoning.sse",
            .content = s("Hi!"),
            .reasoning = s("The user says hi."),
            .field = ReasoningField::Both,
            .finish = s("stop"),
            .usage = TokenUsage {12, 5, 17, std::nullopt, std::nullopt},
            .dataEvents = 8,
            .tokenEvents = 4,
            .emptyEvents = 2,
            .usageOnlyEvents = 1,
            .responseId = s("chatcmpl-3b1f0e9a7c6d4e5f8a9b0c1d2e3f4a5b"),
            .model = s("Qwen/Qwen3-8B")},
        {.file = "vllm-legacy.sse",
            .content = s("4"),
            .reasoning = s("Hmm, 2+2."),
            .field = ReasoningField::ReasoningContent,
            .finish = s("stop"),
            .usage = TokenUsage {20, 4, 24, std::nullopt, std::nullopt},
            .dataEvents = 7,
            .tokenEvents = 3,
            .emptyEvents = 2,
            .usageOnlyEvents = 1,
            .responseId = s("chatcmpl-9c2d4b7e1f3a48d6a0b5e8c7d6f1a2b3"),
            .model = s("Qwen/QwQ-32B")},
        {.file = "vllm-tools.sse",
            .tools = {{0, s("chatcmpl-tool-a331788bab1045a8"), s("function"), s("get_weather"),
                s(R"({"location": "Paris"})")}},
            .finish = s("tool_calls"),
            .dataEvents = 6,
            .tokenEvents = 3,
            .emptyEvents = 2,
            .responseId = s("chatcmpl-be8d6d925ff14741"),
            .model = s("Qwen/Qwen2.5-7B-Instruct")},
        {.file = "vllm-logprobs.sse",
            .content = s("Paris is the capital."),
            .finish = s("stop"),
            .usage = TokenUsage {15, 6, 21, std::nullopt, std::nullopt},
            .dataEvents = 9,
            .tokenEvents = 5,
            .emptyEvents = 2,
            .usageOnlyEvents = 1,
            .responseId = s("chatcmpl-7d2e9f1a0b3c4d5e"),
            .model = s("Qwen/Qwen3-8B"),
            .logprobTokens = 6},
        {.file = "vllm-error-midstream.sse",
            .content = s("Hello"),
            .error = error(500, "InternalServerError", "Internal server error"),
            .dataEvents = 4,
            .tokenEvents = 1,
            .emptyEvents = 1,
            .comments = 1,
            .responseId = s("chatcmpl-84fd71592962667f"),
            .model = s("Qwen/Qwen3-8B")},
        {.file = "vllm-truncated.sse",
            .content = s("Once upon a time"),
            .sawDone = false,
            .dataEvents = 4,
            .tokenEvents = 3,
            .emptyEvents = 1,
            .truncated = true,
            .responseId = s("chatcmpl-84fd71592962667f"),
            .model = s("Qwen/Qwen3-8B")},
        {.file = "sglang-legacy-tools.sse",
            .content = s("Let me look that up."),
            .tools = {{0, s("call_3f2b9c4d8e1a4b6c9d0e1f2a"), s("function"), s("get_weather"),
                s(R"({"location": "Paris", "unit": "°C"})")}},
            .finish = s("tool_calls"),
            .usage = TokenUsage {140, 31, 171, 0, std::nullopt},
            .dataEvents = 8,
            .tokenEvents = 4,
            .emptyEvents = 2,
            .usageOnlyEvents = 1,
            .responseId = s("adce1542e8364a12a4686b61e1b00ca4"),
            .model = s("Qwen3-8B")},
        {.file = "sglang-msgspec-reasoning.sse",
            .content = s("Hi! 👋"),
            .reasoning = s("The user greets me — reply briefly."),
            .field = ReasoningField::ReasoningContent,
            .finish = s("stop"),
            .usage = TokenUsage {14, 40, 54, 36, 5},
            .dataEvents = 8,
            .tokenEvents = 4,
            .emptyEvents = 2,
            .usageOnlyEvents = 1,
            .responseId = s("669d24a3423f4012bece9b51f2028500"),
            .model = s("Qwen3-8B")},
        {.file = "sglang-logprobs.sse",
            .content = s("Paris, of course."),
            .finish = s("stop"),
            .usage = TokenUsage {16, 6, 22, 0, std::nullopt},
            .dataEvents = 7,
            .tokenEvents = 3,
            .emptyEvents = 2,
            .usageOnlyEvents = 1,
            .responseId = s("5b7e2c9d1f0a4e3b8c6d2a1f0e9b8c7d"),
            .model = s("Qwen3-8B"),
            .logprobTokens = 5},
        {.file = "sglang-error-midstream.sse",
            .content = s("Hello"),
            .usage = TokenUsage {10, 1, 11, 0, std::nullopt},
            .error = error(503, "SERVICE_UNAVAILABLE", "Generation aborted."),
            .dataEvents = 5,
            .tokenEvents = 1,
            .emptyEvents = 1,
            .usageOnlyEvents = 1,
            .responseId = s("8fe1630f301c48a3bf7c4600cd5b17bc"),
            .model = s("Qwen3-8B")},
        {.file = "proxy-crlf-bom-multiline.sse",
            .content = s("Bonjour à tous"),
            .finish = s("stop"),
            .dataEvents = 5,
            .tokenEvents = 2,
            .emptyEvents = 2,
            .comments = 1,
            .responseId = s("0d9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a"),
            .model = s("default")},
        {.file = "proxy-cr-only.sse",
            .content = s("Carriage returns"),
            .finish = s("stop"),
            .dataEvents = 5,
            .tokenEvents = 2,
            .emptyEvents = 2,
            .responseId = s("chatcmpl-84fd71592962667f"),
            .model = s("Qwen/Qwen3-8B")},
        {.file = "proxy-garbage-event.sse",
            .content = s("ok!"),
            .finish = s("stop"),
            .timings = kPlainTimings,
            .dataEvents = 8,
            .tokenEvents = 2,
            .emptyEvents = 2,
            .malformedEvents = 3,
            .responseId = s("chatcmpl-Gb8gAr9bAgE2Zz3Yy4Xx5Ww6Vv7Uu8Tt"),
            .model = llamaModel,
            .fingerprint = llamaFp},
    };
}

struct AssemblyRun {
    AssembledResponse response;
    int comments = 0;
};

/// Frames and assembles a fixture fed in pieces of `pieceSize` bytes, piece i read at i*1000 ns.
AssemblyRun assemble(const QByteArray& bytes, qsizetype pieceSize)
{
    SseParser parser;
    StreamAssembler assembler;
    std::vector<SseEvent> events;
    qint64 stamp = 1000;
    for (qsizetype pos = 0; pos < bytes.size(); pos += pieceSize) {
        parser.feed(
            QByteArrayView(bytes).sliced(pos, std::min(pieceSize, bytes.size() - pos)), stamp, events);
        stamp += 1000;
    }
    parser.finish(stamp, events);
    for (const SseEvent& e : events)
        assembler.add(e);
    return {assembler.takeResponse(), parser.commentCount()};
}

class FixtureAssembly : public testing::TestWithParam<Expect> { };

TEST_P(FixtureAssembly, AssemblesAsExpected)
{
    const Expect& x = GetParam();
    const QByteArray bytes = loadFixture(QString::fromUtf8(x.file));
    ASSERT_FALSE(bytes.isEmpty());
    const AssemblyRun run = assemble(bytes, 7);
    const AssembledResponse& r = run.response;

    EXPECT_EQ(r.content, x.content);
    EXPECT_EQ(r.reasoning, x.reasoning);
    EXPECT_EQ(r.reasoningField, x.field);
    EXPECT_EQ(r.toolCalls, x.tools);
    EXPECT_EQ(r.finishReason, x.finish);
    EXPECT_EQ(r.usage, x.usage);
    EXPECT_EQ(r.timings, x.timings);
    EXPECT_EQ(r.streamError, x.error);
    EXPECT_EQ(r.sawDone, x.sawDone);
    EXPECT_EQ(r.dataEvents, x.dataEvents);
    EXPECT_EQ(int(r.tokenEvents.size()), x.tokenEvents);
    EXPECT_EQ(r.emptyEvents, x.emptyEvents);
    EXPECT_EQ(r.usageOnlyEvents, x.usageOnlyEvents);
    EXPECT_EQ(r.malformedEvents, x.malformedEvents);
    EXPECT_EQ(int(r.malformedSamples.size()), x.malformedEvents);
    EXPECT_EQ(r.truncatedEvent, x.truncated);
    EXPECT_EQ(run.comments, x.comments);
    EXPECT_EQ(r.responseId, x.responseId);
    EXPECT_EQ(r.model, x.model);
    EXPECT_EQ(r.systemFingerprint, x.fingerprint);
    EXPECT_EQ(r.role, x.role);
    EXPECT_EQ(int(r.logprobs.tokens.size()), x.logprobTokens);
    EXPECT_EQ(r.logprobs.present(), x.logprobTokens > 0);

    // The token timeline tiles content and reasoning exactly, in order.
    int contentAt = 0;
    int reasoningAt = 0;
    qint64 previousStamp = 0;
    for (const TokenEvent& t : r.tokenEvents) {
        EXPECT_EQ(t.contentBegin, contentAt);
        EXPECT_EQ(t.reasoningBegin, reasoningAt);
        EXPECT_TRUE(t.hasContent() || t.hasReasoning() || t.toolCall);
        EXPECT_GE(t.stampNs, previousStamp);
        EXPECT_GE(t.stampNs, r.firstEventNs);
        EXPECT_LE(t.stampNs, r.lastEventNs);
        contentAt = t.contentEnd;
        reasoningAt = t.reasoningEnd;
        previousStamp = t.stampNs;
    }
    EXPECT_EQ(contentAt, r.content.size());
    EXPECT_EQ(reasoningAt, r.reasoning.size());
    EXPECT_LT(r.firstEventNs, r.lastEventNs);
    if (r.sawDone) {
        EXPECT_EQ(r.doneNs, r.lastEventNs) << "[DONE] is the last event of every fixture that has it";
    }
    if (r.streamError) {
        EXPECT_GT(r.streamErrorNs, r.firstEventNs);
        EXPECT_LE(r.streamErrorNs, r.lastEventNs);
    }

    // How the bytes were cut does not change the result.
    for (qsizetype pieceSize : {qsizetype(1), qsizetype(64), bytes.size()}) {
        const AssemblyRun other = assemble(bytes, pieceSize);
        EXPECT_EQ(other.response.content, r.content) << "pieces of " << pieceSize;
        EXPECT_EQ(other.response.reasoning, r.reasoning) << "pieces of " << pieceSize;
        EXPECT_EQ(other.response.toolCalls, r.toolCalls) << "pieces of " << pieceSize;
        EXPECT_EQ(other.response.usage, r.usage) << "pieces of " << pieceSize;
        EXPECT_EQ(other.response.dataEvents, r.dataEvents) << "pieces of " << pieceSize;
        EXPECT_EQ(other.response.tokenEvents.size(), r.tokenEvents.size()) << "pieces of " << pieceSize;
        EXPECT_EQ(other.response.logprobs, r.logprobs) << "pieces of " << pieceSize;
    }
}

std::string fixtureTestName(const testing::TestParamInfo<Expect>& info)
{
    std::string name;
    for (const char* p = info.param.file; *p && *p != '.'; ++p)
        name += std::isalnum(static_cast<unsigned char>(*p)) ? *p : '_';
    return name;
}

INSTANTIATE_TEST_SUITE_P(Streams, FixtureAssembly, testing::ValuesIn(expectations()), fixtureTestName);

TEST(FixtureAssemblyCoverage, EveryFixtureHasExpectations)
{
    QStringList expected;
    for (const Expect& x : expectations())
        expected << QString::fromUtf8(x.file);
    expected.sort();
    EXPECT_EQ(expected, fixtureNames());
}

TEST(FixtureAssemblySpecifics, VllmTransitionalReasoningNotDoubled)
{
    const AssemblyRun run = assemble(loadFixture(QStringLiteral("vllm-transitional-reasoning.sse")), 5);
    EXPECT_EQ(run.response.reasoning, QStringLiteral("The user says hi."));
    EXPECT_EQ(run.response.reasoning.count(QLatin1String("The")), 1);
}

TEST(FixtureAssemblySpecifics, PingsDoNotStartTheTimeline)
{
    // llama-server pings and vLLM keep-alives arrive before the first data event; they are
    // comments, so firstEventNs is the role chunk and the first token is later still.
    for (const char* file : {"llama-current-reasoning-tools-usage.sse", "vllm-016-reasoning.sse"}) {
        SCOPED_TRACE(file);
        const AssemblyRun run = assemble(loadFixture(QString::fromUtf8(file)), 7);
        const qsizetype firstData = loadFixture(QString::fromUtf8(file)).indexOf("data:");
        ASSERT_GT(firstData, 0);
        EXPECT_GT(run.response.firstEventNs, 1000 * (firstData / 7));
        ASSERT_FALSE(run.response.tokenEvents.empty());
        EXPECT_GT(run.response.tokenEvents.front().stampNs, run.response.firstEventNs);
    }
}

TEST(FixtureAssemblySpecifics, MalformedSamplesExplainTheProblem)
{
    const AssemblyRun run = assemble(loadFixture(QStringLiteral("proxy-garbage-event.sse")), 64);
    const QStringList& samples = run.response.malformedSamples;
    ASSERT_EQ(samples.size(), 3);
    EXPECT_TRUE(samples[0].contains(QLatin1String("not JSON"))) << samples[0].toStdString();
    EXPECT_TRUE(samples[0].contains(QLatin1String("502 Bad Gateway")));
    EXPECT_TRUE(samples[1].contains(QLatin1String("array")));
    EXPECT_TRUE(samples[2].contains(QLatin1String("no choices")));
    EXPECT_TRUE(samples[2].contains(QLatin1String("no choices here")));
}

TEST(FixtureAssemblySpecifics, ToolCallTokenEventsFlagged)
{
    const AssemblyRun run
        = assemble(loadFixture(QStringLiteral("llama-current-reasoning-tools-usage.sse")), 7);
    int toolEvents = 0;
    for (const TokenEvent& t : run.response.tokenEvents)
        toolEvents += t.toolCall ? 1 : 0;
    EXPECT_EQ(toolEvents, 4);
    // The switch chunk carries both reasoning and content.
    const TokenEvent& sw = run.response.tokenEvents[2];
    EXPECT_TRUE(sw.hasReasoning());
    EXPECT_TRUE(sw.hasContent());
}

} // namespace
