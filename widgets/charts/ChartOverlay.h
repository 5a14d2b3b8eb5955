// SPDX-License-Identifier: MIT
#pragma once

#include "widgets/Theme.h"
#include "widgets/charts/ChartReadout.h"

#include <QGraphicsItem>

class QChart;
class QPainter;

namespace qs {

/// Draws a readout as a small box: one row per line, a series' colour as a dot before its row,
/// on the theme's base colour with a thin border. Placed beside `anchor` (below right of it,
/// flipped to stay inside `bounds`). Returns the box drawn. Shared by the Qt Charts overlay and
/// the painted Server plot so that both read alike.
QRectF paintReadoutBox(
    QPainter& p, const QList<ReadoutLine>& lines, const QPointF& anchor, const QRectF& bounds, Theme theme);

/// The gestures every explorable chart takes, as its plot's corner says them.
QString exploreHint();

/// What is drawn over a chart while it is explored: the crosshair (a vertical line, or a band
/// over a category), the readout box, and a one-line hint of the gestures in the plot's corner.
/// A child item of the chart, above its series; it never takes the mouse.
class ChartOverlay : public QGraphicsItem {
public:
    explicit ChartOverlay(QChart* chart);

    /// Shows `readout` with its box beside `anchor` (chart coordinates); the crosshair at its x.
    void show(const Readout& readout, const QPointF& anchor);
    void clear();
    /// The gestures' hint, drawn while the pointer is over the plot; empty: none.
    void setHint(const QString& hint);
    void setTheme(Theme theme);
    bool isShowing() const { return !m_readout.isEmpty() || m_readout.x.has_value(); }
    /// Where the crosshair line stands, in chart coordinates; none when hidden.
    std::optional<double> crosshairX() const;

    QRectF boundingRect() const override;
    void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

private:
    QChart* m_chart;
    Readout m_readout;
    QPointF m_anchor;
    QString m_hint;
    Theme m_theme = Theme::Light;
};

} // namespace qs
