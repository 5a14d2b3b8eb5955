// SPDX-License-Identifier: MIT
#pragma once

#include "widgets/charts/ZoomRange.h"

#include <QObject>
#include <QPointF>
#include <optional>

class QAbstractAxis;
class QChartView;
class QLogValueAxis;
class QValueAxis;

namespace qs {

/// The mouse on a QChartView: reports where the pointer is (for readouts and the shared
/// crosshair) and, once given an x axis to explore, zooms and pans it.
///
/// The gestures, the same on every chart: the wheel zooms the x axis around the pointer; a drag
/// with the left or middle button pans it; a double-click or Escape returns to the full view.
/// Only x: the y axis keeps the range the chart chose for all its data, so bars and medians
/// keep their scale. A log axis zooms in its logarithm.
///
/// The chart's code keeps setting its axis as before (a live chart several times a second):
/// each range it sets becomes "home", and while the user has zoomed, their range is put back at
/// once, so an update never throws the zoom away. Reset returns to home and to following it.
class ChartExplorer : public QObject {
    Q_OBJECT
public:
    explicit ChartExplorer(QChartView* view, QObject* parent = nullptr);

    /// The x axis to zoom and pan: a QValueAxis or QLogValueAxis already on the chart. Without
    /// one (category axes) the explorer only reports the pointer.
    void setAxis(QAbstractAxis* axis);
    bool zoomable() const { return m_value || m_log; }

    bool zoomed() const { return m_range.zoomed(); }
    /// The x range shown, in axis values.
    double lo() const;
    double hi() const;
    /// How far the user may pan or zoom out beyond home, in axis values (see ZoomRange).
    void setLimits(double lo, double hi);
    /// Zooms by `factor` (< 1 narrows) around the axis value `at`, as the wheel does.
    void zoomAround(double at, double factor);
    void reset();

    /// The pointer's last place over the plot (chart coordinates); none once it left.
    std::optional<QPointF> pointer() const { return m_pointer; }

Q_SIGNALS:
    void pointerMoved(const QPointF& chartPos);
    void pointerLeft();
    /// The user zoomed, panned or reset: the range shown is no longer (or again) home.
    void zoomChanged();

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void homeChanged(); ///< the chart set its axis
    void apply(); ///< puts the zoom range (and ticks for it) on the axis
    double toRange(double v) const; ///< axis value → ZoomRange's units (log for a log axis)
    double fromRange(double v) const;
    bool inPlot(const QPointF& viewportPos) const;
    QPointF toChart(const QPointF& viewportPos) const;

    /// How the chart's code left the ticks: put back on reset, replaced while zoomed.
    struct Ticks {
        int type = 0;
        double interval = 0;
        double anchor = 0;
        QString format;
    };

    QChartView* m_view;
    QValueAxis* m_value = nullptr;
    QLogValueAxis* m_log = nullptr;
    ZoomRange m_range;
    Ticks m_homeTicks;
    bool m_applying = false;
    std::optional<QPointF> m_pointer;
    std::optional<QPointF> m_dragFrom; ///< viewport position where the pan started
};

} // namespace qs
