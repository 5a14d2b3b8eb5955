// SPDX-License-Identifier: MIT
#pragma once

#include "model/wire/StreamingClient.h"
#include "tests/support/Emulator.h"

#include <QTcpServer>
#include <QTcpSocket>
#include <memory>

namespace qs::test {

inline QStringList tokens(int n, const QString& stem = QStringLiteral("w"))
{
    QStringList out;
    for (int i = 0; i < n; ++i)
        out << stem + QString::number(i) + u' ';
    return out;
}

/// An emulator on its own thread plus an endpoint pointing at it.
struct Served {
    std::unique_ptr<emu::EmulatorThread> thread = std::make_unique<emu::EmulatorThread>();
    Endpoint endpoint;

    explicit Served(emu::ServerConfig config)
    {
        if (!thread->start(std::move(config)))
            throw std::runtime_error("emulator failed to listen");
        endpoint.label = QStringLiteral("emulated");
        endpoint.baseUrl = thread->baseUrl();
        endpoint.timeouts.firstByteMs = 10000;
        endpoint.timeouts.idleMs = 10000;
    }
    std::vector<emu::ServedRequest> served() const { return thread->server()->servedRequests(); }
};

inline emu::ServerConfig config(emu::Dialect dialect, emu::Era era, emu::Script script)
{
    emu::ServerConfig c;
    c.dialect = dialect;
    c.era = era;
    c.script = std::move(script);
    return c;
}

inline ChatRequest prompt(const char* text = "hello there")
{
    ChatRequest r = ChatRequest::fromPrompt(QString::fromUtf8(text));
    r.maxTokens = 512;
    return r;
}

/// A raw TCP server on the test's own thread that answers every connection with fixed bytes
/// (for "not an HTTP server" and "not an OpenAI server" cases).
class CannedServer : public QObject {
public:
    explicit CannedServer(QByteArray reply, bool closeAfter = true)
        : m_reply(std::move(reply))
    {
        m_server.listen(QHostAddress::LocalHost, 0);
        QObject::connect(&m_server, &QTcpServer::newConnection, this, [this, closeAfter] {
            while (QTcpSocket* s = m_server.nextPendingConnection()) {
                QObject::connect(s, &QTcpSocket::readyRead, s, [this, s, closeAfter] {
                    s->readAll();
                    s->write(m_reply);
                    if (closeAfter)
                        s->disconnectFromHost();
                });
            }
        });
    }
    QUrl url() const { return QUrl(QStringLiteral("http://127.0.0.1:%1").arg(m_server.serverPort())); }

private:
    QTcpServer m_server;
    QByteArray m_reply;
};

/// An HTTP reply carrying a small DCGM exporter page (memory in MiB, power 100 W), for a
/// CannedServer that stands in for an exporter.
inline QByteArray dcgmPageReply(double memMiB)
{
    const QByteArray body = "# TYPE DCGM_FI_DEV_FB_USED gauge\nDCGM_FI_DEV_FB_USED{gpu=\"0\"} "
        + QByteArray::number(memMiB)
        + "\n# TYPE DCGM_FI_DEV_POWER_USAGE gauge\nDCGM_FI_DEV_POWER_USAGE{gpu=\"0\"} 100\n";
    return "HTTP/1.1 200 OK\r\nContent-Type: text/plain; version=0.0.4\r\nContent-Length: "
        + QByteArray::number(body.size()) + "\r\n\r\n" + body;
}

/// A port with nothing listening on it.
inline quint16 closedPort()
{
    QTcpServer s;
    s.listen(QHostAddress::LocalHost, 0);
    const quint16 port = s.serverPort();
    s.close();
    return port;
}

} // namespace qs::test
