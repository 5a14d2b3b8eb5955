// SPDX-License-Identifier: MIT
#pragma once

// One accepted TCP connection: reads requests (keep-alive, pipelined requests queue up),
// routes them, answers the simple ones and hands chat requests to a ChatResponder.
// Internal to qs_emulator.

#include "tests/support/ChatResponder.h"

#include <QObject>
#include <deque>
#include <memory>

class QTcpSocket;

namespace qs::emu::detail {

class Connection : public QObject, private ResponseSink {
public:
    Connection(QTcpSocket* socket, ServerState& state, DeadlineScheduler& scheduler, QObject* parent);
    ~Connection() override;

private:
    void onReadyRead();
    void onDisconnected();
    void serveNext();
    void serve(const HttpRequest& request);
    void serveDelayedHealth(const DialectWriter& writer, const ServerConfig& config);
    void serveMetrics(const DialectWriter& writer, const ServerConfig& config, const HttpRequest& request);
    void reply(const DialectWriter& writer, const HttpReply& reply);
    void rejectMalformed();

    // ResponseSink
    qint64 send(const QByteArray& bytes) override;
    QByteArray responseHead(const DialectWriter& writer, int status, const QByteArray& contentType,
        qint64 contentLength, bool stream) override;
    void hardClose() override;
    void responseDone(bool close) override;

    QTcpSocket* m_socket;
    ServerState& m_state;
    DeadlineScheduler& m_scheduler;
    HttpRequestReader m_reader;
    std::deque<HttpRequest> m_pending;
    std::unique_ptr<ChatResponder> m_chat;
    DeadlineScheduler::Ticket m_delayedTicket = 0;
    QByteArray m_origin; // of the request being answered
    bool m_keepAlive = true;
    bool m_busy = false; // a response is in progress
    bool m_closing = false; // no more requests on this connection
};

} // namespace qs::emu::detail
