// SPDX-License-Identifier: MIT
#pragma once

#include "app/dashboard/LiveSnapshots.h"
#include "widgets/DashboardData.h"

#include <QElapsedTimer>
#include <QObject>
#include <functional>
#include <memory>

namespace qs::app {

/// Evaluates results off the GUI thread (prepareDashboard on the pool) against the chosen
/// baseline, and drops a result that comes back after what is shown changed source: each
/// evaluation is tagged with the generation it started in, invalidate() moves on.
class EvaluationScheduler : public QObject {
    Q_OBJECT
public:
    /// `running` says whether a run is in progress (a live evaluation is marked live only if the
    /// run still goes on when it is ready).
    explicit EvaluationScheduler(std::function<bool()> running, QObject* parent = nullptr);

    /// Asynchronous: evaluated() follows unless invalidate() is called first. `thenComparison`:
    /// medians only now (fast), then once more with the paired intervals.
    void evaluate(std::shared_ptr<const RunResult> result, bool withComparison, bool thenComparison);
    /// The same for a live run: `snapshot` makes the result on the worker, with the comparison.
    void evaluate(SnapshotJob snapshot);
    /// What is shown changed source: evaluations still running are dropped when they finish.
    void invalidate() { ++m_generation; }
    bool busy() const { return m_evaluating; }
    /// Whether a live evaluation may start now: none running, and the worker has rested twice as
    /// long as the last live one took. A live evaluation is O(records); on a run of hours it takes
    /// seconds, and back to back they would keep a core busy beside the runner whose stamps it
    /// would delay. The live chart and text do not wait for it (they are fed by deltas).
    bool readyForLive() const;

    /// The endpoint every other one is compared with: an index into the results shown, and the
    /// label it was picked by (empty = the first endpoint), so the next results keep it.
    int baseline() const { return m_baseline; }
    void setBaseline(int index) { m_baseline = index; }
    QString baselineLabel() const { return m_baselineLabel; }
    void setBaselineLabel(const QString& label) { m_baselineLabel = label; }
    /// The endpoint of `result` to compare with: the one last picked, by label, else the first.
    int baselineFor(const RunResult& result) const;

Q_SIGNALS:
    void evaluated(qs::DashboardData data);

private:
    /// Runs `prepare` on the pool; evaluated() follows with its data unless invalidated.
    void start(std::function<DashboardData()> prepare, bool thenComparison);

    std::function<bool()> m_running;
    quint64 m_generation = 0;
    bool m_evaluating = false;
    QElapsedTimer m_clock; ///< since construction: when live evaluations ended, how long they took
    qint64 m_liveRestUntilMs = 0;
    int m_baseline = 0;
    QString m_baselineLabel;
};

} // namespace qs::app
