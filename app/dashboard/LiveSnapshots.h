// SPDX-License-Identifier: MIT
#pragma once

#include "model/core/RunRecord.h"

#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

namespace qs::app {

/// Makes a snapshot of the live run: a job run on the evaluation worker.
using SnapshotJob = std::function<std::shared_ptr<const RunResult>()>;

/// The live run's records for the views, without costing the GUI thread more than the records
/// that arrived since the last snapshot (a copy of them all at every live refresh once froze the
/// window for a second at 40,000 records). The GUI thread only collects new records; take() hands
/// them to a job that appends them to a growing run the workers own and makes the snapshot there.
/// Every record is the runner's own, shared (RecordList): a snapshot costs a pointer per record.
class LiveSnapshots {
public:
    /// `run`: the live run without records (endpoints, suite, settings).
    explicit LiveSnapshots(RunResult run);
    /// The growing copy is released on a worker (it holds every record of the run).
    ~LiveSnapshots();
    LiveSnapshots(const LiveSnapshots&) = delete;
    LiveSnapshots& operator=(const LiveSnapshots&) = delete;

    /// GUI thread: a record finished.
    void add(SharedRecord record) { m_fresh.push_back(std::move(record)); }
    /// GUI thread: the run's until-decided record changed (a look was taken); the next snapshot
    /// carries it.
    void setUntilDecided(nlohmann::json untilDecided);
    /// GUI thread, O(records since the last take()): a job for a worker that returns a snapshot
    /// of every record added so far. Jobs may run in any order on any thread; each snapshot
    /// holds at least the records added before its take().
    SnapshotJob take();

private:
    struct Grown {
        std::mutex handedMutex; ///< held only to queue or collect batches: the GUI thread never waits long
        std::vector<RecordList> handed; ///< batches taken, not yet in `run`
        std::optional<nlohmann::json> untilDecided; ///< set, not yet in `run`
        std::mutex runMutex; ///< held by a job while it grows and copies `run`
        RunResult run;
    };
    std::shared_ptr<Grown> m_grown;
    RecordList m_fresh; ///< added since the last take()
};

/// Drops `owned` on the thread pool: when that is the last owner, the O(records) destruction of
/// a run does not stall the GUI thread.
void releaseOnWorker(std::shared_ptr<const void> owned);

} // namespace qs::app
