// SPDX-License-Identifier: MIT
#pragma once

// A deliberately plain HTTP/1.1 client for the emulator tests: a blocking QTcpSocket, a
// hand-written response parser that keeps every HTTP chunk separately with its arrival stamp.
// It shares no code with the project's own HTTP client.

#include "tests/support/Emulator.h"

#include <QByteArray>
#include <QJsonObject>
#include <QList>
#include <QTcpSocket>
#include <utility>
#include <vector>

namespace qs::emu::test {

struct RawResponse {
    int status = 0;
    std::vector<std::pair<QByteArray, QByteArray>> headers; ///< in wire order, names as sent
    QByteArray headBytes; ///< status line and headers as received
    QByteArray body; ///< de-chunked
    std::vector<QByteArray> chunks; ///< each HTTP chunk's payload (chunked responses)
    std::vector<qint64> chunkNs; ///< monotonic stamp of the read that completed each chunk
    qint64 headNs = 0; ///< stamp of the read that completed the head
    bool chunked = false;
    bool complete = false; ///< terminating chunk / Content-Length reached
    bool closed = false; ///< the peer closed the connection

    QByteArray header(const QByteArray& name) const; ///< case-insensitive
    QJsonObject json() const;
    /// `data:` payloads of the SSE body, in order (comment lines skipped).
    QList<QByteArray> dataPayloads() const;
    /// Events of the SSE body (text between blank lines), including `:` comments.
    QList<QByteArray> events() const;
};

class TestClient {
public:
    explicit TestClient(quint16 port);
    bool isConnected() const { return m_socket.state() == QAbstractSocket::ConnectedState; }

    /// Writes raw bytes; returns the monotonic stamp right after the write was flushed.
    qint64 sendRaw(const QByteArray& bytes);
    qint64 get(const QByteArray& path, const QList<QByteArray>& extraHeaders = {});
    qint64 postJson(
        const QByteArray& path, const QJsonObject& body, const QList<QByteArray>& extraHeaders = {});

    /// Reads one response (skipping 100 Continue); stops early at close or timeout.
    RawResponse read(int timeoutMs = 10000);
    /// True when the server closes the connection within the timeout.
    bool waitForClose(int timeoutMs = 3000);
    void close() { m_socket.abort(); }

private:
    bool fill(int timeoutMs); // reads more bytes into m_buffer
    bool readHead(RawResponse& response, int timeoutMs);
    void readChunked(RawResponse& response, int timeoutMs);

    QTcpSocket m_socket;
    QByteArray m_buffer;
    qint64 m_lastReadNs = 0;
    bool m_closed = false;
};

/// POST /v1/chat/completions on a fresh connection and read the answer.
RawResponse postChat(EmulatorThread& emu, const QJsonObject& body, const QList<QByteArray>& headers = {});

/// `body` with one tool (get_weather, an object schema).
QJsonObject withTools(QJsonObject body);

/// A minimal chat request body.
QJsonObject chatBody(bool stream, const QString& userText = QStringLiteral("Say hello to the world"));

/// Replaces ids and timestamps so a chunk can be compared with the doc's samples.
QByteArray normalized(QByteArray payload);

/// A config for `dialect` with a short, fast default script (3 tokens, 20 ms TTFT, 200 tok/s).
ServerConfig baseConfig(Dialect dialect, Era era = Era::Current);

} // namespace qs::emu::test
