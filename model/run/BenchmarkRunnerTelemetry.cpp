// SPDX-License-Identifier: MIT
// BenchmarkRunner's telemetry: the recorder on its own thread that scrapes the servers' metrics
// from an idle baseline before the first request to one after the last. The rest of the runner is
// BenchmarkRunner.cpp.
#include "model/run/BenchmarkRunner.h"
#include "model/run/TelemetryRecorder.h"

#include <QThread>
#include <QTimer>

namespace qs {

void BenchmarkRunner::startTelemetry(std::vector<TelemetryTarget> targets)
{
    if (!m_telemetryThread) {
        m_telemetryThread = new QThread(this);
        m_telemetryThread->setObjectName(QStringLiteral("quantscope-telemetry"));
        m_recorder = new TelemetryRecorder;
        m_recorder->moveToThread(m_telemetryThread);
        connect(m_telemetryThread, &QThread::finished, m_recorder, &QObject::deleteLater);
        connect(
            m_recorder, &TelemetryRecorder::baselineDone, this,
            [this] {
                if (m_telemetryState != TelemetryState::Baseline)
                    return; // the wait was given up, or the run was cancelled meanwhile
                m_telemetryTimer->stop();
                m_telemetryState = TelemetryState::Running;
                launchRequests();
            },
            Qt::QueuedConnection);
        connect(m_recorder, &TelemetryRecorder::finished, this, &BenchmarkRunner::onTelemetryFinished,
            Qt::QueuedConnection);
        // Direct: the point goes from the recorder's thread straight to whoever listens (the
        // controller, queued); nothing of it runs on the runner's thread.
        connect(m_recorder, &TelemetryRecorder::serverPoint, this, &BenchmarkRunner::serverPoint,
            Qt::DirectConnection);
        m_telemetryTimer = new QTimer(this);
        m_telemetryTimer->setSingleShot(true);
        connect(m_telemetryTimer, &QTimer::timeout, this, &BenchmarkRunner::onTelemetryTimeout);
        m_telemetryThread->start();
    }
    m_telemetryState = TelemetryState::Baseline;
    const int period = m_request.settings.scrapeMs;
    // The baseline is one scrape of each source at once: never wait longer than one may take.
    m_telemetryTimer->start(TelemetryRecorder::scrapeTimeoutMs(period) + 1000);
    TelemetryRecorder* recorder = m_recorder;
    RunJournal* journal = m_journal.isOpen() ? &m_journal : nullptr;
    QMetaObject::invokeMethod(
        recorder,
        [recorder, t = std::move(targets), period, origin = m_startNs, journal]() mutable {
            recorder->start(std::move(t), period, origin, journal);
        },
        Qt::QueuedConnection);
}

void BenchmarkRunner::onTelemetryTimeout()
{
    if (m_telemetryState == TelemetryState::Baseline) {
        m_telemetryState = TelemetryState::Running;
        Q_EMIT warning(QStringLiteral("the idle baseline of the server metrics took too long; the requests "
                                      "start without waiting for it"));
        launchRequests();
    } else if (m_telemetryState == TelemetryState::Finishing) {
        stopTelemetryNow(QStringLiteral("the telemetry did not finish within %1 s of the last request; "
                                        "the idle_after baseline is missing")
                             .arg(TelemetryRecorder::finishBoundMs(m_request.settings.scrapeMs) / 1000));
        completeRun();
    }
}

void BenchmarkRunner::onTelemetryFinished(const Telemetry& telemetry)
{
    if (m_telemetryState != TelemetryState::Finishing)
        return; // stopped meanwhile
    m_telemetryTimer->stop();
    m_telemetryState = TelemetryState::Off;
    const QStringList notes = m_result.telemetry.notes;
    m_result.telemetry = telemetry;
    m_result.telemetry.notes = notes + telemetry.notes;
    completeRun();
}

void BenchmarkRunner::stopTelemetryNow(const QString& why)
{
    if (m_telemetryTimer)
        m_telemetryTimer->stop();
    const bool wanted = m_telemetryState != TelemetryState::Off;
    m_telemetryState = TelemetryState::Off;
    if (!m_recorder)
        return;
    // Blocking is safe: the recorder never waits for this thread.
    Telemetry telemetry;
    TelemetryRecorder* recorder = m_recorder;
    QMetaObject::invokeMethod(
        recorder, [recorder, &telemetry] { telemetry = recorder->stop(); }, Qt::BlockingQueuedConnection);
    if (!wanted)
        return;
    const QStringList notes = m_result.telemetry.notes;
    m_result.telemetry = std::move(telemetry);
    m_result.telemetry.notes = notes + m_result.telemetry.notes;
    if (!why.isEmpty())
        m_result.telemetry.notes << why;
}

} // namespace qs
