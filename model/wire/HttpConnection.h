// SPDX-License-Identifier: MIT
#pragma once

#include "model/core/Endpoint.h"
#include "model/core/Failure.h"
#include "model/wire/FailureClassifier.h"
#include "model/wire/HttpResponseParser.h"
#include "model/wire/RequestMetrics.h"

#include <QByteArray>
#include <QList>
#include <QObject>
#include <QPair>
#include <QPointer>
#include <QUrl>
#include <functional>

class QTcpSocket;
class QTimer;

namespace qs {

/// One HTTP/1.1 client connection that runs one exchange at a time and keeps the connection
/// for the next exchange to the same host:port when the server allows it.
///
/// Written on QTcpSocket rather than QNetworkAccessManager because a benchmark must see the
/// moments QNAM hides: connection established, request written (t0), first byte read. QNAM also
/// queues past 6 connections per host and adds a thread hop before readyRead.
///
/// Plain HTTP is read unbuffered: each read first learns from the kernel when its bytes arrived
/// (ArrivalStamps.h), so the stamps do not wait for the thread. TLS (and systems without such
/// stamps) stamp each read as the first statement of the socket's readyRead instead.
///
/// Threading: lives in the thread that created it; its callbacks run in that thread. Keep that
/// thread free of painting: a late read still merges events that arrived apart.
class HttpConnection : public QObject {
    Q_OBJECT
public:
    struct Request {
        QByteArray method = "GET";
        QUrl url;
        QList<QPair<QByteArray, QByteArray>> headers; ///< besides Host, Content-Length, Connection
        QByteArray body;
        Timeouts timeouts;
    };

    explicit HttpConnection(QObject* parent = nullptr);
    ~HttpConnection() override;

    /// Starts an exchange. The connection must be idle (not busy()).
    void start(Request request);
    /// Ends the exchange in progress with `failure` (Cancelled, or a caller's own deadline).
    void abort(Failure failure);
    /// By default any byte read once the headers are complete is activity: it ends the
    /// first-byte wait and restarts the idle timer (header bytes are not: a trickled endless
    /// header meets the first-byte deadline). A streaming caller turns this off and calls noteActivity() for
    /// real data only, because servers send headers at once and keep-alive comments while prefilling or
    /// stalled (llama-server's `:` pings), which must not hide a stall.
    void setActivityFromCaller(bool on) { m_activityFromCaller = on; }
    void noteActivity(qint64 stampNs);
    /// Keep-alive comments seen so far (set by the caller), quoted in timeout messages.
    void setKeepAliveCount(int count) { m_keepAlives = count; }
    bool busy() const { return m_busy; }

    /// Called for each piece of de-framed response body with the monotonic stamp of the read
    /// that delivered it: when the read's last bytes reached this machine, from the kernel
    /// (plain HTTP on Linux: ArrivalStamps.h), else when the read began (before any parsing).
    std::function<void(QByteArrayView body, qint64 stampNs)> onBody;
    /// Called once when the response headers are complete.
    std::function<void()> onHeaders;

    const RequestTiming& timing() const { return m_timing; }
    const HttpResponseParser& response() const { return m_parser; }
    /// None on success (any HTTP status counts as success at this level).
    const Failure& failure() const { return m_failure; }

Q_SIGNALS:
    /// The exchange is over: complete response, or failure(). Emitted exactly once per start().
    void finished();

private:
    void connectSocket();
    void writeRequest();
    void onReadyRead();
    void onDisconnected();
    void onSocketError();
    void onTimeout();
    void finish(Failure failure);
    void dropSocket();
    FailureContext context() const;
    Failure unaskedEncoding(const QByteArray& coding) const;

    Request m_request;
    QTcpSocket* m_socket = nullptr;
    QTimer* m_timer = nullptr; ///< one timer, re-armed for the deadline that applies now
    HttpResponseParser m_parser;
    RequestTiming m_timing;
    Failure m_failure;
    QByteArray m_bodyScratch;
    QString m_hostPort;
    enum class Phase { Idle, Connecting, Waiting, Reading } m_phase = Phase::Idle;
    bool m_busy = false;
    bool m_retriedStale = false;
    bool m_activityFromCaller = false;
    bool m_arrivalStamps = false; ///< reads are stamped with the kernel's arrival time (ArrivalStamps.h)
    /// What one unbuffered read takes at most (more waiting: the socket signals again at once).
    static constexpr int kUnbufferedRead = 64 * 1024;
    int m_keepAlives = 0;
    qint64 m_lastReadNs = 0;
    qint64 m_bytesSinceActivity = 0; ///< read since the last progress: a trickle, quoted in timeouts
};

} // namespace qs
