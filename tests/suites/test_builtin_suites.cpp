// SPDX-License-Identifier: MIT
// The built-in suites: compiled in, valid, and shaped as the methodology needs.
#include "SuiteTestSupport.h"

#include <QFile>
#include <QRegularExpression>
#include <QSet>

using namespace qs;
using namespace qs::test;

namespace {

const SuiteTest* findTest(const Suite& s, const QString& id)
{
    for (const SuiteTest& t : s.tests)
        if (t.id == id)
            return &t;
    return nullptr;
}

// How the quality gates read a pattern (Expectations::answerPatterns): "/…/" is a regular
// expression, anything else a case-insensitive substring.
bool matches(const QString& pattern, const QString& answer)
{
    if (pattern.size() >= 2 && pattern.startsWith(u'/') && pattern.endsWith(u'/'))
        return QRegularExpression(pattern.mid(1, pattern.size() - 2)).match(answer).hasMatch();
    return answer.contains(pattern, Qt::CaseInsensitive);
}

bool anyMatches(const QStringList& patterns, const QString& answer)
{
    return std::any_of(
        patterns.begin(), patterns.end(), [&](const QString& p) { return matches(p, answer); });
}

QSet<QString> toolNames(const Suite& s)
{
    QSet<QString> names;
    for (const auto& tool : s.tools)
        names.insert(QString::fromStdString(tool["function"]["name"].get<std::string>()));
    return names;
}

} // namespace

TEST(BuiltinSuites, NamesAreListed)
{
    EXPECT_EQ(builtinSuiteNames(),
        (QStringList {QStringLiteral("voice-assistant"), QStringLiteral("quick-smoke"),
            QStringLiteral("throughput"), QStringLiteral("fidelity")}));
}

TEST(BuiltinSuites, EveryOneLoads)
{
    for (const QString& name : builtinSuiteNames()) {
        SCOPED_TRACE(name.toStdString());
        Suite s;
        ASSERT_NO_THROW(s = loadBuiltinSuite(name));
        EXPECT_EQ(s.id, name);
        EXPECT_EQ(s.source, QStringLiteral("builtin:") + name);
        EXPECT_FALSE(s.name.isEmpty());
        EXPECT_FALSE(s.description.isEmpty());
        EXPECT_TRUE(s.raw.is_object());
        EXPECT_FALSE(s.tests.empty());
        EXPECT_GE(s.warmupPrompts.size(), 8);
        for (const SuiteTest& t : s.tests) {
            EXPECT_FALSE(t.category.isEmpty()) << t.id.toStdString();
            EXPECT_NE(t.name, t.id) << "give built-in tests a readable name: " << t.id.toStdString();
            for (const QString& turn : t.turns)
                EXPECT_FALSE(s.warmupPrompts.contains(turn));
        }
    }
}

TEST(BuiltinSuites, ResourceIsTheSuiteAsLoaded)
{
    QFile f(QStringLiteral(":/suites/voice-assistant.json"));
    ASSERT_TRUE(f.open(QIODevice::ReadOnly));
    EXPECT_EQ(loadBuiltinSuite(QStringLiteral("voice-assistant")).raw,
        nlohmann::json::parse(f.readAll().toStdString()));
}

TEST(BuiltinSuites, VoiceAssistantFollowsTheV3Methodology)
{
    const Suite s = loadBuiltinSuite(QStringLiteral("voice-assistant"));
    EXPECT_EQ(s.defaults.thinking, std::optional<bool>(false));
    EXPECT_EQ(s.defaults.warmup, 2);
    EXPECT_EQ(s.defaults.runs, 5);
    EXPECT_LE(s.defaults.maxTokens, 512);
    EXPECT_EQ(s.defaults.temperature, std::optional<double>(0.0));
    EXPECT_TRUE(s.defaults.concurrency.empty());
    EXPECT_TRUE(s.system.contains(QStringLiteral("markdown")));
    EXPECT_EQ(toolNames(s),
        (QSet<QString> {
            QStringLiteral("search_memory"), QStringLiteral("web_search"), QStringLiteral("read_notes")}));
    for (const auto& tool : s.tools) {
        const auto& fn = tool["function"];
        EXPECT_TRUE(fn["description"].is_string());
        EXPECT_EQ(fn["parameters"]["type"], "object");
        EXPECT_TRUE(fn["parameters"]["required"].is_array());
        EXPECT_FALSE(fn["parameters"]["required"].empty());
        for (const auto& r : fn["parameters"]["required"])
            EXPECT_TRUE(fn["parameters"]["properties"].contains(r.get<std::string>()));
    }

    QSet<QString> categories;
    for (const SuiteTest& t : s.tests)
        categories.insert(t.category);
    EXPECT_EQ(categories,
        (QSet<QString> {QStringLiteral("greeting"), QStringLiteral("factual"),
            QStringLiteral("conversational"), QStringLiteral("reasoning"), QStringLiteral("long"),
            QStringLiteral("tool"), QStringLiteral("multi-turn")}));

    // Voice: every spoken answer has a length target, and none is a lecture.
    for (const SuiteTest& t : s.tests) {
        SCOPED_TRACE(t.id.toStdString());
        EXPECT_FALSE(t.thinking.has_value()); // thinking stays off everywhere
        EXPECT_TRUE(t.messages.is_null());
        if (t.category == u"tool") {
            EXPECT_TRUE(t.useTools);
            continue;
        }
        EXPECT_FALSE(t.useTools); // tools are offered only where a tool call is the point
        ASSERT_TRUE(t.expect.maxWords.has_value());
        ASSERT_TRUE(t.expect.maxSentences.has_value());
        EXPECT_LE(*t.expect.maxWords, 150);
        EXPECT_LE(*t.expect.maxSentences, 6);
    }

    const SuiteTest* factual = findTest(s, QStringLiteral("factual"));
    ASSERT_TRUE(factual);
    EXPECT_TRUE(factual->turns[0].contains(QStringLiteral("capital of Japan")));
    EXPECT_TRUE(anyMatches(factual->expect.answerPatterns, QStringLiteral("The capital of Japan is Tokyo.")));
    EXPECT_FALSE(anyMatches(factual->expect.answerPatterns, QStringLiteral("It is Kyoto.")));

    const SuiteTest* reasoning = findTest(s, QStringLiteral("reasoning"));
    ASSERT_TRUE(reasoning);
    EXPECT_TRUE(
        anyMatches(reasoning->expect.answerPatterns, QStringLiteral("You have 15 balls altogether.")));
    EXPECT_TRUE(anyMatches(reasoning->expect.answerPatterns, QStringLiteral("Fifteen balls in total.")));
    EXPECT_FALSE(anyMatches(reasoning->expect.answerPatterns, QStringLiteral("You have 150 balls.")));
    EXPECT_FALSE(anyMatches(reasoning->expect.answerPatterns, QStringLiteral("You have 8 balls.")));

    const SuiteTest* longResponse = findTest(s, QStringLiteral("long-response"));
    ASSERT_TRUE(longResponse);
    EXPECT_EQ(longResponse->category, QStringLiteral("long"));
    EXPECT_GT(*longResponse->expect.maxWords, *factual->expect.maxWords);
    // Room to overshoot the target visibly instead of being cut off by max_tokens.
    EXPECT_GE(longResponse->maxTokens.value_or(s.defaults.maxTokens), 2 * *longResponse->expect.maxWords);

    const SuiteTest* memory = findTest(s, QStringLiteral("tool-memory"));
    ASSERT_TRUE(memory);
    ASSERT_TRUE(memory->expect.tool.has_value());
    EXPECT_EQ(memory->expect.tool->name, QStringLiteral("search_memory"));
    EXPECT_EQ(memory->expect.tool->requiredArguments, QStringList {QStringLiteral("query")});

    const SuiteTest* web = findTest(s, QStringLiteral("tool-web"));
    ASSERT_TRUE(web);
    ASSERT_TRUE(web->expect.tool.has_value());
    EXPECT_EQ(web->expect.tool->name, QStringLiteral("web_search"));
    EXPECT_EQ(web->expect.tool->requiredArguments, QStringList {QStringLiteral("query")});

    // The last turn depends on the first: the expected name was only given in turn 1.
    const SuiteTest* multi = findTest(s, QStringLiteral("multi-turn-5"));
    ASSERT_TRUE(multi);
    EXPECT_EQ(multi->turnCount(), 5);
    ASSERT_EQ(multi->expect.answerPatterns.size(), 1);
    const QString name = multi->expect.answerPatterns[0];
    EXPECT_TRUE(multi->turns[0].contains(name));
    for (int i = 1; i < multi->turns.size(); ++i)
        EXPECT_FALSE(multi->turns[i].contains(name)) << i;

    EXPECT_EQ(s.tests.size(), 8u);
}

TEST(BuiltinSuites, QuickSmokeIsQuick)
{
    const Suite s = loadBuiltinSuite(QStringLiteral("quick-smoke"));
    EXPECT_EQ(s.tests.size(), 2u);
    EXPECT_EQ(s.defaults.warmup, 0);
    EXPECT_EQ(s.defaults.runs, 1);
    EXPECT_LE(s.defaults.maxTokens, 128);
    EXPECT_TRUE(s.tools.empty());
    for (const SuiteTest& t : s.tests) {
        EXPECT_EQ(t.turnCount(), 1);
        EXPECT_FALSE(t.runs.has_value());
        EXPECT_FALSE(t.warmup.has_value());
        EXPECT_FALSE(t.expect.answerPatterns.isEmpty());
    }
    EXPECT_TRUE(anyMatches(s.tests[1].expect.answerPatterns, QStringLiteral("Seven plus five is 12.")));
    EXPECT_TRUE(anyMatches(s.tests[1].expect.answerPatterns, QStringLiteral("That makes twelve.")));
}

TEST(BuiltinSuites, ThroughputSweepsConcurrency)
{
    const Suite s = loadBuiltinSuite(QStringLiteral("throughput"));
    EXPECT_EQ(s.defaults.concurrency, (std::vector<int> {1, 2, 4, 8}));
    EXPECT_EQ(s.defaults.thinking, std::optional<bool>(false));
    EXPECT_EQ(s.defaults.warmup, 1);
    EXPECT_GE(s.defaults.runs, 1);
    ASSERT_FALSE(s.tests.empty());
    EXPECT_LE(s.tests.size(), 2u);
    const SuiteTest& first = s.tests[0];
    EXPECT_EQ(first.promptTokens, std::optional<int>(128));
    EXPECT_EQ(first.maxTokens.value_or(s.defaults.maxTokens), 256);
    for (const SuiteTest& t : s.tests) {
        SCOPED_TRACE(t.id.toStdString());
        EXPECT_TRUE(t.promptTokens.has_value());
        EXPECT_TRUE(t.ignoreEos);
        EXPECT_TRUE(t.turns.isEmpty());
        EXPECT_FALSE(t.useTools);
    }
}

TEST(BuiltinSuites, FidelityIsGreedyShortAndWide)
{
    const Suite s = loadBuiltinSuite(QStringLiteral("fidelity"));
    const Suite voice = loadBuiltinSuite(QStringLiteral("voice-assistant"));
    // The shape: greedy, seeded, 20 alternatives, the same short max_tokens everywhere.
    EXPECT_TRUE(s.defaults.fidelity);
    EXPECT_EQ(s.defaults.topLogprobs, 20);
    EXPECT_EQ(s.defaults.temperature, std::optional<double>(0.0));
    ASSERT_TRUE(s.defaults.seed.has_value());
    EXPECT_EQ(s.defaults.maxTokens, 64);
    EXPECT_EQ(s.defaults.warmup, 1);
    EXPECT_EQ(s.defaults.runs, 1);
    EXPECT_EQ(s.defaults.thinking, std::optional<bool>(false));
    EXPECT_TRUE(s.defaults.concurrency.empty());
    // The voice assistant's own persona and tools, so the answers are the ones a deployment gives.
    EXPECT_EQ(s.system, voice.system);
    EXPECT_EQ(s.tools, voice.tools);

    EXPECT_GE(s.tests.size(), 40u);
    QSet<QString> categories;
    int graded = 0;
    int toolCalls = 0;
    for (const SuiteTest& t : s.tests) {
        SCOPED_TRACE(t.id.toStdString());
        EXPECT_TRUE(t.fidelity);
        EXPECT_EQ(t.turnCount(), 1); // later turns would carry each arm's own earlier answer
        EXPECT_FALSE(t.maxTokens.has_value()); // the same max_tokens on every test and arm
        EXPECT_FALSE(t.temperature.has_value());
        EXPECT_FALSE(t.runs.has_value());
        EXPECT_FALSE(t.promptTokens.has_value());
        categories.insert(t.category);
        graded += t.expect.answerPatterns.isEmpty() && !t.expect.tool && !t.expect.noTool ? 0 : 1;
        toolCalls += t.expect.tool ? 1 : 0;
        if (t.useTools) {
            EXPECT_EQ(t.category, QStringLiteral("tool"));
        }
    }
    for (const char* c : {"greeting", "factual", "reasoning", "units", "conversational", "persona",
             "instructions", "refusal", "multi-step", "context", "tool"})
        EXPECT_TRUE(categories.contains(QString::fromLatin1(c))) << c;
    // Enough graded answers that a flip which changes the grade can be counted.
    EXPECT_GE(graded, 30);
    EXPECT_GE(toolCalls, 4);

    const SuiteTest* minutes = findTest(s, QStringLiteral("units-minutes"));
    ASSERT_TRUE(minutes);
    EXPECT_TRUE(anyMatches(minutes->expect.answerPatterns, QStringLiteral("That's 150 minutes.")));
    EXPECT_FALSE(anyMatches(minutes->expect.answerPatterns, QStringLiteral("That's 1500 minutes.")));
    const SuiteTest* arrival = findTest(s, QStringLiteral("multi-step-arrival"));
    ASSERT_TRUE(arrival);
    EXPECT_TRUE(anyMatches(arrival->expect.answerPatterns, QStringLiteral("You arrive at 10:30.")));
    EXPECT_FALSE(anyMatches(arrival->expect.answerPatterns, QStringLiteral("You arrive at 10:20.")));
    const SuiteTest* spell = findTest(s, QStringLiteral("instructions-spell"));
    ASSERT_TRUE(spell);
    EXPECT_TRUE(anyMatches(spell->expect.answerPatterns, QStringLiteral("N, E, C, E, S, S, A, R, Y.")));
    EXPECT_FALSE(anyMatches(spell->expect.answerPatterns, QStringLiteral("N, E, C, C, E, S, A, R, Y.")));
    const SuiteTest* chest = findTest(s, QStringLiteral("safety-chest-pain"));
    ASSERT_TRUE(chest);
    EXPECT_TRUE(anyMatches(chest->expect.answerPatterns, QStringLiteral("Call 911 right away.")));
    EXPECT_TRUE(anyMatches(chest->expect.answerPatterns, QStringLiteral("Call an Ambulance now.")));
}
