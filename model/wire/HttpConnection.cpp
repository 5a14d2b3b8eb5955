// SPDX-License-Identifier: MIT
#include "model/wire/HttpConnection.h"

#include "model/core/Clock.h"
#include "model/wire/ArrivalStamps.h"

#include <QNetworkProxy>
#include <QTcpSocket>
#include <QTimer>
#if QT_CONFIG(ssl)
#include <QSslSocket>
#endif

namespace qs {

HttpConnection::HttpConnection(QObject* parent)
    : QObject(parent)
    , m_timer(new QTimer(this))
{
    m_timer->setSingleShot(true);
    m_timer->setTimerType(Qt::CoarseTimer); // timeouts are seconds long; precision is not needed
    connect(m_timer, &QTimer::timeout, this, &HttpConnection::onTimeout);
}

HttpConnection::~HttpConnection()
{
    if (m_socket)
        m_socket->disconnect(this); // no callbacks into a half-destroyed object
}

FailureContext HttpConnection::context() const
{
    FailureContext ctx;
    ctx.hostPort = m_hostPort;
    ctx.path = m_request.url.path();
    return ctx;
}

void HttpConnection::start(Request request)
{
    Q_ASSERT(!m_busy);
    m_request = std::move(request);
    m_parser = HttpResponseParser();
    if (m_request.method == "HEAD")
        m_parser.expectNoBody();
    m_timing = RequestTiming();
    m_failure = Failure();
    m_busy = true;
    m_retriedStale = false;
    m_keepAlives = 0;
    m_bytesSinceActivity = 0;
    m_timing.startNs = monotonicNs();
    const QUrl& u = m_request.url;
    const bool tls = u.scheme() == u"https";
    const QString hostPort = QStringLiteral("%1:%2").arg(u.host()).arg(u.port(tls ? 443 : 80));

    if (m_socket
        && (hostPort != m_hostPort || m_socket->state() != QAbstractSocket::ConnectedState
            || m_socket->bytesAvailable() > 0))
        dropSocket(); // a different server, or a connection the server has already given up
    m_hostPort = hostPort;
    if (m_socket) {
        m_timing.connectedNs = m_timing.startNs;
        m_timing.connectionReused = true;
        writeRequest();
    } else {
        connectSocket();
    }
}

void HttpConnection::connectSocket()
{
    const QUrl& u = m_request.url;
    const bool tls = u.scheme() == u"https";
#if QT_CONFIG(ssl)
    if (tls) {
        if (!QSslSocket::supportsSsl()) {
            finish(
                makeFailure(FailureKind::Tls, QStringLiteral("TLS is not available in this Qt installation"),
                    QStringLiteral("Install Qt's OpenSSL backend, or use http://.")));
            return;
        }
        m_socket = new QSslSocket(this);
    } else {
        m_socket = new QTcpSocket(this);
    }
#else
    if (tls) {
        finish(makeFailure(FailureKind::Tls, QStringLiteral("this build of Qt has no TLS support"),
            QStringLiteral("Use http://, or build with Qt's SSL support.")));
        return;
    }
    m_socket = new QTcpSocket(this);
#endif
    m_socket->setProxy(QNetworkProxy::NoProxy); // a benchmark measures the server, not a proxy
    connect(m_socket, &QTcpSocket::readyRead, this, &HttpConnection::onReadyRead);
    connect(m_socket, &QTcpSocket::disconnected, this, &HttpConnection::onDisconnected);
    connect(m_socket, &QTcpSocket::errorOccurred, this, &HttpConnection::onSocketError);
    const auto onConnected = [this, tls] {
        m_timing.connectedNs = monotonicNs();
        // Without TCP_NODELAY a small request can sit in Nagle's buffer and inflate TTFT.
        m_socket->setSocketOption(QAbstractSocket::LowDelayOption, 1);
        // Plain HTTP is read unbuffered, so each read can first ask the kernel when its bytes
        // arrived (TLS hands over decrypted bytes long after the kernel's packets: no such stamp).
        m_arrivalStamps = !tls && arrival_stamps::enable(m_socket->socketDescriptor());
        writeRequest();
    };
    m_phase = Phase::Connecting;
    m_arrivalStamps = false;
    if (!tls)
        arrival_stamps::prepare(); // while the connection is made, not when the answer arrives
#if QT_CONFIG(ssl)
    if (tls) {
        auto* ssl = static_cast<QSslSocket*>(m_socket);
        connect(ssl, &QSslSocket::encrypted, this, onConnected);
        ssl->connectToHostEncrypted(u.host(), quint16(u.port(443)));
    } else
#endif
    {
        connect(m_socket, &QTcpSocket::connected, this, onConnected);
        m_socket->connectToHost(u.host(), quint16(u.port(80)), QIODevice::ReadWrite | QIODevice::Unbuffered);
    }
    onTimeout(); // arms the timer for the connect deadline
}

void HttpConnection::writeRequest()
{
    const QUrl& u = m_request.url;
    QByteArray target = u.path(QUrl::FullyEncoded).toLatin1();
    if (target.isEmpty())
        target = "/";
    if (u.hasQuery())
        target += '?' + u.query(QUrl::FullyEncoded).toLatin1();
    const bool defaultPort = u.port() < 0;
    QByteArray host = u.host(QUrl::FullyEncoded).toLatin1();
    if (!defaultPort)
        host += ':' + QByteArray::number(u.port());

    QByteArray head;
    head.reserve(256 + m_request.body.size());
    head += m_request.method + ' ' + target + " HTTP/1.1\r\nHost: " + host
        + "\r\nUser-Agent: quantscope/" QS_VERSION
          "\r\nAccept-Encoding: identity\r\nConnection: keep-alive\r\n";
    for (const auto& [name, value] : m_request.headers)
        head += name + ": " + value + "\r\n";
    if (!m_request.body.isEmpty() || m_request.method == "POST")
        head += "Content-Length: " + QByteArray::number(m_request.body.size()) + "\r\n";
    head += "\r\n";
    head += m_request.body;

    m_phase = Phase::Waiting;
    m_timing.t0Ns = monotonicNs();
    m_socket->write(head);
    m_socket->flush(); // hand the bytes to the kernel now, not on the next event-loop pass
    onTimeout();
}

void HttpConnection::onReadyRead()
{
    qint64 stamp = monotonicNs(); // first: the stamp must not include parsing
    if (!m_busy) {
        m_socket->readAll(); // unsolicited bytes on an idle connection: it cannot be reused
        dropSocket();
        return;
    }
    // Into one buffer per thread, kept from read to read (readAll() would allocate every time),
    // not one per connection: the parser copies what it keeps before anything else can read, and
    // a thousand connections' idle 64 KiB buffers would hold 64 MiB.
    static thread_local QByteArray readBuffer;
    const bool unbuffered = m_socket->openMode().testFlag(QIODevice::Unbuffered);
    const qint64 available = unbuffered ? qint64(kUnbufferedRead) : m_socket->bytesAvailable();
    if (available <= 0)
        return;
    readBuffer.resize(qsizetype(available));
    qint64 arrived = 0;
    if (m_arrivalStamps) {
        // Nothing of a response can arrive before its request was written.
        arrived = arrival_stamps::pendingArrivalNs(m_socket->socketDescriptor(), readBuffer.data(), available,
            qMax(m_timing.startNs, m_timing.t0Ns));
        if (arrived)
            stamp = arrived;
    }
    const qint64 read = m_socket->read(readBuffer.data(), available);
    if (read < 0 && unbuffered) {
        // Unbuffered, Qt signals neither the end of the stream nor a reset: the read reports them.
        if (m_socket->error() == QAbstractSocket::RemoteHostClosedError)
            onDisconnected();
        else
            finish(classifySocketError(m_socket->error(), m_socket->errorString(), context()));
        return;
    }
    if (read <= 0)
        return;
    ++(arrived ? m_timing.arrivalStampedReads : m_timing.readTimeStampedReads);
    const QByteArrayView bytes(readBuffer.constData(), qsizetype(read));
    if (!m_timing.firstByteNs)
        m_timing.firstByteNs = stamp;
    m_bytesSinceActivity += bytes.size();
    const bool hadHeaders = m_parser.headersComplete();
    m_bodyScratch.clear();
    m_parser.feed(bytes, m_bodyScratch);
    // Header bytes are not progress: a server that trickles an endless header must meet the
    // first-byte deadline, not restart the idle timer with every byte.
    if (!m_activityFromCaller && m_parser.headersComplete())
        noteActivity(stamp);
    if (!hadHeaders && m_parser.headersComplete()) {
        m_timing.headersNs = stamp;
        if (const QByteArray coding = m_parser.header("content-encoding").trimmed().toLower();
            !coding.isEmpty() && coding != "identity" && !(m_parser.complete() && m_bodyScratch.isEmpty())) {
            finish(unaskedEncoding(coding));
            return;
        }
        if (onHeaders)
            onHeaders();
        if (!m_busy)
            return; // the callback aborted
    }
    if (!m_bodyScratch.isEmpty() && onBody) {
        onBody(m_bodyScratch, stamp);
        if (!m_busy)
            return;
    }
    if (m_parser.failed()) {
        finish(makeFailure(FailureKind::NotOpenAiCompatible,
            QStringLiteral("The response from %1 is not valid HTTP: %2").arg(m_hostPort, m_parser.error()),
            QStringLiteral("Check that the URL points at an HTTP inference server.")));
        return;
    }
    if (m_parser.complete())
        finish(Failure());
}

Failure HttpConnection::unaskedEncoding(const QByteArray& coding) const
{
    // Not decoded on purpose: a compressed stream is one a proxy buffers and re-chunks, so its
    // timings would measure the proxy, not the server.
    return makeFailure(FailureKind::NotOpenAiCompatible,
        QStringLiteral("%1 sent its response compressed (Content-Encoding: %2) although Quantscope "
                       "asked for none (Accept-Encoding: identity)")
            .arg(m_hostPort, QString::fromLatin1(coding.left(40))),
        QStringLiteral("A proxy in front of the server probably added the compression: turn it off for "
                       "this route (nginx: gzip off; for text/event-stream), or point the endpoint at "
                       "the server itself. Compressed streams are buffered, so their timings would be "
                       "the proxy's."),
        m_parser.statusCode());
}

void HttpConnection::noteActivity(qint64 stampNs)
{
    m_lastReadNs = stampNs;
    m_bytesSinceActivity = 0;
    if (m_busy && m_phase != Phase::Reading) {
        m_phase = Phase::Reading;
        onTimeout(); // re-arm for the idle deadline; later reads only move m_lastReadNs (lazy re-arm)
    }
}

void HttpConnection::onDisconnected()
{
    if (!m_busy)
        return dropSocket();
    const qint64 stamp = monotonicNs();
    // A kept-alive connection the server had already closed: retry once on a fresh one. Safe,
    // because the server never saw a byte of this request.
    if (m_timing.connectionReused && !m_timing.firstByteNs && !m_retriedStale) {
        m_retriedStale = true;
        dropSocket();
        m_timing.connectionReused = false;
        connectSocket();
        return;
    }
    m_parser.connectionClosed();
    m_timing.endNs = stamp;
    if (m_parser.complete()) {
        finish(Failure());
        return;
    }
    Failure f = makeFailure(FailureKind::Disconnected,
        QStringLiteral("%1 closed the connection: %2").arg(m_hostPort, m_parser.error()),
        QStringLiteral("Whatever arrived before the close is kept; the request counts as failed. "
                       "The server may have crashed, restarted or hit a proxy timeout: check its "
                       "log."));
    if (!m_timing.firstByteNs) {
        f.summary = QStringLiteral("%1 closed the connection without answering").arg(m_hostPort);
        f.advice
            = QStringLiteral("Is this an HTTP server? A server that speaks TLS closes plain-HTTP connections "
                             "(try https://); otherwise check the server's log.");
    }
    finish(f);
}

void HttpConnection::onSocketError()
{
    if (!m_busy || !m_socket)
        return;
    const auto error = m_socket->error();
    if (error == QAbstractSocket::RemoteHostClosedError)
        return; // onDisconnected() handles it, with the parser's view of what was missing
    finish(classifySocketError(error, m_socket->errorString(), context()));
}

void HttpConnection::onTimeout()
{
    if (!m_busy)
        return;
    const Timeouts& t = m_request.timeouts;
    const qint64 now = monotonicNs();
    const auto deadline
        = [](qint64 from, int ms) { return ms > 0 && from ? from + qint64(ms) * 1000000 : 0; };
    const qint64 total = deadline(m_timing.startNs, t.totalMs);
    qint64 phase = 0;
    FailureKind kind = FailureKind::None;
    switch (m_phase) {
    case Phase::Connecting:
        phase = deadline(m_timing.startNs, t.connectMs);
        kind = FailureKind::ConnectTimeout;
        break;
    case Phase::Waiting:
        phase = deadline(m_timing.t0Ns, t.firstByteMs);
        kind = FailureKind::FirstByteTimeout;
        break;
    case Phase::Reading:
        phase = deadline(m_lastReadNs, t.idleMs);
        kind = FailureKind::IdleTimeout;
        break;
    case Phase::Idle:
        break;
    }
    if (total && now >= total) {
        finish(makeFailure(FailureKind::TotalTimeout,
            QStringLiteral("The request to %1 took longer than its %2 ms limit")
                .arg(m_hostPort)
                .arg(t.totalMs),
            QStringLiteral("Raise the endpoint's total timeout, or lower max_tokens.")));
        return;
    }
    if (phase && now >= phase) {
        switch (kind) {
        case FailureKind::ConnectTimeout:
            finish(makeFailure(kind,
                QStringLiteral("Could not connect to %1 within %2 ms").arg(m_hostPort).arg(t.connectMs),
                QStringLiteral("Is the machine up and the address right? A firewall that drops packets "
                               "looks like this.")));
            return;
        case FailureKind::FirstByteTimeout:
            if (m_timing.firstByteNs && !m_parser.headersComplete()) {
                finish(makeFailure(kind,
                    QStringLiteral("%1 sent %2 bytes in %3 ms but never finished its response headers")
                        .arg(m_hostPort)
                        .arg(m_bytesSinceActivity)
                        .arg(t.firstByteMs),
                    QStringLiteral("An inference server sends its headers at once: check that the URL "
                                   "points at one, not at another service or a stalled proxy.")));
                return;
            }
            finish(makeFailure(kind,
                QStringLiteral("%1 accepted the request but sent no data for %2 ms%3")
                    .arg(m_hostPort)
                    .arg(t.firstByteMs)
                    .arg(m_keepAlives ? QStringLiteral(" (only %1 keep-alive pings: the server is alive "
                                                       "but produced no output)")
                                            .arg(m_keepAlives)
                            : m_bytesSinceActivity > 0 && m_activityFromCaller
                            ? QStringLiteral(" (%1 bytes arrived, but no complete event)")
                                  .arg(m_bytesSinceActivity)
                            : QString()),
                QStringLiteral("The server may be overloaded, queueing, or processing a very long "
                               "prompt; raise the endpoint's first-byte timeout if that is expected.")));
            return;
        default:
            finish(makeFailure(kind,
                QStringLiteral("The stream from %1 stalled: no data for %2 ms%3%4")
                    .arg(m_hostPort)
                    .arg(t.idleMs)
                    .arg(m_keepAlives ? QStringLiteral(" (keep-alive pings kept the connection open)")
                            : m_bytesSinceActivity > 0
                            ? QStringLiteral(" (%1 bytes trickled in without completing anything)")
                                  .arg(m_bytesSinceActivity)
                            : QString())
                    .arg(m_parser.bodyBytesMissing() > 0
                            ? QStringLiteral("; %1 bytes of the body its Content-Length announced never came")
                                  .arg(m_parser.bodyBytesMissing())
                            : QString()),
                QStringLiteral("What arrived before the stall is kept; the request counts as failed. "
                               "Reasoning models can pause long: raise the idle timeout if that is "
                               "expected.")));
            return;
        }
    }
    const qint64 next = phase && total ? qMin(phase, total) : qMax(phase, total);
    if (next)
        m_timer->start(int(qMax<qint64>(1, (next - now + 999999) / 1000000)));
    else
        m_timer->stop();
}

void HttpConnection::abort(Failure failure)
{
    if (m_busy)
        finish(std::move(failure));
}

void HttpConnection::finish(Failure failure)
{
    if (!m_busy)
        return;
    m_busy = false;
    m_phase = Phase::Idle;
    m_timer->stop();
    if (!m_timing.endNs)
        m_timing.endNs = monotonicNs();
    m_failure = std::move(failure);
    // Keep the connection only after a clean, complete response the server will not close.
    if (m_failure.isFailure() || !m_parser.complete() || m_parser.connectionWillClose()
        || !m_parser.leftover().isEmpty())
        dropSocket();
    Q_EMIT finished();
}

void HttpConnection::dropSocket()
{
    if (!m_socket)
        return;
    QTcpSocket* s = m_socket;
    m_socket = nullptr;
    s->disconnect(this);
    s->abort();
    s->deleteLater(); // we may be inside one of its signals
}

} // namespace qs
