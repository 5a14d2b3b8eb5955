// SPDX-License-Identifier: MIT
#pragma once

// Incremental HTTP/1.x request parser for the emulator: bytes may arrive in any split, several
// requests may share one connection (keep-alive, pipelining). Internal to qs_emulator.

#include <QByteArray>
#include <QByteArrayView>
#include <deque>
#include <utility>
#include <vector>

namespace qs::emu::detail {

struct HttpRequest {
    QByteArray method;
    QByteArray target; ///< as sent, e.g. /v1/models?x=1
    QByteArray path; ///< target without the query
    int versionMinor = 1;
    std::vector<std::pair<QByteArray, QByteArray>> headers; ///< names as sent, values trimmed
    QByteArray body;
    qint64 completedNs = 0; ///< monotonic stamp of the read that completed the request

    /// First value of a header, case-insensitive name; empty when absent.
    QByteArray header(QByteArrayView name) const;
    bool hasHeader(QByteArrayView name) const;
    /// HTTP/1.1 keeps the connection unless `Connection: close`; HTTP/1.0 only with keep-alive.
    bool keepAlive() const;
};

class HttpRequestReader {
public:
    /// Appends bytes read at `nowNs` and parses as far as they allow.
    void feed(QByteArrayView bytes, qint64 nowNs);

    bool hasRequest() const { return !m_ready.empty(); }
    HttpRequest takeRequest();

    /// The byte stream is not HTTP; the connection must get a 400 and be closed.
    bool failed() const { return m_failed; }
    const QByteArray& failure() const { return m_failure; }

    /// True once for each request that sent `Expect: 100-continue` and still waits for its body.
    bool takeContinueRequest();

private:
    enum class Phase { RequestLine, Headers, Body, ChunkSize, ChunkData, ChunkDataEnd, Trailers };

    bool nextLine(QByteArray& line);
    bool parseRequestLine(const QByteArray& line);
    bool parseHeaderLine(const QByteArray& line);
    bool startBody();
    bool parseChunkSize(const QByteArray& line);
    bool takeBodyBytes();
    void complete(qint64 nowNs);
    void fail(const char* why);

    QByteArray m_buffer;
    qsizetype m_pos = 0;
    Phase m_phase = Phase::RequestLine;
    HttpRequest m_current;
    qint64 m_remaining = 0; ///< body or chunk bytes still expected
    qsizetype m_headBytes = 0;
    std::deque<HttpRequest> m_ready;
    bool m_failed = false;
    bool m_continuePending = false;
    QByteArray m_failure;
};

} // namespace qs::emu::detail
