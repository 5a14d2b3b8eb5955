// SPDX-License-Identifier: MIT
// SSE bytes → SseParser → StreamAssembler, as a streaming request reads them (docs/fuzzing.md).
// Holds: no crash or sanitizer report; the stream fed whole and cut where the input's header says
// assembles to the same response (text, reasoning, tool calls, finish, usage, timings, error,
// logprobs, event counts); the assembled text is never longer than the bytes it came from.

#include "fuzz/FuzzCheck.h"
#include "fuzz/FuzzSplit.h"
#include "model/wire/SseParser.h"
#include "model/wire/StreamAssembler.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace {

qs::AssembledResponse assemble(const std::vector<QByteArrayView>& pieces)
{
    qs::SseParser parser;
    qs::StreamAssembler assembler;
    std::vector<qs::SseEvent> events;
    // One stamp per piece: the split run stamps differently, so stamps are not compared.
    qint64 stamp = 1;
    for (QByteArrayView piece : pieces) {
        parser.feed(piece, stamp++, events);
        for (const qs::SseEvent& event : events)
            (void)assembler.add(event);
        events.clear();
    }
    parser.finish(stamp, events);
    for (const qs::SseEvent& event : events)
        (void)assembler.add(event);
    return assembler.takeResponse();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const qs::fuzz::SplitInput in = qs::fuzz::splitInput(data, size);
    const qs::AssembledResponse a = assemble({in.payload});
    const qs::AssembledResponse b = assemble(in.pieces);

    QS_FUZZ_CHECK(a.content == b.content);
    QS_FUZZ_CHECK(a.reasoning == b.reasoning);
    QS_FUZZ_CHECK(a.reasoningField == b.reasoningField);
    QS_FUZZ_CHECK(a.toolCalls == b.toolCalls);
    QS_FUZZ_CHECK(a.finishReason == b.finishReason);
    QS_FUZZ_CHECK(a.role == b.role);
    QS_FUZZ_CHECK(a.usage == b.usage);
    QS_FUZZ_CHECK(a.timings == b.timings);
    QS_FUZZ_CHECK(a.streamError == b.streamError);
    QS_FUZZ_CHECK(a.responseId == b.responseId);
    QS_FUZZ_CHECK(a.model == b.model);
    QS_FUZZ_CHECK(a.logprobs == b.logprobs);
    QS_FUZZ_CHECK(a.tokenEvents.size() == b.tokenEvents.size());
    QS_FUZZ_CHECK(a.dataEvents == b.dataEvents);
    QS_FUZZ_CHECK(a.emptyEvents == b.emptyEvents);
    QS_FUZZ_CHECK(a.usageOnlyEvents == b.usageOnlyEvents);
    QS_FUZZ_CHECK(a.malformedEvents == b.malformedEvents);
    QS_FUZZ_CHECK(a.malformedSamples == b.malformedSamples);
    QS_FUZZ_CHECK(a.sawDone == b.sawDone);
    QS_FUZZ_CHECK(a.truncatedEvent == b.truncatedEvent);
    QS_FUZZ_CHECK(a.content.size() + a.reasoning.size() <= in.payload.size());
    return 0;
}
