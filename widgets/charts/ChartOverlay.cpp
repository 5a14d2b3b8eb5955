// SPDX-License-Identifier: MIT
#include "widgets/charts/ChartOverlay.h"

#include <QAbstractSeries>
#include <QChart>
#include <QFontMetricsF>
#include <QPainter>

namespace qs {

namespace {

constexpr double padPx = 6;
constexpr double dotPx = 8; ///< the colour dot's column
constexpr double offsetPx = 14; ///< between the pointer and the box

} // namespace

QString exploreHint()
{
    return QStringLiteral("wheel: zoom · drag: pan · double-click or Esc: reset");
}

QRectF paintReadoutBox(
    QPainter& p, const QList<ReadoutLine>& lines, const QPointF& anchor, const QRectF& bounds, Theme theme)
{
    if (lines.isEmpty())
        return {};
    const ThemeColors& c = themeColors(theme);
    const QFontMetricsF fm(p.font());
    double textW = 0;
    bool dots = false;
    for (const ReadoutLine& l : lines) {
        textW = std::max(textW, fm.horizontalAdvance(l.text));
        dots = dots || l.color.isValid();
    }
    const double indent = dots ? dotPx + 4 : 0;
    const double rowH = fm.height();
    QSizeF size(textW + indent + 2 * padPx, rowH * double(lines.size()) + 2 * padPx);
    // Below right of the pointer; flipped left or up where the plot ends, so it never hides
    // the point being read.
    QPointF at(anchor.x() + offsetPx, anchor.y() + offsetPx);
    if (at.x() + size.width() > bounds.right())
        at.setX(anchor.x() - offsetPx - size.width());
    if (at.y() + size.height() > bounds.bottom())
        at.setY(anchor.y() - offsetPx - size.height());
    at.setX(std::max(at.x(), bounds.left()));
    at.setY(std::max(at.y(), bounds.top()));
    const QRectF box(at, size);

    p.save();
    p.setRenderHint(QPainter::Antialiasing);
    QColor fill = c.base;
    fill.setAlphaF(0.94f);
    p.setPen(QPen(c.grid.darker(theme == Theme::Dark ? 70 : 130), 1));
    p.setBrush(fill);
    p.drawRoundedRect(box, 4, 4);
    double y = box.top() + padPx;
    bool first = true;
    for (const ReadoutLine& l : lines) {
        if (l.color.isValid()) {
            p.setPen(Qt::NoPen);
            p.setBrush(l.color);
            p.drawEllipse(
                QPointF(box.left() + padPx + dotPx / 2, y + rowH / 2), dotPx / 2 - 0.5, dotPx / 2 - 0.5);
        }
        // A header (the x, the test) without a colour is muted; numbers read in the text colour.
        p.setPen(first && !l.color.isValid() ? c.mutedText : c.text);
        p.drawText(QRectF(box.left() + padPx + (l.color.isValid() ? indent : 0), y, textW + indent, rowH),
            Qt::AlignLeft | Qt::AlignVCenter, l.text);
        y += rowH;
        first = false;
    }
    p.restore();
    return box;
}

ChartOverlay::ChartOverlay(QChart* chart)
    : QGraphicsItem(chart)
    , m_chart(chart)
{
    setZValue(1000); // over every series and label
    setAcceptedMouseButtons(Qt::NoButton);
    setAcceptHoverEvents(false);
}

void ChartOverlay::show(const Readout& readout, const QPointF& anchor)
{
    prepareGeometryChange();
    m_readout = readout;
    m_anchor = anchor;
    update();
}

void ChartOverlay::clear()
{
    if (!isShowing() && m_hint.isEmpty())
        return;
    prepareGeometryChange();
    m_readout = {};
    m_hint.clear();
    update();
}

void ChartOverlay::setHint(const QString& hint)
{
    if (hint == m_hint)
        return;
    m_hint = hint;
    update();
}

void ChartOverlay::setTheme(Theme theme)
{
    m_theme = theme;
    update();
}

std::optional<double> ChartOverlay::crosshairX() const
{
    if (!m_readout.x || m_chart->series().isEmpty())
        return std::nullopt;
    return m_chart->mapToPosition(QPointF(*m_readout.x, 0), m_chart->series().constFirst()).x();
}

QRectF ChartOverlay::boundingRect() const
{
    // The whole chart: the box may sit anywhere in it, and the chart is at most a screen.
    return m_chart->rect();
}

void ChartOverlay::paint(QPainter* painter, const QStyleOptionGraphicsItem*, QWidget*)
{
    const QRectF plot = m_chart->plotArea();
    const ThemeColors& c = themeColors(m_theme);
    QPainter& p = *painter;
    p.setFont(m_chart->font());
    if (!m_hint.isEmpty()) {
        QFont small = p.font();
        small.setPointSizeF(small.pointSizeF() * 0.85);
        p.setFont(small);
        p.setPen(c.mutedText);
        p.drawText(plot.adjusted(4, 2, -4, -2), Qt::AlignRight | Qt::AlignBottom, m_hint);
        p.setFont(m_chart->font());
    }
    if (const std::optional<double> x = crosshairX(); x && m_readout.band && !m_chart->series().isEmpty()) {
        // A category spans one unit of the axis: [x − ½, x + ½].
        QAbstractSeries* s = m_chart->series().constFirst();
        const double a = m_chart->mapToPosition(QPointF(*m_readout.x - 0.5, 0), s).x();
        const double b = m_chart->mapToPosition(QPointF(*m_readout.x + 0.5, 0), s).x();
        QColor band = c.text;
        band.setAlphaF(m_theme == Theme::Dark ? 0.10f : 0.06f);
        p.fillRect(QRectF(QPointF(std::min(a, b), plot.top()), QPointF(std::max(a, b), plot.bottom())), band);
    } else if (x && *x >= plot.left() - 0.5 && *x <= plot.right() + 0.5) {
        QPen pen(c.mutedText, 1, Qt::DashLine);
        p.setPen(pen);
        p.drawLine(QPointF(*x, plot.top()), QPointF(*x, plot.bottom()));
    }
    paintReadoutBox(p, m_readout.lines, m_anchor, plot, m_theme);
}

} // namespace qs
