// SPDX-License-Identifier: MIT
#pragma once
// How the Decision view words and colours a recommendation: the outcome a criterion shows (which
// adds "open" to recommend()'s outcomes while the paired comparison is still being computed) and
// the decision's name. Free functions over values, testable without a widget.

#include "model/decide/Recommendation.h"
#include "model/decide/Sequential.h"
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
/// The strong colour of an outcome, for a mark drawn on the base colour (an interval's outline
/// in the looks chart): green, red, amber, grey; Open reads as inconclusive.
QColor outcomeAccent(ShownOutcome outcome, Theme theme);

/// recommend()'s outcome as a row shows it once the comparison exists (never Open): what an
/// until-decided run's look recorded.
ShownOutcome shownOutcome(CriterionResult::Outcome outcome);

/// The line under the banner for an until-decided run (model/decide/Sequential.h), e.g.
/// "Decided after 36 distinct prompts (look 3 of an until-decided run; intervals read at 99.58 %)",
/// "Undecided after 36 distinct prompts: the next round would pass --max-prompts 40", or, while
/// `live`, "Until decided: look 2 after 18 distinct prompts — running".
QString untilDecidedLine(const UntilDecided& run, bool live);
/// "99.58": the level (in %) a look's intervals are read at, 1 − 0.05·share, as the report words it.
QString lookLevelText(double share);

} // namespace qs
