// SPDX-License-Identifier: MIT
#include "widgets/ResponsiveGrid.h"

#include <QGridLayout>
#include <QResizeEvent>

namespace qs {

ResponsiveGrid::ResponsiveGrid(int twoColumnWidth, QWidget* parent)
    : QWidget(parent)
    , m_grid(new QGridLayout(this))
    , m_twoColumnWidth(twoColumnWidth)
{
    m_grid->setContentsMargins(6, 6, 6, 6);
    m_grid->setSpacing(8);
}

void ResponsiveGrid::addWidget(QWidget* widget)
{
    m_widgets << widget;
    const int i = int(m_widgets.size()) - 1;
    m_grid->addWidget(widget, i / m_columns, i % m_columns);
}

void ResponsiveGrid::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    const int columns = event->size().width() >= m_twoColumnWidth ? 2 : 1;
    if (columns != m_columns)
        relayout(columns);
}

void ResponsiveGrid::relayout(int columns)
{
    m_columns = columns;
    for (QWidget* w : std::as_const(m_widgets))
        m_grid->removeWidget(w);
    for (int i = 0; i < m_widgets.size(); ++i)
        m_grid->addWidget(m_widgets[i], i / columns, i % columns);
    for (int c = 0; c < 2; ++c)
        m_grid->setColumnStretch(c, c < columns ? 1 : 0);
}

} // namespace qs
