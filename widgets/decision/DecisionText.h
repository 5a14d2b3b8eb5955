// SPDX-License-Identifier: MIT
#pragma once
// How the Decision view words and colours a recommendation: the outcome a criterion shows (which
// adds "open" to recommend()'s outcomes while the paired comparison is still being computed) and
// the decision's name. Free functions over values, testable without a widget.

#include "model/decide/Recommendation.h"
#include "widgets/Theme.h"

#include <QColor>
#include <QString>

namespace qs {

/// What a criterion's row shows. recommend()'s outcomes, plus Open: a criterion that needs the
/// paired comparison before the comparison exists (the first fast evaluation, or a live run). It
/// is not undecidable, only not decided yet.
enum class ShownOutcome { Pass, Fail, Inconclusive, NotMeasured, Open };

/// True for the criteria recommend() judges from Evaluation::comparison (metric_not_worse,
/// gate_not_worse).
bool needsComparison(const Criterion& criterion);
/// The outcome to show for `result`: Open when it needs a comparison `evaluation` does not have
/// and recommend() could only call it inconclusive; else recommend()'s own outcome.
ShownOutcome shownOutcome(const CriterionResult& result, const Evaluation& evaluation);
/// "pass", "fail", "inconclusive", "not measured", "open".
QString shownOutcomeText(ShownOutcome outcome);
/// Why an Open criterion is open, for its tooltip.
QString openExplanation(bool live);

/// "Switch", "Keep baseline", "Inconclusive".
QString decisionTitle(Recommendation::Decision decision);

/// Background and text colour of an outcome's cell or a decision's banner.
struct OutcomeColors {
    QColor background;
    QColor text;
};
OutcomeColors outcomeColors(ShownOutcome outcome, Theme theme);
OutcomeColors decisionColors(Recommendation::Decision decision, Theme theme);

} // namespace qs
