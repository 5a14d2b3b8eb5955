// SPDX-License-Identifier: MIT
#pragma once

#include <QTableView>

namespace qs {

/// A table whose first columns stay in place while the rest scroll sideways, as a spreadsheet's
/// frozen panes: scrolling a wide statistics table to its intervals keeps the metric and test
/// names beside them. The frozen columns are a second view over the same model and selection,
/// laid over the left edge; it follows the main view's row heights, column widths and vertical
/// scrolling, and sorting from either header sorts both.
class FrozenTableView : public QTableView {
    Q_OBJECT
public:
    explicit FrozenTableView(QWidget* parent = nullptr);

    /// Keeps the first `count` columns in place (0: none).
    void setFrozenColumns(int count);
    int frozenColumns() const { return m_count; }
    QTableView* frozenView() const { return m_frozen; }

    void setModel(QAbstractItemModel* model) override;

protected:
    void resizeEvent(QResizeEvent* event) override;
    QModelIndex moveCursor(CursorAction action, Qt::KeyboardModifiers modifiers) override;
    void scrollTo(const QModelIndex& index, ScrollHint hint = EnsureVisible) override;
    void updateGeometries() override;

private:
    void syncColumns();
    void placeFrozen();
    int frozenWidth() const;

    QTableView* m_frozen;
    int m_count = 0;
};

} // namespace qs
