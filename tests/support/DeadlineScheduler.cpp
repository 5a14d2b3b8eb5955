// SPDX-License-Identifier: MIT
#include "tests/support/DeadlineScheduler.h"

#include "model/core/Clock.h"

#include <algorithm>
#include <chrono>
#include <thread>

namespace qs::emu::detail {

namespace {

// Farther than this, a millisecond timer is armed to wake about kEarlyWakeNs ahead.
constexpr qint64 kTimerThresholdNs = 3'000'000;
constexpr qint64 kEarlyWakeNs = 2'000'000;
// Closer than the threshold: sleep until this much before the deadline, then spin.
constexpr qint64 kSpinNs = 150'000;

} // namespace

DeadlineScheduler::DeadlineScheduler(QObject* parent)
    : QObject(parent)
{
    m_timer.setSingleShot(true);
    m_timer.setTimerType(Qt::PreciseTimer);
    QObject::connect(&m_timer, &QTimer::timeout, this, [this] { runDue(); });
}

DeadlineScheduler::~DeadlineScheduler() = default;

DeadlineScheduler::Ticket DeadlineScheduler::schedule(qint64 dueNs, std::function<void()> fn)
{
    const Ticket ticket = m_nextTicket++;
    m_queue.emplace(std::make_pair(dueNs, ticket), std::move(fn));
    m_dueOf.emplace(ticket, dueNs);
    if (!m_running)
        rearm();
    return ticket;
}

void DeadlineScheduler::cancel(Ticket ticket)
{
    const auto it = m_dueOf.find(ticket);
    if (it == m_dueOf.end())
        return;
    m_queue.erase(std::make_pair(it->second, ticket));
    m_dueOf.erase(it);
    if (!m_running)
        rearm();
}

void DeadlineScheduler::runDue()
{
    m_running = true;
    while (!m_queue.empty()) {
        const auto first = m_queue.begin();
        const qint64 dueNs = first->first.first;
        const qint64 remaining = dueNs - qs::monotonicNs();
        if (remaining > kTimerThresholdNs)
            break;
        // Blocking this thread for < 3 ms is the price of punctuality; other connections'
        // later deadlines are unaffected since they are all in this queue.
        if (remaining > kSpinNs)
            std::this_thread::sleep_for(std::chrono::nanoseconds(remaining - kSpinNs));
        while (qs::monotonicNs() < dueNs) { }

        std::function<void()> fn = std::move(first->second);
        m_dueOf.erase(first->first.second);
        m_queue.erase(first);
        fn(); // may schedule or cancel; the loop re-reads the queue
    }
    m_running = false;
    rearm();
}

void DeadlineScheduler::rearm()
{
    if (m_queue.empty()) {
        m_timer.stop();
        return;
    }
    const qint64 remaining = m_queue.begin()->first.first - qs::monotonicNs();
    const qint64 waitMs = remaining > kTimerThresholdNs ? (remaining - kEarlyWakeNs) / 1'000'000 : 0;
    m_timer.start(int(std::min<qint64>(waitMs, 24LL * 3600 * 1000)));
}

} // namespace qs::emu::detail
