// SPDX-License-Identifier: MIT
#pragma once

// What the simulated endpoints report as logprobs (docs/emulator.md, "Logprobs of the simulated
// endpoints"). At each position of an answer the simulated model has one BASE distribution,
// derived from the prompt and the position alone, the same for every profile: the answer's
// token on top, four plausible alternatives below it (the gap to the first drawn uniformly in
// [0, 11) nats, so near-ties are rare but happen). A profile adds its own deterministic noise to
// each listed token's logit (σ = its `noise`, nats; 0 for the reference-like profile, more for
// the quantized-like ones) and answers greedily: where the noise lifts an alternative above the
// answer's token, the alternative is emitted instead and the answer diverges there. The emitted
// tokens are always the top of the distribution reported for them, and the same profile gives
// the same tokens and numbers for the same prompt every time. Internal to qs_emulator.

#include "tests/support/Emulator.h"

#include <QStringList>
#include <optional>

namespace qs::emu::detail {

struct SimulatedTokens {
    QStringList tokens; ///< what the profile emits (the input with its flipped tokens replaced)
    LogprobScript logprobs; ///< one complete distribution per token
    std::optional<int> firstFlip; ///< the first position where the noise changed the token
};

/// `tokens`: the profile's planned answer (reasoning then content); `prompt`: a hash of the
/// conversation; `noise`: the profile's σ; `salt`: the profile's own noise stream.
SimulatedTokens simulatedLogprobs(const QStringList& tokens, quint64 prompt, double noise, quint64 salt);

} // namespace qs::emu::detail
