// SPDX-License-Identifier: MIT
#include "widgets/fidelity/FidelityText.h"

#include "model/decide/report/ReportText.h"

#include <cmath>

namespace qs {

namespace {

const QString kDash = QStringLiteral("—");

bool finite(double v)
{
    return std::isfinite(v);
}

QString percentNumber(double fraction)
{
    return report::number(100.0 * fraction, 1);
}

} // namespace

QString fidelityArmTitle(const DashboardData& data, const FidelityArm& arm)
{
    if (data.result && arm.endpoint >= 0 && arm.endpoint < int(data.result->endpoints.size()))
        return endpointTitle(*data.result, arm.endpoint);
    return arm.endpointLabel;
}

QString fidelityPercent(double fraction)
{
    return finite(fraction) ? percentNumber(fraction) + QStringLiteral(" %") : kDash;
}

QString flipRateText(const FidelityArm& arm)
{
    if (arm.prompts.empty())
        return kDash;
    QString text = fidelityPercent(arm.flipRate);
    if (arm.flipRateCi && finite(arm.flipRateCi->lo) && finite(arm.flipRateCi->hi))
        text += QStringLiteral(" [%1 – %2 %]")
                    .arg(percentNumber(arm.flipRateCi->lo), percentNumber(arm.flipRateCi->hi));
    return text;
}

QString klNumber(double nats)
{
    return finite(nats) ? klText(nats) : kDash;
}

QString klMeanText(const FidelityArm& arm)
{
    if (!arm.klMean || !finite(*arm.klMean))
        return QStringLiteral("not comparable — ") + klMissingWhy(arm);
    QString text = klNumber(*arm.klMean) + QStringLiteral(" nats");
    if (arm.klCi && finite(arm.klCi->lo) && finite(arm.klCi->hi))
        text += QStringLiteral(" [%1 – %2]").arg(klNumber(arm.klCi->lo), klNumber(arm.klCi->hi));
    if (!arm.klComparable)
        text += QStringLiteral(" over %1 of %2 prompts").arg(arm.comparablePrompts).arg(arm.prompts.size());
    return text;
}

QString sharedPrefixText(const FidelityArm& arm)
{
    if (arm.prompts.empty())
        return kDash;
    const double median = finite(arm.medianSharedPrefixTokens) ? arm.medianSharedPrefixTokens : 0;
    const bool whole = median == std::floor(median);
    return QStringLiteral("%1 tokens (mean %2)")
        .arg(report::number(median, whole ? 0 : 1), fidelityPercent(arm.meanSharedPrefixFraction));
}

QString gradeFlipsText(const FidelityArm& arm)
{
    if (arm.gradedPrompts == 0)
        return QStringLiteral("— (no graded prompts)");
    return QStringLiteral("%1 of %2 graded").arg(arm.gradeFlips).arg(arm.gradedPrompts);
}

QString divergenceKindsText(const FidelityArm& arm)
{
    return QStringLiteral("%1 near-ties / %2 confident").arg(arm.nearTies).arg(arm.confidentFlips);
}

QString referenceText(const Fidelity& fidelity)
{
    const QString name = fidelity.referenceLabel.isEmpty()
        ? QStringLiteral("endpoint %1").arg(fidelity.reference)
        : fidelity.referenceLabel;
    return fidelity.referenceMarked
        ? name + QStringLiteral(" — marked as the fidelity reference")
        : name + QStringLiteral(" — the baseline (no endpoint is marked as the reference)");
}

QString firstDivergenceText(const FidelityPrompt& prompt)
{
    if (!prompt.firstDivergence)
        return prompt.identical ? QStringLiteral("identical") : kDash;
    const QString token = QStringLiteral("token %1").arg(*prompt.firstDivergence);
    return prompt.tokensComparable ? token : token + QStringLiteral(" (by characters)");
}

QString referenceRankText(const FidelityPrompt& prompt)
{
    if (prompt.referenceTokenRank)
        return QString::number(*prompt.referenceTokenRank);
    if (prompt.firstDivergence && prompt.tokensComparable && prompt.listedCandidates > 0)
        return QStringLiteral("unlisted (> %1)").arg(prompt.listedCandidates);
    return kDash;
}

QString probabilityText(const std::optional<double>& p)
{
    return p && finite(*p) ? report::number(*p, 3) : kDash;
}

QString divergenceMarkText(const FidelityPrompt& prompt)
{
    if (!prompt.firstDivergence)
        return prompt.identical ? QStringLiteral("Identical to the reference's answer, token for token")
                                : QString();
    QString text = QStringLiteral("Diverges from the reference at token %1").arg(*prompt.firstDivergence);
    if (!prompt.tokensComparable)
        return text + QStringLiteral(" (compared by characters: ")
            + (prompt.note.isEmpty() ? QStringLiteral("the tokens do not line up") : prompt.note)
            + QStringLiteral(")");
    QStringList facts;
    facts << QStringLiteral("the reference's token: rank %1 here").arg(referenceRankText(prompt));
    if (prompt.referenceTokenProb && finite(*prompt.referenceTokenProb))
        facts << QStringLiteral("p = %1").arg(probabilityText(prompt.referenceTokenProb));
    if (prompt.candidateTokenProb && finite(*prompt.candidateTokenProb))
        facts << QStringLiteral("its own choice p = %1").arg(probabilityText(prompt.candidateTokenProb));
    return text + QStringLiteral(" (") + facts.join(QStringLiteral(", ")) + QStringLiteral(")");
}

const QStringList& divergenceBuckets()
{
    static const QStringList buckets {QStringLiteral("0"), QStringLiteral("1–3"), QStringLiteral("4–7"),
        QStringLiteral("8–15"), QStringLiteral("16–31"), QStringLiteral("32–63"), QStringLiteral("64+")};
    return buckets;
}

int divergenceBucket(int tokenIndex)
{
    // Doubling widths: early divergences matter most (the rest of the answer follows from them).
    if (tokenIndex <= 0)
        return 0;
    int bucket = 1;
    for (int upper = 4; tokenIndex >= upper && bucket < int(divergenceBuckets().size()) - 1; upper *= 2)
        ++bucket;
    return bucket;
}

} // namespace qs
