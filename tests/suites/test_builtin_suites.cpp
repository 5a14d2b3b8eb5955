// SPDX-License-Identifier: MIT
// The built-in suites: compiled in, valid, and shaped as the methodology needs.
#include "SuiteTestSupport.h"

#include <QFile>
#include <QHash>
#include <QRegularExpression>
#include <QSet>
#include <algorithm>
#include <utility>

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

int perCategoryCount(const Suite& s, const QString& category)
{
    return int(std::count_if(
        s.tests.begin(), s.tests.end(), [&](const SuiteTest& t) { return t.category == category; }));
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
        (QStringList {QStringLiteral("voice-assistant"), QStringLiteral("context-sweep"),
            QStringLiteral("quick-smoke"), QStringLiteral("throughput"), QStringLiteral("fidelity")}));
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

// The assistant's real workload (issue 22): distinct prompts over the categories a voice assistant
// meets in a day, a persona with a briefing in the system prompt, a warm prefix cache, and timing
// repeats kept few (they steady the clock; the distinct prompts are the evidence).
TEST(BuiltinSuites, VoiceAssistantIsTheAssistantsRealWorkload)
{
    const Suite s = loadBuiltinSuite(QStringLiteral("voice-assistant"));
    EXPECT_EQ(s.prefixCache, PrefixCacheMode::Warm);
    EXPECT_EQ(s.defaults.thinking, std::optional<bool>(false));
    EXPECT_EQ(s.defaults.warmup, 1);
    EXPECT_EQ(s.defaults.runs, 3);
    EXPECT_EQ(s.defaults.maxTokens, 256);
    EXPECT_EQ(s.defaults.temperature, std::optional<double>(0.0));
    EXPECT_TRUE(s.defaults.concurrency.empty());
    EXPECT_FALSE(s.raw.contains("warmup_prompts")); // the built-in list, minus any measured prompt

    // Tools: the three of the seeds, each with its required argument described.
    EXPECT_EQ(toolNames(s),
        (QSet<QString> {
            QStringLiteral("search_memory"), QStringLiteral("web_search"), QStringLiteral("read_notes")}));
    QHash<QString, QStringList> required;
    for (const auto& tool : s.tools) {
        const auto& fn = tool["function"];
        EXPECT_TRUE(fn["description"].is_string());
        EXPECT_EQ(fn["parameters"]["type"], "object");
        EXPECT_TRUE(fn["parameters"]["required"].is_array());
        EXPECT_FALSE(fn["parameters"]["required"].empty());
        for (const auto& r : fn["parameters"]["required"]) {
            EXPECT_TRUE(fn["parameters"]["properties"].contains(r.get<std::string>()));
            required[QString::fromStdString(fn["name"].get<std::string>())]
                << QString::fromStdString(r.get<std::string>());
        }
    }

    // Distinct prompts over the named categories. A thinking pair asks one prompt twice.
    const QStringList named
        = {QStringLiteral("greeting"), QStringLiteral("factual"), QStringLiteral("conversational"),
            QStringLiteral("reasoning"), QStringLiteral("long"), QStringLiteral("briefing"),
            QStringLiteral("tool"), QStringLiteral("no-tool"), QStringLiteral("multi-turn"),
            QStringLiteral("persona"), QStringLiteral("refusal"), QStringLiteral("thinking")};
    QHash<QString, int> perCategory;
    QSet<QString> distinct;
    for (const SuiteTest& t : s.tests) {
        perCategory[t.category] += 1;
        distinct.insert(t.turns.join(u'\n'));
    }
    EXPECT_EQ(QSet<QString>(named.begin(), named.end()),
        QSet<QString>(perCategory.keyBegin(), perCategory.keyEnd()));
    EXPECT_GE(distinct.size(), 60);
    EXPECT_LE(distinct.size(), 80);
    const std::pair<const char*, int> minimum[] = {{"greeting", 5}, {"factual", 8}, {"conversational", 6},
        {"reasoning", 5}, {"long", 3}, {"briefing", 6}, {"tool", 12}, {"no-tool", 3}, {"multi-turn", 3},
        {"persona", 5}, {"refusal", 3}, {"thinking", 8}};
    for (const auto& [category, n] : minimum) {
        EXPECT_GE(perCategory.value(QString::fromLatin1(category)), n) << category;
    }
    // The description says what the suite holds.
    EXPECT_TRUE(s.description.contains(QString::number(s.tests.size()) + QStringLiteral(" tests over ")
        + QString::number(distinct.size()) + QStringLiteral(" distinct")))
        << s.description.toStdString();

    QHash<QString, int> toolExpected;
    int noTool = 0;
    int conversations = 0;
    for (const SuiteTest& t : s.tests) {
        SCOPED_TRACE(t.id.toStdString());
        EXPECT_TRUE(t.messages.is_null());
        EXPECT_FALSE(t.promptTokens.has_value());
        // Tools are offered only where choosing (or not choosing) one is the point.
        if (t.useTools) {
            EXPECT_TRUE(t.category == u"tool" || t.category == u"no-tool" || t.category == u"multi-turn");
        }
        if (t.category == u"tool") {
            ASSERT_TRUE(t.useTools);
            ASSERT_TRUE(t.expect.tool.has_value());
            EXPECT_EQ(t.expect.tool->requiredArguments, required.value(t.expect.tool->name));
            toolExpected[t.expect.tool->name] += 1;
            continue;
        }
        // Every spoken answer has a length target, generous enough for a good answer, with
        // max_tokens to spare so an overlong answer shows instead of being cut.
        ASSERT_TRUE(t.expect.maxWords.has_value());
        EXPECT_LE(*t.expect.maxWords, 160);
        EXPECT_GE(*t.expect.maxWords, 40);
        EXPECT_GE(t.maxTokens.value_or(s.defaults.maxTokens), 2 * *t.expect.maxWords);
        if (t.category == u"no-tool") {
            EXPECT_TRUE(t.useTools);
            EXPECT_TRUE(t.expect.noTool);
            ++noTool;
        }
        if (t.category == u"conversational" || t.category == u"long") {
            EXPECT_GE(*t.expect.maxWords, 140); // room for a 100-200 token answer
        }
        for (const char* graded : {"factual", "reasoning", "briefing", "refusal", "thinking", "multi-turn"}) {
            if (t.category == QLatin1String(graded)) {
                EXPECT_FALSE(t.expect.answerPatterns.isEmpty());
            }
        }
        if (t.category == u"multi-turn") {
            // The last turn is graded on something only an earlier turn said.
            EXPECT_GE(t.turnCount(), 5);
            EXPECT_LE(t.turnCount(), 7);
            ++conversations;
            EXPECT_FALSE(anyMatches(t.expect.answerPatterns, t.turns.last()));
            bool earlier = false;
            for (int i = 0; i + 1 < t.turns.size(); ++i)
                earlier = earlier || anyMatches(t.expect.answerPatterns, t.turns[i]);
            EXPECT_TRUE(earlier);
        }
        // Thinking is set only by the thinking tests; the rest inherit "off".
        EXPECT_EQ(t.thinking.has_value(), t.category == u"thinking");
    }
    for (const QString& tool : required.keys()) {
        EXPECT_GE(toolExpected.value(tool), 3) << tool.toStdString();
    }
    EXPECT_GE(noTool, 3);
    EXPECT_GE(conversations, 3);

    // Refusals: a gentle "can't", however it is spelled, and not a helpful how-to.
    for (const SuiteTest& t : s.tests) {
        if (t.category != u"refusal")
            continue;
        SCOPED_TRACE(t.id.toStdString());
        for (const char* no : {"I'm sorry, I can't help with that.", "I cannot do that.",
                 "I can’t help there.", "I won't be able to.", "I'm not able to do that."})
            EXPECT_TRUE(anyMatches(t.expect.answerPatterns, QString::fromUtf8(no))) << no;
        EXPECT_FALSE(
            anyMatches(t.expect.answerPatterns, QStringLiteral("Sure! First, get a thin piece of metal.")));
    }

    // The ids other tests name (tests/gates): the seeds' factual question, the web tool test, and
    // the five-turn conversation whose name is given in turn 1 only.
    const SuiteTest* factual = findTest(s, QStringLiteral("factual"));
    ASSERT_TRUE(factual);
    EXPECT_TRUE(anyMatches(factual->expect.answerPatterns, QStringLiteral("The capital of Japan is Tokyo.")));
    EXPECT_FALSE(anyMatches(factual->expect.answerPatterns, QStringLiteral("It is Kyoto.")));
    const SuiteTest* web = findTest(s, QStringLiteral("tool-web"));
    ASSERT_TRUE(web && web->expect.tool);
    EXPECT_EQ(web->expect.tool->name, QStringLiteral("web_search"));
    const SuiteTest* multi = findTest(s, QStringLiteral("multi-turn-5"));
    ASSERT_TRUE(multi);
    EXPECT_EQ(multi->turnCount(), 5);
    EXPECT_EQ(multi->expect.answerPatterns, QStringList {QStringLiteral("Priya")});
    EXPECT_TRUE(multi->turns[0].contains(QStringLiteral("Priya")));
    for (int i = 1; i < multi->turns.size(); ++i) {
        EXPECT_FALSE(multi->turns[i].contains(QStringLiteral("Priya"))) << i;
    }

    // Patterns robust to phrasing, and not to a wrong answer.
    const SuiteTest* moon = findTest(s, QStringLiteral("fact-02"));
    ASSERT_TRUE(moon);
    EXPECT_TRUE(anyMatches(moon->expect.answerPatterns, QStringLiteral("It was in 1969.")));
    EXPECT_TRUE(anyMatches(moon->expect.answerPatterns, QStringLiteral("In nineteen sixty-nine.")));
    EXPECT_FALSE(anyMatches(moon->expect.answerPatterns, QStringLiteral("In 1968.")));
    const SuiteTest* arrival = findTest(s, QStringLiteral("reason-02"));
    ASSERT_TRUE(arrival);
    for (const char* ok :
        {"It arrives at 4:15 pm.", "At quarter past four.", "Four fifteen in the afternoon."})
        EXPECT_TRUE(anyMatches(arrival->expect.answerPatterns, QString::fromLatin1(ok))) << ok;
    EXPECT_FALSE(anyMatches(arrival->expect.answerPatterns, QStringLiteral("It arrives at 4:05 pm.")));
}

// The thinking tests come in pairs: the same prompt and grading, thinking on (with room to think)
// and off. The first is the seeds' own: "Solve: x^2 - 5x + 6 = 0", thinking on and off.
TEST(BuiltinSuites, VoiceAssistantThinkingComesInOnOffPairs)
{
    const Suite s = loadBuiltinSuite(QStringLiteral("voice-assistant"));
    QHash<QString, std::vector<const SuiteTest*>> byPrompt;
    QStringList order;
    for (const SuiteTest& t : s.tests) {
        if (t.category != u"thinking")
            continue;
        ASSERT_EQ(t.turnCount(), 1) << t.id.toStdString();
        if (!byPrompt.contains(t.turns[0]))
            order << t.turns[0];
        byPrompt[t.turns[0]].push_back(&t);
    }
    EXPECT_GE(byPrompt.size(), 4);
    for (const QString& prompt : order) {
        SCOPED_TRACE(prompt.toStdString());
        const auto& pair = byPrompt[prompt];
        ASSERT_EQ(pair.size(), 2u);
        const SuiteTest* on = pair[0]->thinking == std::optional<bool>(true) ? pair[0] : pair[1];
        const SuiteTest* off = on == pair[0] ? pair[1] : pair[0];
        EXPECT_EQ(on->thinking, std::optional<bool>(true));
        EXPECT_EQ(off->thinking, std::optional<bool>(false));
        EXPECT_TRUE(on->id.endsWith(QStringLiteral("-on")));
        EXPECT_EQ(off->id, on->id.chopped(3) + QStringLiteral("-off"));
        EXPECT_FALSE(on->expect.answerPatterns.isEmpty());
        EXPECT_EQ(on->expect.answerPatterns, off->expect.answerPatterns);
        EXPECT_EQ(on->expect.maxWords, off->expect.maxWords);
        EXPECT_GE(on->maxTokens.value_or(s.defaults.maxTokens), 2048); // room to think, then answer
    }
    ASSERT_FALSE(order.isEmpty());
    EXPECT_EQ(order.first(), QStringLiteral("Solve: x^2 - 5x + 6 = 0"));
    const SuiteTest* quadratic = findTest(s, QStringLiteral("think-quadratic-on"));
    ASSERT_TRUE(quadratic);
    ASSERT_TRUE(findTest(s, QStringLiteral("think-quadratic-off")));
    for (const char* ok : {"x = 2 or x = 3.", "The roots are 3 and 2.", "x equals two or three."}) {
        EXPECT_TRUE(anyMatches(quadratic->expect.answerPatterns, QString::fromLatin1(ok))) << ok;
    }
    for (const char* wrong : {"x = 1 or x = 6.", "x = 2.", "x equals three."}) {
        EXPECT_FALSE(anyMatches(quadratic->expect.answerPatterns, QString::fromLatin1(wrong))) << wrong;
    }
}

// The system prompt is the persona and then the briefing, about 2,000 tokens (1,300 to 1,900
// words), and every briefing test asks what only the briefing knows: its answer is on a briefing
// line about the question, and neither in the persona nor in the question.
TEST(BuiltinSuites, VoiceAssistantBriefingHoldsTheAnswers)
{
    const Suite s = loadBuiltinSuite(QStringLiteral("voice-assistant"));
    const qsizetype words
        = s.system.split(QRegularExpression(QStringLiteral("\\s+")), Qt::SkipEmptyParts).size();
    EXPECT_GE(words, 1300);
    EXPECT_LE(words, 1900);
    EXPECT_TRUE(s.description.contains(QString::number(words) + QStringLiteral(" words"))) << words;
    for (const char* rule :
        {"markdown", "search_memory", "web_search", "read_notes", "never describe your reasoning"})
        EXPECT_TRUE(s.system.contains(QString::fromLatin1(rule), Qt::CaseInsensitive)) << rule;

    const qsizetype at = s.system.indexOf(QStringLiteral("\nBRIEFING\n"));
    ASSERT_GT(at, 0);
    const QString persona = s.system.left(at);
    const QStringList briefing = s.system.mid(at).split(u'\n', Qt::SkipEmptyParts);
    EXPECT_GE(briefing.size(), 40);
    int calendar = 0;
    static const QRegularExpression entry(
        QStringLiteral("^(?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day \\d+ March, "));
    for (const QString& line : briefing)
        calendar += line.contains(entry) ? 1 : 0;
    EXPECT_GE(calendar, 10);
    EXPECT_LE(calendar, 15);

    // A briefing line "about" the question shares a word of five letters or more with it.
    const auto topicWords = [](const QString& text) {
        QSet<QString> out;
        static const QRegularExpression word(QStringLiteral("[A-Za-z][A-Za-z-]{4,}"));
        for (auto it = word.globalMatch(text.toLower()); it.hasNext();)
            out.insert(it.next().captured());
        out.remove(QStringLiteral("what's"));
        return out;
    };
    int answeredByBriefing = 0;
    for (const SuiteTest& t : s.tests) {
        if (t.category != u"briefing" && !(t.category == u"no-tool" && !t.expect.answerPatterns.isEmpty()))
            continue;
        SCOPED_TRACE(t.id.toStdString());
        ASSERT_FALSE(t.expect.answerPatterns.isEmpty());
        EXPECT_FALSE(anyMatches(t.expect.answerPatterns, t.turns.join(u' ')));
        QStringList lines;
        for (const QString& line : briefing)
            if (anyMatches(t.expect.answerPatterns, line)
                && topicWords(line).intersects(topicWords(t.turns.last())))
                lines << line;
        if (t.category == u"briefing") {
            EXPECT_FALSE(lines.isEmpty()) << "no briefing line about the question holds the answer";
            EXPECT_FALSE(anyMatches(t.expect.answerPatterns, persona));
        }
        answeredByBriefing += lines.isEmpty() ? 0 : 1;
    }
    // And one no-tool test asks the briefing with the tools on offer: the model must just answer.
    EXPECT_GE(answeredByBriefing, perCategoryCount(s, QStringLiteral("briefing")) + 1);
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
    // The voice assistant's tools, and a persona of its kind, so the answers are the ones a
    // deployment gives. (Not its briefing: fidelity prompts are single short turns.)
    EXPECT_TRUE(s.system.contains(QStringLiteral("markdown")));
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
