// SPDX-License-Identifier: MIT
#include "model/decide/Sequential.h"

#include "model/decide/recommend/CriterionText.h"
#include "model/evaluate/Evaluation.h"
#include "model/evaluate/PairedComparison.h"
#include "model/run/SuiteComposition.h"

#include <algorithm>
#include <cmath>

namespace qs {

using json = nlohmann::json;
using Outcome = CriterionResult::Outcome;

double lookShare(int look)
{
    return look <= 0 ? 1.0 : 1.0 / (double(look) * double(look + 1));
}

QString lookLevelText(int look)
{
    return QStringLiteral("%1 %").arg(100 * (1 - 0.05 * lookShare(look)), 0, 'g', 4);
}

int promptsDrawn(const Suite& suite, int perCategory, quint64 seed)
{
    return suiteComposition(drawPrompts(suite, perCategory, seed), RunSettings()).prompts;
}

std::vector<int> roundSchedule(const Suite& suite, int maxPrompts)
{
    int largest = 0;
    for (const CategoryComposition& c : suiteComposition(suite, RunSettings()).categories)
        largest = std::max(largest, c.prompts);
    // The counts are the same for any seed: each category gives min(n, its pool).
    const auto drawn = [&](int perCategory) { return promptsDrawn(suite, perCategory, 1); };
    std::vector<int> rounds;
    int target = FirstLookPrompts;
    for (int n = 1; n <= largest; ++n) {
        const int prompts = drawn(n);
        if (prompts < target && n < largest)
            continue;
        if (maxPrompts > 0 && !rounds.empty() && prompts > maxPrompts)
            break;
        rounds.push_back(n);
        target = int(std::ceil(prompts * 1.5));
    }
    return rounds;
}

QString stopReasonId(StopReason reason)
{
    switch (reason) {
    case StopReason::Running:
        return QStringLiteral("running");
    case StopReason::Decided:
        return QStringLiteral("decided");
    case StopReason::Unfair:
        return QStringLiteral("unfair");
    case StopReason::MaxPrompts:
        return QStringLiteral("max_prompts");
    case StopReason::Budget:
        return QStringLiteral("budget_minutes");
    case StopReason::PoolExhausted:
        return QStringLiteral("pool_exhausted");
    case StopReason::Cancelled:
        return QStringLiteral("cancelled");
    }
    return {};
}

namespace {

std::optional<StopReason> stopReasonFromId(const std::string& id)
{
    for (StopReason r : {StopReason::Running, StopReason::Decided, StopReason::Unfair, StopReason::MaxPrompts,
             StopReason::Budget, StopReason::PoolExhausted, StopReason::Cancelled})
        if (stopReasonId(r).toStdString() == id)
            return r;
    return std::nullopt;
}

std::optional<Outcome> outcomeFromId(const std::string& id)
{
    for (Outcome o : {Outcome::Pass, Outcome::Fail, Outcome::Inconclusive, Outcome::NotMeasured})
        if (outcomeId(o).toStdString() == id)
            return o;
    return std::nullopt;
}

std::optional<Recommendation::Decision> decisionFromId(const std::string& id)
{
    using D = Recommendation::Decision;
    for (D d : {D::Switch, D::KeepBaseline, D::Inconclusive})
        if (decisionId(d).toStdString() == id)
            return d;
    return std::nullopt;
}

json optionalNumber(const std::optional<double>& v)
{
    return v && std::isfinite(*v) ? json(*v) : json(nullptr);
}

std::optional<double> numberAt(const json& j, const char* key)
{
    const auto it = j.find(key);
    return it != j.end() && it->is_number() ? std::optional(it->get<double>()) : std::nullopt;
}

QString text(const json& j, const char* key)
{
    const auto it = j.find(key);
    return it != j.end() && it->is_string() ? QString::fromStdString(it->get<std::string>()) : QString();
}

int integer(const json& j, const char* key)
{
    const auto it = j.find(key);
    return it != j.end() && it->is_number_integer() ? it->get<int>() : 0;
}

json toJson(const LookCriterion& c)
{
    json j = {{"id", c.id.toStdString()}, {"outcome", outcomeId(c.outcome).toStdString()},
        {"estimate", optionalNumber(c.estimate)}, {"limit", optionalNumber(c.limit)}};
    if (c.interval)
        j["interval"] = {{"low", c.interval->lo}, {"high", c.interval->hi}};
    if (c.limit)
        j["worse_side"] = c.worseAbove ? "above" : "below";
    return j;
}

json toJson(const DecisionLook& look)
{
    json verdicts = json::array();
    for (const LookVerdict& v : look.verdicts) {
        json criteria = json::array();
        for (const LookCriterion& c : v.criteria)
            criteria.push_back(toJson(c));
        verdicts.push_back({{"baseline", v.baseline}, {"candidate", v.candidate},
            {"candidate_label", v.candidateLabel.toStdString()},
            {"decision", decisionId(v.decision).toStdString()}, {"criteria", std::move(criteria)}});
    }
    return {{"look", look.look}, {"prompts", look.prompts}, {"prompts_per_category", look.perCategory},
        {"elapsed_ms", std::round(look.elapsedMs)}, {"share", look.share}, {"verdicts", std::move(verdicts)}};
}

DecisionLook lookFromJson(const json& j)
{
    DecisionLook look;
    look.look = std::max(1, integer(j, "look"));
    look.prompts = integer(j, "prompts");
    look.perCategory = integer(j, "prompts_per_category");
    look.elapsedMs = numberAt(j, "elapsed_ms").value_or(0);
    look.share = lookShare(look.look);
    const auto verdicts = j.find("verdicts");
    if (verdicts == j.end() || !verdicts->is_array())
        return look;
    for (const json& v : *verdicts) {
        if (!v.is_object())
            continue;
        LookVerdict verdict;
        verdict.baseline = integer(v, "baseline");
        verdict.candidate = integer(v, "candidate");
        verdict.candidateLabel = text(v, "candidate_label");
        verdict.decision = decisionFromId(text(v, "decision").toStdString()).value_or(verdict.decision);
        const auto criteria = v.find("criteria");
        if (criteria != v.end() && criteria->is_array())
            for (const json& c : *criteria) {
                if (!c.is_object())
                    continue;
                LookCriterion lc;
                lc.id = text(c, "id");
                lc.outcome = outcomeFromId(text(c, "outcome").toStdString()).value_or(lc.outcome);
                lc.estimate = numberAt(c, "estimate");
                lc.limit = numberAt(c, "limit");
                lc.worseAbove = text(c, "worse_side") != QLatin1String("below");
                if (const auto ci = c.find("interval"); ci != c.end() && ci->is_object()) {
                    const auto lo = numberAt(*ci, "low"), hi = numberAt(*ci, "high");
                    if (lo && hi)
                        lc.interval = Interval {*lo, *hi};
                }
                verdict.criteria.push_back(std::move(lc));
            }
        look.verdicts.push_back(std::move(verdict));
    }
    return look;
}

} // namespace

json toJson(const UntilDecided& run)
{
    json looks = json::array();
    for (const DecisionLook& l : run.looks)
        looks.push_back(toJson(l));
    return {{"profile", run.profile.toStdString()}, {"max_prompts", run.maxPrompts},
        {"budget_minutes", run.budgetMinutes}, {"schedule", run.schedule},
        {"stop", stopReasonId(run.stop).toStdString()}, {"stop_text", run.stopText.toStdString()},
        {"looks", std::move(looks)}};
}

std::optional<UntilDecided> untilDecidedOf(const RunResult& result)
{
    const json& j = result.untilDecided;
    if (!j.is_object())
        return std::nullopt;
    UntilDecided run;
    run.profile = text(j, "profile");
    run.maxPrompts = integer(j, "max_prompts");
    run.budgetMinutes = numberAt(j, "budget_minutes").value_or(0);
    if (const auto s = j.find("schedule"); s != j.end() && s->is_array())
        for (const json& n : *s)
            if (n.is_number_integer())
                run.schedule.push_back(n.get<int>());
    run.stop = stopReasonFromId(text(j, "stop").toStdString()).value_or(StopReason::Running);
    run.stopText = text(j, "stop_text");
    if (const auto l = j.find("looks"); l != j.end() && l->is_array())
        for (const json& look : *l)
            if (look.is_object())
                run.looks.push_back(lookFromJson(look));
    return run;
}

int looksToAccountFor(const RunResult& result)
{
    if (result.untilDecided.is_null())
        return 0;
    const std::optional<UntilDecided> run = untilDecidedOf(result);
    if (!run) // damaged: as if it had looked as often as any run of this kind might
        return 8;
    const int taken = int(run->looks.size());
    if (run->stop != StopReason::Running && run->stop != StopReason::Cancelled && taken > 0)
        return taken;
    // Recovered mid-run, or stopped by hand (perhaps on what the looks showed): every look its
    // schedule allowed may have been taken.
    return std::max({taken, int(run->schedule.size()), 1});
}

DecisionLook lookOf(const std::vector<Recommendation>& recommendations, int look, int prompts,
    int perCategory, double elapsedMs)
{
    DecisionLook l;
    l.look = look;
    l.prompts = prompts;
    l.perCategory = perCategory;
    l.elapsedMs = elapsedMs;
    l.share = lookShare(look);
    for (const Recommendation& rec : recommendations) {
        LookVerdict v;
        v.baseline = rec.baseline;
        v.candidate = rec.candidate;
        v.candidateLabel = rec.candidateLabel;
        v.decision = rec.decision;
        for (const CriterionResult& r : rec.criteria)
            v.criteria.push_back({r.criterion.id, r.outcome, r.estimate, r.interval, r.limit, r.worseAbove});
        l.verdicts.push_back(std::move(v));
    }
    return l;
}

bool worthAnotherRound(const std::vector<Recommendation>& recommendations, bool* unfair)
{
    if (unfair)
        *unfair = false;
    bool more = false;
    for (const Recommendation& rec : recommendations) {
        if (!rec.caveats.isEmpty()) {
            if (unfair)
                *unfair = true;
            continue; // not a fair test: no number of prompts makes it one
        }
        if (rec.decision == Recommendation::Decision::KeepBaseline)
            continue; // a fail that holds: the verdict is made
        for (const CriterionResult& r : rec.criteria)
            more = more || r.outcome == Outcome::Inconclusive;
    }
    return more;
}

std::optional<int> promptsToDecide(const CriterionResult& r, int look, const std::vector<int>& promptsAt)
{
    if (r.outcome == Outcome::NotMeasured || !r.estimate || !r.interval || !r.limit || r.prompts <= 0)
        return std::nullopt;
    const double e = *r.estimate;
    const double distance = std::fabs(*r.limit - e);
    if (!(distance > 1e-12 * std::max(1.0, std::fabs(e))))
        return std::nullopt;
    // The side facing the limit is the one that must move past it.
    const double half = e > *r.limit ? e - r.interval->lo : r.interval->hi - e;
    const double zNow = normalQuantile(1 - 0.025 * lookShare(look));
    for (std::size_t j = 0; j < promptsAt.size(); ++j) {
        const int n = promptsAt[j];
        if (int(j + 1) <= look)
            continue; // a look already taken
        const double zThen = normalQuantile(1 - 0.025 * lookShare(int(j + 1)));
        if (half * std::sqrt(double(r.prompts) / n) * zThen / zNow < distance)
            return n;
    }
    return std::nullopt;
}

RoundVerdict judgeRound(const RunResult& soFar, UntilDecided& run, const DecisionProfile& profile,
    const Suite& pool, int baseline, int round, double elapsedMs, quint64 seed)
{
    RoundVerdict v;
    const std::size_t r = std::size_t(std::max(1, round)) - 1;
    const int perCategory = r < run.schedule.size() ? run.schedule[r] : 0;
    const int prompts = promptsDrawn(pool, perCategory, seed);
    const Evaluation ev = evaluate(soFar, baseline); // a run's own records carry their gate verdicts
    v.recommendations = recommend(soFar, ev, profile, round);
    run.looks.push_back(lookOf(v.recommendations, round, prompts, perCategory, elapsedMs));

    std::vector<int> promptsAt;
    for (int n : run.schedule)
        promptsAt.push_back(promptsDrawn(pool, n, seed));
    for (const Recommendation& rec : v.recommendations)
        for (const CriterionResult& c : rec.criteria) {
            if (c.outcome != Outcome::Inconclusive)
                continue;
            const std::optional<int> n = promptsToDecide(c, round, promptsAt);
            QString need = n
                ? QStringLiteral("roughly %1 distinct prompts").arg(*n)
                : QStringLiteral("more than the %1 distinct prompts this run may ask (at this estimate; "
                                 "one on its limit never settles)")
                      .arg(promptsAt.empty() ? 0 : promptsAt.back());
            v.needs << (v.recommendations.size() > 1 ? rec.candidateLabel + QStringLiteral(" · ") : QString())
                    + c.criterion.id + QStringLiteral(": ") + need;
        }

    bool unfair = false;
    const bool open = worthAnotherRound(v.recommendations, &unfair);
    if (!open) {
        run.stop = unfair ? StopReason::Unfair : StopReason::Decided;
        run.stopText = unfair
            ? QStringLiteral(
                "stopped after %1 distinct prompts: a critical warning makes the comparison unfair, "
                "and no number of prompts changes that")
                  .arg(prompts)
            : QStringLiteral("decided after %1 distinct prompts (look %2)").arg(prompts).arg(round);
        return v;
    }
    if (r + 1 >= run.schedule.size()) {
        const int poolPrompts = promptsDrawn(pool, 1 << 20, seed);
        if (run.maxPrompts > 0 && prompts < poolPrompts) {
            run.stop = StopReason::MaxPrompts;
            run.stopText = QStringLiteral("undecided after %1 distinct prompts: the next round would pass "
                                          "--max-prompts %2")
                               .arg(prompts)
                               .arg(run.maxPrompts);
        } else {
            run.stop = StopReason::PoolExhausted;
            run.stopText
                = QStringLiteral("undecided after all %1 distinct prompts of the suite").arg(prompts);
        }
        return v;
    }
    if (run.budgetMinutes > 0 && prompts > 0) {
        const int next = promptsAt[r + 1];
        const double projectedMs = elapsedMs + elapsedMs / prompts * (next - prompts);
        if (projectedMs > run.budgetMinutes * 60000) {
            run.stop = StopReason::Budget;
            run.stopText = QStringLiteral("undecided after %1 distinct prompts in %2 min: the next round "
                                          "(%3 prompts in all) would end at about %4 min, past the "
                                          "--budget-minutes %5")
                               .arg(prompts)
                               .arg(elapsedMs / 60000, 0, 'f', 1)
                               .arg(next)
                               .arg(projectedMs / 60000, 0, 'f', 1)
                               .arg(run.budgetMinutes);
            return v;
        }
    }
    v.more = true;
    return v;
}

QStringList lookLines(const DecisionLook& look)
{
    QStringList lines;
    for (const LookVerdict& v : look.verdicts) {
        QString head = QStringLiteral("look %1 after %2 distinct prompts (%3 s; intervals at %4)")
                           .arg(look.look)
                           .arg(look.prompts)
                           .arg(look.elapsedMs / 1000, 0, 'f', 0)
                           .arg(lookLevelText(look.look));
        if (look.verdicts.size() > 1)
            head += QStringLiteral(", ") + v.candidateLabel;
        lines << head + QStringLiteral(": ") + decisionId(v.decision);
        for (const LookCriterion& c : v.criteria) {
            QString line = QStringLiteral("  %1 %2").arg(c.id, outcomeId(c.outcome));
            if (c.estimate) {
                line += u' ' + criteria::number(*c.estimate);
                if (c.interval)
                    line += QStringLiteral(" [%1–%2]")
                                .arg(criteria::number(c.interval->lo), criteria::number(c.interval->hi));
                if (c.limit)
                    line += QStringLiteral(" (limit %1)").arg(criteria::number(*c.limit));
            }
            lines << line;
        }
    }
    return lines;
}

} // namespace qs
