// SPDX-License-Identifier: MIT
#pragma once

#include "model/SseParser.h"
#include "model/StreamChunk.h"

#include <QString>
#include <QStringList>
#include <optional>
#include <vector>

namespace qs {

/// A complete tool call, reassembled from its fragments by `index`.
struct ToolCall {
    int index = 0;
    QString id; ///< first non-empty id seen for this index
    QString type; ///< "function" unless the server said otherwise
    QString name; ///< first non-empty name seen (some servers repeat it; it is never doubled)
    QString arguments; ///< all argument pieces concatenated in arrival order
    bool operator==(const ToolCall&) const = default;
};

/// One token-bearing event on the response timeline. Offsets index into the assembled
/// `content`/`reasoning` strings (UTF-16 units), so later analysis can tell exactly which text
/// arrived when (e.g. reclassify content before a leaked `</think>` as reasoning).
struct TokenEvent {
    qint64 stampNs = 0;
    int contentBegin = 0; ///< [contentBegin, contentEnd) of AssembledResponse::content
    int contentEnd = 0;
    int reasoningBegin = 0; ///< [reasoningBegin, reasoningEnd) of AssembledResponse::reasoning
    int reasoningEnd = 0;
    bool toolCall = false; ///< carried a tool-call fragment with a name or argument piece
    bool hasContent() const { return contentEnd > contentBegin; }
    bool hasReasoning() const { return reasoningEnd > reasoningBegin; }
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
    std::optional<ServerTimings> timings; ///< the last timings seen
    std::optional<ServerError> streamError; ///< an error object sent inside the stream
    qint64 streamErrorNs = 0;

    QString responseId; ///< first non-empty `id`
    QString model; ///< first non-empty `model`
    QString systemFingerprint; ///< last non-empty `system_fingerprint`

    std::vector<TokenEvent> tokenEvents; ///< token-bearing events only, in arrival order
    int dataEvents = 0; ///< SSE events with a data payload (including [DONE], errors, malformed)
    int emptyEvents = 0; ///< role-only / empty-delta chunks
    int usageOnlyEvents = 0; ///< `choices: []` chunks
    int malformedEvents = 0;
    QStringList malformedSamples; ///< the first few malformed reasons, with a payload excerpt
    bool sawDone = false;
    qint64 doneNs = 0;
    qint64 firstEventNs = 0; ///< first dispatched data event of any kind
    qint64 lastEventNs = 0; ///< last dispatched data event of any kind
    bool truncatedEvent = false; ///< the stream ended inside an event (SseParser::finish)
};

/// Folds decoded chunks into an AssembledResponse. Pure (no clock, no I/O): stamps come from
/// the SseEvents, which carry the time their bytes were read.
class StreamAssembler {
public:
    /// Decodes and folds one SSE event. Returns the decoded chunk so a caller can forward live
    /// deltas (e.g. to a GUI) without decoding twice.
    const StreamChunk& add(const SseEvent& event);

    const AssembledResponse& response() const { return m_response; }
    AssembledResponse takeResponse() { return std::move(m_response); }

private:
    AssembledResponse m_response;
    StreamChunk m_last;
};

} // namespace qs
