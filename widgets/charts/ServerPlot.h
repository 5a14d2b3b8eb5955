// SPDX-License-Identifier: MIT
#pragma once

#include "widgets/Theme.h"
#include "widgets/charts/ChartReadout.h"
#include "widgets/charts/ServerTimeline.h"
#include "widgets/charts/ZoomRange.h"

#include <QStringList>
#include <QWidget>
#include <optional>

class QPainter;

namespace qs {

/// Paints a ServerTimeline as four small charts stacked on one time axis — requests running
/// (solid) and waiting (dashed), KV-cache use (%), memory used (GB), power (W) — one line per
/// endpoint in its colour, broken where a scrape failed, over a lane with each endpoint's
/// requests. Painted rather than built from Qt Charts: the charts must share one plot width,
/// lines must break at gaps, and an hour of samples must redraw in a few milliseconds (each line
/// is decimated to the pixel columns it covers).
///
/// Explored like the Qt Charts panels (ChartExplorer): over the charts a crosshair runs through
/// all four strips and the lane, with a readout of the strip under the pointer; the wheel zooms
/// the time axis around the pointer, a drag pans it, a double-click or Escape returns to the
/// whole run. The range setRange() gives is home: a live run moves it, a user's zoom stays.
class ServerPlot : public QWidget {
    Q_OBJECT
public:
    /// The four charts, top to bottom.
    enum class Strip { Requests, KvCache, Memory, Power };

    explicit ServerPlot(QWidget* parent = nullptr);

    /// What to draw; `timeline` must outlive the plot or the next call. Repaints.
    void setTimeline(const ServerTimeline* timeline, const QStringList& endpointLabels);
    /// The time axis, ms from the run's start: the whole range, shown unless the user zoomed.
    void setRange(double fromMs, double toMs);
    /// The range shown (the user's while zoomed).
    double fromMs() const { return m_fromMs; }
    double toMs() const { return m_toMs; }
    bool isZoomed() const { return m_zoom.zoomed(); }
    /// Zooms by `factor` (< 1 narrows) around the time `atMs`, as the wheel does.
    void zoomAround(double atMs, double factor);
    void resetZoom();
    /// Another chart's crosshair, ms from the run's start; none clears it.
    void setSharedCrosshair(std::optional<double> atMs);
    std::optional<double> sharedCrosshair() const { return m_sharedMs; }
    /// What the readout box says now (the pointer's strip, or the shared crosshair's time).
    QString currentReadout() const;
    void setTheme(Theme theme);
    /// Non-empty: drawn in the middle instead of the charts (the empty state).
    void setMessage(const QString& message);
    QString message() const { return m_message; }

    /// The title of a strip as drawn, e.g. "Memory used, GB · GPU framebuffer".
    QString stripTitle(Strip strip) const;
    /// What a strip says when no endpoint has its figure; empty when it has lines.
    QString stripNote(Strip strip) const;
    /// The upper end of a strip's value axis as last painted (for tests).
    double stripTop(Strip strip) const;
    /// Where the four charts are drawn (the lane and the time axis are below), and the x of a
    /// time (ms) in it.
    QRect chartArea() const;
    double xAt(double ms) const;

    QSize minimumSizeHint() const override { return {420, 360}; }
    /// What the tooltip says at `pos`: the time and each endpoint's values in the strip under
    /// it; empty outside the charts.
    QString readout(const QPoint& pos) const;
    /// The same, a line per row with the endpoints' colours, as the box draws it.
    QList<ReadoutLine> readoutLines(const QPoint& pos) const;
    /// The time (ms) at the x of `pos`.
    double msAt(int x) const;

Q_SIGNALS:
    /// The pointer is over the charts at this time (ms), or left them.
    void hovered(double atMs);
    void left();
    void zoomChanged();

protected:
    void paintEvent(QPaintEvent* event) override;
    bool event(QEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    void leaveEvent(QEvent* event) override;

private:
    struct Line {
        MetricRole role;
        bool dashed;
    };
    std::vector<Line> linesOf(Strip strip, int endpoint) const;
    double scaleOf(Strip strip) const; ///< role unit → axis unit
    void labelMemoryKinds(QPainter& p, const QRect& titleRow) const;
    QString label(int endpoint) const;
    int endpointCount() const;
    void showZoom(); ///< the zoom's range as the one shown; repaints
    void paintCrosshair(QPainter& p, const QRect& area, int bottom) const;

    const ServerTimeline* m_timeline = nullptr;
    QStringList m_labels;
    double m_fromMs = 0;
    double m_toMs = 60000;
    Theme m_theme = Theme::Light;
    QString m_message;
    mutable std::array<double, 4> m_tops {};
    ZoomRange m_zoom;
    std::optional<QPoint> m_hover; ///< the pointer over the charts
    std::optional<double> m_sharedMs; ///< another chart's crosshair
    std::optional<double> m_dragX; ///< where a pan started
};

} // namespace qs
