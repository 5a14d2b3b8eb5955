// SPDX-License-Identifier: MIT
#pragma once
// Turning one response into text documents: the gates' character ranges as highlighted spans,
// leaked thinking apart from the answer, tool calls as formatted calls. Free functions over plain
// values, so every rule here is testable without a widget.

#include "model/core/RunRecord.h"
#include "widgets/Theme.h"

#include <QColor>
#include <QString>
#include <optional>
#include <vector>

class QTextCursor;
class QTextCharFormat;
class QTextDocument;

namespace qs {

/// What a highlighted span shows, one kind per gate that points at text.
enum class SpanKind {
    Markdown, ///< markdown syntax (no_markdown)
    Thinking, ///< leaked reasoning (no_thinking_leak)
    ToolText, ///< a tool call written as text (tool_call)
    Incoherent, ///< garbled text (coherent)
    Answer, ///< the expected answer, found (expected_answer)
};

const std::vector<SpanKind>& spanKinds(); ///< in legend order
QString spanGate(SpanKind kind); ///< "no_markdown", …
/// The kind a gate's ranges are shown as; nothing for gates whose ranges are not highlighted
/// (within_length points at whole sentences: its reason says enough).
std::optional<SpanKind> spanKindOfGate(const QString& gate);
QString spanLabel(SpanKind kind); ///< legend text, e.g. "Markdown syntax"
QString spanDescription(SpanKind kind); ///< legend tooltip: what the gate looks for
QColor spanColor(SpanKind kind, Theme theme); ///< a background from themeColors()

/// The text of the last user message of a chat request body (string or text parts): the prompt of
/// a record's turn as it was sent.
QString lastUserMessage(const nlohmann::json& body);

/// `text` as a tooltip that is never read as HTML (QToolTip guesses rich text from the content,
/// and gate reasons quote model output such as "<think>").
QString plainToolTip(const QString& text);

/// One range to highlight, in UTF-16 units of its field.
struct Highlight {
    int begin = 0;
    int end = 0;
    SpanKind kind = SpanKind::Markdown;
    QString what; ///< the pattern or rule that matched, e.g. "bold"
};

/// The highlighted ranges of `field` ("content" or "reasoning") in RunRecord::gateDetails
/// ({gate: {verdict, reason, failure_class, ranges: [{field, begin, end, what}]}}), clipped to
/// [0, fieldLength); empty, malformed and foreign-field ranges are dropped.
std::vector<Highlight> gateHighlights(
    const nlohmann::json& gateDetails, const QString& field, int fieldLength);

/// Inserts text[begin, end) at `cursor` in `format`, with the highlights that touch it as
/// backgrounds (a tooltip names gate and pattern). Where spans overlap the shorter one shows —
/// a found answer inside a bold span, a bullet inside a think block — and at equal length the
/// later kind in SpanKind order.
void insertHighlighted(QTextCursor& cursor, const QString& text, int begin, int end,
    const std::vector<Highlight>& highlights, Theme theme, const QTextCharFormat& format);

/// Tool-call arguments indented by two spaces with their key order kept, or nothing when they
/// are not JSON.
std::optional<QString> prettyJson(const QString& arguments);

/// Where the answer shown apart from leaked thinking begins in `content`: the record's
/// visibleContentOffset, clamped to the text.
int answerStart(const RequestRecord& request);
/// Characters folded away as reasoning: the reasoning field plus thinking leaked into content.
int reasoningLength(const RequestRecord& request);

/// Where a candidate's answer stops agreeing with the reference's (fidelity, the first diverging
/// token): the answer text from `begin` (UTF-16 index into the response content,
/// FidelityPrompt::firstDivergenceChar) on is underlined with a wave and carries `tip`.
struct DivergenceMark {
    int begin = 0;
    QString tip;
};
/// The format of the diverging text: a wavy underline in the theme's critical accent. The text's
/// own colour and the gates' backgrounds are kept, so both marks read together.
QTextCharFormat divergenceFormat(Theme theme, const QString& tip);

/// The answer exactly as sent (from answerStart), highlighted, then the tool calls; with a
/// divergence mark from mark->begin to the end of the answer when given.
void writeRawAnswer(QTextDocument* doc, const RunRecord& record, Theme theme,
    const std::optional<DivergenceMark>& mark = std::nullopt);
/// writeRawAnswer() at `cursor`, into a document that holds more (a whole conversation); the tool
/// calls go at the document's end.
void insertAnswer(QTextCursor& cursor, const RunRecord& record, Theme theme,
    const std::optional<DivergenceMark>& mark = std::nullopt);
/// The reasoning field and the leaked thinking, each under a label, highlighted.
void writeReasoning(QTextDocument* doc, const RunRecord& record, Theme theme);
/// Appends the tool calls sent through the tool channel: "name" and its arguments in
/// monospace, pretty-printed when they parse, otherwise exactly as sent with a note.
void appendToolCalls(QTextDocument* doc, const std::vector<ToolCall>& calls, Theme theme);

} // namespace qs
