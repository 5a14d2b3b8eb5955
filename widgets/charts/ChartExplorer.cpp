// SPDX-License-Identifier: MIT
#include "widgets/charts/ChartExplorer.h"

#include "widgets/charts/NiceScale.h"

#include <QChart>
#include <QChartView>
#include <QKeyEvent>
#include <QLogValueAxis>
#include <QMouseEvent>
#include <QValueAxis>
#include <QWheelEvent>
#include <cmath>

namespace qs {

namespace {

constexpr double wheelStep = 0.8; ///< one notch narrows the range to 80 %
/// A log axis ticks at powers of its base: narrower than a little over one power, no tick is left.
constexpr double logMinimumSpan = 1.05;

} // namespace

ChartExplorer::ChartExplorer(QChartView* view, QObject* parent)
    : QObject(parent)
    , m_view(view)
{
    m_view->viewport()->installEventFilter(this);
    m_view->installEventFilter(this);
    m_view->setFocusPolicy(Qt::ClickFocus); // Escape reaches it after a click on the plot
}

void ChartExplorer::setAxis(QAbstractAxis* axis)
{
    m_value = qobject_cast<QValueAxis*>(axis);
    m_log = qobject_cast<QLogValueAxis*>(axis);
    if (m_value) {
        connect(m_value, &QValueAxis::rangeChanged, this, &ChartExplorer::homeChanged);
        // Each tick setting the chart makes is its own (kept for reset); while zoomed, the
        // zoom's ticks go straight back on.
        const auto chartSet = [this](auto record) {
            return [this, record](auto value) {
                if (m_applying)
                    return;
                record(value);
                if (zoomed())
                    apply();
            };
        };
        connect(m_value, &QValueAxis::tickTypeChanged, this,
            chartSet([this](QValueAxis::TickType t) { m_homeTicks.type = int(t); }));
        connect(m_value, &QValueAxis::tickIntervalChanged, this,
            chartSet([this](qreal v) { m_homeTicks.interval = v; }));
        connect(m_value, &QValueAxis::tickAnchorChanged, this,
            chartSet([this](qreal v) { m_homeTicks.anchor = v; }));
        connect(m_value, &QValueAxis::labelFormatChanged, this,
            chartSet([this](const QString& f) { m_homeTicks.format = f; }));
        m_homeTicks = {
            int(m_value->tickType()), m_value->tickInterval(), m_value->tickAnchor(), m_value->labelFormat()};
    } else if (m_log) {
        connect(m_log, &QLogValueAxis::rangeChanged, this, &ChartExplorer::homeChanged);
    }
    homeChanged();
}

double ChartExplorer::toRange(double v) const
{
    return m_log ? std::log(std::max(v, 1e-300)) / std::log(m_log->base()) : v;
}

double ChartExplorer::fromRange(double v) const
{
    return m_log ? std::pow(m_log->base(), v) : v;
}

double ChartExplorer::lo() const
{
    return fromRange(m_range.lo());
}

double ChartExplorer::hi() const
{
    return fromRange(m_range.hi());
}

void ChartExplorer::setLimits(double lo, double hi)
{
    m_range.setLimits(toRange(lo), toRange(hi));
}

void ChartExplorer::homeChanged()
{
    if (m_applying || !zoomable())
        return;
    const double lo = m_value ? m_value->min() : m_log->min();
    const double hi = m_value ? m_value->max() : m_log->max();
    const bool wasZoomed = zoomed();
    m_range.setHome(toRange(lo), toRange(hi));
    if (zoomed()) // the user's view goes straight back on
        apply();
    else if (wasZoomed) // the new home no longer overlaps the view (another run): follow it
        emit zoomChanged();
}

void ChartExplorer::apply()
{
    if (!zoomable())
        return;
    m_applying = true;
    if (m_value) {
        if (zoomed()) {
            // Round ticks for the span shown, on the chart's own anchor (turns stay on whole
            // numbers when a step of 1 fits).
            const NiceScale s = niceScale(hi() - lo(), 7);
            m_value->setTickType(QValueAxis::TicksDynamic);
            m_value->setTickAnchor(m_homeTicks.anchor);
            m_value->setTickInterval(s.step);
            m_value->setLabelFormat(QStringLiteral("%.") + QString::number(s.decimals) + QStringLiteral("f"));
        } else {
            m_value->setTickType(QValueAxis::TickType(m_homeTicks.type));
            m_value->setTickAnchor(m_homeTicks.anchor);
            m_value->setTickInterval(m_homeTicks.interval);
            m_value->setLabelFormat(m_homeTicks.format);
        }
        m_value->setRange(lo(), hi());
    } else {
        m_log->setRange(lo(), hi());
    }
    m_applying = false;
}

void ChartExplorer::zoomAround(double at, double factor)
{
    if (!zoomable())
        return;
    const bool was = zoomed();
    const double lo0 = m_range.lo();
    const double hi0 = m_range.hi();
    if (m_log && factor < 1 && (hi0 - lo0) * factor < logMinimumSpan)
        factor = std::min(1.0, logMinimumSpan / std::max(1e-9, hi0 - lo0));
    m_range.zoom(toRange(at), factor);
    if (m_range.lo() == lo0 && m_range.hi() == hi0 && was == zoomed())
        return;
    apply();
    emit zoomChanged();
}

void ChartExplorer::reset()
{
    if (!zoomed())
        return;
    m_range.reset();
    apply();
    emit zoomChanged();
}

QPointF ChartExplorer::toChart(const QPointF& viewportPos) const
{
    return m_view->chart()->mapFromScene(m_view->mapToScene(viewportPos.toPoint()));
}

bool ChartExplorer::inPlot(const QPointF& viewportPos) const
{
    return m_view->chart()->plotArea().contains(toChart(viewportPos));
}

bool ChartExplorer::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == m_view) {
        if (event->type() == QEvent::KeyPress && static_cast<QKeyEvent*>(event)->key() == Qt::Key_Escape
            && zoomed()) {
            reset();
            return true;
        }
        return false;
    }
    switch (event->type()) {
    case QEvent::MouseMove: {
        const auto* e = static_cast<QMouseEvent*>(event);
        if (m_dragFrom) {
            const double width = m_view->chart()->plotArea().width();
            const double dx = e->position().x() - m_dragFrom->x();
            m_dragFrom = e->position();
            if (width > 0 && dx != 0) {
                // The data follows the hand: dragging right shows earlier x.
                const bool was = zoomed();
                m_range.pan(-dx / width * (m_range.hi() - m_range.lo()));
                apply();
                if (zoomed() || was)
                    emit zoomChanged();
            }
        }
        m_pointer = toChart(e->position());
        emit pointerMoved(*m_pointer);
        return m_dragFrom.has_value(); // hovering goes on to the series (box plots' hovered)
    }
    case QEvent::ToolTip:
        // The readout is the plot's tooltip: nothing may bubble up to the panel's definition
        // and cover the data.
        event->accept();
        return true;
    case QEvent::Leave:
        m_pointer.reset();
        emit pointerLeft();
        return false;
    case QEvent::Wheel: {
        const auto* e = static_cast<QWheelEvent*>(event);
        if (!zoomable() || !inPlot(e->position()))
            return false; // outside the plot the wheel scrolls the page
        const QPoint delta = e->angleDelta();
        const double notches = (delta.y() != 0 ? delta.y() : delta.x()) / 120.0;
        if (notches == 0)
            return true;
        const QChart* chart = m_view->chart();
        const QRectF plot = chart->plotArea();
        const double share = (toChart(e->position()).x() - plot.left()) / plot.width();
        const double at = fromRange(m_range.lo() + share * (m_range.hi() - m_range.lo()));
        zoomAround(at, std::pow(wheelStep, notches));
        return true;
    }
    case QEvent::MouseButtonPress: {
        const auto* e = static_cast<QMouseEvent*>(event);
        if (!zoomable() || !(e->button() == Qt::LeftButton || e->button() == Qt::MiddleButton)
            || !inPlot(e->position()))
            return false;
        m_view->setFocus(Qt::MouseFocusReason);
        m_dragFrom = e->position();
        m_view->viewport()->setCursor(Qt::ClosedHandCursor);
        return true;
    }
    case QEvent::MouseButtonRelease:
        if (!m_dragFrom)
            return false;
        m_dragFrom.reset();
        m_view->viewport()->unsetCursor();
        return true;
    case QEvent::MouseButtonDblClick:
        if (!zoomable())
            return false;
        reset();
        return true;
    default:
        return false;
    }
}

} // namespace qs
