// SPDX-License-Identifier: MIT
#pragma once

// The simulated model's small talk and memory of the conversation (SimulatedModel.h): hellos,
// thanks, feelings, "I like sailing", what the user said earlier ("what did I say my budget
// was?", "what's my name?"), a tool's result said back, and a friendly fallback. Internal to
// qs_emulator.

#include "tests/support/SimulatedModel.h"

#include <QString>
#include <optional>

namespace qs::emu::detail {

/// The answer to a question about an earlier turn of this conversation ("what did I say…",
/// "remind me…", "…again?"): that turn, said back in the second person. nullopt when the message
/// asks no such thing or no earlier turn shares a word with it (then it is a question for the
/// memory tool, or for nobody).
std::optional<Answer> recallAnswer(const Conversation& c);

/// A tool's result, summarised in one sentence.
Answer toolResultAnswer(const QString& result);

/// Everything else, in order of specificity: name and hobby recall, a question needing live
/// information (no tool offered), greetings, thanks, feelings, what the user likes, a request
/// for an opinion, and a friendly question back.
Answer chatAnswer(const Conversation& c, quint64 variant);

} // namespace qs::emu::detail
