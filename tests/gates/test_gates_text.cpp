// SPDX-License-Identifier: MIT
// The text gates (non_empty, expected_answer, no_markdown, no_thinking_leak, coherent,
// within_length) on the seeds' own examples and on clean counter-examples.
#include "GateTestSupport.h"

#include <QDateTime>

using namespace qs;
using namespace qs::test;

namespace {

const QString kNonEmpty = QStringLiteral("non_empty");
const QString kAnswer = QStringLiteral("expected_answer");
const QString kMarkdown = QStringLiteral("no_markdown");
const QString kThinking = QStringLiteral("no_thinking_leak");
const QString kCoherent = QStringLiteral("coherent");
const QString kLength = QStringLiteral("within_length");

SuiteTest expecting(const QStringList& patterns)
{
    SuiteTest t = plainTest(QStringLiteral("factual"));
    t.expect.answerPatterns = patterns;
    return t;
}

SuiteTest lengthTest(std::optional<int> words, std::optional<int> sentences)
{
    SuiteTest t = plainTest(QStringLiteral("short"));
    t.expect.maxWords = words;
    t.expect.maxSentences = sentences;
    return t;
}

bool hasRange(const GateResult& r, const RequestRecord& rec, const QString& what, const QString& text)
{
    return std::any_of(r.ranges.begin(), r.ranges.end(),
        [&](const TextRange& range) { return range.what == what && rangeText(rec, range) == text; });
}

} // namespace

TEST(Gates, NamesInReportOrder)
{
    EXPECT_EQ(gateNames(),
        (QStringList {QStringLiteral("non_empty"), QStringLiteral("expected_answer"),
            QStringLiteral("tool_call"), QStringLiteral("no_markdown"), QStringLiteral("no_thinking_leak"),
            QStringLiteral("thinking_follows_request"), QStringLiteral("coherent"),
            QStringLiteral("within_length")}));
    const auto results = evaluateGates(answer(seedGood), voiceSuite(), plainTest(), voicePatterns());
    ASSERT_EQ(results.size(), std::size_t(8));
    for (std::size_t i = 0; i < results.size(); ++i)
        EXPECT_EQ(results[i].gate, gateNames()[qsizetype(i)]);
}

// ---- non_empty --------------------------------------------------------------------------------

TEST(NonEmpty, VisibleAnswerOrToolCallPasses)
{
    EXPECT_TRUE(judge(kNonEmpty, answer(seedGood)).passed());
    EXPECT_TRUE(judge(kNonEmpty, calling(call(QStringLiteral("web_search"), QStringLiteral("{}")))).passed());
}

TEST(NonEmpty, NothingVisibleFailsAndSaysWhy)
{
    EXPECT_TRUE(judge(kNonEmpty, answer(QString())).failed());
    EXPECT_TRUE(judge(kNonEmpty, answer(QStringLiteral(" \n\t "))).failed());

    // The seeds' v2: the budget went to reasoning, zero visible tokens.
    RequestRecord v2 = answer(QString(), QStringLiteral("The user asks about rainbows. Refraction…"));
    v2.response.finishReason = QStringLiteral("length");
    const GateResult r = judge(kNonEmpty, v2);
    EXPECT_TRUE(r.failed());
    EXPECT_TRUE(r.reason.contains(QStringLiteral("reasoning"))) << r.reason.toStdString();
    EXPECT_TRUE(r.reason.contains(QStringLiteral("max_tokens"))) << r.reason.toStdString();

    const GateResult unclosed
        = judge(kNonEmpty, answer(QStringLiteral("<think>\nThe user wants rainbows, so")));
    EXPECT_TRUE(unclosed.failed());
    EXPECT_TRUE(unclosed.reason.contains(QStringLiteral("never closed"))) << unclosed.reason.toStdString();

    const GateResult onlyThinking = judge(kNonEmpty, answer(QStringLiteral("<think>Tokyo.</think>\n\n")));
    EXPECT_TRUE(onlyThinking.failed());
    EXPECT_TRUE(onlyThinking.reason.contains(QStringLiteral("only thinking")));
}

// ---- expected_answer --------------------------------------------------------------------------

TEST(ExpectedAnswer, SubstringIsCaseInsensitiveAndPointsAtTheMatch)
{
    const RequestRecord rec = answer(QStringLiteral("Sure! The capital is TOKYO."));
    const GateResult r = judge(kAnswer, rec, expecting({QStringLiteral("Tokyo")}));
    ASSERT_TRUE(r.passed()) << describe(r);
    ASSERT_EQ(r.ranges.size(), std::size_t(1));
    EXPECT_EQ(rangeText(rec, r.ranges[0]), QStringLiteral("TOKYO"));
}

TEST(ExpectedAnswer, RegexPatternsUseWordBoundaries)
{
    const SuiteTest t = expecting({QStringLiteral("/\\b15\\b/"), QStringLiteral("fifteen")});
    EXPECT_TRUE(judge(kAnswer, answer(QStringLiteral("That makes 15 balls.")), t).passed());
    EXPECT_TRUE(judge(kAnswer, answer(QStringLiteral("Fifteen balls in all.")), t).passed());
    const GateResult r = judge(kAnswer, answer(QStringLiteral("That makes 150 balls.")), t);
    EXPECT_TRUE(r.failed());
    EXPECT_EQ(r.reason, QStringLiteral("expected /\\b15\\b/ or fifteen, not found"));
}

TEST(ExpectedAnswer, SeedGarbleFailsAndLeakedThinkingDoesNotCount)
{
    const SuiteTest t = expecting({QStringLiteral("Tokyo")});
    EXPECT_TRUE(judge(kAnswer, answer(seedGarbled), t).failed());
    // Said only inside <think>: the knowledge is there, the answer is not.
    const GateResult r
        = judge(kAnswer, answer(QStringLiteral("<think>It is Tokyo.</think>I'm not sure.")), t);
    EXPECT_TRUE(r.failed());
    EXPECT_TRUE(r.reason.contains(QStringLiteral("only in the leaked thinking"))) << r.reason.toStdString();
}

TEST(ExpectedAnswer, NotApplicableWithoutPatternsOrBeforeTheLastTurn)
{
    EXPECT_EQ(judge(kAnswer, answer(seedGood)).verdict, GateVerdict::NotApplicable);
    const GateResult r = judge(kAnswer, answer(seedGood), expecting({QStringLiteral("Priya")}), false);
    EXPECT_EQ(r.verdict, GateVerdict::NotApplicable);
    EXPECT_TRUE(r.reason.contains(QStringLiteral("last turn")));
}

// ---- no_markdown ------------------------------------------------------------------------------

TEST(NoMarkdown, SeedShapesFailWithRanges)
{
    // What NVFP4 did to voice answers: bold key facts, a heading, a bullet list.
    const RequestRecord bold = answer(QStringLiteral("**Tokyo** is the capital of Japan."));
    const GateResult b = judge(kMarkdown, bold);
    ASSERT_TRUE(b.failed());
    EXPECT_TRUE(hasRange(b, bold, QStringLiteral("bold"), QStringLiteral("**Tokyo**")));
    EXPECT_EQ(b.reason, QStringLiteral("bold \"**Tokyo**\" at 0–9"));

    const RequestRecord heading = answer(QStringLiteral("### Overview\n\nRainbows form when light bends."));
    const GateResult h = judge(kMarkdown, heading);
    ASSERT_TRUE(h.failed());
    // The markup only, not the heading's first letter (issue #26: the highlight covered "### O").
    EXPECT_TRUE(hasRange(h, heading, QStringLiteral("heading"), QStringLiteral("### ")));

    const RequestRecord bullets = answer(QStringLiteral("Try this.\n\n- Take a walk.\n- Call a friend."));
    const GateResult l = judge(kMarkdown, bullets);
    ASSERT_TRUE(l.failed());
    EXPECT_EQ(std::count_if(
                  l.ranges.begin(), l.ranges.end(), [](const TextRange& r) { return r.what == u"bullet"; }),
        2);
    EXPECT_TRUE(hasRange(l, bullets, QStringLiteral("bullet"), QStringLiteral("- ")));
}

TEST(NoMarkdown, EveryKindIsRecognised)
{
    const std::pair<const char*, const char*> cases[] = {
        {"1. Unplug it.\n2. Wait.\n3. Plug it in.", "numbered_list"},
        {"That's a *really* good question.", "italic"},
        {"It's _the_ place to be.", "italic_underscore"},
        {"Remember: __never__ do that.", "bold_underscore"},
        {"Run `pip install requests` first.", "inline_code"},
        {"```\nprint(1)\n```", "code_fence"},
        {"| City | Country |\n|---|---|\n| Tokyo | Japan |", "table_separator"},
        {"See [Wikipedia](https://en.wikipedia.org/wiki/Tokyo).", "link"},
        {"![rainbow](https://example.com/r.png)", "link"},
        {"> Fear itself.\n\nRoosevelt said that.", "block_quote"},
        {"Tokyo.\n\n---\n\nAnything else?", "horizontal_rule"},
        {"On ~~Tuesday~~ Wednesday.", "strikethrough"},
        {"Tokyo<br>Japan", "html_tag"},
    };
    for (const auto& [text, what] : cases) {
        const RequestRecord rec = answer(QString::fromUtf8(text));
        const GateResult r = judge(kMarkdown, rec);
        EXPECT_TRUE(r.failed()) << text;
        EXPECT_TRUE(std::any_of(r.ranges.begin(), r.ranges.end(),
            [&](const TextRange& range) { return range.what == QString::fromUtf8(what); }))
            << text << " → " << r.reason.toStdString();
    }
}

TEST(NoMarkdown, PlainProseIsNotFooled)
{
    const char* clean[] = {
        "It's a well-known trick - and it works - for falling asleep.",
        "Three times five: 3*5 is 15, and 2*3=6.",
        "A good rule, e.g. for houseplants, is to water weekly; i.e. not daily.",
        "It's 10:30, so you've got time before the 11:00 call.",
        "In Python a name like user_name is written in snake_case.",
        "The article is at https://en.wikipedia.org/wiki/Ada_Lovelace if you want more.",
        "The U.S. has fifty states, said Dr. Smith at St. Mary's.",
        "Multiply 7 * 8 and you get 56.",
        "He's ranked #1 in the world, and C# is a language.",
        "15. That's how many balls you have.",
        "Tokyo - it's been the capital since 1868.",
        "The shop is open 9–5 on weekdays — and 10–4 on Saturdays.",
    };
    for (const char* text : clean) {
        const GateResult r = judge(kMarkdown, answer(QString::fromUtf8(text)));
        EXPECT_TRUE(r.passed()) << text << " → " << r.reason.toStdString();
    }
}

TEST(NoMarkdown, RangesIndexTheWholeContentAfterLeakedThinking)
{
    const RequestRecord rec = answer(QStringLiteral("<think>plan</think>\n\n**Tokyo** is the capital."));
    const GateResult r = judge(kMarkdown, rec);
    ASSERT_TRUE(r.failed());
    ASSERT_FALSE(r.ranges.empty());
    EXPECT_EQ(r.ranges[0].field, QStringLiteral("content"));
    EXPECT_EQ(rangeText(rec, r.ranges[0]), QStringLiteral("**Tokyo**"));
    EXPECT_EQ(r.ranges[0].begin, 21);
}

// ---- no_thinking_leak -------------------------------------------------------------------------

TEST(NoThinkingLeak, SeedThinkingProcessFails)
{
    const RequestRecord rec = answer(seedThinkingProcess);
    const GateResult r = judge(kThinking, rec);
    ASSERT_TRUE(r.failed());
    EXPECT_TRUE(hasRange(r, rec, QStringLiteral("thinking_process"), QStringLiteral("Thinking Process:")));
    EXPECT_TRUE(
        hasRange(r, rec, QStringLiteral("scaffold_heading"), QStringLiteral("**Analyze the Request")));
    EXPECT_TRUE(r.reason.startsWith(QStringLiteral("thinking_process \"Thinking Process:\" at 0–17")))
        << r.reason.toStdString();
    // It is markdown too (bold and a numbered list), and both gates say so.
    EXPECT_TRUE(judge(kMarkdown, rec).failed());
}

TEST(NoThinkingLeak, ScaffoldHeadingAloneFails)
{
    EXPECT_TRUE(
        judge(kThinking, answer(QStringLiteral("**Analyze the Request:** A greeting.\n\nHello!"))).failed());
}

TEST(NoThinkingLeak, ThinkTagsAndStrayHalves)
{
    const RequestRecord block = answer(QStringLiteral("<think>\nThe user wants Tokyo.\n</think>\n\nTokyo."));
    const GateResult b = judge(kThinking, block);
    ASSERT_TRUE(b.failed());
    ASSERT_FALSE(b.ranges.empty());
    EXPECT_EQ(b.ranges[0].what, QStringLiteral("think_block"));
    EXPECT_EQ(rangeText(block, b.ranges[0]), QStringLiteral("<think>\nThe user wants Tokyo.\n</think>"));

    // Qwen3.5 templates open the block in the prompt: only a bare </think> arrives.
    const RequestRecord bare = answer(QStringLiteral("Three boxes of five.</think>Fifteen balls."));
    const GateResult r = judge(kThinking, bare);
    ASSERT_TRUE(r.failed());
    EXPECT_EQ(rangeText(bare, r.ranges[0]), QStringLiteral("Three boxes of five.</think>"));

    EXPECT_TRUE(judge(kThinking, answer(QStringLiteral("Tokyo is the capital.</think>"))).failed());
    EXPECT_TRUE(judge(kThinking, answer(QStringLiteral("Sure! <think> Tokyo."))).failed());
    EXPECT_TRUE(judge(kThinking, answer(QStringLiteral("<think>never closed"))).failed());
}

TEST(NoThinkingLeak, ReasoningFieldCountsOnlyWhenThinkingWasOff)
{
    const RequestRecord rec = answer(QStringLiteral("Tokyo."), QStringLiteral("The user wants the capital."));
    // voice-assistant: thinking false.
    const GateResult off = judge(kThinking, rec);
    ASSERT_TRUE(off.failed());
    ASSERT_EQ(off.ranges.size(), std::size_t(1));
    EXPECT_EQ(off.ranges[0].field, QStringLiteral("reasoning"));
    EXPECT_EQ(rangeText(rec, off.ranges[0]), QStringLiteral("The user wants the capital."));

    SuiteTest on = plainTest();
    on.thinking = true;
    EXPECT_TRUE(judge(kThinking, rec, on).passed());

    // Unset in the suite: the request body says what was asked.
    Suite unset = voiceSuite();
    unset.defaults.thinking.reset();
    const GatePatterns patterns = gatePatternsFor(unset);
    EXPECT_TRUE(judgeWith(kThinking, rec, unset, patterns).passed());
    RequestRecord asked = rec;
    asked.requestBody = {{"chat_template_kwargs", {{"enable_thinking", false}}}};
    EXPECT_TRUE(judgeWith(kThinking, asked, unset, patterns).failed());
}

TEST(NoThinkingLeak, ProseAboutThinkingPasses)
{
    const char* clean[] = {
        "I think you'll really enjoy that book.",
        "Thinking about it more, the mountains might be more relaxing.",
        "Let me think... yes, the store closes at 9 tonight.",
        "That's a great question to be thinking about.",
        "Some people think better on a walk.",
        "Thinking, Fast and Slow is a book by Daniel Kahneman.",
        "A good app should do what the user expects.",
        "The user manual says to charge it for two hours first.",
        "Analyze the request form carefully before you sign it.",
        "We need to leave by 8 to catch the train.",
    };
    for (const char* text : clean) {
        const GateResult r = judge(kThinking, answer(QString::fromUtf8(text)));
        EXPECT_TRUE(r.passed()) << text << " → " << r.reason.toStdString();
    }
}

// ---- coherent ---------------------------------------------------------------------------------

TEST(Coherent, SeedGarbleFails)
{
    const RequestRecord rec = answer(seedGarbled);
    const GateResult r = judge(kCoherent, rec);
    ASSERT_TRUE(r.failed());
    EXPECT_TRUE(r.reason.contains(QStringLiteral("mixing scripts"))) << r.reason.toStdString();
    EXPECT_TRUE(hasRange(r, rec, QStringLiteral("mixed_script"), QString::fromUtf8("M刘邦opIS")));
    EXPECT_TRUE(hasRange(r, rec, QStringLiteral("mixed_script"), QString::fromUtf8("CSiscoslmogn不辞")));
    // The seed's good answer passes.
    EXPECT_TRUE(judge(kCoherent, answer(seedGood)).passed());
}

TEST(Coherent, SeedGarbleWithoutTheForeignScriptsStillFails)
{
    const GateResult r
        = judge(kCoherent, answer(QStringLiteral("isantts E_OVER S copr CSiscoslmogn opIS S Z-se")));
    EXPECT_TRUE(r.failed());
    EXPECT_TRUE(r.reason.contains(QStringLiteral("are not words"))) << r.reason.toStdString();
}

TEST(Coherent, RepetitionLoopsFail)
{
    const char* loops[] = {
        "the the the the the the the the",
        "is the capital is the capital is the capital is the capital",
        "Tokyo is the capital of Japan. Tokyo is the capital of Japan. Tokyo is the capital of Japan.",
        "!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!",
    };
    for (const char* text : loops) {
        const RequestRecord rec = answer(QString::fromUtf8(text));
        const GateResult r = judge(kCoherent, rec);
        EXPECT_TRUE(r.failed()) << text;
        ASSERT_FALSE(r.ranges.empty()) << text;
        EXPECT_GT(r.ranges[0].end - r.ranges[0].begin, 10) << text;
    }
}

TEST(Coherent, TemplateTokensAndUndecodableBytesFail)
{
    EXPECT_TRUE(judge(kCoherent, answer(QStringLiteral("Tokyo.<|im_end|>\n<|im_start|>user"))).failed());
    EXPECT_TRUE(
        judge(kCoherent, answer(QString::fromUtf8("Tok\xEF\xBF\xBD\xEF\xBF\xBDyo is the capital"))).failed());
}

TEST(Coherent, ForeignWordsNumbersAndShortAnswersPass)
{
    const char* clean[] = {
        "In Japanese, Tokyo is written 東京, which means eastern capital.",
        "Moscow is called Москва in Russian, and it's huge.",
        "Hello is hola in Spanish, bonjour in French, and こんにちは in Japanese.",
        "The area is πr², so about 78.5 square centimetres.",
        "NaCl is table salt, mRNA vaccines work differently, and H2O is water.",
        "Your code is A7-B9-C3, and the Wi-Fi is Home_5G.",
        "用iPhone拍照很方便。",
        "Tokyo.",
        "15.",
        "Ha ha ha, that's a good one!",
        "Breathe in. Breathe out. Breathe in. Breathe out. Breathe in. Breathe out.",
        "Stolicą Japonii jest Tokio, bardzo duże i piękne miasto pełne ludzi.",
        "The longest English word is pneumonoultramicroscopicsilicovolcanoconiosis.",
    };
    for (const char* text : clean) {
        const GateResult r = judge(kCoherent, answer(QString::fromUtf8(text)));
        EXPECT_TRUE(r.passed()) << text << " → " << r.reason.toStdString();
    }
    EXPECT_EQ(judge(kCoherent, answer(QString())).verdict, GateVerdict::NotApplicable);
}

// ---- within_length ----------------------------------------------------------------------------

TEST(WithinLength, WordTargetAndTheRangeOfTheExcess)
{
    const RequestRecord rec = answer(QStringLiteral("One two three four five six."));
    const GateResult r = judge(kLength, rec, lengthTest(4, std::nullopt));
    ASSERT_TRUE(r.failed());
    EXPECT_EQ(r.reason, QStringLiteral("6 words, target ≤ 4"));
    ASSERT_EQ(r.ranges.size(), std::size_t(1));
    EXPECT_EQ(rangeText(rec, r.ranges[0]), QStringLiteral("five six."));
    EXPECT_TRUE(judge(kLength, rec, lengthTest(6, std::nullopt)).passed());
}

TEST(WithinLength, SentencesSkipAbbreviationsAndDecimals)
{
    const RequestRecord rec = answer(
        QStringLiteral("Dr. Patel said the U.S. rate is 3.5 percent, e.g. in May. That's it! Really?"));
    const GateResult r = judge(kLength, rec, lengthTest(std::nullopt, 3));
    EXPECT_TRUE(r.passed()) << describe(r);
    EXPECT_TRUE(r.reason.contains(QStringLiteral("3 sentences"))) << r.reason.toStdString();
    const GateResult over = judge(kLength, rec, lengthTest(std::nullopt, 2));
    ASSERT_TRUE(over.failed());
    EXPECT_EQ(rangeText(rec, over.ranges[0]), QStringLiteral("Really?"));
}

TEST(WithinLength, TruncatedAnswerFailsEvenWithoutATarget)
{
    RequestRecord rec = answer(QStringLiteral("Rainbows form when sunlight enters a raindrop and"));
    rec.response.finishReason = QStringLiteral("length");
    const GateResult r = judge(kLength, rec);
    ASSERT_TRUE(r.failed());
    EXPECT_TRUE(r.reason.startsWith(QStringLiteral("hit max_tokens"))) << r.reason.toStdString();
    EXPECT_EQ(rangeText(rec, r.ranges[0]), QStringLiteral("and"));

    SuiteTest fixed = plainTest();
    fixed.ignoreEos = true; // throughput tests are cut at max_tokens on purpose
    EXPECT_EQ(judge(kLength, rec, fixed).verdict, GateVerdict::NotApplicable);
}

TEST(WithinLength, NotApplicableWithoutTargetOrBeforeTheLastTurn)
{
    EXPECT_EQ(judge(kLength, answer(seedGood)).verdict, GateVerdict::NotApplicable);
    EXPECT_EQ(judge(kLength, answer(seedGood), lengthTest(3, 1), false).verdict, GateVerdict::NotApplicable);
}

// ---- robustness -----------------------------------------------------------------------------

TEST(Gates, LongAndHostileAnswersStayFast)
{
    QString prose;
    while (prose.size() < 60000)
        prose += seedGood + u' ';
    QString nested = QStringLiteral("<tool_call>") + QString(20000, u'[') + QString(20000, u']');
    QString stars;
    for (int i = 0; i < 20000; ++i)
        stars += QStringLiteral("*a ");
    for (const QString& text : {prose, nested, stars, QString(50000, u'*'), seedGarbled.repeated(500)}) {
        const qint64 t0 = QDateTime::currentMSecsSinceEpoch();
        const auto results = evaluateGates(answer(text), voiceSuite(), plainTest(), voicePatterns());
        EXPECT_EQ(results.size(), gateNames().size());
        EXPECT_LT(QDateTime::currentMSecsSinceEpoch() - t0, 3000) << text.left(40).toStdString();
    }
}
