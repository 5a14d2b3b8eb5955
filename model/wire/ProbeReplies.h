// SPDX-License-Identifier: MIT
#pragma once

#include "model/wire/EndpointProbe.h"

#include <QByteArray>

// What a probe reads from the answers of a server it does not trust: each reader takes one
// answer's body and fills a ProbeResult with what it understood, ignoring the rest. Kept apart
// from EndpointProbe's sockets so that each can be fuzzed on its own (fuzz/fuzz_probe_replies).
//
// A number the server sends is taken only when it is plausible: a context size of 0, -5 or 2^62
// tokens is a broken server, not a fact to put in a results file.

namespace qs::probe {

/// The largest context size or slot count believed (larger ones are ignored, with a warning).
inline constexpr qint64 maxContextTokens = qint64(1) << 40;
inline constexpr qint64 maxSlots = 65536;

/// A 200 from the health path: its `status` ("ok", "Loading model"…), when JSON.
void readHealthOk(const QByteArray& body, ProbeResult& result);
/// `/v1/models`: the model ids, the context size some servers list with them, the model path,
/// and the runtime (`owned_by`, else the `Server` header already in `result`). False when the
/// body is not an OpenAI model list (nothing is changed then).
bool readModelList(const QByteArray& body, ProbeResult& result);
/// llama-server `/props`. False when the body is not llama-server's properties.
bool readLlamaProps(const QByteArray& body, ProbeResult& result);
/// vLLM `/version`. False when there is no version in it.
bool readVllmVersion(const QByteArray& body, ProbeResult& result);
/// SGLang `/server_info` (`/get_server_info` before the rename). False when not a JSON object.
bool readSglangInfo(const QByteArray& body, ProbeResult& result);

} // namespace qs::probe
