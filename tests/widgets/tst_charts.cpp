// SPDX-License-Identifier: MIT
// The charts, populated from the fixture (and from synthetic runs where the fixture cannot say
// something): their series carry the fixture's numbers, toggles switch them, empty and
// not-applicable states say so, selections survive a refresh, and they render.
#include "ChartTestSupport.h"
#include "WidgetTestSupport.h"
#include "model/core/Percentile.h"
#include "widgets/ScreenshotRenderer.h"
#include "widgets/charts/LatencyLengthChart.h"
#include "widgets/charts/LiveThroughputChart.h"
#include "widgets/charts/MetricByTestChart.h"
#include "widgets/charts/TtftTurnChart.h"

#include <QAreaSeries>
#include <QBarCategoryAxis>
#include <QBoxPlotSeries>
#include <QBoxSet>
#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QDir>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QScatterSeries>
#include <QSet>
#include <QTest>
#include <QValueAxis>
#include <cmath>

using namespace qs;

namespace {

using test::seriesOf;

const CellStatistics* cell(const Evaluation& ev, int endpoint, const QString& test, int turn)
{
    for (const CellStatistics& c : ev.cells)
        if (c.endpoint == endpoint && c.test == test && c.turn == turn)
            return &c;
    return nullptr;
}

/// The fixture with its records rewritten by `edit` (false: drop the record).
template <typename Edit> DashboardData editedFixture(Edit edit, int baseline = 0)
{
    RunResult run = *test::loadFixture();
    RecordList kept;
    for (RunRecord r : run.records)
        if (edit(r))
            kept.push_back(std::move(r));
    run.records = std::move(kept);
    return prepareDashboard(std::make_shared<const RunResult>(std::move(run)), baseline);
}

/// The fixture with a second multi-turn test (a copy of multi-turn-5 under another id).
DashboardData twoMultiTurnTests()
{
    RunResult run = *test::loadFixture();
    const std::size_t n = run.records.size();
    for (std::size_t i = 0; i < n; ++i) {
        if (run.records[i].test != u"multi-turn-5")
            continue;
        RunRecord copy = run.records[i];
        copy.test = QStringLiteral("multi-turn-b");
        run.records.push_back(copy);
    }
    return prepareDashboard(std::make_shared<const RunResult>(std::move(run)), 0, false);
}

LiveDelta delta(int endpoint, double atMs, bool tokenBearing = true)
{
    LiveDelta d;
    d.endpoint = endpoint;
    d.atMs = atMs;
    if (tokenBearing)
        d.content = QStringLiteral("x");
    else
        d.started = true;
    return d;
}

} // namespace

class TestCharts : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // --- TtftTurnChart ---------------------------------------------------------------------

    void ttftTurnShowsPerTurnMediansAndBands()
    {
        const DashboardData d = test::fixtureData();
        TtftTurnChart chart;
        chart.setData(d);
        const auto lines = seriesOf<QLineSeries>(chart);
        const auto bands = seriesOf<QAreaSeries>(chart);
        QCOMPARE(lines.size(), 2);
        QCOMPARE(bands.size(), 2);
        for (int e = 0; e < 2; ++e) {
            const QList<QPointF> points = lines[e]->points();
            QCOMPARE(points.size(), 5);
            for (int turn = 1; turn <= 5; ++turn) {
                const CellStatistics* c = cell(*d.evaluation, e, QStringLiteral("multi-turn-5"), turn);
                QVERIFY(c);
                const Distribution& ttft = c->metrics.at(QStringLiteral("ttft_visible_ms"));
                QCOMPARE(points[turn - 1], QPointF(turn, ttft.p50));
                QCOMPARE(bands[e]->upperSeries()->at(turn - 1), QPointF(turn, ttft.max));
                QCOMPARE(bands[e]->lowerSeries()->at(turn - 1), QPointF(turn, ttft.min));
            }
            QCOMPARE(lines[e]->name(), endpointTitle(*d.result, e));
            QCOMPARE(lines[e]->pen().color(), endpointColor(e, Theme::Light));
            QCOMPARE(bands[e]->brush().color().rgb(), endpointColor(e, Theme::Light).rgb());
            QVERIFY(bands[e]->brush().color().alphaF() < 0.3);
            // The band has no legend entry of its own.
            for (QLegendMarker* m : chart.chart()->legend()->markers(bands[e]))
                QVERIFY(!m->isVisible());
        }
        // The fixture's story: q4km-like's TTFT grows over the conversation, nvfp4-like's stays flat.
        QVERIFY(lines[0]->at(4).y() > 3 * lines[0]->at(0).y());
        QVERIFY(lines[1]->at(4).y() < 1.5 * lines[1]->at(0).y());
        auto* x = qobject_cast<QValueAxis*>(chart.chart()->axes(Qt::Horizontal).value(0));
        auto* y = qobject_cast<QValueAxis*>(chart.chart()->axes(Qt::Vertical).value(0));
        QVERIFY(x && y);
        QCOMPARE(x->titleText(), QStringLiteral("turn"));
        QCOMPARE(x->tickInterval(), 1.0);
        QVERIFY(x->min() < 1 && x->max() > 5 && x->max() < 6);
        QCOMPARE(y->titleText(), QStringLiteral("ms"));
        QCOMPARE(y->min(), 0.0);
        QVERIFY(y->max() >= lines[0]->at(4).y());
        QVERIFY(chart.subtitle().contains(u"multi-turn-5"));
        QVERIFY(chart.toolTip().contains(u"ttft_visible_ms"));
        // One multi-turn test: no picker.
        QVERIFY(!chart.findChild<QComboBox*>(QStringLiteral("testPicker"))->isVisibleTo(&chart));

        chart.setTheme(Theme::Dark);
        QCOMPARE(seriesOf<QLineSeries>(chart)[1]->pen().color(), endpointColor(1, Theme::Dark));
    }

    void ttftTurnTogglesVisibleAndAny()
    {
        const DashboardData d = test::fixtureData();
        TtftTurnChart chart;
        chart.setData(d);
        auto* picker = chart.findChild<QComboBox*>(QStringLiteral("variantPicker"));
        QVERIFY(picker);
        picker->setCurrentIndex(1);
        QCOMPARE(chart.variant(), TtftTurnChart::Variant::Any);
        QVERIFY(chart.toolTip().contains(u"ttft_any_ms"));
        QVERIFY(chart.subtitle().contains(u"TTFT any"));
        // nvfp4-like leaks thinking into content: at some turn its visible and any TTFT differ.
        bool differs = false;
        const auto lines = seriesOf<QLineSeries>(chart);
        for (int turn = 1; turn <= 5; ++turn) {
            const CellStatistics* c = cell(*d.evaluation, 1, QStringLiteral("multi-turn-5"), turn);
            const double any = c->metrics.at(QStringLiteral("ttft_any_ms")).p50;
            QCOMPARE(lines[1]->at(turn - 1).y(), any);
            differs |= c->metrics.at(QStringLiteral("ttft_any_ms")).max
                != c->metrics.at(QStringLiteral("ttft_visible_ms")).max;
        }
        QVERIFY(differs);
        chart.setVariant(TtftTurnChart::Variant::Visible);
        QCOMPARE(picker->currentIndex(), 0);
        const CellStatistics* c = cell(*d.evaluation, 1, QStringLiteral("multi-turn-5"), 2);
        QCOMPARE(
            seriesOf<QLineSeries>(chart)[1]->at(1).y(), c->metrics.at(QStringLiteral("ttft_visible_ms")).p50);
    }

    void ttftTurnEmptyAndNoMultiTurnStates()
    {
        TtftTurnChart chart;
        chart.setData(DashboardData {});
        QVERIFY(chart.chart()->series().isEmpty());
        QVERIFY(chart.subtitle().contains(u"No data yet"));
        for (QAbstractAxis* axis : chart.chart()->axes())
            QVERIFY(!axis->isVisible());

        chart.setData(editedFixture([](RunRecord& r) { return r.test != u"multi-turn-5"; }));
        QVERIFY(chart.chart()->series().isEmpty());
        QVERIFY(chart.subtitle().contains(u"No multi-turn test in this run"));
        // Live, with the conversation still to come in the suite: not "no multi-turn test".
        DashboardData live = editedFixture([](RunRecord& r) { return r.test != u"multi-turn-5"; });
        live.live = true;
        chart.setData(live);
        QVERIFY2(chart.subtitle().contains(u"The multi-turn test has not answered yet"),
            qPrintable(chart.subtitle()));

        chart.setData(test::fixtureData());
        QCOMPARE(chart.chart()->series().size(), 4);
        for (QAbstractAxis* axis : chart.chart()->axes())
            QVERIFY(axis->isVisible());
    }

    void ttftTurnKeepsTestAndVariantAcrossRefreshes()
    {
        const DashboardData d = twoMultiTurnTests();
        TtftTurnChart chart;
        chart.setData(d);
        auto* tests = chart.findChild<QComboBox*>(QStringLiteral("testPicker"));
        QVERIFY(tests->isVisibleTo(&chart));
        QCOMPARE(tests->count(), 2);
        QCOMPARE(tests->itemText(0), QStringLiteral("multi-turn-5"));
        tests->setCurrentIndex(1);
        chart.setVariant(TtftTurnChart::Variant::Any);
        QVERIFY(chart.subtitle().contains(u"multi-turn-b"));
        chart.setData(d);
        chart.setData(d);
        QCOMPARE(tests->currentText(), QStringLiteral("multi-turn-b"));
        QCOMPARE(chart.variant(), TtftTurnChart::Variant::Any);
        QVERIFY(chart.subtitle().contains(u"multi-turn-b"));
    }

    // --- MetricByTestChart ------------------------------------------------------------------

    void boxesCarryTheQuartilesOfEachTest()
    {
        const DashboardData d = test::fixtureData();
        MetricByTestChart chart(Metric::DecodeTps);
        chart.setData(d);
        const auto boxes = seriesOf<QBoxPlotSeries>(chart);
        QCOMPARE(boxes.size(), 2);
        auto* categories = qobject_cast<QBarCategoryAxis*>(chart.chart()->axes(Qt::Horizontal).value(0));
        QVERIFY(categories);
        const QStringList tests {QStringLiteral("greeting"), QStringLiteral("factual"),
            QStringLiteral("conversational"), QStringLiteral("reasoning"), QStringLiteral("long-response"),
            QStringLiteral("tool-memory"), QStringLiteral("tool-web"), QStringLiteral("multi-turn-5")};
        QCOMPARE(categories->categories(), tests);
        for (int e = 0; e < 2; ++e) {
            QCOMPARE(boxes[e]->count(), 8);
            QCOMPARE(boxes[e]->name(), endpointTitle(*d.result, e));
            QCOMPARE(boxes[e]->pen().color(), endpointColor(e, Theme::Light));
            for (int t = 0; t < 8; ++t) {
                QBoxSet* set = boxes[e]->boxSets()[t];
                // The all-turns cell of the evaluation describes the same requests.
                const CellStatistics* c = cell(*d.evaluation, e, tests[t], 0);
                QVERIFY(c);
                const Distribution& tps = c->metrics.at(QStringLiteral("decode_tps"));
                QCOMPARE(set->at(QBoxSet::LowerExtreme), tps.min);
                QCOMPARE(set->at(QBoxSet::Median), tps.p50);
                QCOMPARE(set->at(QBoxSet::UpperExtreme), tps.max);
                QVERIFY(set->at(QBoxSet::LowerQuartile) <= set->at(QBoxSet::Median));
                QVERIFY(set->at(QBoxSet::UpperQuartile) >= set->at(QBoxSet::Median));
                const QString tip = set->property("qsToolTip").toString();
                QVERIFY2(tip.contains(QStringLiteral("n = %1").arg(tps.n)), qPrintable(tip));
                QVERIFY(tip.contains(u"median") && tip.contains(u"tok/s"));
            }
        }
        // p25 of multi-turn-5 on q4km-like, from the records themselves.
        std::vector<double> v;
        for (const RunRecord& r : d.result->records)
            if (!r.warmup && r.request.ok() && r.endpoint == 0 && r.test == u"multi-turn-5"
                && r.request.metrics.decodeTps)
                v.push_back(*r.request.metrics.decodeTps);
        QCOMPARE(int(v.size()), 15);
        QCOMPARE(boxes[0]->boxSets()[7]->at(QBoxSet::LowerQuartile), *percentile(v, 25));
        // The fixture's story: ~38 tok/s against ~20.
        QVERIFY(std::abs(boxes[0]->boxSets()[0]->at(QBoxSet::Median) - 38) < 4);
        QVERIFY(std::abs(boxes[1]->boxSets()[0]->at(QBoxSet::Median) - 20) < 3);
        auto* y = qobject_cast<QValueAxis*>(chart.chart()->axes(Qt::Vertical).value(0));
        QCOMPARE(y->titleText(), QStringLiteral("tok/s"));
        QVERIFY(chart.toolTip().contains(u"decode_tps = (completion_tokens − 1)"));
        QVERIFY(!chart.findChild<QComboBox*>(QStringLiteral("variantPicker"))->isVisibleTo(&chart));

        // Hovering a box shows its numbers in the readout (tst_chart_explore hovers for real).
        chart.resize(900, 560);
        chart.show();
        QVERIFY(QTest::qWaitForWindowExposed(&chart));
        QBoxSet* hovered = boxes[1]->boxSets()[2];
        const QPointF at = chart.chart()->mapToPosition(QPointF(2, hovered->at(QBoxSet::Median)), boxes[1]);
        QTest::mouseMove(chart.chartView()->viewport(), chart.chartView()->mapFromScene(at));
        Q_EMIT boxes[1]->hovered(true, hovered);
        QCOMPARE(chart.readout(), hovered->property("qsToolTip").toString());
        Q_EMIT boxes[1]->hovered(false, hovered);
        QVERIFY(chart.readout().startsWith(u"conversational\n")); // the test's medians, every endpoint
    }

    void ttftBoxesToggleBetweenVisibleAndAny()
    {
        const DashboardData d = test::fixtureData();
        MetricByTestChart chart(Metric::TtftVisible);
        chart.setData(d);
        auto* picker = chart.findChild<QComboBox*>(QStringLiteral("variantPicker"));
        QVERIFY(picker->isVisibleTo(&chart));
        const auto medianOf = [&](int e, int t) {
            return seriesOf<QBoxPlotSeries>(chart)[e]->boxSets()[t]->at(QBoxSet::Median);
        };
        const CellStatistics* factual = cell(*d.evaluation, 1, QStringLiteral("factual"), 0);
        QCOMPARE(medianOf(1, 1), factual->metrics.at(QStringLiteral("ttft_visible_ms")).p50);
        picker->setCurrentIndex(1);
        QCOMPARE(chart.shownMetric(), Metric::TtftAny);
        QCOMPARE(medianOf(1, 1), factual->metrics.at(QStringLiteral("ttft_any_ms")).p50);
        QVERIFY(chart.toolTip().contains(u"ttft_any_ms"));
        chart.setData(d); // a refresh keeps the toggle
        QCOMPARE(chart.shownMetric(), Metric::TtftAny);
        QCOMPARE(picker->currentIndex(), 1);
        chart.setMetric(Metric::TtftVisible);
        QCOMPARE(picker->currentIndex(), 0);
        QCOMPARE(medianOf(1, 1), factual->metrics.at(QStringLiteral("ttft_visible_ms")).p50);
    }

    void noBoxWhereNothingWasMeasured()
    {
        // Every nvfp4-like request of "factual" failed: no box at 0 pretending to be the fastest.
        const DashboardData d = editedFixture([](RunRecord& r) {
            if (r.endpoint == 1 && r.test == u"factual")
                r.request.failure.kind = FailureKind::IdleTimeout;
            return true;
        });
        MetricByTestChart chart(Metric::TtftVisible);
        chart.resize(900, 500);
        chart.setData(d);
        const auto boxes = seriesOf<QBoxPlotSeries>(chart);
        QCOMPARE(boxes.size(), 2);
        int checked = 0;
        for (int e = 0; e < 2; ++e)
            for (QBoxSet* set : boxes[e]->boxSets()) {
                const bool empty = e == 1 && set->label() == u"factual";
                QCOMPARE(set->property("qsEmpty").toBool(), empty);
                QCOMPARE(set->pen().color().alpha() == 0 && set->brush().color().alpha() == 0, empty);
                if (empty)
                    QVERIFY(
                        set->property("qsToolTip").toString().contains(u"no measured, successful request"));
                ++checked;
            }
        QCOMPARE(checked, 2 * int(boxes[0]->boxSets().size()));
        // The other arm still has its box there.
        QVERIFY(boxes[0]->boxSets()[1]->at(QBoxSet::Median) > 0);
    }

    void boxesEmptyState()
    {
        MetricByTestChart chart(Metric::DecodeTps);
        chart.setData(test::fixtureData());
        QCOMPARE(chart.chart()->series().size(), 2);
        chart.setData(DashboardData {});
        QVERIFY(chart.chart()->series().isEmpty());
        QVERIFY(chart.subtitle().contains(u"No data yet"));
    }

    void testLabelsAreNeverTruncated()
    {
        MetricByTestChart chart(Metric::DecodeTps);
        chart.setData(test::fixtureData());
        chart.resize(700, 460);
        chart.show();
        QCoreApplication::processEvents();
        renderWidget(&chart, 1);
        auto* x = chart.chart()->axes(Qt::Horizontal).value(0);
        QVERIFY(!x->labelsTruncated());
        QVERIFY(x->labelsAngle() != 0); // 8 test ids do not fit side by side in 700 px
    }

    // --- LiveThroughputChart ----------------------------------------------------------------

    void liveRedrawUsesTheTraceOnATimer()
    {
        LiveThroughputChart chart;
        chart.beginLive({QStringLiteral("A"), QStringLiteral("B")});
        QList<LiveDelta> deltas;
        for (int i = 0; i < 240; ++i) // 3 s: 80 events/s on A
            deltas.append(delta(0, i * 12.5));
        for (int i = 0; i < 60; ++i) // 20 events/s on B
            deltas.append(delta(1, i * 50.0));
        deltas.append(delta(0, 100, false)); // a request starting: not a token
        deltas.append(delta(1, 200, false));
        chart.addDeltas(deltas);
        QCOMPARE(chart.trace().count(0, 0), 40);
        QCOMPARE(chart.trace().count(1, 0), 10);
        // Drawing is throttled: nothing yet.
        QVERIFY(seriesOf<QLineSeries>(chart).isEmpty() || seriesOf<QLineSeries>(chart)[0]->count() == 0);
        QTest::qWait(250);
        const auto lines = seriesOf<QLineSeries>(chart);
        QCOMPARE(lines.size(), 2);
        QCOMPARE(lines[0]->name(), QStringLiteral("A"));
        int full = 0;
        for (int e = 0; e < 2; ++e) {
            for (const QPointF& p : lines[e]->points()) {
                if (p.x() < 3.0) { // buckets the deltas filled completely
                    QCOMPARE(p.y(), e == 0 ? 80.0 : 20.0);
                    full += e == 0;
                }
            }
        }
        QCOMPARE(full, 6);
        auto* x = qobject_cast<QValueAxis*>(chart.chart()->axes(Qt::Horizontal).value(0));
        QCOMPARE(x->titleText(), QStringLiteral("s since run start"));
        QCOMPARE(x->min(), 0.0);
        QCOMPARE(x->max(), 60.0); // the live window
        QVERIFY(chart.subtitle().contains(u"last 60 s"));
        QVERIFY(chart.toolTip().contains(u"token-bearing stream events, not tokens"));

        // A refresh of the records while live does not replace the live trace.
        chart.setData(test::fixtureData());
        QCOMPARE(seriesOf<QLineSeries>(chart)[0]->name(), QStringLiteral("A"));

        // 70 s later the window scrolls: the first 10 s are gone.
        chart.addDeltas({delta(0, 70000), delta(0, 70001)});
        QTest::qWait(250);
        QVERIFY(x->min() > 9.9 && x->max() > 69.9);
        QVERIFY(seriesOf<QLineSeries>(chart)[0]->at(0).x() >= 10);

        chart.endLive();
        QCOMPARE(seriesOf<QLineSeries>(chart)[0]->at(0).x(), 0.25); // the whole run again
        chart.setData(test::fixtureData());
        QCOMPARE(seriesOf<QLineSeries>(chart)[0]->name(), endpointTitle(*test::loadFixture(), 0));
    }

    void reviewShowsTheWholeRunFromTheTrace()
    {
        const DashboardData d = test::fixtureData();
        LiveThroughputChart chart;
        chart.setData(d);
        const auto lines = seriesOf<QLineSeries>(chart);
        QCOMPARE(lines.size(), 2);
        for (int e = 0; e < 2; ++e) {
            // Under 600 buckets: one point per bucket, and every event of the trace is in the line.
            QCOMPARE(lines[e]->count(), d.trace->buckets());
            double events = 0;
            for (const QPointF& p : lines[e]->points())
                events += p.y() * d.trace->bucketMs() / 1000;
            qint64 expected = 0;
            for (const RunRecord& r : d.result->records)
                if (r.endpoint == e)
                    expected += qint64(r.request.response.tokenEvents.size());
            QCOMPARE(qRound64(events), expected);
            QCOMPARE(lines[e]->pen().color(), endpointColor(e, Theme::Light));
        }
        QVERIFY(chart.subtitle().contains(u"whole run"));
        chart.setData(DashboardData {});
        QVERIFY(chart.chart()->series().isEmpty());
        QVERIFY(chart.subtitle().contains(u"No data yet"));
    }

    void reviewMergesBucketsToAtMost600Points()
    {
        auto run = std::make_shared<RunResult>();
        run->endpoints.resize(2);
        run->endpoints[0].endpoint.label = QStringLiteral("slow");
        run->endpoints[1].endpoint.label = QStringLiteral("fast");
        auto trace = std::make_shared<ThroughputTrace>(500);
        const int buckets = 10000; // 83 minutes
        for (int b = 0; b < buckets; ++b) {
            trace->add(0, b * 500.0 + 1, 10); // 20 events/s
            trace->add(1, b * 500.0 + 1, b % 2 ? 30 : 10); // 40 events/s on average
        }
        DashboardData d;
        d.result = run;
        d.trace = trace;
        LiveThroughputChart chart;
        chart.setData(d);
        const auto lines = seriesOf<QLineSeries>(chart);
        QCOMPARE(lines.size(), 2);
        QVERIFY(lines[0]->count() <= 600);
        QVERIFY(lines[0]->count() >= 500);
        QCOMPARE(lines[1]->count(), lines[0]->count());
        for (const QPointF& p : lines[0]->points())
            QCOMPARE(p.y(), 20.0);
        double sum = 0;
        for (const QPointF& p : lines[1]->points()) {
            QVERIFY(p.y() > 38 && p.y() < 42);
            sum += p.y();
        }
        QVERIFY(std::abs(sum / lines[1]->count() - 40) < 0.1);
        auto* x = qobject_cast<QValueAxis*>(chart.chart()->axes(Qt::Horizontal).value(0));
        QCOMPARE(x->max(), 5000.0);
        QVERIFY(lines[0]->at(lines[0]->count() - 1).x() < 5000);
    }

    // --- LatencyLengthChart -----------------------------------------------------------------

    void latencyScatterModelAndCrossover()
    {
        const DashboardData d = test::fixtureData();
        LatencyLengthChart chart;
        chart.setData(d);
        const auto dots = seriesOf<QScatterSeries>(chart);
        QCOMPARE(dots.size(), 2);
        LatencyModel models[2];
        for (int e = 0; e < 2; ++e) {
            int n = 0;
            std::vector<double> ttft;
            std::vector<double> tps;
            for (const RunRecord& r : d.result->records) {
                if (r.warmup || !r.request.ok() || r.endpoint != e)
                    continue;
                n += r.request.metrics.completionTokens.value && r.request.metrics.e2eMs;
                ttft.push_back(*r.request.metrics.ttftAnyMs);
                tps.push_back(*r.request.metrics.decodeTps);
            }
            QCOMPARE(dots[e]->count(), n);
            QCOMPARE(n, 36); // 7 single-turn tests × 3 + 5 turns × 3
            models[e] = LatencyModel {*median(ttft), *median(tps)};
            QVERIFY(dots[e]->name().startsWith(endpointTitle(*d.result, e)));
            QVERIFY(dots[e]->name().contains(QStringLiteral("%1 tok/s").arg(models[e].decodeTps, 0, 'f', 1)));
        }
        // The model lines run from TTFT at N = 0 along 1000·N/decode_tps.
        QList<QLineSeries*> modelLines;
        QLineSeries* marker = nullptr;
        for (QLineSeries* l : seriesOf<QLineSeries>(chart)) {
            if (l->property("qsRole").toString() == u"model")
                modelLines.append(l);
            else if (l->property("qsRole").toString() == u"crossover")
                marker = l;
        }
        QCOMPARE(modelLines.size(), 2);
        for (int e = 0; e < 2; ++e) {
            QCOMPARE(modelLines[e]->at(0), QPointF(0, models[e].ttftMs));
            const QPointF end = modelLines[e]->at(1);
            QVERIFY(std::abs(end.y() - models[e].predictMs(end.x())) < 1e-6);
            QCOMPARE(modelLines[e]->pen().color(), endpointColor(e, Theme::Light));
        }
        // nvfp4-like starts sooner, q4km-like decodes faster: they cross.
        const Crossover c = crossover(models[0], models[1]);
        QVERIFY(c.tokens);
        QVERIFY(marker);
        QCOMPARE(marker->at(0).x(), *c.tokens);
        QCOMPARE(marker->pen().style(), Qt::DashLine);
        QVERIFY2(chart.subtitle().contains(
                     QStringLiteral("N* ≈ %1 tokens: below, nvfp4-like (simulated) is faster; "
                                    "above, q4km-like (simulated).")
                         .arg(*c.tokens, 0, 'f', 0)),
            qPrintable(chart.subtitle()));
        auto* x = qobject_cast<QValueAxis*>(chart.chart()->axes(Qt::Horizontal).value(0));
        QCOMPARE(x->titleText(), QStringLiteral("completion tokens"));
        QVERIFY(x->max() > *c.tokens);
        QVERIFY(chart.toolTip().contains(u"e2e(N) ≈ TTFT + 1000 · N / decode_tps"));
    }

    void latencyTestPickerFiltersAndSurvivesRefresh()
    {
        const DashboardData d = test::fixtureData();
        LatencyLengthChart chart;
        chart.setData(d);
        auto* picker = chart.findChild<QComboBox*>(QStringLiteral("testPicker"));
        QCOMPARE(picker->count(), 9);
        QCOMPARE(picker->itemText(0), QStringLiteral("All tests"));
        picker->setCurrentIndex(picker->findText(QStringLiteral("greeting")));
        QCOMPARE(seriesOf<QScatterSeries>(chart)[0]->count(), 3);
        QVERIFY(chart.subtitle().contains(u"“greeting”"));
        chart.setData(d);
        chart.setData(d);
        QCOMPARE(picker->currentText(), QStringLiteral("greeting"));
        QCOMPARE(seriesOf<QScatterSeries>(chart)[1]->count(), 3);
        picker->setCurrentIndex(0);
        QCOMPARE(seriesOf<QScatterSeries>(chart)[1]->count(), 36);
    }

    void latencyWithoutCrossoverSaysWhoIsFaster()
    {
        // nvfp4-like made to decode at 3× its rate: it starts sooner and decodes faster.
        const DashboardData d = editedFixture([](RunRecord& r) {
            if (r.endpoint == 1 && r.request.metrics.decodeTps)
                *r.request.metrics.decodeTps *= 3;
            return true;
        });
        LatencyLengthChart chart;
        chart.setData(d);
        for (QLineSeries* l : seriesOf<QLineSeries>(chart))
            QVERIFY(l->property("qsRole").toString() != u"crossover");
        QVERIFY2(chart.subtitle().contains(u"nvfp4-like (simulated) is faster at every length"),
            qPrintable(chart.subtitle()));
        chart.setData(DashboardData {});
        QVERIFY(chart.chart()->series().isEmpty());
        QVERIFY(chart.subtitle().contains(u"No data yet"));
    }

    void emptyStatesRender()
    {
        // "No data yet" is a subtitle over a blank plot, not an empty grid.
        TtftTurnChart chart;
        chart.setData(DashboardData {});
        chart.resize(900, 300);
        chart.show();
        QCoreApplication::processEvents();
        const QImage image = renderWidget(&chart, 1);
        // The plot's lower half is blank: no grid lines, no axis.
        const QRgb base = themeColors(Theme::Light).base.rgb();
        for (int y = 200; y < 290; y += 3)
            for (int x = 20; x < 880; x += 3)
                QCOMPARE(image.pixel(x, y), base);
        const QString dir = qEnvironmentVariable("QS_SHOT_DIR");
        if (!dir.isEmpty())
            QCOMPARE(savePng(renderWidget(&chart, 2), dir + u"/empty-light.png"), QString());
    }
    void rendersInBothThemes_data()
    {
        QTest::addColumn<QString>("chart");
        QTest::addColumn<int>("theme");
        for (const char* c : {"ttft-turn", "decode-by-test", "ttft-by-test", "throughput", "latency-length"})
            for (int t : {0, 1})
                QTest::addRow("%s-%s", c, t ? "dark" : "light") << QString::fromLatin1(c) << t;
    }
    void rendersInBothThemes()
    {
        QFETCH(QString, chart);
        QFETCH(int, theme);
        std::unique_ptr<ChartPanel> panel;
        if (chart == u"ttft-turn")
            panel = std::make_unique<TtftTurnChart>();
        else if (chart == u"decode-by-test")
            panel = std::make_unique<MetricByTestChart>(Metric::DecodeTps);
        else if (chart == u"ttft-by-test")
            panel = std::make_unique<MetricByTestChart>(Metric::TtftVisible);
        else if (chart == u"throughput")
            panel = std::make_unique<LiveThroughputChart>();
        else
            panel = std::make_unique<LatencyLengthChart>();
        panel->setTheme(theme ? Theme::Dark : Theme::Light);
        panel->setData(test::fixtureData());
        panel->resize(900, 560);
        panel->show();
        QCoreApplication::processEvents();
        const QImage image = renderWidget(panel.get(), 2);
        QCOMPARE(image.size(), QSize(1800, 1120));
        QVERIFY2(test::distinctColours(image, 2) > 50,
            qPrintable(QString::number(test::distinctColours(image, 2))));
        // The panel is one card in the theme's base colour (corner pixel).
        QCOMPARE(image.pixelColor(2, 2).rgb(), themeColors(theme ? Theme::Dark : Theme::Light).base.rgb());
        const QString dir = qEnvironmentVariable("QS_SHOT_DIR");
        if (!dir.isEmpty()) {
            QDir().mkpath(dir);
            QCOMPARE(savePng(image, dir + u'/' + chart + (theme ? u"-dark.png" : u"-light.png")), QString());
        }
    }
};

QTEST_MAIN(TestCharts)
#include "tst_charts.moc"
