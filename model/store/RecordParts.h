// SPDX-License-Identifier: MIT
#pragma once

// The parts of a record that RecordReader reads from their JSON, each type-checked with the path in
// every message. Internal to model/store: the quick reader (FastRecordReader) hands the rare parts
// (tool calls, llama-server's timings, errors) to these, so that both readers read them alike.

#include "model/store/ResultFields.h"

namespace qs::results {

/// The count source an id names ("usage", …); anything else fails at `at`.
CountSource countSourceAt(const QString& id, const Loc& at);
TokenUsage usageFromJson(const json& j, const Loc& loc);
ServerTimings timingsFromJson(const json& j, const Loc& loc);
ServerError serverErrorFromJson(const json& j, const Loc& loc);
Failure failureFromJson(const json& j, const Loc& loc);
std::vector<ToolCall> toolCallsFromJson(const json& a, const Loc& loc);

} // namespace qs::results
