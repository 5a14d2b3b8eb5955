// SPDX-License-Identifier: MIT
#include "tests/support/HttpRequestReader.h"

#include <QList>
#include <algorithm>
#include <cstring>

namespace qs::emu::detail {

namespace {

constexpr qsizetype kMaxHeadBytes = 64 * 1024;
constexpr qint64 kMaxBodyBytes = 256LL * 1024 * 1024;
constexpr std::size_t kMaxHeaders = 200;

bool isTokenChar(char c)
{
    if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))
        return true;
    return c != '\0' && std::strchr("!#$%&'*+-.^_`|~", c) != nullptr;
}

bool isToken(QByteArrayView s)
{
    return !s.isEmpty() && std::all_of(s.begin(), s.end(), isTokenChar);
}

bool equalsNoCase(QByteArrayView a, QByteArrayView b)
{
    return a.compare(b, Qt::CaseInsensitive) == 0;
}

} // namespace

QByteArray HttpRequest::header(QByteArrayView name) const
{
    for (const auto& [key, value] : headers) {
        if (equalsNoCase(key, name))
            return value;
    }
    return {};
}

bool HttpRequest::hasHeader(QByteArrayView name) const
{
    return std::any_of(
        headers.begin(), headers.end(), [name](const auto& kv) { return equalsNoCase(kv.first, name); });
}

bool HttpRequest::keepAlive() const
{
    const QByteArray connection = header("Connection").toLower();
    if (connection.contains("close"))
        return false;
    return versionMinor >= 1 || connection.contains("keep-alive");
}

void HttpRequestReader::feed(QByteArrayView bytes, qint64 nowNs)
{
    if (m_failed)
        return;
    m_buffer.append(bytes);
    bool progress = true;
    while (progress && !m_failed) {
        QByteArray line;
        switch (m_phase) {
        case Phase::RequestLine:
            progress = nextLine(line);
            // Robustness (RFC 9112 §2.2): ignore empty lines before a request line.
            if (progress && !line.isEmpty() && parseRequestLine(line))
                m_phase = Phase::Headers;
            break;
        case Phase::Headers:
            progress = nextLine(line);
            if (!progress)
                break;
            if (line.isEmpty()) {
                if (startBody() && m_phase == Phase::RequestLine)
                    complete(nowNs);
            } else {
                parseHeaderLine(line);
            }
            break;
        case Phase::Body:
            progress = takeBodyBytes();
            if (m_remaining == 0) {
                m_phase = Phase::RequestLine;
                complete(nowNs);
            }
            break;
        case Phase::ChunkSize:
            progress = nextLine(line);
            if (progress)
                parseChunkSize(line);
            break;
        case Phase::ChunkData:
            progress = takeBodyBytes();
            if (m_remaining == 0)
                m_phase = Phase::ChunkDataEnd;
            break;
        case Phase::ChunkDataEnd:
            progress = nextLine(line);
            if (progress && !line.isEmpty())
                fail("chunk data not followed by CRLF");
            else if (progress)
                m_phase = Phase::ChunkSize;
            break;
        case Phase::Trailers:
            progress = nextLine(line);
            if (progress && line.isEmpty()) {
                m_phase = Phase::RequestLine;
                complete(nowNs);
            }
            break;
        }
    }
    // Drop consumed bytes so the buffer stays bounded by one unparsed piece.
    m_buffer.remove(0, m_pos);
    m_pos = 0;
}

HttpRequest HttpRequestReader::takeRequest()
{
    HttpRequest request = std::move(m_ready.front());
    m_ready.pop_front();
    return request;
}

bool HttpRequestReader::takeContinueRequest()
{
    return std::exchange(m_continuePending, false);
}

bool HttpRequestReader::nextLine(QByteArray& line)
{
    const qsizetype newline = m_buffer.indexOf('\n', m_pos);
    if (newline < 0) {
        if (m_phase != Phase::ChunkDataEnd && m_buffer.size() - m_pos > kMaxHeadBytes)
            fail("line too long");
        return false;
    }
    qsizetype end = newline;
    if (end > m_pos && m_buffer.at(end - 1) == '\r')
        --end; // CRLF, or a bare LF from a lenient client
    line = m_buffer.mid(m_pos, end - m_pos);
    const qsizetype consumed = newline + 1 - m_pos;
    m_pos = newline + 1;
    if (m_phase == Phase::RequestLine || m_phase == Phase::Headers || m_phase == Phase::Trailers) {
        m_headBytes += consumed;
        if (m_headBytes > kMaxHeadBytes)
            fail("request head too large");
    }
    return !m_failed;
}

bool HttpRequestReader::parseRequestLine(const QByteArray& line)
{
    const QList<QByteArray> parts = line.split(' ');
    if (parts.size() != 3 || !isToken(parts[0]) || parts[1].isEmpty()) {
        fail("malformed request line");
        return false;
    }
    if (!parts[1].startsWith('/') && parts[1] != "*") {
        fail("unsupported request target");
        return false;
    }
    if (parts[2] == "HTTP/1.1")
        m_current.versionMinor = 1;
    else if (parts[2] == "HTTP/1.0")
        m_current.versionMinor = 0;
    else {
        fail("unsupported HTTP version");
        return false;
    }
    m_current.method = parts[0];
    m_current.target = parts[1];
    const qsizetype query = m_current.target.indexOf('?');
    m_current.path = query < 0 ? m_current.target : m_current.target.left(query);
    return true;
}

bool HttpRequestReader::parseHeaderLine(const QByteArray& line)
{
    if (line.startsWith(' ') || line.startsWith('\t')) {
        fail("obsolete header line folding");
        return false;
    }
    const qsizetype colon = line.indexOf(':');
    if (colon <= 0 || !isToken(QByteArrayView(line).first(colon))) {
        fail("malformed header line");
        return false;
    }
    if (m_current.headers.size() >= kMaxHeaders) {
        fail("too many headers");
        return false;
    }
    m_current.headers.emplace_back(line.left(colon), line.mid(colon + 1).trimmed());
    return true;
}

bool HttpRequestReader::startBody()
{
    const QByteArray transferEncoding = m_current.header("Transfer-Encoding").trimmed().toLower();
    if (!transferEncoding.isEmpty()) {
        // Only chunked framing can be read without a length (RFC 9112 §6.3).
        if (!transferEncoding.endsWith("chunked")) {
            fail("unsupported transfer-encoding");
            return false;
        }
        m_phase = Phase::ChunkSize;
    } else {
        QByteArray length;
        for (const auto& [key, value] : m_current.headers) {
            if (!equalsNoCase(key, "Content-Length"))
                continue;
            if (!length.isEmpty() && length != value) {
                fail("conflicting Content-Length headers");
                return false;
            }
            length = value;
        }
        bool ok = true;
        const qint64 bytes = length.isEmpty() ? 0 : length.toLongLong(&ok);
        if (!ok || bytes < 0 || bytes > kMaxBodyBytes
            || !std::all_of(length.begin(), length.end(), [](char c) { return c >= '0' && c <= '9'; })) {
            fail("invalid Content-Length");
            return false;
        }
        m_remaining = bytes;
        m_phase = bytes > 0 ? Phase::Body : Phase::RequestLine;
    }
    if (m_phase != Phase::RequestLine && m_current.header("Expect").toLower() == "100-continue")
        m_continuePending = true;
    return true;
}

bool HttpRequestReader::parseChunkSize(const QByteArray& line)
{
    const qsizetype semicolon = line.indexOf(';'); // chunk extensions are ignored
    const QByteArray digits = (semicolon < 0 ? line : line.left(semicolon)).trimmed();
    bool ok = false;
    const qint64 size = digits.toLongLong(&ok, 16);
    if (!ok || size < 0 || digits.size() > 15 || m_current.body.size() + size > kMaxBodyBytes) {
        fail("invalid chunk size");
        return false;
    }
    m_remaining = size;
    m_phase = size == 0 ? Phase::Trailers : Phase::ChunkData;
    return true;
}

bool HttpRequestReader::takeBodyBytes()
{
    const qint64 available = m_buffer.size() - m_pos;
    const qint64 take = std::min(available, m_remaining);
    if (take <= 0)
        return false;
    m_current.body.append(QByteArrayView(m_buffer).sliced(m_pos, take));
    m_pos += take;
    m_remaining -= take;
    return true;
}

void HttpRequestReader::complete(qint64 nowNs)
{
    m_current.completedNs = nowNs;
    m_ready.push_back(std::move(m_current));
    m_current = HttpRequest {};
    m_headBytes = 0;
    m_remaining = 0;
    m_continuePending = false;
}

void HttpRequestReader::fail(const char* why)
{
    m_failed = true;
    m_failure = QByteArray(why);
}

} // namespace qs::emu::detail
