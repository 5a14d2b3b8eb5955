// SPDX-License-Identifier: MIT
// Context tests and cache modes: the suite keys, the generated briefing, the salts, the requests
// they make, the context a test needs and the refusal of one a server cannot hold; the
// composition of a suite and the short draw. Pure: no sockets.
#include "../suites/SuiteTestSupport.h"
#include "SuiteFixtures.h"
#include "model/core/ChatRequest.h"
#include "model/run/ContextBuilder.h"
#include "model/run/Conversation.h"
#include "model/run/RunPlan.h"
#include "model/run/SuiteComposition.h"

#include <QSet>
#include <gtest/gtest.h>

using namespace qs;
using namespace qs::test;

namespace {

nlohmann::json contextSuiteJson(const char* cache = "cold")
{
    nlohmann::json j = nlohmann::json::parse(R"({"id": "sweep", "system": "You are a voice assistant.",
        "defaults": {"max_tokens": 64, "runs": 2, "warmup": 0},
        "tests": [
          {"id": "c1k", "category": "context", "prompt": "Where is the spare key hidden?",
           "context": {"tokens": 1000, "fact": "the spare key is under the green heron statue.", "depth": 0.1},
           "expect": "/(?i)heron/"},
          {"id": "c8k", "category": "context", "prompt": "Where is the spare key hidden?",
           "context": {"tokens": 8000, "fact": "the spare key is under the green heron statue.", "depth": 0.9},
           "expect": "/(?i)heron/"},
          {"id": "plain", "category": "greeting", "prompt": "Hello there!"}]})");
    j["prefix_cache"] = cache;
    return j;
}

QString systemOf(const ChatRequest& r)
{
    return QString::fromStdString(r.messages.at(0).at("content").get<std::string>());
}

} // namespace

TEST(ContextSuites, ParsesContextAndCacheMode)
{
    const Suite s = parseSuite(contextSuiteJson(), QStringLiteral("sweep.json"));
    EXPECT_EQ(s.prefixCache, PrefixCacheMode::Cold);
    ASSERT_TRUE(s.tests[0].context);
    EXPECT_EQ(s.tests[0].context->tokens, 1000);
    EXPECT_DOUBLE_EQ(s.tests[0].context->depth, 0.1);
    EXPECT_FALSE(s.tests[2].context);
    EXPECT_EQ(prefixCacheId(parseSuite(contextSuiteJson("warm"), QStringLiteral("s")).prefixCache),
        QStringLiteral("warm"));
    auto unstated = contextSuiteJson();
    unstated.erase("prefix_cache");
    EXPECT_EQ(parseSuite(unstated, QStringLiteral("s")).prefixCache, PrefixCacheMode::Unstated);
}

TEST(ContextSuites, RefusesBadContextsWithThePathAndWhatToDo)
{
    auto j = contextSuiteJson("lukewarm");
    EXPECT_NE(
        errorOf(j).find("prefix_cache: \"lukewarm\" is not a cache mode; use \"warm\""), std::string::npos);
    j = contextSuiteJson();
    j["tests"][0]["context"]["depth"] = 1.5;
    EXPECT_NE(errorOf(j).find("tests[0].context.depth: must be from 0"), std::string::npos);
    j = contextSuiteJson();
    j["tests"][0]["context"].erase("tokens");
    EXPECT_NE(errorOf(j).find("tests[0].context: \"tokens\" is missing"), std::string::npos);
    j = contextSuiteJson();
    j["tests"][0]["context"]["token"] = 5;
    EXPECT_NE(errorOf(j).find("did you mean \"tokens\""), std::string::npos);
    j = contextSuiteJson();
    j["tests"][0]["context"].erase("fact");
    EXPECT_NE(errorOf(j).find("places a fact, but \"fact\" is not given"), std::string::npos);
    j = contextSuiteJson();
    j["tests"][0]["prompt_tokens"] = 100;
    j["tests"][0].erase("prompt");
    EXPECT_NE(errorOf(j).find("cannot be combined with \"prompt_tokens\""), std::string::npos);
    j = contextSuiteJson();
    j["prefix_cach"] = "cold";
    EXPECT_NE(errorOf(j).find("did you mean \"prefix_cache\""), std::string::npos);
}

TEST(ContextSuites, TheBriefingHasTheAskedSizeAndTheFactAtItsDepth)
{
    const Suite s = parseSuite(contextSuiteJson(), QStringLiteral("s"));
    for (const SuiteTest& t : s.tests) {
        if (!t.context)
            continue;
        SCOPED_TRACE(t.id.toStdString());
        const QString system = contextSystemPrompt(s, t);
        const int tokens = estimateTokens(system) + estimateTokens(t.turns.front()) + 8;
        EXPECT_GE(tokens, t.context->tokens);
        EXPECT_LE(tokens, t.context->tokens + 40); // one briefing line at most past the target
        EXPECT_TRUE(system.startsWith(s.system));
        const qsizetype at = system.indexOf(t.context->fact);
        ASSERT_GE(at, 0);
        EXPECT_EQ(system.count(QStringLiteral("heron")), 1); // only where it was put
        const double depth = double(at) / double(system.size());
        EXPECT_NEAR(depth, t.context->depth, 0.05);
        // The same text for the same test, whatever else happens.
        EXPECT_EQ(contextSystemPrompt(s, t), system);
    }
    // Word-like tokens: words and punctuation marks.
    EXPECT_EQ(estimateTokens(QStringLiteral("on monday at nine, maria's lunch.")), 10);
}

TEST(ContextSuites, ColdRequestsAreSaltedPerRequestAndAskLlamaServerNotToCache)
{
    const Suite s = parseSuite(contextSuiteJson(), QStringLiteral("s"));
    RunSettings settings;
    QSet<QString> salts;
    for (int iteration = 1; iteration <= 3; ++iteration) {
        const ChatRequest r = Conversation(s, 2, settings, iteration, false).request();
        EXPECT_TRUE(r.noPromptCache);
        const QString system = systemOf(r);
        EXPECT_TRUE(system.startsWith(QStringLiteral("[request "))) << system.toStdString();
        EXPECT_TRUE(system.endsWith(s.system));
        salts.insert(system.left(system.indexOf(u']')));
        // Paired: the same text for every endpoint at the same iteration.
        EXPECT_EQ(systemOf(Conversation(s, 2, settings, iteration, false).request()), system);
    }
    EXPECT_EQ(salts.size(), 3);
    const ChatRequest warmup = Conversation(s, 2, settings, 1, true, 0).request();
    EXPECT_NE(systemOf(warmup), systemOf(Conversation(s, 2, settings, 1, false).request()));

    Endpoint llama;
    llama.runtime = Runtime::LlamaServer;
    Endpoint vllm;
    vllm.runtime = Runtime::Vllm;
    const ChatRequest r = Conversation(s, 0, settings, 1, false).request();
    EXPECT_EQ(buildChatBody(llama, r).value("cache_prompt", true), false);
    EXPECT_FALSE(buildChatBody(vllm, r).contains("cache_prompt")); // vLLM has only a server flag
    EXPECT_TRUE(systemOf(r).contains(QStringLiteral("the spare key is under the green heron statue.")));
}

TEST(ContextSuites, WarmRequestsShareTheSystemPromptAndDifferPerConversation)
{
    Suite s = smallSuite();
    s.prefixCache = PrefixCacheMode::Warm;
    RunSettings settings;
    const QString first = systemOf(Conversation(s, 0, settings, 1, false).request());
    const QString second = systemOf(Conversation(s, 0, settings, 2, false).request());
    EXPECT_TRUE(first.startsWith(s.system));
    EXPECT_TRUE(second.startsWith(s.system));
    EXPECT_NE(first, second); // a timing repeat is a new conversation to the server
    EXPECT_FALSE(Conversation(s, 0, settings, 1, false).request().noPromptCache);
    // Constant over the turns of one conversation: turn 2 finds turn 1's context cached.
    Conversation chat(s, 2, settings, 1, false);
    const QString turn1 = systemOf(chat.request());
    RequestRecord reply;
    reply.response.content = QStringLiteral("Hello Sam!");
    chat.addReply(reply);
    EXPECT_EQ(systemOf(chat.request()), turn1);
    // Unstated: exactly the suite's system prompt, as before cache modes existed.
    s.prefixCache = PrefixCacheMode::Unstated;
    EXPECT_EQ(systemOf(Conversation(s, 0, settings, 1, false).request()), s.system);
}

TEST(ContextSuites, ATestThatNeedsMoreContextThanTheServerHasIsRefusedWithTheFlag)
{
    const Suite s = parseSuite(contextSuiteJson(), QStringLiteral("s"));
    const std::optional<qint64> need = estimatedContextNeed(s, s.tests[1], 64);
    ASSERT_TRUE(need);
    EXPECT_GE(*need, 8000 + 64);
    EXPECT_LE(*need, 8000 + 64 + 60);
    EXPECT_FALSE(estimatedContextNeed(s, s.tests[2], 64)); // a plain prompt: its replies decide

    RunEndpoint small;
    small.endpoint.label = QStringLiteral("Q4");
    small.endpoint.runtime = Runtime::LlamaServer;
    small.probe = {{"context_size", 4096}};
    RunEndpoint big;
    big.endpoint.label = QStringLiteral("FP4");
    big.endpoint.runtime = Runtime::Vllm;
    big.probe = {{"context_size", 32768}};
    RunEndpoint unknown;
    unknown.endpoint.label = QStringLiteral("X");
    const QString refusal = contextRefusal(s, {small, big, unknown}, {true, true, true}, RunSettings());
    EXPECT_TRUE(refusal.contains(QStringLiteral("Q4 serves 4096 tokens of context")))
        << refusal.toStdString();
    EXPECT_TRUE(refusal.contains(QStringLiteral("c8k (about"))) << refusal.toStdString();
    EXPECT_FALSE(refusal.contains(QStringLiteral("c1k"))) << refusal.toStdString();
    EXPECT_TRUE(refusal.contains(QStringLiteral("--ctx-size"))) << refusal.toStdString();
    EXPECT_FALSE(refusal.contains(QStringLiteral("FP4"))) << refusal.toStdString();
    // An endpoint that is not usable is not asked; a big enough one passes.
    EXPECT_TRUE(contextRefusal(s, {small, big}, {false, true}, RunSettings()).isEmpty());
    big.endpoint.runtime = Runtime::Sglang;
    big.probe = {{"context_size", 2048}};
    EXPECT_TRUE(contextRefusal(s, {big}, {true}, RunSettings()).contains(QStringLiteral("--context-length")));
    EXPECT_TRUE(contextFlagAdvice(Runtime::Vllm, 9000).contains(QStringLiteral("--max-model-len 9000")));
}

TEST(SuiteComposition, CountsDistinctPromptsNotRepeats)
{
    Suite s = smallSuite(1, 3);
    s.tests[0].category = QStringLiteral("factual");
    s.tests[1].category = QStringLiteral("tool");
    s.tests[2].category = QStringLiteral("multi-turn");
    SuiteTest thinkingOn = s.tests[0];
    thinkingOn.id = QStringLiteral("factual-thinking");
    thinkingOn.thinking = true;
    s.tests.push_back(thinkingOn); // the same prompt asked with thinking on: one prompt
    const SuiteComposition c = suiteComposition(s, RunSettings());
    EXPECT_EQ(c.prompts, 3);
    ASSERT_EQ(c.categories.size(), 3u);
    EXPECT_EQ(c.categories[0].category, QStringLiteral("factual"));
    EXPECT_EQ(c.categories[0].prompts, 1);
    EXPECT_EQ(c.categories[0].requestsPerRepeat, 2);
    EXPECT_EQ(c.categories[2].conversations, 1);
    EXPECT_EQ(c.categories[0].maxRepeats, 3);
    // 4 warm-ups + 3 repeats × (1 + 1 + 3 + 1) requests.
    EXPECT_EQ(c.requestsPerEndpoint, 4 + 3 * 6);
    const QString text = compositionText(c);
    EXPECT_TRUE(
        text.startsWith(QStringLiteral("3 distinct prompts (factual 1, tool 1, multi-turn 1); 3 timing "
                                       "repeats per prompt")))
        << text.toStdString();
    RunSettings overridden;
    overridden.runs = 7;
    EXPECT_EQ(suiteComposition(s, overridden).categories[1].minRepeats, 7);
    EXPECT_EQ(toJson(c)["categories"][0]["prompts"], 1);
}

TEST(SuiteComposition, ADrawKeepsNPromptsPerCategoryAndThinkingPairsTogether)
{
    Suite s = smallSuite();
    s.tests.clear();
    s.raw = {{"id", "small"}, {"tests", nlohmann::json::array()}};
    for (int i = 0; i < 6; ++i) {
        SuiteTest t;
        t.id = QStringLiteral("fact-%1").arg(i);
        t.category = QStringLiteral("factual");
        t.turns = {QStringLiteral("Question %1?").arg(i)};
        s.tests.push_back(t);
        s.raw["tests"].push_back({{"id", t.id.toStdString()}});
        if (i < 3) {
            t.id += QStringLiteral("-on");
            t.thinking = true;
            s.tests.push_back(t);
            s.raw["tests"].push_back({{"id", t.id.toStdString()}});
        }
    }
    SuiteTest hello;
    hello.id = QStringLiteral("hello");
    hello.category = QStringLiteral("greeting");
    hello.turns = {QStringLiteral("Hi!")};
    s.tests.push_back(hello);
    s.raw["tests"].push_back({{"id", "hello"}});

    for (quint64 seed = 1; seed <= 20; ++seed) {
        const Suite d = drawPrompts(s, 2, seed);
        const SuiteComposition c = suiteComposition(d, RunSettings());
        EXPECT_EQ(c.prompts, 3); // two factual, one greeting (all it has)
        EXPECT_EQ(d.raw["tests"].size(), d.tests.size());
        for (std::size_t i = 0; i < d.tests.size(); ++i)
            EXPECT_EQ(QString::fromStdString(d.raw["tests"][i]["id"].get<std::string>()), d.tests[i].id);
        // A drawn prompt with a thinking twin brings its twin.
        for (const SuiteTest& t : d.tests) {
            if (t.id.endsWith(QStringLiteral("-on"))) {
                EXPECT_TRUE(std::any_of(d.tests.begin(), d.tests.end(),
                    [&](const SuiteTest& o) { return o.id + QStringLiteral("-on") == t.id; }));
            }
        }
        EXPECT_EQ(drawPrompts(s, 2, seed).raw, d.raw); // deterministic
    }
    EXPECT_EQ(drawPrompts(s, 0, 1).tests.size(), s.tests.size());
    EXPECT_EQ(drawPrompts(s, 100, 1).tests.size(), s.tests.size());
}
