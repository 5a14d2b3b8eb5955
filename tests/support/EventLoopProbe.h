// SPDX-License-Identifier: MIT
#pragma once
// How responsive is the GUI thread? A precise 5 ms timer on that thread; every tick records
//  - its lateness: the wall-clock gap beyond 5 ms, what a user feels. On a loaded machine (CI
//    runs three test processes on two cores) it includes time the thread was runnable but not
//    scheduled, which no code of ours controls;
//  - the GUI thread's own CPU time spent in that gap: the longest piece of work the code did
//    without returning to the event loop. That is what our design controls, and what a test can
//    assert without depending on what else the machine is doing.

#include <QElapsedTimer>
#include <QObject>
#include <QTimer>
#include <algorithm>
#include <ctime>
#include <vector>

namespace qs::test {

class EventLoopProbe {
public:
    static constexpr int intervalMs = 5;

    EventLoopProbe()
    {
        m_timer.setTimerType(Qt::PreciseTimer);
        m_timer.setInterval(intervalMs);
        QObject::connect(&m_timer, &QTimer::timeout, [this] { tick(); });
    }

    void start()
    {
        m_clock.start();
        m_lastWallNs = 0;
        m_lastCpuNs = threadCpuNs();
        m_timer.start();
    }
    void stop() { m_timer.stop(); }

    /// Per tick: how late it fired, in ms (≥ 0).
    const std::vector<double>& lateness() const { return m_lateness; }
    double maxLatenessMs() const { return maxOf(m_lateness); }
    /// The most GUI-thread CPU time spent between two ticks, in ms.
    double maxBusyMs() const { return maxOf(m_busy); }
    qint64 elapsedMs() const { return m_clock.elapsed(); }

private:
    static qint64 threadCpuNs()
    {
        timespec ts {};
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
        return qint64(ts.tv_sec) * 1000000000 + ts.tv_nsec;
    }
    static double maxOf(const std::vector<double>& v)
    {
        return v.empty() ? 0 : *std::max_element(v.begin(), v.end());
    }

    void tick()
    {
        const qint64 wall = m_clock.nsecsElapsed();
        const qint64 cpu = threadCpuNs();
        if (m_lastWallNs)
            m_lateness.push_back(std::max(0.0, double(wall - m_lastWallNs) / 1e6 - intervalMs));
        m_busy.push_back(double(cpu - m_lastCpuNs) / 1e6);
        m_lastWallNs = wall;
        m_lastCpuNs = cpu;
    }

    QTimer m_timer;
    QElapsedTimer m_clock;
    qint64 m_lastWallNs = 0;
    qint64 m_lastCpuNs = 0;
    std::vector<double> m_lateness;
    std::vector<double> m_busy;
};

} // namespace qs::test
