// SPDX-License-Identifier: MIT
#include "model/wire/StreamingClient.h"

#include "model/core/Clock.h"
#include "model/wire/StreamThreads.h"

#include <QEventLoop>

namespace qs {

namespace {
// Error bodies and non-streamed answers are small; refuse to buffer a runaway one.
constexpr qsizetype MaxBufferedBody = 4 * 1024 * 1024;

// A server emits about one event per token (plus a role, a finish, a usage and [DONE] event).
// Far more events than max_tokens allows is a stream that will not end: a broken server or a
// hostile one dripping valid events to defeat the idle timeout.
int eventBudget(const nlohmann::json& body)
{
    for (const char* key : {"max_tokens", "max_completion_tokens"})
        if (const auto it = body.find(key); it != body.end() && it->is_number_integer() && *it > 0)
            return int(qMin<qint64>(it->get<qint64>(), 1 << 24)) * 4 + 256;
    return 0;
}
} // namespace

StreamingClient::StreamingClient(QObject* parent)
    : QObject(parent)
    , m_connection(new HttpConnection(this))
{
    m_connection->setActivityFromCaller(true); // only data events count; see HttpConnection
    m_connection->onHeaders = [this] { onHeaders(); };
    m_connection->onBody = [this](QByteArrayView body, qint64 stamp) { onBody(body, stamp); };
    connect(m_connection, &HttpConnection::finished, this, &StreamingClient::onExchangeFinished);
}

StreamingClient::StreamingClient(std::shared_ptr<StreamThreads> threads, QObject* parent)
    : QObject(parent)
    , m_threads(std::move(threads))
    , m_remote(new StreamingClient)
    , m_alive(std::make_shared<bool>(true))
{
    m_remote->moveToThread(m_threads->next());
    // Both run in the stream's thread and only queue: the facade is touched in its own thread.
    StreamThreads* queue = m_threads.get();
    m_remote->onChunk = [this, queue, alive = m_alive](const StreamChunk& chunk, qint64 stampNs) {
        queue->post([this, alive, chunk, stampNs] {
            if (*alive && onChunk)
                onChunk(chunk, stampNs);
        });
    };
    connect(
        m_remote, &StreamingClient::finished, m_remote,
        [this, queue, alive = m_alive](const RequestRecord& record) {
            queue->post([this, alive, record]() mutable {
                if (!*alive)
                    return;
                m_record = std::move(record);
                m_remoteBusy = false;
                Q_EMIT finished(m_record);
            });
        },
        Qt::DirectConnection);
}

StreamingClient::~StreamingClient()
{
    if (!m_remote)
        return;
    *m_alive = false;
    // Deleted in its own thread; at the latest as the threads end (after the last facade).
    m_remote->deleteLater();
}

void StreamingClient::start(const Endpoint& endpoint, const ChatRequest& request)
{
    if (m_remote) {
        m_remoteBusy = true;
        QMetaObject::invokeMethod(
            m_remote, [remote = m_remote, endpoint, request] { remote->start(endpoint, request); },
            Qt::QueuedConnection);
        return;
    }
    m_endpoint = endpoint;
    m_parser = SseParser();
    m_assembler = StreamAssembler();
    m_events.clear();
    m_errorBody.clear();
    m_isEventStream = false;
    m_record = RequestRecord();
    m_record.endpointLabel = endpoint.displayName();
    m_record.url = endpoint.url(QStringLiteral("/v1/chat/completions"));
    m_record.requestBody = buildChatBody(endpoint, request);

    const QString key = endpoint.apiKey();
    m_context = FailureContext();
    m_context.runtime = endpoint.runtime;
    m_context.requestHadTools = m_record.requestBody->contains("tools");
    m_context.model = endpoint.model;
    m_context.apiKeyEnv = endpoint.apiKeyEnv;
    m_context.apiKeySent = !key.isEmpty();
    m_context.hostPort = QStringLiteral("%1:%2").arg(m_record.url.host()).arg(m_record.url.port(80));
    m_context.path = m_record.url.path();
    m_eventBudget = eventBudget(m_record.requestBody);

    HttpConnection::Request http;
    http.method = "POST";
    http.url = m_record.url;
    http.timeouts = endpoint.timeouts;
    http.body = QByteArray::fromStdString(m_record.requestBody->dump());
    http.headers = {{"Content-Type", "application/json"}, {"Accept", "text/event-stream"}};
    if (!key.isEmpty())
        http.headers.append({"Authorization", "Bearer " + key.toUtf8()});
    m_connection->start(std::move(http));
}

void StreamingClient::cancel()
{
    if (m_remote) {
        if (!m_remoteBusy)
            return;
        StreamingClient* remote = m_remote;
        QMetaObject::invokeMethod(
            remote, [remote] { remote->cancel(); }, Qt::BlockingQueuedConnection);
        m_threads->drain(); // its last chunks and finished(), here and now as in the plain mode
        return;
    }
    m_connection->abort(makeFailure(FailureKind::Cancelled, QStringLiteral("Cancelled by the user"),
        QStringLiteral("Everything received before the cancel is kept.")));
}

void StreamingClient::onHeaders()
{
    const HttpResponseParser& http = m_connection->response();
    m_record.httpStatus = http.statusCode();
    m_record.contentType = QString::fromLatin1(http.header("content-type"));
    m_record.serverHeader = QString::fromLatin1(http.header("server"));
    m_isEventStream = http.statusCode() / 100 == 2 && m_record.contentType.contains(u"text/event-stream");
}

void StreamingClient::onBody(QByteArrayView body, qint64 stampNs)
{
    const int status = m_record.httpStatus;
    // Some proxies drop the content type; a body that starts like SSE is treated as SSE.
    if (!m_isEventStream && status / 100 == 2 && m_errorBody.isEmpty() && m_parser.bytesFed() == 0) {
        const QByteArrayView head = body.trimmed();
        m_isEventStream = head.startsWith("data:") || head.startsWith(':') || head.startsWith("event:");
    }
    if (!m_isEventStream) {
        // An error body or a non-streamed answer is written at once: it must arrive whole within
        // the idle timeout of its first byte, so a trickle cannot hold the run.
        if (m_errorBody.isEmpty())
            m_connection->noteActivity(stampNs);
        if (m_errorBody.size() + body.size() > MaxBufferedBody) {
            m_connection->abort(makeFailure(FailureKind::NotOpenAiCompatible,
                QStringLiteral("The server sent more than 4 MiB that is not a stream"),
                QStringLiteral("Check the endpoint URL.")));
            return;
        }
        m_errorBody.append(body);
        return;
    }
    m_events.clear();
    m_parser.feed(body, stampNs, m_events);
    if (!m_events.empty())
        m_connection->noteActivity(stampNs);
    m_connection->setKeepAliveCount(m_parser.commentCount());
    for (const SseEvent& event : m_events) {
        const StreamChunk& chunk = m_assembler.add(event);
        if (onChunk)
            onChunk(chunk, event.stampNs);
    }
    if (m_parser.failed()) {
        m_connection->abort(makeFailure(FailureKind::MalformedStream,
            QStringLiteral("The stream from %1 sent %2; no inference server does")
                .arg(m_context.hostPort, m_parser.error()),
            QStringLiteral("What arrived before it is kept; the request counts as failed. Check that the URL "
                           "points at an inference server, and look for a proxy that corrupts streams."),
            m_record.httpStatus));
        return;
    }
    const AssembledResponse& r = m_assembler.response();
    if (m_eventBudget > 0 && r.dataEvents > m_eventBudget && !r.sawDone) {
        m_connection->abort(makeFailure(FailureKind::MalformedStream,
            QStringLiteral("The stream from %1 went on past max_tokens: %2 events and no end")
                .arg(m_context.hostPort)
                .arg(r.dataEvents),
            QStringLiteral("A server stops at max_tokens; this one does not. What arrived is kept; the "
                           "request counts as failed. Check the server (or a proxy replaying streams)."),
            m_record.httpStatus));
    }
}

void StreamingClient::finishNonStreaming()
{
    const HttpResponseParser& http = m_connection->response();
    const int status = http.statusCode();
    if (status / 100 == 3) {
        m_record.failure = classifyRedirect(status, http.header("location"), m_context);
        return;
    }
    if (status / 100 != 2) {
        m_record.failure = classifyHttpError(status, m_errorBody, http.header("content-type"), m_context);
        return;
    }
    // 200 but not a stream: keep the answer's text, but it cannot be timed token by token.
    const auto json = nlohmann::json::parse(
        m_errorBody.constData(), m_errorBody.constData() + m_errorBody.size(), nullptr, false);
    const bool chatJson = json.is_object() && json.contains("choices");
    if (chatJson && json["choices"].is_array() && !json["choices"].empty()) {
        const auto& message = json["choices"][0].value("message", nlohmann::json::object());
        if (message.is_object() && message.contains("content") && message["content"].is_string())
            m_record.response.content = QString::fromStdString(message["content"].get<std::string>());
    }
    m_record.failure = chatJson
        ? makeFailure(FailureKind::NotStreaming,
            QStringLiteral("The server answered in one piece instead of streaming"),
            QStringLiteral("TTFT cannot be measured. A proxy may be buffering the response, or the server "
                           "ignored \"stream\": true."),
            status)
        : makeFailure(FailureKind::NotOpenAiCompatible,
            QStringLiteral("HTTP %1 with a body that is neither a stream nor a chat completion").arg(status),
            QStringLiteral("Check that the base URL points at an OpenAI-compatible server."), status);
    m_record.failure.serverMessage = QString::fromUtf8(m_errorBody.left(200));
}

void StreamingClient::onExchangeFinished()
{
    const Failure& transport = m_connection->failure();
    m_record.timing = m_connection->timing();
    if (m_record.httpStatus == 0 && m_connection->response().headersComplete())
        onHeaders();

    if (m_isEventStream) {
        m_events.clear();
        m_parser.finish(m_record.timing.endNs, m_events);
        for (const SseEvent& event : m_events) {
            const StreamChunk& chunk = m_assembler.add(event);
            if (onChunk)
                onChunk(chunk, event.stampNs);
        }
        m_record.keepAlivePings = m_parser.commentCount();
        m_record.response = m_assembler.takeResponse();
        const AssembledResponse& r = m_record.response;
        if (r.streamError)
            m_record.failure = classifyStreamError(*r.streamError, m_context); // the server's reason wins
        else if (transport.isFailure() && !(r.sawDone && transport.kind == FailureKind::Disconnected))
            m_record.failure = transport;
        else if (r.malformedEvents > 0) // ahead of a missing [DONE]: the corruption is the cause
            m_record.failure = classifyMalformedStream(r, m_record.httpStatus);
        else if (!r.sawDone && r.finishReason.isEmpty())
            m_record.failure = makeFailure(FailureKind::Disconnected,
                QStringLiteral("The stream ended without [DONE] or a finish_reason"),
                QStringLiteral("The partial response and its timings are kept; the "
                               "request counts as failed. Check the server's log."),
                m_record.httpStatus);
    } else if (transport.isFailure() && (m_errorBody.isEmpty() || m_record.httpStatus / 100 == 2)) {
        // A 2xx body cut short is not an answer to classify; an error body, even cut, still is.
        m_record.failure = transport;
    } else {
        finishNonStreaming();
    }
    if (m_record.failure.isFailure() && m_record.failure.httpStatus == 0)
        m_record.failure.httpStatus = m_record.httpStatus;

    m_record.metrics = computeMetrics(m_record.timing, m_record.response);
    const AssembledResponse& r = m_record.response;
    if (m_isEventStream && !r.sawDone && !m_record.failure.isFailure())
        m_record.metrics.notes << QStringLiteral("the stream ended without [DONE]");
    Q_EMIT finished(m_record);
}

RequestRecord runChatBlocking(const Endpoint& endpoint, const ChatRequest& request)
{
    StreamingClient client;
    QEventLoop loop;
    RequestRecord result;
    QObject::connect(&client, &StreamingClient::finished, &loop, [&](const RequestRecord& r) {
        result = r;
        loop.quit();
    });
    client.start(endpoint, request);
    if (client.busy())
        loop.exec();
    else
        result = client.record();
    return result;
}

} // namespace qs
