// SPDX-License-Identifier: MIT
#include "SuiteFixtures.h"
#include "model/run/Conversation.h"
#include "model/run/RunPlan.h"

#include <gtest/gtest.h>

using namespace qs;
using qs::test::smallSuite;

namespace {
// "e0:factual:w1" style trace of a lane, for readable expectations.
std::vector<std::string> trace(const Suite& suite, const std::vector<Wave>& lane)
{
    std::vector<std::string> out;
    // append, not "e" + std::to_string(i): GCC 12 -O3 (aarch64) warns a bogus -Wrestrict on it
    for (const Wave& w : lane)
        for (int it : w.iterations)
            out.push_back(std::string("e").append(std::to_string(w.endpoint)) + ":"
                + suite.tests[std::size_t(w.test)].id.toStdString() + (w.warmup ? ":w" : ":r")
                + std::to_string(it));
    return out;
}
} // namespace

TEST(RunPlan, InterleavedAlternatesArmsPerRound)
{
    Suite s = smallSuite(1, 4);
    s.tests.resize(1);
    RunSettings settings;
    const RunPlan plan = makePlan(s, 2, settings);
    ASSERT_EQ(plan.lanes.size(), 1u);
    const auto t = trace(s, plan.lanes[0]);
    ASSERT_EQ(t.size(), 10u); // 2 warm-ups + 2 × 4 runs
    // Whoever goes first in round 1 goes second in round 2: A B B A A B B A.
    const std::string first = t[2].substr(0, 2), second = t[3].substr(0, 2);
    EXPECT_NE(first, second);
    EXPECT_EQ(t[4].substr(0, 2), second);
    EXPECT_EQ(t[5].substr(0, 2), first);
    EXPECT_EQ(t[6].substr(0, 2), first);
    EXPECT_EQ(t[9].substr(0, 2), first);
    EXPECT_EQ(t[0].substr(3), "factual:w1");
    EXPECT_EQ(plan.totalConversations, 10);
    EXPECT_EQ(plan.totalRequests, 10);
}

TEST(RunPlan, SeedFixesTheOrder)
{
    const Suite s = smallSuite();
    RunSettings a, b;
    a.seed = b.seed = 42;
    EXPECT_EQ(trace(s, makePlan(s, 3, a).lanes[0]), trace(s, makePlan(s, 3, b).lanes[0]));
    bool anyDiffers = false;
    for (quint64 seed = 1; seed < 20 && !anyDiffers; ++seed) {
        b.seed = seed;
        anyDiffers = trace(s, makePlan(s, 3, a).lanes[0]) != trace(s, makePlan(s, 3, b).lanes[0]);
    }
    EXPECT_TRUE(anyDiffers);
}

TEST(RunPlan, SequentialAndParallel)
{
    const Suite s = smallSuite(1, 2);
    RunSettings settings;
    settings.order = RunOrder::Sequential;
    RunPlan plan = makePlan(s, 2, settings);
    ASSERT_EQ(plan.lanes.size(), 1u);
    const auto t = trace(s, plan.lanes[0]);
    EXPECT_EQ(t.front(), "e0:factual:w1");
    EXPECT_EQ(t[8].substr(0, 2), "e0");
    EXPECT_EQ(t[9], "e1:factual:w1");
    // Requests: per endpoint 3 warm-ups (one turn) + 2 × (1 + 1 + 3) turns.
    EXPECT_EQ(plan.totalRequests, 2 * (3 + 2 * 5));

    settings.order = RunOrder::Parallel;
    plan = makePlan(s, 2, settings);
    ASSERT_EQ(plan.lanes.size(), 2u);
    for (const Wave& w : plan.lanes[1])
        EXPECT_EQ(w.endpoint, 1);
}

TEST(RunPlan, ConcurrencyMakesWavesAndSweepsMultiplyRuns)
{
    Suite s = smallSuite(0, 5);
    s.tests.resize(1);
    RunSettings settings;
    settings.concurrency = 2;
    RunPlan plan = makePlan(s, 1, settings);
    ASSERT_EQ(plan.lanes[0].size(), 3u); // [1,2] [3,4] [5]
    EXPECT_EQ(plan.lanes[0][0].inFlight, 2);
    EXPECT_EQ(plan.lanes[0][2].iterations, std::vector<int> {5});

    s.defaults.concurrency = {1, 4};
    s.defaults.runs = 2;
    plan = makePlan(s, 1, RunSettings());
    ASSERT_EQ(plan.lanes[0].size(), 2u);
    EXPECT_EQ(plan.lanes[0][0].iterations.size(), 2u); // runs × 1
    EXPECT_EQ(plan.lanes[0][1].iterations.size(), 8u); // runs × 4
    EXPECT_EQ(plan.lanes[0][1].inFlight, 4);
}

TEST(RunPlan, CommandLineBeatsTestBeatsSuite)
{
    Suite s = smallSuite(2, 5);
    s.tests[0].runs = 3;
    s.tests[0].warmup = 0;
    RunSettings settings;
    EXPECT_EQ(runCount(s, s.tests[0], settings), 3);
    EXPECT_EQ(warmupCount(s, s.tests[0], settings), 0);
    EXPECT_EQ(runCount(s, s.tests[1], settings), 5);
    settings.runs = 7;
    settings.warmup = 1;
    EXPECT_EQ(runCount(s, s.tests[0], settings), 7);
    EXPECT_EQ(warmupCount(s, s.tests[0], settings), 1);
}

TEST(Conversation, GrowsWithTheModelsOwnReplies)
{
    const Suite s = smallSuite();
    Conversation c(s, 2, RunSettings(), 1, false);
    EXPECT_EQ(c.turnCount(), 3);
    ChatRequest r = c.request();
    ASSERT_EQ(r.messages.size(), 2u); // system + first user turn
    EXPECT_EQ(r.messages[0]["role"], "system");
    EXPECT_EQ(r.messages[1]["content"], "Hi, I'm Sam.");
    EXPECT_EQ(r.extraBody["chat_template_kwargs"]["enable_thinking"], false);
    EXPECT_TRUE(r.tools.is_null()); // tools only with use_tools

    RequestRecord reply;
    reply.response.content = QStringLiteral("<think>who is this</think>Nice to meet you, Sam!");
    reply.metrics.visibleContentOffset = int(reply.response.content.indexOf(u'N'));
    c.addReply(reply);
    r = c.request();
    ASSERT_EQ(r.messages.size(), 4u);
    EXPECT_EQ(r.messages[2]["role"], "assistant");
    EXPECT_EQ(r.messages[2]["content"], "Nice to meet you, Sam!"); // leaked thinking is not sent back
    EXPECT_EQ(r.messages[3]["content"], "I like sailing.");
    EXPECT_EQ(c.turn(), 2);

    RequestRecord toolReply;
    toolReply.response.toolCalls.push_back({0, QStringLiteral("c1"), QStringLiteral("function"),
        QStringLiteral("web_search"), QStringLiteral("{\"query\":\"x\"}")});
    c.addReply(toolReply);
    r = c.request();
    ASSERT_EQ(r.messages.size(), 7u); // … assistant(tool_calls), tool result, user
    EXPECT_EQ(r.messages[4]["tool_calls"][0]["function"]["name"], "web_search");
    EXPECT_EQ(r.messages[5]["role"], "tool");
    EXPECT_EQ(r.messages[6]["content"], "What's my name?");
    c.addReply(RequestRecord());
    EXPECT_TRUE(c.done());
}

TEST(Conversation, WarmupsUseTheirOwnPromptsAndToolTestsSendTools)
{
    const Suite s = smallSuite();
    for (int i = 0; i < 8; ++i) {
        const ChatRequest w = Conversation(s, 0, RunSettings(), 1, true, i).request();
        const std::string prompt = w.messages.back()["content"];
        for (const SuiteTest& t : s.tests)
            for (const QString& turn : t.turns)
                EXPECT_NE(prompt, turn.toStdString());
    }
    const ChatRequest tool = Conversation(s, 1, RunSettings(), 1, false).request();
    ASSERT_TRUE(tool.tools.is_array());
    EXPECT_EQ(tool.tools[0]["function"]["name"], "web_search");
    RunSettings settings;
    settings.maxTokens = 7;
    EXPECT_EQ(*Conversation(s, 0, settings, 1, false).request().maxTokens, 7);
}

TEST(Conversation, SyntheticPromptsArePairedAcrossEndpointsNotAcrossIterations)
{
    Suite s = smallSuite();
    s.tests[0].turns.clear();
    s.tests[0].promptTokens = 128;
    s.tests[0].ignoreEos = true;
    const ChatRequest a = Conversation(s, 0, RunSettings(), 1, false).request();
    const ChatRequest b = Conversation(s, 0, RunSettings(), 1, false).request();
    const ChatRequest c = Conversation(s, 0, RunSettings(), 2, false).request();
    EXPECT_EQ(a.messages.back()["content"], b.messages.back()["content"]);
    EXPECT_NE(a.messages.back()["content"], c.messages.back()["content"]);
    EXPECT_EQ(a.extraBody["ignore_eos"], true);
    const QString text = QString::fromStdString(a.messages.back()["content"].get<std::string>());
    EXPECT_NEAR(text.split(u' ').size(), 128, 12);
}

TEST(Conversation, FidelityTestsAreGreedySeededWithLogprobs)
{
    Suite s = smallSuite();
    s.defaults.temperature = std::nullopt; // left to the server: a fidelity test still sends 0
    s.defaults.topLogprobs = 20;
    s.tests[0].fidelity = true;
    s.tests[1].fidelity = true;
    s.tests[1].seed = 42;
    const ChatRequest fidelity = Conversation(s, 0, RunSettings(), 1, false).request();
    EXPECT_EQ(fidelity.topLogprobs, std::optional<int>(20));
    EXPECT_EQ(fidelity.temperature, std::optional<double>(0.0));
    EXPECT_EQ(fidelity.seed, std::optional<qint64>(1)); // neither the test nor the suite gives one
    EXPECT_EQ(fidelity.maxTokens, std::optional<int>(64));
    EXPECT_EQ(Conversation(s, 1, RunSettings(), 1, false).request().seed, std::optional<qint64>(42));
    s.defaults.seed = 7;
    EXPECT_EQ(Conversation(s, 0, RunSettings(), 1, false).request().seed, std::optional<qint64>(7));
    // Not a fidelity test: nothing asked for, the suite's sampling as it is.
    const ChatRequest plain = Conversation(s, 2, RunSettings(), 1, false).request();
    EXPECT_FALSE(plain.topLogprobs.has_value());
    EXPECT_FALSE(plain.temperature.has_value());
    // --max-tokens still applies, to every arm alike.
    RunSettings settings;
    settings.maxTokens = 16;
    EXPECT_EQ(Conversation(s, 0, settings, 1, false).request().maxTokens, std::optional<int>(16));
}

TEST(RunResultEndpoints, FoundByIndexOrExactLabel)
{
    RunResult r;
    r.endpoints.resize(3);
    r.endpoints[0].endpoint.label = QStringLiteral("Q4_K_M llama-server");
    r.endpoints[1].endpoint.label = QStringLiteral("NVFP4 vLLM");
    r.endpoints[2].endpoint.baseUrl = QUrl(QStringLiteral("http://10.0.0.5:8000")); // no label
    EXPECT_EQ(findEndpoint(r, QStringLiteral("1")), 1);
    EXPECT_EQ(findEndpoint(r, QStringLiteral("3")), -1);
    EXPECT_EQ(findEndpoint(r, QStringLiteral("-1")), -1);
    EXPECT_EQ(findEndpoint(r, QStringLiteral("NVFP4 vLLM")), 1);
    EXPECT_EQ(findEndpoint(r, QStringLiteral("nvfp4 vllm")), -1); // exact, as it is listed
    EXPECT_EQ(findEndpoint(r, QStringLiteral("10.0.0.5:8000")), 2); // the name it is shown by
    EXPECT_EQ(findEndpoint(r, QString()), -1);
}
