// SPDX-License-Identifier: MIT
#include "widgets/charts/LatencyLengthChart.h"

#include "model/core/TestNumbering.h"
#include "model/evaluate/TurnScaling.h"
#include "widgets/charts/NiceScale.h"

#include <QChart>
#include <QComboBox>
#include <QGraphicsSimpleTextItem>
#include <QHBoxLayout>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QScatterSeries>
#include <QValueAxis>
#include <algorithm>
#include <cmath>

namespace qs {

namespace {

// Qt Charts draws every scatter point as its own graphics item: 2,000 per endpoint cost ~50 ms per
// refresh on the GUI thread; 600 evenly sampled points show the same cloud.
constexpr int maxPointsPerEndpoint = 600;

QString tokens(double n)
{
    return QString::number(n, 'f', n < 10 ? 1 : 0);
}

/// "N* ≈ 23 tokens: below, X is faster; above, Y." or who is faster at every length.
QString crossoverSentence(const Crossover& c, const QString& first, const QString& second)
{
    const auto name = [&](Faster f) { return f == Faster::First ? first : second; };
    if (c.tokens)
        return QStringLiteral("N* ≈ %1 tokens: below, %2 is faster; above, %3.")
            .arg(tokens(*c.tokens), name(c.fasterShort), name(c.fasterLong));
    if (c.fasterShort == Faster::Neither)
        return QStringLiteral("%1 and %2 are modelled as equally fast.").arg(first, second);
    return QStringLiteral("%1 is faster at every length (no crossover).").arg(name(c.fasterShort));
}

} // namespace

LatencyLengthChart::LatencyLengthChart(QWidget* parent)
    : ChartPanel(parent)
    , m_testBox(new QComboBox)
    , m_x(new QValueAxis)
    , m_y(new QValueAxis)
{
    setTitle(QStringLiteral("End-to-end latency against answer length"));
    setDefinition(QStringLiteral(
        "Dots: e2e_ms = t(last token-bearing event) − t0 against completion_tokens, one per measured "
        "(non-warm-up), successful request (at most 2,000 per endpoint, evenly sampled).\n"
        "Lines: the latency model e2e(N) ≈ TTFT + 1000 · N / decode_tps ms for an answer of N completion "
        "tokens, with TTFT = median ttft_any_ms and decode_tps = median decode rate of the requests shown.\n"
        "Crossover N* = (TTFT_b − TTFT_a) / (1000/r_a − 1000/r_b) tokens between the baseline and each "
        "candidate: below N* the endpoint with the lower TTFT is faster, above it the one that decodes "
        "faster."));
    m_x->setTitleText(QStringLiteral("completion tokens"));
    m_x->setLabelFormat(QStringLiteral("%.0f"));
    m_y->setTitleText(QStringLiteral("end-to-end latency (ms)"));
    m_y->setLabelFormat(QStringLiteral("%.0f"));
    chart()->addAxis(m_x, Qt::AlignBottom);
    chart()->addAxis(m_y, Qt::AlignLeft);
    setZoomAxis(m_x);
    setReadoutFormat({QStringLiteral("%1 tokens"), QStringLiteral("%1 ms")});

    m_testBox->setObjectName(QStringLiteral("testPicker"));
    m_testBox->setToolTip(QStringLiteral("All tests, or one test only"));
    m_testBox->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_testBox->addItem(QStringLiteral("All tests"), QString());
    controls()->addWidget(m_testBox);
    connect(m_testBox, &QComboBox::currentIndexChanged, this, [this] { rebuild(); });
    connect(chart(), &QChart::plotAreaChanged, this, [this] { placeMarkerLabels(); });
    connect(m_x, &QValueAxis::rangeChanged, this, [this] { placeMarkerLabels(); }); // zoom, pan
    rebuild();
}

void LatencyLengthChart::setData(const DashboardData& next)
{
    m_data = next;
    rebuild();
}

void LatencyLengthChart::rebuild()
{
    for (const auto& [label, marker] : m_markerLabels)
        delete label;
    m_markerLabels.clear();
    if (m_data.isEmpty()) {
        showMessage(QStringLiteral("No data yet: start a run or open a results file."));
        return;
    }
    const RunResult& run = *m_data.result;
    const int endpoints = int(run.endpoints.size());
    const QString selected = m_testBox->currentData().toString();

    // One pass: the tests on offer, and the points and model inputs of the requests shown.
    TestNumbering seen;
    std::vector<QList<QPointF>> points(static_cast<std::size_t>(endpoints));
    std::vector<std::vector<double>> ttfts(static_cast<std::size_t>(endpoints));
    std::vector<std::vector<double>> rates(static_cast<std::size_t>(endpoints));
    int selectedNumber = -1;
    for (const RunRecord& r : run.records) {
        if (r.warmup || !r.request.ok() || r.endpoint < 0 || r.endpoint >= endpoints)
            continue;
        const int test = seen.number(r.test);
        if (!selected.isEmpty() && test != selectedNumber) {
            if (selectedNumber < 0 && r.test == selected)
                selectedNumber = test;
            else
                continue;
        }
        const RequestMetrics& m = r.request.metrics;
        const auto e = std::size_t(r.endpoint);
        if (m.completionTokens.value && m.e2eMs)
            points[e].append(QPointF(double(*m.completionTokens.value), *m.e2eMs));
        if (m.ttftAnyMs)
            ttfts[e].push_back(*m.ttftAnyMs);
        if (m.decodeTps)
            rates[e].push_back(*m.decodeTps);
    }
    QList<std::pair<QString, QString>> tests {{QStringLiteral("All tests"), QString()}};
    for (const QString& id : seen.ids())
        tests.append({id, id});
    setChoices(m_testBox, tests);
    m_testBox->setVisible(tests.size() > 2);

    double maxTokens = 0;
    double maxMs = 0;
    std::vector<std::optional<LatencyModel>> models(static_cast<std::size_t>(endpoints));
    for (int e = 0; e < endpoints; ++e) {
        const auto i = std::size_t(e);
        // Evenly sampled: a 100,000-record file would drown the plot and the GUI thread.
        const qsizetype stride = (points[i].size() + maxPointsPerEndpoint - 1) / maxPointsPerEndpoint;
        if (stride > 1) {
            QList<QPointF> sampled;
            sampled.reserve(points[i].size() / stride + 1);
            for (qsizetype k = 0; k < points[i].size(); k += stride)
                sampled.append(points[i][k]);
            points[i] = std::move(sampled);
        }
        for (const QPointF& p : std::as_const(points[i])) {
            maxTokens = std::max(maxTokens, p.x());
            maxMs = std::max(maxMs, p.y());
        }
        const std::optional<double> ttft = median(ttfts[i]);
        const std::optional<double> rate = median(rates[i]);
        if (ttft && rate && *rate > 0)
            models[i] = LatencyModel {*ttft, *rate};
    }
    if (maxTokens <= 0) {
        showMessage(selected.isEmpty()
                ? QStringLiteral("No measured, successful request with a token count yet.")
                : QStringLiteral("No measured, successful request of “%1” with a token count yet.")
                      .arg(selected));
        return;
    }

    // Crossovers of the baseline with every candidate; the range grows to show a nearby N*.
    const int baseline = m_data.evaluation ? std::clamp(m_data.evaluation->baseline, 0, endpoints - 1) : 0;
    double xMax = maxTokens * 1.05;
    QStringList sentences;
    std::vector<std::pair<int, double>> markers; // (candidate, N*)
    for (int e = 0; e < endpoints; ++e) {
        if (e == baseline || !models[std::size_t(baseline)] || !models[std::size_t(e)])
            continue;
        const Crossover c = crossover(*models[std::size_t(baseline)], *models[std::size_t(e)]);
        QString sentence = crossoverSentence(c, endpointTitle(run, baseline), endpointTitle(run, e));
        if (c.tokens && *c.tokens <= 3 * xMax) {
            markers.emplace_back(e, *c.tokens);
            xMax = std::max(xMax, *c.tokens * 1.15);
        } else if (c.tokens) {
            sentence += QStringLiteral(" (beyond the longest answer shown)");
        }
        sentences.append(sentence);
    }
    for (const auto& model : models)
        if (model)
            maxMs = std::max(maxMs, model->predictMs(xMax));

    chart()->removeAllSeries();
    showPlot();
    setNiceRange(m_x, xMax);
    setNiceRange(m_y, maxMs * 1.05);
    // The axis's own end, not m_x->max(): while the user is zoomed in, that is their range.
    const double xEnd = niceScale(xMax).top;
    const double yEnd = m_y->max();

    const auto add = [&](QXYSeries* series, int endpoint, const char* role, bool inLegend) {
        addTaggedSeries(series, m_x, m_y, endpoint, role, inLegend);
    };
    for (int e = 0; e < endpoints; ++e) {
        auto* dots = new QScatterSeries;
        const auto& model = models[std::size_t(e)];
        dots->setName(model ? QStringLiteral("%1: %2 ms + N / %3 tok/s")
                                  .arg(endpointTitle(run, e))
                                  .arg(model->ttftMs, 0, 'f', 0)
                                  .arg(model->decodeTps, 0, 'f', 1)
                            : endpointTitle(run, e));
        dots->replace(points[std::size_t(e)]);
        dots->setProperty(readoutNameProperty, endpointTitle(run, e));
        add(dots, e, "requests", true);
    }
    for (int e = 0; e < endpoints; ++e) {
        const auto& model = models[std::size_t(e)];
        if (!model)
            continue;
        auto* line = new QLineSeries;
        line->setName(endpointTitle(run, e) + QStringLiteral(" model"));
        line->replace(QList<QPointF> {QPointF(0, model->ttftMs), QPointF(xEnd, model->predictMs(xEnd))});
        line->setProperty(readoutRoleProperty, QStringLiteral("curve"));
        add(line, e, "model", false);
    }
    for (const auto& [candidate, n] : markers) {
        auto* line = new QLineSeries;
        line->setName(QStringLiteral("N*"));
        line->replace(QList<QPointF> {QPointF(n, 0), QPointF(n, yEnd)});
        line->setProperty(readoutRoleProperty, QStringLiteral("skip"));
        add(line, candidate, "crossover", false);
        auto* label = new QGraphicsSimpleTextItem(QStringLiteral("N* ≈ %1 tokens").arg(tokens(n)), chart());
        label->setZValue(10);
        m_markerLabels.append({label, line});
    }

    setSubtitle(
        QStringLiteral("%1\nDots: measured, successful requests%2. Lines: e2e(N) = TTFT + N / decode rate, "
                       "from the medians (see legend).")
            .arg(sentences.join(QChar(u' ')),
                selected.isEmpty() ? QStringLiteral(", all tests") : QStringLiteral(" of “%1”").arg(selected))
            .trimmed());
    applyTheme();
    placeMarkerLabels();
}

void LatencyLengthChart::placeMarkerLabels()
{
    for (const auto& [label, marker] : m_markerLabels) {
        const QRectF plot = chart()->plotArea();
        const QPointF top = chart()->mapToPosition(marker->at(1), marker);
        const QRectF box = label->boundingRect();
        // Right of the line, near the top; left of it when it would run out of the plot.
        double x = top.x() + 6;
        if (x + box.width() > plot.right())
            x = top.x() - 6 - box.width();
        label->setPos(x, plot.top() + 4);
        label->setVisible(top.x() >= plot.left() && top.x() <= plot.right()); // zoomed or panned away
    }
}

void LatencyLengthChart::applyTheme()
{
    const ThemeColors& colors = themeColors(theme());
    for (QAbstractSeries* series : chart()->series()) {
        const QColor color = endpointColor(series->property(endpointProperty).toInt(), theme());
        const QString role = series->property(roleProperty).toString();
        if (auto* dots = qobject_cast<QScatterSeries*>(series)) {
            QColor fill = color;
            fill.setAlphaF(theme() == Theme::Dark ? 0.75f : 0.55f);
            dots->setColor(fill);
            dots->setBorderColor(Qt::transparent);
            dots->setMarkerSize(6);
        } else if (auto* line = qobject_cast<QLineSeries*>(series)) {
            if (role == u"crossover")
                line->setPen(QPen(colors.mutedText, 1.4, Qt::DashLine));
            else
                line->setPen(QPen(color, 2.2));
        }
    }
    for (const auto& [label, marker] : m_markerLabels) {
        label->setBrush(colors.text);
        QFont font = chart()->font();
        font.setBold(true);
        label->setFont(font);
    }
    ChartPanel::applyTheme();
}

} // namespace qs
