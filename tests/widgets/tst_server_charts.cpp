// SPDX-License-Identifier: MIT
// The Server chart group: live points draw one line per endpoint, a failed scrape breaks a line,
// a loaded file draws the same picture as the live run, the empty state says how to get data,
// long runs stay cheap, and it renders in both themes.
#include "WidgetTestSupport.h"
#include "widgets/ScreenshotRenderer.h"
#include "widgets/charts/ServerCharts.h"

#include <QDir>
#include <QElapsedTimer>
#include <QTest>
#include <cmath>

using namespace qs;

namespace {

constexpr double MiB = 1048576;

/// A sample's values by series name, for a source whose series table grows as names appear.
TelemetrySample sampleOf(TelemetrySource& source, int sourceIndex, double atMs,
    const std::vector<std::pair<QString, double>>& values, const QString& error = {})
{
    TelemetrySample s;
    s.source = sourceIndex;
    s.atMs = atMs;
    s.error = error;
    if (!error.isEmpty())
        return s;
    for (const auto& [name, value] : values) {
        int index = -1;
        for (std::size_t i = 0; i < source.series.size(); ++i)
            if (source.series[i].name == name)
                index = int(i);
        if (index < 0) {
            TelemetrySeries series;
            series.name = name;
            series.family = name;
            series.type = MetricType::Gauge;
            source.series.push_back(series);
            source.families.push_back({name, MetricType::Gauge});
            index = int(source.series.size()) - 1;
        }
        s.values.emplace_back(index, value);
    }
    return s;
}

/// A realistic 90 s run on two endpoints: a vLLM server with a DCGM exporter (which is down
/// from 40 s to 50 s) and a llama-server on a unified-memory box with a node exporter. Requests
/// in pairs of 3 s, each endpoint busy while they run.
RunResult syntheticRun(double seconds = 90, double periodMs = 333)
{
    RunResult run;
    run.settings.scrapeMs = int(periodMs);
    for (const char* label : {"NVFP4 vLLM", "Q4_K_M llama-server"}) {
        RunEndpoint e;
        e.endpoint.label = QString::fromLatin1(label);
        e.endpoint.baseUrl = QUrl(QStringLiteral("http://10.0.0.5:8000"));
        run.endpoints.push_back(e);
    }
    Telemetry& t = run.telemetry;
    t.periodMs = int(periodMs);
    const auto source = [&](int endpoint, const char* url, TelemetrySource::Kind kind) {
        TelemetrySource s;
        s.endpoint = endpoint;
        s.url = QString::fromLatin1(url);
        s.kind = kind;
        t.sources.push_back(s);
    };
    source(0, "http://10.0.0.5:8000/metrics", TelemetrySource::Kind::Runtime);
    source(0, "http://10.0.0.5:9400/metrics", TelemetrySource::Kind::Exporter);
    source(1, "http://10.0.0.6:8080/metrics", TelemetrySource::Kind::Runtime);
    source(1, "http://10.0.0.6:9100/metrics", TelemetrySource::Kind::Exporter);

    const auto busy = [](double ms) { return ms > 5000 && ms < 80000 && std::fmod(ms - 5000, 6000) < 3000; };
    for (double at = 0; at <= seconds * 1000; at += periodMs) {
        const bool on = busy(at);
        const double wave = 0.5 + 0.5 * std::sin(at / 7000);
        t.samples.push_back(sampleOf(t.sources[0], 0, at,
            {{QStringLiteral("vllm:num_requests_running"), on ? 2 : 0},
                {QStringLiteral("vllm:num_requests_waiting"), on && wave > 0.7 ? 1 : 0},
                {QStringLiteral("vllm:kv_cache_usage_perc"), on ? 0.2 + 0.5 * wave : 0.02}}));
        const bool exporterDown = at >= 40000 && at < 50000;
        t.samples.push_back(sampleOf(t.sources[1], 1, at + 5,
            {{QStringLiteral("DCGM_FI_DEV_FB_USED"), (62000 + (on ? 3500 * wave : 0)) * 1.0},
                {QStringLiteral("DCGM_FI_DEV_POWER_USAGE"), on ? 280 + 60 * wave : 85}},
            exporterDown ? QStringLiteral("connection refused (exporter down?)") : QString()));
        t.samples.push_back(sampleOf(t.sources[2], 2, at + 10,
            {{QStringLiteral("llamacpp:requests_processing"), on ? 1 : 0},
                {QStringLiteral("llamacpp:requests_deferred"), on && wave < 0.3 ? 1 : 0}}));
        t.samples.push_back(sampleOf(t.sources[3], 3, at + 15,
            {{QStringLiteral("node_memory_MemTotal_bytes"), 128e9},
                {QStringLiteral("node_memory_MemAvailable_bytes"), 128e9 - 71e9 - (on ? 2e9 * wave : 0)}}));
    }
    for (double start = 5000; start < 80000; start += 6000)
        for (int e = 0; e < 2; ++e) {
            RunRecord r;
            r.endpoint = e;
            r.startOffsetMs = start + 40 * e;
            r.warmup = start < 6000;
            r.request.metrics.e2eMs = 2800 - 300 * e;
            run.records.push_back(r);
        }
    return run;
}

QStringList labelsOf(const RunResult& run)
{
    QStringList labels;
    for (int e = 0; e < int(run.endpoints.size()); ++e)
        labels << endpointTitle(run, e);
    return labels;
}

/// Pixels of `colour` (exactly, as drawn by a line's core) inside `area` of `image`.
int pixelsOf(const QImage& image, const QColor& colour, const QRect& area)
{
    int n = 0;
    const QRect r = area.intersected(image.rect());
    for (int y = r.top(); y <= r.bottom(); ++y)
        for (int x = r.left(); x <= r.right(); ++x)
            if (image.pixelColor(x, y).rgb() == colour.rgb())
                ++n;
    return n;
}

ServerPoint point(int endpoint, int source, double atMs, std::vector<std::pair<MetricRole, double>> values,
    const QString& error = {})
{
    ServerPoint p;
    p.endpoint = endpoint;
    p.source = source;
    p.atMs = atMs;
    p.error = error;
    p.values = std::move(values);
    return p;
}

void show(QWidget& w, QSize size = {960, 760})
{
    w.resize(size);
    w.setAttribute(Qt::WA_DontShowOnScreen);
    w.show();
    QCoreApplication::processEvents();
}

void saveShot(const QImage& image, const QString& name)
{
    const QString dir = qEnvironmentVariable("QS_SHOT_DIR");
    if (dir.isEmpty())
        return;
    QDir().mkpath(dir);
    QCOMPARE(savePng(image, dir + u'/' + name), QString());
}

} // namespace

class TestServerCharts : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void livePointsDrawOneLinePerEndpoint()
    {
        ServerCharts charts;
        show(charts);
        charts.beginLive({QStringLiteral("A"), QStringLiteral("B")});
        QVERIFY(charts.message().contains(u"Waiting for the first server metrics"));
        for (int i = 0; i < 100; ++i)
            for (int e = 0; e < 2; ++e)
                charts.addPoint(point(e, e, i * 333.0,
                    {{MetricRole::RequestsRunning, 1 + e}, {MetricRole::GpuPower, 100 + 50 * e + i}}));
        QTest::qWait(400); // the repaint timer
        QVERIFY(charts.message().isEmpty());
        for (int e = 0; e < 2; ++e) {
            QCOMPARE(charts.timeline().series(e, MetricRole::RequestsRunning).size(), std::size_t(100));
            QCOMPARE(charts.timeline().series(e, MetricRole::GpuPower).size(), std::size_t(100));
        }
        QVERIFY(charts.subtitle().startsWith(u"Live"));
        // Live, the axis spans at least a minute; each endpoint's line is in its colour.
        QCOMPARE(charts.plot()->fromMs(), 0.0);
        QCOMPARE(charts.plot()->toMs(), 60000.0);
        const QImage image = charts.plot()->grab().toImage();
        for (int e = 0; e < 2; ++e)
            QVERIFY2(pixelsOf(image, endpointColor(e, Theme::Light), charts.plot()->chartArea()) > 50,
                qPrintable(QStringLiteral("endpoint %1").arg(e)));
        // The strips without data say what is missing.
        QVERIFY(charts.plot()->stripNote(ServerPlot::Strip::KvCache).startsWith(u"No KV-cache figure"));
        QVERIFY(charts.plot()->stripNote(ServerPlot::Strip::Power).isEmpty());
        QCOMPARE(charts.plot()->stripTop(ServerPlot::Strip::Requests), 2.0);
        charts.endLive();
    }

    void aFailedScrapeBreaksTheLine()
    {
        ServerCharts charts;
        show(charts, {900, 700});
        charts.beginLive({QStringLiteral("A")});
        for (int i = 0; i <= 180; ++i) { // 60 s, down from 20 s to 40 s
            const double at = i * 333.0;
            const bool down = at >= 20000 && at < 40000;
            charts.addPoint(point(0, 0, at,
                down ? std::vector<std::pair<MetricRole, double>> {}
                     : std::vector<std::pair<MetricRole, double>> {{MetricRole::GpuPower, 200}},
                down ? QStringLiteral("connection refused") : QString()));
        }
        charts.endLive();
        const auto& power = charts.timeline().series(0, MetricRole::GpuPower);
        const auto gaps = std::count_if(power.begin(), power.end(), [](const auto& p) { return p.gap(); });
        QCOMPARE(gaps, 1); // one marker, however long the outage
        QCOMPARE(charts.timeline().failedScrapes(), 60);
        QVERIFY(charts.subtitle().contains(u"60 failed"));
        QVERIFY(charts.subtitle().contains(u"connection refused"));
        // No line drawn across the outage: no pixel of the endpoint's colour between 21 s and 39 s.
        const QImage image = charts.plot()->grab().toImage();
        const QRect area = charts.plot()->chartArea();
        const int x0 = int(std::ceil(charts.plot()->xAt(21000)));
        const int x1 = int(charts.plot()->xAt(39000));
        const QColor colour = endpointColor(0, Theme::Light);
        QCOMPARE(pixelsOf(image, colour, QRect(x0, area.top(), x1 - x0, area.height())), 0);
        QVERIFY(pixelsOf(image, colour, QRect(area.left(), area.top(), x0 - area.left() - 20, area.height()))
            > 20);
        QVERIFY(
            pixelsOf(image, colour, QRect(x1 + 20, area.top(), area.right() - x1 - 20, area.height())) > 20);
        saveShot(image, QStringLiteral("server-gap.png"));
    }

    void aFileDrawsWhatTheLiveRunDrew()
    {
        const RunResult run = syntheticRun();
        const auto shared = std::make_shared<const RunResult>(run);
        ServerCharts live;
        show(live);
        live.beginLive(labelsOf(run));
        DashboardData liveData;
        liveData.result = shared;
        liveData.live = true;
        live.setData(liveData); // the records so far: the request spans
        for (const ServerPoint& p : serverPoints(run.telemetry))
            live.addPoint(p);
        live.endLive();

        ServerCharts review;
        show(review);
        review.setData(prepareDashboard(shared, 0, false));

        for (int e = 0; e < 2; ++e)
            for (MetricRole role : ServerTimeline::roles()) {
                const auto& a = live.timeline().series(e, role);
                const auto& b = review.timeline().series(e, role);
                QCOMPARE(a.size(), b.size());
                for (std::size_t i = 0; i < a.size(); ++i) {
                    QCOMPARE(a[i].atMs, b[i].atMs);
                    QCOMPARE(a[i].gap(), b[i].gap());
                }
            }
        QCOMPARE(live.plot()->fromMs(), review.plot()->fromMs());
        QCOMPARE(live.plot()->toMs(), review.plot()->toMs());
        QCOMPARE(live.plot()->grab().toImage(), review.plot()->grab().toImage());

        // What the synthetic run holds: both endpoints' memory (GPU for one, host for the
        // other), vLLM's KV cache only, one gap in the DCGM lines, the requests lane.
        const ServerTimeline& t = review.timeline();
        QCOMPARE(t.memoryRole(0), MetricRole::GpuMemoryUsed);
        QCOMPARE(t.memoryRole(1), MetricRole::HostMemoryUsed);
        QVERIFY(t.series(1, MetricRole::KvCacheUsage).empty());
        QCOMPARE(t.requests(0).size(), std::size_t(13));
        QVERIFY(t.requests(0).front().warmup);
        QCOMPARE(t.requests(0).front().endMs, 5000.0 + 2800);
        QVERIFY(review.plot()
                    ->stripTitle(ServerPlot::Strip::Memory)
                    .contains(u"GPU framebuffer or host memory:"));
        QCOMPARE(review.plot()->stripTop(ServerPlot::Strip::KvCache), 100.0);
        // Hovering reads the values out: power at 20 s (busy), nothing during the outage.
        const QRect area = review.plot()->chartArea();
        const QPoint power(int(review.plot()->xAt(20000)), area.top() + area.height() * 7 / 8);
        QString readout = review.plot()->readout(power);
        QVERIFY2(readout.startsWith(u"20.0 s · GPU power, W\nNVFP4 vLLM: "), qPrintable(readout));
        QVERIFY(!readout.contains(u"Q4_K_M"));
        readout = review.plot()->readout(QPoint(int(review.plot()->xAt(45000)), power.y()));
        QVERIFY2(readout.contains(u"no value (scrape failed)"), qPrintable(readout));
        readout
            = review.plot()->readout(QPoint(int(review.plot()->xAt(20000)), area.top() + area.height() / 8));
        QVERIFY2(readout.contains(u"Q4_K_M llama-server: running 1, waiting 0"), qPrintable(readout));
        QCOMPARE(review.plot()->readout(QPoint(2, 2)), QString());
        QVERIFY(review.subtitle().startsWith(u"The whole run"));
        QVERIFY(review.subtitle().contains(u"every 333 ms"));
        const auto& fb = t.series(0, MetricRole::GpuMemoryUsed);
        QCOMPARE(std::count_if(fb.begin(), fb.end(), [](const auto& p) { return p.gap(); }), 1);
        QCOMPARE(fb.front().value, 62000 * MiB);

        // Evaluated again (intervals after medians): the timeline is not rebuilt.
        const ServerTimeline* before = &review.timeline();
        const std::size_t points = before->series(0, MetricRole::GpuPower).size();
        DashboardData again = prepareDashboard(shared, 1, false);
        review.setData(again);
        QCOMPARE(review.timeline().series(0, MetricRole::GpuPower).size(), points);
        saveShot(renderWidget(&review, 2), QStringLiteral("server-light.png"));
    }

    void emptyStatesSayHowToGetData()
    {
        ServerCharts charts;
        show(charts);
        QVERIFY(charts.message().contains(noServerMetricsText()));
        QVERIFY(noServerMetricsText().contains(u"llama-server needs --metrics"));
        QVERIFY(noServerMetricsText().contains(u"DCGM or node exporter URL in the endpoint editor"));

        charts.setData(test::fixtureData()); // recorded before telemetry existed
        QVERIFY(charts.message().startsWith(noServerMetricsText()));

        RunResult off = *test::loadFixture();
        off.settings.serverMetrics = false;
        charts.setData(prepareDashboard(std::make_shared<const RunResult>(off), 0, false));
        QVERIFY(charts.message().contains(u"--no-server-metrics"));

        // Every scrape failed: the how-to and the last error.
        RunResult failing = *test::loadFixture();
        failing.telemetry.periodMs = 333;
        TelemetrySource s;
        s.url = QStringLiteral("http://127.0.0.1:1/metrics");
        failing.telemetry.sources.push_back(s);
        for (int i = 0; i < 3; ++i) {
            TelemetrySample sample;
            sample.atMs = i * 333;
            sample.error = QStringLiteral("connection refused");
            failing.telemetry.samples.push_back(sample);
        }
        charts.setData(prepareDashboard(std::make_shared<const RunResult>(failing), 0, false));
        QVERIFY(charts.message().startsWith(noServerMetricsText()));
        QVERIFY(charts.message().contains(u"3 of 3 scrapes failed; the last: connection refused"));
        const QImage image = renderWidget(&charts, 1);
        QVERIFY(test::distinctColours(image) > 5);
        saveShot(renderWidget(&charts, 2), QStringLiteral("server-empty.png"));
    }

    void anHourOfPointsAppendsAndDrawsFast()
    {
        ServerCharts charts;
        show(charts);
        charts.beginLive({QStringLiteral("A"), QStringLiteral("B")});
        std::vector<ServerPoint> points;
        for (int i = 0; i < 20000; ++i)
            points.push_back(point(i % 2, i % 2, (i / 2) * 333.0,
                {{MetricRole::RequestsRunning, i % 7}, {MetricRole::KvCacheUsage, (i % 100) / 100.0},
                    {MetricRole::GpuMemoryUsed, 60e9 + i * 1e5}, {MetricRole::GpuPower, 200 + i % 50}}));
        QElapsedTimer t;
        t.start();
        for (const ServerPoint& p : points)
            charts.addPoint(p);
        const qint64 appendMs = t.elapsed();
        QVERIFY2(appendMs < 1000, qPrintable(QString::number(appendMs)));
        t.restart();
        charts.endLive();
        const QImage image = charts.plot()->grab().toImage();
        const qint64 drawMs = t.elapsed();
        QVERIFY2(drawMs < 1000, qPrintable(QString::number(drawMs)));
        t.restart();
        for (int i = 0; i < 4; ++i) // what a live second costs (4 repaints)
            charts.plot()->grab();
        const qint64 secondMs = t.elapsed();
        QVERIFY2(secondMs < 1000, qPrintable(QString::number(secondMs)));
        QCOMPARE(charts.timeline().series(0, MetricRole::GpuPower).size(), std::size_t(10000));
        QVERIFY(pixelsOf(image, endpointColor(1, Theme::Light), charts.plot()->chartArea()) > 100);
        qInfo("20,000 points: append %lld ms, draw %lld ms, 4 repaints %lld ms", appendMs, drawMs, secondMs);
    }

    void decimationKeepsSpikesAndGaps()
    {
        std::vector<ServerTimeline::Point> series;
        for (int i = 0; i < 100000; ++i)
            series.push_back({double(i), i == 54321 ? 1000.0 : (i == 70000 ? NAN : 1.0)});
        const auto drawn = ServerTimeline::decimate(series, 0, 99999, 500);
        QVERIFY2(drawn.size() <= 500 * 4 + 4, qPrintable(QString::number(drawn.size())));
        QVERIFY(std::any_of(drawn.begin(), drawn.end(), [](const auto& p) { return p.value == 1000; }));
        QCOMPARE(std::count_if(drawn.begin(), drawn.end(), [](const auto& p) { return p.gap(); }), 1);
        QVERIFY(std::is_sorted(
            drawn.begin(), drawn.end(), [](const auto& a, const auto& b) { return a.atMs < b.atMs; }));
        // Few points: all of them, plus one on each side of the range.
        const auto some = ServerTimeline::decimate(series, 10, 20, 500);
        QCOMPARE(some.size(), std::size_t(13));
        QCOMPARE(some.front().atMs, 9.0);
    }

    void aSecondSourceOfTheSameFigureIsNotMixedIn()
    {
        ServerTimeline t;
        for (int i = 0; i < 10; ++i) {
            t.add(point(0, 1, i * 100.0, {{MetricRole::GpuPower, 100}}));
            t.add(point(0, 2, i * 100.0 + 50, {{MetricRole::GpuPower, 900}}));
        }
        QCOMPARE(t.series(0, MetricRole::GpuPower).size(), std::size_t(10));
        QCOMPARE(t.series(0, MetricRole::GpuPower).back().value, 100.0);
        // The second source failing breaks nothing of the first's.
        t.add(point(0, 2, 1000, {}, QStringLiteral("timeout")));
        QVERIFY(!t.series(0, MetricRole::GpuPower).back().gap());
        // A point for an absurd endpoint index is ignored, not a crash.
        t.add(point(1 << 30, 0, 0, {{MetricRole::GpuPower, 1}}));
        QCOMPARE(t.endpoints(), 1);
    }

    void rendersInBothThemes()
    {
        for (Theme theme : {Theme::Light, Theme::Dark}) {
            ServerCharts charts;
            charts.setTheme(theme);
            charts.setData(prepareDashboard(std::make_shared<const RunResult>(syntheticRun()), 0, false));
            show(charts);
            const QImage image = renderWidget(&charts, 2);
            QCOMPARE(image.size(), QSize(1920, 1520));
            QVERIFY(test::distinctColours(image, 2) > 50);
            QCOMPARE(image.pixelColor(2, 2).rgb(), themeColors(theme).base.rgb());
            saveShot(image,
                theme == Theme::Dark ? QStringLiteral("server-dark.png")
                                     : QStringLiteral("server-light2.png"));
        }
    }
};

QTEST_MAIN(TestServerCharts)
#include "tst_server_charts.moc"
