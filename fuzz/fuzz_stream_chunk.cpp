// SPDX-License-Identifier: MIT
// decodeChunk on one event's untrusted data, any of the three servers' dialects
// (docs/fuzzing.md). Holds: no crash or sanitizer report, no exception; a malformed chunk says why;
// the decoded text is never longer than the bytes it came from; decoding is deterministic; and
// its fast path (StreamChunkFast.h) gives exactly what the JSON document gives, field for field.

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

    const qs::StreamChunk dom = qs::decodeChunkWithDom(bytes);
    const auto same = [](const QString& a, const QString& b) { return a == b && a.isNull() == b.isNull(); };
    QS_FUZZ_CHECK(dom.kind == chunk.kind);
    QS_FUZZ_CHECK(same(dom.role, chunk.role));
    QS_FUZZ_CHECK(same(dom.content, chunk.content));
    QS_FUZZ_CHECK(same(dom.reasoning, chunk.reasoning));
    QS_FUZZ_CHECK(dom.reasoningField == chunk.reasoningField);
    QS_FUZZ_CHECK(dom.toolCalls == chunk.toolCalls);
    QS_FUZZ_CHECK(same(dom.finishReason, chunk.finishReason));
    QS_FUZZ_CHECK(dom.hasChoices == chunk.hasChoices);
    QS_FUZZ_CHECK(dom.usage == chunk.usage);
    QS_FUZZ_CHECK(dom.timings == chunk.timings);
    QS_FUZZ_CHECK(dom.error == chunk.error);
    QS_FUZZ_CHECK(dom.logprobs == chunk.logprobs);
    QS_FUZZ_CHECK(same(dom.id, chunk.id));
    QS_FUZZ_CHECK(same(dom.model, chunk.model));
    QS_FUZZ_CHECK(same(dom.systemFingerprint, chunk.systemFingerprint));
    QS_FUZZ_CHECK(same(dom.malformedReason, chunk.malformedReason));
    QS_FUZZ_CHECK(same(dom.malformedQuote, chunk.malformedQuote));
    return 0;
}
