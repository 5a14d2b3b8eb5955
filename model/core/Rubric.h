// SPDX-License-Identifier: MIT
#pragma once

#include <QString>
#include <QStringList>
#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <vector>

// A rubric is data: what an LLM judge grades each answer on (docs/judging.md). Built-ins live in
// resources/judges/*.json; users write their own. Read and checked like suites: unknown keys are
// errors with the closest known key, and every error names the file and the JSON path.

namespace qs {

/// One thing the judge scores, on a 1–5 scale.
struct RubricCriterion {
    QString id; ///< identifier, the key of the judge's "scores" object, e.g. "warm_personal"
    QString title; ///< e.g. "Warm and personal, not generic"
    QString description; ///< what the judge is told to look for
    /// What 1, 3 and 5 mean (any of 1..5 may be given); shown to the judge under the description.
    std::map<int, QString> anchors;
    /// Test ids this criterion applies to; empty = every test.
    QStringList tests;
    bool appliesTo(const QString& test) const { return tests.isEmpty() || tests.contains(test); }
};

/// A rubric file: {"id", "name"?, "description"?, "instructions"?, "criteria": [...]}.
struct Rubric {
    QString id;
    QString name;
    QString description;
    /// Added to the judge's system prompt, e.g. "The assistant's answers are spoken aloud."
    QString instructions;
    std::vector<RubricCriterion> criteria;
    QString source; ///< file path or "builtin:NAME"
    nlohmann::json raw; ///< as loaded (stored in results files for reproducibility)

    /// The criteria that apply to `test`, in rubric order.
    std::vector<const RubricCriterion*> criteriaFor(const QString& test) const;
    const RubricCriterion* criterion(const QString& id) const; ///< nullptr if unknown
};

/// A rubric that cannot be used. what() reads "FILE: PATH: PROBLEM", like SuiteError.
class RubricError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

Rubric parseRubric(const nlohmann::json& json, const QString& sourceName);
Rubric loadRubricFile(const QString& path);
QStringList builtinRubricNames(); ///< "voice-assistant", …
Rubric loadBuiltinRubric(const QString& name);
/// A built-in name, or else a file path. Throws RubricError.
Rubric loadRubric(const QString& nameOrPath);

} // namespace qs
