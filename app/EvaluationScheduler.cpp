// SPDX-License-Identifier: MIT
#include "app/EvaluationScheduler.h"

#include <QFutureWatcher>
#include <QtConcurrent>

namespace qs::app {

EvaluationScheduler::EvaluationScheduler(std::function<bool()> running, QObject* parent)
    : QObject(parent)
    , m_running(std::move(running))
{
}

void EvaluationScheduler::evaluate(
    std::shared_ptr<const RunResult> result, bool withComparison, bool thenComparison)
{
    const quint64 generation = m_generation;
    const bool live = m_running();
    m_evaluating = true;
    auto* watcher = new QFutureWatcher<DashboardData>(this);
    connect(watcher, &QFutureWatcher<DashboardData>::finished, this,
        [this, watcher, generation, live, thenComparison] {
            DashboardData d = watcher->result();
            watcher->deleteLater();
            m_evaluating = false;
            if (generation != m_generation)
                return; // the user moved on (another file, a new run): drop it
            d.live = live && m_running();
            const std::shared_ptr<const RunResult> shown = d.result;
            Q_EMIT evaluated(std::move(d));
            if (thenComparison)
                evaluate(shown, true, false);
        });
    watcher->setFuture(QtConcurrent::run(prepareDashboard, std::move(result), m_baseline, withComparison));
}

int EvaluationScheduler::baselineFor(const RunResult& result) const
{
    for (std::size_t i = 0; i < result.endpoints.size(); ++i)
        if (result.endpoints[i].endpoint.displayName() == m_baselineLabel)
            return int(i);
    return 0;
}

} // namespace qs::app
