// SPDX-License-Identifier: MIT
#include "model/gates/GateFamilies.h"
#include "model/gates/GateText.h"

#include <algorithm>
#include <optional>
#include <utility>

namespace qs::gates {

namespace {

// [begin, end) of the first match in `text`, or nullopt.
std::optional<std::pair<int, int>> findAnswer(const Rules::AnswerPattern& p, const QString& text)
{
    if (p.regex) {
        const auto m = p.regex->match(text);
        if (m.hasMatch())
            return std::pair {int(m.capturedStart()), int(m.capturedEnd())};
        return std::nullopt;
    }
    if (p.text.size() >= 2 && p.text.startsWith(u'/') && p.text.endsWith(u'/'))
        return std::nullopt; // an invalid expression (the loader refuses those) never matches
    const qsizetype at = text.indexOf(p.text, 0, Qt::CaseInsensitive);
    if (at < 0)
        return std::nullopt;
    return std::pair {int(at), int(at + p.text.size())};
}

} // namespace

GateResult expectedAnswer(const GateContext& c)
{
    const QStringList& patterns = c.test.expect.answerPatterns;
    if (patterns.isEmpty())
        return result(kExpectedAnswer, GateVerdict::NotApplicable, QStringLiteral("no expected answer"));
    if (!c.expectationsApply())
        return result(kExpectedAnswer, GateVerdict::NotApplicable,
            QStringLiteral("expectations apply to the last turn"));

    // Compiled by gatePatternsFor for the suite's own tests; a test built elsewhere compiles here.
    const auto cached = c.rules.answers.find(c.test.id);
    const bool usable = cached != c.rules.answers.end() && int(cached->second.size()) == patterns.size()
        && std::equal(cached->second.begin(), cached->second.end(), patterns.begin(),
            [](const Rules::AnswerPattern& a, const QString& b) { return a.text == b; });
    const std::vector<Rules::AnswerPattern> compiled = usable ? cached->second : compileAnswers(patterns);
    for (const auto& p : compiled)
        if (const auto at = findAnswer(p, c.visible)) {
            GateResult out = result(kExpectedAnswer, GateVerdict::Pass,
                QStringLiteral("found \"")
                    + excerpt(QStringView(c.visible).sliced(at->first, at->second - at->first))
                    + QStringLiteral("\" at ")
                    + span(c.visibleStart + at->first, c.visibleStart + at->second));
            out.ranges.push_back({c.visibleStart + at->first, c.visibleStart + at->second, kContent, p.text});
            return out;
        }

    GateResult out = result(kExpectedAnswer, GateVerdict::Fail,
        QStringLiteral("expected ") + patterns.join(QStringLiteral(" or "))
            + (hasNonSpace(c.visible) ? QStringLiteral(", not found")
                                      : QStringLiteral("; no visible answer")));
    // Said only while thinking? Worth knowing: the knowledge is there, the answer is not.
    const QString hidden = c.content.left(c.visibleStart);
    for (const auto& p : compiled) {
        if (const auto at = findAnswer(p, hidden)) {
            out.reason += QStringLiteral(" (only in the leaked thinking)");
            out.ranges.push_back({at->first, at->second, kContent, QStringLiteral("only_in_thinking")});
            break;
        }
        if (const auto at = findAnswer(p, c.record.response.reasoning)) {
            out.reason += QStringLiteral(" (only in the reasoning)");
            out.ranges.push_back({at->first, at->second, kReasoning, QStringLiteral("only_in_reasoning")});
            break;
        }
    }
    return out;
}

} // namespace qs::gates
