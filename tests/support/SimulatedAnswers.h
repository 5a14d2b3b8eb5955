// SPDX-License-Identifier: MIT
#pragma once

// What the simulated model knows (SimulatedModel.h): a table of topics, each recognised by the
// words of the message, with its spoken answer and the thought behind it. The short table
// (SimulatedAnswers.cpp) holds facts, persona answers, refusals, worked problems and the turns
// of the built-in conversations; the long one (SimulatedLongAnswers.cpp) holds the advice,
// explanations and stories worth a paragraph. A simulation, not a model: the built-in suites'
// prompts are in the tables so that the demo's clean endpoints answer them well, and every
// other message falls through to the general rules. Internal to qs_emulator.

#include "tests/support/SimulatedModel.h"

#include <QString>
#include <optional>
#include <span>

namespace qs::emu::detail {

struct Topic {
    const char* all; ///< '|'-separated phrases that must all occur in the lower-case message
    const char* any; ///< '|'-separated phrases of which one must occur; nullptr when none is needed
    Intent intent;
    const char* key; ///< the fact a sloppy model puts in bold; may be empty
    const char* text; ///< the answer; "{assistant}" stands for the assistant's name
    const char* thought; ///< the reasoning behind it (a thinking model's reasoning field)
};

std::span<const Topic> shortTopics();
std::span<const Topic> longTopics();

/// The table's answer to the conversation's last message (the short table first), or a capital
/// city; nullopt when no topic fits.
std::optional<Answer> knownAnswer(const Conversation& c, quint64 variant);

/// A paragraph about whatever follows "tell me about", "explain", "describe" (or a short story
/// when one is asked for): the general rule behind the long table. nullopt when not asked.
std::optional<Answer> explainAnswer(const QString& message, quint64 variant);

} // namespace qs::emu::detail
