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

bool sameJudge(const JudgeIdentity& a, const JudgeIdentity& b)
{
    return a.spec == b.spec && a.model == b.model && (a.url == b.url || (a.simulated && b.simulated));
}

void putVerdict(Judging& judging, RubricVerdict verdict)
{
    for (RubricVerdict& v : judging.rubricVerdicts)
        if (v.answer == verdict.answer) {
            v = std::move(verdict);
            return;
        }
    judging.rubricVerdicts.push_back(std::move(verdict));
}

void putVerdict(Judging& judging, PairVerdict verdict)
{
    const auto same = [&](const PairVerdict& v) {
        return v.candidate == verdict.candidate && v.baseline == verdict.baseline && v.test == verdict.test
            && v.turn == verdict.turn && v.iteration == verdict.iteration
            && v.candidateFirst == verdict.candidateFirst;
    };
    for (PairVerdict& v : judging.pairVerdicts)
        if (same(v)) {
            v = std::move(verdict);
            return;
        }
    judging.pairVerdicts.push_back(std::move(verdict));
}

} // namespace qs
