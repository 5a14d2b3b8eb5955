// SPDX-License-Identifier: MIT
// HttpResponseParser on untrusted bytes (docs/fuzzing.md). Holds: no crash or sanitizer report; the
// parser is "correct for any split of the input" (HttpResponseParser.h), so the same bytes fed
// whole and cut where the input's header says give the same state, status, headers, body,
// error and leftover; the body is never larger than what was fed.

#include "fuzz/FuzzCheck.h"
#include "fuzz/FuzzSplit.h"
#include "model/wire/HttpResponseParser.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace {

struct Outcome {
    qs::HttpResponseParser parser;
    QByteArray body;
};

Outcome parse(const std::vector<QByteArrayView>& pieces, bool noBody, bool close)
{
    Outcome o;
    if (noBody)
        o.parser.expectNoBody();
    for (QByteArrayView piece : pieces)
        o.parser.feed(piece, o.body);
    if (close)
        o.parser.connectionClosed();
    return o;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const qs::fuzz::SplitInput in = qs::fuzz::splitInput(data, size);
    // The header's first byte also picks the two flags, so the fuzzer covers HEAD and close.
    const bool noBody = size > 0 && (data[0] & 0x10);
    const bool close = size > 0 && (data[0] & 0x20);

    const Outcome whole = parse({in.payload}, noBody, close);
    const Outcome split = parse(in.pieces, noBody, close);

    QS_FUZZ_CHECK(whole.body.size() <= in.payload.size());
    QS_FUZZ_CHECK(whole.parser.state() == split.parser.state());
    QS_FUZZ_CHECK(whole.parser.error() == split.parser.error());
    QS_FUZZ_CHECK(whole.parser.statusCode() == split.parser.statusCode());
    QS_FUZZ_CHECK(whole.parser.headers() == split.parser.headers());
    QS_FUZZ_CHECK(whole.body == split.body);
    if (!whole.parser.failed())
        QS_FUZZ_CHECK(whole.parser.leftover() == split.parser.leftover());
    if (whole.parser.headersComplete()) {
        (void)whole.parser.connectionWillClose();
        (void)whole.parser.header("content-type");
    }
    return 0;
}
