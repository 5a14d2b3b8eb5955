// SPDX-License-Identifier: MIT
#pragma once

#include <QByteArray>
#include <QByteArrayView>
#include <QList>
#include <QPair>
#include <QString>

namespace qs {

/// Incremental HTTP/1.1 response parser: status line, headers, then a body framed by
/// `Transfer-Encoding: chunked`, `Content-Length`, or the connection closing. Pure and correct
/// for any split of the input, so the caller can stamp bytes the moment they are read.
///
/// Bounded against hostile servers: status line, headers and trailers together at most 256 KiB
/// and 256 fields, chunk size lines at most 4 KiB, chunk sizes at most 1 GiB (parsed without
/// overflow); beyond any of these the parser fails with a reason instead of buffering on.
class HttpResponseParser {
public:
    enum class State { StatusLine, Headers, Body, Complete, Failed };

    /// Feeds bytes; appends de-framed body bytes to `body`. Bytes after a complete response are
    /// kept (see leftover()) for a following pipelined response, never treated as body.
    void feed(QByteArrayView bytes, QByteArray& body);
    /// The peer closed the connection. Completes a close-delimited body; anything else that was
    /// unfinished becomes Failed with a reason.
    void connectionClosed();
    /// Call before sending a HEAD request: its response has headers but no body.
    void expectNoBody() { m_noBody = true; }

    State state() const { return m_state; }
    bool headersComplete() const { return m_state == State::Body || m_state == State::Complete; }
    bool complete() const { return m_state == State::Complete; }
    bool failed() const { return m_state == State::Failed; }
    QString error() const { return m_error; }

    int statusCode() const { return m_status; }
    QByteArray reasonPhrase() const { return m_reason; }
    QByteArray httpVersion() const { return m_version; }
    const QList<QPair<QByteArray, QByteArray>>& headers() const { return m_headers; }
    /// Value of the first header named `name` (case-insensitive), empty if absent.
    QByteArray header(QByteArrayView name) const;
    bool chunked() const { return m_chunked; }
    /// True when the server will close the connection after this response.
    bool connectionWillClose() const;
    QByteArray leftover() const { return m_buffer; }
    /// Bytes a Content-Length body still lacks; -1 when the body is not Content-Length framed
    /// or not in progress.
    qint64 bodyBytesMissing() const
    {
        return m_state == State::Body && !m_chunked && m_remaining >= 0 ? m_remaining : -1;
    }

private:
    void fail(QString reason);
    bool parseStatusLine(QByteArrayView line);
    bool parseHeaderLine(QByteArrayView line);
    void startBody();
    /// De-frames body bytes from `in` into `body`; returns what it did not use: an unfinished
    /// size line or CRLF, the bytes after a complete response, or from where it failed.
    QByteArrayView feedBody(QByteArrayView in, QByteArray& body);

    enum class ChunkState { Size, Data, DataEnd, Trailers };
    State m_state = State::StatusLine;
    ChunkState m_chunkState = ChunkState::Size;
    QByteArray m_buffer;
    QByteArray m_version;
    QByteArray m_reason;
    QList<QPair<QByteArray, QByteArray>> m_headers;
    QString m_error;
    int m_status = 0;
    bool m_chunked = false;
    bool m_noBody = false;
    qint64 m_remaining = -1; // bytes left in the current chunk or Content-Length body; -1 = until close
    qsizetype m_headerBytes = 0;
};

} // namespace qs
