// SPDX-License-Identifier: MIT
// decodeChunk on one event's untrusted data, any of the three servers' dialects
// (docs/fuzzing.md). Holds: no crash or sanitizer report, no exception; a malformed chunk says why;
// the decoded text is never longer than the bytes it came from; decoding is deterministic.

#include "fuzz/FuzzCheck.h"
#include "model/wire/StreamChunk.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const QByteArrayView bytes(reinterpret_cast<const char*>(data), qsizetype(size));
    const qs::StreamChunk chunk = qs::decodeChunk(bytes);
    if (chunk.kind == qs::StreamChunk::Kind::Malformed)
        QS_FUZZ_CHECK(!chunk.malformedReason.isEmpty());
    if (chunk.kind == qs::StreamChunk::Kind::Error)
        QS_FUZZ_CHECK(chunk.error.has_value());
    // UTF-16 units: a JSON escape or a UTF-8 sequence never decodes to more units than bytes.
    QS_FUZZ_CHECK(chunk.content.size() + chunk.reasoning.size() <= qsizetype(size));
    (void)chunk.carriesToken();
    (void)chunk.carriesVisible();
    (void)qs::parseServerError(bytes);

    const qs::StreamChunk again = qs::decodeChunk(bytes);
    QS_FUZZ_CHECK(again.kind == chunk.kind);
    QS_FUZZ_CHECK(again.content == chunk.content);
    QS_FUZZ_CHECK(again.toolCalls == chunk.toolCalls);
    QS_FUZZ_CHECK(again.logprobs == chunk.logprobs);
    return 0;
}
