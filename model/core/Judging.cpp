// SPDX-License-Identifier: MIT
#include "model/core/Judging.h"

namespace qs {

QString pairPickId(PairPick pick)
{
    switch (pick) {
    case PairPick::First:
        return QStringLiteral("1");
    case PairPick::Second:
        return QStringLiteral("2");
    case PairPick::Tie:
        return QStringLiteral("tie");
    case PairPick::Failed:
        break;
    }
    return QStringLiteral("failed");
}

std::optional<int> PairVerdict::preferred() const
{
    switch (pick) {
    case PairPick::First:
        return candidateFirst ? 1 : -1;
    case PairPick::Second:
        return candidateFirst ? -1 : 1;
    case PairPick::Tie:
        return 0;
    case PairPick::Failed:
        break;
    }
    return std::nullopt;
}

} // namespace qs
