// SPDX-License-Identifier: MIT
#pragma once

#include "model/RequestRecord.h"
#include "model/Suite.h"

#include <QString>
#include <QStringList>
#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <vector>

namespace qs {

struct RunRecord;

/// Quality gates: is the answer behind a measurement usable by a voice assistant? Each gate
/// passes, fails or does not apply, says why in a few words and points at the text that decided
/// it. Rules: docs/quality-gates.md. Patterns and thresholds are data (resources/gates/default.json,
/// overridable per suite), not code.
enum class GateVerdict { Pass, Fail, NotApplicable };

QString gateVerdictId(GateVerdict verdict); ///< "pass", "fail", "not_applicable"

/// Characters [begin, end) of `content` or `reasoning` (UTF-16 units of the whole field, as in
/// AssembledResponse), e.g. what a GUI highlights.
struct TextRange {
    int begin = 0;
    int end = 0;
    QString field; ///< "content" or "reasoning"
    QString what; ///< the pattern or rule that matched, e.g. "bold", "think_tag", "mixed_script"
    bool operator==(const TextRange&) const = default;
};

struct GateResult {
    QString gate;
    GateVerdict verdict = GateVerdict::NotApplicable;
    QString reason; ///< short and specific: "bold "**Tokyo**" at 0–9", "expected Tokyo, not found"
    std::vector<TextRange> ranges;
    /// tool_call failures only: wrong_tool, missing_arguments, invalid_arguments,
    /// should_have_called, should_not_have_called, unparsed, leaked_into_text.
    QString failureClass;

    bool passed() const { return verdict == GateVerdict::Pass; }
    bool failed() const { return verdict == GateVerdict::Fail; }
};

/// The gate names, in report order: non_empty, expected_answer, tool_call, no_markdown,
/// no_thinking_leak, coherent, within_length.
const QStringList& gateNames();

/// A pattern document that cannot be used. path() is where in the document ("no_markdown.patterns.
/// bold"; "gates.…" for a suite's override), problem() what is wrong; what() reads "PATH: PROBLEM".
class GatePatternError : public std::invalid_argument {
public:
    GatePatternError(const QString& path, const QString& problem);
    const QString& path() const { return m_path; }
    const QString& problem() const { return m_problem; }

private:
    QString m_path;
    QString m_problem;
};

/// Compiled gate patterns and thresholds. Cheap to copy (the compiled data is shared and never
/// changes), safe to use from several threads.
class GatePatterns {
public:
    struct Rules; ///< the compiled form, private to QualityGates.cpp

    /// Validates and compiles a pattern document (the format of resources/gates/default.json).
    /// `toolNames` fill the "{tools}" placeholder of tool-call patterns (e.g. `web_search(`);
    /// patterns using it are skipped when there are none. Throws GatePatternError.
    static GatePatterns fromJson(const nlohmann::json& document, const QStringList& toolNames = {});

    /// The validated document the patterns were compiled from (defaults merged with overrides).
    const nlohmann::json& document() const;
    const Rules& rules() const { return *m_rules; }

private:
    GatePatterns() = default; // there is no empty set of patterns: use defaultGatePatterns()
    friend GatePatterns gatePatternsFor(const Suite& suite);
    std::shared_ptr<const Rules> m_rules;
};

/// The built-in patterns (":/gates/default.json"). They are part of the program: a broken file is
/// a build defect and aborts with a message.
GatePatterns defaultGatePatterns();
/// The built-in document, parsed (for merging and for showing).
const nlohmann::json& defaultGatePatternDocument();

/// The defaults with a suite's `gates` object merged over them as a JSON merge patch (RFC 7386),
/// compiled with the suite's tool names and its tests' answer patterns. Throws GatePatternError
/// with a path starting "gates." for an override that does not validate.
GatePatterns gatePatternsFor(const Suite& suite);
/// Only the merge and validation of `overrides` (a suite's "gates" object); what parseSuite runs.
/// Throws GatePatternError with a path starting "gates.".
void validateGateOverrides(const nlohmann::json& overrides);

/// Judges one response against the test. `finalTurn` is false for the earlier turns of a
/// multi-turn test: the test's expectations describe the reply to its last turn, so
/// expected_answer, tool_call (expectations) and the length target do not apply to the others.
/// The result has one entry per gate, in gateNames() order.
std::vector<GateResult> evaluateGates(const RequestRecord& record, const Suite& suite, const SuiteTest& test,
    const GatePatterns& patterns, bool finalTurn = true);

/// Fills record.gates (every gate name → true, false or null) and record.gateDetails
/// ({gate: {verdict, reason, failure_class, ranges: [{field, begin, end, what}]}}). Warm-ups,
/// failed requests and records whose test is not in the suite get null for every gate, with the
/// reason.
void applyGates(RunRecord& record, const Suite& suite, const GatePatterns& patterns);

nlohmann::json toJson(const GateResult& result); ///< one gate_details entry
nlohmann::json toJson(const TextRange& range);

} // namespace qs
