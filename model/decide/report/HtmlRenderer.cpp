// SPDX-License-Identifier: MIT
#include "model/decide/report/Renderers.h"

#include <algorithm>

using namespace Qt::StringLiterals;

namespace qs::report {

namespace {

struct Palette {
    const char16_t* good = u"#1a7f37";
    const char16_t* bad = u"#b42318";
    const char16_t* warn = u"#9a6700";
    const char16_t* mark = u"#ffd8d6";
    const char16_t* criticalBg = u"#fde8e7";
    const char16_t* warningBg = u"#fff4d6";
    const char16_t* infoBg = u"#e8f1fb";
    const char16_t* goodBg = u"#e6f4ea";
    const char16_t* headerBg = u"#eef1f4";
};

QString esc(const QString& text)
{
    return text.toHtmlEscaped();
}

QString htmlInline(const Line& l)
{
    const Palette p;
    QString out;
    for (const Inline& i : l) {
        const QString t = esc(i.text);
        switch (i.style) {
        case Style::Plain:
            out += t;
            break;
        case Style::Bold:
            out += u"<b>"_s + t + u"</b>"_s;
            break;
        case Style::Italic:
            out += u"<i>"_s + t + u"</i>"_s;
            break;
        case Style::Code:
            out += u"<code>"_s + t + u"</code>"_s;
            break;
        case Style::Good:
            out += u"<b style=\"color:"_s + QString::fromUtf16(p.good) + u"\">"_s + t + u"</b>"_s;
            break;
        case Style::Bad:
            out += u"<b style=\"color:"_s + QString::fromUtf16(p.bad) + u"\">"_s + t + u"</b>"_s;
            break;
        case Style::Warn:
            out += u"<b style=\"color:"_s + QString::fromUtf16(p.warn) + u"\">"_s + t + u"</b>"_s;
            break;
        case Style::Mark:
            out += u"<span style=\"background-color:"_s + QString::fromUtf16(p.mark) + u"\">«"_s + t
                + u"»</span>"_s;
            break;
        }
    }
    return out;
}

/// Escaped text with its line breaks kept (model output, code blocks).
QString htmlLines(const QString& text)
{
    return esc(text).replace(u"\n"_s, u"<br>"_s);
}

/// Qt's table layout ignores nowrap when it runs out of width: glue numbers and their intervals
/// together with no-break spaces and word joiners instead.
Line unbreakable(Line cell)
{
    for (Inline& i : cell)
        i.text.replace(u' ', QChar(0x00A0)).replace(u"–"_s, u"–\u2060"_s).replace(u"/"_s, u"/\u2060"_s);
    // The document is laid out at screen resolution and printed at the printer's, whose font
    // metrics are slightly wider: leave slack so a column sized to its numbers still holds them.
    if (!cell.empty())
        cell.front().text.prepend(u"\u00A0\u00A0"_s);
    return cell;
}

} // namespace

QString renderHtml(const Doc& d, const QString& title, HtmlFlavor flavor)
{
    const Palette p;
    const bool rich = flavor == HtmlFlavor::RichText;
    // QTextDocument understands a subset of CSS; the table attributes carry borders and padding there.
    const QString tableAttrs = rich ? u" border=\"1\" cellspacing=\"0\" cellpadding=\"3\""_s : QString();
    QString out = u"<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"_s;
    if (!rich)
        // Defence in depth: even if escaping ever failed, nothing in this page could run or load.
        out += u"<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; img-src data:; "
               "style-src 'unsafe-inline'\">\n"
               "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"_s;
    out += u"<title>"_s + esc(title) + u"</title>\n<style>\n"_s;
    if (rich)
        out += u"body { font-family: 'DejaVu Sans', sans-serif; font-size: 9pt; color: #1f2328; }\n"
               "h1 { font-size: 17pt; } h2 { font-size: 13pt; color: #0b3d66; margin-top: 16px; }\n"
               "h3 { font-size: 11pt; margin-top: 10px; } h4 { font-size: 9.5pt; margin-top: 8px; }\n"
               "table { border-color: #c9ced6; border-style: solid; margin-top: 4px; margin-bottom: 6px; }\n"
               "th { background-color: #eef1f4; text-align: left; }\n"
               "code, pre { font-family: 'DejaVu Sans Mono', monospace; font-size: 8pt; }\n"
               "pre { white-space: pre-wrap; background-color: #f6f8fa; }\n"
               ".caption { color: #57606a; }\n"_s;
    else
        out += u"body { font-family: system-ui, -apple-system, 'Segoe UI', 'DejaVu Sans', sans-serif; "
               "color: #1f2328; max-width: 60em; margin: 2em auto; padding: 0 1em; line-height: 1.45; }\n"
               "h1 { font-size: 1.9em; margin-bottom: .2em; } h2 { border-bottom: 1px solid #d0d7de; "
               "padding-bottom: .2em; margin-top: 2em; color: #0b3d66; } h3 { margin-top: 1.5em; }\n"
               "table { border-collapse: collapse; margin: .6em 0 1em; font-size: .92em; }\n"
               "th, td { border: 1px solid #d0d7de; padding: .3em .6em; vertical-align: top; }\n"
               "th { background: #eef1f4; text-align: left; }\n"
               "td.num, th.num { text-align: right; } td.num { white-space: nowrap; }\n"
               ".wide { overflow-x: auto; }\n"
               "code, pre { font-family: ui-monospace, 'DejaVu Sans Mono', monospace; font-size: .88em; }\n"
               "pre { background: #f6f8fa; padding: .7em; white-space: pre-wrap; word-break: break-word; "
               "border-radius: 4px; }\n"
               ".callout { padding: .5em .9em; margin: .6em 0; border-left: 4px solid; }\n"
               ".critical { background: #fde8e7; border-color: #b42318; }\n"
               ".warning { background: #fff4d6; border-color: #9a6700; }\n"
               ".info { background: #e8f1fb; border-color: #0969da; }\n"
               ".good { background: #e6f4ea; border-color: #1a7f37; }\n"
               ".callout p { margin: .3em 0; }\n"
               "figure { margin: 1em 0; } figure img { max-width: 100%; height: auto; border: 1px solid "
               "#d0d7de; }\n"
               ".caption { color: #57606a; }\n"
               "table.samples { width: 100%; table-layout: fixed; } table.samples td { width: 50%; }\n"
               ".answer { white-space: pre-wrap; font-family: ui-monospace, 'DejaVu Sans Mono', monospace; "
               "font-size: .88em; background: #f6f8fa; padding: .5em; word-break: break-word; }\n"
               "@media print { body { max-width: none; } h2 { page-break-after: avoid; } }\n"_s;
    out += u"</style>\n</head>\n<body>\n"_s;

    for (const Block& b : d) {
        switch (b.kind) {
        case Block::Kind::Heading: {
            const QString h = u"h"_s + QString::number(b.level);
            out += u'<' + h + u'>' + htmlInline(b.text) + u"</"_s + h + u">\n"_s;
            break;
        }
        case Block::Kind::Paragraph:
            out += u"<p>"_s + htmlInline(b.text) + u"</p>\n"_s;
            break;
        case Block::Kind::Bullets:
            out += u"<ul>\n"_s;
            for (const Line& item : b.items)
                out += u"<li>"_s + htmlInline(item) + u"</li>\n"_s;
            out += u"</ul>\n"_s;
            break;
        case Block::Kind::Callout: {
            const QString cls = b.level == 3 ? u"good"_s
                : b.level == 2               ? u"critical"_s
                : b.level == 1               ? u"warning"_s
                                             : u"info"_s;
            if (rich) {
                const QString bg = QString::fromUtf16(b.level == 3 ? p.goodBg
                        : b.level == 2                             ? p.criticalBg
                        : b.level == 1                             ? p.warningBg
                                                                   : p.infoBg);
                out += u"<table width=\"100%\" cellspacing=\"0\" cellpadding=\"6\" border=\"0\" "
                       "style=\"margin-top:4px; margin-bottom:4px\"><tr><td bgcolor=\""_s
                    + bg + u"\">"_s;
                out += u"<p>"_s + htmlInline(b.text) + u"</p>"_s;
                for (const Line& item : b.items)
                    out += u"<p>"_s + htmlInline(item) + u"</p>"_s;
                out += u"</td></tr></table>\n"_s;
            } else {
                out += u"<div class=\"callout "_s + cls + u"\">\n<p>"_s + htmlInline(b.text) + u"</p>\n"_s;
                for (const Line& item : b.items)
                    out += u"<p>"_s + htmlInline(item) + u"</p>\n"_s;
                out += u"</div>\n"_s;
            }
            break;
        }
        case Block::Kind::Table: {
            // In a browser a table wider than the page scrolls inside it instead of spilling over.
            if (!rich)
                out += u"<div class=\"wide\">"_s;
            out += u"<table class=\"data\""_s + tableAttrs + (rich ? u" width=\"100%\""_s : QString())
                + u">\n<thead><tr>"_s;
            for (std::size_t i = 0; i < b.header.size(); ++i)
                out += (rich ? u"<th bgcolor=\"#eef1f4\" align=\""_s + (b.numeric[i] ? u"right"_s : u"left"_s)
                                   + u"\">"_s
                             : (b.numeric[i] ? u"<th class=\"num\">"_s : u"<th>"_s))
                    + htmlInline(b.header[i]) + u"</th>"_s;
            out += u"</tr></thead>\n<tbody>\n"_s;
            for (const auto& r : b.rows) {
                out += u"<tr>"_s;
                for (std::size_t i = 0; i < r.size(); ++i)
                    out += (i < b.numeric.size() && b.numeric[i]
                                   // Numbers never wrap: Qt then sizes their columns to fit them.
                                   ? (rich ? u"<td align=\"right\" nowrap>"_s : u"<td class=\"num\">"_s)
                                   : u"<td>"_s)
                        + (rich && i < b.numeric.size() && b.numeric[i] ? htmlInline(unbreakable(r[i]))
                                                                        : htmlInline(r[i]))
                        + u"</td>"_s;
                out += u"</tr>\n"_s;
            }
            out += rich ? u"</tbody></table>\n"_s : u"</tbody></table></div>\n"_s;
            break;
        }
        case Block::Kind::Image: {
            // Rich text: a fixed width in CSS pixels that fits an A4 page between the margins.
            const int w = rich ? 620 : b.width;
            const int h = b.width > 0 ? int(std::lround(double(w) * b.height / b.width)) : b.height;
            out += u"<figure>\n<p align=\"center\"><img src=\""_s + esc(b.raw) + u"\" alt=\""_s + esc(b.alt)
                + u"\" width=\""_s + QString::number(w) + u"\" height=\""_s + QString::number(h)
                + u"\"></p>\n<p class=\"caption\">"_s + htmlInline(b.text) + u"</p>\n</figure>\n"_s;
            break;
        }
        case Block::Kind::Code:
            out += u"<pre>"_s + esc(b.raw) + u"</pre>\n"_s;
            break;
        case Block::Kind::Samples: {
            out += u"<table class=\"samples\""_s + tableAttrs + (rich ? u" width=\"100%\""_s : QString())
                + u">\n<tr>"_s;
            for (const SampleSide& s : b.sides)
                out += (rich ? u"<th bgcolor=\"#eef1f4\" align=\"left\" width=\"50%\">"_s : u"<th>"_s)
                    + esc(s.heading) + u" <span style=\"font-weight:normal\">— "_s + esc(s.where)
                    + u"</span></th>"_s;
            out += u"</tr>\n<tr>"_s;
            for (const SampleSide& s : b.sides) {
                out += rich ? u"<td width=\"50%\">"_s : u"<td>"_s;
                out += u"<p>"_s + htmlInline(s.verdict) + u"</p>"_s;
                if (!s.segments.empty()) {
                    QString text;
                    for (const auto& [segment, failing] : s.segments) {
                        const QString e = htmlLines(segment);
                        // In the PDF the span keeps the answer's monospace font.
                        text += failing ? u"<span style=\"background-color:"_s + QString::fromUtf16(p.mark)
                                + (rich ? u"; font-family:'DejaVu Sans Mono'"_s : QString()) + u"\"><b>«"_s
                                + e + u"»</b></span>"_s
                                        : e;
                    }
                    out += rich ? u"<p style=\"font-family:'DejaVu Sans Mono'; font-size:8pt; "
                                  "background-color:#f6f8fa\">"_s
                            + text + u"</p>"_s
                                : u"<div class=\"answer\">"_s + text + u"</div>"_s;
                }
                for (const QString& call : s.toolCalls)
                    out += u"<p>Tool call: <code>"_s + esc(call) + u"</code></p>"_s;
                if (!s.notes.isEmpty()) {
                    out += u"<ul>"_s;
                    for (const QString& n : s.notes)
                        out += u"<li>"_s + esc(n) + u"</li>"_s;
                    out += u"</ul>"_s;
                }
                out += u"</td>"_s;
            }
            out += u"</tr>\n</table>\n"_s;
            break;
        }
        }
    }
    out += u"</body>\n</html>\n"_s;
    return out;
}

} // namespace qs::report
