// SPDX-License-Identifier: MIT
#pragma once

// The file form of RunResult::telemetry (docs/results-format.md, "Telemetry"): sources with
// their series tables, and samples that carry values by index into them. Shared by the results
// file (written piecewise, one source or sample per line) and the journal (one sample per line
// plus what its source's tables gained). Internal to model/store.

#include "model/core/Telemetry.h"
#include "model/store/ResultFields.h"

namespace qs::results {

/// How much of a source's tables a journal has already written: a journal line carries only the
/// entries past these counts.
struct SourceTablesWritten {
    std::size_t series = 0;
    std::size_t families = 0;
    std::size_t notes = 0;
};

/// The run-wide members of "telemetry": `period_ms` and `notes` (all the journal's header needs).
json telemetryHeaderToJson(const Telemetry& t);
/// A source: its description (`endpoint`, `url`, `kind`, `format`, `process_start_unix`) when
/// `describe`, and its tables (`families`, `series`, `notes`) from the counts in `from` on;
/// a table with nothing new is left out.
json sourceToJson(const TelemetrySource& s, bool describe = true, const SourceTablesWritten& from = {});
/// A sample: `s`, `t`, `d` (ms, µs resolution), `phase`, and `v` ([index, value] pairs; NaN and
/// ±Inf as the strings "NaN", "+Inf", "-Inf") or `error`.
json sampleToJson(const TelemetrySample& s);
/// The whole member: telemetryHeaderToJson plus `sources` and `samples` (for tests and small runs;
/// the results writer streams the lists instead).
json telemetryToJson(const Telemetry& t);

/// Whether two sources have the same description (the tables are not compared).
bool sameDescription(const TelemetrySource& a, const TelemetrySource& b);

/// Reads a source object into `s`. An object with a `url` (required when `first`: a source's
/// first appearance must say what it is) replaces the description; table entries are appended.
/// `endpointCount` bounds `endpoint`. Throws ResultFileError(BadField) naming `loc`.
void readSource(TelemetrySource& s, const json& j, const Loc& loc, std::size_t endpointCount, bool first);
/// Reads one sample: every member's type, the phase, the values' syntax and ascending indexes.
/// The references (`s`, the series indexes) are checked by checkSample once the sources are known.
TelemetrySample readSample(const json& j, const Loc& loc);
/// Checks that sample `s` names an existing source and every value index is in its series table.
void checkSample(const TelemetrySample& s, const std::vector<TelemetrySource>& sources, const Loc& loc);
/// Checks that every value index of `s` is below `seriesCount` (the size of its source's table).
void checkSeries(const TelemetrySample& s, std::size_t seriesCount, const Loc& loc);
/// The "telemetry" member of a header: everything in it, references checked.
Telemetry telemetryFromJson(const json& j, const Loc& loc, std::size_t endpointCount);

} // namespace qs::results
