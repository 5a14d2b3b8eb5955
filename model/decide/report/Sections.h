// SPDX-License-Identifier: MIT
#pragma once

#include "model/decide/report/Context.h"
#include "model/decide/report/Document.h"

// The sections of the report, in document order (Report.h lists what each holds). Each appends
// its blocks to the document.
namespace qs::report {

void titleSection(Doc& d, const Context& cx); ///< title, date, sources
/// The answer on page 1: per candidate the verdict in one sentence, the criteria that decided it
/// with their figures, what would change it first and the error rates; the warnings by title.
void summarySection(Doc& d, const Context& cx);
void endpointsSection(Doc& d, const Context& cx); ///< the endpoints compared
void warningsSection(Doc& d, const Context& cx); ///< every methodology warning
void methodologySection(Doc& d, const Context& cx);
void resultsSection(Doc& d, const Context& cx); ///< the comparison tables
/// "Prompt length and prefill" (Evaluation::prefill): ms of TTFT per 1,000 uncached prompt tokens
/// per endpoint with its interval and source, the chart's figure, correctness by context length
/// and depth, TTFT and memory at each length, and the prefix-cache mode the suite measured.
/// Nothing when the run has neither context-sweep nor multi-turn tests.
void contextSection(Doc& d, const Context& cx);
/// What each server spent: memory idle / 1 / N, power, energy per token, the server's own counts
/// and histograms beside the client's, the TTFT breakdown, every figure's source; "not measured"
/// and how to collect it when the run has no telemetry.
void resourcesSection(Doc& d, const Context& cx);
/// What an LLM judge said (Evaluation::judged): the judge's identity, rubric scores per test and
/// endpoint, the blind pairwise comparison with its interval, consistency and position bias, the
/// judge warnings, and a few of its reasons quoted verbatim. Nothing when nothing was judged.
void judgedQualitySection(Doc& d, const Context& cx);
/// How far each arm's greedy next-token choices drift from the reference's (Evaluation::fidelity):
/// the method in words, one row per arm (flips, KL or why it is not comparable, shared prefix,
/// divergences), where the answers first diverge, the prompts that drifted most, what a server
/// could not send. Nothing when fidelity was not measured.
void fidelitySection(Doc& d, const Context& cx);
void chartsSection(Doc& d, const Context& cx);
void samplesSection(Doc& d, const Context& cx); ///< sample responses side by side
/// The seeds' drop-in replacement checklist per candidate: ✓ / ✗ / not measured, with the numbers.
void checklistSection(Doc& d, const Context& cx);
void verdictSection(Doc& d, const Context& cx); ///< per criterion, and what would change it
void appendixSection(Doc& d, const Context& cx); ///< server properties, request settings

/// `text` cut into plain and failing pieces; overlapping or touching ranges become one piece.
std::vector<std::pair<QString, bool>> segmentsOf(
    const QString& text, std::vector<std::pair<int, int>> ranges);

} // namespace qs::report
