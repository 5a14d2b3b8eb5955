// SPDX-License-Identifier: MIT
#pragma once

// Hand-built fidelity answers: tokens with their logprobs and top lists as the servers send them
// (after the wire stage's normalization), in records that asked for logprobs as the fidelity
// suite does. For the fidelity statistics and the fidelity guardrails.
#include "model/core/RunRecord.h"

#include <QString>
#include <cmath>
#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

namespace qs::test {

inline TokenCandidate candidate(const char* text, double p, std::optional<qint64> id = std::nullopt)
{
    TokenCandidate c;
    c.token = QString::fromUtf8(text);
    c.bytes = c.token.toUtf8();
    c.logprob = p > 0 ? std::log(p) : -std::numeric_limits<double>::infinity();
    c.id = id;
    return c;
}

/// A chosen token with its top list; its own logprob is its entry's in the list when listed,
/// else `ownP`.
inline TokenLogprob token(const char* text, std::vector<TokenCandidate> top, double ownP = -1,
    std::optional<qint64> id = std::nullopt)
{
    TokenLogprob t;
    t.token = QString::fromUtf8(text);
    t.bytes = t.token.toUtf8();
    t.id = id;
    t.logprob = ownP >= 0
        ? std::optional<double>(ownP > 0 ? std::log(ownP) : -std::numeric_limits<double>::infinity())
        : std::nullopt;
    for (const TokenCandidate& c : top)
        if (!t.logprob && c.bytes == t.bytes)
            t.logprob = c.logprob;
    t.top = std::move(top);
    t.hasTop = true;
    return t;
}

/// A token whose distribution is certain: p = 1, alone in its list.
inline TokenLogprob certain(const char* text)
{
    return token(text, {candidate(text, 1.0)});
}

inline nlohmann::json fidelityBody(double temperature = 0.0)
{
    return {{"model", "m"},
        {"messages", nlohmann::json::array({{{"role", "user"}, {"content", "Capital?"}}})}, {"stream", true},
        {"max_tokens", 64}, {"temperature", temperature}, {"seed", 1}, {"logprobs", true},
        {"top_logprobs", 20}};
}

/// A successful measured answer made of `tokens`, to a request that asked for logprobs.
inline RunRecord fidelityAnswer(
    int endpoint, const QString& test, int iteration, std::vector<TokenLogprob> tokens)
{
    RunRecord r;
    r.endpoint = endpoint;
    r.test = test;
    r.iteration = iteration;
    r.request.requestBody = fidelityBody();
    r.request.httpStatus = 200;
    AssembledResponse& a = r.request.response;
    for (const TokenLogprob& t : tokens)
        a.content += t.token;
    a.finishReason = QStringLiteral("stop");
    a.usage = TokenUsage {30, qint64(tokens.size()), 30 + qint64(tokens.size()), std::nullopt, std::nullopt};
    a.logprobs.tokens = std::move(tokens);
    a.logprobs.chunks = int(a.logprobs.tokens.size());
    return r;
}

/// The same request answered by a server that ignored `logprobs`: text only.
inline RunRecord textOnlyAnswer(int endpoint, const QString& test, int iteration, const QString& content)
{
    RunRecord r = fidelityAnswer(endpoint, test, iteration, {});
    r.request.response.content = content;
    r.request.response.logprobs = {};
    return r;
}

/// Every number in `j`, recursively, is finite (nlohmann writes NaN and inf as null, but a
/// double that reached the document is checked here).
inline bool allFinite(const nlohmann::json& j)
{
    if (j.is_number_float())
        return std::isfinite(j.get<double>());
    if (j.is_structured())
        for (const auto& v : j)
            if (!allFinite(v))
                return false;
    return true;
}

} // namespace qs::test
