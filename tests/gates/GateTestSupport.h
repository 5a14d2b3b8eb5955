// SPDX-License-Identifier: MIT
#pragma once

#include "model/core/Suite.h"
#include "model/gates/QualityGates.h"

#include <QString>
#include <gtest/gtest.h>
#include <ostream>

QT_BEGIN_NAMESPACE
inline void PrintTo(const QString& s, std::ostream* os)
{
    *os << '"' << s.toStdString() << '"';
}
QT_END_NAMESPACE

namespace qs {
inline void PrintTo(GateVerdict v, std::ostream* os)
{
    *os << gateVerdictId(v).toStdString();
}
} // namespace qs

namespace qs::test {

// The seeds' own examples (docs 003/004 in /work/shared/seeds).
inline const QString seedGarbled = QString::fromUtf8(
    ".isantts     E_OVER\n S copr; '...CSiscoslmogn不辞 продать / '^当 /M刘邦opIS ( S Z-s优化e'");
inline const QString seedGood = QStringLiteral(
    "Tokyo is the capital of Japan. It's a massive metropolis that blends ultramodern skyscrapers with "
    "ancient temples.");
// The v1 leak (no reasoning parser): every response started like this.
inline const QString seedThinkingProcess = QStringLiteral(
    "Thinking Process:\n\n1.  **Analyze the Request:** The user wants the capital of Japan.\n2.  **Determine "
    "the Answer:** Tokyo.\n3.  **Draft the Response:** Keep it warm, concise and natural for voice.\n\nTokyo "
    "is "
    "the capital of Japan.");

inline RequestRecord answer(const QString& content, const QString& reasoning = {})
{
    RequestRecord r;
    r.response.content = content;
    r.response.reasoning = reasoning;
    r.response.finishReason = QStringLiteral("stop");
    return r;
}

inline ToolCall call(const QString& name, const QString& arguments)
{
    ToolCall c;
    c.id = QStringLiteral("call_1");
    c.type = QStringLiteral("function");
    c.name = name;
    c.arguments = arguments;
    return c;
}

inline RequestRecord calling(const ToolCall& c, const QString& content = {})
{
    RequestRecord r = answer(content);
    r.response.toolCalls.push_back(c);
    r.response.finishReason = QStringLiteral("tool_calls");
    return r;
}

/// The built-in voice-assistant suite: its tools, thinking off.
inline const Suite& voiceSuite()
{
    static const Suite suite = loadBuiltinSuite(QStringLiteral("voice-assistant"));
    return suite;
}

inline const GatePatterns& voicePatterns()
{
    static const GatePatterns patterns = gatePatternsFor(voiceSuite());
    return patterns;
}

/// A single-turn test with no expectations (only the generic gates decide).
inline SuiteTest plainTest(const QString& id = QStringLiteral("plain"))
{
    SuiteTest t;
    t.id = id;
    t.name = id;
    t.turns = {QStringLiteral("Hello")};
    return t;
}

inline GateResult gateOf(const std::vector<GateResult>& results, const QString& gate)
{
    for (const GateResult& r : results)
        if (r.gate == gate)
            return r;
    ADD_FAILURE() << "no result for gate " << gate.toStdString();
    return {};
}

/// One gate's result for `record` under the voice-assistant suite (or `suite`).
inline GateResult judge(const QString& gate, const RequestRecord& record, const SuiteTest& test = plainTest(),
    bool finalTurn = true)
{
    return gateOf(evaluateGates(record, voiceSuite(), test, voicePatterns(), finalTurn), gate);
}

inline GateResult judgeWith(const QString& gate, const RequestRecord& record, const Suite& suite,
    const GatePatterns& patterns, const SuiteTest& test = plainTest())
{
    return gateOf(evaluateGates(record, suite, test, patterns), gate);
}

/// The text a range points at.
inline QString rangeText(const RequestRecord& record, const TextRange& range)
{
    const QString& field = range.field == u"reasoning" ? record.response.reasoning : record.response.content;
    return field.mid(range.begin, range.end - range.begin);
}

inline std::string describe(const GateResult& r)
{
    return QString(
        r.gate + QStringLiteral(": ") + gateVerdictId(r.verdict) + QStringLiteral(" — ") + r.reason)
        .toStdString();
}

} // namespace qs::test
