// SPDX-License-Identifier: MIT
#include "model/decide/report/Document.h"

using namespace Qt::StringLiterals;

namespace qs::report {

Inline plain(const QString& t)
{
    return {Style::Plain, t};
}
Inline bold(const QString& t)
{
    return {Style::Bold, t};
}
Inline italic(const QString& t)
{
    return {Style::Italic, t};
}
Inline code(const QString& t)
{
    return {Style::Code, t};
}
Line line(const QString& t)
{
    return {plain(t)};
}

void heading(Doc& d, int level, const QString& text)
{
    Block b;
    b.kind = Block::Kind::Heading;
    b.level = level;
    b.text = line(text);
    d.push_back(std::move(b));
}
void paragraph(Doc& d, Line text)
{
    Block b;
    b.kind = Block::Kind::Paragraph;
    b.text = std::move(text);
    d.push_back(std::move(b));
}
void bullets(Doc& d, std::vector<Line> items)
{
    if (items.empty())
        return;
    Block b;
    b.kind = Block::Kind::Bullets;
    b.items = std::move(items);
    d.push_back(std::move(b));
}
void codeBlock(Doc& d, const QString& text, const QString& language)
{
    Block b;
    b.kind = Block::Kind::Code;
    b.raw = text;
    b.alt = language;
    d.push_back(std::move(b));
}
Block table(std::vector<Line> header, std::vector<bool> numeric)
{
    Block b;
    b.kind = Block::Kind::Table;
    b.header = std::move(header);
    b.numeric = std::move(numeric);
    b.numeric.resize(b.header.size(), false);
    return b;
}

} // namespace qs::report
