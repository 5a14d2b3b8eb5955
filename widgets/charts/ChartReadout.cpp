// SPDX-License-Identifier: MIT
#include "widgets/charts/ChartReadout.h"

#include <QAreaSeries>
#include <QChart>
#include <QLineSeries>
#include <QLocale>
#include <QScatterSeries>
#include <algorithm>
#include <cmath>
#include <limits>

namespace qs {

namespace {

constexpr double dotRadiusPx = 10; ///< how near a dot the pointer must be to read it
constexpr double sameXPx = 3; ///< lines whose points are this close to the snapped x are read there

QString nameOf(const QAbstractSeries* s)
{
    const QString short_ = s->property(readoutNameProperty).toString();
    return short_.isEmpty() ? s->name() : short_;
}

QString roleOf(const QAbstractSeries* s)
{
    return s->property(readoutRoleProperty).toString();
}

QColor opaque(QColor c)
{
    c.setAlphaF(1);
    return c;
}

/// The point of `series` whose x is nearest `x` on screen, and how far it is in pixels; mapped
/// through the axes of `on` (a band's edges are not on the chart themselves: their band is).
std::optional<std::pair<QPointF, double>> nearestInX(
    QChart* chart, QXYSeries* series, double px, QAbstractSeries* on = nullptr)
{
    std::optional<std::pair<QPointF, double>> best;
    const QList<QPointF> points = series->points();
    for (const QPointF& p : points) {
        const double d = std::abs(chart->mapToPosition(p, on ? on : series).x() - px);
        if (!best || d < best->second)
            best = {p, d};
    }
    return best;
}

/// The value of a polyline at `x`, linear between its points; none outside its span.
std::optional<double> interpolate(QXYSeries* series, double x)
{
    const QList<QPointF> points = series->points();
    for (qsizetype i = 0; i + 1 < points.size(); ++i) {
        const QPointF a = points[i];
        const QPointF b = points[i + 1];
        if ((x >= a.x() && x <= b.x()) || (x >= b.x() && x <= a.x()))
            return b.x() == a.x() ? a.y() : a.y() + (b.y() - a.y()) * (x - a.x()) / (b.x() - a.x());
    }
    return std::nullopt;
}

bool isPlainLine(const QAbstractSeries* s)
{
    return s->type() == QAbstractSeries::SeriesTypeLine || s->type() == QAbstractSeries::SeriesTypeSpline;
}

/// Every line's value at the pixel column `px`: the crosshair part of a readout.
Readout linesAt(QChart* chart, double px, const ReadoutFormat& format)
{
    // The x to read at: the nearest point of a line with points of its own (a turn, a bucket);
    // curves only (a model) read wherever the pointer is.
    std::optional<double> snapX;
    double snapPx = std::numeric_limits<double>::max();
    for (QAbstractSeries* s : chart->series()) {
        if (!s->isVisible() || !isPlainLine(s) || roleOf(s) == u"skip" || roleOf(s) == u"curve")
            continue;
        auto* xy = static_cast<QXYSeries*>(s);
        if (const auto near = nearestInX(chart, xy, px); near && near->second < snapPx) {
            snapPx = near->second;
            snapX = near->first.x();
        }
    }
    Readout r;
    QAbstractSeries* any = nullptr;
    for (QAbstractSeries* s : chart->series())
        if (s->isVisible() && (isPlainLine(s) || s->type() == QAbstractSeries::SeriesTypeArea))
            any = s;
    if (!any)
        return r;
    const double x = snapX ? *snapX : chart->mapToValue(QPointF(px, chart->plotArea().center().y()), any).x();
    const double atPx = snapX ? chart->mapToPosition(QPointF(x, 0), any).x() : px;
    QList<ReadoutLine> bands;

    for (QAbstractSeries* s : chart->series()) {
        if (!s->isVisible() || roleOf(s) == u"skip")
            continue;
        if (auto* area = qobject_cast<QAreaSeries*>(s)) {
            if (!area->upperSeries() || !area->lowerSeries())
                continue;
            const auto hi = nearestInX(chart, area->upperSeries(), atPx, area);
            const auto lo = nearestInX(chart, area->lowerSeries(), atPx, area);
            if (hi && lo && hi->second <= sameXPx && lo->second <= sameXPx)
                bands.append({QStringLiteral("%1 · %2–%3")
                                  .arg(nameOf(area), readoutNumber(lo->first.y()),
                                      format.y.arg(readoutNumber(hi->first.y()))),
                    opaque(area->brush().color())});
            continue;
        }
        if (!isPlainLine(s))
            continue;
        auto* xy = static_cast<QXYSeries*>(s);
        std::optional<double> y;
        if (roleOf(s) == u"curve") {
            y = interpolate(xy, x);
        } else if (const auto near = nearestInX(chart, xy, atPx); near && near->second <= sameXPx) {
            y = near->first.y();
        }
        if (y)
            r.lines.append(
                {nameOf(s) + QStringLiteral(" · ") + format.y.arg(readoutNumber(*y)), opaque(xy->color())});
    }
    if (r.lines.isEmpty() && bands.isEmpty())
        return r;
    // Bands after the lines: a chart adds them first only so that its lines draw over them.
    r.lines.append(bands);
    r.lines.prepend({format.x.arg(readoutNumber(x)), QColor()});
    r.x = x;
    r.shared = x;
    return r;
}

} // namespace

QString Readout::text() const
{
    QStringList out;
    for (const ReadoutLine& l : lines)
        out << l.text;
    return out.join(u'\n');
}

QString readoutNumber(double v)
{
    if (!std::isfinite(v))
        return QStringLiteral("—");
    const double a = std::abs(v);
    const int decimals = a == std::round(a) || a >= 100 ? 0 : a >= 10 ? 1 : 2;
    QLocale english(QLocale::English);
    return english.toString(v, 'f', decimals);
}

Readout xyReadout(QChart* chart, const QPointF& pos, const ReadoutFormat& format)
{
    if (!chart->plotArea().adjusted(-dotRadiusPx, -dotRadiusPx, dotRadiusPx, dotRadiusPx).contains(pos))
        return {};
    // A dot under the pointer is one request or prompt: its own numbers.
    QScatterSeries* bestSeries = nullptr;
    QPointF best;
    double bestPx = dotRadiusPx;
    for (QAbstractSeries* s : chart->series()) {
        auto* dots = qobject_cast<QScatterSeries*>(s);
        if (!dots || !dots->isVisible() || roleOf(s) == u"skip")
            continue;
        const QList<QPointF> points = dots->points();
        for (const QPointF& p : points) {
            const double d = QLineF(chart->mapToPosition(p, dots), pos).length();
            if (d < bestPx) {
                bestPx = d;
                best = p;
                bestSeries = dots;
            }
        }
    }
    if (bestSeries) {
        Readout r;
        r.lines.append({QStringLiteral("%1 · %2 · %3")
                            .arg(nameOf(bestSeries), format.x.arg(readoutNumber(best.x())),
                                format.y.arg(readoutNumber(best.y()))),
            opaque(bestSeries->color())});
        r.x = best.x();
        r.shared = best.x();
        return r;
    }
    if (!chart->plotArea().contains(pos))
        return {};
    return linesAt(chart, pos.x(), format);
}

Readout xyReadoutAtX(QChart* chart, double x, const ReadoutFormat& format)
{
    for (QAbstractSeries* s : chart->series()) {
        if (!s->isVisible() || !(isPlainLine(s) || s->type() == QAbstractSeries::SeriesTypeArea))
            continue;
        const double px = chart->mapToPosition(QPointF(x, 0), s).x();
        const QRectF plot = chart->plotArea();
        if (px < plot.left() - 0.5 || px > plot.right() + 0.5)
            return {};
        return linesAt(chart, px, format);
    }
    return {};
}

} // namespace qs
