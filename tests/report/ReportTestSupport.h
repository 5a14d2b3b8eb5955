// SPDX-License-Identifier: MIT
#pragma once

#include <QString>
#include <QStringList>

namespace qs::test {

/// The Markdown outside fenced code blocks (where nothing is quoted verbatim).
inline QString outsideFences(const QString& markdown)
{
    QString out;
    bool inFence = false;
    for (const QString& l : markdown.split(u'\n')) {
        if (l.startsWith(QStringLiteral("```"))) {
            inFence = !inFence;
            continue;
        }
        if (!inFence)
            out += l + u'\n';
    }
    return out;
}

} // namespace qs::test
