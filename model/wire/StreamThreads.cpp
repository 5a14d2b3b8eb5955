// SPDX-License-Identifier: MIT
#include "model/wire/StreamThreads.h"

#include <QEventLoop>
#include <QThread>
#include <ctime>
#include <future>
#include <pthread.h>

namespace qs {

std::shared_ptr<StreamThreads> StreamThreads::create(int threads)
{
    return std::shared_ptr<StreamThreads>(new StreamThreads(qMax(1, threads)));
}

StreamThreads::StreamThreads(int threads)
{
    for (int i = 0; i < threads; ++i) {
        std::promise<int> clock;
        std::future<int> started = clock.get_future();
        std::unique_ptr<QThread> thread(QThread::create([&clock] {
            clockid_t id {};
            pthread_getcpuclockid(pthread_self(), &id);
            clock.set_value(int(id));
            QEventLoop loop;
            loop.exec(); // until the destructor's quit()
        }));
        thread->setObjectName(QStringLiteral("quantscope-stream-%1").arg(i));
        thread->start();
        m_clocks.push_back(started.get());
        m_threads.push_back(std::move(thread));
    }
}

StreamThreads::~StreamThreads()
{
    for (auto& thread : m_threads) {
        thread->quit();
        thread->wait();
    }
}

QThread* StreamThreads::next()
{
    QThread* thread = m_threads[m_next].get();
    m_next = (m_next + 1) % m_threads.size();
    return thread;
}

double StreamThreads::cpuMs() const
{
    double ms = 0;
    for (const int clock : m_clocks) {
        timespec ts {};
        if (clock_gettime(clockid_t(clock), &ts) == 0)
            ms += double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) / 1e6;
    }
    return ms;
}

void StreamThreads::post(std::function<void()> task)
{
    std::unique_lock lock(m_mutex);
    m_tasks.push_back(std::move(task));
    if (std::exchange(m_wakeQueued, true))
        return; // a wake is on its way: it runs this task too
    lock.unlock();
    QMetaObject::invokeMethod(this, &StreamThreads::drain, Qt::QueuedConnection);
}

void StreamThreads::drain()
{
    for (;;) {
        std::function<void()> task;
        {
            std::lock_guard lock(m_mutex);
            if (m_tasks.empty()) {
                m_wakeQueued = false;
                return;
            }
            task = std::move(m_tasks.front());
            m_tasks.pop_front();
        }
        task(); // outside the lock: it may post, drain, or start and cancel streams
    }
}

} // namespace qs
