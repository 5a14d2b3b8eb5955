// SPDX-License-Identifier: MIT
#include "widgets/charts/PromptScalingChart.h"

#include <QChart>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QScatterSeries>
#include <QValueAxis>
#include <algorithm>
#include <cmath>

namespace qs {

namespace {

constexpr int fitSamples = 64; // a straight line in tokens is a curve on the log axis

QString definition()
{
    return QStringLiteral(
        "x: the prompt tokens the server had to process: prompt_tokens − the cached tokens it reported "
        "(all prompt tokens when it reported none). y: ttft_any_ms = t(first token-bearing event) − t0.\n"
        "Dots: one per distinct prompt and turn, the median of its measured (non-warm-up), successful "
        "requests; a ring marks a prompt whose answer the expected-answer gate failed at least once.\n"
        "Lines: ordinary least squares of TTFT on uncached prompt tokens over every such request; the "
        "legend gives the slope in ms per 1,000 tokens and its 95 % interval from a bootstrap that "
        "resamples distinct prompts whole (repeats are not extra evidence). No slope over fewer than 3 "
        "distinct prompts or a span under 2×.\n"
        "Source: the context-sweep tests when the run has them, else the multi-turn conversations.");
}

/// Evenly sampled to at most `limit` (medians come sorted by tokens, so the spread survives).
QList<QPointF> sampled(const QList<QPointF>& points, int limit)
{
    const qsizetype stride = (points.size() + limit - 1) / limit;
    if (stride <= 1)
        return points;
    QList<QPointF> out;
    for (qsizetype k = 0; k < points.size(); k += stride)
        out.append(points[k]);
    return out;
}

} // namespace

PromptScalingChart::PromptScalingChart(QWidget* parent)
    : ChartPanel(parent)
    , m_x(new QLogValueAxis)
    , m_y(new QValueAxis)
{
    setTitle(QStringLiteral("Time to first token against prompt tokens"));
    setDefinition(definition());
    m_x->setBase(2);
    m_x->setLabelFormat(QStringLiteral("%.0f"));
    m_x->setMinorTickCount(0);
    m_x->setTitleText(QStringLiteral("prompt tokens (log₂ scale)"));
    m_y->setTitleText(QStringLiteral("TTFT any (ms)"));
    m_y->setLabelFormat(QStringLiteral("%.0f"));
    chart()->addAxis(m_x, Qt::AlignBottom);
    chart()->addAxis(m_y, Qt::AlignLeft);
    setZoomAxis(m_x);
    setReadoutFormat({QStringLiteral("%1 tokens"), QStringLiteral("%1 ms")});
    rebuild();
}

void PromptScalingChart::setData(const DashboardData& next)
{
    m_data = next;
    rebuild();
}

void PromptScalingChart::rebuild()
{
    if (m_data.isEmpty()) {
        showMessage(QStringLiteral("No data yet: start a run or open a results file."));
        return;
    }
    if (!m_data.evaluation) {
        showMessage(QStringLiteral("Waiting for the first evaluation of this run…"));
        return;
    }
    const RunResult& run = *m_data.result;
    const PrefillScaling& prefill = m_data.evaluation->prefill;
    if (prefill.empty()) {
        showMessage(
            QStringLiteral("No context-sweep or multi-turn test in this run: TTFT against prompt "
                           "tokens needs prompts of different lengths (run the context-sweep suite)."));
        return;
    }

    // Everything comes from the evaluation, computed off the GUI thread: no pass over the records.
    double xMin = 0, xMax = 0, yMax = 0;
    bool cached = false;
    int dropped = 0;
    std::vector<QList<QPointF>> dots(prefill.endpoints.size());
    QList<QPointF> wrong;
    for (std::size_t i = 0; i < prefill.endpoints.size(); ++i) {
        const EndpointPrefill& e = prefill.endpoints[i];
        cached = cached || e.cachedTokensTotal > 0;
        for (const PrefillPromptMedian& m : e.medians) {
            if (!(m.uncachedTokens >= 1)) { // a log axis has no 0: a prompt served wholly from cache
                ++dropped;
                continue;
            }
            dots[i].append(QPointF(m.uncachedTokens, m.ttftMs));
            if (m.right < m.graded)
                wrong.append(dots[i].back());
        }
        dots[i] = sampled(dots[i], maxDotsPerEndpoint);
        for (const QPointF& p : std::as_const(dots[i])) {
            xMin = xMin == 0 ? p.x() : std::min(xMin, p.x());
            xMax = std::max(xMax, p.x());
            yMax = std::max(yMax, p.y());
        }
    }
    if (xMax <= 0) {
        showMessage(
            QStringLiteral("No measured, successful request with a TTFT and a prompt token count yet "
                           "(%1).")
                .arg(prefill.source == PrefillSource::ContextSweep ? QStringLiteral("context-sweep tests")
                                                                   : QStringLiteral("multi-turn tests")));
        return;
    }
    // A little room either side of the data; the log axis ticks every power of two inside the
    // range (1024, 2048, …), so the range must hold one: widened to the nearest when it does not.
    double lo = xMin / 1.15;
    double hi = xMax * 1.15;
    if (std::floor(std::log2(hi)) < std::ceil(std::log2(lo))) {
        lo = std::min(lo, std::exp2(std::floor(std::log2(xMin))));
        hi = std::max(hi, lo * 2.3);
    }

    chart()->removeAllSeries();
    showPlot();
    const auto add = [&](QXYSeries* series, int endpoint, const char* role, bool inLegend) {
        addTaggedSeries(series, m_x, m_y, endpoint, role, inLegend);
    };
    std::vector<std::pair<QString, QStringList>> refused; // reason → endpoints, in endpoint order
    for (std::size_t i = 0; i < prefill.endpoints.size(); ++i) {
        const EndpointPrefill& e = prefill.endpoints[i];
        auto* series = new QScatterSeries;
        const QString name = endpointTitle(run, e.endpoint);
        series->setName(name + QStringLiteral(": ")
            + (e.msPer1kTokens ? prefillFigureText(e) : QStringLiteral("no slope")));
        if (!e.msPer1kTokens && !dots[i].isEmpty()) {
            auto same = std::find_if(
                refused.begin(), refused.end(), [&](const auto& r) { return r.first == e.reason; });
            if (same == refused.end())
                same = refused.insert(refused.end(), {e.reason, {}});
            same->second << name;
        }
        series->replace(dots[i]);
        series->setProperty(readoutNameProperty, name);
        add(series, e.endpoint, "prompts", true);
    }
    for (const EndpointPrefill& e : prefill.endpoints) {
        if (!e.msPer1kTokens || !e.interceptMs)
            continue;
        // Over the span the endpoint was fitted on, where the line says something.
        const double from = std::max(lo, e.minTokens.value_or(lo));
        const double to = std::min(hi, e.maxTokens.value_or(hi));
        if (!(to > from))
            continue;
        QList<QPointF> line;
        for (int k = 0; k <= fitSamples; ++k) {
            const double x = from * std::pow(to / from, double(k) / fitSamples);
            line.append(QPointF(x, std::max(0.0, *e.interceptMs + *e.msPer1kTokens * x / 1000.0)));
        }
        auto* fit = new QLineSeries;
        fit->setName(endpointTitle(run, e.endpoint) + QStringLiteral(" fit"));
        fit->replace(line);
        fit->setProperty(readoutRoleProperty, QStringLiteral("curve"));
        add(fit, e.endpoint, "fit", false);
        for (const QPointF& p : std::as_const(line))
            yMax = std::max(yMax, p.y());
    }
    if (!wrong.isEmpty()) {
        auto* rings = new QScatterSeries;
        rings->setName(QStringLiteral("answer wrong"));
        rings->replace(sampled(wrong, maxDotsPerEndpoint));
        rings->setProperty(readoutRoleProperty, QStringLiteral("skip")); // the dot inside is read
        add(rings, -1, "wrong", true);
    }
    m_x->setRange(lo, hi);
    m_x->setTitleText(cached ? QStringLiteral("prompt tokens processed: prompt − cached (log₂ scale)")
                             : QStringLiteral("prompt tokens (log₂ scale)"));
    setNiceRange(m_y, yMax * 1.05);

    QString mode;
    for (const SuiteCacheMode& m : prefill.cacheModes)
        mode = cacheModeText(m.mode);
    QString subtitle
        = QStringLiteral("%1: a dot per distinct prompt (median of its repeats), a line per "
                         "endpoint's fit. Prefix cache %2.")
              .arg(prefill.source == PrefillSource::ContextSweep ? QStringLiteral("Context sweep")
                                                                 : QStringLiteral("Multi-turn conversations"),
                  mode.isEmpty() ? QStringLiteral("not stated") : mode);
    for (const auto& [reason, names] : refused)
        subtitle += QStringLiteral("\nNo slope for %1: %2.").arg(names.join(QStringLiteral(", ")), reason);
    if (dropped > 0)
        subtitle += QStringLiteral("\n%1 prompts served wholly from cache are not shown (0 on a log axis).")
                        .arg(dropped);
    setSubtitle(subtitle);
    applyTheme();
}

void PromptScalingChart::applyTheme()
{
    const ThemeColors& colors = themeColors(theme());
    for (QAbstractSeries* series : chart()->series()) {
        const QString role = series->property(roleProperty).toString();
        const QColor color = endpointColor(series->property(endpointProperty).toInt(), theme());
        if (auto* dots = qobject_cast<QScatterSeries*>(series)) {
            if (role == u"wrong") {
                // A ring around the dot: the miss is seen without hiding the endpoint's colour.
                dots->setColor(Qt::transparent);
                dots->setBorderColor(colors.criticalAccent);
                dots->setPen(QPen(colors.criticalAccent, 1.6));
                dots->setMarkerSize(15);
                for (QLegendMarker* marker : chart()->legend()->markers(dots)) {
                    marker->setShape(QLegend::MarkerShapeCircle);
                    marker->setBrush(Qt::transparent);
                    marker->setPen(QPen(colors.criticalAccent, 1.6));
                }
            } else {
                QColor fill = color;
                fill.setAlphaF(theme() == Theme::Dark ? 0.85f : 0.75f);
                dots->setColor(fill);
                dots->setBorderColor(Qt::transparent);
                dots->setMarkerSize(8);
            }
        } else if (auto* line = qobject_cast<QLineSeries*>(series)) {
            QPen pen(color, 2.2);
            pen.setCapStyle(Qt::RoundCap);
            line->setPen(pen);
        }
    }
    ChartPanel::applyTheme();
}

} // namespace qs
