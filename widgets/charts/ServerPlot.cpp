// SPDX-License-Identifier: MIT
#include "widgets/charts/ServerPlot.h"

#include "widgets/charts/ChartOverlay.h"
#include "widgets/charts/NiceScale.h"

#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>

namespace qs {

namespace {

constexpr std::array<ServerPlot::Strip, 4> AllStrips {ServerPlot::Strip::Requests, ServerPlot::Strip::KvCache,
    ServerPlot::Strip::Memory, ServerPlot::Strip::Power};
constexpr int LaneRowPx = 7; ///< one endpoint's row in the requests lane
constexpr qsizetype PieceLength = 32; ///< points per polyline drawn
constexpr double WheelStep = 0.8; ///< one notch narrows the range to 80 %, as on the other charts

/// A span class in the requests lane: drawn alike, merged when neighbours touch.
enum class SpanKind { Measured, Warmup, Failed };

SpanKind kindOf(const ServerTimeline::Span& s)
{
    return s.failed ? SpanKind::Failed : s.warmup ? SpanKind::Warmup : SpanKind::Measured;
}

} // namespace

ServerPlot::ServerPlot(QWidget* parent)
    : QWidget(parent)
{
    setAttribute(Qt::WA_OpaquePaintEvent);
    setMouseTracking(true); // the crosshair follows the pointer without a button
    setFocusPolicy(Qt::ClickFocus); // Escape after a click
}

void ServerPlot::setTimeline(const ServerTimeline* timeline, const QStringList& endpointLabels)
{
    m_timeline = timeline;
    m_labels = endpointLabels;
    update();
}

void ServerPlot::setRange(double fromMs, double toMs)
{
    const bool was = m_zoom.zoomed();
    m_zoom.setHome(fromMs, toMs > fromMs ? toMs : fromMs + 1000);
    showZoom();
    if (was && !m_zoom.zoomed()) // another run: its whole range
        emit zoomChanged();
}

void ServerPlot::showZoom()
{
    m_fromMs = m_zoom.lo();
    m_toMs = m_zoom.hi();
    update();
}

void ServerPlot::zoomAround(double atMs, double factor)
{
    m_zoom.zoom(atMs, factor);
    showZoom();
    emit zoomChanged();
}

void ServerPlot::resetZoom()
{
    if (!m_zoom.zoomed())
        return;
    m_zoom.reset();
    showZoom();
    emit zoomChanged();
}

void ServerPlot::setSharedCrosshair(std::optional<double> atMs)
{
    m_sharedMs = atMs;
    update();
}

double ServerPlot::msAt(int x) const
{
    const QRect area = chartArea();
    return m_fromMs + double(x - area.left()) / std::max(1, area.width()) * (m_toMs - m_fromMs);
}

QString ServerPlot::currentReadout() const
{
    QList<ReadoutLine> lines;
    if (m_hover)
        lines = readoutLines(*m_hover);
    else if (m_sharedMs)
        lines = readoutLines(QPoint(int(std::lround(xAt(*m_sharedMs))), chartArea().top() + 1));
    QStringList out;
    for (const ReadoutLine& l : lines)
        out << l.text;
    return out.join(u'\n');
}

void ServerPlot::setTheme(Theme theme)
{
    m_theme = theme;
    update();
}

void ServerPlot::setMessage(const QString& message)
{
    m_message = message;
    update();
}

QString ServerPlot::label(int endpoint) const
{
    return endpoint < m_labels.size() ? m_labels[endpoint] : QStringLiteral("endpoint %1").arg(endpoint);
}

std::vector<ServerPlot::Line> ServerPlot::linesOf(Strip strip, int endpoint) const
{
    switch (strip) {
    case Strip::Requests:
        return {{MetricRole::RequestsRunning, false}, {MetricRole::RequestsWaiting, true}};
    case Strip::KvCache:
        return {{MetricRole::KvCacheUsage, false}};
    case Strip::Memory:
        return {{m_timeline ? m_timeline->memoryRole(endpoint) : MetricRole::GpuMemoryUsed, false}};
    case Strip::Power:
        break;
    }
    return {{MetricRole::GpuPower, false}};
}

double ServerPlot::scaleOf(Strip strip) const
{
    switch (strip) {
    case Strip::KvCache:
        return 100; // ratio → %
    case Strip::Memory:
        return 1e-9; // bytes → GB
    case Strip::Requests:
    case Strip::Power:
        break;
    }
    return 1;
}

QString ServerPlot::stripTitle(Strip strip) const
{
    switch (strip) {
    case Strip::Requests:
        return QStringLiteral("Requests on the server: running (solid), waiting (dashed)");
    case Strip::KvCache:
        return QStringLiteral("KV cache used, %");
    case Strip::Memory: {
        bool gpu = false, host = false;
        for (int e = 0; m_timeline && e < m_timeline->endpoints(); ++e) {
            gpu |= !m_timeline->series(e, MetricRole::GpuMemoryUsed).empty();
            host |= m_timeline->series(e, MetricRole::GpuMemoryUsed).empty()
                && !m_timeline->series(e, MetricRole::HostMemoryUsed).empty();
        }
        const QString what = gpu && host ? QStringLiteral(" · GPU framebuffer or host memory:")
            : gpu                        ? QStringLiteral(" · GPU framebuffer")
            : host                       ? QStringLiteral(" · host (unified memory)")
                                         : QString();
        return QStringLiteral("Memory used, GB") + what;
    }
    case Strip::Power:
        break;
    }
    return QStringLiteral("GPU power, W");
}

QString ServerPlot::stripNote(Strip strip) const
{
    if (m_timeline)
        for (int e = 0; e < m_timeline->endpoints(); ++e)
            for (const Line& l : linesOf(strip, e))
                if (!m_timeline->series(e, l.role).empty())
                    return {};
    switch (strip) {
    case Strip::Requests:
        return QStringLiteral("No request gauges: the runtime's /metrics did not answer (llama-server needs "
                              "--metrics, SGLang --enable-metrics).");
    case Strip::KvCache:
        return QStringLiteral(
            "No KV-cache figure: vLLM and SGLang export one, llama-server only in some builds.");
    case Strip::Memory:
        return QStringLiteral(
            "No memory figure: add a DCGM exporter (GPU) or a node exporter (host memory) URL "
            "in the endpoint editor.");
    case Strip::Power:
        break;
    }
    return QStringLiteral("No power figure: add a DCGM exporter URL in the endpoint editor.");
}

double ServerPlot::stripTop(Strip strip) const
{
    return m_tops[std::size_t(strip)];
}

int ServerPlot::endpointCount() const
{
    return std::max(m_timeline ? m_timeline->endpoints() : 0, int(m_labels.size()));
}

QRect ServerPlot::chartArea() const
{
    // Legend, four strips, the requests lane, the time axis; one plot width for all.
    const QFontMetrics fm(font());
    const int legendH = fm.height() + 8;
    const int gutter = fm.horizontalAdvance(QStringLiteral("00000")) + 12;
    const int laneH = fm.height() + 6 + endpointCount() * (LaneRowPx + 2);
    const int axisH = 2 * fm.height() + 8;
    return QRect(gutter, legendH, std::max(10, width() - gutter - 14),
        std::max(40, height() - legendH - laneH - axisH));
}

double ServerPlot::xAt(double ms) const
{
    const QRect area = chartArea();
    return area.left() + (ms - m_fromMs) / (m_toMs - m_fromMs) * area.width();
}

QString ServerPlot::readout(const QPoint& pos) const
{
    QStringList out;
    for (const ReadoutLine& l : readoutLines(pos))
        out << l.text;
    return out.join(u'\n');
}

QList<ReadoutLine> ServerPlot::readoutLines(const QPoint& pos) const
{
    const QRect area = chartArea();
    if (!m_timeline || !m_message.isEmpty() || !area.contains(pos))
        return {};
    const int stripH = area.height() / int(AllStrips.size());
    const Strip strip
        = AllStrips[std::size_t(std::clamp((pos.y() - area.top()) / std::max(1, stripH), 0, 3))];
    const double ms = msAt(pos.x());
    const double nearMs = 4 * (m_toMs - m_fromMs) / area.width(); // a few pixels either side
    // The strip's short name and unit: the box stays narrow.
    const auto [name, unit] = [&]() -> std::pair<QString, QString> {
        switch (strip) {
        case Strip::Requests:
            return {QStringLiteral("requests on the server"), QString()};
        case Strip::KvCache:
            return {QStringLiteral("KV cache used"), QStringLiteral(" %")};
        case Strip::Memory:
            return {QStringLiteral("memory used"), QStringLiteral(" GB")};
        case Strip::Power:
            break;
        }
        return {QStringLiteral("GPU power, W"), QStringLiteral(" W")};
    }();
    QList<ReadoutLine> lines {{QStringLiteral("%1 s · %2").arg(ms / 1000, 0, 'f', 1).arg(name), QColor()}};
    for (int e = 0; e < endpointCount(); ++e) {
        QStringList values;
        for (const Line& l : linesOf(strip, e)) {
            const auto& series = m_timeline->series(e, l.role);
            // After a gap marker and before the next good point: the scrapes were failing.
            const auto next = std::upper_bound(series.begin(), series.end(), ms,
                [](double t, const ServerTimeline::Point& p) { return t < p.atMs; });
            const bool inGap = next != series.begin() && std::prev(next)->gap();
            auto it = next;
            if (it != series.begin() && (it == series.end() || ms - std::prev(it)->atMs < it->atMs - ms))
                --it;
            if (!inGap
                && (it == series.end() || it->gap() || std::abs(it->atMs - ms) > std::max(nearMs, 1000.0)))
                continue;
            const QString value = inGap
                ? QStringLiteral("no value (scrape failed)")
                : QString::number(it->value * scaleOf(strip), 'f', strip == Strip::Requests ? 0 : 1) + unit;
            if (strip == Strip::Requests)
                values << (l.dashed ? QStringLiteral("waiting ") : QStringLiteral("running ")) + value;
            else
                values << value;
        }
        if (!values.isEmpty())
            lines.append({label(e) + QStringLiteral(": ") + values.join(QStringLiteral(", ")),
                endpointColor(e, m_theme)});
    }
    return lines;
}

bool ServerPlot::event(QEvent* event)
{
    if (event->type() == QEvent::ToolTip) {
        // The readout box is drawn under the pointer, and the empty state's text says what to
        // do: the definition (behind the panel's ⓘ) may cover neither.
        event->accept();
        return true;
    }
    return QWidget::event(event);
}

void ServerPlot::mouseMoveEvent(QMouseEvent* event)
{
    const QPoint pos = event->position().toPoint();
    if (m_dragX) {
        const double dx = event->position().x() - *m_dragX;
        m_dragX = event->position().x();
        const bool was = m_zoom.zoomed();
        // The data follows the hand: dragging right shows earlier times.
        m_zoom.pan(-dx / std::max(1, chartArea().width()) * (m_toMs - m_fromMs));
        showZoom();
        if (was || m_zoom.zoomed())
            emit zoomChanged();
    }
    const bool over = m_message.isEmpty() && m_timeline && chartArea().contains(pos);
    if (over) {
        m_hover = pos;
        m_sharedMs.reset();
        emit hovered(msAt(pos.x()));
    } else if (m_hover) {
        m_hover.reset();
        emit left();
    }
    update();
}

void ServerPlot::leaveEvent(QEvent*)
{
    if (m_hover) {
        m_hover.reset();
        emit left();
        update();
    }
}

void ServerPlot::mousePressEvent(QMouseEvent* event)
{
    if ((event->button() == Qt::LeftButton || event->button() == Qt::MiddleButton) && m_message.isEmpty()
        && chartArea().contains(event->position().toPoint())) {
        setFocus(Qt::MouseFocusReason);
        m_dragX = event->position().x();
        setCursor(Qt::ClosedHandCursor);
        return;
    }
    QWidget::mousePressEvent(event);
}

void ServerPlot::mouseReleaseEvent(QMouseEvent* event)
{
    if (m_dragX) {
        m_dragX.reset();
        unsetCursor();
        return;
    }
    QWidget::mouseReleaseEvent(event);
}

void ServerPlot::mouseDoubleClickEvent(QMouseEvent*)
{
    resetZoom();
}

void ServerPlot::wheelEvent(QWheelEvent* event)
{
    const QPoint pos = event->position().toPoint();
    if (!m_message.isEmpty() || !chartArea().contains(pos)) {
        event->ignore(); // outside the charts the wheel scrolls whatever holds the plot
        return;
    }
    const QPoint delta = event->angleDelta();
    const double notches = (delta.y() != 0 ? delta.y() : delta.x()) / 120.0;
    if (notches != 0)
        zoomAround(msAt(pos.x()), std::pow(WheelStep, notches));
    event->accept();
}

void ServerPlot::keyPressEvent(QKeyEvent* event)
{
    if (event->key() == Qt::Key_Escape && m_zoom.zoomed()) {
        resetZoom();
        return;
    }
    QWidget::keyPressEvent(event);
}

void ServerPlot::paintCrosshair(QPainter& p, const QRect& area, int bottom) const
{
    const std::optional<double> x = m_hover ? std::optional<double>(m_hover->x())
        : m_sharedMs                        ? std::optional<double>(xAt(*m_sharedMs))
                                            : std::nullopt;
    if (!x || *x < area.left() || *x > area.right())
        return;
    const ThemeColors& c = themeColors(m_theme);
    p.save();
    p.setRenderHint(QPainter::Antialiasing, false);
    p.setPen(QPen(c.mutedText, 1, Qt::DashLine));
    p.drawLine(QPointF(*x, area.top()), QPointF(*x, bottom));
    p.restore();
    const QPoint anchor = m_hover ? *m_hover : QPoint(int(*x), area.top());
    const QList<ReadoutLine> lines = readoutLines(m_hover ? *m_hover : QPoint(int(*x), area.top() + 1));
    paintReadoutBox(p, lines, anchor, QRectF(area), m_theme);
    if (m_hover) {
        // The gestures, once, where the legend row ends.
        QFont small = p.font();
        small.setPointSizeF(small.pointSizeF() * 0.85);
        p.save();
        p.setFont(small);
        p.setPen(c.mutedText);
        p.drawText(QRect(area.left(), 0, area.width(), area.top()), Qt::AlignRight | Qt::AlignVCenter,
            exploreHint());
        p.restore();
    }
}

void ServerPlot::labelMemoryKinds(QPainter& p, const QRect& titleRow) const
{
    // Endpoints that differ (one GPU, one host) get a key after the title: "● GPU  ● host".
    const QFontMetrics fm(p.font());
    double x = titleRow.left() + fm.horizontalAdvance(stripTitle(Strip::Memory)) + 10;
    for (int e = 0; e < m_timeline->endpoints(); ++e) {
        const MetricRole role = m_timeline->memoryRole(e);
        if (m_timeline->series(e, role).empty())
            continue;
        const QString text
            = role == MetricRole::GpuMemoryUsed ? QStringLiteral("GPU") : QStringLiteral("host");
        p.setPen(Qt::NoPen);
        p.setBrush(endpointColor(e, m_theme));
        p.drawEllipse(QPointF(x + 4, titleRow.center().y() + 0.5), 3.5, 3.5);
        p.setPen(themeColors(m_theme).text);
        p.drawText(QRectF(x + 11, titleRow.top(), fm.horizontalAdvance(text) + 2, titleRow.height()),
            Qt::AlignLeft | Qt::AlignVCenter, text);
        x += 11 + fm.horizontalAdvance(text) + 12;
    }
}

void ServerPlot::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    const ThemeColors& c = themeColors(m_theme);
    p.fillRect(rect(), c.base);
    const QFontMetrics fm(font());
    if (!m_message.isEmpty() || !m_timeline) {
        p.setPen(c.mutedText);
        p.drawText(rect().adjusted(24, 24, -24, -24), Qt::AlignCenter | Qt::TextWordWrap, m_message);
        return;
    }
    p.setRenderHint(QPainter::Antialiasing);
    const int endpoints = endpointCount();
    const int lineH = fm.height();
    const QRect area = chartArea();
    const int legendH = area.top();
    const int gutter = area.left();
    const int laneH = lineH + 6 + endpoints * (LaneRowPx + 2);
    const double span = m_toMs - m_fromMs;
    const auto xOf = [&](double ms) { return xAt(ms); };

    // Legend: each endpoint's colour and name.
    {
        int x = gutter;
        for (int e = 0; e < endpoints; ++e) {
            const QString name
                = fm.elidedText(label(e), Qt::ElideRight, std::max(80, area.width() / endpoints - 30));
            p.setPen(Qt::NoPen);
            p.setBrush(endpointColor(e, m_theme));
            p.drawEllipse(QPointF(x + 5, legendH / 2.0), 4.5, 4.5);
            p.setPen(c.text);
            p.drawText(QPoint(x + 14, (legendH + fm.ascent() - fm.descent()) / 2), name);
            x += 14 + fm.horizontalAdvance(name) + 22;
        }
    }

    // Time ticks: seconds for short runs, minutes for long ones.
    const bool minutes = span > 300000;
    const double unitMs = minutes ? 60000 : 1000;
    const NiceScale timeScale = niceScale(span / unitMs, std::max(2, area.width() / 80), true);
    std::vector<double> timeTicks;
    for (double t = std::ceil(m_fromMs / unitMs / timeScale.step - 1e-9) * timeScale.step;
         t * unitMs <= m_toMs + 1e-6; t += timeScale.step)
        timeTicks.push_back(t);
    const auto verticalGrid = [&](int top, int bottom) {
        p.setPen(QPen(c.grid, 1));
        for (double t : timeTicks)
            p.drawLine(QPointF(xOf(t * unitMs), top), QPointF(xOf(t * unitMs), bottom));
    };

    const int stripH = area.height() / int(AllStrips.size());
    for (std::size_t i = 0; i < AllStrips.size(); ++i) {
        const Strip strip = AllStrips[i];
        const QRect sr(area.left(), area.top() + int(i) * stripH, area.width(), stripH);
        const QRect pr = sr.adjusted(0, lineH + 4, 0, -8);
        p.setPen(c.text);
        const QRect titleRow(sr.left(), sr.top(), sr.width(), lineH + 2);
        p.drawText(titleRow, Qt::AlignLeft | Qt::AlignVCenter,
            fm.elidedText(stripTitle(strip), Qt::ElideRight, sr.width()));
        if (strip == Strip::Memory && stripTitle(strip).endsWith(u':'))
            labelMemoryKinds(p, titleRow);

        // The lines of this strip, decimated to its pixel columns, and their highest value.
        const double scale = scaleOf(strip);
        struct Drawn {
            int endpoint;
            bool dashed;
            std::vector<ServerTimeline::Point> points;
        };
        std::vector<Drawn> drawn;
        double high = 0;
        for (int e = 0; e < endpoints; ++e)
            for (const Line& l : linesOf(strip, e)) {
                Drawn d {e, l.dashed,
                    ServerTimeline::decimate(m_timeline->series(e, l.role), m_fromMs, m_toMs, pr.width())};
                for (const auto& pt : d.points)
                    if (!pt.gap())
                        high = std::max(high, pt.value * scale);
                if (!d.points.empty())
                    drawn.push_back(std::move(d));
            }
        NiceScale ys;
        if (strip == Strip::KvCache) {
            ys = {25, 0, 100};
        } else {
            ys = niceScale(strip == Strip::Requests ? std::max(1.0, high) : high * 1.05, 4);
            if (strip == Strip::Requests && ys.step < 1) // whole requests
                ys = {1, 0, std::max(1.0, std::ceil(high))};
        }
        m_tops[i] = ys.top;
        const auto yOf = [&](double v) { return pr.bottom() - v * scale / ys.top * pr.height(); };

        p.setPen(QPen(c.grid, 1));
        for (double v = 0; v <= ys.top + 1e-9; v += ys.step) {
            const double y = pr.bottom() - v / ys.top * pr.height();
            p.setPen(QPen(c.grid, 1));
            p.drawLine(QPointF(pr.left(), y), QPointF(pr.right(), y));
            p.setPen(c.mutedText);
            p.drawText(QRectF(0, y - lineH / 2.0, gutter - 6, lineH), Qt::AlignRight | Qt::AlignVCenter,
                QString::number(v, 'f', ys.decimals));
        }
        verticalGrid(pr.top(), pr.bottom());

        if (drawn.empty()) {
            p.setPen(c.mutedText);
            p.drawText(pr.adjusted(8, 0, -8, 0), Qt::AlignCenter | Qt::TextWordWrap, stripNote(strip));
            continue;
        }
        p.save();
        p.setClipRect(pr.adjusted(-2, -3, 2, 3));
        for (const Drawn& d : drawn) {
            // Denser than the pixels: a band either way, and a thin aliased pen draws it 10× faster
            // than an antialiased wide one.
            const bool dense = d.points.size() >= std::size_t(pr.width());
            p.setRenderHint(QPainter::Antialiasing, !dense);
            QPen pen(endpointColor(d.endpoint, m_theme), dense ? 1 : 1.6);
            if (d.dashed)
                pen.setDashPattern({3, 2.5});
            pen.setCapStyle(Qt::FlatCap);
            p.setPen(pen);
            p.setBrush(endpointColor(d.endpoint, m_theme));
            // A gap ends a polyline; a lone point between two gaps is a dot.
            QPolygonF run;
            const auto flush = [&] {
                if (run.size() == 1) {
                    p.save();
                    p.setPen(Qt::NoPen);
                    p.drawEllipse(run.front(), 1.8, 1.8);
                    p.restore();
                } else {
                    // In short pieces: a wide antialiased pen strokes one long zigzag (a busy
                    // gauge at one point per pixel) in seconds, short ones in milliseconds.
                    for (qsizetype at = 0; at + 1 < run.size(); at += PieceLength - 1)
                        p.drawPolyline(run.constData() + at, int(std::min(PieceLength, run.size() - at)));
                }
                run.clear();
            };
            for (const auto& pt : d.points) {
                if (pt.gap())
                    flush();
                else
                    run.append(QPointF(xOf(pt.atMs), yOf(pt.value)));
            }
            flush();
        }
        p.restore();
    }

    // The requests lane: where each endpoint's requests ran, on the same axis.
    const QRect lane(area.left(), area.bottom() + 2, area.width(), laneH);
    p.setPen(c.text);
    p.drawText(QRect(lane.left(), lane.top(), lane.width(), lineH + 2), Qt::AlignLeft | Qt::AlignVCenter,
        fm.elidedText(
            QStringLiteral("Requests sent (pale: warm-up; red: failed)"), Qt::ElideRight, lane.width()));
    const int rowsTop = lane.top() + lineH + 4;
    verticalGrid(rowsTop, rowsTop + endpoints * (LaneRowPx + 2));
    p.setRenderHint(QPainter::Antialiasing, false);
    p.setPen(Qt::NoPen);
    for (int e = 0; e < endpoints; ++e) {
        const int y = rowsTop + e * (LaneRowPx + 2);
        QColor measured = endpointColor(e, m_theme);
        QColor warmup = measured;
        warmup.setAlphaF(0.35);
        const auto brushOf = [&](SpanKind k) {
            return k == SpanKind::Failed ? QBrush(c.criticalAccent)
                : k == SpanKind::Warmup  ? QBrush(warmup)
                                         : QBrush(measured);
        };
        // Neighbours of one kind that touch at this zoom are one rectangle: thousands of requests
        // cost a few hundred rectangles.
        bool open = false;
        SpanKind kind = SpanKind::Measured;
        double x0 = 0, x1 = 0;
        const auto flush = [&] {
            if (open)
                p.fillRect(QRectF(x0, y, std::max(1.0, x1 - x0), LaneRowPx), brushOf(kind));
            open = false;
        };
        for (const ServerTimeline::Span& s : m_timeline->requests(e)) {
            if (s.endMs < m_fromMs || s.startMs > m_toMs)
                continue;
            const double a = std::max(double(lane.left()), xOf(s.startMs));
            const double b = std::min(double(lane.right()), std::max(a + 1, xOf(s.endMs)));
            if (open && kindOf(s) == kind && a <= x1 + 0.5) {
                x1 = std::max(x1, b);
                continue;
            }
            flush();
            open = true;
            kind = kindOf(s);
            x0 = a;
            x1 = b;
        }
        flush();
    }
    p.setRenderHint(QPainter::Antialiasing);

    // The time axis under everything.
    const int axisTop = rowsTop + endpoints * (LaneRowPx + 2) + 2;
    p.setPen(QPen(c.grid.darker(130), 1));
    p.drawLine(QPointF(area.left(), axisTop), QPointF(area.right(), axisTop));
    p.setPen(c.mutedText);
    for (double t : timeTicks) {
        const double x = xOf(t * unitMs);
        p.drawLine(QPointF(x, axisTop), QPointF(x, axisTop + 3));
        p.drawText(QRectF(x - 40, axisTop + 3, 80, lineH), Qt::AlignHCenter | Qt::AlignTop,
            QString::number(t, 'f', timeScale.decimals));
    }
    p.drawText(QRect(area.left(), axisTop + 3 + lineH, area.width(), lineH + 2),
        Qt::AlignRight | Qt::AlignVCenter,
        minutes ? QStringLiteral("min since run start") : QStringLiteral("s since run start"));
    paintCrosshair(p, area, axisTop);
}

} // namespace qs
