// SPDX-License-Identifier: MIT
// The telemetry recorder in its own thread against loopback pages: the phases, the run clock,
// one fetch for a URL two endpoints share, gaps and notes when a source is down.
#include "ClientTestSupport.h"
#include "model/core/Clock.h"
#include "model/run/TelemetryRecorder.h"

#include <QCoreApplication>
#include <QThread>
#include <gtest/gtest.h>

using namespace qs;
using namespace qs::test;

namespace {
bool waitFor(const std::function<bool()>& done, int ms)
{
    const qint64 until = monotonicNs() + qint64(ms) * 1000000;
    while (!done() && monotonicNs() < until)
        QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents, 20);
    return done();
}

/// A recorder on a thread of its own, as the runner has it; the test's thread collects.
struct Recording {
    QThread thread;
    TelemetryRecorder* recorder = new TelemetryRecorder;
    QObject context;
    bool baseline = false;
    std::optional<Telemetry> telemetry;
    std::vector<ServerPoint> points;

    Recording()
    {
        recorder->moveToThread(&thread);
        QObject::connect(&thread, &QThread::finished, recorder, &QObject::deleteLater);
        QObject::connect(recorder, &TelemetryRecorder::baselineDone, &context, [this] { baseline = true; });
        QObject::connect(
            recorder, &TelemetryRecorder::finished, &context, [this](const Telemetry& t) { telemetry = t; });
        QObject::connect(recorder, &TelemetryRecorder::serverPoint, &context,
            [this](const ServerPoint& p) { points.push_back(p); });
        thread.start();
    }
    ~Recording()
    {
        thread.quit();
        thread.wait();
    }
    void start(std::vector<TelemetryTarget> targets, int periodMs, qint64 originNs)
    {
        TelemetryRecorder* r = recorder;
        QMetaObject::invokeMethod(
            r, [r, targets, periodMs, originNs] { r->start(targets, periodMs, originNs, nullptr); },
            Qt::QueuedConnection);
    }
    void finish()
    {
        TelemetryRecorder* r = recorder;
        QMetaObject::invokeMethod(
            r, [r] { r->finish(); }, Qt::QueuedConnection);
    }
};

TelemetryTarget target(int endpoint, const QUrl& url)
{
    TelemetryTarget t;
    t.endpoint = endpoint;
    t.url = url;
    t.kind = TelemetrySource::Kind::Exporter;
    return t;
}

int count(const Telemetry& t, int source, TelemetrySample::Phase phase)
{
    return int(std::count_if(t.samples.begin(), t.samples.end(),
        [&](const TelemetrySample& s) { return s.source == source && s.phase == phase; }));
}
} // namespace

TEST(TelemetryRecorder, BaselineRunAndIdleAfterOnTheRunClockWithOneFetchForASharedUrl)
{
    CannedServer exporter(dcgmPageReply(2048), false);
    const QUrl url(exporter.url().toString() + QStringLiteral("/metrics"));
    Recording rec;
    const qint64 origin = monotonicNs();
    rec.start({target(0, url), target(1, url)}, 50, origin);
    ASSERT_TRUE(waitFor([&] { return rec.baseline; }, 5000));
    const double baselineAt = msBetween(origin, monotonicNs());
    waitFor([] { return false; }, 400);
    const double finishAt = msBetween(origin, monotonicNs());
    rec.finish();
    ASSERT_TRUE(waitFor([&] { return rec.telemetry.has_value(); }, 10000));
    const Telemetry& t = *rec.telemetry;

    EXPECT_EQ(t.periodMs, 50);
    ASSERT_EQ(t.sources.size(), 2u); // one source per endpoint…
    EXPECT_EQ(t.sources[0].endpoint, 0);
    EXPECT_EQ(t.sources[1].endpoint, 1);
    EXPECT_EQ(t.sources[0].format, QStringLiteral("prometheus-0.0.4"));
    for (int s = 0; s < 2; ++s) {
        EXPECT_EQ(count(t, s, TelemetrySample::Phase::IdleBefore), 1);
        EXPECT_GE(count(t, s, TelemetrySample::Phase::Run), 4); // ~8 at 50 ms
        EXPECT_EQ(count(t, s, TelemetrySample::Phase::IdleAfter), 1);
    }
    // …and the same page in both: each tick fetched the URL once.
    for (std::size_t i = 0; i + 1 < t.samples.size(); ++i)
        EXPECT_LE(t.samples[i].atMs, t.samples[i + 1].atMs) << "time order";
    double lastBefore = -1, firstAfter = 1e18;
    for (const TelemetrySample& s : t.samples) {
        EXPECT_TRUE(s.ok()) << s.error.toStdString();
        EXPECT_GE(s.atMs, 0);
        if (s.phase == TelemetrySample::Phase::IdleBefore)
            lastBefore = std::max(lastBefore, s.atMs);
        if (s.phase == TelemetrySample::Phase::IdleAfter)
            firstAfter = std::min(firstAfter, s.atMs);
        if (s.phase == TelemetrySample::Phase::Run) {
            EXPECT_GE(s.atMs, lastBefore);
        }
    }
    EXPECT_LE(lastBefore, baselineAt);
    EXPECT_GE(firstAfter, finishAt);
    // The gauges as the charts see them: bytes and watts, one point per sample.
    EXPECT_EQ(rec.points.size(), t.samples.size());
    ASSERT_FALSE(rec.points.empty());
    EXPECT_EQ(rec.points.front().value(MetricRole::GpuMemoryUsed), 2048.0 * 1048576);
    EXPECT_EQ(rec.points.front().value(MetricRole::GpuPower), 100.0);
}

TEST(TelemetryRecorder, ADeadSourceIsAGapWithANoteAndTheOthersGoOn)
{
    CannedServer exporter(dcgmPageReply(512), false);
    const QUrl good(exporter.url().toString() + QStringLiteral("/metrics"));
    const QUrl dead(QStringLiteral("http://127.0.0.1:%1/metrics").arg(closedPort()));
    Recording rec;
    rec.start({target(0, good), target(0, dead)}, 50, monotonicNs());
    ASSERT_TRUE(waitFor([&] { return rec.baseline; }, 5000));
    waitFor([] { return false; }, 300);
    rec.finish();
    ASSERT_TRUE(waitFor([&] { return rec.telemetry.has_value(); }, 10000));
    const Telemetry& t = *rec.telemetry;
    ASSERT_EQ(t.sources.size(), 2u);
    int goodOk = 0, deadFailed = 0;
    for (const TelemetrySample& s : t.samples) {
        if (s.source == 0)
            goodOk += s.ok() ? 1 : 0;
        else {
            EXPECT_FALSE(s.ok());
            EXPECT_TRUE(s.values.empty());
            deadFailed += 1;
        }
    }
    EXPECT_GE(goodOk, 4);
    EXPECT_GE(deadFailed, 4);
    // One note when it went down, not one per failed scrape.
    ASSERT_EQ(t.sources[1].notes.size(), 1) << t.sources[1].notes.join(u'|').toStdString();
    EXPECT_TRUE(t.sources[1].notes[0].contains(QStringLiteral("down: connection refused")));
    EXPECT_TRUE(t.sources[1].notes[0].contains(QStringLiteral(" s: http://127.0.0.1:")));
    EXPECT_TRUE(t.sources[0].notes.isEmpty());
}

TEST(TelemetryRecorder, TargetsFollowTheProbeAndCountEachUrlOnce)
{
    RunEndpoint a;
    a.endpoint.baseUrl = QUrl(QStringLiteral("http://10.0.0.5:8000"));
    a.endpoint.metricsUrls = {QStringLiteral("http://10.0.0.5:9400/metrics"),
        QStringLiteral("http://10.0.0.5:8000/metrics"), QStringLiteral("http://10.0.0.5:9400/metrics")};
    a.endpoint.apiKeyEnv = QStringLiteral("KEY_A");
    a.probe = {{"metrics", {{"answered", true}}}};
    RunEndpoint b = a;
    b.probe = {{"metrics", {{"answered", false}}}}; // llama-server without --metrics
    RunEndpoint c = a; // not probed: its page is tried
    c.probe = nlohmann::json::object();
    RunEndpoint skipped = a;

    const auto targets = telemetryTargets({a, b, c, skipped}, {true, true, true, false});
    ASSERT_EQ(targets.size(), 2u + 1u + 2u);
    EXPECT_EQ(targets[0].kind, TelemetrySource::Kind::Runtime);
    EXPECT_EQ(targets[0].url.toString(), QStringLiteral("http://10.0.0.5:8000/metrics"));
    EXPECT_EQ(targets[0].apiKeyEnv, QStringLiteral("KEY_A"));
    EXPECT_EQ(targets[1].kind, TelemetrySource::Kind::Exporter);
    EXPECT_TRUE(targets[1].apiKeyEnv.isEmpty()); // exporters never get the endpoint's key
    EXPECT_EQ(targets[2].endpoint, 1);
    EXPECT_EQ(targets[2].url.toString(), QStringLiteral("http://10.0.0.5:9400/metrics"));
    EXPECT_EQ(targets[3].endpoint, 2);
    EXPECT_EQ(targets[3].kind, TelemetrySource::Kind::Runtime);
}
