// SPDX-License-Identifier: MIT
#include "app/dashboard/LiveSnapshots.h"

#include <QThreadPool>

namespace qs::app {

LiveSnapshots::LiveSnapshots(RunResult run)
    : m_grown(std::make_shared<Grown>())
{
    m_grown->run = std::move(run);
}

LiveSnapshots::~LiveSnapshots()
{
    releaseOnWorker(std::move(m_grown));
}

SnapshotJob LiveSnapshots::take()
{
    {
        const std::lock_guard lock(m_grown->handedMutex);
        m_grown->handed.push_back(std::exchange(m_fresh, {}));
    }
    return [grown = m_grown]() -> std::shared_ptr<const RunResult> {
        const std::lock_guard lock(grown->runMutex);
        std::vector<RecordList> batches;
        {
            const std::lock_guard handedLock(grown->handedMutex);
            batches.swap(grown->handed);
            if (grown->untilDecided)
                grown->run.untilDecided = *std::exchange(grown->untilDecided, std::nullopt);
        }
        // In the order taken, whichever job runs first: every snapshot is a prefix of the run.
        for (const RecordList& batch : batches)
            grown->run.records.append(batch);
        return std::make_shared<const RunResult>(grown->run); // the records shared, not copied
    };
}

void LiveSnapshots::setUntilDecided(nlohmann::json untilDecided)
{
    const std::lock_guard lock(m_grown->handedMutex);
    m_grown->untilDecided = std::move(untilDecided);
}

void releaseOnWorker(std::shared_ptr<const void> owned)
{
    if (!owned)
        return;
    QThreadPool::globalInstance()->start([owned = std::move(owned)]() mutable { owned.reset(); });
}

} // namespace qs::app
