// SPDX-License-Identifier: MIT
#include "tests/support/SimulatedLogprobs.h"

#include "tests/support/EmulatorLogprobs.h"
#include "tests/support/StableHash.h"

#include <array>
#include <cmath>
#include <numbers>

namespace qs::emu::detail {

namespace {

constexpr int kListed = 5; // the answer's token and four alternatives
constexpr double kMaxGap = 11; // nats between the answer's token and the first alternative

// A standard normal from two hashed uniforms (Box–Muller): portable, unlike std distributions.
double normalFrom(quint64 hash)
{
    const double u1 = std::max(unitFromHash(hash), 1e-300);
    const double u2 = unitFromHash(splitMix(hash));
    return std::sqrt(-2 * std::log(u1)) * std::cos(2 * std::numbers::pi * u2);
}

} // namespace

SimulatedTokens simulatedLogprobs(const QStringList& tokens, quint64 prompt, double noise, quint64 salt)
{
    SimulatedTokens out;
    for (qsizetype i = 0; i < tokens.size(); ++i) {
        const quint64 at = splitMix(prompt ^ splitMix(quint64(i) + 1));
        // The base: logits relative to the answer's token, which is on top.
        std::array<double, kListed> logits {};
        logits[1] = -kMaxGap * unitFromHash(at);
        for (int j = 2; j < kListed; ++j)
            logits[std::size_t(j)]
                = logits[std::size_t(j) - 1] - (0.5 + 2 * unitFromHash(splitMix(at + quint64(j))));
        QStringList listed {tokens.at(i)};
        listed << alternativeTokens(tokens.at(i), splitMix(at ^ 0xA17ULL), kListed - 1);
        // The profile's perturbation, then a softmax over the listed tokens: a complete list.
        int best = 0;
        double max = -INFINITY;
        for (int j = 0; j < int(listed.size()); ++j) {
            if (noise > 0)
                logits[std::size_t(j)] += noise * normalFrom(splitMix(salt ^ at ^ splitMix(quint64(j) + 7)));
            if (logits[std::size_t(j)] > max) {
                max = logits[std::size_t(j)];
                best = j;
            }
        }
        double sum = 0;
        for (int j = 0; j < int(listed.size()); ++j)
            sum += std::exp(logits[std::size_t(j)] - max);
        const double logSum = max + std::log(sum);
        PositionScript position;
        for (int j = 0; j < int(listed.size()); ++j)
            position.top.push_back(LogprobCandidate {listed.at(j), logits[std::size_t(j)] - logSum, -1});
        position.logprob = logits[std::size_t(best)] - logSum;
        if (best != 0 && !out.firstFlip)
            out.firstFlip = int(i);
        out.tokens << listed.at(best);
        out.logprobs.positions.push_back(std::move(position));
    }
    return out;
}

} // namespace qs::emu::detail
