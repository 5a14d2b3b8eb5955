// SPDX-License-Identifier: MIT
#pragma once

#include "model/core/MetricCatalog.h"
#include "model/core/RunRecord.h"
#include "model/core/Suite.h"
#include "model/gates/QualityGates.h"
#include "model/run/Conversation.h"
#include "model/run/RunPlan.h"
#include "model/store/RunJournal.h"

#include <QList>
#include <QObject>
#include <QUrl>
#include <atomic>
#include <map>
#include <memory>
#include <optional>
#include <vector>

class QThread;
class QTimer;

namespace qs {

class StreamingClient;
class EndpointProbe;
class StreamThreads;
class TelemetryRecorder;
struct TelemetryTarget;
struct ProbeResult;

/// What to run.
struct RunRequest {
    Suite suite;
    std::vector<RunEndpoint> endpoints;
    RunSettings settings;
    QString journalPath; ///< empty = no journal
    QString userNote; ///< RunResult::userNote (`run --note`)
    bool probe = true; ///< probe every endpoint first (fills model, runtime, properties)
    /// Rounds (`run --until-decided`): how many distinct prompts of each category are drawn in
    /// all by the end of each round (model/decide/Sequential.h's roundSchedule). After each round
    /// but the last the runner pauses with roundFinished() until nextRound() or endRounds().
    /// Empty: one round of the whole (drawn) suite.
    std::vector<int> rounds;
    /// Saved with the run from its journal's first line on (RunResult::untilDecided).
    nlohmann::json untilDecided;
    /// Threads of their own to read, stamp and decode the streams on (StreamThreads.h); 0 reads
    /// every stream on the runner's thread. 0 by default: with arrival stamps (ArrivalStamps.h) a
    /// busy runner thread no longer moves the stamps, and on 2 cores the hand-over cost more than
    /// it gave — at 1,000 streams a third more CPU per token and half the request rate
    /// (docs/benchmarks.md, "1,000 streams"). What it still shortens is the rare read held past
    /// a token's gap, where two events share one stamp.
    int streamThreads = 0;
};

/// Where a run stands, for a progress bar.
struct RunProgress {
    int done = 0; ///< requests finished (ok or failed)
    int total = 0; ///< requests planned (shrinks when a conversation is abandoned)
    int failed = 0; ///< failed on the server's or the network's side
    int stopped = 0; ///< cut short by Stop (FailureKind::Cancelled): not failures
    int inFlight = 0;
    int endpoint = -1; ///< of the request started last
    QString endpointLabel;
    QString test;
    int turn = 0;
    int iteration = 0;
    bool warmup = false;
    double elapsedMs = 0;
    /// Time left: each lane (parallel order: each endpoint) at its own measured pace, the
    /// slowest deciding; unset until a request has finished.
    std::optional<double> etaMs;
};

/// A piece of streamed text, for live views. Batched: see BenchmarkRunner::liveDeltas.
struct LiveDelta {
    int slot = 0; ///< stable id of the stream (one per in-flight conversation slot)
    int endpoint = 0;
    QString test;
    int turn = 0;
    int iteration = 0;
    bool warmup = false;
    QString content;
    QString reasoning;
    bool toolCall = false;
    bool started = false; ///< first delta of a new request on this slot (clear the view)
    double atMs = 0; ///< run-relative arrival time
};

/// The runner's own cost, for the benchmark and the curious.
struct RunStats {
    double wallMs = 0;
    double runnerCpuMs = 0; ///< CPU time of the runner thread (clients, parsing, journal)
    /// CPU time of the stream threads, when the run read its streams on threads of their own
    /// (RunRequest::streamThreads); else 0.
    double streamThreadsCpuMs = 0;
    int streamThreads = 0; ///< how many stream threads the run used (0: all on the runner's)
    qint64 tokenEvents = 0;
    int requests = 0;
};

/// Runs a suite against endpoints. Lives in a worker thread (see RunController): all its work,
/// its sockets and its stamps happen there, and it talks to the rest only through queued
/// signals carrying values. Records are journaled as they finish.
class BenchmarkRunner : public QObject {
    Q_OBJECT
public:
    explicit BenchmarkRunner(QObject* parent = nullptr);
    ~BenchmarkRunner() override;

    /// Starts a run. Call in the runner's thread (RunController does).
    void start(RunRequest request);
    /// Thread-safe. Stops launching requests and aborts those in flight; their partial records
    /// are kept (marked cancelled) and finished() follows with complete = false.
    void cancel();
    /// Runner thread only: cancels synchronously, so every aborted request is journaled before
    /// it returns (used when the owner is being destroyed and no finished() will be awaited).
    void abortNow();
    /// Thread-safe, after roundFinished(): run the next round, or end the run now. `untilDecided`
    /// is saved with the run (RunResult::untilDecided): its looks so far, and why it stopped.
    void nextRound(const nlohmann::json& untilDecided);
    void endRounds(const nlohmann::json& untilDecided);

Q_SIGNALS:
    void progress(const qs::RunProgress& progress);
    /// A request finished: its record, shared with the run's result (never copied per receiver).
    void recordFinished(qs::SharedRecord record);
    void liveDeltas(const QList<qs::LiveDelta>& deltas); ///< at most every 50 ms
    void warning(const QString& message);
    /// One scrape of one metrics source, reduced to what the Server charts plot. Emitted from the
    /// telemetry thread (never the runner's), so connect queued or to a signal.
    void serverPoint(const qs::ServerPoint& point);
    /// The run ended (completed or cancelled): `result` holds every record. Shared, not copied:
    /// a run of hours holds tens of thousands of records, and the receiver's thread (the GUI's)
    /// should not pay a copy of them all.
    void finished(std::shared_ptr<const qs::RunResult> result, const qs::RunStats& stats);
    /// The run could not start (no endpoint reachable, journal not writable…). Nothing was measured.
    void failed(const QString& message);
    /// A round of a run with rounds ended (`round` 1-based; more may follow): `soFar` is a copy of
    /// the result until now, every record of the rounds so far. The runner waits, its telemetry
    /// still scraping, until nextRound() or endRounds() says what to do.
    void roundFinished(std::shared_ptr<const qs::RunResult> soFar, int round);

private:
    struct Slot;
    struct Lane;
    void onProbed(int endpoint, const ProbeResult& result);
    void beginRequests();
    void launchRequests();
    void startTelemetry(std::vector<TelemetryTarget> targets);
    void onTelemetryTimeout();
    void onTelemetryFinished(const Telemetry& telemetry);
    void stopTelemetryNow(const QString& why);
    void pump(Lane& lane);
    bool startNextConversation(Lane& lane, Slot& slot);
    void launch(Slot& slot);
    void onRequestFinished(Slot& slot, const RequestRecord& record);
    void emitProgress(const Slot* startedSlot);
    std::optional<double> etaMs() const;
    void flushLive();
    void finishRun();
    bool pauseForRound();
    void planRound();
    void warnCorruptedStreams();
    void completeRun();
    void readBackRecords();
    void doCancel();

    RunRequest m_request;
    RunResult m_result;
    RunPlan m_plan;
    std::vector<std::unique_ptr<Lane>> m_lanes;
    /// Threads that read, stamp and decode the streams (RunRequest::streamThreads), so that the
    /// runner's own per-request work (gates, journal, next bodies) never holds a read. Kept from
    /// run to run while the count asked for stays the same.
    std::shared_ptr<StreamThreads> m_streamThreads;
    double m_streamThreadsCpuStartMs = 0;
    std::vector<bool> m_usable;
    std::vector<int> m_warmupCounter; ///< per endpoint: varies the warm-up prompts
    std::vector<EndpointProbe*> m_probes;
    int m_probesPending = 0;
    RunJournal m_journal;
    /// A long run keeps its records in the journal, not in memory (issue #24): with a journal that
    /// can be read back and no rounds to judge between, a record journaled whole is held only by
    /// whoever shows it (without its token timeline: the live views count the stream's deltas),
    /// and readBackRecords() reads every one back when the run ends.
    bool m_recordsInJournal = false;
    /// Per finished record, in order, while m_recordsInJournal: where its journal line is, or
    /// not written (a full disk), when it is held in m_result.records instead.
    std::vector<JournalSpan> m_journaled;
    std::optional<GatePatterns> m_gatePatterns; ///< the suite's, compiled once per run
    JsonInterner m_sharedJson; ///< the run's distinct request bodies and gate verdicts
    std::vector<QUrl> m_urls; ///< per endpoint: the URL its records share
    QTimer* m_liveTimer = nullptr;
    QList<LiveDelta> m_live;
    RunProgress m_progress;
    RunStats m_stats;
    qint64 m_startNs = 0;
    double m_cpuStartMs = 0;
    int m_nextSlotId = 0;
    bool m_running = false;
    std::atomic<bool> m_cancel {false};
    Suite m_pool; ///< with rounds: the whole suite the rounds draw from
    std::size_t m_round = 0; ///< with rounds: the round running (0-based)
    bool m_betweenRounds = false; ///< waiting for nextRound() or endRounds()
    bool m_lastRound = false; ///< endRounds() was called: the run ends with this round
    // Server telemetry: the recorder lives in its own thread, created with the first run that
    // scrapes; the runner only posts to it and waits (bounded) for its baseline and its end.
    QThread* m_telemetryThread = nullptr;
    TelemetryRecorder* m_recorder = nullptr;
    QTimer* m_telemetryTimer = nullptr; ///< bounds the waits for the baseline and the end
    enum class TelemetryState { Off, Baseline, Running, Finishing } m_telemetryState = TelemetryState::Off;
};

} // namespace qs

Q_DECLARE_METATYPE(qs::RunProgress)
Q_DECLARE_METATYPE(qs::LiveDelta)
Q_DECLARE_METATYPE(qs::RunStats)
Q_DECLARE_METATYPE(qs::RunRecord)
Q_DECLARE_METATYPE(qs::RunResult)
Q_DECLARE_METATYPE(qs::ServerPoint)
