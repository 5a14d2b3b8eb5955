// SPDX-License-Identifier: MIT
#pragma once

#include "model/core/RunRecord.h"
#include "model/core/Suite.h"
#include "model/decide/DecisionProfile.h"
#include "model/decide/Recommendation.h"

#include <QString>
#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

// Runs that stop when the decision is made (`quantscope run --until-decided`, docs/methodology.md
// §9.8). Prompts are drawn from the suite's pools in rounds, and after each round every criterion
// is judged again. Looking after every round would spend the error again at every look, so the
// verdicts form a confidence sequence: the k-th look may spend 1/(k(k+1)) of the error (the shares
// sum to 1 over any number of looks), every interval is read at 1 − 0.05·share and Holm's
// correction at FamilyAlpha·share. By the union bound over looks, a candidate within every margin
// is called worse, and one beyond a margin passes it, no more often than a run of a fixed size
// promises — whenever the run stops, and whyever. The price is width: the third look reads its
// intervals at 99.6 % instead of 95 %.
namespace qs {

/// The part of the error the k-th look (1-based) may spend: 1/(k(k+1)); 1 for k ≤ 0 (a run of a
/// fixed size looks once, at the end, and spends it all).
double lookShare(int look);

/// The first look comes after at least this many distinct prompts (or the whole suite): an
/// earlier one could rarely decide anything and would spend half the error doing it.
inline constexpr int FirstLookPrompts = 12;
/// "97.5 %", "99.17 %": the two-sided level look `look` reads its intervals at (0: "95 %").
QString lookLevelText(int look);

/// The rounds: how many distinct prompts of each category are drawn in all by the end of each —
/// at least FirstLookPrompts in all, then about 1.5× more each round, up to the whole suite.
/// With `maxPrompts` > 0 the rounds stop before the distinct prompts in all would pass it (the
/// first round always runs). Fixed before the run: only data-independent sizes keep the union
/// bound honest.
std::vector<int> roundSchedule(const Suite& suite, int maxPrompts);
/// Distinct prompts (a conversation counting once) the first `perCategory` of each category make.
int promptsDrawn(const Suite& suite, int perCategory, quint64 seed);

/// One criterion at one look: what the Decision tab draws narrowing and the CLI prints.
struct LookCriterion {
    QString id;
    CriterionResult::Outcome outcome = CriterionResult::Outcome::Inconclusive;
    std::optional<double> estimate;
    std::optional<Interval> interval; ///< at the look's level
    std::optional<double> limit;
    bool worseAbove = true;
};
/// One candidate's verdict at one look.
struct LookVerdict {
    int baseline = 0; ///< the endpoint it was judged against (the run's first)
    int candidate = 1;
    QString candidateLabel;
    Recommendation::Decision decision = Recommendation::Decision::Inconclusive;
    std::vector<LookCriterion> criteria;
};
/// What was known after one round.
struct DecisionLook {
    int look = 1; ///< 1-based
    int prompts = 0; ///< distinct prompts asked so far
    int perCategory = 0; ///< of each category, so far
    double elapsedMs = 0; ///< since the run began
    double share = 1; ///< lookShare(look)
    std::vector<LookVerdict> verdicts;
};

/// Why an until-decided run stopped.
enum class StopReason {
    Running, ///< not yet (or a journal recovered mid-run)
    Decided, ///< every candidate's verdict is made (every criterion decided, or a fail that holds)
    Unfair, ///< a critical guardrail (different models…): more prompts cannot make it a fair test
    MaxPrompts, ///< the next round would pass --max-prompts
    Budget, ///< the next round would not end within --budget-minutes
    PoolExhausted, ///< every prompt of the suite has been asked
    Cancelled,
};
QString stopReasonId(StopReason reason); ///< "running", "decided", "unfair", "max_prompts", …

/// What `RunResult::untilDecided` holds.
struct UntilDecided {
    QString profile; ///< as given (a name or a file)
    int maxPrompts = 0; ///< 0: none
    double budgetMinutes = 0; ///< 0: none
    std::vector<int> schedule; ///< roundSchedule(), per category
    StopReason stop = StopReason::Running;
    QString stopText; ///< one sentence: why it stopped, with the numbers
    std::vector<DecisionLook> looks;
};
nlohmann::json toJson(const UntilDecided& run);
/// The file's record of an until-decided run; nullopt for a run of a fixed size (or one too
/// damaged to read: then the verdict is read as if every scheduled look was taken).
std::optional<UntilDecided> untilDecidedOf(const RunResult& result);

/// The looks a verdict of `result` must account for: those taken, or — for a run that did not
/// say why it stopped (recovered from a journal) — every look its schedule allowed. 0 for a run
/// of a fixed size.
int looksToAccountFor(const RunResult& result);

/// The look's summary of `recommendations` (their criteria's outcomes and intervals).
DecisionLook lookOf(const std::vector<Recommendation>& recommendations, int look, int prompts,
    int perCategory, double elapsedMs);

/// Whether more prompts could still change something: false when every candidate's criteria are
/// all decided (pass, fail or not measured), or a fail holds (the baseline is kept whatever the
/// rest would show), or a critical guardrail makes the comparison unfair (`unfair` is then set).
bool worthAnotherRound(const std::vector<Recommendation>& recommendations, bool* unfair = nullptr);

/// The planner: roughly how many distinct prompts in all a criterion decided on an interval needs
/// before a scheduled look decides it, projecting its interval's half-width (∝ 1/√prompts, from
/// the pilot's own scatter) and each look's stricter level — for an open one, and for one a pilot
/// decided at 95 % (an until-decided run reads stricter levels); nullopt when no scheduled look
/// would (or the estimate sits on the limit).
/// `look` is the look `result` was judged at (0: a run of a fixed size, e.g. a pilot).
/// `promptsAt` holds the distinct prompts in all at each scheduled look.
std::optional<int> promptsToDecide(
    const CriterionResult& result, int look, const std::vector<int>& promptsAt);

/// After round `round` (1-based) of an until-decided run: judges `soFar` with `profile` at the
/// round's look (baseline `baseline`), appends the look to `run`, and says whether to go on. When
/// it should not, `run.stop` and `run.stopText` say why: decided, unfair, the next round would pass
/// `run.maxPrompts` or (at the pace so far) `run.budgetMinutes`, or the suite has no more prompts.
struct RoundVerdict {
    bool more = false;
    std::vector<Recommendation> recommendations;
    /// Open criteria: "ttft_not_worse: roughly 53 distinct prompts" (the planner's estimate).
    QStringList needs;
};
RoundVerdict judgeRound(const RunResult& soFar, UntilDecided& run, const DecisionProfile& profile,
    const Suite& pool, int baseline, int round, double elapsedMs, quint64 seed);

/// One line per criterion of `look`, for the CLI: "  look 2, 24 prompts: ttft_not_worse pass
/// 0.97 [0.93–1.04] (limit 1.10)".
QStringList lookLines(const DecisionLook& look);

} // namespace qs
