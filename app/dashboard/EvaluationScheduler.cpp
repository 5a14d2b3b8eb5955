// SPDX-License-Identifier: MIT
#include "app/dashboard/EvaluationScheduler.h"

#include <QFutureWatcher>
#include <QtConcurrent>

namespace qs::app {

EvaluationScheduler::EvaluationScheduler(std::function<bool()> running, QObject* parent)
    : QObject(parent)
    , m_running(std::move(running))
{
    m_clock.start();
}

bool EvaluationScheduler::readyForLive() const
{
    return !m_evaluating && m_clock.elapsed() >= m_liveRestUntilMs;
}

void EvaluationScheduler::evaluate(
    std::shared_ptr<const RunResult> result, bool withComparison, bool thenComparison)
{
    start([result = std::move(result), baseline = m_baseline,
              withComparison] { return prepareDashboard(result, baseline, withComparison); },
        thenComparison);
}

void EvaluationScheduler::evaluate(SnapshotJob snapshot)
{
    start([snapshot = std::move(snapshot),
              baseline = m_baseline] { return prepareDashboard(snapshot(), baseline); },
        false);
}

void EvaluationScheduler::start(std::function<DashboardData()> prepare, bool thenComparison)
{
    const quint64 generation = m_generation;
    const bool live = m_running();
    const qint64 startedMs = m_clock.elapsed();
    m_evaluating = true;
    auto* watcher = new QFutureWatcher<DashboardData>(this);
    connect(watcher, &QFutureWatcher<DashboardData>::finished, this,
        [this, watcher, generation, live, thenComparison, startedMs] {
            DashboardData d = watcher->future().takeResult(); // no copy left in the future
            watcher->deleteLater();
            m_evaluating = false;
            if (live) {
                const qint64 now = m_clock.elapsed();
                m_liveRestUntilMs = now + 2 * (now - startedMs);
            }
            if (generation != m_generation) { // the user moved on (another file, a new run): drop it
                releaseOnWorker(std::move(d.result));
                return;
            }
            d.live = live && m_running();
            const std::shared_ptr<const RunResult> shown = d.result;
            Q_EMIT evaluated(std::move(d));
            if (thenComparison)
                evaluate(shown, true, false);
        });
    watcher->setFuture(QtConcurrent::run(std::move(prepare)));
}

int EvaluationScheduler::baselineFor(const RunResult& result) const
{
    for (std::size_t i = 0; i < result.endpoints.size(); ++i)
        if (result.endpoints[i].endpoint.displayName() == m_baselineLabel)
            return int(i);
    return 0;
}

} // namespace qs::app
