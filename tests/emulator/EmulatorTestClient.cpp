// SPDX-License-Identifier: MIT
#include "tests/emulator/EmulatorTestClient.h"

#include "model/core/Clock.h"

#include <QDeadlineTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QRegularExpression>

namespace qs::emu::test {

QByteArray RawResponse::header(const QByteArray& name) const
{
    for (const auto& [key, value] : headers) {
        if (key.compare(name, Qt::CaseInsensitive) == 0)
            return value;
    }
    return {};
}

QJsonObject RawResponse::json() const
{
    return QJsonDocument::fromJson(body).object();
}

QList<QByteArray> RawResponse::events() const
{
    QList<QByteArray> out;
    qsizetype start = 0;
    while (start < body.size()) {
        const qsizetype end = body.indexOf("\n\n", start);
        if (end < 0) {
            out << body.mid(start);
            break;
        }
        out << body.mid(start, end - start);
        start = end + 2;
    }
    return out;
}

QList<QByteArray> RawResponse::dataPayloads() const
{
    QList<QByteArray> out;
    for (const QByteArray& event : events()) {
        if (event.startsWith("data: "))
            out << event.mid(6);
    }
    return out;
}

TestClient::TestClient(quint16 port)
{
    m_socket.connectToHost(QStringLiteral("127.0.0.1"), port);
    m_socket.waitForConnected(5000);
    m_socket.setSocketOption(QAbstractSocket::LowDelayOption, 1);
}

qint64 TestClient::sendRaw(const QByteArray& bytes)
{
    m_socket.write(bytes);
    while (m_socket.bytesToWrite() > 0) {
        if (!m_socket.waitForBytesWritten(5000))
            break;
    }
    return qs::monotonicNs();
}

qint64 TestClient::get(const QByteArray& path, const QList<QByteArray>& extraHeaders)
{
    QByteArray request
        = QByteArrayLiteral("GET ") + path + QByteArrayLiteral(" HTTP/1.1\r\nHost: 127.0.0.1\r\n");
    for (const QByteArray& header : extraHeaders)
        request += header + QByteArrayLiteral("\r\n");
    return sendRaw(request + QByteArrayLiteral("\r\n"));
}

qint64 TestClient::postJson(
    const QByteArray& path, const QJsonObject& body, const QList<QByteArray>& extraHeaders)
{
    const QByteArray payload = QJsonDocument(body).toJson(QJsonDocument::Compact);
    QByteArray request = QByteArrayLiteral("POST ") + path
        + QByteArrayLiteral(" HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                            "Content-Length: ")
        + QByteArray::number(payload.size()) + QByteArrayLiteral("\r\n");
    for (const QByteArray& header : extraHeaders)
        request += header + QByteArrayLiteral("\r\n");
    return sendRaw(request + QByteArrayLiteral("\r\n") + payload);
}

bool TestClient::fill(int timeoutMs)
{
    if (m_closed)
        return false;
    if (m_socket.bytesAvailable() == 0 && !m_socket.waitForReadyRead(timeoutMs)) {
        if (m_socket.state() != QAbstractSocket::ConnectedState)
            m_closed = true;
        return false;
    }
    m_buffer += m_socket.readAll();
    m_lastReadNs = qs::monotonicNs();
    return true;
}

bool TestClient::readHead(RawResponse& response, int timeoutMs)
{
    QDeadlineTimer deadline(timeoutMs);
    for (;;) {
        const qsizetype end = m_buffer.indexOf("\r\n\r\n");
        if (end >= 0) {
            response.headBytes = m_buffer.left(end + 4);
            m_buffer.remove(0, end + 4);
            response.headNs = m_lastReadNs;
            const QList<QByteArray> lines = response.headBytes.trimmed().split('\n');
            const QList<QByteArray> statusParts = lines.value(0).trimmed().split(' ');
            response.status = statusParts.value(1).toInt();
            response.headers.clear();
            for (qsizetype i = 1; i < lines.size(); ++i) {
                const QByteArray line = lines.at(i).trimmed();
                const qsizetype colon = line.indexOf(':');
                response.headers.emplace_back(line.left(colon), line.mid(colon + 1).trimmed());
            }
            if (response.status != 100)
                return true;
            continue; // 100 Continue: the real response follows
        }
        if (!fill(int(deadline.remainingTime())))
            return false;
    }
}

void TestClient::readChunked(RawResponse& response, int timeoutMs)
{
    QDeadlineTimer deadline(timeoutMs);
    for (;;) {
        const qsizetype lineEnd = m_buffer.indexOf("\r\n");
        if (lineEnd >= 0) {
            bool ok = false;
            const qint64 size = m_buffer.left(lineEnd).toLongLong(&ok, 16);
            if (ok && m_buffer.size() >= lineEnd + 2 + size + 2) {
                if (size == 0) {
                    m_buffer.remove(0, lineEnd + 4);
                    response.complete = true;
                    return;
                }
                const QByteArray data = m_buffer.mid(lineEnd + 2, size);
                m_buffer.remove(0, lineEnd + 2 + size + 2);
                response.chunks.push_back(data);
                response.chunkNs.push_back(m_lastReadNs);
                response.body += data;
                continue;
            }
        }
        if (!fill(int(deadline.remainingTime()))) {
            response.closed = m_closed;
            return;
        }
    }
}

RawResponse TestClient::read(int timeoutMs)
{
    RawResponse response;
    if (!readHead(response, timeoutMs)) {
        response.closed = m_closed;
        return response;
    }
    response.chunked = response.header("Transfer-Encoding").toLower() == "chunked";
    if (response.chunked) {
        readChunked(response, timeoutMs);
        return response;
    }
    const qint64 length = response.header("Content-Length").toLongLong();
    QDeadlineTimer deadline(timeoutMs);
    while (m_buffer.size() < length && fill(int(deadline.remainingTime()))) { }
    response.body = m_buffer.left(length);
    m_buffer.remove(0, response.body.size());
    response.complete = response.body.size() == length;
    response.closed = m_closed;
    return response;
}

bool TestClient::waitForClose(int timeoutMs)
{
    QDeadlineTimer deadline(timeoutMs);
    while (!m_closed && !deadline.hasExpired()) {
        if (m_socket.state() != QAbstractSocket::ConnectedState)
            return true;
        fill(int(std::min<qint64>(deadline.remainingTime(), 100)));
    }
    return m_closed || m_socket.state() != QAbstractSocket::ConnectedState;
}

RawResponse postChat(EmulatorThread& emu, const QJsonObject& body, const QList<QByteArray>& headers)
{
    TestClient client(emu.server()->port());
    client.postJson("/v1/chat/completions", body, headers);
    return client.read();
}

QJsonObject withTools(QJsonObject body)
{
    const QJsonObject function {{QStringLiteral("name"), QStringLiteral("get_weather")},
        {QStringLiteral("parameters"), QJsonObject {{QStringLiteral("type"), QStringLiteral("object")}}}};
    body.insert(QStringLiteral("tools"),
        QJsonArray {QJsonObject {
            {QStringLiteral("type"), QStringLiteral("function")}, {QStringLiteral("function"), function}}});
    return body;
}

QJsonObject chatBody(bool stream, const QString& userText)
{
    QJsonObject message {
        {QStringLiteral("role"), QStringLiteral("user")}, {QStringLiteral("content"), userText}};
    return QJsonObject {
        {QStringLiteral("messages"), QJsonArray {message}}, {QStringLiteral("stream"), stream}};
}

QByteArray normalized(QByteArray payload)
{
    static const QRegularExpression created(QStringLiteral("\"created\":\\d+"));
    static const QRegularExpression vllmToolId(QStringLiteral("\"id\":\"chatcmpl-tool-[0-9a-f]+\""));
    static const QRegularExpression chatId(QStringLiteral("\"id\":\"chatcmpl-[0-9A-Za-z]+\""));
    static const QRegularExpression sglangToolId(QStringLiteral("\"id\":\"call_[0-9a-f]{24}\""));
    static const QRegularExpression bareId(QStringLiteral("\"id\":\"[0-9A-Za-z]{32}\""));
    QString text = QString::fromUtf8(payload);
    text.replace(created, QStringLiteral("\"created\":T"));
    text.replace(vllmToolId, QStringLiteral("\"id\":\"TOOL\""));
    text.replace(chatId, QStringLiteral("\"id\":\"ID\""));
    text.replace(sglangToolId, QStringLiteral("\"id\":\"TOOL\""));
    text.replace(bareId, QStringLiteral("\"id\":\"ID\"")); // SGLang request ids, llama tool ids
    return text.toUtf8();
}

ServerConfig baseConfig(Dialect dialect, Era era)
{
    ServerConfig config;
    config.dialect = dialect;
    config.era = era;
    config.script = simpleScript(3, 20, 200);
    return config;
}

} // namespace qs::emu::test
