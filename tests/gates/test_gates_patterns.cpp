// SPDX-License-Identifier: MIT
// Gate patterns as data: the built-in file, suite overrides (RFC 7386 merge), refused overrides,
// and applyGates filling a run record.
#include "GateTestSupport.h"
#include "model/core/RunRecord.h"

#include <QFile>

using namespace qs;
using namespace qs::test;
using json = nlohmann::json;

namespace {

Suite suiteWithGates(const json& gates)
{
    json doc = voiceSuite().raw;
    doc["gates"] = gates;
    return parseSuite(doc, QStringLiteral("test.json"));
}

std::string suiteError(const json& gates)
{
    json doc = voiceSuite().raw;
    doc["gates"] = gates;
    try {
        parseSuite(doc, QStringLiteral("test.json"));
    } catch (const SuiteError& e) {
        return e.what();
    }
    ADD_FAILURE() << "accepted: " << gates.dump();
    return {};
}

} // namespace

TEST(GatePatterns, DefaultsAreCompiledIn)
{
    QFile f(QStringLiteral(":/gates/default.json"));
    ASSERT_TRUE(f.open(QIODevice::ReadOnly));
    const GatePatterns p = defaultGatePatterns();
    EXPECT_EQ(p.document()["format"], "quantscope-gate-patterns");
    EXPECT_EQ(p.document(), defaultGatePatternDocument());
    EXPECT_TRUE(p.document()["no_markdown"]["patterns"].contains("bold"));
    // Without a suite there are no tool names, so `web_search(…)` is not recognised, but the
    // rest of the gates work.
    const auto results = evaluateGates(answer(seedGarbled), voiceSuite(), plainTest(), p);
    EXPECT_TRUE(gateOf(results, QStringLiteral("coherent")).failed());
}

TEST(GatePatterns, SuiteOverrideAddsAPattern)
{
    // Emoji are no markdown, but a suite for speech may want them gone too.
    const Suite s = suiteWithGates({{"no_markdown", {{"patterns", {{"emoji", "[\\x{1F300}-\\x{1FAFF}]"}}}}}});
    const GatePatterns p = gatePatternsFor(s);
    const RequestRecord rec = answer(QString::fromUtf8("Have a great day! 😊"));
    const GateResult r = judgeWith(QStringLiteral("no_markdown"), rec, s, p);
    ASSERT_TRUE(r.failed());
    EXPECT_EQ(r.ranges.at(0).what, QStringLiteral("emoji"));
    EXPECT_EQ(rangeText(rec, r.ranges.at(0)), QString::fromUtf8("😊"));
    // Everything else is still the default.
    EXPECT_TRUE(judgeWith(QStringLiteral("no_markdown"), answer(QStringLiteral("**Tokyo**")), s, p).failed());
    EXPECT_TRUE(judge(QStringLiteral("no_markdown"), rec).passed());
}

TEST(GatePatterns, NullSwitchesAPatternOff)
{
    const Suite s = suiteWithGates({{"no_markdown", {{"patterns", {{"bold", nullptr}}}}}});
    const GatePatterns p = gatePatternsFor(s);
    EXPECT_TRUE(judgeWith(QStringLiteral("no_markdown"), answer(QStringLiteral("**Tokyo**")), s, p).passed());
    EXPECT_FALSE(p.document()["no_markdown"]["patterns"].contains("bold"));
    EXPECT_TRUE(judgeWith(QStringLiteral("no_markdown"), answer(QStringLiteral("# Tokyo")), s, p).failed());
}

TEST(GatePatterns, ThresholdsAndWordsAreOverridable)
{
    const RequestRecord haha = answer(QStringLiteral("Ha ha ha ha, that's funny."));
    EXPECT_TRUE(judge(QStringLiteral("coherent"), haha).passed());
    const Suite strict = suiteWithGates({{"coherent", {{"repeat", {{"unigram", 3}}}}}});
    EXPECT_TRUE(judgeWith(QStringLiteral("coherent"), haha, strict, gatePatternsFor(strict)).failed());

    // A suite for another language adds its common words without repeating the defaults.
    const RequestRecord dutchish
        = answer(QStringLiteral("zorgvuldig gekozen woorden blijven prachtig klinken vandaag"));
    EXPECT_TRUE(judge(QStringLiteral("coherent"), dutchish).failed());
    const Suite dutch
        = suiteWithGates({{"coherent", {{"extra_common_words", {"zorgvuldig", "gekozen", "woorden"}}}}});
    EXPECT_TRUE(judgeWith(QStringLiteral("coherent"), dutchish, dutch, gatePatternsFor(dutch)).passed());
}

TEST(GatePatterns, BadOverridesAreRefusedWhenTheSuiteLoads)
{
    EXPECT_EQ(suiteError({{"no_markdown", {{"patterns", {{"bold", "(**"}}}}}}).substr(0, 60),
        "test.json: gates.no_markdown.patterns.bold: is not a valid r");
    EXPECT_TRUE(
        suiteError({{"no_markdwn", {{"patterns", json::object()}}}})
            .starts_with("test.json: gates.no_markdwn: unknown key; expected one of: format, version"));
    EXPECT_EQ(suiteError(json::array()), "test.json: gates: must be an object, found an empty list");
    EXPECT_EQ(suiteError({{"coherent", {{"junk_word_share", 7}}}}),
        "test.json: gates.coherent.junk_word_share: must be from 0.01 to 1");
    EXPECT_EQ(suiteError({{"no_thinking_leak", {{"patterns", {{"anything", "x*"}}}}}}),
        "test.json: gates.no_thinking_leak.patterns.anything: matches empty text, so it would fire on every "
        "answer");
    EXPECT_EQ(suiteError({{"tool_call", {{"patterns", {{"colon", "{tools}:("}}}}}}).substr(0, 57),
        "test.json: gates.tool_call.patterns.colon: is not a valid");
    EXPECT_EQ(suiteError({{"no_markdown", {{"patterns", {{"bold", {{"regex", "\\*\\*"}, {"min", 2}}}}}}}}),
        "test.json: gates.no_markdown.patterns.bold.min: unknown key; expected one of: regex, min_matches");
    EXPECT_TRUE(suiteError({{"coherent", nullptr}}).starts_with("test.json: gates.coherent: is missing"));
}

TEST(GatePatterns, GatePatternsForRefusesAHandBuiltSuite)
{
    Suite s = voiceSuite();
    s.gates = {{"no_markdown", {{"patterns", {{"heading", "[unclosed"}}}}}};
    try {
        (void)gatePatternsFor(s);
        FAIL() << "accepted";
    } catch (const GatePatternError& e) {
        EXPECT_EQ(e.path(), QStringLiteral("gates.no_markdown.patterns.heading"));
        EXPECT_TRUE(e.problem().startsWith(QStringLiteral("is not a valid regular expression")));
        const std::invalid_argument& base = e;
        EXPECT_TRUE(std::string(base.what()).starts_with("gates.no_markdown.patterns.heading: "));
    }
}

// ---- applyGates ---------------------------------------------------------------------------------

namespace {

RunRecord record(const QString& test, const RequestRecord& request)
{
    RunRecord r;
    r.test = test;
    r.request = request;
    return r;
}

} // namespace

TEST(ApplyGates, FillsEveryGateWithTrueFalseOrNull)
{
    RunRecord r
        = record(QStringLiteral("factual"), answer(QStringLiteral("**Tokyo** is the capital of Japan.")));
    applyGates(r, voiceSuite(), voicePatterns());
    ASSERT_EQ(r.gates->size(), std::size_t(8));
    for (const QString& name : gateNames())
        ASSERT_TRUE(r.gates->contains(name.toStdString())) << name.toStdString();
    EXPECT_EQ((*r.gates)["non_empty"], true);
    EXPECT_EQ((*r.gates)["expected_answer"], true);
    EXPECT_EQ((*r.gates)["tool_call"], nullptr);
    EXPECT_EQ((*r.gates)["no_markdown"], false);
    EXPECT_EQ((*r.gates)["no_thinking_leak"], true);
    EXPECT_EQ((*r.gates)["thinking_follows_request"], true); // the voice suite: thinking off, none came
    EXPECT_EQ((*r.gates)["coherent"], true);
    EXPECT_EQ((*r.gates)["within_length"], true);

    const json& md = (*r.gateDetails)["no_markdown"];
    EXPECT_EQ(md["verdict"], "fail");
    EXPECT_EQ(md["reason"], "bold \"**Tokyo**\" at 0–9");
    EXPECT_EQ(md["failure_class"], nullptr);
    EXPECT_EQ(md["ranges"], json::parse(R"([{"field": "content", "begin": 0, "end": 9, "what": "bold"}])"));
    EXPECT_EQ((*r.gateDetails)["tool_call"]["verdict"], "not_applicable");
}

TEST(ApplyGates, ToolFailuresCarryTheirClass)
{
    RunRecord r = record(QStringLiteral("tool-web"),
        answer(QStringLiteral(
            "<tool_call>\n{\"name\": \"web_search\", \"arguments\": {\"query\": \"rain\"}}\n</tool_call>")));
    applyGates(r, voiceSuite(), voicePatterns());
    EXPECT_EQ((*r.gates)["tool_call"], false);
    EXPECT_EQ((*r.gateDetails)["tool_call"]["failure_class"], "leaked_into_text");
    EXPECT_EQ((*r.gates)["non_empty"], true); // something was said, even if it was the wrong thing
}

TEST(ApplyGates, WarmUpsFailuresAndUnknownTestsAreNotJudged)
{
    const auto expectAllNull = [](const RunRecord& r, const char* reasonStart) {
        ASSERT_EQ(r.gates->size(), std::size_t(8));
        for (const auto& [name, value] : r.gates->items()) {
            EXPECT_TRUE(value.is_null()) << name;
            EXPECT_TRUE((*r.gateDetails)[name]["reason"].get<std::string>().starts_with(reasonStart))
                << (*r.gateDetails)[name]["reason"];
        }
    };
    RunRecord warm = record(QStringLiteral("factual"), answer(seedGood));
    warm.warmup = true;
    applyGates(warm, voiceSuite(), voicePatterns());
    expectAllNull(warm, "warm-up");

    RunRecord failed = record(QStringLiteral("tool-web"), answer(QString()));
    failed.request.failure.kind = FailureKind::ToolsNotEnabled;
    applyGates(failed, voiceSuite(), voicePatterns());
    expectAllNull(failed, "request failed (tools_not_enabled)");

    RunRecord unknown = record(QStringLiteral("no-such-test"), answer(seedGood));
    applyGates(unknown, voiceSuite(), voicePatterns());
    expectAllNull(unknown, "test \"no-such-test\" is not in the suite");
}

TEST(ApplyGates, ExpectationsApplyToTheLastTurnOnly)
{
    // multi-turn-5 expects "Priya" in the reply to turn 5.
    RunRecord early = record(QStringLiteral("multi-turn-5"), answer(QStringLiteral("Nice to meet you!")));
    early.turn = 2;
    applyGates(early, voiceSuite(), voicePatterns());
    EXPECT_EQ((*early.gates)["expected_answer"], nullptr);
    EXPECT_EQ((*early.gates)["non_empty"], true);

    RunRecord last = early;
    last.turn = 5;
    applyGates(last, voiceSuite(), voicePatterns());
    EXPECT_EQ((*last.gates)["expected_answer"], false);
    last.request.response.content = QStringLiteral("Your name is Priya.");
    applyGates(last, voiceSuite(), voicePatterns());
    EXPECT_EQ((*last.gates)["expected_answer"], true);
}
