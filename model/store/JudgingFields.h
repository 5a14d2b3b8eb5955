// SPDX-License-Identifier: MIT
#pragma once

// The file form of RunResult::judging (docs/results-format.md, "Judging"): who judged, the rubric
// as loaded, and every verdict with the exchange it came from (the messages sent, the raw reply).
// The results writer puts the member's run-wide part on one line and one verdict per line.
// Internal to model/store.

#include "model/core/Judging.h"
#include "model/store/ResultFields.h"

namespace qs::results {

/// Whether the file gets a "judging" member: something was judged, or a judge was set up.
/// A run nobody judged writes none, so its file does not grow.
bool hasJudging(const Judging& judging);

/// The run-wide members of "judging": `judge`, `rubric` ({`source`, `raw`} or null),
/// `started_at`, `ended_at`, `complete`, `notes`.
json judgingHeaderToJson(const Judging& judging);
/// A rubric verdict: `endpoint_index`, `test`, `turn`, `iteration`, `scores` ({criterion id: 1–5}),
/// `reason`, `exchange`.
json rubricVerdictToJson(const RubricVerdict& v);
/// A pairwise verdict: `candidate`, `baseline` (endpoint indexes), `test`, `turn`, `iteration`,
/// `candidate_first`, `pick` ("1", "2", "tie", "failed"), `reason`, `exchange`.
json pairVerdictToJson(const PairVerdict& v);
/// The whole member: judgingHeaderToJson plus `rubric_verdicts` and `pair_verdicts` (the writer
/// streams the lists instead).
json judgingToJson(const Judging& judging);

/// The "judging" member of a header. `endpointCount` bounds the endpoint indexes. Throws
/// ResultFileError(BadField) naming the path inside `loc`.
Judging judgingFromJson(const json& j, const Loc& loc, std::size_t endpointCount);

} // namespace qs::results
