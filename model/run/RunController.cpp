// SPDX-License-Identifier: MIT
#include "model/run/RunController.h"

namespace qs {

RunController::RunController(QObject* parent)
    : QObject(parent)
    , m_runner(new BenchmarkRunner)
{
    m_thread.setObjectName(QStringLiteral("quantscope-runner"));
    m_runner->moveToThread(&m_thread);
    connect(&m_thread, &QThread::finished, m_runner, &QObject::deleteLater);
    // Queued: the slots run in this object's thread, with copies of the values.
    connect(m_runner, &BenchmarkRunner::progress, this, &RunController::progress, Qt::QueuedConnection);
    connect(m_runner, &BenchmarkRunner::recordFinished, this, &RunController::recordFinished,
        Qt::QueuedConnection);
    connect(m_runner, &BenchmarkRunner::liveDeltas, this, &RunController::liveDeltas, Qt::QueuedConnection);
    connect(m_runner, &BenchmarkRunner::warning, this, &RunController::warning, Qt::QueuedConnection);
    // Emitted in the telemetry thread; queued to this object's thread.
    connect(m_runner, &BenchmarkRunner::serverPoint, this, &RunController::serverPoint, Qt::QueuedConnection);
    connect(
        m_runner, &BenchmarkRunner::finished, this,
        [this](const std::shared_ptr<const RunResult>& result, const RunStats& stats) {
            m_running = false;
            Q_EMIT finished(result, stats);
        },
        Qt::QueuedConnection);
    connect(
        m_runner, &BenchmarkRunner::roundFinished, this, &RunController::roundFinished, Qt::QueuedConnection);
    connect(
        m_runner, &BenchmarkRunner::failed, this,
        [this](const QString& message) {
            m_running = false;
            Q_EMIT failed(message);
        },
        Qt::QueuedConnection);
    m_thread.start();
}

RunController::~RunController()
{
    if (m_running) {
        // Blocking is acceptable here (we are going away) and safe: the runner never waits on us.
        // Every aborted request is journaled before this returns.
        BenchmarkRunner* runner = m_runner;
        QMetaObject::invokeMethod(
            runner, [runner] { runner->abortNow(); }, Qt::BlockingQueuedConnection);
    }
    m_thread.quit();
    m_thread.wait();
}

void RunController::start(RunRequest request)
{
    if (m_running)
        return;
    m_running = true;
    BenchmarkRunner* runner = m_runner;
    QMetaObject::invokeMethod(
        runner, [runner, r = std::move(request)]() mutable { runner->start(std::move(r)); },
        Qt::QueuedConnection);
}

void RunController::cancel()
{
    if (m_running)
        m_runner->cancel();
}

void RunController::nextRound(const nlohmann::json& untilDecided)
{
    if (m_running)
        m_runner->nextRound(untilDecided);
}

void RunController::endRounds(const nlohmann::json& untilDecided)
{
    if (m_running)
        m_runner->endRounds(untilDecided);
}

} // namespace qs
