// SPDX-License-Identifier: MIT
// One position's two top lists made comparable, and the KL divergence between them estimated
// over the union of the lists plus a tail bucket (docs/methodology.md, "KL over truncated top-k
// lists"). Servers send at most 20 alternatives; the rest of the distribution is known only as
// the mass the list leaves over, so that mass is spread explicitly and never dropped.
#include "model/evaluate/Fidelity.h"
#include "model/evaluate/FidelityAlignment.h"

#include <algorithm>
#include <cmath>

namespace qs {

namespace fidelity {

double probability(double logprob)
{
    if (std::isnan(logprob) || logprob == -std::numeric_limits<double>::infinity())
        return 0;
    return std::clamp(std::exp(logprob), 0.0, 1.0);
}

} // namespace fidelity

std::vector<TokenCandidate> normalizedTopList(const std::vector<TokenCandidate>& top)
{
    std::vector<TokenCandidate> sorted = top;
    // vLLM puts the sampled token first; a stable sort keeps the server's order among equals.
    std::stable_sort(sorted.begin(), sorted.end(),
        [](const TokenCandidate& a, const TokenCandidate& b) { return a.logprob > b.logprob; });
    std::vector<TokenCandidate> out;
    out.reserve(sorted.size());
    for (TokenCandidate& c : sorted) {
        // Sorted first, so the entry kept for a token is the one with the higher logprob.
        const bool seen = std::any_of(
            out.begin(), out.end(), [&c](const TokenCandidate& o) { return fidelity::sameToken(o, c); });
        if (!seen)
            out.push_back(std::move(c));
    }
    return out;
}

namespace {

/// A normalized list read as probabilities: listed p (scaled to sum to 1 when rounding made the
/// sum exceed it) and the tail mass T the list leaves over.
struct ListMass {
    std::vector<double> p;
    double tail = 0;
    double smallest = 0; ///< the smallest listed p (0 when the list holds an impossible token)
};

ListMass massOf(const std::vector<TokenCandidate>& list)
{
    ListMass m;
    double sum = 0;
    for (const TokenCandidate& c : list) {
        m.p.push_back(fidelity::probability(c.logprob));
        sum += m.p.back();
    }
    if (sum > 1) {
        for (double& p : m.p)
            p /= sum;
    } else {
        m.tail = 1 - sum;
    }
    m.smallest = m.p.empty() ? 0 : *std::min_element(m.p.begin(), m.p.end());
    return m;
}

/// The probability each token of the union gets from one list, plus the tail bucket (last).
std::vector<double> overUnion(const std::vector<TokenCandidate>& list, const ListMass& mass,
    const std::vector<const TokenCandidate*>& unionTokens)
{
    std::vector<double> out(unionTokens.size() + 1, -1.0);
    int missing = 0;
    for (std::size_t u = 0; u < unionTokens.size(); ++u) {
        for (std::size_t i = 0; i < list.size(); ++i) {
            if (fidelity::sameToken(list[i], *unionTokens[u])) {
                out[u] = mass.p[i];
                break;
            }
        }
        missing += out[u] < 0 ? 1 : 0;
    }
    // An unlisted token is less likely than every listed one and shares the tail with the
    // tokens nobody listed: it gets min(smallest listed p, T / (m + 1)), the bucket the rest.
    const double each = missing > 0 ? std::min(mass.smallest, mass.tail / (missing + 1)) : 0;
    for (std::size_t u = 0; u < unionTokens.size(); ++u)
        if (out[u] < 0)
            out[u] = each;
    out.back() = std::max(0.0, mass.tail - each * missing);
    return out;
}

} // namespace

std::optional<double> topListKl(
    const std::vector<TokenCandidate>& reference, const std::vector<TokenCandidate>& candidate)
{
    const std::vector<TokenCandidate> p = normalizedTopList(reference);
    const std::vector<TokenCandidate> q = normalizedTopList(candidate);
    if (p.empty() || q.empty())
        return std::nullopt;
    std::vector<const TokenCandidate*> unionTokens;
    unionTokens.reserve(p.size() + q.size());
    for (const TokenCandidate& c : p)
        unionTokens.push_back(&c);
    for (const TokenCandidate& c : q)
        if (std::none_of(
                p.begin(), p.end(), [&c](const TokenCandidate& o) { return fidelity::sameToken(o, c); }))
            unionTokens.push_back(&c);
    const std::vector<double> pu = overUnion(p, massOf(p), unionTokens);
    const std::vector<double> qu = overUnion(q, massOf(q), unionTokens);
    double kl = 0;
    for (std::size_t i = 0; i < pu.size(); ++i) {
        if (pu[i] <= 0 || pu[i] == qu[i]) // p = 0 contributes 0; p = q contributes exactly 0
            continue;
        kl += pu[i] * std::log(pu[i] / std::max(qu[i], FidelityProbabilityFloor));
    }
    // Both sides are distributions over the same buckets, so KL ≥ 0; rounding (and the floor)
    // may leave a hair below it.
    return std::isfinite(kl) ? std::max(0.0, kl) : 0.0;
}

} // namespace qs
