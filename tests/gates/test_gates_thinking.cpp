// SPDX-License-Identifier: MIT
// thinking_follows_request: with thinking on, a thought that arrives in the reasoning field, apart
// from the answer; with it off, no reasoning anywhere; nothing to judge when the request set none.
// The seeds' "thinking mode works in both on/off configurations" (002) and the ways it breaks:
// llama-server --reasoning-budget 0 ignoring enable_thinking: true, no reasoning parser (the
// thought inside the content), v1's "Thinking Process:" with thinking off.
#include "GateTestSupport.h"

using namespace qs;
using namespace qs::test;

namespace {

const QString kFollows = QStringLiteral("thinking_follows_request");
const QString kLeak = QStringLiteral("no_thinking_leak");
const QString kThought = QStringLiteral("The user wants the capital of Japan. That is Tokyo.");

SuiteTest thinking(bool on)
{
    SuiteTest t = plainTest(on ? QStringLiteral("think-capital-on") : QStringLiteral("think-capital-off"));
    t.thinking = on;
    return t;
}

bool hasRange(const GateResult& r, const QString& field, const QString& what)
{
    return std::any_of(r.ranges.begin(), r.ranges.end(),
        [&](const TextRange& range) { return range.field == field && range.what == what; });
}

} // namespace

TEST(ThinkingFollowsRequest, OnPassesWithReasoningApartFromTheAnswer)
{
    const GateResult r = judge(kFollows, answer(QStringLiteral("Tokyo."), kThought), thinking(true));
    EXPECT_TRUE(r.passed()) << describe(r);
    EXPECT_EQ(r.reason, QStringLiteral("thinking on: 51 characters of reasoning, apart from the answer"));
    EXPECT_TRUE(r.ranges.empty());
}

TEST(ThinkingFollowsRequest, OnWithoutReasoningFails)
{
    // llama-server --reasoning-budget 0, or a template without the switch: the request asked for
    // thinking and got a plain answer. no_thinking_leak has nothing to object to.
    const RequestRecord plain = answer(QStringLiteral("Tokyo."));
    const GateResult r = judge(kFollows, plain, thinking(true));
    ASSERT_TRUE(r.failed());
    EXPECT_TRUE(
        r.reason.startsWith(QStringLiteral("thinking on, but no reasoning arrived: the server ignored "
                                           "enable_thinking (llama-server --reasoning-budget 0")))
        << describe(r);
    EXPECT_TRUE(judge(kLeak, plain, thinking(true)).passed());
    // Whitespace is not a thought.
    EXPECT_TRUE(
        judge(kFollows, answer(QStringLiteral("Tokyo."), QStringLiteral(" \n ")), thinking(true)).failed());
}

TEST(ThinkingFollowsRequest, OnFailsWhenTheThoughtArrivesInsideTheContent)
{
    // No reasoning parser: the <think> block comes as content.
    const RequestRecord block = answer(
        QStringLiteral("<think>\nThe user wants Tokyo.\n</think>\n\nTokyo is the capital of Japan."));
    const GateResult r = judge(kFollows, block, thinking(true));
    ASSERT_TRUE(r.failed());
    EXPECT_TRUE(r.reason.startsWith(QStringLiteral(
        "thinking on, but the thought arrived inside the content, not in the reasoning field")))
        << describe(r);
    ASSERT_FALSE(r.ranges.empty());
    EXPECT_EQ(r.ranges[0].what, QStringLiteral("think_block"));
    EXPECT_EQ(rangeText(block, r.ranges[0]), QStringLiteral("<think>\nThe user wants Tokyo.\n</think>"));

    // Reasoning in its field, and a scaffold in the answer too: not separated either.
    const GateResult both = judge(kFollows, answer(seedThinkingProcess, kThought), thinking(true));
    ASSERT_TRUE(both.failed());
    EXPECT_TRUE(both.reason.startsWith(
        QStringLiteral("thinking on: reasoning arrived in its field, but thinking is in the content too")))
        << describe(both);
    EXPECT_TRUE(hasRange(both, QStringLiteral("content"), QStringLiteral("thinking_process")));
}

TEST(ThinkingFollowsRequest, OffPassesOnlyWithoutAnyReasoning)
{
    EXPECT_TRUE(judge(kFollows, answer(seedGood), thinking(false)).passed());

    const RequestRecord field = answer(QStringLiteral("Tokyo."), kThought);
    const GateResult r = judge(kFollows, field, thinking(false));
    ASSERT_TRUE(r.failed());
    EXPECT_EQ(
        r.reason, QStringLiteral("thinking off, but 51 characters of reasoning arrived in their own field"));
    EXPECT_TRUE(hasRange(r, QStringLiteral("reasoning"), QStringLiteral("reasoning_field")));

    // v1: thinking off, and the model reasoned aloud in the answer.
    const GateResult v1 = judge(kFollows, answer(seedThinkingProcess), thinking(false));
    ASSERT_TRUE(v1.failed());
    EXPECT_TRUE(
        v1.reason.startsWith(QStringLiteral("thinking off, but the content thinks: thinking_process")))
        << describe(v1);
}

TEST(ThinkingFollowsRequest, AnEmptyThinkBlockIsMarkupNotReasoning)
{
    // A template that closes an empty block: thinking was off as asked, but the markup would be
    // read aloud — no_thinking_leak's finding, not this gate's.
    const RequestRecord empty = answer(QStringLiteral("<think>\n\n</think>\n\nTokyo."));
    EXPECT_TRUE(judge(kFollows, empty, thinking(false)).passed());
    EXPECT_TRUE(judge(kLeak, empty, thinking(false)).failed());
    // With thinking on, an empty block is no thought at all.
    EXPECT_TRUE(judge(kFollows, empty, thinking(true)).failed());
    EXPECT_TRUE(
        judge(kFollows, answer(QStringLiteral("<think></think>Tokyo."), kThought), thinking(true)).passed());
}

TEST(ThinkingFollowsRequest, NotApplicableWhenTheRequestSetNoThinking)
{
    Suite unset = voiceSuite();
    unset.defaults.thinking.reset();
    const GatePatterns patterns = gatePatternsFor(unset);
    const RequestRecord rec = answer(QStringLiteral("Tokyo."), kThought);
    const GateResult r = judgeWith(kFollows, rec, unset, patterns);
    EXPECT_EQ(r.verdict, GateVerdict::NotApplicable);
    EXPECT_EQ(r.reason, QStringLiteral("the request set no thinking (neither on nor off)"));

    // The body as sent says what was asked when the suite does not.
    RequestRecord on = rec;
    on.requestBody = {{"chat_template_kwargs", {{"enable_thinking", true}}}};
    EXPECT_TRUE(judgeWith(kFollows, on, unset, patterns).passed());
    RequestRecord off = rec;
    off.requestBody = {{"chat_template_kwargs", {{"enable_thinking", false}}}};
    EXPECT_TRUE(judgeWith(kFollows, off, unset, patterns).failed());

    // A test's own setting wins over the suite's (the voice suite's default is off).
    EXPECT_TRUE(judge(kFollows, rec, thinking(true)).passed());
    EXPECT_TRUE(judge(kFollows, rec).failed());
}

TEST(ThinkingFollowsRequest, RequestedThinkingReadsTheBody)
{
    EXPECT_EQ(
        requestedThinking(nlohmann::json {{"chat_template_kwargs", {{"enable_thinking", true}}}}), true);
    EXPECT_EQ(
        requestedThinking(nlohmann::json {{"chat_template_kwargs", {{"enable_thinking", false}}}}), false);
    EXPECT_EQ(requestedThinking(nlohmann::json {{"chat_template_kwargs", {{"enable_thinking", "no"}}}}),
        std::nullopt);
    EXPECT_EQ(requestedThinking(nlohmann::json {{"model", "m"}}), std::nullopt);
    EXPECT_EQ(requestedThinking(nlohmann::json()), std::nullopt);
}
