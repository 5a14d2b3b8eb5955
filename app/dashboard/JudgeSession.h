// SPDX-License-Identifier: MIT
#pragma once

#include "app/common/EndpointSpec.h"
#include "model/run/JudgeRunner.h"
#include "model/wire/EndpointProbe.h"

#include <QElapsedTimer>
#include <QObject>
#include <functional>
#include <memory>

namespace qs::app {

/// What the user asked the judge to do (the Judge dialog, or the CLI's options).
struct JudgeSetup {
    QString spec; ///< as for run --endpoint, e.g. "url=http://10.0.0.7:8000" or "url=sim:judge"
    std::optional<Rubric> rubric;
    int pairwiseBaseline = -1; ///< endpoint index; -1: no pairwise comparison
    int concurrency = 2;
};

/// Judges the results shown, off the GUI thread: the judge is resolved and probed on the pool,
/// then JudgeController judges in its own thread. The results shown are updated about once a
/// second with the verdicts so far (so the views fill in live), and once more at the end.
class JudgeSession : public QObject {
    Q_OBJECT
public:
    explicit JudgeSession(QObject* parent = nullptr);
    ~JudgeSession() override;

    /// Asynchronous: progress() and updated() while judging, then finished() or failed().
    void start(std::shared_ptr<const RunResult> result, JudgeSetup setup);
    void cancel();
    bool running() const { return m_running; }

Q_SIGNALS:
    void started(const QString& judgeDescription);
    void progress(const qs::JudgeProgress& progress);
    /// The results with the verdicts so far (throttled to about once a second).
    void updated(std::shared_ptr<const qs::RunResult> result);
    void finished(std::shared_ptr<const qs::RunResult> result, const QString& message);
    void failed(const QString& message);

private:
    void onProbed(const ProbeResult& probe);
    void publish(bool force);
    /// Calls `then` on this thread with the results plus the verdicts so far, copied on the pool.
    void withVerdicts(std::function<void(std::shared_ptr<const RunResult>)> then);

    std::unique_ptr<EndpointResolver> m_resolver; ///< keeps a simulated judge alive
    JudgeController* m_controller = nullptr;
    std::shared_ptr<const RunResult> m_result;
    JudgeSetup m_setup;
    RunEndpoint m_judge;
    Judging m_sofar;
    QElapsedTimer m_sincePublish;
    bool m_running = false;
    bool m_cancelled = false;
};

} // namespace qs::app
