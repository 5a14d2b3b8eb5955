// SPDX-License-Identifier: MIT
#include "widgets/responses/ResponseFormatting.h"

#include <QFontDatabase>
#include <QTextBlockFormat>
#include <QTextCharFormat>
#include <QTextCursor>
#include <QTextDocument>
#include <algorithm>

namespace qs {

const std::vector<SpanKind>& spanKinds()
{
    static const std::vector<SpanKind> kinds {
        SpanKind::Markdown, SpanKind::Thinking, SpanKind::ToolText, SpanKind::Incoherent, SpanKind::Answer};
    return kinds;
}

QString spanGate(SpanKind kind)
{
    switch (kind) {
    case SpanKind::Markdown:
        return QStringLiteral("no_markdown");
    case SpanKind::Thinking:
        return QStringLiteral("no_thinking_leak");
    case SpanKind::ToolText:
        return QStringLiteral("tool_call");
    case SpanKind::Incoherent:
        return QStringLiteral("coherent");
    case SpanKind::Answer:
        return QStringLiteral("expected_answer");
    }
    return {};
}

std::optional<SpanKind> spanKindOfGate(const QString& gate)
{
    for (SpanKind kind : spanKinds())
        if (spanGate(kind) == gate)
            return kind;
    return std::nullopt;
}

QString spanLabel(SpanKind kind)
{
    switch (kind) {
    case SpanKind::Markdown:
        return QStringLiteral("Markdown syntax");
    case SpanKind::Thinking:
        return QStringLiteral("Leaked thinking");
    case SpanKind::ToolText:
        return QStringLiteral("Tool call as text");
    case SpanKind::Incoherent:
        return QStringLiteral("Incoherent text");
    case SpanKind::Answer:
        return QStringLiteral("Expected answer");
    }
    return {};
}

QString spanDescription(SpanKind kind)
{
    // The gates' rules in the words of docs/quality-gates.md.
    switch (kind) {
    case SpanKind::Markdown:
        return QStringLiteral(
            "no_markdown: any markdown construct in the visible answer — headings, bullets, "
            "bold, italics, code, tables, links, images, HTML tags. A voice assistant "
            "would read the symbols aloud.");
    case SpanKind::Thinking:
        return QStringLiteral("no_thinking_leak: thinking markup or a reasoning scaffold in content — a "
                              "<think> block, \"Thinking Process:\", bold reasoning steps, prose only "
                              "reasoning contains.");
    case SpanKind::ToolText:
        return QStringLiteral("tool_call: a call written into the answer text instead of the tool-call "
                              "channel. The usual cause is a server started without its tool parser.");
    case SpanKind::Incoherent:
        return QStringLiteral("coherent: scripts glued together, too many non-words, degenerate repetition, "
                              "template tokens, undecodable bytes.");
    case SpanKind::Answer:
        return QStringLiteral("expected_answer: where one of the test's expected patterns matched the "
                              "visible answer.");
    }
    return {};
}

QColor spanColor(SpanKind kind, Theme theme)
{
    const ThemeColors& c = themeColors(theme);
    switch (kind) {
    case SpanKind::Markdown:
        return c.markdownSpan;
    case SpanKind::Thinking:
        return c.thinkingSpan;
    case SpanKind::ToolText:
        return c.toolTextSpan;
    case SpanKind::Incoherent:
        return c.incoherentSpan;
    case SpanKind::Answer:
        return c.answerSpan;
    }
    return {};
}

QString plainToolTip(const QString& text)
{
    if (text.isEmpty())
        return {};
    QString escaped = text.toHtmlEscaped();
    escaped.replace(u'\n', QStringLiteral("<br>"));
    return QStringLiteral("<qt>") + escaped + QStringLiteral("</qt>");
}

std::vector<Highlight> gateHighlights(
    const nlohmann::json& gateDetails, const QString& field, int fieldLength)
{
    std::vector<Highlight> out;
    if (!gateDetails.is_object())
        return out;
    const std::string wantedField = field.toStdString();
    for (auto gate = gateDetails.begin(); gate != gateDetails.end(); ++gate) {
        const std::optional<SpanKind> kind = spanKindOfGate(QString::fromStdString(gate.key()));
        if (!kind || !gate->is_object())
            continue;
        const auto ranges = gate->find("ranges");
        if (ranges == gate->end() || !ranges->is_array())
            continue;
        for (const nlohmann::json& r : *ranges) {
            if (!r.is_object() || r.value("field", std::string()) != wantedField)
                continue;
            const auto b = r.find("begin");
            const auto e = r.find("end");
            if (b == r.end() || e == r.end() || !b->is_number_integer() || !e->is_number_integer())
                continue;
            const int begin = int(std::clamp<qint64>(b->get<qint64>(), 0, fieldLength));
            const int end = int(std::clamp<qint64>(e->get<qint64>(), 0, fieldLength));
            if (end <= begin)
                continue;
            const auto what = r.find("what");
            out.push_back({begin, end, *kind,
                what != r.end() && what->is_string() ? QString::fromStdString(what->get<std::string>())
                                                     : QString()});
        }
    }
    return out;
}

void insertHighlighted(QTextCursor& cursor, const QString& text, int begin, int end,
    const std::vector<Highlight>& highlights, Theme theme, const QTextCharFormat& format)
{
    begin = std::clamp(begin, 0, int(text.size()));
    end = std::clamp(end, begin, int(text.size()));
    std::vector<const Highlight*> touching;
    std::vector<int> cuts {begin, end};
    for (const Highlight& h : highlights)
        if (h.end > begin && h.begin < end) {
            touching.push_back(&h);
            cuts.push_back(std::clamp(h.begin, begin, end));
            cuts.push_back(std::clamp(h.end, begin, end));
        }
    std::sort(cuts.begin(), cuts.end());
    cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());

    for (std::size_t i = 0; i + 1 < cuts.size(); ++i) {
        const int a = cuts[i];
        const int b = cuts[i + 1];
        const Highlight* winner = nullptr;
        for (const Highlight* h : touching) {
            if (h->begin > a || h->end < b)
                continue;
            const int length = h->end - h->begin;
            const int best = winner ? winner->end - winner->begin : 0;
            if (!winner || length < best || (length == best && int(h->kind) > int(winner->kind)))
                winner = h;
        }
        QTextCharFormat f = format;
        if (winner) {
            f.setBackground(spanColor(winner->kind, theme));
            f.setToolTip(
                plainToolTip(winner->what.isEmpty() ? spanGate(winner->kind)
                                                    : spanGate(winner->kind) + u": " + winner->what));
        }
        cursor.insertText(text.mid(a, b - a), f);
    }
}

std::optional<QString> prettyJson(const QString& arguments)
{
    const nlohmann::ordered_json parsed
        = nlohmann::ordered_json::parse(arguments.toStdString(), nullptr, /*allow_exceptions=*/false);
    if (parsed.is_discarded())
        return std::nullopt;
    return QString::fromStdString(parsed.dump(2, ' ', false, nlohmann::json::error_handler_t::replace));
}

int answerStart(const RequestRecord& request)
{
    return std::clamp(request.metrics.visibleContentOffset, 0, int(request.response.content.size()));
}

int reasoningLength(const RequestRecord& request)
{
    return int(request.response.reasoning.size()) + answerStart(request);
}

namespace {

QTextCharFormat mutedFormat(Theme theme, bool bold = false)
{
    QTextCharFormat f;
    f.setForeground(themeColors(theme).mutedText);
    if (bold)
        f.setFontWeight(QFont::DemiBold);
    return f;
}

/// Starts a new paragraph in `block`, or reuses the first one of an empty document.
void startBlock(QTextCursor& cursor, const QTextBlockFormat& block = {})
{
    if (cursor.document()->isEmpty())
        cursor.setBlockFormat(block);
    else
        cursor.insertBlock(block, QTextCharFormat());
}

} // namespace

QTextCharFormat divergenceFormat(Theme theme, const QString& tip)
{
    QTextCharFormat f;
    f.setUnderlineStyle(QTextCharFormat::WaveUnderline);
    f.setUnderlineColor(themeColors(theme).criticalAccent);
    f.setToolTip(plainToolTip(tip));
    return f;
}

void writeRawAnswer(
    QTextDocument* doc, const RunRecord& record, Theme theme, const std::optional<DivergenceMark>& mark)
{
    doc->clear();
    QTextCursor cursor(doc);
    insertAnswer(cursor, record, theme, mark);
}

void insertAnswer(
    QTextCursor& cursor, const RunRecord& record, Theme theme, const std::optional<DivergenceMark>& mark)
{
    QTextDocument* doc = cursor.document();
    const AssembledResponse& response = record.request.response;
    const QString& content = response.content;
    int start = answerStart(record.request);
    // The line breaks between a leaked </think> and the answer only separate the two, and they
    // are shown apart here.
    if (start > 0)
        while (start < content.size() && content.at(start).isSpace())
            ++start;
    if (start < content.size()) {
        const std::vector<Highlight> highlights
            = gateHighlights(record.gateDetails, QStringLiteral("content"), int(content.size()));
        const int split = mark ? std::clamp(mark->begin, start, int(content.size())) : int(content.size());
        insertHighlighted(cursor, content, start, split, highlights, theme, QTextCharFormat());
        if (split < content.size())
            insertHighlighted(cursor, content, split, int(content.size()), highlights, theme,
                divergenceFormat(theme, mark->tip));
    } else if (response.toolCalls.empty()) {
        QTextCharFormat f = mutedFormat(theme);
        f.setFontItalic(true);
        cursor.insertText(record.request.ok() ? QStringLiteral("(no visible answer)")
                                              : QStringLiteral("(no answer text received)"),
            f);
    }
    appendToolCalls(doc, response.toolCalls, theme);
}

void writeReasoning(QTextDocument* doc, const RunRecord& record, Theme theme)
{
    doc->clear();
    QTextCursor cursor(doc);
    const AssembledResponse& response = record.request.response;
    const int leaked = answerStart(record.request);
    QTextBlockFormat spaced;
    spaced.setTopMargin(6);
    if (!response.reasoning.isEmpty()) {
        startBlock(cursor);
        cursor.insertText(
            QStringLiteral("In the reasoning field · %1 characters").arg(response.reasoning.size()),
            mutedFormat(theme, true));
        cursor.insertBlock(spaced, QTextCharFormat());
        insertHighlighted(cursor, response.reasoning, 0, int(response.reasoning.size()),
            gateHighlights(record.gateDetails, QStringLiteral("reasoning"), int(response.reasoning.size())),
            theme, QTextCharFormat());
    }
    if (leaked > 0) {
        startBlock(cursor, doc->isEmpty() ? QTextBlockFormat() : spaced);
        cursor.insertText(
            QStringLiteral("Left in the answer text before the answer · %1 characters (a chat UI shows them)")
                .arg(leaked),
            mutedFormat(theme, true));
        cursor.insertBlock(spaced, QTextCharFormat());
        const QString& content = response.content;
        insertHighlighted(cursor, content, 0, leaked,
            gateHighlights(record.gateDetails, QStringLiteral("content"), int(content.size())), theme,
            QTextCharFormat());
    }
}

void appendToolCalls(QTextDocument* doc, const std::vector<ToolCall>& calls, Theme theme)
{
    if (calls.empty())
        return;
    const ThemeColors& c = themeColors(theme);
    QTextCursor cursor(doc);
    cursor.movePosition(QTextCursor::End);

    QTextBlockFormat heading;
    heading.setTopMargin(doc->isEmpty() ? 0 : 10);
    QTextBlockFormat code;
    code.setBackground(c.window);
    code.setTopMargin(4);
    QTextCharFormat mono;
    mono.setFontFamilies({QFontDatabase::systemFont(QFontDatabase::FixedFont).family()});
    mono.setFontFixedPitch(true);
    QTextCharFormat name = mono;
    name.setFontWeight(QFont::Bold);

    for (const ToolCall& call : calls) {
        startBlock(cursor, heading);
        cursor.insertText(QStringLiteral("Tool call through the tool channel"), mutedFormat(theme, true));
        heading.setTopMargin(10);

        cursor.insertBlock(code, QTextCharFormat());
        cursor.insertText(call.name.isEmpty() ? QStringLiteral("(no name)") : call.name, name);
        const std::optional<QString> pretty = call.arguments.trimmed().isEmpty()
            ? std::optional<QString>(QStringLiteral("{}"))
            : prettyJson(call.arguments);
        // Always plain text: arguments are model output like the answer. Line separators keep
        // the call one block, so its background has no seams between lines.
        QString body = QStringLiteral("(") + (pretty ? *pretty : call.arguments) + QStringLiteral(")");
        body.replace(QStringLiteral("\r\n"), QString(QChar::LineSeparator));
        body.replace(u'\n', QChar::LineSeparator);
        cursor.insertText(body, mono);
        if (!pretty) {
            cursor.insertBlock(QTextBlockFormat(), QTextCharFormat());
            QTextCharFormat note = mutedFormat(theme);
            note.setFontItalic(true);
            cursor.insertText(
                QStringLiteral("The arguments are not valid JSON: shown exactly as sent."), note);
        }
    }
}

QString lastUserMessage(const nlohmann::json& body)
{
    const auto text = [](const nlohmann::json& object, const char* key) -> QString {
        const auto it = object.is_object() ? object.find(key) : object.end();
        return it != object.end() && it->is_string() ? QString::fromStdString(it->get<std::string>())
                                                     : QString();
    };
    if (!body.is_object() || !body.contains("messages") || !body.at("messages").is_array())
        return {};
    const nlohmann::json& messages = body.at("messages");
    for (auto it = messages.rbegin(); it != messages.rend(); ++it) {
        if (text(*it, "role") != u"user")
            continue;
        const auto content = it->find("content");
        if (content == it->end())
            return {};
        if (content->is_string())
            return QString::fromStdString(content->get<std::string>());
        QStringList parts;
        if (content->is_array())
            for (const nlohmann::json& part : *content)
                if (text(part, "type") == u"text")
                    parts << text(part, "text");
        return parts.join(u'\n');
    }
    return {};
}

} // namespace qs
