// SPDX-License-Identifier: MIT
#include "tests/support/EmulatorConnection.h"

#include "model/core/Clock.h"
#include "tests/support/MetricsPage.h"

#include <QTcpSocket>

namespace qs::emu::detail {

namespace {

const QByteArray kChatPath = QByteArrayLiteral("/v1/chat/completions");
const QByteArray kServedPath = QByteArrayLiteral("/emulator/served");

// ServerConfig::servedLogRoute's body: written by hand, as a log of a long run holds hundreds of
// thousands of stamps. Ids are the emulator's own ([A-Za-z0-9-] or a client's X-Request-Id): a
// character that would need escaping is dropped.
QByteArray servedLogJson(const std::vector<ServedRequest>& served)
{
    QByteArray out = "{\"requests\":[";
    out.reserve(qsizetype(served.size()) * 256);
    for (std::size_t i = 0; i < served.size(); ++i) {
        const ServedRequest& r = served[i];
        QByteArray id;
        for (const char c : r.completionId)
            if (c != '"' && c != '\\' && uchar(c) >= 0x20)
                id += c;
        out += (i ? ",{" : "{") + QByteArray("\"serial\":") + QByteArray::number(r.serial) + ",\"id\":\"" + id
            + "\",\"status\":" + QByteArray::number(r.httpStatus)
            + ",\"received_ns\":" + QByteArray::number(r.receivedNs)
            + ",\"end_ns\":" + QByteArray::number(r.endNs) + ",\"token_write_ns\":[";
        for (std::size_t k = 0; k < r.tokenWriteNs.size(); ++k) {
            if (k)
                out += ',';
            out += QByteArray::number(r.tokenWriteNs[k]);
        }
        out += "]}";
    }
    out += "]}";
    return out;
}

} // namespace

Connection::Connection(QTcpSocket* socket, ServerState& state, DeadlineScheduler& scheduler, QObject* parent)
    : QObject(parent)
    , m_socket(socket)
    , m_state(state)
    , m_scheduler(scheduler)
{
    m_socket->setParent(this);
    // Real servers set TCP_NODELAY too; without it Nagle would hold small SSE chunks back.
    m_socket->setSocketOption(QAbstractSocket::LowDelayOption, 1);
    QObject::connect(m_socket, &QTcpSocket::readyRead, this, [this] { onReadyRead(); });
    QObject::connect(m_socket, &QTcpSocket::disconnected, this, [this] { onDisconnected(); });
    if (m_socket->bytesAvailable() > 0)
        QMetaObject::invokeMethod(
            this, [this] { onReadyRead(); }, Qt::QueuedConnection);
}

Connection::~Connection()
{
    m_chat.reset(); // cancels its scheduler entry
    m_scheduler.cancel(m_delayedTicket);
}

void Connection::onReadyRead()
{
    const QByteArray bytes = m_socket->readAll();
    const qint64 readNs = qs::monotonicNs();
    if (m_closing)
        return;
    m_reader.feed(bytes, readNs);
    if (m_reader.takeContinueRequest())
        send(QByteArrayLiteral("HTTP/1.1 100 Continue\r\n\r\n"));
    while (m_reader.hasRequest())
        m_pending.push_back(m_reader.takeRequest());
    serveNext();
}

void Connection::onDisconnected()
{
    m_closing = true;
    if (m_chat)
        m_chat->connectionLost();
    m_scheduler.cancel(m_delayedTicket);
    m_delayedTicket = 0;
    deleteLater();
}

void Connection::serveNext()
{
    if (m_busy || m_closing)
        return;
    if (m_pending.empty()) {
        if (m_reader.failed())
            rejectMalformed(); // only after the well-formed requests before it are answered
        return;
    }
    HttpRequest request = std::move(m_pending.front());
    m_pending.pop_front();
    m_busy = true;
    serve(request);
}

void Connection::serve(const HttpRequest& request)
{
    ServerConfig config = m_state.config();
    const auto writer = DialectWriter::create(config.dialect, config.era);
    m_origin = request.header("Origin");
    m_keepAlive = request.keepAlive();
    const bool authorized = config.apiKey.isEmpty() || writer->isPublicPath(request.path)
        || writer->carriesApiKey(request, config.apiKey.toUtf8());

    if (request.path == kChatPath && request.method == "POST") {
        m_chat.reset();
        m_chat = std::make_unique<ChatResponder>(
            static_cast<ResponseSink&>(*this), m_scheduler, m_state, std::move(config), request, authorized);
        m_chat->start();
        return;
    }
    if (!authorized) {
        reply(*writer, writer->unauthorized());
        return;
    }
    const bool get = request.method == "GET";
    if (config.servedLogRoute && request.path == kServedPath && get) {
        reply(
            *writer, HttpReply {200, QByteArrayLiteral("application/json"), servedLogJson(m_state.served())});
        return;
    }
    if (writer->isHealthGenerate(request.path) && get) {
        serveDelayedHealth(*writer, config);
        return;
    }
    // vLLM always mounts /metrics; the others only when enabled (else infoRoute's 501 or a 404).
    if (request.path == "/metrics" && get && (config.metricsEnabled || config.dialect == Dialect::Vllm)) {
        serveMetrics(*writer, config, request);
        return;
    }
    const std::optional<HttpReply> info = writer->infoRoute(request.path, config);
    if (info && get) {
        reply(*writer, *info);
        return;
    }
    const bool knownPath = info || request.path == kChatPath || writer->isHealthGenerate(request.path);
    reply(*writer, writer->routeNotFound(knownPath));
}

// SGLang's /health_generate answers once a one-token generation came back: after a prefill.
void Connection::serveDelayedHealth(const DialectWriter& writer, const ServerConfig& config)
{
    const HttpFlavor flavor = writer.flavor();
    const qint64 dueNs = qs::monotonicNs() + qint64(std::max(0.0, config.script.ttftMs) * 1e6);
    m_delayedTicket = m_scheduler.schedule(dueNs, [this, flavor] {
        m_delayedTicket = 0;
        ResponseHead head;
        head.status = 200;
        head.contentLength = 0;
        head.close = !m_keepAlive;
        send(formatHead(flavor, head));
        responseDone(!m_keepAlive);
    });
}

void Connection::serveMetrics(
    const DialectWriter& writer, const ServerConfig& config, const HttpRequest& request)
{
    const bool llama = config.dialect == Dialect::LlamaServer;
    // llama-server ignores Accept; prometheus_client switches on any openmetrics entry.
    const bool openMetrics = !llama && acceptsOpenMetrics(request.header("Accept"));
    MetricsSnapshot snapshot = m_state.metrics().snapshot(llama);
    snapshot.kvCapacityTokens = config.contextSize;
    const MetricsPage page
        = renderMetricsPage(snapshot, config.dialect, config.modelId, openMetrics, config.metricsEnabled);
    ResponseHead head;
    head.status = 200;
    head.contentType = page.contentType;
    head.contentLength = page.body.size();
    head.close = !m_keepAlive;
    head.origin = m_origin;
    if (llama)
        head.extra.emplace_back(QByteArrayLiteral("Process-Start-Time-Unix"),
            QByteArray::number(qint64(snapshot.processStartUnix)));
    send(formatHead(writer.flavor(), head) + page.body);
    responseDone(!m_keepAlive);
}

void Connection::reply(const DialectWriter& writer, const HttpReply& reply)
{
    send(responseHead(writer, reply.status, reply.contentType, reply.body.size(), false) + reply.body);
    responseDone(!m_keepAlive);
}

void Connection::rejectMalformed()
{
    m_closing = true;
    const QByteArray body = QByteArrayLiteral("Invalid HTTP request received.");
    send(QByteArrayLiteral("HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\n"
                           "Connection: close\r\nContent-Length: ")
        + QByteArray::number(body.size()) + QByteArrayLiteral("\r\n\r\n") + body);
    m_socket->disconnectFromHost();
}

qint64 Connection::send(const QByteArray& bytes)
{
    if (m_socket->state() == QAbstractSocket::ConnectedState) {
        m_socket->write(bytes);
        m_socket->flush();
    }
    return qs::monotonicNs();
}

QByteArray Connection::responseHead(
    const DialectWriter& writer, int status, const QByteArray& contentType, qint64 contentLength, bool stream)
{
    ResponseHead head;
    head.status = status;
    head.contentType = contentType;
    head.contentLength = contentLength;
    head.close = !m_keepAlive;
    head.origin = m_origin;
    if (stream)
        head.extra = writer.streamHeaders();
    return formatHead(writer.flavor(), head);
}

void Connection::hardClose()
{
    m_closing = true;
    m_socket->abort(); // may emit disconnected() right here
}

void Connection::responseDone(bool close)
{
    if (close) {
        m_closing = true;
        m_socket->disconnectFromHost();
        return;
    }
    // Queued: the finished responder may still be on the stack.
    QMetaObject::invokeMethod(
        this,
        [this] {
            m_busy = false;
            m_chat.reset();
            serveNext();
        },
        Qt::QueuedConnection);
}

} // namespace qs::emu::detail
