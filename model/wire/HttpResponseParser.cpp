// SPDX-License-Identifier: MIT
#include "model/wire/HttpResponseParser.h"

#include <cstring>
#include <utility>

namespace qs {

namespace {
// Limits that keep a hostile or broken server from growing the client's memory without end.
// Inference servers send a dozen headers of well under 1 KiB and chunks of at most a few KiB.
constexpr qsizetype MaxHeaderBytes = 256 * 1024; ///< status line, headers and trailers together
constexpr int MaxHeaderCount = 256;
constexpr qsizetype MaxChunkSizeLine = 4096; ///< size, extensions and CRLF
constexpr qint64 MaxChunkSize = qint64(1) << 30; ///< 1 GiB: anything larger is broken framing

// A chunk size: 1 to 16 hex digits (no sign, no 0x), at most MaxChunkSize. -1 when not one.
qint64 parseChunkSize(QByteArrayView hex)
{
    if (hex.isEmpty() || hex.size() > 16)
        return -1;
    quint64 value = 0;
    for (const char c : hex) {
        int digit = -1;
        if (c >= '0' && c <= '9')
            digit = c - '0';
        else if (c >= 'a' && c <= 'f')
            digit = c - 'a' + 10;
        else if (c >= 'A' && c <= 'F')
            digit = c - 'A' + 10;
        if (digit < 0)
            return -1;
        value = value << 4 | quint64(digit); // 16 digits fit in 64 bits: no overflow
    }
    return value > quint64(MaxChunkSize) ? -2 : qint64(value);
}

QByteArrayView trimmed(QByteArrayView v)
{
    while (!v.isEmpty() && (v.front() == ' ' || v.front() == '\t'))
        v = v.sliced(1);
    while (!v.isEmpty() && (v.back() == ' ' || v.back() == '\t' || v.back() == '\r'))
        v.chop(1);
    return v;
}

bool equalsIgnoreCase(QByteArrayView a, QByteArrayView b)
{
    return a.size() == b.size() && qstrnicmp(a.data(), a.size(), b.data(), b.size()) == 0;
}

// Takes one line ending in LF (CR before it tolerated) off the front of `buffer`.
bool takeLine(QByteArray& buffer, QByteArray& line)
{
    const qsizetype lf = buffer.indexOf('\n');
    if (lf < 0)
        return false;
    qsizetype end = lf;
    if (end > 0 && buffer[end - 1] == '\r')
        --end;
    line = buffer.left(end);
    buffer.remove(0, lf + 1);
    return true;
}

// The same on a view: the line is a view into `in`, which moves past it. No copy.
bool takeLine(QByteArrayView& in, QByteArrayView& line)
{
    const qsizetype lf = in.indexOf('\n');
    if (lf < 0)
        return false;
    qsizetype end = lf;
    if (end > 0 && in[end - 1] == '\r')
        --end;
    line = in.first(end);
    in = in.sliced(lf + 1);
    return true;
}
} // namespace

QByteArray HttpResponseParser::header(QByteArrayView name) const
{
    for (const auto& [key, value] : m_headers)
        if (equalsIgnoreCase(key, name))
            return value;
    return {};
}

bool HttpResponseParser::connectionWillClose() const
{
    const QByteArray connection = header("connection").toLower();
    if (connection.contains("close"))
        return true;
    if (m_version == "HTTP/1.0" && !connection.contains("keep-alive"))
        return true;
    return m_state == State::Body && !m_chunked && m_remaining < 0;
}

void HttpResponseParser::fail(QString reason)
{
    m_state = State::Failed;
    m_error = std::move(reason);
}

bool HttpResponseParser::parseStatusLine(QByteArrayView line)
{
    // "HTTP/1.1 200 OK"; the reason phrase may be empty.
    const qsizetype sp1 = line.indexOf(' ');
    if (!line.startsWith("HTTP/") || sp1 < 0) {
        fail(QStringLiteral("the server did not answer with HTTP (first bytes: \"%1\")")
                 .arg(QString::fromUtf8(line.first(qMin<qsizetype>(40, line.size())).toByteArray())));
        return false;
    }
    m_version = line.first(sp1).toByteArray();
    QByteArrayView rest = line.sliced(sp1 + 1);
    const qsizetype sp2 = rest.indexOf(' ');
    const QByteArrayView code = sp2 < 0 ? rest : rest.first(sp2);
    bool ok = false;
    m_status = code.toByteArray().toInt(&ok);
    if (!ok || code.size() != 3) {
        fail(QStringLiteral("malformed HTTP status line: \"%1\"").arg(QString::fromUtf8(line.toByteArray())));
        return false;
    }
    m_reason = sp2 < 0 ? QByteArray() : rest.sliced(sp2 + 1).toByteArray();
    return true;
}

bool HttpResponseParser::parseHeaderLine(QByteArrayView line)
{
    if (m_headers.size() >= MaxHeaderCount) {
        fail(QStringLiteral("the HTTP response has more than %1 header fields").arg(MaxHeaderCount));
        return false;
    }
    const qsizetype colon = line.indexOf(':');
    if (colon <= 0) {
        fail(QStringLiteral("malformed HTTP header line: \"%1\"").arg(QString::fromUtf8(line.toByteArray())));
        return false;
    }
    m_headers.append(
        qMakePair(trimmed(line.first(colon)).toByteArray(), trimmed(line.sliced(colon + 1)).toByteArray()));
    return true;
}

void HttpResponseParser::startBody()
{
    // 1xx (other than 101) are interim responses: drop them and wait for the real one.
    if (m_status >= 100 && m_status < 200 && m_status != 101) {
        m_headers.clear();
        m_state = State::StatusLine;
        return;
    }
    m_state = State::Body;
    if (m_noBody || m_status == 204 || m_status == 304) {
        m_state = State::Complete;
        return;
    }
    if (header("transfer-encoding").toLower().contains("chunked")) {
        m_chunked = true;
        m_chunkState = ChunkState::Size;
        return;
    }
    const QByteArray length = header("content-length");
    if (!length.isEmpty()) {
        bool ok = false;
        m_remaining = length.trimmed().toLongLong(&ok);
        if (!ok || m_remaining < 0) {
            fail(QStringLiteral("invalid Content-Length \"%1\"").arg(QString::fromLatin1(length)));
            return;
        }
        if (m_remaining == 0)
            m_state = State::Complete;
        return;
    }
    m_remaining = -1; // read until the server closes
}

void HttpResponseParser::feed(QByteArrayView bytes, QByteArray& body)
{
    if (m_state == State::Failed)
        return;
    if (m_state == State::Body && m_buffer.isEmpty()) {
        // The common case, a stream in progress: de-frame straight from the bytes read, and keep
        // only an unfinished piece (a cut size line, say) for the next read.
        const QByteArrayView rest = feedBody(bytes, body);
        if (!rest.isEmpty())
            m_buffer = rest.toByteArray();
        return;
    }
    m_buffer.append(bytes);
    QByteArray line;
    while (m_state == State::StatusLine || m_state == State::Headers) {
        if (!takeLine(m_buffer, line)) {
            if (m_headerBytes + m_buffer.size() > MaxHeaderBytes)
                fail(QStringLiteral("the HTTP response headers exceed 256 KiB"));
            return;
        }
        // Checked per line too: headers that arrive as whole lines must not escape the limit.
        m_headerBytes += line.size() + 2;
        if (m_headerBytes > MaxHeaderBytes) {
            fail(QStringLiteral("the HTTP response headers exceed 256 KiB"));
            return;
        }
        if (m_state == State::StatusLine) {
            if (line.isEmpty())
                continue; // tolerate stray blank lines between responses
            if (!parseStatusLine(line))
                return;
            m_state = State::Headers;
        } else if (line.isEmpty()) {
            startBody();
        } else if (!parseHeaderLine(line)) {
            return;
        }
    }
    if (m_state == State::Body) {
        const QByteArray buffered = std::exchange(m_buffer, QByteArray());
        m_buffer = feedBody(buffered, body).toByteArray(); // after Complete: the next response's (leftover())
    }
}

QByteArrayView HttpResponseParser::feedBody(QByteArrayView in, QByteArray& body)
{
    if (!m_chunked) {
        if (m_remaining < 0) { // close-delimited: everything is body
            body.append(in);
            return {};
        }
        const qsizetype n = qMin<qsizetype>(m_remaining, in.size());
        body.append(in.first(n));
        m_remaining -= n;
        if (m_remaining == 0)
            m_state = State::Complete;
        return in.sliced(n);
    }
    QByteArrayView line;
    for (;;) {
        switch (m_chunkState) {
        case ChunkState::Size: {
            // Measured before the line is complete, so that any split of the input fails alike.
            const qsizetype lf = in.indexOf('\n');
            if ((lf < 0 ? in.size() : lf) > MaxChunkSizeLine) {
                fail(QStringLiteral("a chunk size line longer than 4 KiB in a chunked response"));
                return in;
            }
            if (!takeLine(in, line))
                return in;
            const qsizetype semicolon = line.indexOf(';'); // chunk extensions are ignored
            const QByteArrayView hex = (semicolon < 0 ? line : line.first(semicolon)).trimmed();
            m_remaining = parseChunkSize(hex);
            if (m_remaining == -2) {
                fail(QStringLiteral("an absurd chunk size 0x%1 (over 1 GiB) in a chunked response")
                         .arg(QString::fromLatin1(hex.first(qMin<qsizetype>(24, hex.size())))));
                return in;
            }
            if (m_remaining < 0) {
                fail(QStringLiteral("malformed chunk size \"%1\" in a chunked response")
                         .arg(QString::fromLatin1(line.first(qMin<qsizetype>(24, line.size())))));
                return in;
            }
            m_chunkState = m_remaining == 0 ? ChunkState::Trailers : ChunkState::Data;
            break;
        }
        case ChunkState::Data: {
            if (in.isEmpty())
                return in;
            const qsizetype n = qMin<qsizetype>(m_remaining, in.size());
            body.append(in.first(n));
            in = in.sliced(n);
            m_remaining -= n;
            if (m_remaining > 0)
                return in;
            m_chunkState = ChunkState::DataEnd;
            break;
        }
        case ChunkState::DataEnd:
            if (!takeLine(in, line)) {
                if (in.size() > 2) {
                    fail(QStringLiteral("chunk data was not followed by CRLF"));
                    return in;
                }
                return in;
            }
            if (!line.isEmpty()) {
                fail(QStringLiteral("chunk data was not followed by CRLF"));
                return in;
            }
            m_chunkState = ChunkState::Size;
            break;
        case ChunkState::Trailers:
            if (!takeLine(in, line)) {
                if (m_headerBytes + in.size() > MaxHeaderBytes) {
                    fail(QStringLiteral("the HTTP response trailers exceed 256 KiB"));
                    return in;
                }
                return in;
            }
            m_headerBytes += line.size() + 2; // trailer fields are ignored, but bounded
            if (m_headerBytes > MaxHeaderBytes) {
                fail(QStringLiteral("the HTTP response trailers exceed 256 KiB"));
                return in;
            }
            if (line.isEmpty()) {
                m_state = State::Complete;
                return in;
            }
            break;
        }
    }
}

void HttpResponseParser::connectionClosed()
{
    switch (m_state) {
    case State::Complete:
    case State::Failed:
        return;
    case State::Body:
        if (!m_chunked && m_remaining < 0) {
            m_state = State::Complete;
            return;
        }
        fail(m_chunked
                ? QStringLiteral("the server closed the connection in the middle of the response")
                : QStringLiteral("the server closed the connection %1 bytes before the end of the body")
                      .arg(m_remaining));
        return;
    case State::StatusLine:
        fail(m_headerBytes == 0 && m_buffer.isEmpty()
                ? QStringLiteral("the server closed the connection without answering")
                : QStringLiteral("the server closed the connection in the middle of the status line"));
        return;
    case State::Headers:
        fail(QStringLiteral("the server closed the connection in the middle of the response headers"));
        return;
    }
}

} // namespace qs
