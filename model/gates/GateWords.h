// SPDX-License-Identifier: MIT
#pragma once

#include <QString>
#include <vector>

namespace qs {

/// Every way Quantscope speaks of one gate, in one row: the tables, the report and the
/// recommendation all read their words here, so adding a gate means adding a row (and its
/// family in model/gates/). Rules behind the words: docs/quality-gates.md.
struct GateWords {
    QString gate; ///< its name, e.g. "no_markdown"
    QString title; ///< a column, a legend, a picker: "No markdown"
    QString reportTitle; ///< a row of the report's quality table: "Non-empty answer"
    QString rule; ///< when it fails, one sentence (tooltips)
    QString failedPhrase; ///< completes "N of M answers …": "contained markdown"
    QString fix; ///< what to change when it fails (the seeds' fixes)
    QString notJudgedHint; ///< why some answers are not judged for it, " (…)"; may be empty
};

/// One row per gate, in gateNames() order.
const std::vector<GateWords>& allGateWords();
/// The row of `gate`; nullptr for a name that is not a gate (an old or hand-edited file).
const GateWords* gateWords(const QString& gate);

} // namespace qs
