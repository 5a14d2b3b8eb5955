// SPDX-License-Identifier: MIT
// Exploring the charts with the mouse, as a person would: the wheel zooms the x axis around the
// pointer, a drag pans it, a double-click or Escape resets, a live update keeps the user's zoom;
// hovering reads the numbers under the pointer (a box plot its median, quartiles and n); a
// crosshair shows in a joined chart at the same x and clears on leave; the metric's definition
// is behind the ⓘ beside the title, never over the plot.
#include "ChartTestSupport.h"
#include "WidgetTestSupport.h"
#include "widgets/charts/ChartCrosshair.h"
#include "widgets/charts/LatencyLengthChart.h"
#include "widgets/charts/LiveThroughputChart.h"
#include "widgets/charts/MetricByTestChart.h"
#include "widgets/charts/ServerCharts.h"
#include "widgets/charts/TtftTurnChart.h"

#include <QApplication>
#include <QBarCategoryAxis>
#include <QBoxPlotSeries>
#include <QBoxSet>
#include <QChart>
#include <QChartView>
#include <QHelpEvent>
#include <QLabel>
#include <QLineSeries>
#include <QMouseEvent>
#include <QScatterSeries>
#include <QTest>
#include <QToolButton>
#include <QToolTip>
#include <QValueAxis>
#include <QWheelEvent>
#include <cmath>

using namespace qs;

namespace {

QValueAxis* xAxis(const ChartPanel& panel)
{
    return qobject_cast<QValueAxis*>(panel.chart()->axes(Qt::Horizontal).value(0));
}

/// The viewport position of a value of the chart (through `series`' axes).
QPoint viewportAt(const ChartPanel& panel, const QPointF& value, QAbstractSeries* series)
{
    return panel.chartView()->mapFromScene(panel.chart()->mapToPosition(value, series));
}

/// The value under a viewport position.
QPointF valueAt(const ChartPanel& panel, const QPoint& pos, QAbstractSeries* series)
{
    return panel.chart()->mapToValue(panel.chartView()->mapToScene(pos), series);
}

void wheel(QWidget* target, const QPoint& pos, int angle)
{
    QWheelEvent e(QPointF(pos), QPointF(target->mapToGlobal(pos)), QPoint(), QPoint(0, angle), Qt::NoButton,
        Qt::NoModifier, Qt::NoScrollPhase, false);
    QApplication::sendEvent(target, &e);
}

/// A pointer move straight to `target`: the offscreen platform stacks every window at one place,
/// so a move by screen position would reach whichever it finds first.
void hover(QWidget* target, const QPoint& pos)
{
    QMouseEvent e(QEvent::MouseMove, QPointF(pos), QPointF(target->mapToGlobal(pos)), Qt::NoButton,
        Qt::NoButton, Qt::NoModifier);
    QApplication::sendEvent(target, &e);
}

void leave(QWidget* target)
{
    QEvent e(QEvent::Leave);
    QApplication::sendEvent(target, &e);
}

using test::seriesOf;

LiveDelta delta(int endpoint, double atMs)
{
    LiveDelta d;
    d.endpoint = endpoint;
    d.atMs = atMs;
    d.content = QStringLiteral("x");
    return d;
}

/// The tooltip's label while one is shown (Qt's private QTipLabel).
QWidget* tipLabel()
{
    for (QWidget* w : QApplication::topLevelWidgets())
        if (w->isVisible() && w->inherits("QTipLabel"))
            return w;
    return nullptr;
}

template <typename Chart> void showSized(Chart& chart, int w = 900, int h = 520)
{
    chart.resize(w, h);
    chart.show();
    QVERIFY(QTest::qWaitForWindowExposed(&chart));
}

} // namespace

class TestChartExplore : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void wheelZoomsAroundThePointerAndResetRestores()
    {
        LiveThroughputChart chart;
        chart.setData(test::fixtureData());
        showSized(chart);
        QValueAxis* x = xAxis(chart);
        QLineSeries* line = seriesOf<QLineSeries>(chart).value(0);
        QVERIFY(x && line);
        const double lo = x->min(), hi = x->max();
        QVERIFY(hi > lo);
        QVERIFY(!chart.isZoomed());
        auto* reset = chart.findChild<QToolButton*>(QStringLiteral("resetZoom"));
        QVERIFY(reset && !reset->isVisibleTo(&chart));

        // Two notches in at 30 % of the run: the range narrows to 64 %, 30 % stays under the pointer.
        const double at = lo + 0.3 * (hi - lo);
        const QPoint pos = viewportAt(chart, QPointF(at, 1), line);
        const double before = valueAt(chart, pos, line).x();
        wheel(chart.chartView()->viewport(), pos, 240);
        QVERIFY(chart.isZoomed());
        QVERIFY(reset->isVisibleTo(&chart));
        QVERIFY2(std::abs((x->max() - x->min()) - 0.64 * (hi - lo)) < 1e-6 * (hi - lo),
            qPrintable(QStringLiteral("%1–%2").arg(x->min()).arg(x->max())));
        QVERIFY(x->min() > lo && x->max() < hi);
        QVERIFY(std::abs(valueAt(chart, pos, line).x() - before) < (hi - lo) / 200);
        // Finer ticks for the narrower span.
        QVERIFY(x->tickInterval() < hi - lo);

        // Double-click: the full view, and the chart's own ticks again.
        QTest::mouseDClick(chart.chartView()->viewport(), Qt::LeftButton, {}, pos);
        QVERIFY(!chart.isZoomed());
        QCOMPARE(x->min(), lo);
        QCOMPARE(x->max(), hi);
        QVERIFY(!reset->isVisibleTo(&chart));

        // Escape resets too, and so does the button; zooming out past the whole run ends the zoom.
        wheel(chart.chartView()->viewport(), pos, 120);
        QVERIFY(chart.isZoomed());
        QTest::mouseClick(chart.chartView()->viewport(), Qt::LeftButton, {}, pos);
        QTest::keyClick(chart.chartView(), Qt::Key_Escape);
        QVERIFY(!chart.isZoomed());
        QCOMPARE(x->max(), hi);
        wheel(chart.chartView()->viewport(), pos, 120);
        reset->click();
        QVERIFY(!chart.isZoomed());
        wheel(chart.chartView()->viewport(), pos, -240);
        QVERIFY(!chart.isZoomed());
        QCOMPARE(x->min(), lo);
        QCOMPARE(x->max(), hi);

        // Outside the plot the wheel is not the chart's (the page scrolls).
        wheel(chart.chartView()->viewport(), QPoint(2, 2), 240);
        QVERIFY(!chart.isZoomed());
    }

    void dragPansTheZoomedRange()
    {
        TtftTurnChart chart;
        chart.setData(test::fixtureData());
        showSized(chart);
        QValueAxis* x = xAxis(chart);
        QLineSeries* line = seriesOf<QLineSeries>(chart).value(0);
        const double lo = x->min(), hi = x->max();
        const QPoint pos = viewportAt(chart, QPointF(3, line->at(2).y()), line);
        wheel(chart.chartView()->viewport(), pos, 360); // ~half the range around turn 3
        const double zLo = x->min(), zHi = x->max();
        QVERIFY(zHi - zLo < 0.6 * (hi - lo));
        // Drag 100 px to the right: the data follows the hand, earlier turns come in.
        const double perPx = (zHi - zLo) / chart.chart()->plotArea().width();
        QTest::mousePress(chart.chartView()->viewport(), Qt::LeftButton, {}, pos);
        QTest::mouseMove(chart.chartView()->viewport(), pos + QPoint(50, 0));
        QTest::mouseMove(chart.chartView()->viewport(), pos + QPoint(100, 0));
        QTest::mouseRelease(chart.chartView()->viewport(), Qt::LeftButton, {}, pos + QPoint(100, 0));
        QVERIFY2(std::abs(x->min() - (zLo - 100 * perPx)) < 2 * perPx,
            qPrintable(QStringLiteral("%1 vs %2").arg(x->min()).arg(zLo - 100 * perPx)));
        QVERIFY(std::abs((x->max() - x->min()) - (zHi - zLo)) < 1e-9);
        // Never past the chart's own range.
        QTest::mousePress(chart.chartView()->viewport(), Qt::LeftButton, {}, pos);
        QTest::mouseMove(chart.chartView()->viewport(), pos + QPoint(400, 0));
        QTest::mouseRelease(chart.chartView()->viewport(), Qt::LeftButton, {}, pos + QPoint(400, 0));
        QCOMPARE(x->min(), lo);
    }

    void liveUpdatesKeepTheUsersZoom()
    {
        LiveThroughputChart chart;
        chart.beginLive({QStringLiteral("A"), QStringLiteral("B")});
        showSized(chart);
        QList<LiveDelta> deltas;
        for (int i = 0; i < 600; ++i)
            deltas << delta(i % 2, i * 50.0); // 30 s of both endpoints
        chart.addDeltas(deltas);
        QTRY_VERIFY(!seriesOf<QLineSeries>(chart).isEmpty() && seriesOf<QLineSeries>(chart)[0]->count() > 10);
        QValueAxis* x = xAxis(chart);
        QCOMPARE(x->min(), 0.0);
        QCOMPARE(x->max(), 60.0);
        QLineSeries* line = seriesOf<QLineSeries>(chart)[0];
        wheel(chart.chartView()->viewport(), viewportAt(chart, QPointF(15, 1), line), 480);
        QVERIFY(chart.isZoomed());
        const double zLo = x->min(), zHi = x->max();
        QVERIFY(zLo > 0 && zHi - zLo < 30);

        // The run goes on well past the minute: the live window would scroll, the zoom stays.
        for (int round = 1; round <= 3; ++round) {
            QList<LiveDelta> more;
            for (int i = 0; i < 200; ++i)
                more << delta(i % 2, 30000 + round * 15000 + i * 50.0);
            chart.addDeltas(more);
            QTest::qWait(150); // the 10 Hz redraw
            QCOMPARE(x->min(), zLo);
            QCOMPARE(x->max(), zHi);
        }
        // Zoomed, the buckets under the range are drawn, not the last minute's.
        const QList<QPointF> points = seriesOf<QLineSeries>(chart)[0]->points();
        QVERIFY(!points.isEmpty() && points.front().x() < zHi && points.back().x() > zLo);
        // A refresh of the records while live changes nothing either.
        chart.setData(test::fixtureData());
        QCOMPARE(x->max(), zHi);

        // Reset: back to following the run, the last minute.
        chart.resetZoom();
        QTest::qWait(150);
        QVERIFY(!chart.isZoomed());
        QVERIFY2(x->max() > 60 && std::abs((x->max() - x->min()) - 60) < 1e-9,
            qPrintable(QStringLiteral("%1–%2").arg(x->min()).arg(x->max())));
        chart.endLive();
    }

    void hoverReadsTheNumbersUnderThePointer()
    {
        const DashboardData d = test::fixtureData();
        TtftTurnChart chart;
        chart.setData(d);
        showSized(chart);
        QCOMPARE(chart.readout(), QString());
        const auto lines = seriesOf<QLineSeries>(chart);
        QCOMPARE(lines.size(), 2);
        // A little beside turn 3: the readout snaps to it and reads both medians.
        const QPoint pos = viewportAt(chart, QPointF(3.1, lines[0]->at(2).y()), lines[0]);
        QTest::mouseMove(chart.chartView()->viewport(), pos);
        const QString text = chart.readout();
        QVERIFY2(text.startsWith(u"turn 3\n"), qPrintable(text));
        for (int e = 0; e < 2; ++e)
            QVERIFY2(
                text.contains(
                    QStringLiteral("%1 · %2 ms").arg(lines[e]->name(), readoutNumber(lines[e]->at(2).y()))),
                qPrintable(text));
        QVERIFY2(text.contains(u"min–max · "), qPrintable(text)); // the band's range too
        // Compact: a few short lines, not one long one.
        for (const QString& row : text.split(u'\n'))
            QVERIFY2(row.size() < 70, qPrintable(row));
        leave(chart.chartView()->viewport());
        QCOMPARE(chart.readout(), QString());

        // A dot of the latency chart: its endpoint, tokens and ms.
        chart.hide(); // offscreen windows overlap: the pointer would find the first
        LatencyLengthChart latency;
        latency.setData(d);
        showSized(latency);
        QScatterSeries* dots = seriesOf<QScatterSeries>(latency).value(1);
        QVERIFY(dots && dots->count() > 0);
        const QPointF dot = dots->at(dots->count() / 2);
        QTest::mouseMove(latency.chartView()->viewport(), viewportAt(latency, dot, dots));
        const QString read = latency.readout();
        QVERIFY2(
            read.contains(
                QStringLiteral("%1 · %2 tokens · ").arg(endpointTitle(*d.result, 1), readoutNumber(dot.x()))),
            qPrintable(read));
        QVERIFY2(!read.contains(u"tok/s"), qPrintable(read)); // the legend's long name is not repeated
    }

    void boxReadoutHasMedianQuartilesAndN()
    {
        const DashboardData d = test::fixtureData();
        MetricByTestChart chart(Metric::DecodeTps);
        chart.setData(d);
        showSized(chart);
        const auto boxes = seriesOf<QBoxPlotSeries>(chart);
        QCOMPARE(boxes.size(), 2);
        QBoxSet* set = boxes[1]->boxSets()[2];
        // Find the box on screen: sweep across its test at its median until the series says so.
        QBoxSet* hovered = nullptr;
        connect(boxes[1], &QBoxPlotSeries::hovered, this,
            [&](bool on, QBoxSet* s) { hovered = on ? s : nullptr; });
        const double median = set->at(QBoxSet::Median);
        for (double at = 1.55; at <= 2.45 && hovered != set; at += 0.02)
            QTest::mouseMove(chart.chartView()->viewport(), viewportAt(chart, QPointF(at, median), boxes[1]));
        QCOMPARE(hovered, set);
        const QString text = chart.readout();
        const CellStatistics* cell = nullptr;
        for (const CellStatistics& c : d.evaluation->cells)
            if (c.endpoint == 1 && c.test == u"conversational" && c.turn == 0)
                cell = &c;
        QVERIFY(cell);
        const Distribution& tps = cell->metrics.at(QStringLiteral("decode_tps"));
        QVERIFY2(text.startsWith(QStringLiteral("conversational · %1\n").arg(endpointTitle(*d.result, 1))),
            qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("median %1 tok/s · n = %2").arg(tps.p50, 0, 'f', 1).arg(tps.n)),
            qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("quartiles (p25–p75) %1–%2 tok/s")
                                   .arg(set->at(QBoxSet::LowerQuartile), 0, 'f', 1)
                                   .arg(set->at(QBoxSet::UpperQuartile), 0, 'f', 1)),
            qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("whiskers (min–max) %1–%2 tok/s")
                                   .arg(tps.min, 0, 'f', 1)
                                   .arg(tps.max, 0, 'f', 1)),
            qPrintable(text));
        // The test axis does not zoom, and the wheel does not break it.
        const QStringList categories
            = qobject_cast<QBarCategoryAxis*>(chart.chart()->axes(Qt::Horizontal)[0])->categories();
        wheel(chart.chartView()->viewport(), viewportAt(chart, QPointF(2, median), boxes[1]), 240);
        QVERIFY(!chart.isZoomed());
        QCOMPARE(qobject_cast<QBarCategoryAxis*>(chart.chart()->axes(Qt::Horizontal)[0])->categories(),
            categories);
    }

    void crosshairShowsInJoinedChartsAndClearsOnLeave()
    {
        const DashboardData d = test::fixtureData();
        ChartCrosshair hub;
        // Two time charts of one run (the stream-events chart and the Server group) and two
        // per-test charts.
        LiveThroughputChart live;
        live.setData(d);
        ServerCharts server;
        server.beginLive({QStringLiteral("A"), QStringLiteral("B")});
        for (int i = 0; i < 300; ++i) {
            ServerPoint p;
            p.endpoint = i % 2;
            p.source = i % 2;
            p.atMs = i * 500.0;
            p.values = {{MetricRole::RequestsRunning, double(i % 3)}, {MetricRole::RequestsWaiting, 0.0}};
            server.addPoint(p);
        }
        server.endLive();
        MetricByTestChart ttft(Metric::TtftVisible);
        ttft.setData(d);
        MetricByTestChart decode(Metric::DecodeTps);
        decode.setData(d);
        TtftTurnChart turns;
        turns.setData(d);
        for (ChartPanel* c : std::initializer_list<ChartPanel*> {&live, &server, &ttft, &decode, &turns})
            hub.join(c);
        QCOMPARE(hub.members().size(), 5);
        showSized(live);
        showSized(server, 900, 700);
        showSized(ttft);
        showSized(decode);

        // Hover the stream-events chart at ~12 s: the Server group shows its line at the same time.
        QLineSeries* line = seriesOf<QLineSeries>(live).value(0);
        hover(live.chartView()->viewport(), viewportAt(live, QPointF(12, 1), line));
        const QString own = live.readout();
        QVERIFY2(own.contains(u" s\n"), qPrintable(own));
        bool ok = false;
        const double seconds = own.section(u' ', 0, 0).toDouble(&ok);
        QVERIFY2(ok && std::abs(seconds - 12) < 1, qPrintable(own));
        QVERIFY(server.plot()->sharedCrosshair().has_value());
        QVERIFY(std::abs(*server.plot()->sharedCrosshair() - seconds * 1000) < 60); // the readout rounds
        const QString shared = server.readout();
        QVERIFY2(
            std::abs(shared.section(u' ', 0, 0).toDouble() - seconds) <= 0.15 && shared.contains(u" s · "),
            qPrintable(shared));
        QVERIFY2(shared.contains(u"A: running "), qPrintable(shared));
        // Charts on other axes show nothing.
        QCOMPARE(ttft.readout(), QString());
        QCOMPARE(turns.readout(), QString());

        // And back: hovering the Server group moves the stream-events chart's line.
        QWidget* plot = server.plot();
        const QRect area = server.plot()->chartArea();
        hover(plot, QPoint(int(server.plot()->xAt(40000)), area.top() + area.height() / 8));
        QVERIFY2(
            server.readout().startsWith(u"40.0 s · requests on the server"), qPrintable(server.readout()));
        QVERIFY2(
            std::abs(live.readout().section(u' ', 0, 0).toDouble() - 40) < 0.5, qPrintable(live.readout()));

        // Leaving clears it everywhere.
        leave(plot);
        QCOMPARE(live.readout(), QString());
        QVERIFY(!server.plot()->sharedCrosshair());
        hover(live.chartView()->viewport(), viewportAt(live, QPointF(12, 1), line));
        QVERIFY(server.plot()->sharedCrosshair());
        leave(live.chartView()->viewport());
        QVERIFY(!server.plot()->sharedCrosshair());
        QCOMPARE(server.readout(), QString());

        // A test on one per-test chart highlights the same test on the other, with its medians.
        QBoxPlotSeries* box = seriesOf<QBoxPlotSeries>(ttft).value(0);
        hover(ttft.chartView()->viewport(), viewportAt(ttft, QPointF(3, 0), box) - QPoint(0, 4));
        QVERIFY2(decode.readout().startsWith(u"reasoning\n"), qPrintable(decode.readout()));
        QVERIFY2(decode.readout().contains(u"median") && decode.readout().contains(u"tok/s"),
            qPrintable(decode.readout()));
        leave(ttft.chartView()->viewport());
        QCOMPARE(decode.readout(), QString());
    }

    void definitionIsBesideTheTitleNotOverThePlot()
    {
        MetricByTestChart chart(Metric::DecodeTps);
        chart.setData(test::fixtureData());
        showSized(chart);
        QVERIFY(chart.chartView()->toolTip().isEmpty());
        auto* marker = chart.findChild<QLabel*>(QStringLiteral("definitionMarker"));
        QVERIFY(marker && marker->isVisibleTo(&chart));
        QVERIFY(marker->toolTip().contains(u"decode_tps = (completion_tokens − 1)"));
        QVERIFY(chart.definitionText().contains(u"decode_tps"));
        // Rich text, so that Qt wraps it into a column that reads.
        QVERIFY(Qt::mightBeRichText(marker->toolTip()));
        {
            QHelpEvent help(QEvent::ToolTip, QPoint(2, 2), marker->mapToGlobal(QPoint(2, 2)));
            QApplication::sendEvent(marker, &help);
        }
        QTRY_VERIFY(tipLabel());
        QVERIFY2(tipLabel()->width() <= 460, qPrintable(QString::number(tipLabel()->width())));
        QVERIFY(tipLabel()->height() > 3 * marker->fontMetrics().height()); // wrapped onto several lines
        QToolTip::hideText();
        QTRY_VERIFY(!tipLabel());

        // Over the plot, no tooltip at all: the readout is the plot's.
        const QPoint middle = chart.chartView()->viewport()->rect().center();
        QHelpEvent help(QEvent::ToolTip, middle, chart.chartView()->viewport()->mapToGlobal(middle));
        QApplication::sendEvent(chart.chartView()->viewport(), &help);
        QTest::qWait(50);
        QVERIFY(!tipLabel());

        // A screenshot leaves the marker out with the toggles.
        chart.setControlsVisible(false);
        QVERIFY(!marker->isVisibleTo(&chart));
    }

    void serverPlotZoomsPansAndKeepsItsZoomLive()
    {
        ServerCharts charts;
        charts.beginLive({QStringLiteral("A")});
        for (int i = 0; i < 200; ++i) {
            ServerPoint p;
            p.atMs = i * 500.0;
            p.values = {{MetricRole::RequestsRunning, 1.0}};
            charts.addPoint(p);
        }
        showSized(charts, 900, 700);
        QTRY_VERIFY(charts.message().isEmpty());
        ServerPlot* plot = charts.plot();
        const double lo = plot->fromMs(), hi = plot->toMs();
        const QRect area = plot->chartArea();
        const QPoint pos(int(plot->xAt(50000)), area.top() + 20);
        wheel(plot, pos, 240);
        QVERIFY(charts.isZoomed());
        QVERIFY(std::abs((plot->toMs() - plot->fromMs()) - 0.64 * (hi - lo)) < 1);
        QVERIFY(std::abs(plot->msAt(pos.x()) - 50000) < 2 * (hi - lo) / area.width());
        QVERIFY(charts.findChild<QToolButton*>(QStringLiteral("resetZoom"))->isVisibleTo(&charts));
        // More scrapes and repaints: the zoom stays.
        const double zLo = plot->fromMs(), zHi = plot->toMs();
        for (int i = 200; i < 260; ++i) {
            ServerPoint p;
            p.atMs = i * 500.0;
            p.values = {{MetricRole::RequestsRunning, 2.0}};
            charts.addPoint(p);
        }
        QTest::qWait(400);
        QCOMPARE(plot->fromMs(), zLo);
        QCOMPARE(plot->toMs(), zHi);
        // Drag right by 100 px: earlier times.
        const double perPx = (zHi - zLo) / area.width();
        QTest::mousePress(plot, Qt::LeftButton, {}, pos);
        QTest::mouseMove(plot, pos + QPoint(100, 0));
        QTest::mouseRelease(plot, Qt::LeftButton, {}, pos + QPoint(100, 0));
        QVERIFY(std::abs(plot->fromMs() - (zLo - 100 * perPx)) < 2 * perPx);
        // Double-click: the whole run so far.
        QTest::mouseDClick(plot, Qt::LeftButton, {}, pos);
        QVERIFY(!charts.isZoomed());
        QCOMPARE(plot->fromMs(), lo);
        QVERIFY(plot->toMs() >= hi);
        charts.endLive();
    }
};

QTEST_MAIN(TestChartExplore)
#include "tst_chart_explore.moc"
