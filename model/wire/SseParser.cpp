// SPDX-License-Identifier: MIT
#include "model/wire/SseParser.h"

#include <cstring>
#include <utility>

namespace qs {

namespace {

constexpr char kBom[] = "\xEF\xBB\xBF";
constexpr qsizetype kBomSize = 3;

// Finds the first '\n' or '\r' in [from, end). Each character has its own memchr cursor that
// is only re-run once the scan has passed it, so a buffer without any CR (the normal case) costs
// one memchr for CR in total instead of one per line.
class LineEndScanner {
public:
    LineEndScanner(const char* begin, const char* end)
        : m_end(end)
        , m_nextLf(find(begin, '\n'))
        , m_nextCr(find(begin, '\r'))
    {
    }

    const char* next(const char* from)
    {
        if (m_nextLf < from)
            m_nextLf = find(from, '\n');
        if (m_nextCr < from)
            m_nextCr = find(from, '\r');
        return m_nextLf < m_nextCr ? m_nextLf : m_nextCr;
    }

private:
    const char* find(const char* from, char c) const
    {
        if (from >= m_end)
            return m_end;
        const void* hit = std::memchr(from, c, size_t(m_end - from));
        return hit ? static_cast<const char*>(hit) : m_end;
    }

    const char* m_end;
    const char* m_nextLf;
    const char* m_nextCr;
};

} // namespace

bool SseParser::fitsOrFail(qsizetype size, const char* what)
{
    if (size <= MaxEventBytes)
        return true;
    m_error = QStringLiteral("%1 longer than %2 MiB").arg(QLatin1String(what)).arg(MaxEventBytes >> 20);
    m_line.clear();
    m_line.squeeze();
    m_data.clear();
    m_data.squeeze();
    m_hasData = false;
    return false;
}

void SseParser::feed(QByteArrayView bytes, qint64 stampNs, std::vector<SseEvent>& out)
{
    m_bytes += bytes.size();
    if (bytes.isEmpty() || failed())
        return;

    if (m_atStreamStart) {
        // The BOM may itself be split across feeds: hold its prefix in m_line until three bytes
        // decide. On a mismatch the held bytes are ordinary line content.
        while (!bytes.isEmpty() && m_line.size() < kBomSize) {
            if (bytes.front() != kBom[m_line.size()]) {
                m_atStreamStart = false;
                break;
            }
            m_line.append(bytes.front());
            bytes = bytes.sliced(1);
        }
        if (m_atStreamStart) {
            if (m_line.size() < kBomSize)
                return;
            m_line.clear();
            m_atStreamStart = false;
        }
        if (bytes.isEmpty())
            return;
    }

    const char* p = bytes.data();
    const char* const end = p + bytes.size();

    // A CR that ended the previous feed already terminated its line; a LF right after it
    // belongs to the same line end.
    if (m_lastWasCR) {
        m_lastWasCR = false;
        if (*p == '\n')
            ++p;
    }

    LineEndScanner scanner(p, end);
    while (p < end) {
        const char* eol = scanner.next(p);
        if (eol == end) {
            if (fitsOrFail(m_line.size() + (end - p), "a stream line"))
                m_line.append(p, end - p); // unterminated: wait for the rest
            break;
        }
        if (!fitsOrFail(m_line.size() + (eol - p), "a stream line"))
            return;
        // One memcpy per line into a buffer that keeps its capacity: no allocation per line.
        m_line.append(p, eol - p);
        processLine(stampNs, out);
        if (failed())
            return;
        p = eol + 1;
        if (*eol == '\r') {
            if (p == end)
                m_lastWasCR = true;
            else if (*p == '\n')
                ++p;
        }
    }
}

void SseParser::finish(qint64 stampNs, std::vector<SseEvent>& out)
{
    if (failed()) {
        m_line.clear();
        m_data.clear();
        m_hasData = false;
    }
    // A BOM prefix still held at stream start is not a line (it would be a field name of
    // invalid UTF-8); drop it with the rest.
    if (!m_line.isEmpty() && !m_atStreamStart)
        processLine(stampNs, out);
    if (m_hasData)
        dispatch(stampNs, out, false);

    // Reset the parsing state; the counters stay readable for the caller's report.
    m_line.clear();
    m_data.clear();
    m_event.clear();
    m_id.clear();
    m_hasData = false;
    m_lastWasCR = false;
    m_atStreamStart = true;
}

void SseParser::processLine(qint64 stampNs, std::vector<SseEvent>& out)
{
    const QByteArrayView line(m_line);
    if (line.isEmpty()) {
        dispatch(stampNs, out, true);
    } else if (line.front() == ':') {
        ++m_comments;
        m_lastCommentNs = stampNs;
    } else {
        QByteArrayView field = line;
        QByteArrayView value;
        if (const qsizetype colon = line.indexOf(':'); colon >= 0) {
            field = line.first(colon);
            value = line.sliced(colon + 1);
            if (!value.isEmpty() && value.front() == ' ')
                value = value.sliced(1);
        }
        if (field == "data") {
            if (!fitsOrFail(m_data.size() + value.size() + 1, "the data of one stream event"))
                return;
            if (m_hasData)
                m_data.append('\n');
            m_data.append(value);
            m_hasData = true;
        } else if (field == "event") {
            m_event = value.toByteArray();
        } else if (field == "id") {
            if (!value.contains('\0')) // WHATWG: an id containing NUL is ignored
                m_id = value.toByteArray();
        }
        // `retry:` and unknown fields are ignored.
    }
    m_line.resize(0); // resize, not clear(): clear() would free the buffer we reuse per line
}

void SseParser::dispatch(qint64 stampNs, std::vector<SseEvent>& out, bool complete)
{
    if (m_hasData) {
        SseEvent& ev = out.emplace_back();
        ev.event = std::exchange(m_event, {});
        ev.data = std::exchange(m_data, {});
        ev.id = m_id; // the last event id persists across events (WHATWG)
        ev.stampNs = stampNs;
        ev.complete = complete;
    }
    m_event.clear();
    m_hasData = false;
}

} // namespace qs
