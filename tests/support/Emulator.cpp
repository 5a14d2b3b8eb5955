// SPDX-License-Identifier: MIT
#include "tests/support/Emulator.h"

#include "tests/support/DeadlineScheduler.h"
#include "tests/support/EmulatorConnection.h"
#include "tests/support/EmulatorState.h"

#include <QEventLoop>
#include <QPointer>
#include <QTcpServer>
#include <QTcpSocket>
#include <QThread>
#include <atomic>
#include <future>

namespace qs::emu {

struct EmulatorServer::Impl {
    explicit Impl(ServerConfig config)
        : state(std::move(config))
    {
    }

    detail::ServerState state;
    // Children of the server (so they follow a moveToThread) but deleted explicitly, in order.
    detail::DeadlineScheduler* scheduler = nullptr;
    QTcpServer* tcp = nullptr;
    QList<QPointer<detail::Connection>> connections;
    std::atomic<quint16> port {0};
};

EmulatorServer::EmulatorServer(ServerConfig config, QObject* parent)
    : QObject(parent)
    , d(std::make_unique<Impl>(std::move(config)))
{
    d->scheduler = new detail::DeadlineScheduler(this);
    d->tcp = new QTcpServer(this);
    QObject::connect(d->tcp, &QTcpServer::newConnection, this, [this] {
        while (QTcpSocket* socket = d->tcp->nextPendingConnection()) {
            d->connections.removeAll(nullptr);
            d->connections.append(new detail::Connection(socket, d->state, *d->scheduler, this));
        }
    });
}

EmulatorServer::~EmulatorServer()
{
    // Connections hold references to the scheduler and the state: they go first.
    delete d->tcp;
    for (const QPointer<detail::Connection>& connection : std::as_const(d->connections))
        delete connection.data();
    delete d->scheduler;
}

bool EmulatorServer::listen(const QHostAddress& address, quint16 port)
{
    if (!d->tcp->listen(address, port))
        return false;
    d->port = d->tcp->serverPort();
    return true;
}

quint16 EmulatorServer::port() const
{
    return d->port;
}

QUrl EmulatorServer::baseUrl() const
{
    QUrl url;
    url.setScheme(QStringLiteral("http"));
    url.setHost(QStringLiteral("127.0.0.1"));
    url.setPort(d->port);
    return url;
}

void EmulatorServer::setConfig(ServerConfig config)
{
    d->state.setConfig(std::move(config));
}

ServerConfig EmulatorServer::config() const
{
    return d->state.config();
}

std::vector<ServedRequest> EmulatorServer::servedRequests() const
{
    return d->state.served();
}

EmulatorLoad EmulatorServer::load() const
{
    return d->state.metrics().load();
}

void EmulatorServer::clearServedRequests()
{
    d->state.clearServed();
}

PrefixCacheStats EmulatorServer::prefixCache() const
{
    return d->state.prefixCache().stats();
}

void EmulatorServer::clearPrefixCache()
{
    d->state.prefixCache().clear();
}

EmulatorThread::EmulatorThread() = default;

EmulatorThread::~EmulatorThread() = default;

bool EmulatorThread::start(ServerConfig config, quint16 port)
{
    return m_run.start(QStringLiteral("qs-emulator"), [config = std::move(config), port]() mutable {
        auto server = std::make_unique<EmulatorServer>(std::move(config));
        if (!server->listen(QHostAddress::LocalHost, port))
            return std::unique_ptr<EmulatorServer>();
        return server;
    });
}

EmulatorServer* EmulatorThread::server() const
{
    return m_run.server();
}

QUrl EmulatorThread::baseUrl() const
{
    return m_run.server() ? m_run.server()->baseUrl() : QUrl();
}

Script simpleScript(int contentTokens, double ttftMs, double tokensPerSecond)
{
    Script script;
    for (int i = 0; i < contentTokens; ++i)
        script.content << QStringLiteral("w%1 ").arg(i);
    script.ttftMs = ttftMs;
    script.tokensPerSecond = tokensPerSecond;
    return script;
}

} // namespace qs::emu
