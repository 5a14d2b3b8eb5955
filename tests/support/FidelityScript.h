// SPDX-License-Identifier: MIT
#pragma once

// Two scripted arms that agree up to a chosen token and then diverge with a chosen margin, and
// the fidelity numbers they must give (docs/emulator.md, "Logprobs"), so the fidelity measure
// can be tested exactly end to end: serve `reference` from one emulator and `candidate` from
// another, and compare what evaluate/Fidelity computes with `expected`.
//
// Every position lists a COMPLETE distribution: the chosen token(s) and `fillers` other tokens
// whose probabilities sum to 1 (up to float32 rounding, ~1e-7), and both arms list the same
// tokens at each compared position. So the KL over the union of the two lists needs no tail:
//
//     KL(ref‖cand) at position i = Σ_t p_ref(t) · (ln p_ref(t) − ln p_cand(t)),  p = exp(logprob),
//
// summed over the listed tokens t, in nats (natural log), computed from the float32-rounded
// logprobs the emulator sends (serverPrecision), so it is what a client can recompute from the
// wire. Compare with a tolerance of about 1e-6 (the sums are 1 only to float precision).

#include "tests/support/Emulator.h"

#include <QStringList>
#include <optional>
#include <vector>

namespace qs::emu {

struct DivergenceSpec {
    QStringList reference; ///< the reference arm's answer, one entry per token
    int divergeAt = 0; ///< k: the first token the candidate chooses differently (0 ≤ k < reference.size())
    /// The candidate's tokens from k on; the first must differ from reference[k]. After it the
    /// answers continue differently.
    QStringList candidateTail;
    double referenceProb = 0.8; ///< p each arm gives its own chosen token (the reference everywhere)
    /// On the shared prefix (0…k−1) the candidate's logprob of the same chosen token is the
    /// reference's minus `drift`, so the mean |Δlogprob| there is `drift` (up to rounding).
    double drift = 0.1;
    double candidateProb = 0.6; ///< at k: the candidate's p of its own token
    /// At k: ln p_cand(its own token) − ln p_cand(the reference's token) (> 0: greedy picks its own).
    double margin = 0.5;
    int fillers = 3; ///< other tokens listed at every position (at least 1)
    /// Reference tokens (indexes below k) that both arms write as a character split across
    /// tokens: each is one character of two or more UTF-8 bytes (e.g. "é"), its position's
    /// distribution its last byte piece's (listed as `<0xA9>`), the bytes before held back by the
    /// server (docs/emulator.md, "Split characters"). No server shows such a position as one of
    /// its own, so the fidelity measure must leave it out.
    std::vector<int> sharedSplits;
    /// The candidate's own token at k (candidateTail's first, one character of two or more bytes)
    /// is written in pieces: the position a server shows for it is its last piece's, not the one
    /// where it parted from the reference, so nothing is comparable at k.
    bool candidateSplitsAtK = false;
};

/// What evaluate/Fidelity must find for the pair (positions are token indexes of the answer).
struct DivergenceExpectation {
    int firstDivergence = 0; ///< k
    int sharedPrefixTokens = 0; ///< k
    int referenceTokenRank = 0; ///< rank of the reference's token in the candidate's list at k (1 = first)
    double referenceTokenProb = 0; ///< the candidate's p of the reference's token at k
    double candidateTokenProb = 0; ///< the candidate's p of its own token at k
    double referenceOwnProb = 0; ///< the reference's p of its own token at k
    /// The positions where KL is comparable: 0…k less the split characters' (and less k when the
    /// candidate splits there).
    std::vector<int> klPositions;
    std::vector<double> kl; ///< KL(ref‖cand) at those positions
    double klMean = 0; ///< their mean
    /// Mean |ln p_ref − ln p_cand| of the chosen token over positions 0…k−1 that are not split;
    /// nullopt when none is left.
    std::optional<double> meanAbsLogprobDelta;
    /// The candidate's token at k is a split character: no rank or probabilities at k (all 0).
    bool divergenceHidden = false;
};

struct ScriptedDivergence {
    Script reference; ///< content = spec.reference, with its logprobs
    Script candidate; ///< content = reference[0…k) + candidateTail, with its logprobs
    DivergenceExpectation expected;
};

/// Builds both arms' scripts (fast timing: 5 ms TTFT, 1000 tok/s) and the numbers they give.
/// Out-of-range parameters are clamped: k into the reference, fillers ≥ 1, the candidate's
/// mass at k below 0.98; an empty or non-diverging tail gets a token of its own.
ScriptedDivergence scriptedDivergence(const DivergenceSpec& spec);

} // namespace qs::emu
