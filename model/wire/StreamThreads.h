// SPDX-License-Identifier: MIT
#pragma once

#include <QObject>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

class QThread;

namespace qs {

/// Threads that do nothing but a stream's socket work — read, stamp, de-chunk, cut events and
/// decode them — each with its own event loop, for a runner with more streams in flight than its
/// own thread can stamp on time (StreamingClient's threaded mode).
///
/// Why: on the runner's thread a read waits behind whatever that thread is doing, and at hundreds
/// of streams that includes bursts of per-request work (the answers' gates, the journal, the next
/// requests' bodies) as a whole batch of them finishes at once. On threads of their own the reads
/// are stamped as they return, whatever the runner is busy with.
///
/// What a stream gives back (each chunk, the finished record) is handed to the owner's thread in
/// one queue, in order, woken once per batch rather than once per chunk.
///
/// Threading: create it, and every client using it, in one thread (the owner). Shared: each
/// threaded client holds it, so its threads outlive every client.
class StreamThreads : public QObject {
    Q_OBJECT
public:
    static std::shared_ptr<StreamThreads> create(int threads);
    ~StreamThreads() override; ///< ends and joins the threads

    int size() const { return int(m_threads.size()); }
    /// The next thread, in turn: where a new client's socket goes.
    QThread* next();
    /// CPU time of all the threads since they started (user + system), in ms.
    double cpuMs() const;

    /// From any thread: runs `task` in the owner's thread soon, after everything posted before it.
    void post(std::function<void()> task);
    /// Owner's thread: runs everything posted so far, now. Re-entrant: a task that drains goes on
    /// with the same queue, so the order holds.
    void drain();

private:
    explicit StreamThreads(int threads);

    std::vector<std::unique_ptr<QThread>> m_threads;
    std::vector<int> m_clocks; ///< each thread's CPU-time clock (clockid_t)
    std::size_t m_next = 0;
    std::mutex m_mutex;
    std::deque<std::function<void()>> m_tasks;
    bool m_wakeQueued = false;
};

} // namespace qs
