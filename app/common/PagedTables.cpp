// SPDX-License-Identifier: MIT
#include "app/common/PagedTables.h"

#include <QAbstractTextDocumentLayout>
#include <QTextBlock>
#include <QTextCursor>
#include <QTextDocument>
#include <QTextFrame>
#include <QTextTable>
#include <cmath>
#include <limits>

namespace qs::app {

namespace {

struct RowExtent {
    double top = std::numeric_limits<double>::max();
    double bottom = std::numeric_limits<double>::lowest();
    bool empty() const { return top > bottom; }
};

/// Where the text of row `row` of `table` lies, in document coordinates: from its first line's
/// top to its last line's bottom, over every cell.
RowExtent rowExtent(QTextDocument& document, QTextTable* table, int row)
{
    QAbstractTextDocumentLayout* layout = document.documentLayout();
    RowExtent e;
    for (int column = 0; column < table->columns(); ++column) {
        const QTextTableCell cell = table->cellAt(row, column);
        if (!cell.isValid() || cell.row() != row || cell.column() != column)
            continue;
        const int end = cell.lastPosition();
        for (QTextBlock b = cell.firstCursorPosition().block(); b.isValid() && b.position() <= end;
             b = b.next()) {
            const QRectF r = layout->blockBoundingRect(b);
            if (r.isEmpty())
                continue;
            e.top = std::min(e.top, r.top());
            e.bottom = std::max(e.bottom, r.bottom());
        }
    }
    return e;
}

std::vector<QTextTable*> tablesOf(QTextFrame* frame)
{
    std::vector<QTextTable*> out;
    for (QTextFrame* child : frame->childFrames()) {
        if (auto* table = qobject_cast<QTextTable*>(child))
            out.push_back(table);
        const std::vector<QTextTable*> inner = tablesOf(child);
        out.insert(out.end(), inner.begin(), inner.end());
    }
    return out;
}

/// Rows up to this share of a page are kept whole; taller ones may break.
constexpr double MaxKeptRow = 0.25;

int pageOf(double y, double pageHeight)
{
    return int(std::floor(y / pageHeight));
}

/// The first row of `document` that crosses a page break, or none.
struct Crossing {
    QTextTable* table = nullptr;
    int row = -1;
    int page = 0;
};

std::vector<Crossing> crossings(QTextDocument& document, bool firstOnly)
{
    std::vector<Crossing> out;
    const double pageHeight = document.pageSize().height();
    if (pageHeight <= 0)
        return out;
    document.documentLayout()->documentSize(); // lays it out
    for (QTextTable* table : tablesOf(document.rootFrame())) {
        const int header = table->format().headerRowCount();
        for (int row = header; row < table->rows(); ++row) {
            const RowExtent e = rowExtent(document, table, row);
            // A tall row (a sample answer, a long conversation) breaks as a word processor lets it:
            // moving it would leave most of a page empty.
            if (e.empty() || e.bottom - e.top > pageHeight * MaxKeptRow)
                continue;
            // A hair inside, so a line that ends exactly on the break is not "on the next page".
            const int first = pageOf(e.top + 0.5, pageHeight);
            if (first != pageOf(e.bottom - 0.5, pageHeight)) {
                out.push_back({table, row, first});
                if (firstOnly)
                    return out;
            }
        }
    }
    return out;
}

/// Device units per unit of a cell's padding or a table's margin: the layout scales those from
/// screen pixels to its paint device (a 300 dpi PDF: about 3). Measured on a two-row table laid
/// out on the same device rather than taken from Qt's private scaleToDevice().
double paddingScale(QTextDocument& document)
{
    QTextDocument probe;
    probe.documentLayout()->setPaintDevice(document.documentLayout()->paintDevice());
    probe.setDefaultFont(document.defaultFont());
    QTextCursor cursor(&probe);
    QTextTable* table = cursor.insertTable(2, 1);
    table->cellAt(0, 0).firstCursorPosition().insertText(QStringLiteral("a"));
    table->cellAt(1, 0).firstCursorPosition().insertText(QStringLiteral("b"));
    const double before = rowExtent(probe, table, 1).top;
    constexpr double added = 100;
    QTextTableCell above = table->cellAt(0, 0);
    QTextTableCellFormat f = above.format().toTableCellFormat();
    f.setBottomPadding(f.bottomPadding() + added);
    above.setFormat(f);
    probe.documentLayout()->documentSize();
    const double scale = (rowExtent(probe, table, 1).top - before) / added;
    return scale > 0.01 ? scale : 1.0;
}

} // namespace

std::vector<SplitRow> splitTableRows(QTextDocument& document)
{
    std::vector<SplitRow> out;
    for (const Crossing& c : crossings(document, false)) {
        const QTextTableCell cell = c.table->cellAt(c.row, 0);
        QString text;
        const int end = cell.lastPosition();
        for (QTextBlock b = cell.firstCursorPosition().block(); b.isValid() && b.position() <= end;
             b = b.next())
            text += b.text() + u' ';
        out.push_back({c.page, c.row, text.trimmed()});
    }
    return out;
}

int keepTableRowsTogether(QTextDocument& document)
{
    const double pageHeight = document.pageSize().height();
    const double scale = paddingScale(document);
    int moved = 0;
    // One row at a time: moving one moves everything after it. A document has a few such rows
    // per page at most; the bound only guards against a layout that never settles.
    for (int guard = 0; guard < 1000; ++guard) {
        const std::vector<Crossing> found = crossings(document, true);
        if (found.empty())
            break;
        const Crossing& c = found.front();
        QTextTable* table = c.table;
        const int header = table->format().headerRowCount();
        const double toPageEnd = (c.page + 1) * pageHeight + 1;
        if (c.row == header) {
            // The first row under the header: the table starts on the next page, header and all.
            const double top = document.documentLayout()->frameBoundingRect(table).top();
            QTextTableFormat f = table->format();
            f.setTopMargin(f.topMargin() + (toPageEnd - top) / scale);
            table->setFormat(f);
        } else {
            // The row above grows down to the page's end, which carries this one onto the next.
            const double gap = toPageEnd - rowExtent(document, table, c.row).top;
            for (int column = 0; column < table->columns(); ++column) {
                QTextTableCell cell = table->cellAt(c.row - 1, column);
                if (!cell.isValid() || cell.column() != column)
                    continue;
                QTextTableCellFormat f = cell.format().toTableCellFormat();
                f.setBottomPadding(f.bottomPadding() + gap / scale);
                cell.setFormat(f);
            }
        }
        ++moved;
    }
    return moved;
}

} // namespace qs::app
