// SPDX-License-Identifier: MIT
#include "widgets/tables/TableText.h"

#include "model/evaluate/MetricText.h"
#include "model/gates/GateWords.h"
#include "widgets/Theme.h"

#include <cmath>

namespace qs {

QStringList multiTurnTests(const Evaluation* evaluation)
{
    QStringList tests;
    if (evaluation)
        for (const CellStatistics& c : evaluation->cells)
            if (c.turn > 0 && !tests.contains(c.test))
                tests << c.test;
    return tests;
}

QString gateTitle(const QString& gate)
{
    const GateWords* w = gateWords(gate);
    return w ? w->title : gate;
}

QString gateDescription(const QString& gate)
{
    if (gate.isEmpty())
        return QStringLiteral(
            "Every gate together: each request counts once for every gate that applied to it.");
    const GateWords* w = gateWords(gate);
    return w ? w->rule : QString();
}

QString metricTitle(Metric metric)
{
    return metricWords(metric).title;
}

QString metricDescription(Metric metric)
{
    return metricWords(metric).description;
}

QString verdictText(Verdict verdict)
{
    switch (verdict) {
    case Verdict::TooFewPairs:
        return QStringLiteral("Too few pairs");
    case Verdict::NoClearDifference:
        return QStringLiteral("No clear difference");
    case Verdict::CandidateBetter:
        return QStringLiteral("Candidate better");
    case Verdict::BaselineBetter:
        return QStringLiteral("Candidate worse");
    case Verdict::CandidateMore:
        return QStringLiteral("Candidate more");
    case Verdict::CandidateFewer:
        return QStringLiteral("Candidate fewer");
    }
    return verdictId(verdict);
}

QString withMinusSign(QString number)
{
    if (number.startsWith(QLatin1Char('-')))
        number.replace(0, 1, QChar(0x2212));
    return number;
}

QString formatMetricValue(double value, Metric metric)
{
    if (!std::isfinite(value))
        return QStringLiteral("—");
    QString s = metricNumber(value, metric);
    if (s == u"-0" || s == u"-0.0")
        s.remove(0, 1);
    return withMinusSign(s);
}

QString formatMetricWithUnit(double value, Metric metric)
{
    return formatMetricValue(value, metric) + QLatin1Char(' ') + metricUnit(metric);
}

QString formatPValue(double p)
{
    if (!std::isfinite(p))
        return QStringLiteral("—");
    if (p < 0.0001)
        return QStringLiteral("< 0.0001");
    if (p >= 0.995)
        return QStringLiteral("1");
    // 'g' switches to exponents below 1e-4 only, which the branch above already covers.
    return QString::number(p, 'g', 2);
}

QColor readableTextOn(const QColor& background)
{
    // Whichever of black and white contrasts more (WCAG); black is written as near-black.
    return contrastRatio(background, Qt::black) > contrastRatio(background, Qt::white)
        ? QColor(0x1f, 0x23, 0x28)
        : QColor(Qt::white);
}

} // namespace qs
