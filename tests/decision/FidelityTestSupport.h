// SPDX-License-Identifier: MIT
#pragma once

// Fidelity figures built by hand (Evaluation::fidelity), for the criteria and report tests: the
// numbers are the evaluate stage's job, what the decision and the report make of them is ours.
#include "model/evaluate/Fidelity.h"

#include <QString>
#include <optional>

namespace qs::test {

/// One arm of `prompts` distinct fidelity prompts (tests "fid-1", "fid-2"…), the first `identical` of them
/// identical to the reference's 20-token answer, prompt i of the others diverging at token i (a
/// near-tie when i is even, a confident flip when odd). With `kl`, every prompt's tokens are
/// comparable and its KL is `kl` (identical) or 2·`kl`, the arm's mean `kl`; without, the
/// tokenizers differ and KL is not comparable.
inline FidelityArm fidelityArm(int endpoint, const QString& label, int reference,
    const QString& referenceLabel, int prompts, int identical, std::optional<double> kl)
{
    FidelityArm a;
    a.endpoint = endpoint;
    a.endpointLabel = label;
    a.reference = reference;
    a.referenceLabel = referenceLabel;
    for (int i = 0; i < prompts; ++i) {
        FidelityPrompt p;
        p.test = QStringLiteral("fid-%1").arg(i + 1);
        p.iteration = 1;
        p.referenceTokens = 20;
        p.candidateTokens = 20;
        p.identical = i < identical;
        p.tokensComparable = kl.has_value();
        if (!p.identical) {
            p.firstDivergence = i % 20;
            p.firstDivergenceChar = 4 * (i % 20);
            p.sharedPrefixTokens = i % 20;
            p.sharedPrefixFraction = (i % 20) / 20.0;
            p.sharedPrefixChars = 4 * (i % 20);
            if (kl) {
                const bool nearTie = i % 2 == 0;
                p.referenceTokenRank = nearTie ? 2 : std::optional<int>();
                p.referenceTokenProb = nearTie ? 0.4 : std::optional<double>();
                p.candidateTokenProb = nearTie ? 0.5 : 0.95;
                p.referenceOwnProb = 0.55;
                p.listedCandidates = 20;
                (nearTie ? a.nearTies : a.confidentFlips) += 1;
            }
            p.gradeChanged = i % 3 == 0;
            a.gradedPrompts += 1;
            a.gradeFlips += i % 3 == 0;
        } else {
            p.sharedPrefixTokens = 20;
            p.sharedPrefixChars = 80;
        }
        if (kl) {
            p.kl = p.identical ? *kl : 2 * *kl;
            p.klPositions = p.sharedPrefixTokens + (p.identical ? 0 : 1);
            p.meanAbsLogprobDelta = 0.01;
        } else {
            p.note = QStringLiteral("tokenizers differ");
        }
        a.prompts.push_back(p);
    }
    a.identical = identical;
    a.flipRate = prompts > 0 ? 1.0 - double(identical) / prompts : 0;
    a.klMean = kl;
    a.klComparable = kl.has_value();
    a.comparablePrompts = kl ? prompts : 0;
    if (kl) {
        a.klCi = Interval {*kl * 0.8, *kl * 1.25};
        a.klPrompts = prompts;
        a.klP99 = 2 * *kl;
        a.meanAbsLogprobDelta = 0.01;
    }
    a.medianSharedPrefixTokens = identical * 2 >= prompts ? 20 : 5;
    a.meanSharedPrefixFraction = 0.6;
    return a;
}

} // namespace qs::test
