// SPDX-License-Identifier: MIT
#pragma once

#include "model/decide/Recommendation.h"

// Judging each kind of criterion. Each sets outcome, measured, required and explanation, and
// returns the "what would change" sentence for a criterion that did not pass.
namespace qs::criteria {

struct Arm;

struct Judged {
    CriterionResult result;
    QString change;
};

/// A criterion that cannot be decided, with why and what would let it be.
Judged inconclusive(const Criterion& c, const QString& measured, const QString& required, const QString& why,
    const QString& change);

/// A criterion whose figure is missing: "not measured" when it is optional (it decides nothing, and
/// `why` says so), else inconclusive.
Judged unmeasured(
    const Criterion& c, const QString& measured, const QString& required, QString why, const QString& change);

/// Any criterion: the dispatcher over the ones below.
Judged judge(const Arm& arm, const Criterion& c);

Judged judgeGateThreshold(const Arm& arm, const Criterion& c); ///< gate_max_failures, gate_min_pass_rate
Judged judgeMetricThreshold(const Arm& arm, const Criterion& c); ///< metric_max, metric_min
Judged judgeMetricNotWorse(const Arm& arm, const Criterion& c); ///< paired, against the baseline
Judged judgeGateNotWorse(const Arm& arm, const Criterion& c); ///< paired, against the baseline
/// resource_max, resource_not_worse: an optional one without its figure is NotMeasured.
Judged judgeResource(const Arm& arm, const Criterion& c);
/// judge_rubric_min, judge_pairwise_not_worse, from Evaluation::judged: nothing judged is
/// NotMeasured (optional) or inconclusive; a judge that contradicts itself decides nothing.
Judged judgeJudgedQuality(const Arm& arm, const Criterion& c);
/// fidelity_flip_rate_max, fidelity_kl_max, fidelity_kl_not_worse, from Evaluation::fidelity: no
/// fidelity test, or a KL that is not comparable across tokenizers, is NotMeasured (optional) or
/// inconclusive, never a pass; the reference itself passes (it does not drift from itself).
Judged judgeFidelity(const Arm& arm, const Criterion& c);
/// verbosity_max_ratio: the candidate's completion tokens over the baseline's, paired by prompt
/// over spoken answers (thinking-on requests and tool calls left out); passes when the ratio's
/// interval lies within the allowance, fails when it lies above it, else inconclusive.
Judged judgeVerbosity(const Arm& arm, const Criterion& c);

} // namespace qs::criteria
