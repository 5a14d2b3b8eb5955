// SPDX-License-Identifier: MIT
#pragma once

// The simulated model's tool use (SimulatedModel.h): whether a message needs one of the offered
// tools, which one, and its arguments. Like the voice assistant's system prompt asks: notes and
// lists → a notes tool, what the user told it in earlier conversations → a memory tool, anything
// current (weather, news, results, opening hours) → a web search; greetings, thanks, known facts
// and questions the briefing answers → no tool. Internal to qs_emulator.

#include "tests/support/SimulatedModel.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QString>
#include <optional>

namespace qs::emu::detail {

/// The call to make, with every required argument of the tool's schema filled in, or nullopt
/// when no tool is offered, allowed or needed. A tool_choice naming a function always gets it.
std::optional<ToolCallPlan> plannedToolCall(const Conversation& c);

/// What a message asks to look up: the words after "about", else the message without its
/// polite opening ("Can you…", "What's…") and closing punctuation.
QString searchQuery(const QString& message);

/// The notes a message asks for: "my shopping list" → "shopping list", "notes about the kitchen
/// renovation" → "kitchen renovation", "recipe notes for the lentil soup" → "lentil soup recipe".
QString notesTopic(const QString& message);

} // namespace qs::emu::detail
