// SPDX-License-Identifier: MIT
#pragma once

#include <QEventLoop>
#include <QString>
#include <QThread>
#include <future>
#include <memory>

namespace qs::emu {

/// Runs one loopback server on a thread of its own: the server is created, run and destroyed
/// inside that thread, so its sockets and timers never cross threads. The emulator and the
/// exporters share it.
template <typename Server> class ServerThread {
public:
    ServerThread() = default;
    ~ServerThread() { stop(); }
    ServerThread(const ServerThread&) = delete;
    ServerThread& operator=(const ServerThread&) = delete;

    /// Starts the thread and blocks until `make` (called in it) returned the listening server, or
    /// null when it could not listen. False when already started or the server did not listen.
    template <typename Make> bool start(const QString& name, Make make)
    {
        if (m_thread)
            return false;
        std::promise<Server*> ready;
        std::future<Server*> listening = ready.get_future();
        m_thread.reset(QThread::create([make = std::move(make), &ready]() mutable {
            std::unique_ptr<Server> server = make();
            ready.set_value(server.get());
            if (!server)
                return;
            QEventLoop loop;
            loop.exec(); // returns at once if quit() came first
        }));
        m_thread->setObjectName(name);
        m_thread->start();
        m_server = listening.get();
        if (!m_server)
            stop();
        return m_server != nullptr;
    }

    /// Ends the thread's event loop and joins it; the server is destroyed in its own thread.
    void stop()
    {
        if (!m_thread)
            return;
        m_thread->quit();
        m_thread->wait();
        m_thread.reset();
        m_server = nullptr;
    }

    Server* server() const { return m_server; } ///< use only its thread-safe accessors

private:
    std::unique_ptr<QThread> m_thread;
    Server* m_server = nullptr;
};

} // namespace qs::emu
