// SPDX-License-Identifier: MIT
#include "widgets/tables/FrozenTableView.h"

#include <QHeaderView>
#include <QScrollBar>

namespace qs {

FrozenTableView::FrozenTableView(QWidget* parent)
    : QTableView(parent)
    , m_frozen(new QTableView(this))
{
    m_frozen->setObjectName(QStringLiteral("frozenColumns"));
    m_frozen->setFocusPolicy(Qt::NoFocus);
    m_frozen->verticalHeader()->hide();
    m_frozen->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_frozen->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    // A thin edge says where the frozen part ends.
    m_frozen->setStyleSheet(
        QStringLiteral("QTableView { border: none; border-right: 1px solid palette(mid); }"));
    m_frozen->hide();
    viewport()->stackUnder(m_frozen);

    // The frozen part follows the main view: its rows, its scroll position, its column widths.
    connect(
        verticalScrollBar(), &QScrollBar::valueChanged, m_frozen->verticalScrollBar(), &QScrollBar::setValue);
    connect(
        m_frozen->verticalScrollBar(), &QScrollBar::valueChanged, verticalScrollBar(), &QScrollBar::setValue);
    connect(horizontalHeader(), &QHeaderView::sectionResized, this, [this](int column, int, int size) {
        if (column < m_count) {
            // Hiding a column resizes it to 0: the frozen copy hides it too.
            m_frozen->setColumnHidden(column, size == 0);
            if (size > 0)
                m_frozen->setColumnWidth(column, size);
            placeFrozen();
        }
    });
    connect(verticalHeader(), &QHeaderView::sectionResized, this,
        [this](int row, int, int size) { m_frozen->setRowHeight(row, size); });
    // Sorting from the frozen header sorts the model both views share; the main header shows it.
    connect(m_frozen->horizontalHeader(), &QHeaderView::sortIndicatorChanged, this,
        [this](int column, Qt::SortOrder order) {
            if (isSortingEnabled() && horizontalHeader()->sortIndicatorSection() != column)
                sortByColumn(column, order);
        });
}

void FrozenTableView::setFrozenColumns(int count)
{
    m_count = std::max(0, count);
    syncColumns();
}

void FrozenTableView::setModel(QAbstractItemModel* model)
{
    QTableView::setModel(model);
    m_frozen->setModel(model);
    m_frozen->setSelectionModel(selectionModel());
    if (model) {
        connect(model, &QAbstractItemModel::columnsInserted, this, &FrozenTableView::syncColumns);
        connect(model, &QAbstractItemModel::modelReset, this, &FrozenTableView::syncColumns);
        connect(model, &QAbstractItemModel::layoutChanged, this, &FrozenTableView::syncColumns);
    }
    syncColumns();
}

void FrozenTableView::syncColumns()
{
    QAbstractItemModel* model = this->model();
    const bool on = model && m_count > 0 && model->columnCount() > m_count;
    m_frozen->setVisible(on);
    if (!on)
        return;
    m_frozen->setVerticalScrollMode(verticalScrollMode()); // the two scroll bars count alike
    m_frozen->setSelectionBehavior(selectionBehavior());
    m_frozen->setSelectionMode(selectionMode());
    m_frozen->setAlternatingRowColors(alternatingRowColors());
    m_frozen->setShowGrid(showGrid());
    m_frozen->setWordWrap(wordWrap());
    m_frozen->setEditTriggers(editTriggers());
    // Enabling sorting sorts by the header's indicator: the main view's, so the shared model keeps
    // its order (a "model order" of -1 included).
    m_frozen->horizontalHeader()->setSortIndicator(
        horizontalHeader()->sortIndicatorSection(), horizontalHeader()->sortIndicatorOrder());
    m_frozen->setSortingEnabled(isSortingEnabled());
    m_frozen->horizontalHeader()->setDefaultAlignment(horizontalHeader()->defaultAlignment());
    m_frozen->horizontalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    m_frozen->verticalHeader()->setDefaultSectionSize(verticalHeader()->defaultSectionSize());
    for (int c = 0; c < model->columnCount(); ++c) {
        m_frozen->setColumnHidden(c, c >= m_count || isColumnHidden(c));
        if (c < m_count)
            m_frozen->setColumnWidth(c, columnWidth(c));
    }
    for (int r = 0; r < model->rowCount(); ++r)
        m_frozen->setRowHeight(r, rowHeight(r));
    placeFrozen();
}

int FrozenTableView::frozenWidth() const
{
    int width = 0;
    for (int c = 0; c < m_count && model() && c < model()->columnCount(); ++c)
        width += columnWidth(c);
    return width;
}

void FrozenTableView::placeFrozen()
{
    if (!m_frozen->isVisible())
        return;
    m_frozen->setGeometry(verticalHeader()->width() + frameWidth(), frameWidth(), frozenWidth(),
        viewport()->height() + horizontalHeader()->height());
    m_frozen->horizontalHeader()->setFixedHeight(horizontalHeader()->height());
    m_frozen->verticalScrollBar()->setValue(verticalScrollBar()->value());
}

void FrozenTableView::resizeEvent(QResizeEvent* event)
{
    QTableView::resizeEvent(event);
    placeFrozen();
}

void FrozenTableView::updateGeometries()
{
    QTableView::updateGeometries();
    placeFrozen();
}

QModelIndex FrozenTableView::moveCursor(CursorAction action, Qt::KeyboardModifiers modifiers)
{
    const QModelIndex current = QTableView::moveCursor(action, modifiers);
    // Moving left onto a column hidden under the frozen part scrolls it out from under.
    if (action == MoveLeft && current.column() >= m_count
        && visualRect(current).topLeft().x() < frozenWidth()) {
        const int shift = visualRect(current).topLeft().x() - frozenWidth();
        horizontalScrollBar()->setValue(horizontalScrollBar()->value() + shift);
    }
    return current;
}

void FrozenTableView::scrollTo(const QModelIndex& index, ScrollHint hint)
{
    // The frozen columns are always in view: scrolling to one of them only brings its row in.
    const int sideways = horizontalScrollBar()->value();
    QTableView::scrollTo(index, hint);
    if (index.column() < m_count)
        horizontalScrollBar()->setValue(sideways);
}

} // namespace qs
