// SPDX-License-Identifier: MIT
#include "tests/support/FidelityScript.h"

#include "tests/support/EmulatorLogprobs.h"

#include <algorithm>
#include <cmath>

namespace qs::emu {

namespace {

using detail::serverPrecision;

/// One arm's complete distribution at a position: token → float32-rounded logprob.
using Distribution = std::vector<LogprobCandidate>;

double logprobOf(const Distribution& d, const QString& token)
{
    for (const LogprobCandidate& c : d) {
        if (c.token == token)
            return c.logprob;
    }
    return -INFINITY;
}

// Filler weights 1/2, 1/4, … normalised: the fillers share what the named tokens leave.
std::vector<double> fillerShares(int fillers)
{
    std::vector<double> shares;
    double sum = 0;
    for (int j = 0; j < fillers; ++j) {
        shares.push_back(std::ldexp(1.0, -(j + 1)));
        sum += shares.back();
    }
    for (double& s : shares)
        s /= sum;
    return shares;
}

/// `named` tokens at their probabilities, the fillers sharing the rest.
Distribution distribution(const std::vector<std::pair<QString, double>>& named, const QStringList& fillers)
{
    Distribution out;
    double rest = 1;
    for (const auto& [token, p] : named) {
        out.push_back(LogprobCandidate {token, serverPrecision(std::log(p)), -1});
        rest -= p;
    }
    const std::vector<double> shares = fillerShares(int(fillers.size()));
    for (qsizetype j = 0; j < fillers.size(); ++j)
        out.push_back(
            LogprobCandidate {fillers.at(j), serverPrecision(std::log(rest * shares[std::size_t(j)])), -1});
    return out;
}

// Fillers that differ from every named token at the position.
QStringList fillersFor(const QString& chosen, const QString& other, int position, int count)
{
    QStringList out;
    for (const QString& t : detail::alternativeTokens(chosen, quint64(position), count + 1)) {
        if (t != other && out.size() < count)
            out << t;
    }
    return out;
}

PositionScript positionOf(const Distribution& d, const QString& chosen)
{
    PositionScript p;
    p.logprob = logprobOf(d, chosen);
    p.top = d;
    // A byte piece is named by id: the streamed text (the whole character) is not its name.
    if (detail::tokenBytes(chosen) != chosen.toUtf8())
        p.id = tokenIdFor(chosen);
    return p;
}

/// The last byte piece of a character split across tokens, by its byte-token name.
QString lastPiece(const QString& character)
{
    return detail::byteTokenName(character.toUtf8().right(1));
}

double klAt(const Distribution& reference, const Distribution& candidate)
{
    double kl = 0;
    for (const LogprobCandidate& c : reference)
        kl += std::exp(c.logprob) * (c.logprob - logprobOf(candidate, c.token));
    return kl;
}

Script fastScript(const QStringList& content)
{
    Script s = simpleScript(0, 5, 1000);
    s.content = content;
    return s;
}

} // namespace

ScriptedDivergence scriptedDivergence(const DivergenceSpec& spec)
{
    const QStringList& ref = spec.reference;
    const int k = std::clamp(spec.divergeAt, 0, std::max(0, int(ref.size()) - 1));
    const int fillers = std::max(1, spec.fillers);
    const double p = std::clamp(spec.referenceProb, 1e-6, 0.999);
    QStringList tail = spec.candidateTail;
    const QString refAtK = ref.value(k);
    if (tail.isEmpty() || tail.first() == refAtK)
        tail.prepend(refAtK + QStringLiteral("~"));
    const QString candAtK = tail.first();
    const double drifted = p * std::exp(-std::max(0.0, spec.drift));
    const double ratio = std::exp(-spec.margin);
    const double a = std::min(spec.candidateProb, 0.98 / (1 + ratio));
    const auto split = [&spec, k](int i) {
        return i < k
            && std::find(spec.sharedSplits.begin(), spec.sharedSplits.end(), i) != spec.sharedSplits.end();
    };

    ScriptedDivergence out;
    out.reference = fastScript(ref);
    out.candidate = fastScript(ref.mid(0, k) + tail);
    DivergenceExpectation& e = out.expected;
    e.firstDivergence = k;
    e.sharedPrefixTokens = k;
    e.divergenceHidden = spec.candidateSplitsAtK;
    double deltaSum = 0;
    int deltaPositions = 0;
    for (int i = 0; i < int(ref.size()); ++i) {
        // The token each position chose: a split character's is its last byte piece.
        const QString chosen = split(i) ? lastPiece(ref.at(i)) : ref.at(i);
        const QStringList fill = fillersFor(chosen, i == k ? candAtK : QString(), i, fillers);
        Distribution r;
        if (i == k)
            r = distribution({{chosen, p}, {candAtK, (1 - p) / 2}}, fill);
        else
            r = distribution({{chosen, p}}, fill);
        out.reference.logprobs.positions.push_back(positionOf(r, chosen));
        if (i > k)
            continue;
        Distribution c;
        QString candChosen = chosen;
        if (i < k) {
            c = distribution({{chosen, drifted}}, fill);
            if (!split(i)) {
                deltaSum += std::abs(logprobOf(r, chosen) - logprobOf(c, chosen));
                ++deltaPositions;
            }
        } else if (spec.candidateSplitsAtK) {
            // What a server shows for the candidate at k: its last piece's list, one position on.
            candChosen = lastPiece(candAtK);
            c = distribution({{candChosen, a}}, fillersFor(candChosen, QString(), i, fillers));
        } else {
            candChosen = candAtK;
            c = distribution({{candAtK, a}, {chosen, a * ratio}}, fill);
            const double refInCand = logprobOf(c, chosen);
            e.referenceTokenProb = std::exp(refInCand);
            e.candidateTokenProb = std::exp(logprobOf(c, candAtK));
            e.referenceOwnProb = std::exp(logprobOf(r, chosen));
            e.referenceTokenRank = 1
                + int(std::count_if(c.begin(), c.end(),
                    [refInCand](const LogprobCandidate& x) { return x.logprob > refInCand; }));
        }
        out.candidate.logprobs.positions.push_back(positionOf(c, candChosen));
        if (!split(i) && !(i == k && spec.candidateSplitsAtK)) {
            e.klPositions.push_back(i);
            e.kl.push_back(klAt(r, c));
        }
    }
    // The candidate's own continuation after k: confident, its own fillers.
    for (int j = 1; j < int(tail.size()); ++j) {
        const Distribution c
            = distribution({{tail.at(j), p}}, fillersFor(tail.at(j), QString(), k + j, fillers));
        out.candidate.logprobs.positions.push_back(positionOf(c, tail.at(j)));
    }
    double klSum = 0;
    for (const double v : e.kl)
        klSum += v;
    e.klMean = e.kl.empty() ? 0 : klSum / double(e.kl.size());
    if (deltaPositions > 0)
        e.meanAbsLogprobDelta = deltaSum / deltaPositions;
    return out;
}

} // namespace qs::emu
