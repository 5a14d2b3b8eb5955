// SPDX-License-Identifier: MIT
#pragma once

#include "model/core/RunRecord.h"
#include "model/evaluate/Statistics.h"

#include <QString>
#include <array>
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

namespace qs {

// Paired A/B statistics: every prompt ran on every arm, so each measured request of the
// baseline has a twin on the candidate (same test, turn and iteration). Formulas, seed and the
// verdict rule: docs/methodology.md §9.

struct Interval {
    double lo = 0;
    double hi = 0;
    bool contains(double v) const { return lo <= v && v <= hi; }
};

struct BootstrapOptions {
    int resamples = 10000;
    /// Fixed, so that the same data always gives the same interval (reports can be diffed).
    std::uint64_t seed = 0x5153'7461'7473'0001ULL;
    double confidence = 0.95;
};

/// One request measured on both arms.
struct PairedValue {
    double baseline = 0;
    double candidate = 0;
};

/// A statistic of a set of pairs; nothing when it is undefined for that set.
using PairStatistic = std::function<std::optional<double>(const std::vector<PairedValue>&)>;

/// Percentile bootstrap interval of `statistic`: `resamples` times, draw each stratum's pairs with
/// replacement (keeping every stratum's size, so a pooled row keeps its mix of tests and turns),
/// evaluate the statistic, and take the (1 − c)/2 and (1 + c)/2 type-7 percentiles. Indices come
/// from std::mt19937_64(seed) as `engine() % size` (the engine's output is fully specified by the
/// standard, so the result is the same on every platform). Nothing when there are no pairs or
/// when the statistic is undefined for more than half of the resamples.
std::optional<Interval> bootstrapInterval(const std::vector<std::vector<PairedValue>>& strata,
    const PairStatistic& statistic, const BootstrapOptions& options = {});

/// median(candidate) / median(baseline); nothing unless median(baseline) > 0.
std::optional<double> ratioOfMedians(const std::vector<PairedValue>& pairs);
/// median of candidateᵢ / baselineᵢ; nothing unless every baselineᵢ > 0.
std::optional<double> medianOfPairedRatios(const std::vector<PairedValue>& pairs);
/// median of candidateᵢ − baselineᵢ.
std::optional<double> medianOfPairedDifferences(const std::vector<PairedValue>& pairs);
/// Hodges–Lehmann estimate of the location of `differences`: the median of the Walsh averages
/// (dᵢ + dⱼ)/2, i ≤ j.
std::optional<double> hodgesLehmann(const std::vector<double>& differences);

enum class WilcoxonMethod {
    Auto, ///< exact for up to 50 non-zero differences, normal approximation above
    Exact, ///< exact permutation distribution of W+ given the (mid)ranks, ties included
    Normal, ///< normal approximation with tie and continuity correction
};

/// Wilcoxon signed-rank test of "the differences are symmetric about 0", two-sided. Zero
/// differences are dropped (Wilcoxon's original method, scipy's default `zero_method="wilcox"`);
/// tied |d| get mid-ranks. |d| within 1e-9·max(1, max|d|) of each other count as tied, and of 0
/// as zero, so that floating-point noise does not break ties.
struct WilcoxonResult {
    int n = 0; ///< non-zero differences ranked
    int zeros = 0; ///< zero differences dropped
    double wPlus = 0; ///< sum of the ranks of positive differences
    double wMinus = 0;
    double p = 1; ///< two-sided
    bool exact = true;
    std::optional<double> z; ///< the normal approximation's statistic, when used
    /// Matched-pairs rank-biserial correlation (W+ − W−)/(W+ + W−) in [−1, 1]: +1 when every
    /// candidate value is higher, −1 when every one is lower, 0 for n = 0.
    double rankBiserial = 0;
};
WilcoxonResult wilcoxonSignedRank(
    const std::vector<double>& differences, WilcoxonMethod method = WilcoxonMethod::Auto);

/// Exact McNemar test (two-sided binomial test of the discordant pairs against ½):
/// p = min(1, 2·P(X ≤ min(b, c))), X ~ Binomial(b + c, ½); 1 when there are no discordant pairs.
double mcnemarExactP(int baselineOnly, int candidateOnly);

/// Wilson score interval of a proportion. Counts may be fractional: a prompt whose repeats
/// disagree contributes its pass fraction (PromptEvidence).
Interval wilsonInterval(double successes, double n, double confidence = 0.95);

/// Newcombe's square-and-add interval (1998, method 10, with the ψ correction used by Fagerland,
/// Lydersen & Laake) for the difference of two paired proportions p₁ − p₂, where p₁ = (both +
/// firstOnly)/n and p₂ = (both + secondOnly)/n. Nothing for n = 0. The cells may be fractional
/// (each prompt's table normalised to 1 when its repeats disagree): the interval then treats each
/// prompt as one unit, which is conservative for averaged outcomes.
std::optional<Interval> newcombePairedInterval(
    double both, double firstOnly, double secondOnly, double neither, double confidence = 0.95);

/// Standard normal quantile (for the confidence level's z).
double normalQuantile(double p);

enum class Verdict {
    TooFewPairs,
    NoClearDifference,
    CandidateBetter,
    BaselineBetter,
    CandidateMore, ///< for metrics that are neither better nor worse (completion_tokens)
    CandidateFewer,
};
QString verdictId(Verdict verdict); ///< "too_few_pairs", "no_clear_difference", "candidate_better"…

/// The decision rule: fewer than `minPairs` pairs → too few pairs. Otherwise the ratio interval
/// when there is one (it must exclude 1), else the difference interval (it must exclude 0); an
/// interval that touches no-difference, or no interval at all, gives "no clear difference".
Verdict decideVerdict(int pairs, int minPairs, const std::optional<Interval>& ratioCi,
    const std::optional<Interval>& differenceCi, Preferred preferred);

struct ComparisonOptions {
    BootstrapOptions bootstrap;
    /// Upper bound on the bootstrap's work: resamples × pairs, summed over every interval of the
    /// comparison. A run of ordinary size never reaches it; a results file with tens of thousands
    /// of pairs would otherwise take hours, so comparePaired() lowers the resample count (never
    /// below `minResamples`) and reports the count it used in PairedComparison::options.
    std::int64_t maxBootstrapDraws = 400'000'000;
    int minResamples = 1000;
    int minPairs = 5; ///< a row over one prompt's repeats needs this many pairs for a verdict
    /// A row over prompts needs this many distinct prompts: fewer, and the sign test cannot give
    /// a 95 % interval of their median (PromptEvidence.h).
    int minPrompts = 6;
    std::vector<Metric> metrics {Metric::TtftAny, Metric::TtftVisible, Metric::FirstSentence,
        Metric::DecodeTps, Metric::E2e, Metric::CompletionTokens};
};

/// One metric of one row: a test, one turn of a multi-turn test, or all tests pooled.
struct MetricComparison {
    Metric metric = Metric::TtftAny;
    QString test; ///< empty = all tests pooled
    int turn = 0; ///< 0 = all turns
    int pairs = 0;
    /// Distinct prompts behind the row (a conversation counts once). A test's own row is one
    /// prompt: its interval is over repeats and says how steady that prompt's timing is, not how
    /// the arms compare on other prompts. The all-tests row is over prompts (overPrompts): each
    /// prompt's repeats are collapsed to one ratio and one difference, and the intervals are the
    /// sign test's over those per-prompt values.
    int prompts = 0;
    bool overPrompts = false;
    std::vector<double> promptRatios; ///< overPrompts: one candidate/baseline ratio per prompt
    std::vector<double> promptDifferences; ///< overPrompts: one median difference per prompt
    double baselineMedian = 0;
    double candidateMedian = 0;
    /// Ratio of medians in a homogeneous cell (one test, one turn); median of the paired ratios
    /// over a conversation's turns; over prompts, the median of the per-prompt ratios (each the
    /// prompt's ratio of medians, or median paired ratio for a conversation).
    bool ratioIsMedianOfPairedRatios = false;
    std::optional<double> ratio; ///< candidate / baseline
    std::optional<Interval> ratioCi;
    double medianDifference = 0; ///< median of candidateᵢ − baselineᵢ
    std::optional<Interval> differenceCi;
    double hodgesLehmann = 0; ///< of the paired differences
    WilcoxonResult wilcoxon; ///< on the paired differences
    Verdict verdict = Verdict::TooFewPairs;
    int winner = -1; ///< endpoint index, or −1
    QString sentence;
};

/// One quality gate of one test (or all tests pooled): pairs where the gate is true/false on both
/// arms (failed requests included: a gate the evaluator judged is an outcome).
struct GateComparison {
    QString gate;
    QString test; ///< empty = all tests pooled
    int pairs = 0; ///< requests paired (the counts below are of requests)
    /// Distinct prompts behind the row. The all-tests row is over prompts (overPrompts): each
    /// prompt weighs one — its repeats' 2×2 table is normalised to 1 — so the rates are averages
    /// over prompts and Newcombe's interval treats a prompt as the unit.
    int prompts = 0;
    bool overPrompts = false;
    int bothPass = 0;
    int baselineOnly = 0; ///< baseline passed, candidate failed
    int candidateOnly = 0;
    int bothFail = 0;
    double baselineRate = 0;
    double candidateRate = 0;
    double difference = 0; ///< candidateRate − baselineRate (the effect size)
    /// The 2×2 table the rates and the interval are drawn from (over prompts: each prompt's
    /// repeats normalised to 1): both pass, baseline only, candidate only, neither.
    std::array<double, 4> table {};
    std::optional<Interval> differenceCi; ///< Newcombe
    double mcnemarP = 1;
    Verdict verdict = Verdict::TooFewPairs;
    int winner = -1;
    QString sentence;
};

struct ArmComparison {
    int baseline = 0;
    int candidate = 1;
    QString baselineLabel;
    QString candidateLabel;
    int matched = 0; ///< (test, turn, iteration) measured on both arms
    int pairedOk = 0; ///< … and successful on both
    int baselineOnly = 0; ///< measured on the baseline only
    int candidateOnly = 0;
    int failedPairs = 0; ///< matched, but failed on at least one arm
    int duplicates = 0; ///< keys measured more than once on an arm: ambiguous, never paired
    std::vector<MetricComparison> metrics; ///< per metric: pooled row (≥ 2 tests), then per test (× turn)
    std::vector<GateComparison> gates;
};

struct PairedComparison {
    ComparisonOptions options; ///< as used: bootstrap.resamples may be lower than asked (maxBootstrapDraws)
    std::vector<ArmComparison> arms; ///< one per candidate
};

/// Compares each candidate endpoint with the baseline over measured (non-warm-up) requests.
PairedComparison comparePaired(const RunResult& result, int baseline, const std::vector<int>& candidates,
    const ComparisonOptions& options = {});
/// Endpoint 0 against every other endpoint.
PairedComparison comparePaired(const RunResult& result, const ComparisonOptions& options = {});

nlohmann::json toJson(const WilcoxonResult& wilcoxon);
nlohmann::json toJson(const MetricComparison& row, const ArmComparison& arm);
nlohmann::json toJson(const GateComparison& row, const ArmComparison& arm);
nlohmann::json toJson(const ArmComparison& arm);
nlohmann::json toJson(const PairedComparison& comparison);

} // namespace qs
