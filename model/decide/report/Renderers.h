// SPDX-License-Identifier: MIT
#pragma once

#include "model/decide/Report.h"
#include "model/decide/report/Document.h"

// The two ways the document is written out. Both escape every piece of text themselves.
namespace qs::report {

QString renderMarkdown(const Doc& d); ///< CommonMark with GitHub tables
QString renderHtml(const Doc& d, const QString& title, HtmlFlavor flavor); ///< one page, CSS inline
/// markdownEscape(); `blockStart` = false for text in the middle of a line or in a table cell,
/// where "12." or "-" cannot open a list.
QString escapeMarkdown(const QString& text, bool blockStart);

} // namespace qs::report
