// SPDX-License-Identifier: MIT
#include "model/decide/recommend/CriterionText.h"

#include "model/evaluate/MetricText.h"
#include "model/gates/GateWords.h"

#include <cmath>

namespace qs::criteria {

QString number(double v)
{
    const double a = std::fabs(v);
    if (a >= 100)
        return QString::number(std::llround(v));
    if (a >= 10)
        return QString::number(v, 'f', 1);
    return QString::number(v, 'g', 3);
}

QString withUnit(double v, Metric metric)
{
    return number(v) + u' ' + metricUnit(metric);
}

// A threshold as the profile wrote it: "120 ms", "25 tok/s".
QString limitWithUnit(double v, Metric metric)
{
    return QString::number(v, 'g', 6) + u' ' + metricUnit(metric);
}

QString percent(double fraction)
{
    return QString::number(std::llround(fraction * 100)) + QStringLiteral(" %");
}

QString signedPercent(double fraction)
{
    const auto p = std::llround(fraction * 100);
    return (p > 0 ? QStringLiteral("+") : QString()) + QString::number(p) + QStringLiteral(" %");
}

QString inTest(const Criterion& c)
{
    return c.test.isEmpty() ? QString() : QStringLiteral(" in test \"") + c.test + u'"';
}

QString metricName(Metric metric)
{
    return metricWords(metric).phrase;
}

// "N of M answers <what>" for a gate's failures.
QString failedPhrase(const QString& gate)
{
    const GateWords* w = gateWords(gate);
    return w ? w->failedPhrase : QStringLiteral("failed ") + gate;
}

// The fix the seeds learned for each kind of failure (004_*: v1-v4).
QString gateFix(const QString& gate)
{
    if (const GateWords* w = gateWords(gate))
        return w->fix;
    return QStringLiteral(
        "look at the failing answers in the results (quantscope summary, or the GUI's quality table)");
}

QString metricFix(Metric metric)
{
    return metricWords(metric).fix;
}

QString betterWord(Metric metric, bool better)
{
    if (preferredDirection(metric) == Preferred::Higher)
        return better ? QStringLiteral("faster") : QStringLiteral("slower");
    if (metric == Metric::CompletionTokens || metric == Metric::PromptTokens)
        return better ? QStringLiteral("shorter") : QStringLiteral("longer");
    return better ? QStringLiteral("faster") : QStringLiteral("slower");
}

QString notJudgedHint(const QString& gate)
{
    const GateWords* w = gateWords(gate);
    return w ? w->notJudgedHint : QString();
}

} // namespace qs::criteria
