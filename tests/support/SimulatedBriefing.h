// SPDX-License-Identifier: MIT
#pragma once

// What the simulated model reads in the system prompt (SimulatedModel.h): its own name, the
// user's, and the briefing a voice assistant gets every morning (calendar, reminders, notes,
// household facts). A question is answered from the briefing line that shares the most words
// with it, said back in the second person, like a model reading its context. Internal to
// qs_emulator.

#include "tests/support/SimulatedModel.h"

#include <QString>
#include <optional>

namespace qs::emu::detail {

/// "You are Annie, …" → "Annie"; empty when the system prompt names no assistant.
QString assistantName(const QString& system);

/// "…, Nadia's personal voice companion" → "Nadia"; empty when it names no user.
QString userName(const QString& system);

/// The answer to a question from the system prompt's briefing: the line of at most 40 words that
/// shares at least two content words with the question (ties: the first), or nullopt. Statements
/// ("I'm nervous about Wednesday") are not looked up: only questions are.
std::optional<Answer> briefingAnswer(const Conversation& c);

} // namespace qs::emu::detail
