// SPDX-License-Identifier: MIT
#pragma once

// Runs callbacks at absolute monotonic deadlines with sub-millisecond punctuality. Qt timers
// (and the glib dispatcher's poll timeout) only resolve milliseconds, so a precise QTimer wakes
// the thread a little early and the last stretch is slept with nanosleep and then spun.
// One scheduler serves every connection of a server, so one stream's wait never delays another
// stream's earlier deadline. Internal to qs_emulator.

#include <QObject>
#include <QTimer>
#include <functional>
#include <map>
#include <unordered_map>
#include <utility>

namespace qs::emu::detail {

class DeadlineScheduler : public QObject {
public:
    using Ticket = quint64;

    explicit DeadlineScheduler(QObject* parent = nullptr);
    ~DeadlineScheduler() override;

    /// Runs `fn` in this object's thread at `dueNs` (qs::monotonicNs), or as soon as possible
    /// when that is past. Callbacks with equal deadlines run in scheduling order.
    Ticket schedule(qint64 dueNs, std::function<void()> fn);
    /// Forgets a pending callback; unknown or already-run tickets are ignored.
    void cancel(Ticket ticket);

private:
    void runDue();
    void rearm();

    QTimer m_timer;
    std::map<std::pair<qint64, Ticket>, std::function<void()>> m_queue;
    std::unordered_map<Ticket, qint64> m_dueOf;
    Ticket m_nextTicket = 1;
    bool m_running = false;
};

} // namespace qs::emu::detail
