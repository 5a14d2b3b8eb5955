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
/// Every form takes an optional "test" (a test id; default: all tests pooled), "id", "title" and
/// "rationale". A profile file is {"id", "name"?, "description"?, "criteria": [...]}.
struct Criterion {
    enum class Kind { GateMaxFailures, GateMinPassRate, MetricMax, MetricMin, MetricNotWorse, GateNotWorse };
    QString id; ///< stable, e.g. "thinking_leaks"
    QString title; ///< what a reader sees, e.g. "No thinking leaks"
    Kind kind = Kind::GateMaxFailures;
    QString gate; ///< a QualityGates gate name (gate kinds)
    Metric metric = Metric::TtftVisible; ///< metric kinds
    QString statistic = QStringLiteral("p50"); ///< "p50", "p90", "p95", "p99", "mean" (MetricMax/Min)
    double threshold = 0; ///< failures, rate, or value in the metric's unit
    QString test; ///< empty: all tests pooled
    QString rationale; ///< why this criterion exists (shown in the report)
};

/// "gate_max_failures", "gate_min_pass_rate", "metric_max", "metric_min", "metric_not_worse",
/// "gate_not_worse".
QString criterionKindId(Criterion::Kind kind);
/// True for the three gate kinds (`gate` is set), false for the metric kinds (`metric` is set).
bool isGateCriterion(const Criterion& criterion);
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

} // namespace qs
