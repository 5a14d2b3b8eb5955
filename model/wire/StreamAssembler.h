// SPDX-License-Identifier: MIT
#pragma once

#include "model/wire/SseParser.h"
#include "model/wire/StreamChunk.h"

#include <QString>
#include <QStringList>
#include <optional>
#include <vector>

namespace qs {

/// Folds decoded chunks into an AssembledResponse. Pure (no clock, no I/O): stamps come from
/// the SseEvents, which carry the time their bytes were read.
class StreamAssembler {
public:
    /// Decodes and folds one SSE event. Returns the decoded chunk so a caller can forward live
    /// deltas (e.g. to a GUI) without decoding twice.
    const StreamChunk& add(const SseEvent& event);

    const AssembledResponse& response() const { return m_response; }
    /// The response, its texts trimmed to their length: appending token by token leaves up to
    /// half again as much spare capacity, which every record of a run would otherwise keep.
    AssembledResponse takeResponse();

private:
    AssembledResponse m_response;
    StreamChunk m_last;
};

} // namespace qs
