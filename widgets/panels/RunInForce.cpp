// SPDX-License-Identifier: MIT
#include "widgets/panels/RunInForce.h"

#include "model/decide/Sequential.h"
#include "model/run/SuiteComposition.h"

#include <algorithm>

namespace qs {

namespace {

QString plural(int n, const QString& one, const QString& many)
{
    return QStringLiteral("%1 %2").arg(n).arg(n == 1 ? one : many);
}

/// How the endpoints take turns and how many requests each has in flight.
QString orderText(const Suite& suite, const RunSettings& s)
{
    QString order;
    switch (s.order) {
    case RunOrder::Interleaved:
        order
            = QStringLiteral("Interleaved order (per test the endpoints take turns, so drift hits every arm "
                             "alike)");
        break;
    case RunOrder::Sequential:
        order = QStringLiteral("Sequential order (all of one endpoint, then the next)");
        break;
    case RunOrder::Parallel:
        order = QStringLiteral("Parallel order (every endpoint at once: only for endpoints on separate "
                               "machines)");
        break;
    }
    if (!suite.defaults.concurrency.empty()) {
        QStringList levels;
        for (int level : suite.defaults.concurrency)
            levels << QString::number(level);
        return order + QStringLiteral(", at the suite's concurrency levels %1.").arg(levels.join(u", "));
    }
    return order
        + (s.concurrency == 1
                ? QStringLiteral(", one request at a time per endpoint.")
                : QStringLiteral(", %1 conversations in flight per endpoint.").arg(s.concurrency));
}

/// What the panel's numbers change of the suite's own, each as "2 runs instead of the suite's 3";
/// a number that changes nothing (the suite's own value, or more prompts than a category has) is
/// not an override.
QStringList overrides(const Suite& suite, const Suite& drawn, const RunSettings& s)
{
    const SuiteDefaults& d = suite.defaults;
    auto anyTest
        = [&suite](auto differs) { return std::any_of(suite.tests.begin(), suite.tests.end(), differs); };
    QStringList out;
    if (s.warmup >= 0 && anyTest([&](const SuiteTest& t) { return t.warmup.value_or(d.warmup) != s.warmup; }))
        out << QStringLiteral("%1 instead of the suite's %2")
                   .arg(plural(s.warmup, QStringLiteral("warm-up"), QStringLiteral("warm-ups")))
                   .arg(d.warmup);
    if (s.runs >= 1
        && anyTest([&](const SuiteTest& t) { return qMax(1, t.runs.value_or(d.runs)) != s.runs; }))
        out << QStringLiteral("%1 instead of the suite's %2")
                   .arg(plural(s.runs, QStringLiteral("run"), QStringLiteral("runs")))
                   .arg(d.runs);
    if (drawn.tests.size() < suite.tests.size())
        out << QStringLiteral("%1 per category instead of every prompt")
                   .arg(plural(s.promptsPerCategory, QStringLiteral("prompt"), QStringLiteral("prompts")));
    if (s.maxTokens
        && anyTest([&](const SuiteTest& t) { return t.maxTokens.value_or(d.maxTokens) != *s.maxTokens; }))
        out << QStringLiteral("max tokens %1 instead of the suite's %2").arg(*s.maxTokens).arg(d.maxTokens);
    return out;
}

/// The "Settings in force" line: what Run will send, counted as the evidence counts it; how; and
/// whose numbers they are. One part per line, so that a narrow dock reads it part by part.
QString inForce(const Suite& suite, const RunSettings& s, bool demo)
{
    // The runner draws the same prompts with the same seed (BenchmarkRunner).
    const Suite drawn = drawPrompts(suite, s.promptsPerCategory, s.seed);
    const QStringList changed = overrides(suite, drawn, s);
    const QString whose = changed.isEmpty()
        ? QStringLiteral("The suite's own warm-ups and repeats, every prompt.")
        : (demo ? QStringLiteral("Overridden here for the demo's short run: ")
                : QStringLiteral("Overridden here: "))
            + changed.join(QStringLiteral(", ")) + u'.';
    return QStringList {compositionText(suiteComposition(drawn, s)), orderText(suite, s), whose}.join(u'\n');
}

/// The in-force line of a run until decided: its rounds, and what ends it.
QString roundsText(const Suite& suite, const RunPanelSettings& s)
{
    QStringList at;
    for (int n : roundSchedule(suite, s.maxPrompts))
        at << QString::number(promptsDrawn(suite, n, s.settings.seed));
    QString text
        = QStringLiteral("Until decided by the Decision tab's profile: looks after %1 distinct prompts; "
                         "stops once every verdict is made")
              .arg(at.join(QStringLiteral(", ")));
    if (s.budgetMinutes > 0)
        text += QStringLiteral(", or before a round would end past %1 min").arg(s.budgetMinutes);
    return text + u'.';
}

} // namespace

QString runInForceText(const Suite& suite, const RunPanelSettings& s)
{
    const QString text = inForce(suite, s.settings, s.demoDefaults);
    return s.untilDecided ? roundsText(suite, s) + u'\n' + text : text;
}

} // namespace qs
