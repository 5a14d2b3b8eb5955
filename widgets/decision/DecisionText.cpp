// SPDX-License-Identifier: MIT
#include "widgets/decision/DecisionText.h"

#include <QRegularExpression>

namespace qs {

bool needsComparison(const Criterion& criterion)
{
    return criterion.kind == Criterion::Kind::MetricNotWorse
        || criterion.kind == Criterion::Kind::GateNotWorse;
}

ShownOutcome shownOutcome(const CriterionResult& result, const Evaluation& evaluation)
{
    if (result.outcome != CriterionResult::Outcome::Inconclusive)
        return shownOutcome(result.outcome);
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

ShownOutcome shownOutcome(CriterionResult::Outcome outcome)
{
    switch (outcome) {
    case CriterionResult::Outcome::Pass:
        return ShownOutcome::Pass;
    case CriterionResult::Outcome::Fail:
        return ShownOutcome::Fail;
    case CriterionResult::Outcome::NotMeasured:
        return ShownOutcome::NotMeasured;
    case CriterionResult::Outcome::Inconclusive:
        break;
    }
    return ShownOutcome::Inconclusive;
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

QColor outcomeAccent(ShownOutcome outcome, Theme theme)
{
    const ThemeColors& c = themeColors(theme);
    switch (outcome) {
    case ShownOutcome::Pass:
        return c.pass;
    case ShownOutcome::Fail:
        return c.criticalAccent;
    case ShownOutcome::Inconclusive:
    case ShownOutcome::Open:
        return c.warningAccent;
    case ShownOutcome::NotMeasured:
        break;
    }
    return c.mutedText;
}

QString lookLevelText(double share)
{
    // As errorRateStatement() words the level, so the line and the promise under it agree.
    return QString::number(100 * (1 - 0.05 * share), 'g', 4);
}

QString untilDecidedLine(const UntilDecided& run, bool live)
{
    const DecisionLook* last = run.looks.empty() ? nullptr : &run.looks.back();
    const int prompts = last ? last->prompts : 0;
    if (run.stop == StopReason::Running) {
        if (!last)
            return live ? QStringLiteral("Until decided: no look yet — running (the first comes after the "
                                         "first round of prompts)")
                        : QStringLiteral("Until decided: the run stopped before its first look");
        const QString where
            = QStringLiteral("Until decided: look %1 after %2 distinct prompts").arg(last->look).arg(prompts);
        // Not live and still "running": a journal recovered mid-run. recommend() then accounts for
        // every look the schedule allowed (looksToAccountFor), and the promise under it says so.
        return where
            + (live ? QStringLiteral(" — running")
                    : QStringLiteral(" — the run ended without saying why (a recovered journal?)"));
    }
    if (run.stop == StopReason::Decided && last)
        return QStringLiteral("Decided after %1 distinct prompts (look %2 of an until-decided run; "
                              "intervals read at %3 %)")
            .arg(prompts)
            .arg(last->look)
            .arg(lookLevelText(last->share));
    // The stop texts begin "undecided after 24 distinct prompts…" (judgeRound): that beginning is
    // this line's own, so only what follows it is kept ("… in 6.0 min: the next round …").
    static const QRegularExpression lead(
        QStringLiteral("^(?:undecided|stopped|decided) after (all )?(\\d+) distinct prompts"),
        QRegularExpression::CaseInsensitiveOption);
    const QRegularExpressionMatch m = lead.match(run.stopText);
    if (m.hasMatch())
        return QStringLiteral("Undecided after %1%2 distinct prompts%3")
            .arg(m.captured(1), m.captured(2), run.stopText.mid(m.capturedEnd()));
    const QString why = run.stopText.isEmpty() ? stopReasonId(run.stop) : run.stopText;
    return QStringLiteral("Undecided after %1 distinct prompts: %2").arg(QString::number(prompts), why);
}

} // namespace qs
