// SPDX-License-Identifier: MIT
#pragma once

#include <QByteArrayView>
#include <QString>
#include <optional>
#include <vector>

namespace qs {

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

/// Parses an error body. Returns nothing when `json` is not an error object.
std::optional<ServerError> parseServerError(QByteArrayView json);

/// One fragment of a streamed tool call. `id`, `type` and `name` are usually only on the first
/// fragment of an index (SGLang repeats them as explicit nulls, which decode as empty).
struct ToolCallFragment {
    int index = 0;
    QString id;
    QString type;
    QString name;
    QString arguments; ///< a piece of the JSON arguments text; may be empty
    bool operator==(const ToolCallFragment&) const = default;
};

/// Which key carried reasoning text (vLLM renamed `reasoning_content` to `reasoning`).
enum class ReasoningField : quint8 { None = 0, Reasoning = 1, ReasoningContent = 2, Both = 3 };

/// One decoded SSE `data:` payload of a /v1/chat/completions stream, in any of the dialects of
/// llama-server, vLLM (every era) and SGLang (pydantic and msgspec paths). `null`, a missing key
/// and "" all decode to an empty string. Only choice index 0 is read (Quantscope sends n=1).
struct StreamChunk {
    enum class Kind : quint8 {
        Data, ///< a chat.completion.chunk (possibly role-only, empty, or usage-only)
        Done, ///< the `[DONE]` sentinel
        Error, ///< an error object sent inside the stream
        Malformed, ///< not JSON, or JSON that is not a chunk; see `malformedReason`
    };
    Kind kind = Kind::Data;

    QString role;
    QString content;
    /// Reasoning text from `reasoning` or `reasoning_content`; when both carry text (vLLM
    /// 0.11.1-0.15.x copies one into the other) it is taken once, from `reasoning`.
    QString reasoning;
    ReasoningField reasoningField = ReasoningField::None;
    std::vector<ToolCallFragment> toolCalls;
    QString finishReason; ///< empty unless the chunk carries a non-empty finish_reason
    bool hasChoices = false; ///< false for the usage-only chunk (`"choices":[]`)

    std::optional<TokenUsage> usage; ///< any chunk may carry it (final chunk, continuous stats)
    std::optional<ServerTimings>
        timings; ///< llama-server, last chunk (or every chunk with timings_per_token)
    std::optional<ServerError> error; ///< Kind::Error only

    QString id;
    QString model;
    QString systemFingerprint;
    QString malformedReason; ///< Kind::Malformed only: what was wrong, for the user

    /// Carries a generated token: non-empty content, reasoning, or a tool-call fragment with a
    /// name or an argument piece. Role-only, empty and usage-only chunks do not.
    bool carriesToken() const;
    /// Carries visible output: non-empty content or a tool-call fragment with a name or arguments.
    bool carriesVisible() const;
};

/// Decodes one SSE data payload. Never throws; bad input gives Kind::Malformed.
StreamChunk decodeChunk(QByteArrayView data);

} // namespace qs
