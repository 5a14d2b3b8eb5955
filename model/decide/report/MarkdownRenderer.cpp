// SPDX-License-Identifier: MIT
#include "model/decide/report/Renderers.h"

#include <algorithm>

using namespace Qt::StringLiterals;

namespace qs::report {

namespace {

QString backtickFence(const QString& text, int minimum)
{
    int longest = 0;
    int run = 0;
    for (const QChar c : text) {
        run = c == u'`' ? run + 1 : 0;
        longest = std::max(longest, run);
    }
    return QString(std::max(minimum, longest + 1), u'`');
}

QString mdCodeSpan(const QString& text, bool inTable)
{
    QString t = text;
    t.replace(u'\n', u' ');
    if (inTable)
        t.replace(u'|', u"\\|"_s);
    const QString fence = backtickFence(t, 1);
    // A span that begins or ends with a backtick needs a space inside the fence.
    const bool pad = t.startsWith(u'`') || t.endsWith(u'`');
    return fence + (pad ? u" "_s : QString()) + t + (pad ? u" "_s : QString()) + fence;
}

QString mdInline(const Line& l, bool inTable)
{
    QString out;
    // Only the start of a paragraph can open a list or heading; never a table cell.
    const auto escapeHere
        = [&](const QString& text) { return escapeMarkdown(text, !inTable && out.isEmpty()); };
    for (const Inline& i : l) {
        if (i.text.isEmpty())
            continue;
        switch (i.style) {
        case Style::Plain:
            out += escapeHere(i.text);
            break;
        case Style::Italic:
            out += u'*' + escapeHere(i.text.trimmed()) + u'*' + (i.text.endsWith(u' ') ? u" "_s : QString());
            break;
        case Style::Code:
            out += mdCodeSpan(i.text, inTable);
            break;
        case Style::Mark:
            out += u"**«"_s + escapeHere(i.text) + u"»**"_s;
            break;
        case Style::Bold:
        case Style::Good:
        case Style::Bad:
        case Style::Warn: {
            // CommonMark: ** must touch the text, so spaces go outside.
            const QString t = i.text.trimmed();
            const QString lead = i.text.startsWith(u' ') ? u" "_s : QString();
            const QString trail = i.text.endsWith(u' ') ? u" "_s : QString();
            out += lead + u"**"_s + escapeHere(t) + u"**"_s + trail;
            break;
        }
        }
    }
    return out;
}

QString mdFenced(const QString& text, const QString& language)
{
    // Tildes inside a backtick fence are inert, and the fence outgrows any backtick run in the text.
    const QString fence = backtickFence(text, 3);
    return fence + language + u'\n' + text + (text.endsWith(u'\n') ? QString() : u"\n"_s) + fence + u"\n\n"_s;
}

} // namespace

QString renderMarkdown(const Doc& d)
{
    QString out;
    for (const Block& b : d) {
        switch (b.kind) {
        case Block::Kind::Heading:
            out += QString(b.level, u'#') + u' ' + mdInline(b.text, false) + u"\n\n"_s;
            break;
        case Block::Kind::Paragraph:
            out += mdInline(b.text, false) + u"\n\n"_s;
            break;
        case Block::Kind::Bullets:
            for (const Line& item : b.items)
                out += u"- "_s + mdInline(item, false) + u'\n';
            out += u'\n';
            break;
        case Block::Kind::Callout:
            out += u"> "_s + mdInline(b.text, false) + u"\n"_s;
            for (const Line& item : b.items)
                out += u">\n> "_s + mdInline(item, false) + u'\n';
            out += u'\n';
            break;
        case Block::Kind::Table: {
            const auto row = [](const std::vector<Line>& cells) -> QString {
                QString r = u"|"_s;
                for (const Line& c : cells) {
                    const QString text = mdInline(c, true);
                    r += u' ' + (text.isEmpty() ? u" "_s : text) + u" |"_s;
                }
                return r + u'\n';
            };
            out += row(b.header);
            out += u"|"_s;
            for (std::size_t i = 0; i < b.header.size(); ++i)
                out += b.numeric[i] ? u"---:|"_s : u"---|"_s;
            out += u'\n';
            for (const auto& r : b.rows)
                out += row(r);
            out += u'\n';
            break;
        }
        case Block::Kind::Image:
            // The source is ours (a relative path); escape only what would end the link.
            out += u"!["_s + markdownEscape(b.alt) + u"]("_s + QString(b.raw).replace(u' ', u"%20"_s)
                + u")\n\n"_s + mdInline(b.text, false) + u"\n\n"_s;
            break;
        case Block::Kind::Code:
            out += mdFenced(b.raw, b.alt);
            break;
        case Block::Kind::Samples:
            for (const SampleSide& s : b.sides) {
                out += u"**"_s + markdownEscape(s.heading) + u"** — "_s + markdownEscape(s.where) + u" — "_s
                    + mdInline(s.verdict, false) + u"\n\n"_s;
                QString text;
                for (const auto& [segment, failing] : s.segments)
                    text += failing ? u"«"_s + segment + u"»"_s : segment;
                if (!text.isEmpty())
                    out += mdFenced(text, u"text"_s);
                for (const QString& call : s.toolCalls)
                    out += u"Tool call: "_s + mdCodeSpan(call, false) + u"\n\n"_s;
                for (const QString& note : s.notes)
                    out += u"- "_s + markdownEscape(note) + u'\n';
                if (!s.notes.isEmpty())
                    out += u'\n';
            }
            break;
        }
    }
    return out;
}

QString escapeMarkdown(const QString& text, bool blockStart)
{
    QString out;
    out.reserve(text.size() + text.size() / 8);
    bool lineStart = blockStart; // only spaces so far on this line
    bool digitsOnly = false; // only digits since the line's spaces: "12." would open a list
    for (qsizetype i = 0; i < text.size(); ++i) {
        const QChar c = text[i];
        if (c == u'\n' || c == u'\r') {
            out += u' ';
            lineStart = true;
            digitsOnly = false;
            continue;
        }
        switch (c.unicode()) {
        case u'\\':
        case u'`':
        case u'*':
        case u'_':
        case u'[':
        case u']':
        case u'<':
        case u'>':
        case u'|':
        case u'&':
        case u'~':
        case u'#':
            out += u'\\';
            break;
        case u'+':
        case u'-':
        case u'=':
            if (lineStart)
                out += u'\\';
            break;
        case u'.':
        case u')':
            if (digitsOnly)
                out += u'\\';
            break;
        case u':':
            // GitHub links "http://…" by itself: break the scheme so model text stays text.
            if (text.mid(i, 3) == u"://")
                out += u'\\';
            break;
        default:
            break;
        }
        out += c;
        digitsOnly = c.isDigit() && (lineStart || digitsOnly);
        if (!c.isSpace())
            lineStart = false;
    }
    out.replace(u"www."_s, u"www\\."_s);
    return out;
}

} // namespace qs::report

namespace qs {

QString markdownEscape(const QString& text)
{
    return report::escapeMarkdown(text, true);
}

} // namespace qs
