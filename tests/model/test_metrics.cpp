// SPDX-License-Identifier: MIT
#include "model/core/Percentile.h"
#include "model/wire/RequestMetrics.h"

#include <gtest/gtest.h>

using namespace qs;

namespace {
constexpr qint64 Ms = 1000000;
constexpr double Base = 1000; // stamps are absolute; t0 = 0 would mean "never sent"

// Builds a response from (ms, kind, text) steps: kind 'r' reasoning, 'c' content, 't' tool call.
struct Builder {
    AssembledResponse r;
    Builder& add(double ms, char kind, const QString& text = {})
    {
        TokenEvent e;
        e.stampNs = qint64((Base + ms) * Ms); // t0 sits at Base
        e.contentBegin = e.contentEnd = int(r.content.size());
        e.reasoningBegin = e.reasoningEnd = int(r.reasoning.size());
        if (kind == 'c') {
            r.content += text;
            e.contentEnd = int(r.content.size());
        } else if (kind == 'r') {
            r.reasoning += text;
            e.reasoningEnd = int(r.reasoning.size());
        } else {
            e.toolCall = true;
        }
        r.tokenEvents.push_back(e);
        return *this;
    }
};

RequestTiming timingAt(double offsetMs)
{
    const double t0Ms = Base + offsetMs;
    RequestTiming t;
    t.startNs = qint64(t0Ms * Ms) - 2 * Ms;
    t.connectedNs = qint64(t0Ms * Ms) - Ms;
    t.t0Ns = qint64(t0Ms * Ms);
    t.headersNs = qint64((t0Ms + 5) * Ms);
    t.endNs = qint64((t0Ms + 1000) * Ms);
    return t;
}
} // namespace

TEST(RequestMetrics, ReasoningDoesNotCountAsVisible)
{
    Builder b;
    b.add(100, 'r', QStringLiteral("The user"))
        .add(120, 'r', QStringLiteral(" asks"))
        .add(400, 'c', QStringLiteral("Hi"))
        .add(420, 'c', QStringLiteral(" there."));
    b.r.usage = TokenUsage {12, 4, 16, std::nullopt, std::nullopt};
    b.r.sawDone = true;
    const RequestMetrics m = computeMetrics(timingAt(0), b.r);
    EXPECT_DOUBLE_EQ(*m.ttfbMs, 5);
    EXPECT_DOUBLE_EQ(*m.ttftAnyMs, 100);
    EXPECT_DOUBLE_EQ(*m.ttftVisibleMs, 400);
    EXPECT_DOUBLE_EQ(*m.reasoningMs, 300);
    EXPECT_DOUBLE_EQ(*m.e2eMs, 420);
    EXPECT_DOUBLE_EQ(*m.firstSentenceMs, 420); // "there." ends a finished text
    // (completion_tokens − 1) / (e2e − ttft_any) = 3 / 0.32 s
    EXPECT_NEAR(*m.decodeTps, 3 / 0.320, 1e-9);
    EXPECT_EQ(m.completionTokens.source, CountSource::ServerUsage);
    EXPECT_EQ(*m.promptTokens.value, 12);
    EXPECT_EQ(m.reasoningTokens.source, CountSource::Estimate);
    EXPECT_EQ(*m.reasoningTokens.value, 2);
    EXPECT_DOUBLE_EQ(*m.connectMs, 1);
}

TEST(RequestMetrics, LeakedThinkTagsCountTowardAnyNotVisible)
{
    // The seeds' v1 trap: thinking streamed as content made "TTFT" 82 ms.
    Builder b;
    b.add(82, 'c', QStringLiteral("<think>"))
        .add(90, 'c', QStringLiteral("Thinking Process: 1."))
        .add(3000, 'c', QStringLiteral("</think>\n\n"))
        .add(3020, 'c', QStringLiteral("Tokyo"));
    const RequestMetrics m = computeMetrics(timingAt(0), b.r);
    EXPECT_TRUE(m.thinkingInContent);
    EXPECT_DOUBLE_EQ(*m.ttftAnyMs, 82);
    EXPECT_DOUBLE_EQ(*m.ttftVisibleMs, 3020); // "\n\n" after </think> is not visible text
    EXPECT_EQ(*m.reasoningTokens.value, 3);
    EXPECT_FALSE(m.firstSentenceMs.has_value()); // "1." inside the thinking is not the answer's sentence
}

TEST(RequestMetrics, BareCloseTagReclassifiesEarlierContent)
{
    Builder b;
    b.add(50, 'c', QStringLiteral("Let me think"))
        .add(60, 'c', QStringLiteral(".</think>"))
        .add(70, 'c', QStringLiteral("Paris."));
    b.r.finishReason = QStringLiteral("stop");
    const RequestMetrics m = computeMetrics(timingAt(0), b.r);
    EXPECT_TRUE(m.thinkingInContent);
    EXPECT_DOUBLE_EQ(*m.ttftVisibleMs, 70);
    EXPECT_DOUBLE_EQ(*m.firstSentenceMs, 70);
}

TEST(RequestMetrics, UnclosedThinkMeansNoVisibleAnswer)
{
    Builder b;
    b.add(50, 'c', QStringLiteral("<think>")).add(60, 'c', QStringLiteral("hmm"));
    const RequestMetrics m = computeMetrics(timingAt(0), b.r);
    EXPECT_FALSE(m.ttftVisibleMs.has_value());
    EXPECT_TRUE(m.ttftAnyMs.has_value());
}

TEST(RequestMetrics, ToolCallIsVisibleOutput)
{
    Builder b;
    b.add(30, 'r', QStringLiteral("need search")).add(75, 't');
    const RequestMetrics m = computeMetrics(timingAt(0), b.r);
    EXPECT_DOUBLE_EQ(*m.ttftVisibleMs, 75);
    EXPECT_FALSE(m.firstSentenceMs.has_value());
}

TEST(RequestMetrics, TokenCountSourcesFallBackAndAreFlagged)
{
    Builder b;
    b.add(10, 'c', QStringLiteral("a")).add(20, 'c', QStringLiteral("b")).add(30, 'c', QStringLiteral("c"));
    RequestMetrics m = computeMetrics(timingAt(0), b.r);
    EXPECT_EQ(m.completionTokens.source, CountSource::Estimate);
    EXPECT_EQ(*m.completionTokens.value, 3);
    EXPECT_FALSE(m.promptTokens.value.has_value());
    EXPECT_TRUE(m.notes.join(u' ').contains(QStringLiteral("estimate")));

    ServerTimings t;
    t.predictedN = 3;
    t.promptN = 10;
    t.cacheN = 4;
    b.r.timings = t;
    m = computeMetrics(timingAt(0), b.r);
    EXPECT_EQ(m.completionTokens.source, CountSource::ServerTimings);
    EXPECT_EQ(*m.promptTokens.value, 14); // evaluated + reused
    EXPECT_EQ(*m.cachedPromptTokens.value, 4);
    EXPECT_EQ(m.cachedPromptTokens.source, CountSource::ServerTimings);
}

TEST(RequestMetrics, GapsAndEmptyResponses)
{
    Builder b;
    b.add(10, 'c', QStringLiteral("a")).add(20, 'c', QStringLiteral("b")).add(40, 'c', QStringLiteral("c"));
    const RequestMetrics m = computeMetrics(timingAt(0), b.r);
    EXPECT_DOUBLE_EQ(*m.gapP50Ms, 15);
    EXPECT_DOUBLE_EQ(*m.gapMaxMs, 20);
    const RequestMetrics none = computeMetrics(timingAt(0), AssembledResponse());
    EXPECT_FALSE(none.ttftAnyMs || none.e2eMs || none.decodeTps);
    EXPECT_EQ(none.completionTokens.source, CountSource::None);
}

TEST(FirstSentenceEnd, Rules)
{
    const auto at
        = [](const char* s, bool finished) { return firstSentenceEnd(QString::fromUtf8(s), 0, finished); };
    EXPECT_EQ(at("Hello there. How", false), 12);
    EXPECT_EQ(at("Pi is 3.14 roughly", false), -1);
    EXPECT_EQ(at("Done.", false), -1); // could still be "Done.5"
    EXPECT_EQ(at("Done.", true), 4);
    EXPECT_EQ(at("He said \"yes.\" Then", false), 14);
    EXPECT_EQ(at("\xE4\xB8\x9C\xE4\xBA\xAC\xE3\x80\x82", false), 2); // 东京。
    EXPECT_EQ(at("Really?! Yes", false), 8);
}

TEST(Percentile, LinearInterpolation)
{
    EXPECT_FALSE(percentile({}, 50).has_value());
    EXPECT_DOUBLE_EQ(*percentile({5}, 99), 5);
    EXPECT_DOUBLE_EQ(*percentile({1, 2, 3, 4}, 50), 2.5);
    EXPECT_DOUBLE_EQ(*percentile({10, 0, 20}, 100), 20);
    EXPECT_NEAR(*percentile({1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 90), 9.1, 1e-12);
}
