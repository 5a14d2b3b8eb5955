// SPDX-License-Identifier: MIT
#pragma once

#include "model/core/Suite.h"

#include <QString>
#include <QStringList>
#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace qs {

// What the quality gates look for, as data: the pattern document (resources/gates/default.json,
// overridable by a suite's "gates" object) and its compiled form. It belongs to a suite's
// definition — a suite that overrides it is refused when it loads — so it sits here, below the
// gates that use it (model/gates/QualityGates.h). Rules: docs/quality-gates.md.

/// The gate names, in report order: non_empty, expected_answer, tool_call, no_markdown,
/// no_thinking_leak, thinking_follows_request, coherent, within_length.
const QStringList& gateNames();

/// Each gate's name, as results files, profiles and views spell it.
namespace gate_names {
inline const QString nonEmpty = QStringLiteral("non_empty");
inline const QString expectedAnswer = QStringLiteral("expected_answer");
inline const QString toolCall = QStringLiteral("tool_call");
inline const QString noMarkdown = QStringLiteral("no_markdown");
inline const QString noThinkingLeak = QStringLiteral("no_thinking_leak");
inline const QString thinkingFollowsRequest = QStringLiteral("thinking_follows_request");
inline const QString coherent = QStringLiteral("coherent");
inline const QString withinLength = QStringLiteral("within_length");
} // namespace gate_names

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
    struct Rules; ///< the compiled form (model/core/GateRules.h), read by the gates

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

/// The names of the suite's tools (its function schemas), which fill the "{tools}" placeholder.
QStringList suiteToolNames(const Suite& suite);

} // namespace qs
