// SPDX-License-Identifier: MIT
#include "model/core/Logprobs.h"

#include <cmath>
#include <iterator>
#include <limits>

namespace qs {

double normalizedLogprob(double raw)
{
    if (std::isnan(raw))
        return raw;
    if (raw <= ImpossibleLogprob)
        return -std::numeric_limits<double>::infinity();
    return raw > 0 ? 0.0 : raw;
}

void LogprobStream::append(LogprobStream&& next)
{
    tokens.insert(tokens.end(), std::make_move_iterator(next.tokens.begin()),
        std::make_move_iterator(next.tokens.end()));
    chunks += next.chunks;
    impossible += next.impossible;
    unreadable += next.unreadable;
}

namespace {

nlohmann::json logprobJson(double logprob)
{
    return std::isfinite(logprob) ? nlohmann::json(logprob) : nlohmann::json(nullptr);
}

nlohmann::json bytesJson(const QByteArray& bytes)
{
    nlohmann::json a = nlohmann::json::array();
    for (const char c : bytes)
        a.push_back(int(static_cast<unsigned char>(c)));
    return a;
}

} // namespace

nlohmann::json toJson(const LogprobStream& logprobs)
{
    nlohmann::json tokens = nlohmann::json::array();
    for (const TokenLogprob& t : logprobs.tokens) {
        nlohmann::json e = {{"t", t.token.toStdString()}};
        if (t.logprob)
            e["lp"] = logprobJson(*t.logprob);
        if (t.id)
            e["id"] = *t.id;
        if (t.bytes != t.token.toUtf8())
            e["b"] = bytesJson(t.bytes);
        if (t.hasTop) {
            nlohmann::json top = nlohmann::json::array();
            for (const TokenCandidate& c : t.top) {
                nlohmann::json a = {c.token.toStdString(), logprobJson(c.logprob)};
                const bool ownBytes = c.bytes != c.token.toUtf8();
                if (c.id || ownBytes)
                    a.push_back(c.id ? nlohmann::json(*c.id) : nlohmann::json(nullptr));
                if (ownBytes)
                    a.push_back(bytesJson(c.bytes));
                top.push_back(std::move(a));
            }
            e["top"] = std::move(top);
        }
        tokens.push_back(std::move(e));
    }
    return {{"chunks", logprobs.chunks}, {"impossible", logprobs.impossible},
        {"unreadable", logprobs.unreadable}, {"tokens", std::move(tokens)}};
}

} // namespace qs
