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

/// Token-pooled mean KL of a set of prompts: Σ klᵢ·nᵢ / Σ nᵢ, carried as pairs (n, kl·n) so the
/// paired bootstrap can resample prompts.
std::optional<double> pooledKl(const std::vector<PairedValue>& prompts)
{
    double positions = 0, sum = 0;
    for (const PairedValue& v : prompts) {
        positions += v.baseline;
        sum += v.candidate;
    }
    if (positions <= 0)
        return std::nullopt;
    return sum / positions;
}

void summarize(FidelityArm& arm, bool withIntervals)
{
    const int n = int(arm.prompts.size());
    std::vector<PairedValue> klPrompts;
    std::vector<double> positionKl, shared;
    double deltaSum = 0, fractionSum = 0;
    int deltaPositions = 0;
    for (const FidelityPrompt& p : arm.prompts) {
        arm.identical += p.identical ? 1 : 0;
        arm.comparablePrompts += p.tokensComparable ? 1 : 0;
        shared.push_back(p.sharedPrefixTokens);
        fractionSum += p.sharedPrefixFraction;
        if (p.kl) {
            klPrompts.push_back({double(p.klPositions), *p.kl * p.klPositions});
            positionKl.insert(positionKl.end(), p.positionKl.begin(), p.positionKl.end());
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
    arm.klMean = pooledKl(klPrompts);
    if (withIntervals && int(klPrompts.size()) >= kMinBootstrapPrompts)
        arm.klCi = bootstrapInterval({klPrompts}, pooledKl);
    arm.klP99 = percentile(std::move(positionKl), 99);
    if (deltaPositions > 0)
        arm.meanAbsLogprobDelta = deltaSum / deltaPositions;
    arm.medianSharedPrefixTokens = percentile(std::move(shared), 50).value_or(0);
    arm.meanSharedPrefixFraction = fractionSum / n;
}

} // namespace

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
        {"kl_positions", p.klPositions}, {"mean_abs_logprob_delta", orNull(p.meanAbsLogprobDelta)},
        {"tokens_comparable", p.tokensComparable}, {"grade_changed", orNull(p.gradeChanged)},
        {"note", p.note.toStdString()}};
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
        out.push_back(
            {{"endpoint", a.endpointLabel.toStdString()}, {"reference", a.referenceLabel.toStdString()},
                {"reference_marked", fidelity.referenceMarked}, {"prompts", int(a.prompts.size())},
                {"failed_prompts", a.failedPrompts}, {"identical", a.identical},
                {"flip_rate", finite(a.flipRate)}, {"flip_rate_ci", intervalJson(a.flipRateCi)},
                {"kl_mean", orNull(a.klMean)}, {"kl_ci", intervalJson(a.klCi)}, {"kl_p99", orNull(a.klP99)},
                {"kl_comparable", a.klComparable}, {"comparable_prompts", a.comparablePrompts},
                {"mean_abs_logprob_delta", orNull(a.meanAbsLogprobDelta)},
                {"median_shared_prefix_tokens", finite(a.medianSharedPrefixTokens)},
                {"shared_prefix_fraction", finite(a.meanSharedPrefixFraction)},
                {"graded_prompts", a.gradedPrompts}, {"grade_changed", a.gradeFlips},
                {"near_ties", a.nearTies}, {"confident_flips", a.confidentFlips},
                {"support", a.support.isEmpty() ? json(nullptr) : json(a.support.toStdString())},
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
