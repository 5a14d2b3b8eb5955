// SPDX-License-Identifier: MIT
#include "model/wire/StreamingClient.h"

#include "model/core/Clock.h"

#include <QEventLoop>

namespace qs {

namespace {
// Error bodies and non-streamed answers are small; refuse to buffer a runaway one.
constexpr qsizetype MaxBufferedBody = 4 * 1024 * 1024;
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

void StreamingClient::start(const Endpoint& endpoint, const ChatRequest& request)
{
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
    m_context.requestHadTools = m_record.requestBody.contains("tools");
    m_context.model = endpoint.model;
    m_context.apiKeyEnv = endpoint.apiKeyEnv;
    m_context.apiKeySent = !key.isEmpty();
    m_context.hostPort = QStringLiteral("%1:%2").arg(m_record.url.host()).arg(m_record.url.port(80));
    m_context.path = m_record.url.path();

    HttpConnection::Request http;
    http.method = "POST";
    http.url = m_record.url;
    http.timeouts = endpoint.timeouts;
    http.body = QByteArray::fromStdString(m_record.requestBody.dump());
    http.headers = {{"Content-Type", "application/json"}, {"Accept", "text/event-stream"}};
    if (!key.isEmpty())
        http.headers.append({"Authorization", "Bearer " + key.toUtf8()});
    m_connection->start(std::move(http));
}

void StreamingClient::cancel()
{
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
        m_connection->noteActivity(stampNs); // an error or JSON body: every byte is progress
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
}

void StreamingClient::finishNonStreaming()
{
    const HttpResponseParser& http = m_connection->response();
    const int status = http.statusCode();
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
    } else if (transport.isFailure() && m_errorBody.isEmpty()) {
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
