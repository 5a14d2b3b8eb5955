// SPDX-License-Identifier: MIT
#include "widgets/charts/LiveThroughputChart.h"

#include "widgets/charts/ChartExplorer.h"

#include <QChart>
#include <QLineSeries>
#include <QTimer>
#include <QValueAxis>
#include <algorithm>
#include <cmath>

namespace qs {

namespace {

constexpr double liveWindowS = 60;
constexpr int reviewMaxPoints = 600;

QString seconds(double s)
{
    if (s < 120)
        return QStringLiteral("%1 s").arg(s, 0, 'f', s < 10 ? 1 : 0);
    return QStringLiteral("%1 min").arg(s / 60, 0, 'f', 1);
}

} // namespace

LiveThroughputChart::LiveThroughputChart(QWidget* parent)
    : ChartPanel(parent)
    , m_x(new QValueAxis)
    , m_y(new QValueAxis)
    , m_timer(new QTimer(this))
{
    setTitle(QStringLiteral("Stream events per second (≈ tokens/s)"));
    setDefinition(QStringLiteral(
        "Counts token-bearing stream events, not tokens: every SSE event that carries reasoning, content "
        "or a tool-call fragment counts once, per endpoint, in 0.5 s buckets on the run's clock "
        "(s since the run started), divided by the bucket length.\n"
        "llama-server, vLLM and SGLang send one token per event unless they batch under load, so this is "
        "a close proxy of tokens/s; when a server batches, events/s is lower than tokens/s.\n"
        "Warm-up requests are included: the server was busy with them too. Live: the last 60 s; review: "
        "the whole run, neighbouring buckets averaged to at most 600 points."));
    m_x->setTitleText(QStringLiteral("s since run start"));
    m_x->setLabelFormat(QStringLiteral("%.0f"));
    m_y->setTitleText(QStringLiteral("events/s (≈ tokens/s)"));
    m_y->setLabelFormat(QStringLiteral("%.0f"));
    chart()->addAxis(m_x, Qt::AlignBottom);
    chart()->addAxis(m_y, Qt::AlignLeft);
    setZoomAxis(m_x);
    setReadoutFormat({QStringLiteral("%1 s"), QStringLiteral("%1 events/s")});
    // Zoomed in, the buckets under the new range are drawn at full resolution.
    connect(explorer(), &ChartExplorer::zoomChanged, this, [this] {
        if (m_live) {
            m_dirty = true;
            redraw();
        } else if (!m_data.isEmpty()) {
            drawReview();
        }
    });

    m_timer->setInterval(100); // 10 Hz: smooth enough, and the chart never keeps up with deltas
    connect(m_timer, &QTimer::timeout, this, &LiveThroughputChart::redraw);
    drawReview();
}

void LiveThroughputChart::setData(const DashboardData& next)
{
    m_data = next;
    if (!m_live) // while live the runner's deltas are the truth, not the records so far
        drawReview();
}

void LiveThroughputChart::beginLive(const QStringList& endpointLabels)
{
    m_labels = endpointLabels;
    m_trace = ThroughputTrace();
    m_trace.ensureEndpoints(int(endpointLabels.size()));
    m_lastAtMs = 0;
    m_live = true;
    m_dirty = true;
    m_drawnBuckets = -1;
    m_sinceDeltas.start();
    resetZoom(); // a new run: follow it
    chart()->removeAllSeries();
    redraw();
    m_timer->start();
}

void LiveThroughputChart::addDeltas(const QList<LiveDelta>& deltas)
{
    for (const LiveDelta& d : deltas) {
        // A delta that opens a request may carry nothing: only token-bearing events count.
        if (d.content.isEmpty() && d.reasoning.isEmpty() && !d.toolCall)
            continue;
        m_trace.add(d.endpoint, d.atMs);
        m_lastAtMs = std::max(m_lastAtMs, d.atMs);
        m_dirty = true;
    }
    m_sinceDeltas.restart();
}

void LiveThroughputChart::endLive()
{
    m_timer->stop();
    m_live = false;
    m_dirty = false;
    // The run as the deltas saw it, whole, until setData() brings the records' own trace.
    if (m_trace.buckets() == 0) {
        showMessage(QStringLiteral("No token-bearing stream event arrived during this run."));
        return;
    }
    draw(m_trace, m_labels, 0, m_trace.buckets(), reviewMaxPoints);
    setNiceRange(m_x, m_trace.buckets() * m_trace.bucketMs() / 1000, true);
    setSubtitle(QStringLiteral("Token-bearing stream events per second over the whole run (%1), as they "
                               "arrived.")
                    .arg(seconds(m_trace.buckets() * m_trace.bucketMs() / 1000)));
}

void LiveThroughputChart::redraw()
{
    if (!m_live)
        return;
    // Only complete buckets: the one still filling would dip at the right edge. "Now" moves on
    // between deltas, so a stalled server shows as a drop to 0 rather than a frozen line.
    const double nowMs = m_lastAtMs + double(m_sinceDeltas.elapsed());
    const int complete = int(nowMs / m_trace.bucketMs());
    if (!m_dirty && complete == m_drawnBuckets)
        return;
    m_dirty = false;
    m_drawnBuckets = complete;
    if (m_trace.buckets() == 0 || complete == 0) {
        showMessage(QStringLiteral("Waiting for the first streamed token…"));
        return;
    }
    const int window = int(liveWindowS * 1000 / m_trace.bucketMs());
    const auto [first, last]
        = shownBuckets(std::max(0, complete - window), complete, complete, m_trace.bucketMs());
    draw(m_trace, m_labels, first, last, isZoomed() ? reviewMaxPoints : window);
    // A scrolling window with ticks that stay on round seconds; the user may pan or zoom out
    // over the whole run so far, and stays there while the run goes on.
    const double endS = std::max(liveWindowS, complete * m_trace.bucketMs() / 1000);
    explorer()->setLimits(0, endS);
    m_x->setTickType(QValueAxis::TicksDynamic);
    m_x->setTickAnchor(0);
    m_x->setTickInterval(10);
    m_x->setLabelFormat(QStringLiteral("%.0f"));
    m_x->setRange(endS - liveWindowS, endS);
    setSubtitle(QStringLiteral("Token-bearing stream events per second, %1 buckets, last 60 s of the run.")
                    .arg(seconds(m_trace.bucketMs() / 1000)));
}

void LiveThroughputChart::drawReview()
{
    if (m_data.isEmpty()) {
        showMessage(QStringLiteral("No data yet: the trace starts with the first streamed token of a run."));
        return;
    }
    std::shared_ptr<const ThroughputTrace> trace = m_data.trace;
    if (!trace) // normally prepared off the GUI thread; this is one pass over the events
        trace = std::make_shared<const ThroughputTrace>(throughputTrace(*m_data.result));
    if (trace->buckets() == 0) {
        showMessage(QStringLiteral("No token-bearing stream event in this run."));
        return;
    }
    QStringList labels;
    for (int e = 0; e < int(m_data.result->endpoints.size()); ++e)
        labels.append(endpointTitle(*m_data.result, e));
    const int merge = (trace->buckets() + reviewMaxPoints - 1) / reviewMaxPoints;
    const auto [first, last] = shownBuckets(0, trace->buckets(), trace->buckets(), trace->bucketMs());
    explorer()->setLimits(0, trace->buckets() * trace->bucketMs() / 1000);
    draw(*trace, labels, first, last, reviewMaxPoints);
    setNiceRange(m_x, trace->buckets() * trace->bucketMs() / 1000, true);
    setSubtitle(QStringLiteral("Token-bearing stream events per second over the whole run (%1), %2 buckets; "
                               "warm-ups included.")
                    .arg(seconds(trace->buckets() * trace->bucketMs() / 1000),
                        seconds(merge * trace->bucketMs() / 1000)));
}

std::pair<int, int> LiveThroughputChart::shownBuckets(
    int first, int last, int complete, double bucketMs) const
{
    if (!isZoomed())
        return {first, last};
    const double bucketS = bucketMs / 1000;
    const int from = std::clamp(int(std::floor(explorer()->lo() / bucketS)) - 1, 0, complete);
    const int to = std::clamp(int(std::ceil(explorer()->hi() / bucketS)) + 1, from, complete);
    return {from, to};
}

void LiveThroughputChart::draw(
    const ThroughputTrace& trace, const QStringList& labels, int first, int last, int maxPoints)
{
    const int endpoints = std::max(trace.endpoints(), int(labels.size()));
    const int merge = std::max(1, (last - first + maxPoints - 1) / std::max(1, maxPoints));
    const double bucketS = trace.bucketMs() / 1000;

    // Same endpoints as last time: replace the points in place (10 Hz while live).
    QList<QLineSeries*> lines;
    for (QAbstractSeries* s : chart()->series())
        if (auto* line = qobject_cast<QLineSeries*>(s))
            lines.append(line);
    const bool recreate = lines.size() != endpoints;
    if (recreate) {
        chart()->removeAllSeries();
        lines.clear();
        for (int e = 0; e < endpoints; ++e) {
            auto* line = new QLineSeries;
            line->setProperty(endpointProperty, e);
            chart()->addSeries(line);
            line->attachAxis(m_x);
            line->attachAxis(m_y);
            lines.append(line);
        }
    }
    showPlot();

    double top = 0;
    for (int e = 0; e < endpoints; ++e) {
        QList<QPointF> points;
        points.reserve((last - first) / merge + 1);
        for (int b = first; b < last; b += merge) {
            const int end = std::min(last, b + merge);
            qint64 events = 0;
            for (int i = b; i < end; ++i)
                events += trace.count(e, i);
            // Plotted at the middle of the (merged) bucket it averages over.
            const double rate = double(events) / (double(end - b) * bucketS);
            points.append(QPointF((b + (end - b) / 2.0) * bucketS, rate));
            top = std::max(top, rate);
        }
        lines[e]->setName(e < labels.size() ? labels[e] : QStringLiteral("endpoint %1").arg(e));
        lines[e]->replace(points);
    }
    setNiceRange(m_y, top > 0 ? top * 1.05 : 10);
    if (recreate)
        applyTheme();
}

void LiveThroughputChart::applyTheme()
{
    for (QAbstractSeries* series : chart()->series()) {
        if (auto* line = qobject_cast<QLineSeries*>(series)) {
            const QColor color = endpointColor(line->property(endpointProperty).toInt(), theme());
            line->setPen(QPen(color, 1.8));
        }
    }
    ChartPanel::applyTheme();
}

} // namespace qs
