// SPDX-License-Identifier: MIT
#pragma once

#include "model/run/BenchmarkRunner.h"

#include <QObject>
#include <QThread>

namespace qs {

/// Owns the runner thread. Lives in the caller's thread (the GUI's or the CLI's) and never
/// blocks it: start() and cancel() only post to the runner, and every signal arrives queued,
/// carrying values. Destroying it cancels a run in progress and joins the thread.
class RunController : public QObject {
    Q_OBJECT
public:
    explicit RunController(QObject* parent = nullptr);
    ~RunController() override;

    void start(RunRequest request);
    void cancel();
    /// After roundFinished() (a run with rounds): go on with the next round, or end the run.
    void nextRound(const nlohmann::json& untilDecided);
    void endRounds(const nlohmann::json& untilDecided);
    bool running() const { return m_running; }

Q_SIGNALS:
    void progress(const qs::RunProgress& progress);
    void recordFinished(qs::SharedRecord record);
    void liveDeltas(const QList<qs::LiveDelta>& deltas);
    void warning(const QString& message);
    void serverPoint(const qs::ServerPoint& point); ///< live telemetry (see BenchmarkRunner)
    void finished(std::shared_ptr<const qs::RunResult> result, const qs::RunStats& stats);
    void failed(const QString& message);
    void roundFinished(std::shared_ptr<const qs::RunResult> soFar, int round); ///< see BenchmarkRunner

private:
    QThread m_thread;
    BenchmarkRunner* m_runner; ///< lives in m_thread; deleted there when the thread ends
    bool m_running = false;
};

} // namespace qs
