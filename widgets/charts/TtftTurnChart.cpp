// SPDX-License-Identifier: MIT
#include "widgets/charts/TtftTurnChart.h"

#include <QAreaSeries>
#include <QChart>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QSignalBlocker>
#include <QValueAxis>
#include <algorithm>

namespace qs {

namespace {

QString definition(TtftTurnChart::Variant variant)
{
    const QString metric = variant == TtftTurnChart::Variant::Visible
        ? QStringLiteral(
            "ttft_visible_ms = t(first event with visible content or a tool-call fragment) − t0.\n"
            "What a user waits for: whitespace-only content and leaked thinking are not visible.")
        : QStringLiteral("ttft_any_ms = t(first token-bearing event) − t0.\n"
                         "Time to the first token of any kind, reasoning included; role-only and empty "
                         "chunks never count.");
    return metric
        + QStringLiteral("\n\nPer turn of a multi-turn test: the median (line) and the min–max range (band) "
                         "over measured (non-warm-up), successful requests. Each turn's prompt carries the "
                         "conversation so far, so TTFT grows with the context.");
}

} // namespace

TtftTurnChart::TtftTurnChart(QWidget* parent)
    : ChartPanel(parent)
    , m_x(new QValueAxis)
    , m_y(new QValueAxis)
    , m_variantBox(new QComboBox)
    , m_testBox(new QComboBox)
{
    setTitle(QStringLiteral("Time to first token per turn"));
    m_x->setTitleText(QStringLiteral("turn"));
    m_x->setLabelFormat(QStringLiteral("%d"));
    m_x->setTickType(QValueAxis::TicksDynamic);
    m_x->setTickAnchor(1);
    m_x->setTickInterval(1);
    m_x->setMinorTickCount(0);
    m_y->setTitleText(QStringLiteral("ms"));
    m_y->setLabelFormat(QStringLiteral("%.0f"));
    chart()->addAxis(m_x, Qt::AlignBottom);
    chart()->addAxis(m_y, Qt::AlignLeft);

    setUpTtftVariantPicker(m_variantBox);
    m_testBox->setObjectName(QStringLiteral("testPicker"));
    m_testBox->setToolTip(QStringLiteral("Which multi-turn test to show"));
    m_testBox->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    controls()->addWidget(m_testBox);
    controls()->addWidget(m_variantBox);
    connect(m_variantBox, &QComboBox::currentIndexChanged, this,
        [this](int index) { setVariant(index == 1 ? Variant::Any : Variant::Visible); });
    connect(m_testBox, &QComboBox::currentIndexChanged, this, [this] { rebuild(); });

    setDefinition(definition(m_variant));
    setZoomAxis(m_x);
    setReadoutFormat({QStringLiteral("turn %1"), QStringLiteral("%1 ms")});
    rebuild();
}

void TtftTurnChart::setData(const DashboardData& next)
{
    m_data = next;
    rebuild();
}

void TtftTurnChart::setVariant(Variant variant)
{
    const QSignalBlocker blocker(m_variantBox);
    m_variantBox->setCurrentIndex(variant == Variant::Any ? 1 : 0);
    if (variant == m_variant)
        return;
    m_variant = variant;
    setDefinition(definition(m_variant));
    rebuild();
}

void TtftTurnChart::rebuild()
{
    if (m_data.isEmpty()) {
        m_testBox->hide();
        showMessage(QStringLiteral("No data yet: start a run or open a results file."));
        return;
    }
    if (!m_data.evaluation) {
        m_testBox->hide();
        showMessage(QStringLiteral("Waiting for the first evaluation of this run…"));
        return;
    }
    const Evaluation& ev = *m_data.evaluation;

    // Multi-turn tests are the ones with per-turn cells; cells come in the order tests ran.
    QList<std::pair<QString, QString>> tests;
    for (const CellStatistics& cell : ev.cells) {
        const auto known = std::find_if(
            tests.cbegin(), tests.cend(), [&](const auto& t) { return t.second == cell.test; });
        if (cell.turn > 0 && known == tests.cend())
            tests.append({cell.test, cell.test});
    }
    if (tests.isEmpty()) {
        m_testBox->hide();
        // A live run whose suite holds a conversation has simply not reached it yet.
        bool coming = false;
        if (m_data.live && m_data.result->suite.is_object())
            for (const auto& t : m_data.result->suite.value("tests", nlohmann::json::array()))
                coming = coming
                    || (t.is_object() && t.contains("turns") && t["turns"].is_array()
                        && t["turns"].size() > 1);
        showMessage(coming
                ? QStringLiteral("The multi-turn test has not answered yet: its TTFT per turn appears "
                                 "here once its first conversations are measured.")
                : QStringLiteral("No multi-turn test in this run: TTFT per turn needs a test whose "
                                 "prompts form a conversation."));
        return;
    }
    setChoices(m_testBox, tests);
    m_testBox->setVisible(tests.size() > 1);
    const QString test = m_testBox->currentData().toString();
    const QString metric = metricId(m_variant == Variant::Visible ? Metric::TtftVisible : Metric::TtftAny);

    chart()->removeAllSeries();
    showPlot();
    const int endpoints = int(m_data.result->endpoints.size());
    std::vector<QList<QPointF>> medians(static_cast<std::size_t>(endpoints));
    std::vector<QList<QPointF>> mins(static_cast<std::size_t>(endpoints));
    std::vector<QList<QPointF>> maxes(static_cast<std::size_t>(endpoints));
    int maxTurn = 1;
    int minN = 0;
    int maxN = 0;
    double top = 0;
    for (const CellStatistics& cell : ev.cells) {
        if (cell.turn <= 0 || cell.test != test || cell.endpoint < 0 || cell.endpoint >= endpoints)
            continue;
        const auto it = cell.metrics.find(metric);
        if (it == cell.metrics.end())
            continue;
        const Distribution& d = it->second;
        const auto e = std::size_t(cell.endpoint);
        medians[e].append(QPointF(cell.turn, d.p50));
        mins[e].append(QPointF(cell.turn, d.min));
        maxes[e].append(QPointF(cell.turn, d.max));
        maxTurn = std::max(maxTurn, cell.turn);
        minN = minN == 0 ? d.n : std::min(minN, d.n);
        maxN = std::max(maxN, d.n);
        top = std::max(top, d.max);
    }
    if (maxN == 0) {
        showMessage(QStringLiteral("No successful measured request of “%1” has a %2 yet.").arg(test, metric));
        return;
    }

    // Bands first, so every median line is drawn on top of every band.
    for (int e = 0; e < endpoints; ++e) {
        if (medians[std::size_t(e)].isEmpty())
            continue;
        auto* band = new QAreaSeries;
        auto* upper = new QLineSeries(band);
        auto* lower = new QLineSeries(band);
        upper->replace(maxes[std::size_t(e)]);
        lower->replace(mins[std::size_t(e)]);
        band->setUpperSeries(upper);
        band->setLowerSeries(lower);
        band->setName(endpointTitle(*m_data.result, e) + QStringLiteral(" min–max"));
        band->setProperty(endpointProperty, e);
        chart()->addSeries(band);
        band->attachAxis(m_x);
        band->attachAxis(m_y);
        for (QLegendMarker* marker : chart()->legend()->markers(band))
            marker->setVisible(false);
    }
    for (int e = 0; e < endpoints; ++e) {
        if (medians[std::size_t(e)].isEmpty())
            continue;
        auto* line = new QLineSeries;
        line->replace(medians[std::size_t(e)]);
        line->setName(endpointTitle(*m_data.result, e));
        line->setPointsVisible(true);
        line->setProperty(endpointProperty, e);
        chart()->addSeries(line);
        line->attachAxis(m_x);
        line->attachAxis(m_y);
    }
    m_x->setRange(0.75, maxTurn + 0.25);
    setNiceRange(m_y, top * 1.05);

    const QString requests
        = minN == maxN ? QString::number(maxN) : QStringLiteral("%1–%2").arg(minN).arg(maxN);
    setSubtitle(QStringLiteral("%1 (ms) per turn of “%2”: line = median, band = min–max of %3 measured "
                               "requests.")
                    .arg(m_variant == Variant::Visible ? QStringLiteral("TTFT visible")
                                                       : QStringLiteral("TTFT any (incl. reasoning)"),
                        test, requests));
    applyTheme();
}

void TtftTurnChart::applyTheme()
{
    for (QAbstractSeries* series : chart()->series()) {
        const QColor color = endpointColor(series->property(endpointProperty).toInt(), theme());
        if (auto* band = qobject_cast<QAreaSeries*>(series)) {
            QColor fill = color;
            fill.setAlphaF(0.2f);
            band->setBrush(fill);
            band->setPen(Qt::NoPen);
        } else if (auto* line = qobject_cast<QLineSeries*>(series)) {
            QPen pen(color, 2.5);
            pen.setCapStyle(Qt::RoundCap);
            pen.setJoinStyle(Qt::RoundJoin);
            line->setPen(pen);
            line->setColor(color);
            line->setMarkerSize(5.5);
        }
    }
    ChartPanel::applyTheme();
}

} // namespace qs
