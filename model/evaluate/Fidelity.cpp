// SPDX-License-Identifier: MIT
// Every arm's fidelity prompts paired with the reference's and summed up: flip rate with its
// exact interval, token-pooled KL with a bootstrap interval over prompts, shared prefixes,
// near-ties and confident flips, grade changes (docs/methodology.md, "Fidelity").
#include "model/evaluate/Fidelity.h"

#include "model/core/Percentile.h"
#include "model/evaluate/FidelityAlignment.h"
#include "model/evaluate/JudgedQuality.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

namespace qs {

namespace {

using json = nlohmann::json;
using PromptKey = std::tuple<QString, int, int>; // test, turn, iteration

constexpr double kNearTie = 0.5; // the reference's token got ≥ this × the candidate's own choice's p
constexpr double kConfident = 0.1; // …or < this × it (or was not listed): a confident flip
constexpr int kMinBootstrapPrompts = 2;

/// One arm's fidelity records by prompt: the first measured one of each (a concurrency sweep's
/// repeats are compared once).
std::map<PromptKey, int> byPrompt(const RunResult& result, const std::vector<int>& records, int endpoint)
{
    std::map<PromptKey, int> out;
    for (int i : records) {
        const RunRecord& r = result.records[std::size_t(i)];
        if (r.endpoint == endpoint)
            out.emplace(PromptKey {r.test, r.turn, r.iteration}, i);
    }
    return out;
}

QString label(const RunResult& result, int e)
{
    return result.endpoints[std::size_t(e)].endpoint.displayName();
}

/// Why a whole arm has no tokens to compare, from what its server did with the request.
QString supportOf(const RunResult& result, const std::map<PromptKey, int>& records, bool reference)
{
    int asked = 0, ignored = 0, refused = 0;
    QString refusal;
    for (const auto& [key, i] : records) {
        const RequestRecord& q = result.records[std::size_t(i)].request;
        if (!fidelity::askedForLogprobs(q.requestBody))
            continue;
        ++asked;
        if (q.ok()) {
            ignored += q.response.logprobs.present() ? 0 : 1;
        } else if (q.failure.httpStatus == 400
            && q.failure.serverMessage.contains(u"logprobs", Qt::CaseInsensitive)) {
            ++refused;
            refusal = q.failure.serverMessage;
        }
    }
    const QString whose
        = reference ? QStringLiteral("the reference's server") : QStringLiteral("this server");
    if (asked > 0 && refused == asked)
        return QStringLiteral("not supported by %1: it refused the logprobs request (\"%2\"); vLLM caps "
                              "top_logprobs with --max-logprobs (default 20)")
            .arg(whose, refusal.left(200));
    if (asked > 0 && ignored + refused == asked && ignored > 0)
        return QStringLiteral("not supported by %1: it ignored `logprobs`").arg(whose);
    return {};
}

/// Σ second / Σ first: over (positions, Σ KL) pairs the token-pooled mean KL, over (Σ KL of the
/// baseline, Σ KL of the candidate) pairs their ratio. Carried as pairs so that the bootstrap can
/// resample prompts whole.
std::optional<double> ratioOfSums(const std::vector<PairedValue>& prompts)
{
    double first = 0, second = 0;
    for (const PairedValue& v : prompts) {
        first += v.baseline;
        second += v.candidate;
    }
    if (first <= 0)
        return std::nullopt;
    return second / first;
}

/// One value pair per distinct prompt (test): its runs and turns are one cluster, so that
/// repeats of a greedy prompt never count as independent evidence.
std::vector<PairedValue> perTest(const std::map<QString, PairedValue>& clusters)
{
    std::vector<PairedValue> out;
    out.reserve(clusters.size());
    for (const auto& [test, v] : clusters)
        out.push_back(v);
    return out;
}

QString percent(double share)
{
    return QString::number(100 * share, 'f', 0) + QStringLiteral(" %");
}

/// The sentence that goes with a KL whose lists held too little of the reference's probability.
QString lowerBoundNote(double listedMass, const QString& what)
{
    return QStringLiteral("the reference's top lists held %1 of its probability on average (below %2): "
                          "the tokens outside the lists are merged into one bucket, which lowers a KL, so "
                          "read %3 as a lower bound of the drift")
        .arg(percent(listedMass), percent(FidelityLowerBoundMass), what);
}

void summarize(FidelityArm& arm, bool withIntervals)
{
    const int n = int(arm.prompts.size());
    std::map<QString, PairedValue> klTests; // test → (positions, Σ KL)
    std::vector<double> positionKl, shared;
    double deltaSum = 0, fractionSum = 0, massSum = 0;
    int deltaPositions = 0;
    for (const FidelityPrompt& p : arm.prompts) {
        arm.identical += p.identical ? 1 : 0;
        arm.comparablePrompts += p.tokensComparable ? 1 : 0;
        arm.partialTokens += p.partialTokens;
        shared.push_back(p.sharedPrefixTokens);
        fractionSum += p.sharedPrefixFraction;
        if (p.kl) {
            ++arm.klPrompts;
            PairedValue& t = klTests[p.test];
            t.baseline += p.klPositions;
            t.candidate += *p.kl * p.klPositions;
            positionKl.insert(positionKl.end(), p.positionKl.begin(), p.positionKl.end());
            for (const double m : p.positionMass)
                massSum += m;
        }
        if (p.meanAbsLogprobDelta) {
            deltaSum += *p.meanAbsLogprobDelta * p.logprobDeltaPositions;
            deltaPositions += p.logprobDeltaPositions;
        }
        if (p.gradeChanged) {
            ++arm.gradedPrompts;
            arm.gradeFlips += *p.gradeChanged ? 1 : 0;
        }
        if (p.identical || !p.candidateTokenProb)
            continue;
        if (p.referenceTokenProb && *p.referenceTokenProb >= kNearTie * *p.candidateTokenProb)
            ++arm.nearTies;
        else if ((p.referenceTokenProb && *p.referenceTokenProb < kConfident * *p.candidateTokenProb)
            || (!p.referenceTokenRank && p.listedCandidates > 0))
            ++arm.confidentFlips;
    }
    if (n == 0)
        return;
    arm.flipRate = 1.0 - double(arm.identical) / n;
    arm.flipRateCi = clopperPearsonInterval(n - arm.identical, n);
    arm.klComparable = arm.comparablePrompts == n;
    const std::vector<PairedValue> klPrompts = perTest(klTests);
    arm.klMean = ratioOfSums(klPrompts);
    if (withIntervals && int(klPrompts.size()) >= kMinBootstrapPrompts)
        arm.klCi = bootstrapInterval({klPrompts}, ratioOfSums);
    if (!positionKl.empty()) {
        arm.klListedMass = massSum / double(positionKl.size());
        arm.klLowerBound = *arm.klListedMass < FidelityLowerBoundMass;
        if (arm.klLowerBound)
            arm.klLowerBoundNote = lowerBoundNote(*arm.klListedMass, QStringLiteral("kl_mean"));
    }
    arm.klP99 = percentile(std::move(positionKl), 99);
    if (deltaPositions > 0)
        arm.meanAbsLogprobDelta = deltaSum / deltaPositions;
    arm.medianSharedPrefixTokens = percentile(std::move(shared), 50).value_or(0);
    arm.meanSharedPrefixFraction = fractionSum / n;
}

const FidelityArm* armOf(const Fidelity& f, int endpoint)
{
    for (const FidelityArm& a : f.arms)
        if (a.endpoint == endpoint)
            return &a;
    return nullptr;
}

/// Σ KL of both arms and Σ listed mass over the reference positions both compared in one answer
/// (positionToken ascends in each), added to `cluster` and `mass`; the positions used.
int addCommonPositions(
    const FidelityPrompt& base, const FidelityPrompt& cand, PairedValue& cluster, double& mass)
{
    int used = 0;
    std::size_t i = 0, j = 0;
    while (i < base.positionToken.size() && j < cand.positionToken.size()) {
        if (base.positionToken[i] < cand.positionToken[j]) {
            ++i;
        } else if (cand.positionToken[j] < base.positionToken[i]) {
            ++j;
        } else {
            cluster.baseline += base.positionKl[i];
            cluster.candidate += cand.positionKl[j];
            mass += cand.positionMass[j];
            ++used;
            ++i;
            ++j;
        }
    }
    return used;
}

} // namespace

FidelityKlRatio pairedKlRatio(
    const Fidelity& fidelity, int baseline, int candidate, bool withInterval, const BootstrapOptions& options)
{
    FidelityKlRatio r;
    r.baseline = baseline;
    r.candidate = candidate;
    const bool baselineIsReference = baseline == fidelity.reference;
    const FidelityArm* cand = armOf(fidelity, candidate);
    const FidelityArm* base = baselineIsReference ? nullptr : armOf(fidelity, baseline);
    r.candidateLabel = cand ? cand->endpointLabel : QString();
    r.baselineLabel = base ? base->endpointLabel : baselineIsReference ? fidelity.referenceLabel : QString();
    if (!cand || (!base && !baselineIsReference)) {
        r.note = QStringLiteral("no fidelity figures for the %1").arg(cand ? u"baseline" : u"candidate");
        return r;
    }
    std::map<std::tuple<QString, int, int>, const FidelityPrompt*> baseAnswers;
    if (base)
        for (const FidelityPrompt& p : base->prompts)
            baseAnswers.emplace(std::tuple {p.test, p.turn, p.iteration}, &p);
    std::map<QString, PairedValue> clusters; // test → (Σ baseline KL, Σ candidate KL)
    double mass = 0;
    for (const FidelityPrompt& p : cand->prompts) {
        if (!p.kl)
            continue;
        int used = 0;
        PairedValue sums;
        if (baselineIsReference) {
            // The reference against itself: KL 0 at every position the candidate compared.
            for (std::size_t k = 0; k < p.positionKl.size(); ++k) {
                sums.candidate += p.positionKl[k];
                mass += p.positionMass[k];
            }
            used = p.klPositions;
        } else {
            const auto it = baseAnswers.find(std::tuple {p.test, p.turn, p.iteration});
            if (it == baseAnswers.end() || !it->second->kl)
                continue;
            used = addCommonPositions(*it->second, p, sums, mass);
        }
        if (used == 0)
            continue;
        ++r.answers;
        r.positions += used;
        PairedValue& c = clusters[p.test];
        c.baseline += sums.baseline;
        c.candidate += sums.candidate;
    }
    r.prompts = int(clusters.size());
    if (r.positions == 0) {
        r.note = QStringLiteral("no position compared on both arms (no prompt comparable on both)");
        return r;
    }
    const std::vector<PairedValue> perPrompt = perTest(clusters);
    double baseSum = 0, candSum = 0;
    for (const PairedValue& v : perPrompt) {
        baseSum += v.baseline;
        candSum += v.candidate;
    }
    r.baselineKl = baseSum / r.positions;
    r.candidateKl = candSum / r.positions;
    r.listedMass = mass / r.positions;
    r.lowerBound = *r.listedMass < FidelityLowerBoundMass;
    r.ratio = ratioOfSums(perPrompt);
    QStringList notes;
    if (!r.ratio)
        notes << (baselineIsReference
                ? QStringLiteral("the baseline is the reference: its KL is 0 by definition, so there is no "
                                 "ratio; judge the candidate's KL by itself")
                : QStringLiteral("the baseline's KL is 0 on these positions (it answers as the reference "
                                 "does): no ratio; judge the candidate's KL by itself"));
    else if (withInterval && r.prompts >= kMinBootstrapPrompts)
        r.ratioCi = bootstrapInterval({perPrompt}, ratioOfSums, options);
    if (r.lowerBound)
        notes << lowerBoundNote(*r.listedMass, QStringLiteral("both KLs"));
    r.note = notes.join(QStringLiteral("; "));
    return r;
}

Fidelity computeFidelity(const RunResult& result, int baseline, int reference, bool withIntervals)
{
    Fidelity f;
    const int endpoints = int(result.endpoints.size());
    f.records = fidelity::fidelityRecords(result);
    if (endpoints < 2 || f.records.empty())
        return f;
    const int marked = referenceEndpoint(result);
    f.reference = reference >= 0 && reference < endpoints ? reference
        : marked >= 0                                     ? marked
                                                          : std::clamp(baseline, 0, endpoints - 1);
    f.baseline = std::clamp(baseline, 0, endpoints - 1);
    f.referenceMarked = result.endpoints[std::size_t(f.reference)].reference;
    f.referenceLabel = label(result, f.reference);
    const std::map<PromptKey, int> refRecords = byPrompt(result, f.records, f.reference);
    if (refRecords.empty()) {
        f.notes << QStringLiteral("the reference \"%1\" answered no fidelity prompt").arg(f.referenceLabel);
        return f;
    }
    if (!f.referenceMarked)
        f.notes << QStringLiteral("no endpoint is marked as the reference (`--reference`): fidelity is "
                                  "measured against the baseline \"%1\"")
                       .arg(f.referenceLabel);
    const QString refSupport = supportOf(result, refRecords, true);
    // The reference's records in file order, as the arms' prompts are listed.
    std::vector<std::pair<int, PromptKey>> refOrder;
    for (const auto& [key, i] : refRecords)
        refOrder.emplace_back(i, key);
    std::sort(refOrder.begin(), refOrder.end());
    for (int e = 0; e < endpoints; ++e) {
        if (e == f.reference)
            continue;
        const std::map<PromptKey, int> candRecords = byPrompt(result, f.records, e);
        if (candRecords.empty())
            continue;
        FidelityArm arm;
        arm.endpoint = e;
        arm.reference = f.reference;
        arm.endpointLabel = label(result, e);
        arm.referenceLabel = f.referenceLabel;
        for (const auto& [refIndex, key] : refOrder) {
            const auto it = candRecords.find(key);
            if (it == candRecords.end())
                continue;
            const RunRecord& ref = result.records[std::size_t(refIndex)];
            const RunRecord& cand = result.records[std::size_t(it->second)];
            if (!ref.request.ok() || !cand.request.ok()) {
                ++arm.failedPrompts;
                continue;
            }
            FidelityPrompt p = compareAnswers(ref, cand);
            p.referenceRecord = refIndex;
            p.candidateRecord = it->second;
            arm.prompts.push_back(std::move(p));
        }
        arm.support = refSupport.isEmpty() ? supportOf(result, candRecords, false) : refSupport;
        summarize(arm, withIntervals);
        f.arms.push_back(std::move(arm));
    }
    // Each candidate's KL paired with the baseline's: same prompts, same positions.
    const bool baselineMeasured = f.baseline == f.reference || armOf(f, f.baseline) != nullptr;
    for (FidelityArm& arm : f.arms)
        if (baselineMeasured && arm.endpoint != f.baseline)
            arm.klVsBaseline = pairedKlRatio(f, f.baseline, arm.endpoint, withIntervals);
    return f;
}

namespace {

template <typename T> json orNull(const std::optional<T>& v)
{
    if constexpr (std::is_floating_point_v<T>)
        return v && std::isfinite(*v) ? json(*v) : json(nullptr);
    else
        return v ? json(*v) : json(nullptr);
}

json finite(double v)
{
    return std::isfinite(v) ? json(v) : json(nullptr);
}

json intervalJson(const std::optional<Interval>& ci)
{
    if (!ci || !std::isfinite(ci->lo) || !std::isfinite(ci->hi))
        return nullptr;
    return json::array({ci->lo, ci->hi});
}

json promptJson(const FidelityPrompt& p)
{
    return {{"test", p.test.toStdString()}, {"turn", p.turn}, {"run", p.iteration},
        {"identical", p.identical}, {"first_divergence", orNull(p.firstDivergence)},
        {"shared_prefix_tokens", p.sharedPrefixTokens},
        {"shared_prefix_fraction", finite(p.sharedPrefixFraction)}, {"reference_tokens", p.referenceTokens},
        {"candidate_tokens", p.candidateTokens}, {"first_divergence_char", orNull(p.firstDivergenceChar)},
        {"reference_token_rank", orNull(p.referenceTokenRank)},
        {"reference_token_prob", orNull(p.referenceTokenProb)},
        {"candidate_token_prob", orNull(p.candidateTokenProb)}, {"kl", orNull(p.kl)},
        {"kl_positions", p.klPositions}, {"kl_listed_mass", orNull(p.klListedMass)},
        {"kl_stopped_at", orNull(p.klStoppedAt)}, {"partial_tokens", p.partialTokens},
        {"mean_abs_logprob_delta", orNull(p.meanAbsLogprobDelta)}, {"tokens_comparable", p.tokensComparable},
        {"grade_changed", orNull(p.gradeChanged)}, {"note", p.note.toStdString()}};
}

json textOrNull(const QString& text)
{
    return text.isEmpty() ? json(nullptr) : json(text.toStdString());
}

json ratioJson(const std::optional<FidelityKlRatio>& r)
{
    if (!r)
        return nullptr;
    return {{"baseline", r->baselineLabel.toStdString()}, {"prompts", r->prompts}, {"answers", r->answers},
        {"positions", r->positions}, {"baseline_kl", orNull(r->baselineKl)},
        {"candidate_kl", orNull(r->candidateKl)}, {"ratio", orNull(r->ratio)},
        {"ratio_ci", intervalJson(r->ratioCi)}, {"listed_mass", orNull(r->listedMass)},
        {"kl_lower_bound", r->lowerBound}, {"note", textOrNull(r->note)}};
}

} // namespace

nlohmann::json toJson(const Fidelity& fidelity)
{
    json out = json::array();
    for (const FidelityArm& a : fidelity.arms) {
        json prompts = json::array();
        for (const FidelityPrompt& p : a.prompts)
            prompts.push_back(promptJson(p));
        json notes = json::array();
        for (const QString& n : fidelity.notes)
            notes.push_back(n.toStdString());
        out.push_back({{"endpoint", a.endpointLabel.toStdString()},
            {"reference", a.referenceLabel.toStdString()}, {"reference_marked", fidelity.referenceMarked},
            {"prompts", int(a.prompts.size())}, {"failed_prompts", a.failedPrompts},
            {"identical", a.identical}, {"flip_rate", finite(a.flipRate)},
            {"flip_rate_ci", intervalJson(a.flipRateCi)}, {"kl_mean", orNull(a.klMean)},
            {"kl_ci", intervalJson(a.klCi)}, {"kl_p99", orNull(a.klP99)}, {"kl_comparable", a.klComparable},
            {"comparable_prompts", a.comparablePrompts}, {"kl_prompts", a.klPrompts},
            {"partial_tokens", a.partialTokens}, {"kl_listed_mass", orNull(a.klListedMass)},
            {"kl_lower_bound", a.klLowerBound}, {"kl_lower_bound_note", textOrNull(a.klLowerBoundNote)},
            {"kl_vs_baseline", ratioJson(a.klVsBaseline)},
            {"mean_abs_logprob_delta", orNull(a.meanAbsLogprobDelta)},
            {"median_shared_prefix_tokens", finite(a.medianSharedPrefixTokens)},
            {"shared_prefix_fraction", finite(a.meanSharedPrefixFraction)},
            {"graded_prompts", a.gradedPrompts}, {"grade_changed", a.gradeFlips}, {"near_ties", a.nearTies},
            {"confident_flips", a.confidentFlips}, {"support", textOrNull(a.support)},
            {"notes", std::move(notes)}, {"per_prompt", std::move(prompts)}});
    }
    return out;
}

QString klText(double nats)
{
    if (nats == 0)
        return QStringLiteral("0");
    // Below 0.001 'g' would switch to exponent form anyway; one decimal of mantissa is enough there.
    if (std::fabs(nats) < 0.001)
        return QString::number(nats, 'e', 1);
    return QString::number(nats, 'g', 3);
}

QString klMissingWhy(const FidelityArm& arm)
{
    if (!arm.support.isEmpty())
        return arm.support;
    for (const FidelityPrompt& p : arm.prompts)
        if (!p.tokensComparable && !p.note.isEmpty())
            return p.note;
    return QStringLiteral("the two arms' tokens do not line up");
}

} // namespace qs
