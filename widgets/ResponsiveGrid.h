// SPDX-License-Identifier: MIT
#pragma once

#include <QList>
#include <QWidget>

class QGridLayout;

namespace qs {

/// Lays its widgets out in two columns when there is room for two readable charts side by side,
/// in one column otherwise (a laptop screen with the side panels open).
class ResponsiveGrid : public QWidget {
    Q_OBJECT
public:
    /// `twoColumnWidth`: the width from which two columns are used.
    explicit ResponsiveGrid(int twoColumnWidth = 1100, QWidget* parent = nullptr);
    void addWidget(QWidget* widget);
    int columns() const { return m_columns; }

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    void relayout(int columns);
    QGridLayout* m_grid;
    QList<QWidget*> m_widgets;
    int m_twoColumnWidth;
    int m_columns = 2;
};

} // namespace qs
