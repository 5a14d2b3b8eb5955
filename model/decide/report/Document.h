// SPDX-License-Identifier: MIT
#pragma once

#include <QString>
#include <QStringList>
#include <utility>
#include <vector>

// A tiny document model: the content is written once and rendered twice (Markdown, HTML), so the
// two formats can never disagree on a number. Every piece of text is stored raw and escaped by
// the renderer, which is what keeps model output from ever being interpreted.
namespace qs::report {

enum class Style { Plain, Bold, Italic, Code, Good, Bad, Warn, Mark };
struct Inline {
    Style style = Style::Plain;
    QString text;
};
using Line = std::vector<Inline>;

Inline plain(const QString& t);
Inline bold(const QString& t);
Inline italic(const QString& t);
Inline code(const QString& t);
Line line(const QString& t); ///< one plain run

/// One side of a sample pair.
struct SampleSide {
    QString heading; ///< endpoint label
    QString where; ///< "turn 3, run 2"
    Line verdict; ///< "Failed: …" or "All gates passed"
    std::vector<std::pair<QString, bool>> segments; ///< answer text; true = a failing span
    QStringList toolCalls; ///< "name(arguments)"
    QStringList notes; ///< failed gates' reasons, truncation, reasoning field
};

struct Block {
    enum class Kind { Heading, Paragraph, Bullets, Table, Image, Code, Samples, Callout };
    Kind kind = Kind::Paragraph;
    int level = 2; ///< heading level; callout severity (0 info, 1 warning, 2 critical, 3 good news)
    Line text; ///< heading, paragraph, callout title, image caption
    std::vector<Line> items; ///< bullets; callout body
    std::vector<Line> header; ///< table
    std::vector<std::vector<Line>> rows;
    std::vector<bool> numeric; ///< right-aligned columns
    QString raw; ///< code block text; image source
    QString alt; ///< image alt text; code language
    int width = 0;
    int height = 0;
    SampleSide sides[2];
};
using Doc = std::vector<Block>;

void heading(Doc& d, int level, const QString& text);
void paragraph(Doc& d, Line text);
void bullets(Doc& d, std::vector<Line> items); ///< nothing when `items` is empty
void codeBlock(Doc& d, const QString& text, const QString& language);
/// An empty table; the caller adds rows and pushes it.
Block table(std::vector<Line> header, std::vector<bool> numeric);

} // namespace qs::report
