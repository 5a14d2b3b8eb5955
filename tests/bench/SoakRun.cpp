// SPDX-License-Identifier: MIT
#include "tests/bench/SoakRun.h"

#include "app/dashboard/MainWindow.h"
#include "app/dashboard/RunSession.h"
#include "model/core/SuiteReading.h"
#include "model/store/ResultFile.h"
#include "tests/bench/SoakMix.h"
#include "tests/support/EventLoopProbe.h"
#include "widgets/panels/EndpointsPanel.h"
#include "widgets/panels/RunPanel.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QThreadPool>
#include <algorithm>
#include <cmath>
#include <memory>

namespace qs::test {

using app::MainWindow;

void LatenessHistogram::add(double ms)
{
    const auto i = std::size_t(std::max(0.0, ms) / bucketMs);
    ++m_buckets[std::min(i, m_buckets.size() - 1)];
    ++m_count;
    m_max = std::max(m_max, ms);
}

double LatenessHistogram::percentile(double p) const
{
    const auto wanted = (long long)(std::ceil(std::clamp(p, 0.0, 100.0) / 100.0 * double(m_count)));
    long long seen = 0;
    for (std::size_t i = 0; i < m_buckets.size(); ++i) {
        seen += m_buckets[i];
        if (seen >= wanted && seen > 0)
            return std::min(m_max, double(i + 1) * bucketMs);
    }
    return m_max;
}

namespace {

/// The app keeps its results under XDG_DATA_HOME: a soak's go to a folder deleted afterwards.
class ScratchHome {
public:
    ScratchHome()
    {
        for (const char* name : {"XDG_DATA_HOME", "XDG_CONFIG_HOME"}) {
            m_saved.push_back({name, qgetenv(name), qEnvironmentVariableIsSet(name)});
            qputenv(name, m_dir.filePath(QString::fromLatin1(name)).toLocal8Bit());
        }
    }
    ~ScratchHome()
    {
        for (const Saved& s : m_saved)
            s.wasSet ? qputenv(s.name, s.value) : qunsetenv(s.name);
    }
    QString filePath(const QString& name) const { return m_dir.filePath(name); }

private:
    struct Saved {
        const char* name;
        QByteArray value;
        bool wasSet;
    };
    QTemporaryDir m_dir;
    std::vector<Saved> m_saved;
};

/// Lets every deferred delete and pooled task finish, then trims the heap: what is still
/// allocated afterwards is really held.
void settleAndTrim()
{
    for (int i = 0; i < 3; ++i) {
        QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);
        QThreadPool::globalInstance()->waitForDone();
        QTest::qWait(200);
    }
    trimHeap();
}

bool waitForEvaluated(const MainWindow& w, int timeoutMs)
{
    return QTest::qWaitFor(
        [&] { return w.data().evaluation && w.data().evaluation->hasComparison && !w.data().live; },
        timeoutMs);
}

class Soak {
public:
    Soak(const SoakConfig& config, SoakResult& result)
        : m_config(config)
        , m_result(result)
    {
    }

    bool startEmulators()
    {
        for (SoakEndpoint& e : soakEndpoints()) {
            auto emulator = std::make_unique<emu::EmulatorThread>();
            if (!emulator->start(e.config)) {
                m_result.error = QStringLiteral("the %1 emulator did not start").arg(e.label);
                return false;
            }
            EndpointEntry entry;
            entry.endpoint.label = e.label;
            entry.endpoint.baseUrl = emulator->baseUrl();
            if (e.idleTimeoutMs > 0)
                entry.endpoint.timeouts.idleMs = e.idleTimeoutMs;
            m_entries.push_back(entry);
            m_emulators.push_back(std::move(emulator));
        }
        return true;
    }

    bool writeSuite()
    {
        // Enough runs for ~60 requests/s (two turns, three endpoints); the run is stopped at the
        // end of the duration anyway, as a user stops a run that has run long enough.
        const int runs = std::clamp(m_config.durationS * 10, 100, suite_parse::maxRuns);
        m_suitePath = m_home.filePath(QStringLiteral("soak.json"));
        QFile f(m_suitePath);
        if (!f.open(QIODevice::WriteOnly) || f.write(soakSuiteJson(runs)) < 0) {
            m_result.error = QStringLiteral("cannot write %1: %2").arg(m_suitePath, f.errorString());
            return false;
        }
        return true;
    }

    /// The emulators keep a record of every request they served (for benchmarks that compare
    /// stamps); a soak has no use for them, and they would grow with the run.
    void clearServed()
    {
        for (const auto& e : m_emulators)
            e->server()->clearServedRequests();
    }

    std::unique_ptr<MainWindow> openWindow()
    {
        auto w = std::make_unique<MainWindow>(false);
        w->endpointsPanel()->setEntries(m_entries);
        RunPanelSettings s = w->runPanel()->settings();
        s.suite = m_suitePath;
        s.settings.concurrency = m_config.concurrency;
        s.settings.warmup = -1;
        s.settings.runs = -1;
        s.settings.order = RunOrder::Interleaved;
        w->runPanel()->setSettings(s);
        w->resize(1400, 900);
        w->show();
        QTest::qWait(300);
        return w;
    }

    /// Stops the run as a user would and waits until it is saved, evaluated and shown.
    bool stopAndWait(MainWindow& w, QSignalSpy& finished)
    {
        w.stopRun();
        if (finished.isEmpty() && !finished.wait(600000)) {
            m_result.error = QStringLiteral("the stopped run was not saved within 10 minutes");
            return false;
        }
        if (!waitForEvaluated(w, 600000)) {
            m_result.error = QStringLiteral("the stopped run was not evaluated within 10 minutes");
            return false;
        }
        return true;
    }

    /// A short run in a window closed afterwards, so that Qt's caches, the thread pool and the
    /// emulators' connections exist before the baseline. Its requests are not cleared from the
    /// emulators' logs until the process is quiet, to measure what that log costs per request.
    bool prime()
    {
        if (m_config.warmupRunS <= 0)
            return true;
        int requests = 0;
        std::unique_ptr<MainWindow> w = openWindow();
        QObject::connect(w->findChild<app::RunSession*>(), &app::RunSession::progress, w.get(),
            [&requests](const RunProgress& p) { requests = p.done; });
        QSignalSpy finished(w.get(), &MainWindow::runFinished);
        w->startRun();
        QTest::qWait(m_config.warmupRunS * 1000);
        const bool ok = stopAndWait(*w, finished);
        w.reset();
        settleAndTrim();
        const double before = sampleProcess().heapMiB;
        clearServed();
        trimHeap();
        if (requests > 0)
            m_result.emulatorBytesPerRequest = (before - sampleProcess().heapMiB) * 1024 * 1024 / requests;
        return ok;
    }

    void soak()
    {
        SoakSample now; // before the window: its connection to `now` must go first
        std::unique_ptr<MainWindow> w = openWindow();
        m_result.idle = sampleProcess();
        auto* session = w->findChild<app::RunSession*>();
        QObject::connect(session, &app::RunSession::progress, w.get(), [&now](const RunProgress& p) {
            now.requests = p.done;
            now.failed = p.failed;
        });
        QSignalSpy finished(w.get(), &MainWindow::runFinished);
        m_result.samples.reserve(std::size_t(m_config.durationS * 1000 / m_config.sampleMs + 8));

        // A fresh probe per interval: one kept for the whole run would grow by a tick every 5 ms.
        auto probe = std::make_unique<EventLoopProbe>();
        auto takeProbe = [&](double& worstLateness, double& worstBusy) {
            for (double l : probe->lateness())
                m_result.lateness.add(l);
            worstLateness = probe->maxLatenessMs();
            worstBusy = probe->maxBusyMs();
            probe = std::make_unique<EventLoopProbe>();
            probe->start();
        };
        probe->start();
        QElapsedTimer clock;
        clock.start();
        w->startRun();
        if (!w->running()) {
            m_result.error = QStringLiteral("the run did not start: ") + w->runPanel()->progressText();
            return;
        }
        const qint64 durationMs = qint64(m_config.durationS) * 1000;
        for (qint64 next = m_config.sampleMs; next <= durationMs && w->running(); next += m_config.sampleMs) {
            QTest::qWait(int(std::max<qint64>(1, next - clock.elapsed())));
            takeProbe(now.worstLatenessMs, now.worstBusyMs);
            m_result.worstBusyMs = std::max(m_result.worstBusyMs, now.worstBusyMs);
            clearServed();
            now.atS = double(clock.elapsed()) / 1000.0;
            now.process = sampleProcess();
            m_result.samples.push_back(now);
            if (m_onSample)
                m_onSample(now);
        }
        m_result.runS = double(clock.elapsed()) / 1000.0;
        if (!stopAndWait(*w, finished))
            return;
        double endLateness = 0;
        takeProbe(endLateness, m_result.endWorstBusyMs);
        m_result.endWorstLatenessMs = endLateness;
        probe.reset();
        if (const auto& r = w->data().result) {
            m_result.records = int(r->records.size());
            for (const RunRecord& rec : r->records)
                if (!rec.request.ok())
                    ++m_result.failuresByKind[failureKindId(rec.request.failure.kind)];
        }
        clearServed();
        settleAndTrim(); // the views' last refreshes and old snapshots gone: what the window holds
        m_result.ended = sampleProcess();
        w.reset();
        clearServed();
        settleAndTrim();
        m_result.released = sampleProcess();
        const QString saved = finished.first().at(1).toString();
        if (!m_config.keepPath.isEmpty()) {
            QFile::remove(m_config.keepPath);
            if (!QFile::copy(saved, m_config.keepPath))
                m_result.error = QStringLiteral("cannot copy %1 to %2").arg(saved, m_config.keepPath);
        }
        measureOneCopy(saved);
    }

    /// What the saved records cost as one plain copy: the file loaded again, as a review holds it
    /// (no copies; equal request bodies and verdicts held once, as the runner holds them).
    void measureOneCopy(const QString& saved)
    {
        try {
            const RunResult copy = loadResults(saved);
            trimHeap();
            if (!copy.records.empty())
                m_result.recordBytes = (sampleProcess().heapMiB - m_result.released.heapMiB) * 1024 * 1024
                    / double(copy.records.size());
        } catch (const std::exception& e) {
            m_result.error = QStringLiteral("cannot reload the saved run %1: %2")
                                 .arg(saved, QString::fromUtf8(e.what()));
        }
    }

    void run(const std::function<void(const SoakSample&)>& onSample)
    {
        m_onSample = onSample;
        if (!startEmulators() || !writeSuite() || !prime())
            return;
        settleAndTrim();
        clearServed();
        m_result.baseline = sampleProcess();
        soak();
    }

private:
    std::function<void(const SoakSample&)> m_onSample;
    SoakConfig m_config;
    SoakResult& m_result;
    ScratchHome m_home;
    std::vector<std::unique_ptr<emu::EmulatorThread>> m_emulators;
    std::vector<EndpointEntry> m_entries;
    QString m_suitePath;
};

} // namespace

SoakResult runSoak(const SoakConfig& config, const std::function<void(const SoakSample&)>& onSample)
{
    SoakResult result;
    Soak soak(config, result);
    soak.run(onSample);
    return result;
}

} // namespace qs::test
