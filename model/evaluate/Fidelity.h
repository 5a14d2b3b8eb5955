// SPDX-License-Identifier: MIT
#pragma once

#include "model/core/Logprobs.h"
#include "model/core/RunRecord.h"
#include "model/evaluate/PairedComparison.h"

#include <QString>
#include <QStringList>
#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

// Quantization fidelity (docs/methodology.md, "Fidelity"): how far each arm's next-token choices
// drift from a reference's, through the API, across engines. Greedy answers to the fidelity
// tests are compared token by token; on the shared prefix (where both arms saw the same context)
// the chosen tokens' logprobs and the top-k distributions are compared; at the first divergence
// the candidate's rank and probability for the reference's token say whether it was a near-tie
// or a confident disagreement. The anchors: llama.cpp's `llama-perplexity --kl-divergence`
// (mean KL, within one engine) and Dutta et al. 2024, "Accuracy is Not All You Need" (flips).
// Pure and thread-safe.

namespace qs {

/// One position's top list made comparable: sorted by logprob (descending), de-duplicated by
/// token id when both have one, else by bytes (keeping the higher logprob), −∞ entries kept.
std::vector<TokenCandidate> normalizedTopList(const std::vector<TokenCandidate>& top);

/// KL(P‖Q) at one position, P the reference's top list, Q the candidate's (both as sent; they
/// are normalized here), in nats, estimated over the union U of both lists plus one tail bucket
/// (docs/methodology.md, "KL over truncated top-k lists"):
/// - a listed token has p = exp(logprob); the list's tail mass is T = max(0, 1 − Σ listed p)
///   (a list summing above 1 by rounding is scaled to sum to 1, T = 0);
/// - a token of U missing from a list gets min(that list's smallest listed p, T / (m + 1)),
///   m = the number of U's tokens missing from that list; the tail bucket keeps what is left of T;
/// - terms with p = 0 contribute 0; q is floored at FidelityProbabilityFloor so one missing
///   mass gives a large but finite term.
/// Exact when both lists hold the whole distribution. nullopt when either list is empty.
/// Never NaN or inf.
std::optional<double> topListKl(
    const std::vector<TokenCandidate>& reference, const std::vector<TokenCandidate>& candidate);
constexpr double FidelityProbabilityFloor = 1e-10;

/// topListKl with how much of each distribution its list held: Σ p of the normalized list, at
/// most 1. The part of P the reference's list leaves out is where the estimate guesses.
struct TopListKlEstimate {
    double kl = 0;
    double referenceMass = 0;
    double candidateMass = 0;
};
std::optional<TopListKlEstimate> topListKlEstimate(
    const std::vector<TokenCandidate>& reference, const std::vector<TokenCandidate>& candidate);

/// Below this mean listed mass of the reference's top lists a KL over them reads low (the tokens
/// outside both lists are merged into one bucket, and merging can only lower a KL; in simulation
/// about half the truth at 60 %): it is reported as a lower bound (docs/methodology.md, "How much
/// the lists hold").
constexpr double FidelityLowerBoundMass = 0.9;

/// How one candidate answer compares with the reference's answer to the same prompt (same test,
/// turn and iteration; measured requests only).
struct FidelityPrompt {
    QString test;
    int turn = 1;
    int iteration = 1; ///< the "run" of the summary's per_prompt
    int referenceRecord = -1; ///< index into RunResult::records
    int candidateRecord = -1;

    bool identical = false; ///< the same tokens (same text when tokens are not comparable)
    /// Both arms' tokens line up by bytes up to the first divergence (same tokenizer, same
    /// segmentation), and both sent logprobs: KL and rank are defined. false: a character-level
    /// shared prefix only, KL "not comparable" (`note` says why).
    bool tokensComparable = false;
    int referenceTokens = 0; ///< aligned tokens of the reference's answer (empty entries skipped)
    int candidateTokens = 0;
    /// Index (0-based, in the reference's aligned tokens) of the first token that differs; when
    /// one answer is a prefix of the other, the shorter one's length. nullopt when identical.
    /// Without comparable tokens: the reference token holding the first differing character.
    std::optional<int> firstDivergence;
    int sharedPrefixTokens = 0; ///< tokens before the divergence (all of them when identical)
    double sharedPrefixFraction = 1; ///< sharedPrefixTokens / referenceTokens (1 for an empty answer)
    int sharedPrefixChars = 0; ///< characters (UTF-16 units of the answers' texts) before it
    std::optional<int> firstDivergenceChar;

    /// Over the shared prefix: mean |logprob_ref − logprob_cand| of the chosen (same) token;
    /// positions where either is unknown or −∞ are skipped. nullopt when none is left.
    std::optional<double> meanAbsLogprobDelta;
    /// Mean topListKl over the compared positions: the shared prefix and the divergence position
    /// itself (both arms saw the same context there). nullopt when not comparable.
    std::optional<double> kl;
    int klPositions = 0; ///< positions that entered `kl`
    std::vector<double> positionKl; ///< topListKl at each of those positions, in order
    /// The reference's token (0-based, in its aligned tokens) at each of those positions: the key
    /// on which two arms compared with the same reference meet (pairedKlRatio).
    std::vector<int> positionToken;
    /// Σ p the reference's top list held at each of those positions (at most 1).
    std::vector<double> positionMass;
    std::optional<double> klListedMass; ///< mean of positionMass; nullopt without positions
    /// The token walk stopped at this reference token: a character written in pieces (byte
    /// tokens) that the two answers' entries do not show position by position, and that could
    /// not be crossed. `kl` covers the positions before it; identical and the divergence come
    /// from the texts (tokensComparable false). nullopt when the walk was not stopped.
    std::optional<int> klStoppedAt;
    /// Reference tokens inside the partial-character gaps the walk crossed (resynchronised after):
    /// their distributions belong to no position the other arm shows, and are never compared.
    int partialTokens = 0;
    int logprobDeltaPositions = 0; ///< positions that entered `meanAbsLogprobDelta`

    /// At the divergence, in the candidate's top list (normalized): the rank (1 = its first
    /// choice) of the reference's token, nullopt when it is not listed (rank > listed).
    std::optional<int> referenceTokenRank;
    std::optional<double> referenceTokenProb; ///< the candidate's p of the reference's token
    std::optional<double> candidateTokenProb; ///< the candidate's p of its own token there
    std::optional<double> referenceOwnProb; ///< the reference's p of its own token there
    int listedCandidates = 0; ///< entries of the candidate's top list there (rank > this when unlisted)

    /// Whether the flip changed the grade: the expected-answer or tool-call gate verdict differs
    /// between the two records. nullopt when neither gate judged both.
    std::optional<bool> gradeChanged;
    QString note; ///< e.g. "tokenizers differ", "no logprobs from this server"
    /// The request asked for logprobs and the server sent none (it ignores `logprobs`).
    bool referenceIgnoredLogprobs = false;
    bool candidateIgnoredLogprobs = false;
};

/// Two arms' KL from one reference, compared where both can be: the candidate's KL over the
/// baseline's on the same prompts and positions (pairedKlRatio).
struct FidelityKlRatio {
    int baseline = -1; ///< endpoint indexes
    int candidate = -1;
    QString baselineLabel;
    QString candidateLabel;
    int prompts = 0; ///< distinct prompts (tests) with a compared position on both arms
    int answers = 0; ///< answers (test, turn, run) that gave those positions
    int positions = 0; ///< reference positions compared on both arms (the same on each)
    std::optional<double> baselineKl; ///< token-pooled KL over those positions
    std::optional<double> candidateKl;
    /// candidateKl / baselineKl; nullopt without positions or when baselineKl is 0 (the baseline
    /// answers as the reference does, or is the reference).
    std::optional<double> ratio;
    /// Paired percentile bootstrap of `ratio` over prompts (a prompt's runs and turns resampled
    /// together); from 2 prompts on, and only when computed with intervals.
    std::optional<Interval> ratioCi;
    std::optional<double> listedMass; ///< the reference's mean listed mass over those positions
    bool lowerBound = false; ///< listedMass < FidelityLowerBoundMass: both KLs read low
    QString note; ///< why `ratio` is missing, or that the lists held too little; empty otherwise
};

/// One arm compared with the reference over every fidelity prompt both answered.
struct FidelityArm {
    int endpoint = 0;
    int reference = 0;
    QString endpointLabel;
    QString referenceLabel;
    std::vector<FidelityPrompt> prompts; ///< in the order of the reference's records
    /// Prompts not compared because either answer failed (never counted as flips); they are not
    /// in `prompts`.
    int failedPrompts = 0;

    int identical = 0;
    double flipRate = 0; ///< 1 − identical / prompts (0 without prompts)
    std::optional<Interval> flipRateCi; ///< exact Clopper–Pearson 95 %
    /// Token-pooled mean KL over every compared position of the comparable prompts (the
    /// convention of llama-perplexity's "Mean KLD"), with a bootstrap interval over prompts.
    std::optional<double> klMean;
    std::optional<Interval> klCi;
    std::optional<double> klP99; ///< 99th percentile of the per-position KL
    bool klComparable = false; ///< every prompt's tokens were comparable (klMean over all of them)
    int comparablePrompts = 0;
    int klPrompts = 0; ///< prompts with a position in klMean (stopped walks give their prefix)
    int partialTokens = 0; ///< Σ FidelityPrompt::partialTokens
    /// The reference's mean listed mass over klMean's positions (token-pooled like klMean).
    std::optional<double> klListedMass;
    /// klListedMass < FidelityLowerBoundMass: klMean reads low, a lower bound of the drift;
    /// `klLowerBoundNote` says so in words.
    bool klLowerBound = false;
    QString klLowerBoundNote;
    /// This arm against the evaluation's baseline (pairedKlRatio), when this arm is neither the
    /// baseline nor the reference and the baseline has figures of its own (or is the reference).
    std::optional<FidelityKlRatio> klVsBaseline;
    std::optional<double> meanAbsLogprobDelta; ///< token-pooled over the shared prefixes
    double medianSharedPrefixTokens = 0;
    double meanSharedPrefixFraction = 1;
    int gradedPrompts = 0; ///< prompts with gradeChanged known
    int gradeFlips = 0; ///< prompts whose grade changed
    /// Of the divergences: how many were near-ties (the candidate gave the reference's token
    /// p ≥ 0.5 × its own choice's) and how many confident (the reference's token unlisted or
    /// p < 0.1 × its own choice's).
    int nearTies = 0;
    int confidentFlips = 0;
    /// Why a number is missing for the whole arm, e.g. "no logprobs from this server (it ignores
    /// `logprobs`)"; empty when all is well.
    QString support;
};

struct Fidelity {
    int reference = -1; ///< endpoint index; -1 when nothing was measured
    int baseline = -1; ///< the evaluation's baseline, against which klVsBaseline is paired
    bool referenceMarked = false; ///< the file marks it (`--reference`); false: it is the baseline
    QString referenceLabel;
    std::vector<FidelityArm> arms; ///< every other endpoint with fidelity prompts, in endpoint order
    std::vector<int> records; ///< every fidelity record (measured), indexes into RunResult::records
    QStringList notes;
    bool measured() const { return !arms.empty(); }
};

/// Compares one candidate record with the reference record of the same prompt. Pure.
FidelityPrompt compareAnswers(const RunRecord& reference, const RunRecord& candidate);

/// Fidelity of every endpoint against `reference` (−1: the file's marked reference, else
/// `baseline`) over the measured records of the fidelity tests (records whose request asked for
/// logprobs, or tests the stored suite marks `"fidelity": true`). Empty when there are none.
/// `withIntervals` = false skips the bootstrap of `klCi` (the guardrails and a live run's fast
/// pass need only the point values).
Fidelity computeFidelity(
    const RunResult& result, int baseline, int reference = -1, bool withIntervals = true);

/// The candidate arm's KL against the baseline arm's, both from the same reference, compared
/// paired (docs/methodology.md, "Paired KL"): the contract the decision layer relies on.
///
/// - Arms are found by endpoint index in `fidelity.arms`. `baseline` may be the reference itself:
///   its KL is then 0 at every position, `baselineKl` is 0, `ratio` nullopt, and the candidate's
///   positions are all of its own.
/// - Only answers (test, turn, run) with KL positions on BOTH arms count, and in each only the
///   reference positions both arms compared: the shared prefixes up to the earlier of the two
///   divergences, that position included, minus positions either arm could not compare
///   (partial-character gaps, missing top lists). So both KLs are over exactly the same
///   positions, conditioned on the same reference prefix.
/// - `baselineKl`, `candidateKl`: token-pooled means over those positions; `ratio` =
///   candidateKl / baselineKl (ratio of sums): > 1 means the candidate drifts more.
/// - `ratioCi`: percentile bootstrap (`options`: 10,000 resamples, fixed seed by default) that
///   resamples PROMPTS — a test's runs and turns are one cluster, so repeats of a greedy prompt
///   never count as independent evidence — and recomputes the ratio of sums; nullopt with fewer
///   than 2 prompts, when `withInterval` is false, or when the ratio is undefined in more than
///   half of the resamples.
/// - `listedMass`/`lowerBound`: the reference's mean listed mass over those positions; below
///   FidelityLowerBoundMass both KLs read low (the ratio is then less certain than its interval).
/// - Never throws; nothing found gives prompts = positions = 0 and a `note`.
FidelityKlRatio pairedKlRatio(const Fidelity& fidelity, int baseline, int candidate, bool withInterval = true,
    const BootstrapOptions& options = {});

/// A KL divergence in nats, without the unit, as every view writes it: "0", "0.0312", "1.24",
/// "3.2e-05" (three significant digits; one decimal of mantissa below 0.001).
QString klText(double nats);
/// Why an arm has no mean KL, in the evaluation's words: its support note ("no logprobs from this
/// server …"), else the first not-comparable prompt's ("tokenizers differ").
QString klMissingWhy(const FidelityArm& arm);

/// `summary --json`'s "fidelity": one entry per compared arm, {"endpoint", "reference", "prompts",
/// "identical", "flip_rate", "kl_mean", "kl_comparable", "kl_listed_mass", "kl_lower_bound",
/// "kl_lower_bound_note", "kl_vs_baseline": null | {"baseline", "prompts", "answers",
/// "positions", "baseline_kl", "candidate_kl", "ratio", "ratio_ci", "listed_mass",
/// "kl_lower_bound", "note"}, "median_shared_prefix_tokens", "per_prompt": [{"test", "run",
/// "first_divergence", "reference_token_rank", "reference_token_prob", "kl", "kl_listed_mass",
/// "kl_stopped_at", "partial_tokens", …}], …} (docs/results-format.md, "summary --json").
/// Labels, not indexes, name the endpoints. Never NaN or inf (null instead).
nlohmann::json toJson(const Fidelity& fidelity);

} // namespace qs
