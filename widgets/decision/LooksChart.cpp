// SPDX-License-Identifier: MIT
#include "widgets/decision/LooksChart.h"

#include "widgets/charts/NiceScale.h"
#include "widgets/decision/DecisionText.h"
#include "widgets/responses/ResponseFormatting.h"

#include <QEvent>
#include <QHelpEvent>
#include <QPainter>
#include <QPainterPath>
#include <QTextLayout>
#include <QToolTip>
#include <algorithm>
#include <cmath>

namespace qs {

namespace {

constexpr int PlotHeight = 70; ///< each plot's value axis, px: small, but a dozen fit a screen
constexpr int MinCellWidth = 280; ///< below this a two-line title and six looks get cramped
constexpr int CellGap = 18; ///< between plots side by side
constexpr int MaxTitleLines = 2;
constexpr double MinAxisPoints = 9; ///< axis text never smaller than this

bool finite(double v)
{
    return std::isfinite(v);
}

/// "1.1", "120", "−0.15": a limit or a readout value, with a real minus sign.
QString number(double v)
{
    return QString::number(v, 'g', 4).replace(u'-', QChar(0x2212));
}

QString tickText(double v, int decimals)
{
    if (std::fabs(v) < 1e-12)
        v = 0; // no "−0"
    return QString::number(v, 'f', decimals).replace(u'-', QChar(0x2212));
}

} // namespace

LooksChart::LooksChart(QWidget* parent)
    : QWidget(parent)
{
    setObjectName(QStringLiteral("looksChart"));
    QSizePolicy policy(QSizePolicy::Preferred, QSizePolicy::Preferred);
    policy.setHeightForWidth(true);
    setSizePolicy(policy);
    setAttribute(Qt::WA_OpaquePaintEvent);
}

void LooksChart::setLooks(
    const UntilDecided& run, int candidate, const QHash<QString, QString>& titles, const QString& note)
{
    std::vector<Column> columns;
    std::vector<Series> series;
    QHash<QString, std::size_t> rowOf;
    for (const DecisionLook& look : run.looks) {
        const auto verdict = std::find_if(look.verdicts.begin(), look.verdicts.end(),
            [candidate](const LookVerdict& v) { return v.candidate == candidate; });
        if (verdict == look.verdicts.end())
            continue; // judged against another baseline, or this candidate was not in the run
        const std::size_t index = columns.size();
        // Looks sit on a log scale of prompts: the rounds grow geometrically, so evenly.
        columns.push_back({QString::number(look.prompts),
            QStringLiteral("look %1, %2 distinct prompts, at %3 %")
                .arg(QString::number(look.look), QString::number(look.prompts), lookLevelText(look.share)),
            std::log(std::max(1, look.prompts)), look.prompts});
        for (const LookCriterion& c : verdict->criteria) {
            auto found = rowOf.find(c.id);
            if (found == rowOf.end()) {
                found = rowOf.insert(c.id, series.size());
                series.push_back({c.id, titles.value(c.id, c.id), {}});
            }
            Row& row = series[*found];
            row.at.resize(index + 1);
            Mark& m = row.at[index];
            m.present = true;
            m.outcome = c.outcome;
            m.estimate = c.estimate;
            m.interval = c.interval;
            m.limit = c.limit;
            m.worseAbove = c.worseAbove;
        }
    }
    setSeries(
        std::move(columns), std::move(series), QStringLiteral("x: distinct prompts at each look"), note);
}

void LooksChart::setSeries(
    std::vector<Column> columns, std::vector<Series> series, const QString& axis, const QString& note)
{
    m_looks = std::move(columns);
    m_rows = std::move(series);
    m_axis = axis;
    m_note = note;
    for (Row& row : m_rows) {
        row.at.resize(m_looks.size());
        for (Mark& m : row.at) {
            if (m.estimate && !finite(*m.estimate))
                m.estimate.reset();
            if (m.limit && !finite(*m.limit))
                m.limit.reset();
        }
    }
    // Only what has an interval somewhere draws anything worth a plot: the rest are counts
    // (certain) or not measured, and the table says so.
    const auto before = m_rows.size();
    std::erase_if(m_rows, [](const Row& row) {
        return std::none_of(row.at.begin(), row.at.end(),
            [](const Mark& m) { return m.interval && (finite(m.interval->lo) || finite(m.interval->hi)); });
    });
    m_undrawn = int(before - m_rows.size());
    updateGeometry();
    update();
}

void LooksChart::clear()
{
    setLooks(UntilDecided {}, -1, {});
}

void LooksChart::setTheme(Theme theme)
{
    m_theme = theme;
    update();
}

std::vector<int> LooksChart::lookPrompts() const
{
    std::vector<int> prompts;
    for (const Column& l : m_looks)
        prompts.push_back(l.prompts);
    return prompts;
}

QStringList LooksChart::criterionIds() const
{
    QStringList ids;
    for (const Row& r : m_rows)
        ids << r.id;
    return ids;
}

QStringList LooksChart::drawnTitles() const
{
    const Geometry g = geometryAt(width());
    QStringList titles;
    for (const Row& r : m_rows)
        titles << titleLines(r.title, g.cellWidth).join(u' ');
    return titles;
}

QStringList LooksChart::legendTexts() const
{
    QStringList texts;
    for (const LegendEntry& e : legendAt(std::max(width(), MinCellWidth)))
        texts << e.text;
    return texts;
}

int LooksChart::columnsAt(int width) const
{
    return geometryAt(width > 0 ? width : this->width()).columns;
}

QFont LooksChart::axisFont() const
{
    QFont f = font();
    if (f.pointSizeF() > 0 && f.pointSizeF() < MinAxisPoints)
        f.setPointSizeF(MinAxisPoints);
    return f;
}

QFont LooksChart::titleFont() const
{
    QFont f = axisFont();
    f.setBold(true);
    return f;
}

QStringList LooksChart::titleLines(const QString& title, int width) const
{
    const QFont font = titleFont();
    QTextLayout layout(title, font);
    QTextOption option;
    option.setWrapMode(QTextOption::WrapAtWordBoundaryOrAnywhere);
    layout.setTextOption(option);
    QList<int> starts;
    layout.beginLayout();
    for (QTextLine line = layout.createLine(); line.isValid(); line = layout.createLine()) {
        line.setLineWidth(std::max(1, width));
        starts << line.textStart();
    }
    layout.endLayout();
    QStringList lines;
    for (int i = 0; i < starts.size() && i < MaxTitleLines; ++i) {
        const int end = i + 1 < starts.size() ? starts[i + 1] : int(title.size());
        lines << title.mid(starts[i], end - starts[i]).trimmed();
    }
    if (starts.size() > MaxTitleLines) // the rest of the title on the last line, cut short
        lines.back() = QFontMetrics(font).elidedText(
            title.mid(starts[MaxTitleLines - 1]).trimmed(), Qt::ElideRight, width);
    return lines;
}

std::vector<LooksChart::LegendEntry> LooksChart::legendAt(int width) const
{
    std::vector<LegendEntry> entries {{0, QStringLiteral("pass"), {}}, {1, QStringLiteral("fail"), {}},
        {2, QStringLiteral("inconclusive"), {}}, {3, QStringLiteral("estimate"), {}},
        {4, QStringLiteral("limit (worse side shaded)"), {}}, {5, m_axis, {}}};
    if (m_undrawn > 0)
        entries.push_back(
            {5, QStringLiteral("%1 more without an interval (counts, not measured)").arg(m_undrawn), {}});
    if (!m_note.isEmpty())
        entries.push_back({5, m_note, {}});
    const QFontMetrics fm(axisFont());
    const int lineHeight = fm.height() + 4;
    int x = 0, y = 2;
    for (LegendEntry& e : entries) {
        const int mark = e.kind == 5 ? 0 : (e.kind == 4 ? 22 : 12) + 5;
        const int w = mark + fm.horizontalAdvance(e.text);
        if (x > 0 && x + w > width) {
            x = 0;
            y += lineHeight;
        }
        e.rect = QRect(x, y, w, lineHeight);
        x += w + 18;
    }
    return entries;
}

LooksChart::Geometry LooksChart::geometryAt(int width) const
{
    Geometry g;
    width = std::max(width, MinCellWidth);
    const std::vector<LegendEntry> legend = legendAt(width);
    g.legendHeight = legend.empty() ? 0 : legend.back().rect.bottom() + 8;
    const int n = std::max(1, int(m_rows.size()));
    const int most = std::max(1, (width + CellGap) / (MinCellWidth + CellGap));
    // As few lines of plots as the width allows, then as wide as they can be: 11 criteria in
    // five columns would leave one alone on the third line; in four they fill three evenly.
    const int lines = (n + most - 1) / most;
    g.columns = (n + lines - 1) / lines;
    g.cellWidth = (width - (g.columns - 1) * CellGap) / g.columns;
    for (const Row& r : m_rows)
        g.titleLines = std::max(g.titleLines, int(titleLines(r.title, g.cellWidth).size()));
    const QFontMetrics title(titleFont());
    const QFontMetrics axis(axisFont());
    g.cellHeight
        = g.titleLines * title.lineSpacing() + 4 + axis.height() / 2 + PlotHeight + 4 + axis.height() + 14;
    return g;
}

QRect LooksChart::cellRect(const Geometry& g, int index) const
{
    const int column = index % g.columns;
    const int line = index / g.columns;
    return {
        column * (g.cellWidth + CellGap), g.legendHeight + line * g.cellHeight, g.cellWidth, g.cellHeight};
}

int LooksChart::heightForLines(int width, int lines) const
{
    if (m_rows.empty())
        return 0;
    const Geometry g = geometryAt(width);
    const int all = (int(m_rows.size()) + g.columns - 1) / g.columns;
    return g.legendHeight + std::clamp(lines, 0, all) * g.cellHeight;
}

int LooksChart::heightForWidth(int width) const
{
    return heightForLines(width, int(m_rows.size()));
}

QSize LooksChart::sizeHint() const
{
    return {900, heightForWidth(900)};
}

QSize LooksChart::minimumSizeHint() const
{
    return {MinCellWidth, 0};
}

void LooksChart::paintEvent(QPaintEvent*)
{
    const ThemeColors& c = themeColors(m_theme);
    QPainter p(this);
    p.fillRect(rect(), c.window);
    if (m_rows.empty())
        return;
    p.setRenderHint(QPainter::Antialiasing);
    const Geometry g = geometryAt(width());

    // The legend: what the marks mean, once for every plot.
    p.setFont(axisFont());
    const QFontMetrics fm(p.font());
    for (const LegendEntry& e : legendAt(width())) {
        const QRect r = e.rect;
        const int mid = r.center().y();
        int textX = r.left();
        if (e.kind <= 2) {
            const ShownOutcome o = e.kind == 0 ? ShownOutcome::Pass
                : e.kind == 1                  ? ShownOutcome::Fail
                                               : ShownOutcome::Inconclusive;
            p.setPen(QPen(outcomeAccent(o, m_theme), 1.5));
            p.setBrush(outcomeColors(o, m_theme).background);
            p.drawRect(QRectF(r.left() + 2.5, mid - fm.height() / 2.0 + 1.5, 7, fm.height() - 3));
            textX += 17;
        } else if (e.kind == 3) {
            p.setPen(QPen(c.base, 1));
            p.setBrush(c.text);
            p.drawEllipse(QPointF(r.left() + 6, mid), 3.5, 3.5);
            textX += 17;
        } else if (e.kind == 4) {
            p.fillRect(QRectF(r.left(), mid - fm.height() / 2.0 + 1, 22, fm.height() / 2.0 - 1),
                outcomeColors(ShownOutcome::Fail, m_theme).background);
            p.setPen(QPen(c.text, 1.2, Qt::DashLine));
            p.drawLine(QPointF(r.left(), mid), QPointF(r.left() + 22, mid));
            textX += 27;
        }
        p.setPen(e.kind == 5 ? c.mutedText : c.text);
        p.drawText(QRect(textX, r.top(), r.right() - textX + 1, r.height()), Qt::AlignLeft | Qt::AlignVCenter,
            e.text);
    }
    for (int i = 0; i < int(m_rows.size()); ++i)
        paintCell(p, m_rows[std::size_t(i)], cellRect(g, i), g);
}

void LooksChart::paintCell(QPainter& p, const Row& row, const QRect& cell, const Geometry& g) const
{
    const ThemeColors& c = themeColors(m_theme);
    p.setFont(titleFont());
    const QFontMetrics titleMetrics(p.font());
    p.setPen(c.text);
    const QStringList title = titleLines(row.title, cell.width());
    for (int i = 0; i < title.size(); ++i)
        p.drawText(QPoint(cell.left(), cell.top() + i * titleMetrics.lineSpacing() + titleMetrics.ascent()),
            title[i]);

    // The value axis holds every interval, estimate and limit of every look, with a little air.
    double lo = INFINITY, hi = -INFINITY;
    auto take = [&](std::optional<double> v) {
        if (v && finite(*v)) {
            lo = std::min(lo, *v);
            hi = std::max(hi, *v);
        }
    };
    std::optional<double> lastLimit;
    bool worseAbove = true;
    for (const Mark& m : row.at) {
        take(m.estimate);
        take(m.limit);
        if (m.interval) {
            take(m.interval->lo);
            take(m.interval->hi);
        }
        if (m.limit) {
            lastLimit = m.limit;
            worseAbove = m.worseAbove;
        }
    }
    if (!(hi > lo)) {
        const double half = std::max(std::fabs(lo) * 0.1, 1e-3);
        lo -= half;
        hi += half;
    }
    const double pad = (hi - lo) * 0.08;
    lo -= pad;
    hi += pad;
    const NiceScale scale = niceScale(hi - lo, 4);
    std::vector<double> ticks;
    for (double t = std::ceil(lo / scale.step) * scale.step; t <= hi + 1e-9 * scale.step; t += scale.step)
        ticks.push_back(t);

    p.setFont(axisFont());
    const QFontMetrics fm(p.font());
    const QString limitText = lastLimit ? number(*lastLimit) : QString();
    int labelWidth = fm.horizontalAdvance(limitText);
    for (double t : ticks)
        labelWidth = std::max(labelWidth, fm.horizontalAdvance(tickText(t, scale.decimals)));
    const int top = cell.top() + g.titleLines * titleMetrics.lineSpacing() + 4 + fm.height() / 2;
    const QRectF plot(cell.left() + labelWidth + 6.5, top + 0.5, cell.width() - labelWidth - 14, PlotHeight);
    auto yOf = [&](double v) { return plot.bottom() - (v - lo) / (hi - lo) * plot.height(); };

    // Each column at its x (inset by a bar's width so the first and last bars stay inside).
    const double inset = std::min(18.0, plot.width() / 4);
    const double first = m_looks.front().x;
    const double last = m_looks.back().x;
    auto xOf = [&](std::size_t i) {
        if (m_looks.size() == 1)
            return plot.center().x();
        const double f
            = last > first ? (m_looks[i].x - first) / (last - first) : double(i) / double(m_looks.size() - 1);
        return plot.left() + inset + f * (plot.width() - 2 * inset);
    };

    p.fillRect(plot, c.base);
    // The worse side of the limit, and the limit itself: a step line when it moved between
    // looks (a limit set by the baseline's own figure).
    QPolygonF limitLine;
    for (std::size_t i = 0; i < row.at.size(); ++i)
        if (row.at[i].limit) {
            const double y = yOf(*row.at[i].limit);
            const double x = xOf(i);
            if (limitLine.isEmpty())
                limitLine << QPointF(plot.left(), y);
            else
                limitLine << QPointF((limitLine.back().x() + x) / 2, limitLine.back().y())
                          << QPointF((limitLine.back().x() + x) / 2, y);
            limitLine << QPointF(x, y);
        }
    if (!limitLine.isEmpty()) {
        limitLine << QPointF(plot.right(), limitLine.back().y());
        QPolygonF worse = limitLine;
        const double edge = worseAbove ? plot.top() : plot.bottom();
        worse << QPointF(plot.right(), edge) << QPointF(plot.left(), edge);
        p.save();
        p.setClipRect(plot);
        p.setPen(Qt::NoPen);
        QColor shade = outcomeColors(ShownOutcome::Fail, m_theme).background;
        shade.setAlpha(150);
        p.setBrush(shade);
        p.drawPolygon(worse);
        p.restore();
    }

    // Grid and value labels; the limit's own label, in the text colour, wins over a tick's.
    const double limitY = lastLimit ? yOf(*lastLimit) : -1e9;
    for (double t : ticks) {
        const double y = std::round(yOf(t)) + 0.5;
        p.setPen(QPen(c.grid, 1));
        p.drawLine(QPointF(plot.left(), y), QPointF(plot.right(), y));
        if (std::fabs(y - limitY) < fm.height())
            continue;
        p.setPen(c.mutedText);
        p.drawText(QRectF(cell.left(), y - fm.height() / 2.0, labelWidth, fm.height()),
            Qt::AlignRight | Qt::AlignVCenter, tickText(t, scale.decimals));
    }
    if (lastLimit) {
        p.setPen(c.text);
        p.drawText(QRectF(cell.left(), limitY - fm.height() / 2.0, labelWidth, fm.height()),
            Qt::AlignRight | Qt::AlignVCenter, limitText);
    }
    p.setPen(QPen(c.grid.darker(130), 1));
    p.setBrush(Qt::NoBrush);
    p.drawRect(plot);
    if (!limitLine.isEmpty()) {
        p.save();
        p.setClipRect(plot);
        p.setPen(QPen(c.text, 1.3, Qt::DashLine));
        p.drawPolyline(limitLine);
        p.restore();
    }

    // The looks: the interval as a bar in its outcome's colours, the estimate as a dot.
    const double spacing
        = m_looks.size() > 1 ? (plot.width() - 2 * inset) / double(m_looks.size() - 1) : plot.width();
    const double barWidth = std::clamp(spacing * 0.45, 4.0, 11.0);
    p.save();
    p.setClipRect(plot.adjusted(-1, -1, 1, 1));
    for (std::size_t i = 0; i < row.at.size(); ++i) {
        const Mark& m = row.at[i];
        if (!m.present)
            continue;
        const double x = xOf(i);
        const ShownOutcome o = shownOutcome(m.outcome);
        if (m.interval) {
            // An end that is not finite (an unbounded side) runs off the plot.
            const double yHi = finite(m.interval->hi) ? yOf(m.interval->hi) : plot.top() - 2;
            const double yLo = finite(m.interval->lo) ? yOf(m.interval->lo) : plot.bottom() + 2;
            QRectF bar(x - barWidth / 2, std::min(yHi, yLo), barWidth, std::max(2.0, std::fabs(yLo - yHi)));
            p.setPen(QPen(outcomeAccent(o, m_theme), 1.5));
            p.setBrush(outcomeColors(o, m_theme).background);
            p.drawRect(bar);
        }
        if (m.estimate) {
            p.setPen(QPen(c.base, 1));
            p.setBrush(c.text);
            p.drawEllipse(QPointF(x, yOf(*m.estimate)), 3.5, 3.5);
        }
    }
    p.restore();

    // Each column's label under it; from the last back, so the newest is never the one left out.
    p.setPen(c.mutedText);
    double leftmost = 1e9;
    for (std::size_t i = m_looks.size(); i-- > 0;) {
        const QString text = m_looks[i].label;
        const double w = fm.horizontalAdvance(text);
        const double x = std::clamp(xOf(i) - w / 2, double(cell.left()), cell.right() - w);
        if (x + w + 4 > leftmost)
            continue;
        p.drawText(QPointF(x, plot.bottom() + 3 + fm.ascent()), text);
        leftmost = x;
    }
}

QString LooksChart::readout(const QPoint& pos) const
{
    if (m_rows.empty())
        return {};
    const Geometry g = geometryAt(width());
    for (int i = 0; i < int(m_rows.size()); ++i) {
        if (!cellRect(g, i).contains(pos))
            continue;
        const Row& row = m_rows[std::size_t(i)];
        QStringList lines {row.title == row.id ? row.id : row.title + QStringLiteral(" (") + row.id + u')'};
        for (std::size_t k = 0; k < m_looks.size(); ++k) {
            const Mark& m = row.at[k];
            if (!m.present)
                continue;
            QString line
                = m_looks[k].readout + QStringLiteral(": ") + shownOutcomeText(shownOutcome(m.outcome));
            if (m.estimate)
                line += u' ' + number(*m.estimate);
            if (m.interval)
                line += QStringLiteral(" [%1 – %2]").arg(number(m.interval->lo), number(m.interval->hi));
            if (m.limit)
                line += QStringLiteral(", limit %1 (worse %2)")
                            .arg(number(*m.limit),
                                m.worseAbove ? QStringLiteral("above") : QStringLiteral("below"));
            lines << line;
        }
        return lines.join(u'\n');
    }
    return {};
}

bool LooksChart::event(QEvent* event)
{
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        const QString text = readout(help->pos());
        if (text.isEmpty())
            QToolTip::hideText();
        else
            QToolTip::showText(help->globalPos(), plainToolTip(text), this);
        return true;
    }
    return QWidget::event(event);
}

} // namespace qs
