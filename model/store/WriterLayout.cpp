// SPDX-License-Identifier: MIT
// A results file as saveResults lays it out, read the quick way: the header strictly, then the
// records, one per line, with FastRecordReader on two threads, a few MiB at a time.
#include "model/store/FastRecordReader.h"
#include "model/store/ResultFields.h"

#include <QFile>
#include <cstring>
#include <future>

namespace qs::results {

namespace {

constexpr std::string_view kRecordsLine = "\n \"records\": [";
/// Records are read this many bytes at a time (about 2,000 of them): the file never has to be in
/// memory whole, and each piece is split between two threads.
constexpr qint64 kChunkBytes = qint64(8) << 20;

bool isSpace(char c)
{
    return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

/// What follows the last record: `]`, `}` and whitespace only.
bool closesFile(std::string_view rest)
{
    std::size_t at = 0;
    const auto skip = [&] {
        while (at < rest.size() && isSpace(rest[at]))
            ++at;
    };
    skip();
    if (at == rest.size() || rest[at++] != ']')
        return false;
    skip();
    if (at == rest.size() || rest[at++] != '}')
        return false;
    skip();
    return at == rest.size();
}

/// A record the quick reader declined, read by recordFromJson; nullopt when that fails too (the
/// whole file then goes the strict way, whose message names the field). Nesting is held a little
/// below the whole-file reader's limit, which counts from the file's root.
std::optional<RunRecord> recordStrictly(
    std::string_view text, const std::vector<RunEndpoint>& endpoints, const std::string& where)
{
    Limits limits {where};
    try {
        const json j = json::parse(text.begin(), text.end(), [&](int depth, json::parse_event_t, json&) {
            limits.check(depth + 4);
            return true;
        });
        return recordFromJson(j, endpoints, where);
    } catch (const std::bad_alloc&) {
        throw;
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

/// The header (everything before the records' list) read strictly, with an empty list; nullopt
/// when that fails (the whole file is then read strictly, for the message).
std::optional<RunResult> readHeader(std::string_view head, const std::string& source)
{
    try {
        QByteArray header(head.data(), qsizetype(head.size()));
        header += "]}";
        RunResult result = readStrictly(header, source);
        if (!result.records.empty())
            return std::nullopt;
        return result;
    } catch (const std::bad_alloc&) {
        throw;
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

/// One thread's share of the records: its own quick reader and pool, so the two never share.
struct Lane {
    explicit Lane(const std::vector<RunEndpoint>& endpoints)
        : reader(endpoints)
    {
    }
    FastRecordReader reader;
    JsonInterner pool; ///< for records read the strict way
    std::size_t declined = 0;
};

/// A record's text and how many bytes after it may be read.
struct Span {
    std::string_view text;
    std::size_t readableAfter;
};

/// Reads `spans` in order into `out`; false when one is bad.
bool readSpans(Lane& lane, const Span* spans, std::size_t count, std::size_t firstIndex,
    const std::vector<RunEndpoint>& endpoints, const std::string& source, std::vector<RunRecord>& out)
{
    out.reserve(count);
    for (std::size_t i = 0; i < count; ++i) {
        std::optional<RunRecord> record = lane.reader.read(spans[i].text, spans[i].readableAfter);
        if (!record) {
            ++lane.declined;
            record = recordStrictly(
                spans[i].text, endpoints, source + ": records[" + std::to_string(firstIndex + i) + "]");
            if (!record)
                return false;
            internJson(*record, lane.pool);
        }
        out.push_back(std::move(*record));
    }
    return true;
}

/// The records' list, fed piece by piece: each piece ends at a line break.
class RecordLines {
public:
    RecordLines(RunResult& result, const std::string& source)
        : m_result(result)
        , m_source(source)
        , m_lanes {Lane(result.endpoints), Lane(result.endpoints)}
    {
    }

    /// Complete lines ("\n  {…}," …); `readableAfter` bytes after `piece` may be read. False when
    /// the layout or a record is not as the writer writes it.
    bool feed(std::string_view piece, std::size_t readableAfter)
    {
        m_spans.clear();
        std::size_t at = 0;
        while (at < piece.size()) {
            if (m_last) { // after the last record: only the list's and the file's ends
                m_tail.append(piece.substr(at));
                break;
            }
            if (piece.compare(at, 3, "\n  ") != 0 || at + 3 >= piece.size() || piece[at + 3] != '{') {
                if (m_result.records.empty() && m_spans.empty()) { // no records: "[]" or "[\n ]"
                    m_last = true;
                    continue;
                }
                return false;
            }
            const std::size_t begin = at + 3;
            std::size_t end = piece.find('\n', begin);
            if (end == std::string_view::npos)
                end = piece.size();
            std::size_t close = end;
            if (piece[close - 1] == ',')
                --close;
            else
                m_last = true;
            if (piece[close - 1] != '}')
                return false;
            m_spans.push_back({piece.substr(begin, close - begin), piece.size() - close + readableAfter});
            at = end;
        }
        return readPiece();
    }

    /// At the end of the file: what came after the last record closes the list and the file.
    bool finish(std::string_view rest)
    {
        if (!rest.empty() && !feed(rest, 0))
            return false;
        if (!m_last)
            return false;
        return closesFile(m_tail);
    }

    std::size_t declined() const { return m_lanes[0].declined + m_lanes[1].declined; }

private:
    bool readPiece()
    {
        const std::size_t n = m_spans.size();
        const std::size_t first = m_result.records.size();
        // Each lane fills a plain vector; this thread then gives each record its own block, so
        // the records live in one allocator arena, not interleaved with the other thread's
        // short-lived parse buffers (+48 MiB resident over 100,000 records when they were).
        std::vector<RunRecord> records, second;
        bool ok = false;
        if (n >= 64) {
            // The second half on another thread: two cores read twice as fast.
            const std::size_t half = n / 2;
            auto other = std::async(std::launch::async, [&] {
                return readSpans(m_lanes[1], m_spans.data() + half, n - half, first + half,
                    m_result.endpoints, m_source, second);
            });
            ok = readSpans(m_lanes[0], m_spans.data(), half, first, m_result.endpoints, m_source, records);
            ok = other.get() && ok;
        } else {
            ok = readSpans(m_lanes[0], m_spans.data(), n, first, m_result.endpoints, m_source, records);
        }
        for (std::vector<RunRecord>* lane : {&records, &second})
            for (RunRecord& r : *lane)
                m_result.records.push_back(std::move(r));
        return ok;
    }

    RunResult& m_result;
    const std::string& m_source;
    Lane m_lanes[2];
    std::vector<Span> m_spans;
    bool m_last = false;
    std::string m_tail;
};

} // namespace

std::optional<RunResult> readWriterLayout(
    QByteArrayView bytes, const std::string& source, std::size_t* declined)
{
    const std::string_view all(bytes.data(), std::size_t(bytes.size()));
    const std::size_t found = all.find(kRecordsLine);
    if (found == std::string_view::npos)
        return std::nullopt;
    const std::size_t listStart = found + kRecordsLine.size(); // just after '['
    std::optional<RunResult> result = readHeader(all.substr(0, listStart), source);
    if (!result)
        return std::nullopt;
    RecordLines lines(*result, source);
    std::size_t at = listStart;
    while (all.size() - at > std::size_t(kChunkBytes)) {
        const std::size_t cut = all.rfind('\n', at + std::size_t(kChunkBytes));
        if (cut == std::string_view::npos || cut <= at)
            break;
        if (!lines.feed(all.substr(at, cut - at), all.size() - cut))
            return std::nullopt;
        at = cut;
    }
    if (!lines.finish(all.substr(at)))
        return std::nullopt;
    if (declined)
        *declined = lines.declined();
    return result;
}

std::optional<RunResult> loadWriterLayout(QFile& file, const std::string& source, std::size_t* declined)
{
    // The header: read until the records' list begins.
    QByteArray head;
    std::size_t found = std::string_view::npos;
    while (found == std::string_view::npos) {
        const QByteArray more = file.read(qint64(1) << 20);
        if (more.isEmpty())
            return std::nullopt;
        const std::size_t from
            = std::size_t(std::max<qsizetype>(0, head.size() - qsizetype(kRecordsLine.size())));
        head += more;
        found = std::string_view(head.constData(), std::size_t(head.size())).find(kRecordsLine, from);
    }
    const std::size_t listStart = found + kRecordsLine.size();
    std::optional<RunResult> result = readHeader(std::string_view(head.constData(), listStart), source);
    if (!result)
        return std::nullopt;

    // The records, a piece at a time: complete lines now, the rest carried to the next piece.
    // The buffer always has FastRecordReader::padding() bytes after what it holds, so no record
    // needs copying before it is read.
    RecordLines lines(*result, source);
    const std::size_t padding = FastRecordReader::padding();
    std::vector<char> buffer(std::size_t(kChunkBytes) * 2 + padding);
    std::size_t used = std::size_t(head.size()) - listStart;
    std::memcpy(buffer.data(), head.constData() + listStart, used);
    head = QByteArray();
    for (;;) {
        if (buffer.size() < used + std::size_t(kChunkBytes) + padding)
            buffer.resize(used + std::size_t(kChunkBytes) + padding); // a record longer than a piece
        const qint64 got = file.read(buffer.data() + used, kChunkBytes);
        if (got < 0)
            return std::nullopt;
        if (got == 0)
            break;
        used += std::size_t(got);
        const std::string_view held(buffer.data(), used);
        const std::size_t cut = held.rfind('\n');
        if (cut == std::string_view::npos || cut == 0)
            continue;
        if (!lines.feed(held.substr(0, cut), buffer.size() - cut))
            return std::nullopt;
        std::memmove(buffer.data(), buffer.data() + cut, used - cut);
        used -= cut;
    }
    if (!lines.finish(std::string_view(buffer.data(), used)))
        return std::nullopt;
    if (declined)
        *declined = lines.declined();
    return result;
}

} // namespace qs::results
