// SPDX-License-Identifier: MIT
// The tool_call gate: every failure class, BFCL-style, and calls leaked into the text.
#include "GateTestSupport.h"

using namespace qs;
using namespace qs::test;

namespace {

const QString kTool = QStringLiteral("tool_call");

SuiteTest expectingTool(const QString& name, const QStringList& required)
{
    SuiteTest t = plainTest(QStringLiteral("tool-web"));
    t.useTools = true;
    t.expect.tool = ExpectedTool {name, required};
    return t;
}

const SuiteTest& webTest()
{
    static const SuiteTest t = expectingTool(QStringLiteral("web_search"), {QStringLiteral("query")});
    return t;
}

GateResult judgeCall(const RequestRecord& rec, const SuiteTest& test = webTest())
{
    return judge(kTool, rec, test);
}

void expectClass(const GateResult& r, const char* failureClass)
{
    EXPECT_TRUE(r.failed()) << describe(r);
    EXPECT_EQ(r.failureClass, QString::fromUtf8(failureClass)) << describe(r);
}

} // namespace

TEST(ToolCall, RightToolWithRequiredArgumentsPasses)
{
    const GateResult r = judgeCall(
        calling(call(QStringLiteral("web_search"), QStringLiteral("{\"query\": \"Lisbon rain\"}"))));
    EXPECT_TRUE(r.passed()) << describe(r);
    EXPECT_EQ(r.reason, QStringLiteral("called web_search with query"));
    EXPECT_TRUE(r.failureClass.isEmpty());
}

TEST(ToolCall, WrongTool)
{
    const GateResult r
        = judgeCall(calling(call(QStringLiteral("read_notes"), QStringLiteral("{\"topic\": \"Lisbon\"}"))));
    expectClass(r, "wrong_tool");
    EXPECT_EQ(r.reason, QStringLiteral("called read_notes, expected web_search"));
}

TEST(ToolCall, MissingArguments)
{
    expectClass(
        judgeCall(calling(call(QStringLiteral("web_search"), QStringLiteral("{}")))), "missing_arguments");
    expectClass(judgeCall(calling(call(QStringLiteral("web_search"), QString()))), "missing_arguments");
    const GateResult r
        = judgeCall(calling(call(QStringLiteral("web_search"), QStringLiteral("{\"query\": \"\"}"))));
    expectClass(r, "missing_arguments");
    EXPECT_EQ(r.reason, QStringLiteral("web_search: missing required argument query"));
}

TEST(ToolCall, InvalidArguments)
{
    expectClass(
        judgeCall(calling(call(QStringLiteral("web_search"), QStringLiteral("{\"query\": \"Lisbon")))),
        "invalid_arguments");
    const GateResult list
        = judgeCall(calling(call(QStringLiteral("web_search"), QStringLiteral("[\"Lisbon\"]"))));
    expectClass(list, "invalid_arguments");
    EXPECT_TRUE(list.reason.contains(QStringLiteral("not an object"))) << list.reason.toStdString();
    // Checked against the suite's schema: web_search.recency is an enum, search_memory.limit an integer.
    const GateResult en = judgeCall(calling(call(
        QStringLiteral("web_search"), QStringLiteral("{\"query\": \"Lisbon\", \"recency\": \"year\"}"))));
    expectClass(en, "invalid_arguments");
    EXPECT_TRUE(en.reason.contains(QStringLiteral("recency"))) << en.reason.toStdString();
    const SuiteTest memory = expectingTool(QStringLiteral("search_memory"), {QStringLiteral("query")});
    const GateResult type = judgeCall(calling(call(QStringLiteral("search_memory"),
                                          QStringLiteral("{\"query\": \"sister\", \"limit\": \"five\"}"))),
        memory);
    expectClass(type, "invalid_arguments");
    EXPECT_EQ(type.reason, QStringLiteral("search_memory: limit should be integer, got string"));
    EXPECT_TRUE(judgeCall(calling(call(QStringLiteral("search_memory"),
                              QStringLiteral("{\"query\": \"sister\", \"limit\": 3}"))),
        memory)
                    .passed());
}

TEST(ToolCall, ShouldHaveCalled)
{
    const GateResult r = judgeCall(
        answer(QStringLiteral("I don't have real-time weather, but a quick search would tell you.")));
    expectClass(r, "should_have_called");
    EXPECT_EQ(r.reason, QStringLiteral("expected a call to web_search; answered in text instead"));
}

TEST(ToolCall, ShouldNotHaveCalled)
{
    SuiteTest noTool = plainTest(QStringLiteral("thanks"));
    noTool.useTools = true;
    noTool.expect.noTool = true;
    expectClass(
        judge(
            kTool, calling(call(QStringLiteral("web_search"), QStringLiteral("{\"query\": \"x\"}"))), noTool),
        "should_not_have_called");
    EXPECT_TRUE(judge(kTool, answer(QStringLiteral("You're welcome!")), noTool).passed());
    // No tools were offered at all, and one was called anyway.
    expectClass(judge(kTool, calling(call(QStringLiteral("web_search"), QStringLiteral("{}")))),
        "should_not_have_called");
}

TEST(ToolCall, SeedCallLeakedIntoTextFailsWithTheWholeCallHighlighted)
{
    // The emulator's sloppy profile, like vLLM without --tool-call-parser.
    const QString leaked = QStringLiteral("<tool_call>\n{\"name\": \"web_search\", \"arguments\": "
                                          "{\"query\": \"Lisbon weather tomorrow\"}}\n</tool_call>");
    const RequestRecord rec = answer(QStringLiteral("Let me check.\n") + leaked);
    const GateResult r = judgeCall(rec);
    expectClass(r, "leaked_into_text");
    EXPECT_TRUE(r.reason.startsWith(QStringLiteral("tool call leaked into text: web_search")))
        << r.reason.toStdString();
    ASSERT_EQ(r.ranges.size(), std::size_t(1));
    EXPECT_EQ(rangeText(rec, r.ranges[0]), leaked);
}

TEST(ToolCall, OtherLeakShapes)
{
    const char* shapes[] = {
        "{\"name\": \"web_search\", \"arguments\": {\"query\": \"rain in Lisbon\"}}",
        "[TOOL_CALLS][{\"name\": \"web_search\", \"arguments\": {\"query\": \"Lisbon\"}}]",
        "<|python_tag|>{\"name\": \"web_search\", \"parameters\": {\"query\": \"Lisbon\"}}",
        "web_search(query=\"Lisbon weather tomorrow\")",
        ("<tool_call>\n<function=web_search>\n<parameter=query>\nLisbon\n</parameter>\n</function>\n"
         "</tool_call>"),
    };
    for (const char* text : shapes) {
        const GateResult r = judgeCall(answer(QString::fromUtf8(text)));
        expectClass(r, "leaked_into_text");
        EXPECT_TRUE(r.reason.contains(QStringLiteral("web_search")))
            << text << " → " << r.reason.toStdString();
    }
}

TEST(ToolCall, Unparsed)
{
    // Markup that starts a call and never becomes one (cut off, broken JSON).
    expectClass(judgeCall(answer(QStringLiteral(
                    "<tool_call>\n{\"name\": \"web_search\", \"arguments\": {\"query\": \"Lis"))),
        "unparsed");
    // A call on the tool channel that arrived without a name.
    expectClass(judgeCall(calling(call(QString(), QStringLiteral("{\"query\": \"Lisbon\"}")))), "unparsed");
}

TEST(ToolCall, WithoutExpectationsOnlyTextLeaksFail)
{
    SuiteTest open = plainTest();
    open.useTools = true;
    EXPECT_EQ(judge(kTool, answer(QStringLiteral("Hello!")), open).verdict, GateVerdict::NotApplicable);
    EXPECT_EQ(judge(kTool, calling(call(QStringLiteral("web_search"), QStringLiteral("{}"))), open).verdict,
        GateVerdict::NotApplicable);
    expectClass(
        judge(kTool,
            answer(QStringLiteral("<tool_call>{\"name\": \"read_notes\", \"arguments\": {}}</tool_call>")),
            open),
        "leaked_into_text");
    // Prose about a tool is not a call.
    EXPECT_EQ(
        judge(kTool, answer(QStringLiteral("I can use web_search for that if you like.")), open).verdict,
        GateVerdict::NotApplicable);
}

TEST(ToolCall, EarlierTurnsOfAToolTestAreNotJudged)
{
    const GateResult r = judge(kTool, answer(QStringLiteral("Sure, which city?")), webTest(), false);
    EXPECT_EQ(r.verdict, GateVerdict::NotApplicable);
}
