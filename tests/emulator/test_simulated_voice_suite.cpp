// SPDX-License-Identifier: MIT
// The clean simulated model against the built-in voice-assistant suite: every test's prompt (a
// conversation turn by turn, each reply said back as the runner does) through answerFor, and the
// answer through the quality gates. Every gate must pass or not apply, and every graded test must
// be graded and pass: the proof that the demo's "good" endpoint is good, and that every test of
// the suite can be passed at all.

#include "model/core/GatePatterns.h"
#include "model/core/Suite.h"
#include "model/gates/QualityGates.h"
#include "tests/support/SimulatedModel.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSet>
#include <gtest/gtest.h>
#include <iostream>

using namespace qs;
using namespace qs::emu::detail;

namespace {

const Suite& voiceSuite()
{
    static const Suite suite = loadBuiltinSuite(QStringLiteral("voice-assistant"));
    return suite;
}

QJsonArray toolsOf(const Suite& s)
{
    return QJsonDocument::fromJson(QByteArray::fromStdString(s.tools.dump())).array();
}

QJsonObject message(const char* role, const QString& text)
{
    return {{QStringLiteral("role"), QString::fromLatin1(role)}, {QStringLiteral("content"), text}};
}

bool thinkingOf(const Suite& s, const SuiteTest& t)
{
    return t.thinking.value_or(s.defaults.thinking.value_or(false));
}

// The request as the runner builds it (model/run/Conversation.cpp), as far as the model reads it:
// the system prompt with the warm suite's per-conversation line at its end, the history, the tools
// when the test offers them, the thinking switch and max_tokens.
QJsonObject requestBody(const Suite& s, const SuiteTest& t, const QJsonArray& history, const QString& user)
{
    QJsonArray messages {message("system", s.system + QStringLiteral("\n\nConversation reference: 3fa9c1."))};
    for (const QJsonValue m : history)
        messages.append(m);
    messages.append(message("user", user));
    QJsonObject body {{QStringLiteral("messages"), messages},
        {QStringLiteral("max_tokens"), t.maxTokens.value_or(s.defaults.maxTokens)},
        {QStringLiteral("chat_template_kwargs"),
            QJsonObject {{QStringLiteral("enable_thinking"), thinkingOf(s, t)}}}};
    if (t.useTools)
        body.insert(QStringLiteral("tools"), toolsOf(s));
    return body;
}

// What a clean endpoint sends for the answer: the text, the reasoning when thinking is on (as
// the profiles do), a tool call through the API's channel.
RequestRecord recordOf(const Answer& a, const QJsonObject& body, bool thinking)
{
    RequestRecord r;
    r.requestBody = nlohmann::json::parse(QJsonDocument(body).toJson(QJsonDocument::Compact).toStdString());
    r.response.content = a.toolCall ? QString() : a.text;
    if (thinking)
        r.response.reasoning = a.thought;
    if (a.toolCall) {
        ToolCall call;
        call.id = QStringLiteral("call_1");
        call.type = QStringLiteral("function");
        call.name = a.toolCall->name;
        call.arguments
            = QString::fromUtf8(QJsonDocument(a.toolCall->arguments).toJson(QJsonDocument::Compact));
        r.response.toolCalls.push_back(call);
    }
    r.response.finishReason = a.toolCall ? QStringLiteral("tool_calls") : QStringLiteral("stop");
    return r;
}

// The runner's history after a reply: the user turn, the visible answer with its tool calls, and a
// placeholder result for each call (Quantscope does not execute tools).
void addToHistory(QJsonArray& history, const QString& user, const Answer& a)
{
    history.append(message("user", user));
    QJsonObject assistant = message("assistant", a.toolCall ? QString() : a.text);
    if (a.toolCall) {
        assistant.insert(QStringLiteral("tool_calls"),
            QJsonArray {QJsonObject {{QStringLiteral("id"), QStringLiteral("call_1")},
                {QStringLiteral("type"), QStringLiteral("function")},
                {QStringLiteral("function"),
                    QJsonObject {{QStringLiteral("name"), a.toolCall->name},
                        {QStringLiteral("arguments"),
                            QString::fromUtf8(
                                QJsonDocument(a.toolCall->arguments).toJson(QJsonDocument::Compact))}}}}});
    }
    history.append(assistant);
    if (a.toolCall)
        history.append(QJsonObject {{QStringLiteral("role"), QStringLiteral("tool")},
            {QStringLiteral("tool_call_id"), QStringLiteral("call_1")},
            {QStringLiteral("content"),
                QStringLiteral("{\"note\": \"tool results are not executed by the benchmark\"}")}});
}

QString verdicts(const std::vector<GateResult>& results)
{
    QStringList out;
    for (const GateResult& g : results)
        out << g.gate + u'=' + gateVerdictId(g.verdict) + (g.reason.isEmpty() ? QString() : u' ' + g.reason);
    return out.join(QStringLiteral("; "));
}

const GateResult* gate(const std::vector<GateResult>& results, const char* name)
{
    for (const GateResult& g : results)
        if (g.gate == QLatin1String(name))
            return &g;
    return nullptr;
}

} // namespace

TEST(SimulatedVoiceSuite, TheCleanModelPassesEveryGateOfEveryTest)
{
    const Suite& s = voiceSuite();
    const GatePatterns patterns = gatePatternsFor(s);
    int graded = 0;
    int requests = 0;
    for (const SuiteTest& t : s.tests) {
        SCOPED_TRACE(t.id.toStdString());
        ASSERT_TRUE(t.messages.is_null()) << "explicit messages are not simulated here";
        QJsonArray history;
        const bool thinking = thinkingOf(s, t);
        for (int turn = 0; turn < t.turns.size(); ++turn) {
            const bool last = turn + 1 == t.turns.size();
            const QJsonObject body = requestBody(s, t, history, t.turns[turn]);
            const Answer a = answerFor(readConversation(body), quint64(turn));
            const std::vector<GateResult> results
                = evaluateGates(recordOf(a, body, thinking), s, t, patterns, last);
            ++requests;
            const QString said = a.toolCall ? QStringLiteral("[") + a.toolCall->name + QStringLiteral("] ")
                    + QString::fromUtf8(QJsonDocument(a.toolCall->arguments).toJson(QJsonDocument::Compact))
                                            : a.text;
            for (const GateResult& g : results) {
                EXPECT_NE(g.verdict, GateVerdict::Fail)
                    << "turn " << turn + 1 << ": " << g.gate.toStdString() << ": " << g.reason.toStdString()
                    << "\n  prompt: " << t.turns[turn].toStdString() << "\n  answer: " << said.toStdString();
            }
            if (last) {
                const bool expectsAnswer = !t.expect.answerPatterns.isEmpty();
                graded += expectsAnswer || t.expect.tool || t.expect.noTool ? 1 : 0;
                if (expectsAnswer) {
                    EXPECT_EQ(gate(results, "expected_answer")->verdict, GateVerdict::Pass)
                        << verdicts(results).toStdString();
                }
                if (t.expect.tool || t.expect.noTool) {
                    EXPECT_EQ(gate(results, "tool_call")->verdict, GateVerdict::Pass)
                        << verdicts(results).toStdString();
                }
                if (t.expect.maxWords || t.expect.maxSentences) {
                    EXPECT_EQ(gate(results, "within_length")->verdict, GateVerdict::Pass)
                        << verdicts(results).toStdString();
                }
            }
            if (qEnvironmentVariableIsSet("QS_PRINT_SIMULATED"))
                std::cout << t.id.toStdString() << " #" << turn + 1 << ": " << said.toStdString() << '\n';
            addToHistory(history, t.turns[turn], a);
        }
    }
    std::cout << "voice-assistant on the clean simulated model: " << s.tests.size() << " tests, " << requests
              << " requests, " << graded << " graded\n";
    EXPECT_GE(graded, 40);
}

// Not only passing: the answers differ where the prompts do, tool calls carry the argument the
// schema requires, and the thinking tests reason when asked to.
TEST(SimulatedVoiceSuite, AnswersAreSpecificToolCallsCompleteAndThinkingVisible)
{
    const Suite& s = voiceSuite();
    QSet<QString> texts;
    int singleTurn = 0;
    for (const SuiteTest& t : s.tests) {
        if (t.turns.size() != 1)
            continue;
        SCOPED_TRACE(t.id.toStdString());
        const QJsonObject body = requestBody(s, t, {}, t.turns[0]);
        const Conversation c = readConversation(body);
        EXPECT_TRUE(c.system.startsWith(s.system)); // the model can read the briefing
        const Answer a = answerFor(c, 0);
        if (t.expect.tool) {
            ASSERT_TRUE(a.toolCall);
            EXPECT_EQ(a.toolCall->name, t.expect.tool->name);
            for (const QString& key : t.expect.tool->requiredArguments) {
                EXPECT_FALSE(a.toolCall->arguments.value(key).toString().trimmed().isEmpty())
                    << key.toStdString();
            }
            continue;
        }
        EXPECT_FALSE(a.toolCall) << a.toolCall->name.toStdString();
        EXPECT_NE(a.intent, Intent::Generic) << "no specific answer for: " << t.turns[0].toStdString();
        if (t.thinking.value_or(false)) {
            EXPECT_GE(a.thought.split(u' ', Qt::SkipEmptyParts).size(), 12) << a.thought.toStdString();
        }
        if (t.category == u"conversational" || t.category == u"long") {
            EXPECT_GE(a.text.split(u' ', Qt::SkipEmptyParts).size(), 90) << a.text.toStdString();
        }
        texts.insert(a.text);
        ++singleTurn;
    }
    // Thinking pairs share a prompt, and so an answer.
    int pairs = 0;
    for (const SuiteTest& t : s.tests)
        pairs += t.thinking.value_or(false) ? 1 : 0;
    EXPECT_EQ(texts.size(), qsizetype(singleTurn - pairs));
}
