// SPDX-License-Identifier: MIT
#pragma once

// What the simulated model works out rather than knows (SimulatedModel.h): small arithmetic
// ("three boxes of five balls"), clock times ("leaves at 2:40 pm, takes 1 hour and 35 minutes"),
// weekdays ("today is Monday, in ten days"), orderings ("Anna is older than Ben…, who is the
// youngest?") and quadratic equations ("Solve: x^2 - 5x + 6 = 0"). Each answer comes with its
// worked steps as the thought, which is what a thinking model shows in its reasoning.
// Internal to qs_emulator.

#include "tests/support/SimulatedModel.h"

#include <QString>
#include <optional>

namespace qs::emu::detail {

/// The worked answer to a problem in `message`, or nullopt when it holds none it can solve.
std::optional<Answer> reasoningAnswer(const QString& message);

} // namespace qs::emu::detail
