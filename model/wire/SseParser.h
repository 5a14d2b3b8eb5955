// SPDX-License-Identifier: MIT
#pragma once

#include <QByteArray>
#include <QByteArrayView>
#include <QString>
#include <vector>

namespace qs {

/// One dispatched Server-Sent Event.
struct SseEvent {
    QByteArray event; ///< value of the last `event:` field, empty when none was sent
    QByteArray data; ///< all `data:` fields of the event joined with '\n' (one leading space stripped)
    QByteArray id; ///< value of the last `id:` field
    qint64 stampNs = 0; ///< monotonic time at which the bytes that completed this event were read
    bool complete = true; ///< false only for an event flushed by finish() that never got its blank line
};

/// Incremental, allocation-light SSE parser (WHATWG event-stream rules). Pure: no Qt event loop,
/// no clock; the caller passes the time its bytes were read so stamps never include parse time.
///
/// Correct for any split of the input: lines may end in LF, CRLF or CR (a CR at the end of one
/// feed and LF at the start of the next is one line end), a UTF-8 sequence may be cut anywhere
/// (data stays bytes until the event is complete), a leading BOM is dropped. `:` comment lines
/// (llama-server's `:` ping, vLLM's `: keep-alive`) are counted, never dispatched. `retry:` and
/// unknown fields are ignored. A block without any `data:` field dispatches nothing.
///
/// Bounded: a line, and the data of one event, may hold at most MaxEventBytes (8 MiB). Beyond
/// that the parser fails (failed(), error()) and ignores the rest: no inference server sends
/// such an event (the largest legitimate ones, a long tool call's arguments in one piece or a
/// whole answer in one chunk, are far below it), and a server that sends a 1 GB line without a
/// line end must not grow the client's memory.
class SseParser {
public:
    static constexpr qsizetype MaxEventBytes = qsizetype(8) << 20;

    /// Feeds bytes read at `stampNs`; appends every event these bytes complete to `out`.
    void feed(QByteArrayView bytes, qint64 stampNs, std::vector<SseEvent>& out);

    /// End of stream. If an event was started but never terminated by a blank line, it is
    /// appended with `complete == false` (servers that close right after the last `data:` line
    /// lose nothing; the caller decides whether to trust it). Resets the parser.
    void finish(qint64 stampNs, std::vector<SseEvent>& out);

    int commentCount() const { return m_comments; } ///< `:` lines seen (keep-alive pings)
    qint64 lastCommentNs() const { return m_lastCommentNs; }
    qint64 bytesFed() const { return m_bytes; }
    /// Bytes held waiting for a line end or a blank line; bounded by the longest event.
    qsizetype pendingBytes() const { return m_line.size() + m_data.size(); }
    bool failed() const { return !m_error.isEmpty(); }
    QString error() const { return m_error; } ///< why the parser stopped, empty when it did not

private:
    void processLine(qint64 stampNs, std::vector<SseEvent>& out);
    void dispatch(qint64 stampNs, std::vector<SseEvent>& out, bool complete);
    bool fitsOrFail(qsizetype size, const char* what);

    QByteArray m_line; // current, unterminated line
    QByteArray m_data; // data buffer of the current event
    QByteArray m_event;
    QByteArray m_id;
    QString m_error;
    bool m_hasData = false;
    bool m_lastWasCR = false;
    bool m_atStreamStart = true;
    int m_comments = 0;
    qint64 m_lastCommentNs = 0;
    qint64 m_bytes = 0;
};

} // namespace qs
