// SPDX-License-Identifier: MIT
#pragma once

#include "model/evaluate/Statistics.h"

#include <QString>
#include <QStringList>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <vector>

namespace qs {

/// One condition a candidate endpoint must meet to replace the baseline. Exactly one of the
/// forms below, as written in a profile file (docs/decision-profiles.md):
///   {"gate": G, "max_failures": N}             at most N measured requests fail gate G
///   {"gate": G, "min_pass_rate": R}            passed / judged ≥ R (e.g. 0.6 for "6/10")
///   {"metric": M, "max": X} / {"metric": M, "min": X}
///                                              the candidate's median (or "statistic": "p90"…) of M
///   {"metric": M, "not_worse_than_baseline": true}
///                                              the paired comparison does not find the baseline better
///   {"gate": G, "not_worse_than_baseline": true}
///                                              McNemar / Newcombe does not find the baseline better
///   {"resource": R, "max": X, "unit": U}       the candidate's figure of R (model/evaluate/Resources.h)
///                                              is ≤ X U, e.g. peak_memory ≤ 110 GB
///   {"resource": R, "not_worse_than_baseline": true, "tolerance": 0.05}
///                                              the candidate's figure ≤ the baseline's × (1 + tolerance)
///   {"judge": "rubric", "criterion": C, "min_median": X}
///                                              an LLM judge's median score (1–5) of the candidate's
///                                              answers on rubric criterion C is ≥ X
///   {"judge": "pairwise", "not_worse_than_baseline": true}
///                                              the blind pairwise comparison does not find the
///                                              baseline's answers better
///   {"fidelity": "flip_rate", "max": X}        the share of fidelity prompts whose greedy answer
///                                              differs from the reference's is ≤ X (a fraction)
///   {"fidelity": "kl", "max": X}               the mean KL (nats) of the candidate's next-token
///                                              distributions from the reference's is ≤ X
///   {"fidelity": "kl", "not_worse_than_baseline": true, "tolerance": 0.1}
///                                              the candidate's mean KL from the reference ≤ the
///                                              baseline's × (1 + tolerance); needs a reference that
///                                              is not the baseline (`run --reference NAME`)
///   {"verbosity": "completion_tokens", "max_ratio": 1.5}
///                                              the candidate's completion tokens over the baseline's,
///                                              paired by prompt (thinking-on requests and tool calls
///                                              left out): the ratio's interval lies within max_ratio
/// Gate, metric, verbosity and rubric forms take an optional "test" (a test id; default: all tests pooled).
/// Resource forms are per endpoint over the whole run (no "test"), fidelity forms pool every
/// fidelity prompt (no "test"). Resource, judge and fidelity forms take "optional": true, which
/// makes a figure that was not measured (no telemetry, no judge ran, no fidelity test, a KL that
/// is not comparable across tokenizers) "not measured" instead of inconclusive. Every form takes "id",
/// "title" and "rationale". A profile file is {"id", "name"?, "description"?, "criteria": [...]}.
struct Criterion {
    enum class Kind {
        GateMaxFailures,
        GateMinPassRate,
        MetricMax,
        MetricMin,
        MetricNotWorse,
        GateNotWorse,
        ResourceMax,
        ResourceNotWorse,
        JudgeRubricMin,
        JudgePairwiseNotWorse,
        FidelityFlipRateMax,
        FidelityKlMax,
        FidelityKlNotWorse,
        VerbosityMaxRatio,
    };
    /// What a resource criterion is about: one figure per endpoint (model/evaluate/Resources.h),
    /// lower is better for every one.
    enum class Resource {
        PeakMemory, ///< "peak_memory", bytes: highest sample while serving
        IdleMemory, ///< "idle_memory", bytes: median of the idle baselines
        MemoryAtConcurrency, ///< "memory_at_concurrency", bytes: peak while `concurrency` were in flight
        PowerMedian, ///< "power_median", W: median GPU power while serving
        EnergyPerToken, ///< "energy_per_token", J per generated token
    };
    QString id; ///< stable, e.g. "thinking_leaks"
    QString title; ///< what a reader sees, e.g. "No thinking leaks"
    Kind kind = Kind::GateMaxFailures;
    QString gate; ///< a QualityGates gate name (gate kinds)
    Metric metric = Metric::TtftVisible; ///< metric kinds; VerbosityMaxRatio: CompletionTokens
    Resource resource = Resource::PeakMemory; ///< resource kinds
    QString statistic = QStringLiteral("p50"); ///< "p50", "p90", "p95", "p99", "mean" (MetricMax/Min)
    QString rubricCriterion; ///< JudgeRubricMin: a RubricCriterion::id, e.g. "warm_personal"
    /// Failures, rate, value in the metric's unit, (ResourceMax) in the resource's base unit:
    /// bytes, W, J/token, (JudgeRubricMin) the least median score, 1–5, (FidelityFlipRateMax) a
    /// fraction of prompts, (FidelityKlMax) nats, (VerbosityMaxRatio) the largest ratio of the
    /// candidate's completion tokens to the baseline's.
    double threshold = 0;
    QString unit; ///< ResourceMax: the unit the profile wrote the limit in ("GB", "GiB", "W"…)
    int concurrency = 0; ///< MemoryAtConcurrency: requests in flight; 0 = the highest measured
    /// ResourceNotWorse, FidelityKlNotWorse: how much more than the baseline still passes — the
    /// older spelling of `margin` (a tolerance t is the margin 1 + t).
    double tolerance = 0.05;
    /// The non-inferiority margin of a "not worse than the baseline" criterion, in the criterion's
    /// own scale (marginOf() gives the default when the profile names none): how much worse than
    /// the baseline still counts as "not worse". The criterion passes when its interval's worse
    /// end is inside the margin, fails when its better end is outside it, else it is open.
    std::optional<double> margin;
    /// Resource, judge and fidelity kinds: a figure not measured (no telemetry, no judge, no
    /// fidelity test, KL not comparable) is "not measured", not inconclusive.
    bool optional = false;
    QString test; ///< empty: all tests pooled
    QString rationale; ///< why this criterion exists (shown in the report)
};

/// Whether `kind` compares with the baseline and so takes a "margin".
bool takesMargin(Criterion::Kind kind);
/// The margin in force: the profile's, else the kind's default —
/// - metric_not_worse: a ratio, 1.10 (the candidate's latency at most 10 % above the baseline's;
///   for a rate where higher is better, at least 1/1.10 of it);
/// - gate_not_worse: a pass-rate drop, 0.05 (at most 5 points below the baseline's rate);
/// - judge_pairwise_not_worse: the least win share, 0.45 (ties count half);
/// - fidelity_kl_not_worse: a ratio, 1.10; resource_not_worse: a ratio, 1.05.
/// 0 for kinds that take none.
double marginOf(const Criterion& criterion);
/// Why `value` cannot be `kind`'s margin ("must be at least 1 (a ratio…)"), or nothing.
std::optional<QString> marginProblem(Criterion::Kind kind, double value);
/// "≤ 1.10× the baseline's", "at most 5 points below", "win share ≥ 45 %": the margin as a reader sees it.
QString marginText(const Criterion& criterion);

/// "gate_max_failures", "gate_min_pass_rate", "metric_max", "metric_min", "metric_not_worse",
/// "gate_not_worse", "resource_max", "resource_not_worse", "judge_rubric_min",
/// "judge_pairwise_not_worse", "fidelity_flip_rate_max", "fidelity_kl_max", "fidelity_kl_not_worse",
/// "verbosity_max_ratio".
QString criterionKindId(Criterion::Kind kind);
/// The key that names a kind's form in a file: "max_failures", "min_pass_rate", "max", "min",
/// "not_worse_than_baseline", "min_median", "max_ratio" (default ids end with it).
QString criterionFormKey(Criterion::Kind kind);
/// What a reader sees when the profile gives no "title": "tool_call: passes at least 60 %",
/// "ttft_visible_ms p50 ≤ 120 ms", "answers at most 1.5× as long as the baseline's (completion tokens)"…
QString defaultCriterionTitle(const Criterion& criterion);
/// True for the three gate kinds (`gate` is set), false for the metric and resource kinds.
bool isGateCriterion(const Criterion& criterion);
/// True for the resource kinds (`resource` is set).
bool isResourceCriterion(const Criterion& criterion);
/// True for the judge kinds: what an LLM judge said (Evaluation::judged).
bool isJudgeCriterion(const Criterion& criterion);
/// True for the fidelity kinds: next-token drift from the reference (Evaluation::fidelity).
bool isFidelityCriterion(const Criterion& criterion);
/// The file form's "fidelity" value of a fidelity kind: "flip_rate" or "kl".
QString fidelityMeasureId(Criterion::Kind kind);

/// "peak_memory", "idle_memory", "memory_at_concurrency", "power_median", "energy_per_token".
QString resourceId(Criterion::Resource resource);
std::optional<Criterion::Resource> resourceFromId(const QString& id);
/// The base unit of a resource's figure: "bytes", "W", "J/token".
QString resourceBaseUnit(Criterion::Resource resource);
/// How many base units one `unit` is for `resource`: memory takes "GB" (decimal, 1e9 bytes),
/// "GiB" (2^30), "MB" (1e6), "MiB" (2^20) and "bytes"; power "W"; energy "J/token". nullopt for
/// a unit the resource does not take.
std::optional<double> resourceUnitFactor(Criterion::Resource resource, const QString& unit);
/// The units `resource` takes, for messages: "GB, GiB, MB, MiB, bytes".
QStringList resourceUnits(Criterion::Resource resource);
/// For prose and titles: "peak memory", "memory at concurrency 5", "median GPU power"…
QString resourceName(Criterion::Resource resource, int concurrency = 0);
/// A figure in base units as a reader wants it: "63.2 GB" (memory in decimal GB unless `unit`
/// names another memory unit), "212 W", "0.84 J/token".
QString resourceValueText(Criterion::Resource resource, double baseValue, const QString& unit = QString());
/// The criterion in its file form plus "kind" (every default filled in), for reports and scripts.
nlohmann::json toJson(const Criterion& criterion);

/// The criteria a candidate must meet, e.g. the built-in "voice-assistant" profile from the
/// seeds: thinking leaks 0, tool calls ≥ 6/10, no markdown ≥ 12/15, TTFT-visible ≤ 120 ms, decode
/// ≥ 25 tok/s, and at least as good as the baseline on the rest.
struct DecisionProfile {
    QString id;
    QString name;
    QString description;
    std::vector<Criterion> criteria;
    QString source; ///< file path or "builtin:NAME"
    nlohmann::json raw; ///< as loaded (stored in reports for reproducibility)
};

/// A profile that cannot be used. what() reads "FILE: PATH: PROBLEM", like SuiteError.
class ProfileError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

DecisionProfile parseDecisionProfile(const nlohmann::json& json, const QString& sourceName);
DecisionProfile loadDecisionProfileFile(const QString& path);
QStringList builtinDecisionProfileNames(); ///< "voice-assistant", "throughput"
DecisionProfile loadBuiltinDecisionProfile(const QString& name);
/// A built-in name, or else a file path. Throws ProfileError.
DecisionProfile loadDecisionProfile(const QString& nameOrPath);
/// The built-in profile a run of `suite` is judged with when nobody names one (report, campaign,
/// the dashboard): "throughput" for the throughput suite, "voice-assistant" otherwise.
QString defaultDecisionProfileName(const nlohmann::json& suite);

} // namespace qs
