// SPDX-License-Identifier: MIT
#pragma once

#include "model/core/RunRecord.h"
#include "model/evaluate/PairedComparison.h"

#include <QString>
#include <QStringList>
#include <array>
#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

// What the judge's verdicts add up to (docs/judging.md, docs/methodology.md "Judged quality"):
// rubric scores per endpoint × test × criterion, and the blind pairwise comparison of each
// candidate against the baseline with its interval, consistency and position bias. Pure.

namespace qs {

/// Rubric scores of one endpoint on one criterion, for one test or (test empty) all tests.
struct RubricScore {
    int endpoint = 0;
    QString test; ///< empty: every test pooled
    QString criterion; ///< RubricCriterion::id
    int n = 0; ///< answers scored on this criterion
    double median = 0; ///< of the 1–5 scores (meaningful when n > 0)
    double mean = 0;
    std::array<int, 5> histogram {}; ///< how many 1s … 5s
};

/// How rubric grading went for one endpoint.
struct RubricArm {
    int endpoint = 0;
    int graded = 0; ///< answers with a read verdict
    int failed = 0; ///< answers the judge failed on (reply unreadable, timeout, HTTP error)
    int eligible = 0; ///< measured, successful answers there were to grade
};

/// Blind pairwise comparison of one candidate against the baseline. A pair is one test, turn and
/// iteration, judged in both orders.
struct PairwiseResult {
    int candidate = 1;
    int baseline = 0;
    QString candidateLabel;
    QString baselineLabel;
    int pairs = 0; ///< pairs with both orders read (the rest are in `failedPairs`)
    int wins = 0; ///< both orders preferred the candidate
    int losses = 0; ///< both orders preferred the baseline
    int ties = 0; ///< both orders said tie, or the orders disagreed (includes `inconsistent`)
    int inconsistent = 0; ///< the two orders disagreed (counted as ties)
    int failedPairs = 0; ///< pairs with at least one order the judge failed on
    /// consistent pairs / pairs (both orders agreed, tie included); nullopt without pairs.
    std::optional<double> consistency;
    /// Of the single-order judgements that picked an answer (not a tie): the share that picked
    /// answer 1. 0.5 is no position bias. nullopt when none picked.
    std::optional<double> firstPositionRate;
    int positionPicks = 0; ///< the denominator of firstPositionRate
    /// Over distinct prompts (the unit of evidence: a prompt's repeats are one verdict, a
    /// conversation's turns too): a prompt is won when the candidate's share of its pairs (wins
    /// + ½ ties) is above ½, lost when below, tied at ½.
    int prompts = 0;
    int promptWins = 0;
    int promptLosses = 0;
    int promptTies = 0;
    /// Σ per-prompt shares / prompts: the win share the decision's margin is about (ties half).
    std::optional<double> promptWinShare;
    std::optional<Interval> promptWinShareCi; ///< exact over prompts (promptRateInterval)
    /// promptWins / (promptWins + promptLosses): the sign test's convention over prompts, ties
    /// carry no direction. nullopt when no prompt was decided.
    std::optional<double> winRate;
    std::optional<Interval> winRateCi; ///< exact Clopper–Pearson 95 % interval of winRate
    double signTestP = 1; ///< exact two-sided sign test of prompts won against prompts lost
    /// (wins + ½ ties) / pairs, the arena convention, for readers used to it.
    std::optional<double> winOrTieRate;
    /// Median over pairs of (candidate's answer − baseline's answer) in characters: judges prefer
    /// longer answers, a voice assistant wants shorter ones.
    std::optional<double> medianLengthDifference;
    /// Of the decided single-order judgements between answers of different length: the share that
    /// picked the longer one (verbosity bias). nullopt when none.
    std::optional<double> longerPickedRate;
    int lengthPicks = 0; ///< the denominator of longerPickedRate
    /// candidate endpoint index when winRateCi excludes 0.5 towards it, baseline index when
    /// towards the baseline, -1 when no winner (too few pairs, or no clear difference).
    int winner = -1;
    QString verdict; ///< "candidate_better", "baseline_better", "no_clear_difference", "too_few_pairs"
};

/// Everything derived from RunResult::judging.
struct JudgedQuality {
    bool judged = false; ///< the file has a judging
    JudgeIdentity judge;
    std::optional<Rubric> rubric;
    std::vector<RubricArm> rubricArms; ///< per endpoint (when a rubric ran)
    std::vector<RubricScore> rubricScores; ///< endpoint × (all tests, then each test) × criterion
    std::vector<PairwiseResult> pairwise; ///< one per candidate judged against the baseline
    /// A few of the judge's reasons worth quoting (lowest rubric scores, decided pairs), raw.
    struct Quote {
        int endpoint = -1; ///< the answer's endpoint (rubric) or the candidate (pair)
        QString test;
        int turn = 1;
        int iteration = 1;
        QString what; ///< "rubric 2/5 on warm_personal", "pair: preferred the baseline"
        QString reason; ///< the judge's words, raw (escape before rendering)
    };
    std::vector<Quote> quotes;
    QStringList notes;

    const PairwiseResult* pairwiseFor(int candidate) const; ///< nullptr when not judged
    /// The pooled (all tests) score of `endpoint` on `criterion`; nullptr when not graded.
    const RubricScore* score(int endpoint, const QString& criterion, const QString& test = {}) const;
};

/// Below this consistency a judge's pairwise verdicts are not trusted: the guardrail
/// judge_low_consistency fires and a pairwise decision criterion stays inconclusive.
inline constexpr double MinJudgeConsistency = 0.7;

struct JudgeOptions {
    int minPairs = 10; ///< fewer read pairs → "too_few_pairs", never a winner
    int minPrompts = 6; ///< fewer distinct prompts with a read pair → "too_few_pairs" too
};

/// Derives the figures from `result.judging`. Pairwise results are for the baseline the judging
/// was made against (the verdicts carry it); `baseline` only orders the output.
JudgedQuality judgeQuality(const RunResult& result, const JudgeOptions& options = {});

/// Exact Clopper–Pearson interval of `successes` of `n`.
Interval clopperPearsonInterval(int successes, int n, double confidence = 0.95);
/// Exact two-sided sign test: p = min(1, 2·P(X ≤ min(w, l))), X ~ Binomial(w + l, ½).
double signTest(int wins, int losses);

/// For `summary --json`: {"judge": {...}, "rubric": [...], "pairwise": [...]} (docs/judging.md);
/// null when the file has no judging.
nlohmann::json toJson(const JudgedQuality& quality, const RunResult& result);

} // namespace qs
