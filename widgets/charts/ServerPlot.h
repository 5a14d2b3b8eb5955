// SPDX-License-Identifier: MIT
#pragma once

#include "widgets/Theme.h"
#include "widgets/charts/ServerTimeline.h"

#include <QStringList>
#include <QWidget>

class QPainter;

namespace qs {

/// Paints a ServerTimeline as four small charts stacked on one time axis — requests running
/// (solid) and waiting (dashed), KV-cache use (%), memory used (GB), power (W) — one line per
/// endpoint in its colour, broken where a scrape failed, over a lane with each endpoint's
/// requests. Painted rather than built from Qt Charts: the charts must share one plot width,
/// lines must break at gaps, and an hour of samples must redraw in a few milliseconds (each line
/// is decimated to the pixel columns it covers).
class ServerPlot : public QWidget {
    Q_OBJECT
public:
    /// The four charts, top to bottom.
    enum class Strip { Requests, KvCache, Memory, Power };

    explicit ServerPlot(QWidget* parent = nullptr);

    /// What to draw; `timeline` must outlive the plot or the next call. Repaints.
    void setTimeline(const ServerTimeline* timeline, const QStringList& endpointLabels);
    /// The time axis, ms from the run's start.
    void setRange(double fromMs, double toMs);
    double fromMs() const { return m_fromMs; }
    double toMs() const { return m_toMs; }
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

protected:
    void paintEvent(QPaintEvent* event) override;
    bool event(QEvent* event) override;

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

    const ServerTimeline* m_timeline = nullptr;
    QStringList m_labels;
    double m_fromMs = 0;
    double m_toMs = 60000;
    Theme m_theme = Theme::Light;
    QString m_message;
    mutable std::array<double, 4> m_tops {};
};

} // namespace qs
