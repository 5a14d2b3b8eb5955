// SPDX-License-Identifier: MIT
#include "widgets/decision/DecisionText.h"

namespace qs {

bool needsComparison(const Criterion& criterion)
{
    return criterion.kind == Criterion::Kind::MetricNotWorse
        || criterion.kind == Criterion::Kind::GateNotWorse;
}

ShownOutcome shownOutcome(const CriterionResult& result, const Evaluation& evaluation)
{
    switch (result.outcome) {
    case CriterionResult::Outcome::Pass:
        return ShownOutcome::Pass;
    case CriterionResult::Outcome::Fail:
        return ShownOutcome::Fail;
    case CriterionResult::Outcome::NotMeasured:
        return ShownOutcome::NotMeasured;
    case CriterionResult::Outcome::Inconclusive:
        break;
    }
    return !evaluation.hasComparison && needsComparison(result.criterion) ? ShownOutcome::Open
                                                                          : ShownOutcome::Inconclusive;
}

QString shownOutcomeText(ShownOutcome outcome)
{
    switch (outcome) {
    case ShownOutcome::Pass:
        return QStringLiteral("pass");
    case ShownOutcome::Fail:
        return QStringLiteral("fail");
    case ShownOutcome::Inconclusive:
        return QStringLiteral("inconclusive");
    case ShownOutcome::NotMeasured:
        return QStringLiteral("not measured");
    case ShownOutcome::Open:
        return QStringLiteral("open");
    }
    return {};
}

QString openExplanation(bool live)
{
    return live
        ? QStringLiteral("Open: the paired comparison with the baseline is computed when the run ends.")
        : QStringLiteral("Open: the paired comparison with the baseline is still being computed.");
}

QString decisionTitle(Recommendation::Decision decision)
{
    switch (decision) {
    case Recommendation::Decision::Switch:
        return QStringLiteral("Switch");
    case Recommendation::Decision::KeepBaseline:
        return QStringLiteral("Keep baseline");
    case Recommendation::Decision::Inconclusive:
        return QStringLiteral("Inconclusive");
    }
    return {};
}

OutcomeColors outcomeColors(ShownOutcome outcome, Theme theme)
{
    const ThemeColors& c = themeColors(theme);
    switch (outcome) {
    case ShownOutcome::Pass:
        return {c.passBackground, c.pass};
    case ShownOutcome::Fail:
        return {c.failBackground, c.criticalAccent};
    case ShownOutcome::Inconclusive:
        return {c.warningBackground, c.text};
    case ShownOutcome::NotMeasured:
        return {c.notApplicable, c.mutedText};
    case ShownOutcome::Open:
        return {c.infoBackground, c.text};
    }
    return {c.base, c.text};
}

OutcomeColors decisionColors(Recommendation::Decision decision, Theme theme)
{
    const ThemeColors& c = themeColors(theme);
    switch (decision) {
    case Recommendation::Decision::Switch:
        return {c.passBackground, c.pass};
    case Recommendation::Decision::KeepBaseline:
        return {c.failBackground, c.criticalAccent};
    case Recommendation::Decision::Inconclusive:
        break;
    }
    return {c.warningBackground, c.text};
}

} // namespace qs
