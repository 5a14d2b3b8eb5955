// SPDX-License-Identifier: MIT
// Fidelity criteria: how far the candidate's greedy next-token choices drift from the reference's
// (Evaluation::fidelity, docs/methodology.md "Fidelity") — the share of prompts whose answer flips,
// the mean KL of the next-token distributions, or that KL against the baseline's. A flip rate or
// KL that was not measured (no fidelity test, no logprobs, tokenizers that differ) is "not
// measured" (optional) or inconclusive, never a pass. Limits are checked on the point estimate, as
// a gate's pass rate is; the interval is stated, and when it straddles the limit the explanation
// says that more prompts would settle it.
#include "model/decide/recommend/Arm.h"
#include "model/decide/recommend/BoundTest.h"
#include "model/decide/recommend/Criteria.h"
#include "model/decide/recommend/CriterionText.h"

#include <cmath>
#include <map>
#include <variant>

namespace qs::criteria {

using Outcome = CriterionResult::Outcome;

namespace {

const FidelityArm* fidelityArmOf(const Fidelity& f, int endpoint)
{
    for (const FidelityArm& a : f.arms)
        if (a.endpoint == endpoint)
            return &a;
    return nullptr;
}

QString measureHint()
{
    return QStringLiteral("run the built-in fidelity suite (`quantscope run --suite fidelity --endpoint … "
                          "--reference NAME`, NAME the highest-precision endpoint, e.g. BF16) or mark the "
                          "suite's tests \"fidelity\": true, and decide again");
}

QString referenceName(const Fidelity& f)
{
    return f.referenceLabel.isEmpty() ? QStringLiteral("the reference") : f.referenceLabel;
}

// "flip rate 15 % [6 % – 30 %] (6 of 40 prompts differ)"
QString flipText(const FidelityArm& a)
{
    QString t = QStringLiteral("flip rate ") + percent(a.flipRate);
    if (a.flipRateCi)
        t += QStringLiteral(" [%1 – %2]").arg(percent(a.flipRateCi->lo), percent(a.flipRateCi->hi));
    return t
        + QStringLiteral(" (%1 of %2 prompts differ)")
              .arg(int(a.prompts.size()) - a.identical)
              .arg(a.prompts.size());
}

// " over 12 of 40 prompts (the rest not comparable)", or "" when every prompt entered the KL.
QString comparableShare(const FidelityArm& a)
{
    if (a.klComparable || a.comparablePrompts >= int(a.prompts.size()))
        return QString();
    return QStringLiteral(" over %1 of %2 prompts (the rest not comparable)")
        .arg(a.comparablePrompts)
        .arg(a.prompts.size());
}

// "mean KL 0.0312 nats [0.021 – 0.047], p99 0.41"
QString klMeasured(const FidelityArm& a)
{
    QString t = QStringLiteral("mean KL ") + klText(*a.klMean) + QStringLiteral(" nats");
    if (a.klCi)
        t += QStringLiteral(" [%1 – %2]").arg(klText(a.klCi->lo), klText(a.klCi->hi));
    if (a.klP99)
        t += QStringLiteral(", p99 ") + klText(*a.klP99);
    return t + comparableShare(a);
}

Judged klNotComparable(const Arm& arm, const Criterion& c, const QString& required, const FidelityArm& a)
{
    const Fidelity& f = arm.evaluation.fidelity;
    const QString label = a.endpoint == arm.candidate ? arm.candidateLabel : arm.baselineLabel;
    const QString why = klMissingWhy(a);
    return unmeasured(c, QStringLiteral("KL not comparable: ") + why, required,
        QStringLiteral("KL cannot be compared between %1 and the reference %2: %3. The flip rate and the "
                       "shared prefix are still measured, on characters.")
            .arg(label, referenceName(f), why),
        QStringLiteral("%1 not measured on %2: KL is not comparable with the reference %3 (%4). KL needs "
                       "both servers to send logprobs and to split the answers into the same tokens: "
                       "serve the reference from the same model family (its BF16 weights) on a server "
                       "that sends top_logprobs, or rely on the flip rate.")
            .arg(c.title, label, referenceName(f), why));
}

// The reference is compared with nothing: it is what the others are compared with.
Judged referenceItself(const Arm& arm, const Criterion& c, const QString& required)
{
    Judged j;
    j.result.criterion = c;
    j.result.required = required;
    j.result.outcome = Outcome::Pass;
    j.result.measured = QStringLiteral("the reference");
    j.result.explanation
        = QStringLiteral("%1 is the fidelity reference: the other arms are compared with it, "
                         "and it does not drift from itself.")
              .arg(arm.candidateLabel);
    return j;
}

// The fidelity figures of `endpoint`, or the verdict without them: not measured (no fidelity test
// at all, none answered by this endpoint), or a pass for the reference itself.
std::variant<const FidelityArm*, Judged> armFigures(
    const Arm& arm, const Criterion& c, const QString& required, int endpoint)
{
    const Fidelity& f = arm.evaluation.fidelity;
    if (!f.measured())
        return unmeasured(c, QStringLiteral("not measured"), required,
            QStringLiteral("The run has no fidelity test: no arm's greedy answers were compared token by "
                           "token with a reference's."),
            QStringLiteral("Fidelity was not measured: ") + measureHint() + u'.');
    if (endpoint == arm.candidate && endpoint == f.reference)
        return referenceItself(arm, c, required);
    const QString label = endpoint == arm.candidate ? arm.candidateLabel : arm.baselineLabel;
    const FidelityArm* a = fidelityArmOf(f, endpoint);
    if (a && !a->prompts.empty())
        return a;
    const QString why = a && !a->support.isEmpty()
        ? a->support
        : QStringLiteral("it answered no fidelity prompt that the reference %1 answered too")
              .arg(referenceName(f));
    return unmeasured(c, QStringLiteral("not measured on ") + label, required,
        QStringLiteral("%1 has no fidelity figures: %2.").arg(label, why),
        QStringLiteral("%1 not measured on %2 (%3): %4.").arg(c.title, label, why, measureHint()));
}

// " The 95 % interval [lo – hi] reaches above the limit: …" when the interval straddles it.
QString straddles(const std::optional<Interval>& ci, double limit, bool pass, const QString& interval)
{
    if (!ci || !(ci->lo <= limit && limit < ci->hi))
        return QString();
    return pass ? QStringLiteral(" The 95 % interval (%1) reaches above the limit: more fidelity prompts "
                                 "would make the pass sure.")
                      .arg(interval)
                : QStringLiteral(" The 95 % interval (%1) reaches below the limit: more fidelity prompts "
                                 "would make the failure sure.")
                      .arg(interval);
}

QString flipKinds(const FidelityArm& a)
{
    if (a.nearTies + a.confidentFlips == 0)
        return QString();
    return QStringLiteral(" At the divergences, %1 were near-ties (the candidate rated the reference's "
                          "token at least half as likely as its own choice) and %2 confident "
                          "disagreements.")
        .arg(a.nearTies)
        .arg(a.confidentFlips);
}

Judged judgeFlipRate(const Arm& arm, const Criterion& c)
{
    const Fidelity& f = arm.evaluation.fidelity;
    const QString required
        = QStringLiteral("≤ %1 of prompts differ from %2").arg(percent(c.threshold), referenceName(f));
    const auto figures = armFigures(arm, c, required, arm.candidate);
    if (const Judged* missing = std::get_if<Judged>(&figures))
        return *missing;
    const FidelityArm& a = *std::get<const FidelityArm*>(figures);
    const int prompts = int(a.prompts.size());
    const int flips = prompts - a.identical;
    // Over distinct prompts: a prompt's runs are one answer (each prompt weighs one, its runs'
    // flips a fraction), with the exact interval; 12 of 48 is not "at most 25 %" when its interval
    // reaches 40 %.
    std::map<QString, std::pair<int, int>> byPrompt; // test → (flipped, answers)
    for (const FidelityPrompt& fp : a.prompts) {
        auto& t = byPrompt[fp.test];
        t.first += fp.identical ? 0 : 1;
        ++t.second;
    }
    double flipped = 0;
    for (const auto& [test, t] : byPrompt)
        flipped += double(t.first) / t.second;
    const int distinct = int(byPrompt.size());
    const Interval ci = promptRateInterval(flipped, distinct);
    const QString interval = QStringLiteral("%1 – %2").arg(percent(ci.lo), percent(ci.hi));
    Judged j;
    j.result.criterion = c;
    j.result.required = required;
    j.result.measured = flipText(a)
        + QStringLiteral("; over %1 distinct prompts %2 [%3]")
              .arg(distinct)
              .arg(percent(distinct > 0 ? flipped / distinct : 0), interval);
    testBound(
        j.result, distinct > 0 ? flipped / distinct : 0, ci, c.threshold, true, distinct,
        [flipped, distinct](double confidence) {
            return std::optional<Interval>(promptRateInterval(flipped, distinct, confidence));
        },
        arm.share);
    if (j.result.outcome == Outcome::Inconclusive) {
        j.result.explanation
            = QStringLiteral("%1's greedy answers differ from the reference %2's on %3 of %4 "
                             "distinct prompts, but the interval %5 straddles the limit of %6%7.")
                  .arg(arm.candidateLabel, referenceName(f), number(flipped))
                  .arg(distinct)
                  .arg(interval, percent(c.threshold), settleText(j.result))
            + flipKinds(a);
        j.change
            = QStringLiteral("Whether %1 flips at most %2 of the prompts is open (%3)%4.")
                  .arg(arm.candidateLabel, percent(c.threshold), j.result.measured, settleText(j.result));
        return j;
    }
    const bool pass = j.result.outcome == Outcome::Pass;
    j.result.explanation
        = QStringLiteral("%1's greedy answers differ from the reference %2's on %3 of %4 prompts (flip rate "
                         "%5), %6 the limit of %7.")
              .arg(arm.candidateLabel, referenceName(f))
              .arg(flips)
              .arg(prompts)
              .arg(percent(a.flipRate), pass ? QStringLiteral("within") : QStringLiteral("over"),
                  percent(c.threshold))
        + flipKinds(a);
    if (!pass)
        j.change = QStringLiteral("%1 answers %2 of %3 fidelity prompts differently from the reference %4 "
                                  "(flip rate %5, at most %6 allowed): serve a less aggressive quantization "
                                  "of the same model, or one calibrated on text like the assistant's (the "
                                  "report's Fidelity section lists the earliest divergences).")
                       .arg(arm.candidateLabel)
                       .arg(flips)
                       .arg(prompts)
                       .arg(referenceName(f), percent(a.flipRate), percent(c.threshold));
    return j;
}

Judged judgeKlMax(const Arm& arm, const Criterion& c)
{
    const Fidelity& f = arm.evaluation.fidelity;
    const QString required = QStringLiteral("≤ %1 nats").arg(klText(c.threshold));
    const auto figures = armFigures(arm, c, required, arm.candidate);
    if (const Judged* missing = std::get_if<Judged>(&figures))
        return *missing;
    const FidelityArm& a = *std::get<const FidelityArm*>(figures);
    if (!a.klMean)
        return klNotComparable(arm, c, required, a);
    const double kl = *a.klMean;
    const QString interval
        = a.klCi ? QStringLiteral("%1 – %2 nats").arg(klText(a.klCi->lo), klText(a.klCi->hi)) : QString();
    Judged j;
    j.result.criterion = c;
    j.result.required = required;
    j.result.measured = klMeasured(a);
    // The interval over prompts decides; without one (fewer than 2 prompts) nothing does.
    if (!a.klCi || a.klPrompts < 2)
        return inconclusive(c, j.result.measured, required,
            QStringLiteral("%1's KL rests on %2 prompt(s): too few for an interval over prompts.")
                .arg(arm.candidateLabel)
                .arg(a.klPrompts),
            QStringLiteral("%1: run the fidelity suite with more prompts.").arg(c.title));
    testBound(j.result, kl, *a.klCi, c.threshold, true, a.klPrompts, {}, arm.share);
    // A KL read from lists that held too little of the probability is a lower bound: it can show
    // a candidate over the limit, never within it.
    if (j.result.outcome == Outcome::Pass && a.klLowerBound) {
        j.result.outcome = Outcome::Inconclusive;
        j.result.explanation = a.klLowerBoundNote;
        j.change
            = QStringLiteral("%1's KL is a lower bound (%2): request more top logprobs (top_logprobs 20) so "
                             "the lists hold more of the probability.")
                  .arg(arm.candidateLabel, a.klLowerBoundNote);
        return j;
    }
    if (j.result.outcome == Outcome::Inconclusive) {
        j.result.explanation
            = QStringLiteral("%1's mean KL from the reference %2 is %3 nats, but its interval over "
                             "prompts (%4) straddles the limit of %5 nats%6.")
                  .arg(arm.candidateLabel, referenceName(f), klText(kl), interval, klText(c.threshold),
                      settleText(j.result));
        j.change = QStringLiteral("Whether %1's KL stays within %2 nats is open (%3)%4.")
                       .arg(arm.candidateLabel, klText(c.threshold), j.result.measured, settleText(j.result));
        return j;
    }
    const bool pass = j.result.outcome == Outcome::Pass;
    j.result.explanation
        = QStringLiteral("%1's next-token distributions are on average %2 nats from the reference %3's "
                         "(KL over both top lists and a tail bucket, every compared token pooled%4), %5 "
                         "the limit of %6 nats.")
              .arg(arm.candidateLabel, klText(kl), referenceName(f), comparableShare(a),
                  pass ? QStringLiteral("within") : QStringLiteral("over"), klText(c.threshold))
        + straddles(a.klCi, c.threshold, pass, interval);
    if (!pass)
        j.change
            = QStringLiteral("%1's mean KL from the reference %2 is %3 nats and must be at most %4: serve a "
                             "less aggressive quantization of the same model, or one calibrated on text "
                             "like the assistant's (the report's Fidelity section lists the prompts "
                             "with the highest KL).")
                  .arg(arm.candidateLabel, referenceName(f), klText(kl), klText(c.threshold));
    return j;
}

Judged judgeKlNotWorse(const Arm& arm, const Criterion& c)
{
    const Fidelity& f = arm.evaluation.fidelity;
    const QString required = QStringLiteral("KL %1 (from %2)").arg(marginText(c), referenceName(f));
    const auto figures = armFigures(arm, c, required, arm.candidate);
    if (const Judged* missing = std::get_if<Judged>(&figures))
        return *missing;
    if (f.reference == arm.baseline)
        return unmeasured(c, QStringLiteral("the reference is the baseline"), required,
            QStringLiteral("The fidelity reference is the baseline %1 itself, whose KL from itself is 0: "
                           "there is nothing to compare with.")
                .arg(arm.baselineLabel),
            QStringLiteral(
                "%1 needs a reference other than the baseline: mark the highest-precision endpoint "
                "(e.g. BF16) with `quantscope run … --reference NAME` and run the fidelity suite "
                "again, so that both quantizations are measured against it.")
                .arg(c.title));
    const FidelityArm& cand = *std::get<const FidelityArm*>(figures);
    if (!cand.klMean)
        return klNotComparable(arm, c, required, cand);
    const auto baseFigures = armFigures(arm, c, required, arm.baseline);
    if (const Judged* missing = std::get_if<Judged>(&baseFigures))
        return *missing;
    const FidelityArm& base = *std::get<const FidelityArm*>(baseFigures);
    if (!base.klMean)
        return klNotComparable(arm, c, required, base);

    // Paired: the same prompts and positions on both arms (pairedKlRatio), never two KLs pooled
    // over different prompts; the ratio's interval resamples prompts.
    const FidelityKlRatio paired = cand.klVsBaseline && cand.klVsBaseline->baseline == arm.baseline
        ? *cand.klVsBaseline
        : pairedKlRatio(f, arm.baseline, arm.candidate);
    QString measured = QStringLiteral("%1 vs %2 nats over the same %3 positions of %4 distinct prompts")
                           .arg(klText(paired.candidateKl.value_or(0)), klText(paired.baselineKl.value_or(0)))
                           .arg(paired.positions)
                           .arg(paired.prompts);
    if (paired.ratio) {
        measured += QStringLiteral(", ratio %1").arg(number(*paired.ratio));
        if (paired.ratioCi)
            measured
                += QStringLiteral(" [%1–%2]").arg(number(paired.ratioCi->lo), number(paired.ratioCi->hi));
    }
    const int minPrompts = arm.evaluation.comparison.options.minPrompts;
    if (!paired.ratio || !paired.ratioCi || paired.prompts < minPrompts)
        return inconclusive(c, measured, required,
            QStringLiteral("%1 and %2 cannot be compared on the same fidelity prompts: %3")
                .arg(arm.candidateLabel, arm.baselineLabel,
                    !paired.note.isEmpty() ? paired.note
                                           : QStringLiteral("only %1 distinct prompts were compared on both "
                                                            "arms (at least %2 are needed).")
                                                 .arg(paired.prompts)
                                                 .arg(minPrompts)),
            QStringLiteral("%1 needs at least %2 fidelity prompts compared on both %3 and %4: run the "
                           "fidelity suite with more prompts.")
                .arg(c.title)
                .arg(minPrompts)
                .arg(arm.candidateLabel, arm.baselineLabel));

    Judged j;
    j.result.criterion = c;
    j.result.required = required;
    j.result.measured = measured;
    // For Holm's p-value, the bootstrap interval read as log-normal (re-running the bootstrap at
    // every level would cost seconds on a large file).
    const double ratio = *paired.ratio;
    const double se = paired.ratioCi->lo > 0
        ? (std::log(paired.ratioCi->hi) - std::log(paired.ratioCi->lo)) / (2 * normalQuantile(0.975))
        : 0;
    testBound(
        j.result, ratio, *paired.ratioCi, marginOf(c), true, paired.prompts,
        [ratio, se](double confidence) -> std::optional<Interval> {
            if (se <= 0)
                return std::nullopt;
            const double z = normalQuantile(0.5 + confidence / 2);
            return Interval {ratio * std::exp(-z * se), ratio * std::exp(z * se)};
        },
        arm.share);
    const QString lowerBound = paired.lowerBound
        ? QStringLiteral(" (the reference's lists held %1 of the probability, so both KLs read low)")
              .arg(percent(paired.listedMass.value_or(0)))
        : QString();
    const QString what
        = QStringLiteral("%1's KL from the reference %2 is %3× the baseline %4's over the same "
                         "positions (interval %5–%6)%7")
              .arg(arm.candidateLabel, referenceName(f), number(*paired.ratio), arm.baselineLabel,
                  number(paired.ratioCi->lo), number(paired.ratioCi->hi), lowerBound);
    switch (j.result.outcome) {
    case Outcome::Pass:
        j.result.explanation
            = what + QStringLiteral(": even the interval's upper end is within %1.").arg(required);
        break;
    case Outcome::Fail:
        j.result.explanation
            = what + QStringLiteral(": even the interval's lower end is beyond %1.").arg(required);
        j.change
            = QStringLiteral("%1 drifts further from the reference %2 than the baseline %3 does (%4; at most "
                             "%5 allowed): serve a less aggressive quantization, or one calibrated on text "
                             "like the assistant's.")
                  .arg(arm.candidateLabel, referenceName(f), arm.baselineLabel, measured, required);
        break;
    default:
        j.result.explanation = what
            + QStringLiteral(": the interval straddles %1, so the data cannot tell yet%2.")
                  .arg(required, settleText(j.result));
        j.change = QStringLiteral("Whether %1's %2 holds is open (%3)%4.")
                       .arg(arm.candidateLabel, required, measured, settleText(j.result));
        break;
    }
    return j;
}

} // namespace

Judged judgeFidelity(const Arm& arm, const Criterion& c)
{
    switch (c.kind) {
    case Criterion::Kind::FidelityFlipRateMax:
        return judgeFlipRate(arm, c);
    case Criterion::Kind::FidelityKlMax:
        return judgeKlMax(arm, c);
    default:
        return judgeKlNotWorse(arm, c);
    }
}

} // namespace qs::criteria
