// SPDX-License-Identifier: MIT
#pragma once

#include "model/wire/StreamChunk.h"

#include <QByteArrayView>
#include <optional>

namespace qs {

/// decodeChunk's fast path: one pass over the payload that validates all of it as strict JSON,
/// exactly as nlohmann's parser does (RFC 8259 grammar, its whitespace, its UTF-8 and escape
/// rules), and reads the fields of the chunks a stream is made of straight from the bytes —
/// no document, no allocation but the decoded strings. Through a document, decoding took about a
/// tenth of the client thread's CPU (perf, bench_streaming with 32 vLLM streams); this way about a
/// third of that. The rest is the socket, the event loop and the kernel (docs/benchmarks.md).
///
/// Returns nothing whenever the payload is not an ordinary chunk, and decodeChunk then reads it
/// with the document (decodeChunkWithDom), which stays the definition: invalid JSON, anything
/// other than an object, a leading BOM, an error object, tool-call fragments, logprobs, a key
/// written with escapes or a field it reads given twice (the document keeps the last one), a
/// count written as a fraction or out of range, nesting deeper than 64. What it returns is equal,
/// field for field, to what the document gives (tests/decoding/StreamChunkFastTest.cpp, and
/// fuzz_stream_chunk compares the two on every input).
///
/// `trimmed`: the payload without surrounding whitespace, not empty and not `[DONE]`.
std::optional<StreamChunk> decodeChunkFast(QByteArrayView trimmed);

} // namespace qs
