// SPDX-License-Identifier: MIT
#include "model/store/LogprobFields.h"

#include <limits>

namespace qs::results {

namespace {

/// "lp" or a candidate's logprob: null is −∞, a number at most 0 is read as the wire reads it.
double logprobFrom(const json& v, const Loc& loc)
{
    if (v.is_null())
        return -std::numeric_limits<double>::infinity();
    if (!v.is_number())
        expected(loc, "a number or null", v);
    const double lp = v.get<double>();
    if (lp > 0)
        badField(loc, excerpt(v) + " is not a logprob (at most 0; null for an impossible token)");
    return normalizedLogprob(lp);
}

std::optional<qint64> idFrom(const json& v, const Loc& loc)
{
    if (v.is_null())
        return std::nullopt;
    return checkedInteger(v, loc, 0, std::numeric_limits<qint64>::max());
}

QByteArray bytesFrom(const json& v, const Loc& loc)
{
    if (!v.is_array())
        expected(loc, "a list of bytes", v);
    QByteArray bytes;
    bytes.reserve(qsizetype(v.size()));
    for (std::size_t i = 0; i < v.size(); ++i)
        bytes.append(char(static_cast<unsigned char>(checkedInteger(v[i], loc.element(i), 0, 255))));
    return bytes;
}

QString textFrom(const json& v, const Loc& loc)
{
    if (!v.is_string())
        expected(loc, "a string", v);
    return toQString(v);
}

/// A top entry: [TEXT, LOGPROB] with optionally ID (or null) and BYTES after it.
TokenCandidate candidateFrom(const json& a, const Loc& loc)
{
    if (!a.is_array() || a.size() < 2 || a.size() > 4)
        badField(loc, "expected [text, logprob] or [text, logprob, id, bytes], found " + excerpt(a));
    TokenCandidate c;
    c.token = textFrom(a[0], loc.element(0));
    c.logprob = logprobFrom(a[1], loc.element(1));
    if (a.size() > 2)
        c.id = idFrom(a[2], loc.element(2));
    c.bytes = a.size() > 3 ? bytesFrom(a[3], loc.element(3)) : c.token.toUtf8();
    return c;
}

TokenLogprob tokenFrom(const json& j, const Loc& loc)
{
    const Fields f(j, loc);
    TokenLogprob t;
    const json* text = f.find("t");
    if (!text)
        f.missing("t");
    t.token = textFrom(*text, loc.member("t"));
    // Fields::find reads null as missing; here they differ: absent is unknown, null is −∞.
    if (const auto lp = j.find("lp"); lp != j.end())
        t.logprob = logprobFrom(*lp, loc.member("lp"));
    if (const json* id = f.find("id"))
        t.id = idFrom(*id, loc.member("id"));
    const json* bytes = f.find("b");
    t.bytes = bytes ? bytesFrom(*bytes, loc.member("b")) : t.token.toUtf8();
    if (const json* top = f.array("top")) {
        const Loc at = loc.member("top");
        if (top->size() > MaxTopCandidates)
            badField(at,
                std::to_string(top->size()) + " candidates, more than the " + std::to_string(MaxTopCandidates)
                    + " a position may list");
        t.hasTop = true;
        t.top.reserve(top->size());
        for (std::size_t i = 0; i < top->size(); ++i)
            t.top.push_back(candidateFrom((*top)[i], at.element(i)));
    }
    return t;
}

} // namespace

LogprobStream logprobsFromJson(const json& j, const Loc& loc)
{
    const Fields f(j, loc);
    LogprobStream s;
    s.chunks = f.integer("chunks", 1, 1);
    s.impossible = f.integer("impossible", 0, 0);
    s.unreadable = f.integer("unreadable", 0, 0);
    const json* tokens = f.array("tokens");
    if (!tokens)
        f.missing("tokens");
    const Loc at = loc.member("tokens");
    if (tokens->size() > kMaxLogprobTokens)
        badField(at,
            std::to_string(tokens->size()) + " tokens, more than the " + std::to_string(kMaxLogprobTokens)
                + " a response may hold");
    s.tokens.reserve(tokens->size());
    for (std::size_t i = 0; i < tokens->size(); ++i)
        s.tokens.push_back(tokenFrom((*tokens)[i], at.element(i)));
    return s;
}

} // namespace qs::results
