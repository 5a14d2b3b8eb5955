// SPDX-License-Identifier: MIT
// The TTFT-vs-prompt-tokens chart (widgets/charts/PromptScalingChart): one scatter per endpoint
// carrying the evaluation's per-prompt medians, its fitted line and the legend's slope with its
// interval; the multi-turn fixture without a slope; the empty states; it renders in both themes.
#include "WidgetTestSupport.h"
#include "widgets/ScreenshotRenderer.h"
#include "widgets/charts/PromptScalingChart.h"

#include <QChart>
#include <QDir>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QScatterSeries>
#include <QTest>
#include <QValueAxis>
#include <cmath>

using namespace qs;
using json = nlohmann::json;

namespace {

template <typename T> QList<T*> seriesOf(const ChartPanel& panel, const char* role)
{
    QList<T*> out;
    for (QAbstractSeries* s : panel.chart()->series())
        if (auto* t = qobject_cast<T*>(s); t && t->metaObject() == &T::staticMetaObject
            && t->property("qsRole").toString() == QLatin1String(role))
            out.append(t);
    return out;
}

/// Two endpoints on a context sweep of 6 sizes × 2 depths, 3 runs each, cold: TTFT = 60 + 0.3 ×
/// tokens on the first, 80 + 0.04 × tokens on the second; the second misses the deep fact at 30K.
DashboardData sweepData(bool withComparison = true)
{
    RunResult run;
    for (const char* label : {"q4km", "nvfp4"}) {
        RunEndpoint e;
        e.endpoint.label = QString::fromLatin1(label);
        run.endpoints.push_back(e);
    }
    json tests = json::array();
    const int sizes[] = {1024, 2048, 4096, 8192, 16384, 30000};
    for (int size : sizes)
        for (double depth : {0.2, 0.8}) {
            const std::string id = "ctx-" + std::to_string(size) + (depth < 0.5 ? "-a" : "-b");
            tests.push_back({{"id", id}, {"prompt", "When is the dentist?"},
                {"expect", json::array({"Thursday"})},
                {"context", {{"tokens", size}, {"fact", "The dentist is on Thursday."}, {"depth", depth}}}});
            for (int i = 1; i <= 3; ++i)
                for (int e = 0; e < 2; ++e) {
                    RunRecord r;
                    r.endpoint = e;
                    r.test = QString::fromStdString(id);
                    r.iteration = i;
                    const qint64 prompt = size + 7 * i;
                    RequestMetrics& m = r.request.metrics;
                    m.promptTokens = {prompt, CountSource::ServerUsage};
                    m.completionTokens = {12, CountSource::ServerUsage};
                    m.ttftAnyMs
                        = e == 0 ? 60 + 0.3 * double(prompt) + 9 * i : 80 + 0.04 * double(prompt) + 4 * i;
                    m.ttftVisibleMs = m.ttftAnyMs;
                    m.e2eMs = *m.ttftAnyMs + 400;
                    m.decodeTps = 30;
                    r.gates = {{"expected_answer", !(e == 1 && size == 30000 && depth > 0.5)}};
                    run.records.push_back(r);
                }
        }
    run.suite = {{"id", "context-sweep"}, {"prefix_cache", "cold"}, {"tests", tests}};
    return prepareDashboard(std::make_shared<const RunResult>(std::move(run)), 0, withComparison);
}

} // namespace

class TestPromptScalingChart : public QObject {
    Q_OBJECT
private slots:
    void contextSweepOneScatterAndLinePerEndpoint()
    {
        const DashboardData d = sweepData();
        const PrefillScaling& p = d.evaluation->prefill;
        QCOMPARE(p.source, PrefillSource::ContextSweep);
        PromptScalingChart chart;
        chart.setData(d);
        const auto dots = seriesOf<QScatterSeries>(chart, "prompts");
        const auto fits = seriesOf<QLineSeries>(chart, "fit");
        QCOMPARE(dots.size(), 2);
        QCOMPARE(fits.size(), 2);
        for (int e = 0; e < 2; ++e) {
            const EndpointPrefill& ep = p.endpoints[std::size_t(e)];
            QVERIFY(ep.msPer1kTokens && ep.interval);
            // The legend: "NAME: X ms per 1K tokens [lo–hi]", the evaluation's numbers.
            QCOMPARE(
                dots[e]->name(), endpointTitle(*d.result, e) + QStringLiteral(": ") + prefillFigureText(ep));
            QVERIFY(dots[e]->name().contains(QStringLiteral(" ms per 1K tokens [")));
            // One dot per distinct prompt: the medians of its repeats.
            QCOMPARE(dots[e]->count(), int(ep.medians.size()));
            QCOMPARE(dots[e]->count(), 12);
            for (int k = 0; k < dots[e]->count(); ++k)
                QCOMPARE(dots[e]->at(k),
                    QPointF(ep.medians[std::size_t(k)].uncachedTokens, ep.medians[std::size_t(k)].ttftMs));
            // The line follows the fit and spans the tokens fitted on.
            const QLineSeries* line = fits[e];
            QVERIFY(line->count() > 10);
            QCOMPARE(line->at(0).x(), *ep.minTokens);
            QVERIFY(std::abs(line->at(line->count() - 1).x() - *ep.maxTokens) < 1e-6 * *ep.maxTokens);
            for (int k = 0; k < line->count(); ++k)
                QVERIFY(
                    std::abs(line->at(k).y() - (*ep.interceptMs + *ep.msPer1kTokens * line->at(k).x() / 1000))
                    < 1e-6);
            for (QLegendMarker* m : chart.chart()->legend()->markers(const_cast<QLineSeries*>(line)))
                QVERIFY(!m->isVisible());
            QCOMPARE(line->pen().color(), endpointColor(e, Theme::Light));
        }
        // The figures the chart shows are the generating ones.
        QVERIFY(std::abs(*p.endpoints[0].msPer1kTokens - 300) < 3);
        QVERIFY(std::abs(*p.endpoints[1].msPer1kTokens - 40) < 1);
        // The missed fact is ringed: nvfp4 at 30K, depth 0.8.
        const auto rings = seriesOf<QScatterSeries>(chart, "wrong");
        QCOMPARE(rings.size(), 1);
        QCOMPARE(rings[0]->count(), 1);
        QVERIFY(rings[0]->at(0).x() > 29000);
        // log₂ tokens across, ms up.
        auto* x = qobject_cast<QLogValueAxis*>(chart.chart()->axes(Qt::Horizontal).value(0));
        auto* y = qobject_cast<QValueAxis*>(chart.chart()->axes(Qt::Vertical).value(0));
        QVERIFY(x && y);
        QCOMPARE(x->base(), 2.0);
        // Whole powers of two around the data (1,031–30,021 tokens), with a little room either side.
        QVERIFY(x->min() > 512 && x->min() < 1024);
        QVERIFY(x->max() > 32768 && x->max() < 65536);
        QCOMPARE(x->labelFormat(), QStringLiteral("%.0f"));
        QCOMPARE(y->min(), 0.0);
        QVERIFY(y->max() >= dots[0]->at(dots[0]->count() - 1).y());
        QVERIFY(chart.subtitle().contains(QStringLiteral("Context sweep")));
        QVERIFY(chart.subtitle().contains(QStringLiteral("cold: prefill measured")));
        QVERIFY(chart.toolTip().contains(QStringLiteral("ms per 1,000 tokens")));

        chart.setTheme(Theme::Dark);
        QCOMPARE(seriesOf<QLineSeries>(chart, "fit")[1]->pen().color(), endpointColor(1, Theme::Dark));
    }

    void fastPassHasNoIntervalInTheLegend()
    {
        const DashboardData d = sweepData(false);
        PromptScalingChart chart;
        chart.setData(d);
        const auto dots = seriesOf<QScatterSeries>(chart, "prompts");
        QCOMPARE(dots.size(), 2);
        QVERIFY(dots[0]->name().endsWith(QStringLiteral(" ms per 1K tokens")));
    }

    void multiTurnFixtureWithoutASlope()
    {
        // voice-sim.json: one multi-turn conversation, so no slope, but the dots of its turns.
        const DashboardData d = test::fixtureData();
        const PrefillScaling& p = d.evaluation->prefill;
        QCOMPARE(p.source, PrefillSource::MultiTurn);
        PromptScalingChart chart;
        chart.setData(d);
        const auto dots = seriesOf<QScatterSeries>(chart, "prompts");
        QCOMPARE(dots.size(), int(d.result->endpoints.size()));
        QVERIFY(seriesOf<QLineSeries>(chart, "fit").isEmpty());
        for (int e = 0; e < dots.size(); ++e) {
            QCOMPARE(dots[e]->name(), endpointTitle(*d.result, e) + QStringLiteral(": no slope"));
            QCOMPARE(dots[e]->count(), 5); // one per turn of the conversation
            QCOMPARE(dots[e]->at(0).y(), p.endpoints[std::size_t(e)].medians.front().ttftMs);
        }
        QVERIFY(chart.subtitle().contains(QStringLiteral("only 1 distinct prompt")));
    }

    void emptyStates()
    {
        PromptScalingChart chart;
        chart.setData(DashboardData {});
        QVERIFY(chart.subtitle().contains(QStringLiteral("No data yet")));
        QVERIFY(chart.chart()->series().isEmpty());

        RunResult run = *test::loadFixture();
        run.records.erase(std::remove_if(run.records.begin(), run.records.end(),
                              [](const RunRecord& r) { return r.test == u"multi-turn-5"; }),
            run.records.end());
        chart.setData(prepareDashboard(std::make_shared<const RunResult>(std::move(run)), 0, false));
        QVERIFY(chart.subtitle().contains(QStringLiteral("No context-sweep or multi-turn test")));
        QVERIFY(chart.chart()->series().isEmpty());

        DashboardData waiting = test::fixtureData();
        waiting.evaluation.reset();
        chart.setData(waiting);
        QVERIFY(chart.subtitle().contains(QStringLiteral("Waiting for the first evaluation")));
    }

    void rendersInBothThemes_data()
    {
        QTest::addColumn<int>("theme");
        QTest::addRow("light") << 0;
        QTest::addRow("dark") << 1;
    }
    void rendersInBothThemes()
    {
        QFETCH(int, theme);
        PromptScalingChart chart;
        chart.setTheme(theme ? Theme::Dark : Theme::Light);
        chart.setData(sweepData());
        chart.resize(960, 600);
        chart.show();
        QCoreApplication::processEvents();
        const QImage image = renderWidget(&chart, 2);
        QCOMPARE(image.size(), QSize(1920, 1200));
        QVERIFY(test::distinctColours(image, 2) > 50);
        QCOMPARE(image.pixelColor(2, 2).rgb(), themeColors(theme ? Theme::Dark : Theme::Light).base.rgb());
        const QString dir = qEnvironmentVariable("QS_SHOT_DIR");
        if (!dir.isEmpty()) {
            QDir().mkpath(dir);
            QCOMPARE(
                savePng(image, dir + (theme ? u"/prompt-scaling-dark.png" : u"/prompt-scaling-light.png")),
                QString());
        }
    }
};

QTEST_MAIN(TestPromptScalingChart)
#include "tst_prompt_scaling.moc"
