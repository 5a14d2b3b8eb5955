// SPDX-License-Identifier: MIT
// Valid suites: the short hand-written form, the full form, and what loading fills in.
#include "SuiteTestSupport.h"

using namespace qs;
using namespace qs::test;

namespace {

// Verbatim from the issue: this form must always be accepted.
const char* const shortForm = R"({"id": "my-suite", "name": "My suite",
 "system": "You are a concise voice assistant.",
 "tools": [{"type": "function", "function": {"name": "web_search", "parameters": {}}}],
 "defaults": {"max_tokens": 256, "temperature": 0, "warmup": 2, "runs": 5},
 "tests": [
   {"id": "factual", "prompt": "What is the capital of Japan?", "expect": ["Tokyo"]},
   {"id": "weather", "prompt": "Weather in Paris?", "use_tools": true,
    "expect_tool": {"name": "web_search", "required": ["query"]}},
   {"id": "chat", "turns": ["Hi, I'm Sam.", "I like sailing.", "What's my name?"]}]})";

} // namespace

TEST(SuiteParse, ShortFormFromTheIssue)
{
    const Suite s = parseText(shortForm, QStringLiteral("my.json"));
    EXPECT_EQ(s.id, QStringLiteral("my-suite"));
    EXPECT_EQ(s.name, QStringLiteral("My suite"));
    EXPECT_EQ(s.description, QString());
    EXPECT_EQ(s.system, QStringLiteral("You are a concise voice assistant."));
    ASSERT_TRUE(s.tools.is_array());
    ASSERT_EQ(s.tools.size(), 1u);
    EXPECT_EQ(s.tools[0]["function"]["name"], "web_search");

    EXPECT_EQ(s.defaults.maxTokens, 256);
    ASSERT_TRUE(s.defaults.temperature.has_value());
    EXPECT_EQ(*s.defaults.temperature, 0.0);
    EXPECT_EQ(s.defaults.warmup, 2);
    EXPECT_EQ(s.defaults.runs, 5);
    EXPECT_FALSE(s.defaults.seed.has_value());
    EXPECT_FALSE(s.defaults.thinking.has_value());
    EXPECT_TRUE(s.defaults.concurrency.empty());
    EXPECT_EQ(s.defaults.extraBody, nlohmann::json::object());

    ASSERT_EQ(s.tests.size(), 3u);
    const SuiteTest& factual = s.tests[0];
    EXPECT_EQ(factual.id, QStringLiteral("factual"));
    EXPECT_EQ(factual.name, QStringLiteral("factual")); // name defaults to id
    EXPECT_EQ(factual.turns, QStringList {QStringLiteral("What is the capital of Japan?")});
    EXPECT_TRUE(factual.messages.is_null());
    EXPECT_EQ(factual.turnCount(), 1);
    EXPECT_FALSE(factual.useTools);
    EXPECT_EQ(factual.expect.answerPatterns, QStringList {QStringLiteral("Tokyo")});
    EXPECT_FALSE(factual.expect.tool.has_value());
    EXPECT_FALSE(factual.maxTokens.has_value());
    EXPECT_FALSE(factual.promptTokens.has_value());

    const SuiteTest& weather = s.tests[1];
    EXPECT_TRUE(weather.useTools);
    ASSERT_TRUE(weather.expect.tool.has_value());
    EXPECT_EQ(weather.expect.tool->name, QStringLiteral("web_search"));
    EXPECT_EQ(weather.expect.tool->requiredArguments, QStringList {QStringLiteral("query")});
    EXPECT_TRUE(weather.expect.answerPatterns.isEmpty());

    const SuiteTest& chat = s.tests[2];
    EXPECT_EQ(chat.turnCount(), 3);
    EXPECT_EQ(chat.turns.last(), QStringLiteral("What's my name?"));
    EXPECT_FALSE(chat.useTools);

    EXPECT_EQ(s.source, QStringLiteral("my.json"));
    EXPECT_EQ(s.raw, parseJson(shortForm));
    EXPECT_GE(s.warmupPrompts.size(), 8);
}

TEST(SuiteParse, MinimalSuiteGetsTheDocumentedDefaults)
{
    const Suite s = parseText(R"({"id": "x", "tests": [{"id": "a", "prompt": "Hello?"}]})");
    EXPECT_EQ(s.name, QStringLiteral("x"));
    EXPECT_TRUE(s.system.isEmpty());
    EXPECT_TRUE(s.tools.is_array());
    EXPECT_TRUE(s.tools.empty());
    EXPECT_EQ(s.defaults.maxTokens, 256);
    EXPECT_EQ(s.defaults.temperature, std::optional<double>(0.0));
    EXPECT_EQ(s.defaults.warmup, 2);
    EXPECT_EQ(s.defaults.runs, 5);
    EXPECT_FALSE(s.defaults.thinking.has_value());
    EXPECT_EQ(s.tests[0].category, QString());
    EXPECT_FALSE(s.tests[0].expect.noTool);
    EXPECT_FALSE(s.tests[0].ignoreEos);
    EXPECT_EQ(s.tests[0].extraBody, nlohmann::json::object());
    EXPECT_FALSE(s.defaults.fidelity);
    EXPECT_EQ(s.defaults.topLogprobs, 20);
    EXPECT_FALSE(s.tests[0].fidelity);
}

TEST(SuiteParse, FidelityPerTestAndByDefault)
{
    const Suite perTest = parseText(R"({"id": "x", "tests": [
        {"id": "a", "prompt": "Hello?", "fidelity": true, "temperature": 0, "seed": 7},
        {"id": "b", "prompt": "Bye?"}]})");
    EXPECT_FALSE(perTest.defaults.fidelity);
    EXPECT_TRUE(perTest.tests[0].fidelity);
    EXPECT_FALSE(perTest.tests[1].fidelity);

    // "defaults": every test is one unless it says false, and a test may then sample freely.
    const Suite byDefault = parseText(R"({"id": "x", "defaults": {"fidelity": true, "top_logprobs": 5},
        "tests": [{"id": "a", "prompt": "Hello?"},
                  {"id": "b", "prompt": "Tell me a story.", "fidelity": false, "temperature": 0.8}]})");
    EXPECT_TRUE(byDefault.defaults.fidelity);
    EXPECT_EQ(byDefault.defaults.topLogprobs, 5);
    EXPECT_TRUE(byDefault.tests[0].fidelity);
    EXPECT_FALSE(byDefault.tests[1].fidelity);
    EXPECT_EQ(byDefault.tests[1].temperature, std::optional<double>(0.8));

    // Temperature left to the server (null) is not a contradiction: the runner sends 0.
    const Suite serverTemperature = parseText(R"({"id": "x", "defaults": {"temperature": null,
        "top_logprobs": 20}, "tests": [{"id": "a", "prompt": "Hello?", "fidelity": true}]})");
    EXPECT_TRUE(serverTemperature.tests[0].fidelity);
    // A non-fidelity test under warm defaults next to a greedy fidelity test.
    const Suite mixed = parseText(R"({"id": "x", "defaults": {"temperature": 0.7}, "tests": [
        {"id": "a", "prompt": "Hello?", "fidelity": true, "temperature": 0},
        {"id": "b", "prompt": "Bye?"}]})");
    EXPECT_TRUE(mixed.tests[0].fidelity);
    EXPECT_FALSE(mixed.tests[1].fidelity);
}

TEST(SuiteParse, FullFormWithEveryField)
{
    const Suite s = parseText(R"({
      "id": "full.suite_1", "name": "Full", "description": "Every field.", "system": "Be brief.",
      "tools": [{"type": "function", "function": {"name": "search_memory", "description": "d",
                 "parameters": {"type": "object", "properties": {"query": {"type": "string"}}}}},
                {"type": "function", "function": {"name": "read_notes"}, "strict": true}],
      "defaults": {"max_tokens": 128, "temperature": 0.7, "seed": -1, "thinking": false, "warmup": 0,
                   "runs": 3, "concurrency": [1, 2, 4], "extra_body": {"top_k": 20}},
      "warmup_prompts": ["Warm up please.", "Another warm-up."],
      "tests": [
        {"id": "t1", "name": "Test one", "category": "factual", "prompt": "Q?", "expect": "answer",
         "max_words": 40, "max_sentences": 2, "max_tokens": 64, "temperature": 1.5, "seed": 7,
         "thinking": true, "warmup": 1, "runs": 9, "extra_body": {"min_p": 0.1}},
        {"id": "t2", "messages": [{"role": "system", "content": "Other system."},
                                  {"role": "user", "content": "Hi"},
                                  {"role": "assistant", "content": null,
                                   "tool_calls": [{"id": "c1", "type": "function",
                                                   "function": {"name": "read_notes", "arguments": "{}"}}]},
                                  {"role": "tool", "tool_call_id": "c1", "content": "notes"}],
         "use_tools": true, "expect_no_tool": true, "expect_length": {"max_words": 10}},
        {"id": "t3", "prompt_tokens": 128, "ignore_eos": true, "max_tokens": 256},
        {"id": "t4", "prompt": "Find it.", "use_tools": true, "expect_tool": "search_memory",
         "expect_length": {"max_sentences": 1}, "max_words": 12}
      ]})");
    EXPECT_EQ(s.description, QStringLiteral("Every field."));
    EXPECT_EQ(s.tools.size(), 2u);
    EXPECT_EQ(s.defaults.maxTokens, 128);
    EXPECT_EQ(s.defaults.temperature, std::optional<double>(0.7));
    EXPECT_EQ(s.defaults.seed, std::optional<qint64>(-1));
    EXPECT_EQ(s.defaults.thinking, std::optional<bool>(false));
    EXPECT_EQ(s.defaults.warmup, 0);
    EXPECT_EQ(s.defaults.runs, 3);
    EXPECT_EQ(s.defaults.concurrency, (std::vector<int> {1, 2, 4}));
    EXPECT_EQ(s.defaults.extraBody, parseJson(R"({"top_k": 20})"));
    EXPECT_EQ(s.warmupPrompts,
        (QStringList {QStringLiteral("Warm up please."), QStringLiteral("Another warm-up.")}));

    const SuiteTest& t1 = s.tests[0];
    EXPECT_EQ(t1.name, QStringLiteral("Test one"));
    EXPECT_EQ(t1.category, QStringLiteral("factual"));
    EXPECT_EQ(
        t1.expect.answerPatterns, QStringList {QStringLiteral("answer")}); // a single string is accepted
    EXPECT_EQ(t1.expect.maxWords, std::optional<int>(40));
    EXPECT_EQ(t1.expect.maxSentences, std::optional<int>(2));
    EXPECT_EQ(t1.maxTokens, std::optional<int>(64));
    EXPECT_EQ(t1.temperature, std::optional<double>(1.5));
    EXPECT_EQ(t1.seed, std::optional<qint64>(7));
    EXPECT_EQ(t1.thinking, std::optional<bool>(true));
    EXPECT_EQ(t1.warmup, std::optional<int>(1));
    EXPECT_EQ(t1.runs, std::optional<int>(9));
    EXPECT_EQ(t1.extraBody, parseJson(R"({"min_p": 0.1})"));

    const SuiteTest& t2 = s.tests[1];
    ASSERT_TRUE(t2.messages.is_array());
    EXPECT_EQ(t2.messages.size(), 4u);
    EXPECT_TRUE(t2.turns.isEmpty());
    EXPECT_EQ(t2.turnCount(), 1);
    EXPECT_TRUE(t2.useTools);
    EXPECT_TRUE(t2.expect.noTool);
    EXPECT_EQ(t2.expect.maxWords, std::optional<int>(10));
    EXPECT_FALSE(t2.expect.maxSentences.has_value());

    const SuiteTest& t3 = s.tests[2];
    EXPECT_EQ(t3.promptTokens, std::optional<int>(128));
    EXPECT_TRUE(t3.ignoreEos);
    EXPECT_TRUE(t3.turns.isEmpty());
    EXPECT_EQ(t3.maxTokens, std::optional<int>(256));

    const SuiteTest& t4 = s.tests[3];
    ASSERT_TRUE(t4.expect.tool.has_value());
    EXPECT_EQ(t4.expect.tool->name, QStringLiteral("search_memory"));
    EXPECT_TRUE(t4.expect.tool->requiredArguments.isEmpty());
    EXPECT_EQ(t4.expect.maxWords, std::optional<int>(12));
    EXPECT_EQ(t4.expect.maxSentences, std::optional<int>(1));
}

TEST(SuiteParse, NullTemperatureMeansTheServerDefault)
{
    const Suite s = parseText(R"({"id": "x", "defaults": {"temperature": null, "thinking": null},
                                  "tests": [{"id": "a", "prompt": "Hi"}]})");
    EXPECT_FALSE(s.defaults.temperature.has_value());
    EXPECT_FALSE(s.defaults.thinking.has_value());
}

TEST(SuiteParse, WholeNumbersWrittenAsDecimalsAreAccepted)
{
    const Suite s = parseText(R"({"id": "x", "defaults": {"max_tokens": 256.0, "runs": 3.0},
                                  "tests": [{"id": "a", "prompt": "Hi"}]})");
    EXPECT_EQ(s.defaults.maxTokens, 256);
    EXPECT_EQ(s.defaults.runs, 3);
}

TEST(SuiteParse, RegexPatternsAreKeptAsWritten)
{
    const Suite s = parseText(R"({"id": "x", "tests": [{"id": "a", "prompt": "3 x 5?",
                                  "expect": ["/\\b15\\b/", "fifteen", "/(?i)FIFTEEN/", "/"]}]})");
    EXPECT_EQ(s.tests[0].expect.answerPatterns,
        (QStringList {QStringLiteral("/\\b15\\b/"), QStringLiteral("fifteen"),
            QStringLiteral("/(?i)FIFTEEN/"), QStringLiteral("/")}));
}

TEST(SuiteParse, DefaultWarmupPromptsDifferFromEveryMeasuredPrompt)
{
    const Suite plain = parseText(R"({"id": "x", "tests": [{"id": "a", "prompt": "Hi"}]})");
    ASSERT_GE(plain.warmupPrompts.size(), 8);
    const QString first = plain.warmupPrompts.first();

    // A suite measuring exactly the first default warm-up prompt must not be warmed with it.
    nlohmann::json j = parseJson(R"({"id": "x", "tests": [{"id": "a", "turns": ["Hi"]}]})");
    j["tests"][0]["turns"].push_back(first.toStdString());
    const Suite s = parseSuite(j, QStringLiteral("t"));
    EXPECT_FALSE(s.warmupPrompts.contains(first));
    EXPECT_EQ(s.warmupPrompts.size(), plain.warmupPrompts.size() - 1);
    for (const QString& p : s.warmupPrompts)
        for (const QString& turn : s.tests[0].turns)
            EXPECT_NE(p.simplified().toCaseFolded(), turn.simplified().toCaseFolded());
}

TEST(SuiteParse, RawIsTheJsonAsLoaded)
{
    const nlohmann::json j
        = parseJson(R"({"id": "x", "tests": [{"id": "a", "prompt": "Hi", "expect": "hello"}]})");
    const Suite s = parseSuite(j, QStringLiteral("somewhere.json"));
    EXPECT_EQ(s.raw, j); // not normalised: "expect" stays a string
    EXPECT_EQ(s.source, QStringLiteral("somewhere.json"));
}

TEST(SuiteParse, UnicodeTextSurvives)
{
    const Suite s = parseText(R"({"id": "x", "system": "Sois bref — réponds en français.",
                                  "tests": [{"id": "a", "prompt": "Quelle est la capitale du Japon ? 東京", "expect": "東京"}]})");
    EXPECT_EQ(s.system, QStringLiteral("Sois bref — réponds en français."));
    EXPECT_TRUE(s.tests[0].turns[0].endsWith(QStringLiteral("東京")));
    EXPECT_EQ(s.tests[0].expect.answerPatterns[0], QStringLiteral("東京"));
}
