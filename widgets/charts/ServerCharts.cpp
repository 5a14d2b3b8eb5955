// SPDX-License-Identifier: MIT
#include "widgets/charts/ServerCharts.h"

#include <QTimer>
#include <algorithm>

namespace qs {

namespace {

constexpr double LiveMinimumMs = 60000; ///< the live axis starts a minute wide, then grows
constexpr int RepaintMs = 250;

QString seconds(double ms)
{
    const double s = ms / 1000;
    if (s < 120)
        return QStringLiteral("%1 s").arg(s, 0, 'f', s < 10 ? 1 : 0);
    return QStringLiteral("%1 min").arg(s / 60, 0, 'f', 1);
}

} // namespace

QString noServerMetricsText()
{
    return QStringLiteral("No server metrics: llama-server needs --metrics; add a DCGM or node exporter URL "
                          "in the endpoint editor.");
}

ServerCharts::ServerCharts(QWidget* parent)
    : ChartPanel(parent)
    , m_plot(new ServerPlot)
    , m_timer(new QTimer(this))
{
    m_plot->setObjectName(QStringLiteral("serverPlot"));
    setPlotWidget(m_plot);
    setTitle(QStringLiteral("Server"));
    setDefinition(QStringLiteral(
        "What each endpoint's server reported while it answered, scraped from Prometheus pages on the same "
        "clock as the requests (s since the run started):\n"
        "• Requests: running and waiting (queued) on the server — llama-server requests_processing / "
        "requests_deferred, vLLM num_requests_running / waiting, SGLang num_running_reqs / num_queue_reqs.\n"
        "• KV cache used: vLLM kv_cache_usage_perc (or gpu_cache_usage_perc), SGLang token_usage.\n"
        "• Memory used, GB (10^9 bytes): the GPU framebuffer (DCGM exporter) where the endpoint has one, "
        "else host memory (node exporter: MemTotal − MemAvailable), what unified-memory machines report.\n"
        "• GPU power, W (DCGM exporter).\n"
        "One line per endpoint, in its colour. A scrape that failed breaks the line: nothing is "
        "interpolated across a gap. Below, the requests each endpoint was sent."));
    m_timer->setInterval(RepaintMs);
    connect(m_timer, &QTimer::timeout, this, [this] {
        if (m_dirty)
            refresh();
    });
    connect(m_plot, &ServerPlot::hovered, this, [this](double atMs) { shareCrosshair(atMs / 1000); });
    connect(m_plot, &ServerPlot::left, this, [this] { leaveCrosshair(); });
    connect(m_plot, &ServerPlot::zoomChanged, this, [this] { setZoomedState(m_plot->isZoomed()); });
    refresh();
}

void ServerCharts::showCrosshair(const QVariant& at)
{
    bool ok = false;
    const double seconds = at.toDouble(&ok);
    m_plot->setSharedCrosshair(at.isValid() && ok ? std::optional<double>(seconds * 1000) : std::nullopt);
}

void ServerCharts::setData(const DashboardData& next)
{
    m_data = next;
    const RunResult* result = next.result.get();
    if (!m_live) {
        m_labels.clear();
        for (int e = 0; result && e < int(result->endpoints.size()); ++e)
            m_labels << endpointTitle(*result, e);
        // The same run evaluated again (intervals after medians, another baseline): same picture.
        if (result != m_built) {
            m_timeline.clear();
            m_spansOf = nullptr;
            if (result) {
                if (next.serverPoints)
                    addPoints(*next.serverPoints);
                else // normally prepared off the GUI thread; one pass over the samples
                    addPoints(serverPoints(result->telemetry));
            }
            m_built = result;
        }
    }
    // Live, the points come from the runner; the records so far give the request spans.
    if (result && result != m_spansOf) {
        m_timeline.setRequests(*result);
        m_spansOf = result;
    }
    refresh();
}

void ServerCharts::beginLive(const QStringList& endpointLabels)
{
    m_labels = endpointLabels;
    m_timeline.clear();
    m_built = nullptr;
    m_spansOf = nullptr;
    m_live = true;
    m_plot->resetZoom(); // a new run: follow it
    m_timer->start();
    refresh();
}

void ServerCharts::addPoint(const ServerPoint& point)
{
    m_timeline.add(point);
    m_dirty = true;
}

void ServerCharts::addPoints(const std::vector<ServerPoint>& points)
{
    for (const ServerPoint& p : points)
        m_timeline.add(p);
    m_dirty = true;
}

void ServerCharts::endLive()
{
    m_timer->stop();
    m_live = false;
    refresh();
}

QString ServerCharts::emptyMessage() const
{
    const RunResult* result = m_data.result.get();
    if (!m_live && !result)
        return QStringLiteral("No data yet: run, or open a results file. ") + noServerMetricsText();
    if (!m_live && !result->settings.serverMetrics && result->telemetry.empty())
        return QStringLiteral("Server metrics were not collected for this run (scraping was off: "
                              "--no-server-metrics).");
    QString text = m_live && m_timeline.scrapes() == 0
        ? QStringLiteral("Waiting for the first server metrics sample…\n\n") + noServerMetricsText()
        : noServerMetricsText();
    if (m_timeline.failedScrapes() > 0)
        text += QStringLiteral("\n\n%1 of %2 scrapes failed; the last: %3")
                    .arg(m_timeline.failedScrapes())
                    .arg(m_timeline.scrapes())
                    .arg(m_timeline.lastError());
    if (!m_live && result && !result->telemetry.notes.isEmpty())
        text += QStringLiteral("\n\n") + result->telemetry.notes.join(QStringLiteral("\n"));
    return text;
}

void ServerCharts::refresh()
{
    m_dirty = false;
    m_plot->setTimeline(&m_timeline, m_labels);
    if (!m_timeline.hasValues()) {
        const QString message = emptyMessage();
        m_plot->setMessage(message);
        setSubtitle(m_live ? QStringLiteral("Live: what the servers report, as it is scraped.")
                           : QStringLiteral("What the servers reported while they answered."));
        return;
    }
    m_plot->setMessage({});
    const double from = std::min(0.0, m_timeline.firstMs());
    double to = std::max(m_timeline.lastMs(), from + 1000);
    if (m_live)
        to = std::max(to, LiveMinimumMs);
    m_plot->setRange(from, to);

    int period = 0;
    if (const RunResult* r = m_data.result.get())
        period = r->telemetry.periodMs > 0 ? r->telemetry.periodMs : m_live ? r->settings.scrapeMs : 0;
    QString text = m_live ? QStringLiteral("Live, %1 of the run so far").arg(seconds(to - from))
                          : QStringLiteral("The whole run (%1)").arg(seconds(to - from));
    text += QStringLiteral(": %1 scrapes").arg(m_timeline.scrapes());
    if (period > 0)
        text += QStringLiteral(" every %1 ms").arg(period);
    if (m_timeline.failedScrapes() > 0)
        text += QStringLiteral(", %1 failed (gaps in the lines; last: %2)")
                    .arg(m_timeline.failedScrapes())
                    .arg(m_timeline.lastError());
    setSubtitle(text + u'.');
}

void ServerCharts::applyTheme()
{
    ChartPanel::applyTheme();
    if (m_plot)
        m_plot->setTheme(theme());
}

} // namespace qs
