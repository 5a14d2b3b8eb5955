// SPDX-License-Identifier: MIT
#pragma once

#include "model/gates/GateContext.h"

#include <optional>
#include <vector>

// Internal to model/gates: what the two thinking gates (no_thinking_leak, thinking_follows_request)
// both read of a response. Implemented in ThinkingLeakGate.cpp.

namespace qs::gates {

/// What the request asked of thinking: the test's "thinking", else the suite's, else
/// chat_template_kwargs.enable_thinking in the request body. nullopt: it set none.
std::optional<bool> thinkingSetting(const GateContext& c);

/// Thinking in `content`, sorted by start: the block before the visible answer (one hit,
/// "think_block" or "thinking_before_bare_close_tag") and every no_thinking_leak pattern outside it.
/// evaluateGates finds it once, into GateContext::thinking, for both thinking gates.
std::vector<Hit> findThinking(const QString& content, int visibleStart, const Rules& rules);

} // namespace qs::gates
