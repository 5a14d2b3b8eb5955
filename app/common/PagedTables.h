// SPDX-License-Identifier: MIT
#pragma once

#include <QString>
#include <vector>

class QTextDocument;

namespace qs::app {

// Qt's rich-text layout breaks a table row across pages line by line whenever one of its cells
// starts above the page's bottom: a row of a wrapped verdict table then leaves an orphan "of 5)"
// at the top of the next page. A printed document must not: these move every such row whole to
// the next page, as a word processor does.

/// A table row whose text lies on two pages.
struct SplitRow {
    int page = 0; ///< the page it starts on, from 0
    int row = 0; ///< its index in its table
    QString text; ///< its first cell's text, to say which
};

/// The rows of every table in `document` (laid out at its pageSize()) that cross a page break.
/// Rows taller than a quarter of a page (a sample answer, a long conversation) are left out: they
/// may break, as in a word processor, rather than leave most of a page empty.
std::vector<SplitRow> splitTableRows(QTextDocument& document);

/// Moves every row that crosses a page break to the next page (the row above it grows down to the
/// page's end, as Qt does itself when it moves a row), laying the document out again after each.
/// Call after setPageSize(). Returns how many rows it moved.
int keepTableRowsTogether(QTextDocument& document);

} // namespace qs::app
