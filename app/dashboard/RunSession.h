// SPDX-License-Identifier: MIT
#pragma once

#include "app/common/EndpointSpec.h"
#include "app/dashboard/LiveSnapshots.h"
#include "model/decide/Sequential.h"
#include "model/run/RunController.h"
#include "widgets/panels/EndpointEntry.h"
#include "widgets/panels/RunPanel.h"

#include <QElapsedTimer>
#include <QObject>
#include <memory>

class QTimer;

namespace qs::app {

/// One run at a time through RunController (its own thread): the records grow a live result
/// that is offered for evaluation twice a second, and the finished run is saved at once to the
/// runs folder (its journal, kept until then, is what recovery finds after a crash).
class RunSession : public QObject {
    Q_OBJECT
public:
    explicit RunSession(QObject* parent = nullptr);
    /// Cancels the run and journals what is in flight while its simulators still answer.
    ~RunSession() override;

    bool running() const;
    /// Starts a run of `entries` with `panel`'s suite and settings. Null (and statusText() or
    /// suiteError() says why) when it cannot start; else a first snapshot of the live result.
    /// With panel.untilDecided, `profile` judges each round (the first endpoint is the baseline).
    std::shared_ptr<const RunResult> start(const std::vector<EndpointEntry>& entries,
        const RunPanelSettings& panel, const DecisionProfile* profile = nullptr);
    /// Cancels the requests in flight; ended() follows with every finished one.
    void stop();

    /// The run in progress without its records (endpoints, suite, settings); null when none.
    const RunResult* live() const { return m_live.get(); }
    /// If records arrived since the last one: a job that makes a snapshot of the live result on
    /// a worker (the GUI thread pays only for the new records); else an empty function.
    SnapshotJob takeSnapshot();
    /// The next takeSnapshot() gives one even without new records (e.g. another baseline).
    void markDirty() { m_liveDirty = true; }

Q_SIGNALS:
    void progress(const qs::RunProgress& progress);
    void liveDeltas(const QList<qs::LiveDelta>& deltas);
    /// One scrape of one endpoint's metrics source (queued from the runner's telemetry thread).
    void serverPoint(const qs::ServerPoint& point);
    /// What the run panel should say (empty: nothing).
    void statusText(const QString& text);
    void suiteError(const QString& error);
    /// A message for the status bar.
    void message(const QString& text, int timeoutMs);
    /// Twice a second while running: time to evaluate takeSnapshot().
    void refreshDue();
    /// The run could not start (after start() returned a snapshot).
    void failed(const QString& message);
    /// The run is over (complete or stopped); saving it has begun.
    void ended(std::shared_ptr<const qs::RunResult> result);
    /// The finished run was saved to `path` (empty: it was not; statusText() says why).
    void saved(bool complete, const QString& path);

private:
    void onFinished(const std::shared_ptr<const RunResult>& shared, const RunStats& stats);
    /// A round of an until-decided run ended: judge it on a worker, then go on or stop.
    void onRound(std::shared_ptr<const RunResult> soFar, int round);
    void onLook(const UntilDecided& rounds, const RoundVerdict& verdict);

    RunController* m_controller = nullptr;
    std::unique_ptr<EndpointResolver> m_resolver; ///< keeps the run's simulated servers alive
    std::shared_ptr<RunResult> m_live; ///< the run in progress, without records
    std::unique_ptr<LiveSnapshots> m_snapshots; ///< its records, for snapshots to the views
    QString m_outPath;
    QTimer* m_timer = nullptr;
    bool m_liveDirty = false;
    bool m_probing = false; ///< the run panel says "Probing the endpoints…"
    // An until-decided run: its profile, the suite its rounds draw from, its looks so far.
    std::optional<DecisionProfile> m_profile;
    Suite m_pool;
    UntilDecided m_rounds;
    QElapsedTimer m_clock;
};

/// Where finished runs are saved (and their journals kept while they run).
QString runsDirectory();

} // namespace qs::app
