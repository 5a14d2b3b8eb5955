// SPDX-License-Identifier: MIT
#include "widgets/charts/MetricByTestChart.h"

#include "model/core/Percentile.h"
#include "model/core/TestNumbering.h"
#include "model/evaluate/MetricText.h"

#include <QBarCategoryAxis>
#include <QBoxPlotSeries>
#include <QBoxSet>
#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QFontMetricsF>
#include <QHBoxLayout>
#include <QSignalBlocker>
#include <QValueAxis>
#include <algorithm>
#include <cmath>

namespace qs {

namespace {

bool isTtft(Metric metric)
{
    return metric == Metric::TtftVisible || metric == Metric::TtftAny;
}

QString metricTitle(Metric metric)
{
    return metricWords(metric).chartTitle;
}

/// How the subtitle names the metric, with its unit.
QString metricLabel(Metric metric)
{
    return metricWords(metric).chartLabel;
}

/// The formula from docs/methodology.md §3.
QString metricFormula(Metric metric)
{
    return metricWords(metric).formula;
}

QString definition(Metric metric)
{
    return metricFormula(metric)
        + QStringLiteral(
            "\n\nOne box per test and endpoint, over measured (non-warm-up), successful requests, "
            "all turns: whiskers at min and max, box from p25 to p75, line at the median "
            "(type-7 percentiles). Hover a box for its numbers, or a test for every endpoint's median.");
}

QString formatValue(double v, const QString& unit)
{
    const int decimals = std::abs(v) >= 100 ? 0 : 1;
    return unit.isEmpty() ? QString::number(v, 'f', decimals)
                          : QString::number(v, 'f', decimals) + QChar(u' ') + unit;
}

} // namespace

MetricByTestChart::MetricByTestChart(Metric metric, QWidget* parent)
    : ChartPanel(parent)
    , m_metric(metric)
    , m_x(new QBarCategoryAxis)
    , m_y(new QValueAxis)
    , m_variantBox(new QComboBox)
{
    m_x->setTitleText(QStringLiteral("test"));
    m_x->setTruncateLabels(false); // test ids are the point of the axis: slant them instead
    m_y->setLabelFormat(QStringLiteral("%.0f"));
    chart()->addAxis(m_x, Qt::AlignBottom);
    chart()->addAxis(m_y, Qt::AlignLeft);

    setUpTtftVariantPicker(m_variantBox);
    controls()->addWidget(m_variantBox);
    connect(m_variantBox, &QComboBox::currentIndexChanged, this,
        [this](int index) { setMetric(index == 1 ? Metric::TtftAny : Metric::TtftVisible); });

    // Force the first setMetric() to apply everything.
    m_metric = metric == Metric::DecodeTps ? Metric::TtftAny : Metric::DecodeTps;
    setMetric(metric);
}

void MetricByTestChart::setData(const DashboardData& next)
{
    m_data = next;
    rebuild();
}

void MetricByTestChart::setMetric(Metric metric)
{
    if (metric == m_metric)
        return;
    m_metric = metric;
    {
        const QSignalBlocker blocker(m_variantBox);
        m_variantBox->setCurrentIndex(metric == Metric::TtftAny ? 1 : 0);
    }
    m_variantBox->setVisible(isTtft(metric));
    setTitle(metricTitle(metric));
    setDefinition(definition(metric));
    m_y->setTitleText(metricUnit(metric));
    rebuild();
}

void MetricByTestChart::rebuild()
{
    if (m_data.isEmpty()) {
        showMessage(QStringLiteral("No data yet: start a run or open a results file."));
        return;
    }
    const RunResult& run = *m_data.result;
    const int endpoints = int(run.endpoints.size());

    // One pass: values per endpoint × test, tests in the order they first ran.
    TestNumbering numbering;
    std::vector<std::vector<std::vector<double>>> values(static_cast<std::size_t>(endpoints));
    for (const RunRecord& r : run.records) {
        if (r.warmup || !r.request.ok() || r.endpoint < 0 || r.endpoint >= endpoints)
            continue;
        const std::optional<double> v = metricValue(r.request.metrics, m_metric);
        if (!v || !std::isfinite(*v))
            continue;
        const auto test = std::size_t(numbering.number(r.test));
        if (test == values.front().size())
            for (auto& perTest : values)
                perTest.emplace_back();
        values[std::size_t(r.endpoint)][test].push_back(*v);
    }
    const QStringList& tests = numbering.ids();
    if (tests.isEmpty()) {
        showMessage(QStringLiteral("No measured, successful request with a %1 yet.").arg(metricId(m_metric)));
        return;
    }

    chart()->removeAllSeries();
    showPlot();
    const QString unit = metricUnit(m_metric);
    double top = 0;
    for (int e = 0; e < endpoints; ++e) {
        auto* series = new QBoxPlotSeries;
        series->setName(endpointTitle(run, e));
        series->setProperty(endpointProperty, e);
        for (int t = 0; t < int(tests.size()); ++t) {
            const std::vector<double>& v = values[std::size_t(e)][std::size_t(t)];
            auto* set = new QBoxSet(tests[t]);
            if (!v.empty()) {
                const double lo = *std::min_element(v.begin(), v.end());
                const double hi = *std::max_element(v.begin(), v.end());
                const double p25 = *percentile(v, 25);
                const double p50 = *percentile(v, 50);
                const double p75 = *percentile(v, 75);
                set->setValue(QBoxSet::LowerExtreme, lo);
                set->setValue(QBoxSet::LowerQuartile, p25);
                set->setValue(QBoxSet::Median, p50);
                set->setValue(QBoxSet::UpperQuartile, p75);
                set->setValue(QBoxSet::UpperExtreme, hi);
                top = std::max(top, hi);
                set->setProperty("qsN", qulonglong(v.size()));
                set->setProperty("qsToolTip",
                    QStringLiteral("%1 · %2\nmedian %3 · n = %4\nquartiles (p25–p75) %5–%6\n"
                                   "whiskers (min–max) %7–%8")
                        .arg(tests[t], endpointTitle(run, e), formatValue(p50, unit))
                        .arg(v.size())
                        .arg(formatValue(p25, QString()), formatValue(p75, unit), formatValue(lo, QString()),
                            formatValue(hi, unit)));
            } else {
                // No box where nothing was measured (a test not reached yet in a live run, or
                // every request failed). An empty set would draw as a box at 0 — the best value
                // of all — or, in Qt 6.4, sometimes as a box up the whole axis. A set's NoPen /
                // NoBrush mean "use the series'", so it is made transparent instead.
                set->setPen(QPen(Qt::transparent));
                set->setBrush(QBrush(Qt::transparent));
                set->setProperty("qsEmpty", true);
                set->setProperty("qsToolTip",
                    QStringLiteral("%1 · %2\nno measured, successful request")
                        .arg(tests[t], endpointTitle(run, e)));
            }
            series->append(set);
        }
        // The readout box, not a tooltip: it appears at once and reads like the other charts'.
        connect(series, &QBoxPlotSeries::hovered, this, [this](bool status, QBoxSet* set) {
            if (status)
                m_hovered = set;
            else if (m_hovered == set)
                m_hovered = nullptr;
            refreshReadout();
        });
        chart()->addSeries(series);
        series->attachAxis(m_x);
        series->attachAxis(m_y);
    }
    m_x->setCategories(tests);
    setNiceRange(m_y, top * 1.05);
    fitCategoryLabels();

    setSubtitle(metricLabel(m_metric)
        + QStringLiteral(" per request, measured and successful, all turns: box = p25–p75, line = median, "
                         "whiskers = min–max."));
    applyTheme();
}

Readout MetricByTestChart::testReadout(int index) const
{
    const QStringList tests = m_x->categories();
    if (index < 0 || index >= tests.size())
        return {};
    Readout r;
    r.lines.append({tests[index], QColor()});
    const QString unit = metricUnit(m_metric);
    for (QAbstractSeries* s : chart()->series()) {
        auto* box = qobject_cast<QBoxPlotSeries*>(s);
        if (!box || index >= box->count())
            continue;
        const QBoxSet* set = box->boxSets().at(index);
        const QColor color = endpointColor(box->property(endpointProperty).toInt(), theme());
        r.lines.append({set->property("qsEmpty").toBool()
                ? box->name() + QStringLiteral(" · no data")
                : QStringLiteral("%1 · median %2 · n = %3")
                      .arg(box->name(), formatValue(set->at(QBoxSet::Median), unit))
                      .arg(set->property("qsN").toULongLong()),
            color});
    }
    r.x = index;
    r.band = true;
    r.shared = tests[index];
    return r;
}

Readout MetricByTestChart::readoutAt(const QPointF& pos)
{
    if (chart()->series().isEmpty() || !chart()->plotArea().contains(pos))
        return {};
    const int index = int(std::lround(chart()->mapToValue(pos, chart()->series().constFirst()).x()));
    Readout r = testReadout(index);
    if (r.isEmpty() || !m_hovered)
        return r;
    // Over a box: its own numbers, in its endpoint's colour.
    QColor color;
    for (QAbstractSeries* s : chart()->series())
        if (auto* box = qobject_cast<QBoxPlotSeries*>(s); box && box->boxSets().contains(m_hovered))
            color = endpointColor(box->property(endpointProperty).toInt(), theme());
    const QStringList lines = m_hovered->property("qsToolTip").toString().split(u'\n');
    r.lines.clear();
    for (int i = 0; i < lines.size(); ++i)
        r.lines.append({lines[i], i == 0 ? color : QColor()});
    return r;
}

Readout MetricByTestChart::readoutAtShared(const QVariant& at)
{
    return testReadout(int(m_x->categories().indexOf(at.toString())));
}

void MetricByTestChart::resizeEvent(QResizeEvent* event)
{
    ChartPanel::resizeEvent(event);
    fitCategoryLabels();
}

void MetricByTestChart::fitCategoryLabels()
{
    const QStringList categories = m_x->categories();
    if (categories.isEmpty())
        return;
    const QFontMetricsF metrics(m_x->labelsFont());
    double widest = 0;
    for (const QString& c : categories)
        widest = std::max(widest, metrics.horizontalAdvance(c));
    // The plot is the view less the value axis; a label needs a little air on both sides.
    const double perCategory = (chartView()->width() - 90) / double(categories.size());
    m_x->setLabelsAngle(widest + 12 > perCategory ? -30 : 0);
}

void MetricByTestChart::applyTheme()
{
    for (QAbstractSeries* series : chart()->series()) {
        auto* box = qobject_cast<QBoxPlotSeries*>(series);
        if (!box)
            continue;
        const QColor color = endpointColor(box->property(endpointProperty).toInt(), theme());
        QColor fill = color;
        fill.setAlphaF(theme() == Theme::Dark ? 0.35f : 0.28f);
        box->setBrush(fill);
        box->setPen(QPen(color, 1.6));
    }
    ChartPanel::applyTheme();
}

} // namespace qs
