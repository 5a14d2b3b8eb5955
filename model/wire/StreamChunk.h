// SPDX-License-Identifier: MIT
#pragma once

#include "model/core/Response.h"

#include <QByteArrayView>
#include <QString>
#include <optional>
#include <vector>

namespace qs {

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

    /// Choice 0's `logprobs.content`, entries in the server's order (llama-server: one, on the
    /// last chunk of its token; SGLang: possibly several). `chunks` is 1 when the choice carried
    /// a `logprobs.content` array (even an empty one), 0 for `"logprobs": null` or none; the
    /// values are normalized (Logprobs.h), with what was read as −∞ or dropped counted.
    LogprobStream logprobs;

    QString id;
    QString model;
    QString systemFingerprint;
    QString malformedReason; ///< Kind::Malformed only: what was wrong, for the user
    QString malformedQuote; ///< Kind::Malformed only: the payload's bytes, escaped and shortened (quoteBytes)

    /// Carries a generated token: non-empty content, reasoning, or a tool-call fragment with a
    /// name or an argument piece. Role-only, empty and usage-only chunks do not.
    bool carriesToken() const;
    /// Carries visible output: non-empty content or a tool-call fragment with a name or arguments.
    bool carriesVisible() const;
};

/// Decodes one SSE data payload. Never throws; bad input gives Kind::Malformed. A payload that is
/// not strict JSON only because of the bare `-Infinity`, `Infinity` or `NaN` a Python server's
/// json.dumps writes is read once more with those literals replaced (outside strings): `-Infinity`
/// as null (a logprob of −∞), `Infinity` and `NaN` as strings (unreadable values).
StreamChunk decodeChunk(QByteArrayView data);

/// decodeChunk through a whole JSON document (nlohmann): the definition of what a payload means.
/// decodeChunk reads ordinary chunks without one (StreamChunkFast.h) and comes here for the rest;
/// both give the same chunk for every payload.
StreamChunk decodeChunkWithDom(QByteArrayView data);

} // namespace qs
