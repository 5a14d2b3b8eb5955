// SPDX-License-Identifier: MIT
#pragma once

#include "model/core/GateRules.h"
#include "model/core/JsonText.h"
#include "model/gates/QualityGates.h"

#include <QRegularExpression>
#include <QString>
#include <QStringView>
#include <string>
#include <vector>

// Internal to model/gates: the text helpers every gate family uses (finding patterns, quoting
// what they found, building a result). Not for callers outside the gates.

namespace qs::gates {

using Rules = GatePatterns::Rules;
using Pattern = Rules::Pattern;

// The gate names, spelled once in core (gate_names, gateNames()).
inline const QString& kNonEmpty = gate_names::nonEmpty;
inline const QString& kExpectedAnswer = gate_names::expectedAnswer;
inline const QString& kToolCall = gate_names::toolCall;
inline const QString& kNoMarkdown = gate_names::noMarkdown;
inline const QString& kNoThinkingLeak = gate_names::noThinkingLeak;
inline const QString& kThinkingFollowsRequest = gate_names::thinkingFollowsRequest;
inline const QString& kCoherent = gate_names::coherent;
inline const QString& kWithinLength = gate_names::withinLength;

inline const QString kContent = QStringLiteral("content");
inline const QString kReasoning = QStringLiteral("reasoning");

// What a bare URL is blanked with: not a letter, not a space, not a symbol any gate looks for.
inline constexpr char16_t maskChar = u'\uE000';

inline constexpr int reasonExamples = 3; // how many findings a reason names before "(+N more)"

using json_text::fromStd;

/// One match in a text: [begin, end) and the pattern or rule that found it.
struct Hit {
    int begin = 0;
    int end = 0;
    QString what;
};

bool hasNonSpace(QStringView text);

/// `text` with every bare URL blanked by maskChar (same length, offsets unchanged).
QString maskUrls(const QString& text, const QRegularExpression& url);

/// Matches of one pattern (none below its minMatches), shifted by `offset`.
std::vector<Hit> findAll(const Pattern& p, const QString& text, int offset);
/// Matches of all patterns, sorted by start (longest first at the same start).
std::vector<Hit> findAll(const std::vector<Pattern>& patterns, const QString& text, int offset);

QString excerpt(QStringView text, int limit = 24); ///< short, one line: what a reason quotes
QString span(int begin, int end); ///< "12–20"
QString describeHits(const std::vector<Hit>& hits, const QString& field); ///< the first few, "(+N more)"
std::vector<TextRange> toRanges(const std::vector<Hit>& hits, const QString& field);

GateResult result(const QString& gate, GateVerdict verdict, const QString& reason);

} // namespace qs::gates
