// SPDX-License-Identifier: MIT
#pragma once

#include "widgets/charts/ChartPanel.h"
#include "widgets/charts/ServerPlot.h"
#include "widgets/charts/ServerTimeline.h"

#include <QList>

class QTimer;

namespace qs {

/// The "Server" chart group: what each endpoint's server reported while it answered (requests
/// running and waiting, KV-cache use, memory, power) on the run's time axis, over a lane with the
/// endpoint's requests. Live: beginLive(), then addPoint() for every scrape (cheap: appends, and a
/// 4 Hz timer repaints), endLive(). Review: setData() shows DashboardData::serverPoints (or the
/// run's telemetry) and the records' spans. A run without server metrics says how to get them.
class ServerCharts : public ChartPanel {
    Q_OBJECT
public:
    explicit ServerCharts(QWidget* parent = nullptr);

    void setData(const DashboardData& data) override;

    /// Starts a live run for these endpoint labels (clears the charts).
    void beginLive(const QStringList& endpointLabels);
    /// One scrape of one source, as RunController::serverPoint() brings it.
    void addPoint(const ServerPoint& point);
    void addPoints(const std::vector<ServerPoint>& points);
    /// The run ended: the next setData() without `live` shows the saved run's telemetry.
    void endLive();

    const ServerTimeline& timeline() const { return m_timeline; }
    ServerPlot* plot() const { return m_plot; }
    /// The empty state shown instead of the charts; empty when they are drawn.
    QString message() const { return m_plot->message(); }

    /// The plot explores itself (ServerPlot); the panel forwards to it.
    QString readout() const override { return m_plot->currentReadout(); }
    bool isZoomed() const override { return m_plot->isZoomed(); }
    void resetZoom() override { m_plot->resetZoom(); }
    /// Seconds since the run started: shared with the stream-events chart.
    CrosshairAxis crosshairAxis() const override { return CrosshairAxis::RunTime; }
    void showCrosshair(const QVariant& at) override;

protected:
    void applyTheme() override;

private:
    void refresh(); ///< range, subtitle, message; repaints
    QString emptyMessage() const;

    ServerPlot* m_plot;
    QTimer* m_timer;
    ServerTimeline m_timeline;
    DashboardData m_data;
    const RunResult* m_built = nullptr; ///< the result m_timeline was built from (review)
    const RunResult* m_spansOf = nullptr; ///< the result the request spans come from
    QStringList m_labels;
    bool m_live = false;
    bool m_dirty = false;
};

/// The empty state of the Server charts: how to get server metrics.
QString noServerMetricsText();

} // namespace qs
