// SPDX-License-Identifier: MIT
// Non-inferiority margins: what "not worse than the baseline" allows (docs/decision-profiles.md).
#include "model/decide/DecisionProfile.h"

namespace qs {

bool takesMargin(Criterion::Kind kind)
{
    switch (kind) {
    case Criterion::Kind::MetricNotWorse:
    case Criterion::Kind::GateNotWorse:
    case Criterion::Kind::JudgePairwiseNotWorse:
    case Criterion::Kind::FidelityKlNotWorse:
    case Criterion::Kind::ResourceNotWorse:
        return true;
    default:
        return false;
    }
}

double marginOf(const Criterion& c)
{
    if (!takesMargin(c.kind))
        return 0;
    if (c.margin)
        return *c.margin;
    switch (c.kind) {
    case Criterion::Kind::MetricNotWorse:
    case Criterion::Kind::FidelityKlNotWorse:
        return 1.10;
    case Criterion::Kind::GateNotWorse:
        return 0.05;
    case Criterion::Kind::JudgePairwiseNotWorse:
        return 0.45;
    case Criterion::Kind::ResourceNotWorse:
        return 1.05;
    default:
        return 0;
    }
}

std::optional<QString> marginProblem(Criterion::Kind kind, double value)
{
    switch (kind) {
    case Criterion::Kind::MetricNotWorse:
    case Criterion::Kind::FidelityKlNotWorse:
    case Criterion::Kind::ResourceNotWorse:
        if (value < 1 || value > 10)
            return QStringLiteral("is a ratio from 1 to 10 (1.10 allows the candidate 10 % worse than the "
                                  "baseline), found %1")
                .arg(value);
        return std::nullopt;
    case Criterion::Kind::GateNotWorse:
        if (value < 0 || value >= 1)
            return QStringLiteral("is the pass-rate drop allowed, a fraction from 0 to 1 (0.05 allows 5 "
                                  "points below the baseline), found %1")
                .arg(value);
        return std::nullopt;
    case Criterion::Kind::JudgePairwiseNotWorse:
        if (value <= 0 || value > 0.5)
            return QStringLiteral("is the least win share against the baseline, above 0 and at most 0.5 "
                                  "(0.45: the judge may prefer the baseline slightly), found %1")
                .arg(value);
        return std::nullopt;
    default:
        return QStringLiteral("applies to \"not_worse_than_baseline\" criteria only");
    }
}

QString marginText(const Criterion& c)
{
    const double m = marginOf(c);
    switch (c.kind) {
    case Criterion::Kind::MetricNotWorse:
        if (preferredDirection(c.metric) == Preferred::Higher)
            return QStringLiteral("≥ %1× the baseline's").arg(1 / m, 0, 'f', 3);
        return QStringLiteral("≤ %1× the baseline's").arg(m, 0, 'f', 2);
    case Criterion::Kind::FidelityKlNotWorse:
    case Criterion::Kind::ResourceNotWorse:
        return QStringLiteral("≤ %1× the baseline's").arg(m, 0, 'f', 2);
    case Criterion::Kind::GateNotWorse:
        return QStringLiteral("at most %1 points below the baseline").arg(m * 100, 0, 'g', 3);
    case Criterion::Kind::JudgePairwiseNotWorse:
        return QStringLiteral("win share ≥ %1 %").arg(m * 100, 0, 'g', 3);
    default:
        return {};
    }
}

} // namespace qs
