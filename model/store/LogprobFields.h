// SPDX-License-Identifier: MIT
#pragma once

// Reading the file form of AssembledResponse::logprobs (docs/results-format.md, "logprobs"), as
// core's toJson(LogprobStream) writes it: every value checked, with the path in the message.
// Internal to model/store.

#include "model/core/Logprobs.h"
#include "model/store/ResultFields.h"

namespace qs::results {

/// At most this many tokens in one record's logprobs: far more than any max_tokens a benchmark
/// sends, far fewer than it takes to exhaust memory.
constexpr std::size_t kMaxLogprobTokens = 1'000'000;

/// Reads a record's "logprobs" object. "lp" absent is an unknown logprob, null is −∞; a logprob
/// above 0, a byte outside 0…255, an id below 0, a top list longer than MaxTopCandidates or a
/// `chunks` below 1 (the writer leaves a response without logprobs out) are refused. Throws
/// ResultFileError(BadField) naming `loc`.
LogprobStream logprobsFromJson(const json& j, const Loc& loc);

} // namespace qs::results
