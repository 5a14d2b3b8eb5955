// SPDX-License-Identifier: MIT
// SseParser on untrusted bytes (docs/fuzzing.md). Holds: no crash or sanitizer report; the same
// bytes fed whole and cut where the input's header says give the same events (event, data, id,
// complete), comment count and error (a line or event past the 8 MiB limit); the events' data is never larger
// than what was fed, and nothing is left pending after finish().

#include "fuzz/FuzzCheck.h"
#include "fuzz/FuzzSplit.h"
#include "model/wire/SseParser.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace {

struct Outcome {
    std::vector<qs::SseEvent> events;
    int comments = 0;
    qint64 bytes = 0;
    QString error; ///< why the parser stopped (a line or an event past its limit), or empty
};

Outcome parse(const std::vector<QByteArrayView>& pieces)
{
    Outcome o;
    qs::SseParser parser;
    for (QByteArrayView piece : pieces) {
        parser.feed(piece, 1, o.events);
        QS_FUZZ_CHECK(parser.pendingBytes() <= 2 * qs::SseParser::MaxEventBytes);
    }
    parser.finish(1, o.events);
    QS_FUZZ_CHECK(parser.pendingBytes() == 0);
    o.comments = parser.commentCount();
    o.bytes = parser.bytesFed();
    o.error = parser.error();
    QS_FUZZ_CHECK(parser.failed() == !o.error.isEmpty());
    return o;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const qs::fuzz::SplitInput in = qs::fuzz::splitInput(data, size);
    const Outcome whole = parse({in.payload});
    const Outcome split = parse(in.pieces);

    QS_FUZZ_CHECK(whole.bytes == in.payload.size());
    QS_FUZZ_CHECK(split.bytes == in.payload.size());
    QS_FUZZ_CHECK(whole.comments == split.comments);
    QS_FUZZ_CHECK(whole.error == split.error);
    QS_FUZZ_CHECK(whole.events.size() == split.events.size());
    qsizetype dataBytes = 0;
    for (std::size_t i = 0; i < whole.events.size(); ++i) {
        const qs::SseEvent& a = whole.events[i];
        const qs::SseEvent& b = split.events[i];
        QS_FUZZ_CHECK(a.event == b.event);
        QS_FUZZ_CHECK(a.data == b.data);
        QS_FUZZ_CHECK(a.id == b.id);
        QS_FUZZ_CHECK(a.complete == b.complete);
        dataBytes += a.data.size();
    }
    QS_FUZZ_CHECK(dataBytes <= in.payload.size());
    return 0;
}
