// SPDX-License-Identifier: MIT
#pragma once

#include "model/decide/DecisionProfile.h"
#include "model/evaluate/Evaluation.h"

#include <QString>
#include <QStringList>
#include <nlohmann/json.hpp>
#include <vector>

namespace qs {

/// How one criterion came out for one candidate.
struct CriterionResult {
    Criterion criterion;
    enum class Outcome {
        Pass,
        Fail,
        Inconclusive, ///< too little data to decide (no judged request, too few pairs)
        /// An optional criterion (a resource budget) whose figure was not measured, e.g. no
        /// telemetry was collected. Never a silent pass: it does not count towards "meets all
        /// criteria", and the headline and what-would-change say what to collect.
        NotMeasured,
    } outcome
        = Outcome::Inconclusive;
    QString measured; ///< the numbers, e.g. "4 of 36 answers leaked thinking", "p50 92.1 ms"
    QString required; ///< e.g. "0", "≤ 120 ms", "≥ 60 % (6/10)", "not worse than Q4_K_M"
    QString explanation; ///< one sentence: why it passed or failed
    /// The evidence of a criterion decided on an interval (unset otherwise): the figure, its 95 %
    /// interval and the limit it must stay within (a threshold, or the baseline's figure moved by
    /// the margin), and whether values above the limit are the worse side.
    std::optional<double> estimate {};
    std::optional<Interval> interval {};
    std::optional<double> limit {};
    bool worseAbove = true;
    int prompts = 0; ///< distinct prompts behind the figure (0: not counted over prompts)
    /// One-sided p-value of "beyond the limit", the input of Holm's correction for a fail; 0 for
    /// a fail no interval decided (an observed count: a leak that happened is certain).
    double pBeyond = 0;
    /// Shown beyond the limit on its own, but not once every criterion of the profile is weighed
    /// (Holm): the outcome is then inconclusive, not a fail.
    bool heldByCorrection = false;
    /// Inconclusive on an interval: roughly how many distinct prompts in all would settle it.
    std::optional<int> promptsToSettle {};
};
QString outcomeId(CriterionResult::Outcome outcome); ///< "pass", "fail", "inconclusive", "not_measured"

/// The verdict for one candidate against the baseline.
struct Recommendation {
    int baseline = 0;
    int candidate = 1;
    QString baselineLabel;
    QString candidateLabel;
    enum class Decision {
        Switch, ///< every measured criterion passed and nothing makes the comparison unfair
        KeepBaseline, ///< at least one criterion failed
        Inconclusive, ///< nothing failed, but something could not be decided or the comparison is unfair
    } decision
        = Decision::Inconclusive;
    QString headline; ///< e.g. "Keep Q4_K_M: NVFP4 fails 3 of 7 criteria (thinking leaks, …)"
    std::vector<CriterionResult> criteria; ///< in profile order
    /// What would change this recommendation, derived from the failed, inconclusive and not
    /// measured criteria (in that order) and the critical guardrails, each a concrete sentence
    /// with the numbers.
    QStringList whatWouldChange;
    /// Critical guardrails that make the comparison not apples-to-apples, stated up front.
    QStringList caveats;
    /// An until-decided run's looks (0: a run of a fixed size) and the part of the error this
    /// verdict spends (1 / (looks·(looks+1)); 1 for a fixed size): intervals are read at
    /// 1 − 0.05·errorShare and Holm at FamilyAlpha·errorShare, so looking never spends the error.
    int looks = 0;
    double errorShare = 1;
};
QString decisionId(Recommendation::Decision decision); ///< "switch", "keep_baseline", "inconclusive"

/// The decision's error rates (docs/decision-profiles.md, "Margins and error rates"):
/// - a false "Keep": a candidate within every margin is failed on at least one criterion at most
///   `FamilyAlpha` of the time, because a fail must survive Holm's step-down correction over the
///   profile's judged criteria (one-sided p of each fail against FamilyAlpha / (m − rank));
/// - a false "Switch": a candidate beyond a margin passes that criterion at most 2.5 % of the time
///   (each pass is a one-sided 97.5 % bound inside its limit, and Switch needs every one: an
///   intersection-union test needs no correction).
inline constexpr double FamilyAlpha = 0.05;
/// Holm's step-down over `criteria`'s fails: a fail whose p-value does not survive becomes
/// inconclusive (heldByCorrection). The family is every criterion judged (not NotMeasured).
void applyHolm(std::vector<CriterionResult>& criteria, double alpha = FamilyAlpha);
/// One sentence for the report and the CLI: what this procedure promises, with the family size.
QString errorRateStatement(const Recommendation& recommendation);

/// Judges every candidate (every endpoint but evaluation.baseline) against the profile, from the
/// evaluation of `result` (gate counts and medians from Evaluation::cells, paired verdicts from
/// Evaluation::comparison — which must have been computed). Never a winner the data cannot
/// support: a failed criterion keeps the baseline; an undecidable one, or a critical guardrail
/// (different models, …), makes the result inconclusive at best. An optional criterion that was
/// not measured changes no decision, but the headline names it.
/// `looks` overrides how many looks the verdict accounts for (model/decide/Sequential.h); unset,
/// the file says (looksToAccountFor: 0 for a run of a fixed size).
std::vector<Recommendation> recommend(const RunResult& result, const Evaluation& evaluation,
    const DecisionProfile& profile, std::optional<int> looks = std::nullopt);

nlohmann::json toJson(const CriterionResult& result);
nlohmann::json toJson(const Recommendation& recommendation);

} // namespace qs
