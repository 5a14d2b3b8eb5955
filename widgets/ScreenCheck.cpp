// SPDX-License-Identifier: MIT
#include "widgets/ScreenCheck.h"

#include <QAbstractScrollArea>
#include <QHeaderView>
#include <QLabel>
#include <QScrollBar>
#include <QStyle>
#include <QTableView>
#include <algorithm>

namespace qs {

namespace {

/// Problems of one kind in one widget beyond this many are counted, not listed.
constexpr int MaxPerWidget = 4;

QString nameOf(const QWidget* w)
{
    return w->objectName().isEmpty() ? QString::fromLatin1(w->metaObject()->className()) : w->objectName();
}

/// "RunPanel/QLabel": the widget and its nearest named ancestor.
QString pathOf(const QWidget* w, const QWidget* root)
{
    QString path = nameOf(w);
    for (const QWidget* p = w->parentWidget(); p && p != root->parentWidget(); p = p->parentWidget())
        if (!p->objectName().isEmpty() && !p->objectName().startsWith(QLatin1String("qt_"))) {
            path = p->objectName() + u'/' + path;
            break;
        }
    return path;
}

QString quoted(const QString& text)
{
    QString t = text.simplified();
    if (t.size() > 50)
        t = t.left(49) + QStringLiteral("…");
    return u'"' + t + u'"';
}

/// The part of `w` that is on screen within `root`: clipped by every ancestor (a scroll area's
/// viewport hides what is scrolled away).
QRect visibleRect(const QWidget* w, const QWidget* root)
{
    QRect r = w->rect();
    for (const QWidget* p = w; p != root; p = p->parentWidget()) {
        if (!p->parentWidget())
            return {};
        r = r.translated(p->pos()).intersected(p->parentWidget()->rect());
    }
    return r;
}

bool fullyVisible(const QWidget* w, const QWidget* root)
{
    return visibleRect(w, root).size() == w->size();
}

bool mayElide(const QWidget* w)
{
    for (const QWidget* p = w; p; p = p->parentWidget())
        if (p->property("qsMayElide").toBool())
            return true;
    return false;
}

int widestLine(const QFontMetrics& fm, const QString& text)
{
    int widest = 0;
    for (const QString& line : text.split(u'\n'))
        widest = std::max(widest, fm.horizontalAdvance(line));
    return widest;
}

void checkLabel(const QLabel* label, const QWidget* root, std::vector<ScreenProblem>& out)
{
    if (label->text().trimmed().isEmpty() || !fullyVisible(label, root))
        return;
    if (label->wordWrap()) {
        const int needed = label->heightForWidth(label->width());
        if (needed > label->height() + 1)
            out.push_back({ScreenProblem::Kind::ClippedText, pathOf(label, root),
                QStringLiteral("%1 needs %2 px of height, has %3")
                    .arg(quoted(label->text()))
                    .arg(needed)
                    .arg(label->height())});
        return;
    }
    const int needed = label->sizeHint().width();
    if (needed > label->width() + 1)
        out.push_back({ScreenProblem::Kind::ClippedText, pathOf(label, root),
            QStringLiteral("%1 needs %2 px, has %3")
                .arg(quoted(label->text()))
                .arg(needed)
                .arg(label->width())});
}

void checkTable(const QTableView* table, const QWidget* root, std::vector<ScreenProblem>& out)
{
    const QAbstractItemModel* model = table->model();
    if (!model || !fullyVisible(table, root))
        return;
    const QHeaderView* header = table->horizontalHeader();
    const int viewportWidth = table->viewport()->width();
    const int viewportHeight = table->viewport()->height();
    const int margin = 2 * (table->style()->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, table) + 1);
    const int headerMargin = 2 * table->style()->pixelMetric(QStyle::PM_HeaderMargin, nullptr, header);
    const bool elides = !mayElide(table);
    int cut = 0;
    int cutMore = 0;
    const auto report = [&](ScreenProblem::Kind kind, const QString& what) {
        if (cut++ < MaxPerWidget)
            out.push_back({kind, pathOf(table, root), what});
        else
            ++cutMore;
    };
    for (int visual = 0; visual < header->count(); ++visual) {
        const int c = header->logicalIndex(visual);
        if (table->isColumnHidden(c) || table->columnWidth(c) <= 0)
            continue;
        const QString title = model->headerData(c, Qt::Horizontal).toString();
        const int left = table->columnViewportPosition(c);
        const int width = table->columnWidth(c);
        if (left + width > viewportWidth + 1) {
            report(ScreenProblem::Kind::ColumnOffScreen,
                QStringLiteral("column %1 ends at %2 px of %3")
                    .arg(quoted(title))
                    .arg(left + width)
                    .arg(viewportWidth));
            continue;
        }
        if (!header->isHidden() && elides) {
            int needed = widestLine(header->fontMetrics(), title) + headerMargin;
            if (header->isSortIndicatorShown() && header->sortIndicatorSection() == c)
                needed += table->style()->pixelMetric(QStyle::PM_HeaderMarkSize, nullptr, header);
            if (needed > width + 1)
                report(ScreenProblem::Kind::ElidedCell,
                    QStringLiteral("header %1 needs %2 px, has %3")
                        .arg(quoted(title))
                        .arg(needed)
                        .arg(width));
        }
        if (!elides)
            continue;
        for (int row = std::max(0, table->rowAt(0)); row >= 0 && row < model->rowCount(); ++row) {
            if (table->isRowHidden(row))
                continue;
            const int top = table->rowViewportPosition(row);
            const int height = table->rowHeight(row);
            if (top + height > viewportHeight)
                break; // cut by the view's bottom: scrolling, not eliding
            const QModelIndex index = model->index(row, c, table->rootIndex());
            const QString text = index.data(Qt::DisplayRole).toString();
            if (text.isEmpty())
                continue;
            const QVariant fontData = index.data(Qt::FontRole);
            const QFontMetrics fm(fontData.isValid() ? fontData.value<QFont>() : table->font());
            int extra = 0;
            if (index.data(Qt::DecorationRole).isValid())
                extra += table->iconSize().isValid() ? table->iconSize().width() + 4 : 20;
            if (table->wordWrap()) {
                const int needed
                    = fm.boundingRect(QRect(0, 0, width - margin - extra, 100000), Qt::TextWordWrap, text)
                          .height();
                if (needed > height + 1)
                    report(ScreenProblem::Kind::ElidedCell,
                        QStringLiteral("row %1 column %2: %3 needs %4 px of height, has %5")
                            .arg(row)
                            .arg(quoted(title), quoted(text))
                            .arg(needed)
                            .arg(height));
            } else {
                const int needed = widestLine(fm, text) + margin + extra;
                if (needed > width + 1)
                    report(ScreenProblem::Kind::ElidedCell,
                        QStringLiteral("row %1 column %2: %3 needs %4 px, has %5")
                            .arg(row)
                            .arg(quoted(title), quoted(text))
                            .arg(needed)
                            .arg(width));
            }
        }
    }
    if (cutMore > 0)
        out.push_back({ScreenProblem::Kind::ElidedCell, pathOf(table, root),
            QStringLiteral("and %1 more cut cells or columns").arg(cutMore)});
}

void checkScrollArea(const QAbstractScrollArea* area, const QWidget* root, std::vector<ScreenProblem>& out)
{
    if (!fullyVisible(area, root))
        return;
    if (area->horizontalScrollBar()->isVisibleTo(root) && area->horizontalScrollBar()->maximum() > 0)
        out.push_back({ScreenProblem::Kind::HorizontalScrollBar, pathOf(area, root),
            QStringLiteral("scrolls %1 px sideways").arg(area->horizontalScrollBar()->maximum())});
    if (area->verticalScrollBar()->isVisibleTo(root) && area->verticalScrollBar()->maximum() > 0)
        out.push_back({ScreenProblem::Kind::VerticalScrollBar, pathOf(area, root),
            QStringLiteral("scrolls %1 %2 down")
                .arg(area->verticalScrollBar()->maximum())
                .arg(qobject_cast<const QTableView*>(area) ? QStringLiteral("rows or px")
                                                           : QStringLiteral("px"))});
}

} // namespace

QString screenProblemId(ScreenProblem::Kind kind)
{
    switch (kind) {
    case ScreenProblem::Kind::ClippedText:
        return QStringLiteral("clipped_text");
    case ScreenProblem::Kind::ElidedCell:
        return QStringLiteral("elided_cell");
    case ScreenProblem::Kind::ColumnOffScreen:
        return QStringLiteral("column_off_screen");
    case ScreenProblem::Kind::HorizontalScrollBar:
        return QStringLiteral("horizontal_scrollbar");
    case ScreenProblem::Kind::VerticalScrollBar:
        break;
    }
    return QStringLiteral("vertical_scrollbar");
}

QString ScreenProblem::text() const
{
    return screenProblemId(kind) + QStringLiteral(" in ") + where + QStringLiteral(": ") + what;
}

std::vector<ScreenProblem> checkScreen(QWidget* root)
{
    std::vector<ScreenProblem> out;
    if (!root)
        return out;
    QList<QWidget*> widgets = root->findChildren<QWidget*>();
    widgets.prepend(root);
    for (QWidget* w : std::as_const(widgets)) {
        if (!w->isVisibleTo(root) && w != root)
            continue;
        if (w->objectName() == QLatin1String("frozenColumns"))
            continue; // a FrozenTableView's overlay: its columns are the main view's, checked there
        if (const auto* label = qobject_cast<const QLabel*>(w))
            checkLabel(label, root, out);
        if (const auto* table = qobject_cast<const QTableView*>(w))
            checkTable(table, root, out);
        if (const auto* area = qobject_cast<const QAbstractScrollArea*>(w))
            checkScrollArea(area, root, out);
    }
    return out;
}

} // namespace qs
