// SPDX-License-Identifier: MIT
#pragma once

#include "model/evaluate/ThroughputTrace.h"
#include "model/run/BenchmarkRunner.h"
#include "widgets/charts/ChartPanel.h"

#include <QElapsedTimer>
#include <QList>

class QTimer;
class QValueAxis;

namespace qs {

/// Stream events per second (≈ tokens/s) per endpoint over the run's time: one line per endpoint.
/// Live: addDeltas() counts the runner's deltas and a 10 Hz timer redraws the last 60 s with
/// QXYSeries::replace() (never append: O(n) per point in Qt 6.4). Review: setData() shows the
/// whole run from DashboardData::trace.
class LiveThroughputChart : public ChartPanel {
    Q_OBJECT
public:
    explicit LiveThroughputChart(QWidget* parent = nullptr);
    void setData(const DashboardData& data) override;

    /// Starts a live trace for these endpoint labels (clears the chart).
    void beginLive(const QStringList& endpointLabels);
    /// Counts deltas (one per token-bearing event) on the run's clock. Cheap; drawing is throttled.
    void addDeltas(const QList<LiveDelta>& deltas);
    /// The run ended: stop the timer, draw once more; the next setData() without `live` shows the
    /// whole run.
    void endLive();

    const ThroughputTrace& trace() const { return m_trace; }
    /// Seconds since the run started: shared with the Server charts.
    CrosshairAxis crosshairAxis() const override { return CrosshairAxis::RunTime; }

protected:
    void applyTheme() override;

private:
    void redraw();
    /// Draws buckets [first, last) of `trace`, merging neighbours so that at most `maxPoints`
    /// points are drawn per endpoint.
    void draw(const ThroughputTrace& trace, const QStringList& labels, int first, int last, int maxPoints);
    void drawReview();
    /// The buckets to draw of a trace with `complete` buckets: [first, last) unexplored, or the
    /// ones the user zoomed to (at full resolution), with a bucket either side.
    std::pair<int, int> shownBuckets(int first, int last, int complete, double bucketMs) const;
    DashboardData m_data;
    QValueAxis* m_x;
    QValueAxis* m_y;
    QElapsedTimer m_sinceDeltas; ///< advances the live window between deltas (a stall shows as 0)
    ThroughputTrace m_trace;
    QStringList m_labels;
    QTimer* m_timer;
    double m_lastAtMs = 0;
    bool m_live = false;
    bool m_dirty = false;
    int m_drawnBuckets = -1; ///< complete buckets drawn by the last live redraw
};

} // namespace qs
