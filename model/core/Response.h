// SPDX-License-Identifier: MIT
#pragma once

#include "model/core/Boxed.h"
#include "model/core/Logprobs.h"
#include "model/core/TokenTimeline.h"

#include <QString>
#include <QStringList>
#include <QtGlobal>
#include <optional>
#include <vector>

namespace qs {

// What a server sent back for one request, as values: the wire stage (model/wire/) fills these
// from a stream, storage writes them, evaluation reads them.

/// Token counts as a server reported them. Every field is optional: servers differ in what
/// they send (see docs/methodology.md, "Token counts").
struct TokenUsage {
    std::optional<qint64> promptTokens;
    std::optional<qint64> completionTokens;
    std::optional<qint64> totalTokens;
    /// vLLM: usage.completion_tokens_details.reasoning_tokens; SGLang: usage.reasoning_tokens
    std::optional<qint64> reasoningTokens;
    /// usage.prompt_tokens_details.cached_tokens (vLLM/SGLang with cache reporting, llama.cpp PR #22081)
    std::optional<qint64> cachedPromptTokens;
    bool operator==(const TokenUsage&) const = default;
};

/// llama-server's own `timings` object, kept beside the client's measurements.
struct ServerTimings {
    std::optional<qint64> cacheN; ///< prompt tokens reused from the KV cache
    std::optional<qint64> promptN; ///< prompt tokens actually evaluated
    std::optional<double> promptMs;
    std::optional<double> promptPerTokenMs;
    std::optional<double> promptPerSecond;
    std::optional<qint64> predictedN;
    std::optional<double> predictedMs;
    std::optional<double> predictedPerTokenMs;
    std::optional<double> predictedPerSecond;
    std::optional<qint64> draftN; ///< speculative decoding: drafted tokens
    std::optional<qint64> draftNAccepted; ///< speculative decoding: accepted drafted tokens
    bool operator==(const ServerTimings&) const = default;
};

/// An error object sent by a server, inside a stream or as an HTTP error body. Reads both the
/// nested `{"error":{...}}` shape (llama-server, vLLM >= 0.10.1) and the flat
/// `{"object":"error","message":...}` shape (SGLang, vLLM < 0.10.1).
struct ServerError {
    int code = 0; ///< `code` when it is an integer, else 0 (vLLM 2026 may send a string id)
    QString codeText; ///< `code` when it is a string (e.g. "context_length_exceeded")
    QString type; ///< e.g. "BadRequestError", "exceed_context_size_error", "server_error"
    QString message;
    QString param;
    std::optional<qint64> nPromptTokens; ///< llama-server exceed_context_size_error
    std::optional<qint64> nCtx; ///< llama-server exceed_context_size_error
    bool operator==(const ServerError&) const = default;
};

/// Which key carried reasoning text (vLLM renamed `reasoning_content` to `reasoning`).
enum class ReasoningField : quint8 { None = 0, Reasoning = 1, ReasoningContent = 2, Both = 3 };

/// A complete tool call, reassembled from its fragments by `index`.
struct ToolCall {
    int index = 0;
    QString id; ///< first non-empty id seen for this index
    QString type; ///< "function" unless the server said otherwise
    QString name; ///< first non-empty name seen (some servers repeat it; it is never doubled)
    QString arguments; ///< all argument pieces concatenated in arrival order
    bool operator==(const ToolCall&) const = default;
};

/// Everything a stream said, in order, with no interpretation of timing.
struct AssembledResponse {
    QString content;
    QString reasoning;
    ReasoningField reasoningField = ReasoningField::None; ///< union over all chunks
    std::vector<ToolCall> toolCalls; ///< sorted by index
    QString finishReason; ///< last non-empty finish_reason
    QString role;

    std::optional<TokenUsage> usage; ///< the last usage seen (the final one wins)
    Boxed<ServerTimings> timings; ///< the last timings seen (llama-server only: boxed, see Boxed.h)
    Boxed<ServerError> streamError; ///< an error object sent inside the stream (rare: boxed)
    qint64 streamErrorNs = 0;

    QString responseId; ///< first non-empty `id`
    QString model; ///< first non-empty `model`
    QString systemFingerprint; ///< last non-empty `system_fingerprint`

    /// The `logprobs` the server sent (empty unless the request asked for them; see
    /// LogprobStream::present() for a server that ignored the request).
    LogprobStream logprobs;

    TokenTimeline tokenEvents; ///< token-bearing events only, in arrival order
    int dataEvents = 0; ///< SSE events with a data payload (including [DONE], errors, malformed)
    int emptyEvents = 0; ///< role-only / empty-delta chunks
    int usageOnlyEvents = 0; ///< `choices: []` chunks
    int malformedEvents = 0;
    QStringList malformedSamples; ///< the first few malformed reasons, with a payload excerpt
    /// The first malformed payload's bytes, escaped and shortened, for the failure's summary. Not
    /// written to files: the failure it goes into is.
    QString firstMalformedQuote;
    bool sawDone = false;
    qint64 doneNs = 0;
    qint64 firstEventNs = 0; ///< first dispatched data event of any kind
    qint64 lastEventNs = 0; ///< last dispatched data event of any kind
    bool truncatedEvent = false; ///< the stream ended inside an event (SseParser::finish)
};

} // namespace qs
