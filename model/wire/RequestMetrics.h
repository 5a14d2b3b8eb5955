// SPDX-License-Identifier: MIT
#pragma once

#include "model/core/Measurement.h"
#include "model/core/Response.h"

#include <QString>
#include <QStringList>
#include <optional>

namespace qs {

/// Where the visible answer begins in `content`: after a leaked `</think>` when the content opens
/// with `<think>` or contains a bare `</think>`; content.size() when a `<think>` is never closed.
int visibleContentStart(const QString& content);

/// Index of the character whose arrival completes the first sentence of `text` at or after
/// `from`: the whitespace after one of . ! ? … (closing quotes/brackets may come between), the
/// terminator itself when it ends a finished text, or a CJK 。！？ anywhere. A '.' between digits
/// ("3.5") is not an end. -1 when no sentence is complete yet.
int firstSentenceEnd(const QString& text, int from, bool textIsFinished);

RequestMetrics computeMetrics(const RequestTiming& timing, const AssembledResponse& response);

} // namespace qs
