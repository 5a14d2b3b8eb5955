// SPDX-License-Identifier: MIT
#include "widgets/ViewParts.h"

#include <QIcon>
#include <QLabel>
#include <QPainter>
#include <QPainterPath>
#include <QPixmap>
#include <QTableWidget>

namespace qs {

QLabel* plainLabel(QWidget* parent, const QString& objectName)
{
    auto* label = new QLabel(parent);
    label->setObjectName(objectName);
    label->setTextFormat(Qt::PlainText);
    label->setWordWrap(true);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    return label;
}

QTableWidgetItem* tableCell(QTableWidget* table, int row, int column)
{
    QTableWidgetItem* item = table->item(row, column);
    if (!item) {
        item = new QTableWidgetItem;
        item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsSelectable);
        table->setItem(row, column, item);
    }
    return item;
}

namespace {

/// One shape at every size a toolbar or menu asks for, so it is drawn, not scaled.
QIcon drawnIcon(const QColor& color, bool play)
{
    QIcon icon;
    for (const int size : {16, 24, 32, 48}) {
        QPixmap pixmap(size, size);
        pixmap.fill(Qt::transparent);
        QPainter p(&pixmap);
        p.setRenderHint(QPainter::Antialiasing);
        p.setPen(Qt::NoPen);
        p.setBrush(color);
        const qreal m = size * 0.18;
        if (play) {
            QPainterPath triangle;
            triangle.moveTo(m + size * 0.06, m);
            triangle.lineTo(size - m, size / 2.0);
            triangle.lineTo(m + size * 0.06, size - m);
            triangle.closeSubpath();
            p.drawPath(triangle);
        } else {
            p.drawRoundedRect(QRectF(m, m, size - 2 * m, size - 2 * m), size * 0.08, size * 0.08);
        }
        p.end();
        icon.addPixmap(pixmap);
    }
    return icon;
}

} // namespace

QIcon playIcon(const QColor& color)
{
    return drawnIcon(color, true);
}

QIcon stopIcon(const QColor& color)
{
    return drawnIcon(color, false);
}

} // namespace qs
