// SPDX-License-Identifier: MIT
// One position's two top lists made comparable, and the KL divergence between them estimated
// over the union of the lists plus a tail bucket (docs/methodology.md, "KL over truncated top-k
// lists"). Servers send at most 20 alternatives; the rest of the distribution is known only as
// the mass the list leaves over, so that mass is spread explicitly and never dropped.
#include "model/evaluate/Fidelity.h"
#include "model/evaluate/FidelityAlignment.h"

#include <QHash>
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

namespace {

/// A list entry with its bytes hashed once (most comparisons are then one integer compare), its
/// probability, and where the other list holds the same token (−1: it does not).
struct Entry {
    const TokenCandidate* c = nullptr;
    std::size_t hash = 0;
    double p = 0;
    int match = -1;
    bool same(const Entry& o) const
    {
        if (c->id && o.c->id)
            return *c->id == *o.c->id;
        return hash == o.hash && c->bytes == o.c->bytes;
    }
};

/// normalizedTopList into `out` without copying the entries: it runs at every compared position,
/// so the caller reuses the buffer.
void normalizeInto(const std::vector<TokenCandidate>& top, std::vector<Entry>& out)
{
    out.clear();
    for (const TokenCandidate& c : top) {
        // Insertion sort, stable (vLLM puts the sampled token first; equals keep the server's
        // order): lists hold at most a few dozen entries.
        Entry e;
        e.c = &c;
        e.hash = qHash(c.bytes);
        auto at = out.end();
        while (at != out.begin() && (at - 1)->c->logprob < c.logprob)
            --at;
        out.insert(at, e);
    }
    // Sorted first, so the entry kept for a token is the one with the higher logprob.
    std::size_t kept = 0;
    for (std::size_t i = 0; i < out.size(); ++i)
        if (std::none_of(out.begin(), out.begin() + std::ptrdiff_t(kept),
                [&](const Entry& o) { return o.same(out[i]); }))
            out[kept++] = out[i];
    out.resize(kept);
}

/// A normalized list read as probabilities: listed p (scaled to sum to 1 when rounding made the
/// sum exceed it, into Entry::p) and the tail mass T the list leaves over.
struct ListMass {
    double tail = 0;
    double smallest = 0; ///< the smallest listed p (0 when the list holds an impossible token)
    double listed = 0; ///< Σ listed p, at most 1: how much of the distribution the list shows

    explicit ListMass(std::vector<Entry>& list)
    {
        double sum = 0;
        for (Entry& e : list) {
            e.p = fidelity::probability(e.c->logprob);
            sum += e.p;
        }
        listed = std::min(sum, 1.0);
        if (sum > 1) {
            for (Entry& e : list)
                e.p /= sum;
        } else {
            tail = 1 - sum;
        }
        smallest = list.empty() ? 0 : list.back().p; // sorted descending
        for (const Entry& e : list)
            smallest = std::min(smallest, e.p);
    }

    /// What each of `missing` tokens of the union this list does not hold gets: less than every
    /// listed one, and a share of the tail with the tokens nobody listed — min(smallest listed p,
    /// T / (m + 1)). The tail bucket keeps the rest.
    double unlisted(int missing) const { return missing > 0 ? std::min(smallest, tail / (missing + 1)) : 0; }
    double bucket(int missing) const { return std::max(0.0, tail - unlisted(missing) * missing); }
};

double klTerm(double p, double q)
{
    // p = 0 contributes 0, and p = q exactly 0 (so identical lists give exactly 0).
    if (p <= 0 || p == q)
        return 0;
    return p * std::log(p / std::max(q, FidelityProbabilityFloor));
}

} // namespace

std::vector<TokenCandidate> normalizedTopList(const std::vector<TokenCandidate>& top)
{
    std::vector<Entry> entries;
    normalizeInto(top, entries);
    std::vector<TokenCandidate> out;
    out.reserve(entries.size());
    for (const Entry& e : entries)
        out.push_back(*e.c);
    return out;
}

std::optional<double> topListKl(
    const std::vector<TokenCandidate>& reference, const std::vector<TokenCandidate>& candidate)
{
    const std::optional<TopListKlEstimate> e = topListKlEstimate(reference, candidate);
    return e ? std::optional<double>(e->kl) : std::nullopt;
}

std::optional<TopListKlEstimate> topListKlEstimate(
    const std::vector<TokenCandidate>& reference, const std::vector<TokenCandidate>& candidate)
{
    thread_local std::vector<Entry> p, q;
    normalizeInto(reference, p);
    normalizeInto(candidate, q);
    if (p.empty() || q.empty())
        return std::nullopt;
    const ListMass pm(p);
    const ListMass qm(q);
    // The union: P's tokens, then Q's that P does not list.
    for (std::size_t j = 0; j < q.size(); ++j) {
        for (std::size_t i = 0; i < p.size(); ++i) {
            if (p[i].match < 0 && p[i].same(q[j])) {
                p[i].match = int(j);
                q[j].match = int(i);
                break;
            }
        }
    }
    const auto unmatched = [](const std::vector<Entry>& l) {
        return int(std::count_if(l.begin(), l.end(), [](const Entry& e) { return e.match < 0; }));
    };
    const int missingFromQ = unmatched(p);
    const int missingFromP = unmatched(q);
    const double pUnlisted = pm.unlisted(missingFromP);
    const double qUnlisted = qm.unlisted(missingFromQ);
    double kl = 0;
    for (const Entry& e : p)
        kl += klTerm(e.p, e.match >= 0 ? q[std::size_t(e.match)].p : qUnlisted);
    for (const Entry& e : q)
        if (e.match < 0)
            kl += klTerm(pUnlisted, e.p);
    kl += klTerm(pm.bucket(missingFromP), qm.bucket(missingFromQ));
    // Both sides are distributions over the same buckets, so KL ≥ 0; rounding (and the floor)
    // may leave a hair below it.
    return TopListKlEstimate {std::isfinite(kl) ? std::max(0.0, kl) : 0.0, pm.listed, qm.listed};
}

} // namespace qs
