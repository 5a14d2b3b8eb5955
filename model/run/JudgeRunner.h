// SPDX-License-Identifier: MIT
#pragma once

#include "model/core/Endpoint.h"
#include "model/core/Judging.h"
#include "model/core/RunRecord.h"
#include "model/run/JudgePrompts.h"

#include <QObject>
#include <QThread>
#include <functional>
#include <memory>

// Sends a run's judgements to a judge endpoint (docs/judging.md): bounded concurrency, every
// prompt and raw reply kept, cancellable, resumable. Judging starts only after the last measured
// request of a run, so it never disturbs a latency it would be judged beside.

namespace qs {

struct JudgeRequest {
    RunResult result; ///< the run to judge (its `judging` is the resume point when the judge matches)
    Endpoint judge; ///< the judge's endpoint (already resolved; a simulated judge is a loopback URL)
    JudgeIdentity identity; ///< filled by the caller from the spec and the probe
    JudgePlanOptions plan; ///< `resume` is set by the runner from `result.judging`
    int concurrency = 2; ///< judgements in flight at once (1..16)
    int timeoutMs = 120000; ///< per judgement
    int maxTokens = 1024; ///< per judgement (a reasoning judge needs room for its thinking)
};

struct JudgeProgress {
    int done = 0; ///< judgements finished in this session (read or failed)
    int failed = 0;
    int total = 0; ///< planned in this session (excluding those resumed from the file)
    int resumed = 0; ///< verdicts already in the file that were kept
};

/// Whether `request.result.judging` was made by the same judge (spec, url, model) and rubric,
/// so it can be resumed. When not, judging starts afresh and says so in a note.
bool canResume(const Judging& existing, const JudgeIdentity& judge, const std::optional<Rubric>& rubric);

/// Owns the judging thread. Lives in the caller's thread and never blocks it; every signal
/// arrives queued, carrying values. Destroying it cancels judging and joins the thread.
class JudgeController : public QObject {
    Q_OBJECT
public:
    explicit JudgeController(QObject* parent = nullptr);
    ~JudgeController() override;

    void start(JudgeRequest request);
    /// Stops sending; requests in flight are cancelled and recorded as not judged (they are
    /// planned again on resume). finished() follows with everything judged so far.
    void cancel();
    bool running() const { return m_running; }

Q_SIGNALS:
    void progress(const qs::JudgeProgress& progress);
    /// Every verdict as it lands (the GUI shows it; the CLI saves the file every few seconds).
    void rubricVerdict(const qs::RubricVerdict& verdict);
    void pairVerdict(const qs::PairVerdict& verdict);
    /// The whole judging: the resumed verdicts plus this session's, `complete` when nothing planned
    /// is left unjudged, notes on cancellation and failures.
    void finished(const qs::Judging& judging, const qs::JudgeProgress& progress);
    void failed(const QString& message); ///< nothing could be judged (e.g. nothing to judge)

private:
    class Worker;
    QThread m_thread;
    Worker* m_worker; ///< lives in m_thread
    bool m_running = false;
};

/// Runs a judging to completion on the calling thread (local event loop), for the CLI and tests.
/// `onProgress` is called on the calling thread after every verdict with the judging so far.
Judging runJudgingBlocking(
    JudgeRequest request, const std::function<void(const JudgeProgress&, const Judging&)>& onProgress = {});

} // namespace qs

Q_DECLARE_METATYPE(qs::JudgeProgress)
Q_DECLARE_METATYPE(qs::RubricVerdict)
Q_DECLARE_METATYPE(qs::PairVerdict)
Q_DECLARE_METATYPE(qs::Judging)
