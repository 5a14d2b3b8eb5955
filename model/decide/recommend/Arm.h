// SPDX-License-Identifier: MIT
#pragma once

#include "model/decide/DecisionProfile.h"
#include "model/evaluate/Evaluation.h"

#include <optional>
#include <utility>

// What the evaluation holds for one candidate against the baseline.
namespace qs::criteria {

struct Arm {
    const RunResult& result;
    const Evaluation& evaluation;
    int baseline = 0;
    int candidate = 1;
    QString baselineLabel;
    QString candidateLabel;
    const ArmComparison* comparison = nullptr; ///< null when the bootstrap was skipped or the arm is missing
    /// The part of the error this verdict may spend: 1, or less after an until-decided run's
    /// looks (model/decide/Sequential.h); every interval is then read at 1 − 0.05·share.
    double share = 1;
};

bool runHasTest(const Arm& arm, const QString& test); ///< any measured request of `test`
/// Gate counts (passed, judged) over the candidate's all-turns cells (a multi-turn test's every turn
/// counts).
std::pair<int, int> gateCounts(const Arm& arm, const Criterion& c);
/// One test: its all-turns cell, as in the summary table. All tests: the candidate's measured,
/// successful requests pooled (one distribution, not a median of medians).
std::optional<Distribution> distribution(const Arm& arm, const Criterion& c);
double statisticOf(const Distribution& d, const QString& statistic); ///< "p50" (default), "p90", "mean"…
/// Whether `endpoint` has any value of the criterion's metric (or any judged answer of its gate).
bool hasData(const Arm& arm, const Criterion& c, int endpoint);

/// The candidate's pass rate of a gate over distinct prompts: each prompt (a test; a conversation
/// counts once) weighs one, its repeats collapsed to the fraction that passed.
struct PromptRate {
    double passed = 0; ///< sum of the prompts' pass fractions
    int prompts = 0; ///< prompts with at least one judged answer
    double rate() const { return prompts > 0 ? passed / prompts : 0; }
};
PromptRate promptPassRate(const Arm& arm, const Criterion& c);

/// The candidate's measured, successful values of the criterion's metric, one list per distinct
/// prompt (in the order the prompts first ran).
std::vector<std::vector<double>> promptValues(const Arm& arm, const Criterion& c);

/// What a threshold criterion's statistic rests on: a cluster bootstrap over prompts (each
/// resample draws whole prompts), or why the sample cannot estimate it (one prompt; a p99 from
/// fewer values than a distribution-free bound needs).
struct StatisticEvidence {
    std::optional<Interval> interval; ///< 95 %
    std::vector<double> resampled; ///< the bootstrap's statistics, sorted: intervals at any level
    QString why; ///< no interval: the reason, as a sentence fragment
};
StatisticEvidence statisticEvidence(
    const std::vector<std::vector<double>>& clusters, const QString& statistic);

// The pooled row, or the test's row; a run whose pairs span one test has no pooled row, and that
// test's row is then the pooled one.
template <typename Row>
const Row* findRow(const std::vector<Row>& rows, const QString& test, const auto& sameSubject)
{
    const auto turnOf = [](const Row& r) {
        if constexpr (requires { r.turn; })
            return r.turn;
        else
            return 0;
    };
    for (const Row& r : rows)
        if (sameSubject(r) && r.test == test && turnOf(r) == 0)
            return &r;
    if (!test.isEmpty())
        return nullptr;
    const Row* only = nullptr;
    for (const Row& r : rows)
        if (sameSubject(r) && turnOf(r) == 0) {
            if (only)
                return nullptr;
            only = &r;
        }
    return only;
}

} // namespace qs::criteria
