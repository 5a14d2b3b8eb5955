// SPDX-License-Identifier: MIT
#include "model/decide/Recommendation.h"

#include "model/decide/Sequential.h"
#include "model/decide/recommend/Arm.h"
#include "model/decide/recommend/Criteria.h"
#include "model/decide/recommend/CriterionText.h"

#include <algorithm>

// The verdict for each candidate: its criteria judged (recommend/), the critical guardrails that
// make the comparison unfair, and the decision and headline drawn from both.
namespace qs {

namespace {

using json = nlohmann::json;
using Outcome = CriterionResult::Outcome;

// ---------------------------------------------------------------------------------------------
// Fairness

// A guardrail about this comparison: run-wide (no endpoints), about the candidate, or about the
// baseline alone. One about the baseline and a third endpoint ({0, 2}) is that other pair's.
bool concerns(const Guardrail& g, int baseline, int candidate)
{
    if (g.endpoints.empty())
        return true;
    if (std::find(g.endpoints.begin(), g.endpoints.end(), candidate) != g.endpoints.end())
        return true;
    return g.endpoints.size() == 1 && g.endpoints.front() == baseline;
}

QString guardrailChange(const Guardrail& g)
{
    if (g.id == u"models_differ")
        return QStringLiteral(
                   "Serve the same fine-tune in both quantizations (quantize the baseline's model yourself "
                   "if nobody published it): ")
            + g.evidence
            + QStringLiteral(". Until then the differences mix the models' own behaviour with the "
                             "quantization, and no switch can be recommended.");
    if (g.id == u"thinking_differs")
        return QStringLiteral(
                   "Send both endpoints the same thinking setting (the suite's \"thinking\": false sends "
                   "chat_template_kwargs.enable_thinking=false; llama-server --reasoning-budget 0): ")
            + g.evidence + u'.';
    if (g.id == u"tools_without_parser")
        return QStringLiteral("Start the server with its tool-call parser (vLLM: --enable-auto-tool-choice "
                              "--tool-call-parser qwen3_coder; SGLang: --tool-call-parser) and run again: ")
            + g.evidence + u'.';
    return g.title + QStringLiteral(": ") + g.advice;
}

/// The titles of the criteria with `outcome`, three at most and "and N more": a headline is read
/// in one breath; the criteria themselves list every one.
QString titles(const std::vector<CriterionResult>& results, Outcome outcome)
{
    constexpr int Shown = 3;
    QStringList t;
    int more = 0;
    for (const CriterionResult& r : results) {
        if (r.outcome != outcome)
            continue;
        if (t.size() < Shown)
            t << r.criterion.title;
        else
            ++more;
    }
    if (more > 0)
        t << QStringLiteral("and %1 more").arg(more);
    return t.join(QStringLiteral(", "));
}

int countOf(const std::vector<CriterionResult>& results, Outcome outcome)
{
    return int(std::count_if(results.begin(), results.end(),
        [outcome](const CriterionResult& r) { return r.outcome == outcome; }));
}

} // namespace

QString outcomeId(CriterionResult::Outcome outcome)
{
    switch (outcome) {
    case Outcome::Pass:
        return QStringLiteral("pass");
    case Outcome::Fail:
        return QStringLiteral("fail");
    case Outcome::Inconclusive:
        return QStringLiteral("inconclusive");
    case Outcome::NotMeasured:
        return QStringLiteral("not_measured");
    }
    return {};
}

QString decisionId(Recommendation::Decision decision)
{
    switch (decision) {
    case Recommendation::Decision::Switch:
        return QStringLiteral("switch");
    case Recommendation::Decision::KeepBaseline:
        return QStringLiteral("keep_baseline");
    case Recommendation::Decision::Inconclusive:
        return QStringLiteral("inconclusive");
    }
    return {};
}

std::vector<Recommendation> recommend(const RunResult& result, const Evaluation& evaluation,
    const DecisionProfile& profile, std::optional<int> looksOverride)
{
    std::vector<Recommendation> out;
    const int endpoints = int(result.endpoints.size());
    const int baseline = evaluation.baseline;
    if (baseline < 0 || baseline >= endpoints)
        return out;
    const int looks = looksOverride ? std::max(0, *looksOverride) : looksToAccountFor(result);
    const double share = lookShare(looks);
    for (int candidate = 0; candidate < endpoints; ++candidate) {
        if (candidate == baseline)
            continue;
        criteria::Arm arm {result, evaluation, baseline, candidate,
            result.endpoints[std::size_t(baseline)].endpoint.displayName(),
            result.endpoints[std::size_t(candidate)].endpoint.displayName(), nullptr, share};
        if (evaluation.hasComparison)
            for (const ArmComparison& a : evaluation.comparison.arms)
                if (a.baseline == baseline && a.candidate == candidate)
                    arm.comparison = &a;

        Recommendation rec;
        rec.baseline = baseline;
        rec.candidate = candidate;
        rec.baselineLabel = arm.baselineLabel;
        rec.candidateLabel = arm.candidateLabel;
        rec.looks = looks;
        rec.errorShare = share;
        QStringList failedChanges, openChanges, unmeasuredChanges;
        std::vector<QString> changes;
        for (const Criterion& c : profile.criteria) {
            criteria::Judged j = criteria::judge(arm, c);
            changes.push_back(j.change);
            rec.criteria.push_back(std::move(j.result));
        }
        if (looks > 0)
            for (CriterionResult& r : rec.criteria)
                if (r.interval) {
                    // The measured text quotes the 95 % interval; the decision read this one.
                    r.measured += QStringLiteral("; at %1: [%2–%3]")
                                      .arg(lookLevelText(looks), criteria::number(r.interval->lo),
                                          criteria::number(r.interval->hi));
                    r.explanation += QStringLiteral(
                        " (Its interval is read at %1, not 95 %: this run looked %2 time(s) until decided, "
                        "and each look spends only its share of the error.)")
                                         .arg(lookLevelText(looks))
                                         .arg(looks);
                }
        applyHolm(rec.criteria, FamilyAlpha * share);
        for (std::size_t i = 0; i < rec.criteria.size(); ++i) {
            CriterionResult& r = rec.criteria[i];
            if (r.heldByCorrection && changes[i].isEmpty())
                changes[i] = r.explanation;
            if (r.outcome == Outcome::Fail)
                failedChanges << changes[i];
            else if (r.outcome == Outcome::Inconclusive)
                openChanges << changes[i];
            else if (r.outcome == Outcome::NotMeasured)
                unmeasuredChanges << changes[i];
        }
        // Failed criteria first: they are what keeps the baseline. Criteria with one cause (no judge
        // ran) share one sentence.
        rec.whatWouldChange = failedChanges + openChanges + unmeasuredChanges;
        rec.whatWouldChange.removeDuplicates();

        QStringList unfair;
        for (const Guardrail& g : evaluation.guardrails) {
            if (g.severity != Guardrail::Severity::Critical || !concerns(g, baseline, candidate))
                continue;
            unfair << g.title;
            rec.caveats << g.title + QStringLiteral(": ") + g.evidence;
            rec.whatWouldChange << guardrailChange(g);
        }

        const int total = int(rec.criteria.size());
        const int failed = countOf(rec.criteria, Outcome::Fail);
        const int open = countOf(rec.criteria, Outcome::Inconclusive);
        const int unmeasured = countOf(rec.criteria, Outcome::NotMeasured);
        if (failed > 0) {
            rec.decision = Recommendation::Decision::KeepBaseline;
            rec.headline = QStringLiteral("Keep %1: %2 fails %3 of %4 criteria (%5)")
                               .arg(arm.baselineLabel, arm.candidateLabel)
                               .arg(failed)
                               .arg(total)
                               .arg(titles(rec.criteria, Outcome::Fail));
            if (!unfair.isEmpty())
                rec.headline += QStringLiteral("; besides, the comparison is not fair: ")
                    + unfair.join(QStringLiteral("; "));
        } else if (open > 0 || !unfair.isEmpty()) {
            rec.decision = Recommendation::Decision::Inconclusive;
            QStringList why;
            if (open > 0)
                why << QStringLiteral("%1 of %2 criteria could not be decided (%3)")
                           .arg(open)
                           .arg(total)
                           .arg(titles(rec.criteria, Outcome::Inconclusive));
            if (!unfair.isEmpty())
                why << QStringLiteral("the comparison is not fair: ") + unfair.join(QStringLiteral("; "));
            rec.headline
                = QStringLiteral("No recommendation between %1 and %2 yet: %3 passes every criterion that "
                                 "could be judged, but %4")
                      .arg(arm.baselineLabel, arm.candidateLabel, arm.candidateLabel,
                          why.join(QStringLiteral(", and ")));
        } else if (unmeasured > 0) {
            rec.decision = Recommendation::Decision::Switch;
            rec.headline = QStringLiteral("Switch from %1 to %2: it meets all %3 criteria that were measured")
                               .arg(arm.baselineLabel, arm.candidateLabel)
                               .arg(total - unmeasured);
        } else {
            rec.decision = Recommendation::Decision::Switch;
            rec.headline = QStringLiteral("Switch from %1 to %2: it meets all %3 criteria")
                               .arg(arm.baselineLabel, arm.candidateLabel)
                               .arg(total);
        }
        // Not a pass: the reader learns what was never looked at.
        if (unmeasured > 0)
            rec.headline += QStringLiteral("; not measured: ") + titles(rec.criteria, Outcome::NotMeasured);
        out.push_back(std::move(rec));
    }
    return out;
}

void applyHolm(std::vector<CriterionResult>& criteria, double alpha)
{
    std::vector<CriterionResult*> fails;
    int family = 0;
    for (CriterionResult& r : criteria) {
        if (r.outcome != Outcome::NotMeasured)
            ++family;
        if (r.outcome == Outcome::Fail)
            fails.push_back(&r);
    }
    std::stable_sort(fails.begin(), fails.end(),
        [](const CriterionResult* a, const CriterionResult* b) { return a->pBeyond < b->pBeyond; });
    bool stopped = false;
    for (std::size_t rank = 0; rank < fails.size(); ++rank) {
        CriterionResult& r = *fails[rank];
        const double threshold = alpha / double(family - int(rank));
        stopped = stopped || r.pBeyond > threshold;
        if (!stopped)
            continue;
        r.outcome = Outcome::Inconclusive;
        r.heldByCorrection = true;
        r.explanation += QStringLiteral(
            " Alone that is a fail (one-sided p = %1), but not once all %2 judged criteria are weighed "
            "together (Holm's correction needs p ≤ %3 here), so it stays open.")
                             .arg(r.pBeyond, 0, 'g', 2)
                             .arg(family)
                             .arg(threshold, 0, 'g', 2);
    }
}

QString errorRateStatement(const Recommendation& rec)
{
    int family = 0;
    for (const CriterionResult& r : rec.criteria)
        family += r.outcome != Outcome::NotMeasured ? 1 : 0;
    return QStringLiteral(
               "What this verdict promises: a candidate within every margin is told \"keep the baseline\" at "
               "most %1 % of the time (a fail must survive Holm's correction over the %2 judged criteria), "
               "and a "
               "candidate beyond a criterion's margin passes it at most 2.5 % of the time (each pass is a "
               "one-sided 97.5 % bound, and Switch needs every criterion to pass). Criteria judged on counts "
               "(a leak that happened) are certain, not estimates.")
               .arg(FamilyAlpha * 100, 0, 'g', 3)
               .arg(family)
        + (rec.looks > 0
                ? QStringLiteral(" The run looked %1 time(s), and when to stop was decided on what the looks "
                                 "showed: every interval is read at %2 and Holm's at %3 (the share "
                                 "1/(k(k+1)) of the k-th look), so these promises hold however it stopped.")
                      .arg(rec.looks)
                      .arg(lookLevelText(rec.looks))
                      .arg(FamilyAlpha * rec.errorShare, 0, 'g', 2)
                : QString());
}

nlohmann::json toJson(const CriterionResult& result)
{
    json j = toJson(result.criterion);
    j["outcome"] = outcomeId(result.outcome).toStdString();
    if (result.estimate)
        j["estimate"] = *result.estimate;
    if (result.interval)
        j["interval"] = {{"low", result.interval->lo}, {"high", result.interval->hi}};
    if (result.limit) {
        j["limit"] = *result.limit;
        j["worse_side"] = result.worseAbove ? "above" : "below";
    }
    if (result.prompts > 0)
        j["prompts"] = result.prompts;
    if (result.outcome == Outcome::Fail || result.heldByCorrection)
        j["p_beyond"] = result.pBeyond;
    if (result.heldByCorrection)
        j["held_by_correction"] = true;
    if (result.promptsToSettle)
        j["prompts_to_settle"] = *result.promptsToSettle;
    j["measured"] = result.measured.toStdString();
    j["required"] = result.required.toStdString();
    j["explanation"] = result.explanation.toStdString();
    return j;
}

nlohmann::json toJson(const Recommendation& r)
{
    json criteria = json::array();
    for (const CriterionResult& c : r.criteria)
        criteria.push_back(toJson(c));
    json change = json::array();
    for (const QString& s : r.whatWouldChange)
        change.push_back(s.toStdString());
    json caveats = json::array();
    for (const QString& s : r.caveats)
        caveats.push_back(s.toStdString());
    json j = {{"baseline", r.baseline}, {"candidate", r.candidate},
        {"baseline_label", r.baselineLabel.toStdString()},
        {"candidate_label", r.candidateLabel.toStdString()},
        {"decision", decisionId(r.decision).toStdString()}, {"headline", r.headline.toStdString()},
        {"criteria", std::move(criteria)}, {"error_rates", errorRateStatement(r).toStdString()},
        {"what_would_change", std::move(change)}, {"caveats", std::move(caveats)}};
    if (r.looks > 0) { // an until-decided run's: the level its intervals were read at
        j["looks"] = r.looks;
        j["error_share"] = r.errorShare;
    }
    return j;
}

} // namespace qs
