// SPDX-License-Identifier: MIT
#include "tests/support/EmulatorLogprobs.h"

#include "tests/support/StableHash.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace qs::emu {

namespace {

constexpr quint64 kVocabulary = 151936; // Qwen's, as the llama dialect's /v1/models says

} // namespace

qint64 tokenIdFor(const QString& text)
{
    return qint64(detail::stableHash(text) % kVocabulary);
}

} // namespace qs::emu

namespace qs::emu::detail {

namespace {

constexpr double kNegativeInfinity = -std::numeric_limits<double>::infinity();
// llama-server's logarithm(0): float's lowest, which nlohmann prints -3.4028234663852886e+38.
const double kFloatLowest = double(std::numeric_limits<float>::lowest());
constexpr double kVllmFloor = -9999.0; // max(logprob, -9999.0) in _create_chat_logprobs

// Padded vocabulary entries: what a full top list ends with when the rest underflows.
constexpr qint64 kFirstUnusedId = 151935;

qint64 resolvedId(qint64 id, const QString& text)
{
    return id >= 0 ? id : tokenIdFor(text);
}

void sortDescending(std::vector<LogprobCandidate>& list)
{
    std::stable_sort(list.begin(), list.end(),
        [](const LogprobCandidate& a, const LogprobCandidate& b) { return a.logprob > b.logprob; });
}

ojson valueJson(Dialect dialect, double logprob, const LogprobAsk& ask)
{
    if (std::isfinite(logprob))
        return dialect == Dialect::Vllm ? std::max(logprob, kVllmFloor) : logprob;
    switch (ask.sentinel) {
    case LogprobSentinel::Null:
        return nullptr;
    case LogprobSentinel::BareInfinity:
        return bareNegativeInfinity();
    case LogprobSentinel::Native:
        break;
    }
    switch (dialect) {
    case Dialect::LlamaServer:
        return kFloatLowest;
    case Dialect::Vllm:
        return kVllmFloor;
    case Dialect::Sglang:
        break;
    }
    return nullptr; // SGLang's streams (msgspec/pydantic) write the -inf they cannot encode as null
}

ojson bytesJson(const QString& text)
{
    ojson out = ojson::array();
    for (const char byte : text.toUtf8())
        out.push_back(int(quint8(byte)));
    return out;
}

// The top list as `dialect` builds it from the distribution, at most `ask.top` long.
std::vector<LogprobCandidate> topList(Dialect dialect, const LogprobEntry& entry, const LogprobAsk& ask)
{
    const std::size_t n = ask.top < 0 ? entry.distribution.size() : std::size_t(ask.top);
    std::vector<LogprobCandidate> list;
    if (dialect == Dialect::Vllm) {
        // The engine's dict holds the sampled token first, then the top-k by rank; vLLM keeps
        // its first k items, so a sampled token outside the top k pushes the k-th out.
        list.push_back(LogprobCandidate {entry.token, entry.logprob, entry.id});
        for (const LogprobCandidate& c : entry.distribution) {
            if (c.id != entry.id)
                list.push_back(c);
        }
    } else {
        list = entry.distribution;
    }
    if (list.size() > n)
        list.resize(n);
    if (dialect == Dialect::Sglang) {
        // Built as a dict keyed by the text: later duplicates overwrite in place, one survives.
        std::vector<LogprobCandidate> unique;
        for (const LogprobCandidate& c : list) {
            if (std::none_of(unique.begin(), unique.end(),
                    [&c](const LogprobCandidate& u) { return u.token == c.token; }))
                unique.push_back(c);
        }
        list = std::move(unique);
    }
    if (ask.fillTopWithImpossible) {
        for (qint64 k = 0; list.size() < n; ++k)
            list.push_back(LogprobCandidate {
                QStringLiteral("<unused%1>").arg(k), kNegativeInfinity, kFirstUnusedId - k});
    }
    return list;
}

ojson candidateJson(Dialect dialect, const LogprobCandidate& c, const LogprobAsk& ask)
{
    ojson out;
    switch (dialect) {
    case Dialect::LlamaServer:
        out["id"] = c.id;
        out["token"] = str(c.token);
        out["bytes"] = bytesJson(c.token);
        out["logprob"] = valueJson(dialect, c.logprob, ask);
        break;
    case Dialect::Vllm:
        out["token"] = str(c.token);
        out["logprob"] = valueJson(dialect, c.logprob, ask);
        out["bytes"] = bytesJson(c.token);
        break;
    case Dialect::Sglang:
        out["token"] = str(c.token);
        out["bytes"] = bytesJson(c.token);
        out["logprob"] = valueJson(dialect, c.logprob, ask);
        break;
    }
    return out;
}

ojson entryJson(Dialect dialect, const LogprobEntry& entry, const LogprobAsk& ask)
{
    ojson out = candidateJson(dialect, LogprobCandidate {entry.token, entry.logprob, entry.id}, ask);
    ojson top = ojson::array();
    for (const LogprobCandidate& c : topList(dialect, entry, ask))
        top.push_back(candidateJson(dialect, c, ask));
    out["top_logprobs"] = std::move(top);
    return out;
}

} // namespace

double serverPrecision(double logprob)
{
    if (std::isnan(logprob) || logprob < kFloatLowest)
        return std::isnan(logprob) ? logprob : kNegativeInfinity;
    return double(float(logprob));
}

LogprobEntry scriptedEntry(const PositionScript& position, const QString& token)
{
    LogprobEntry entry;
    entry.token = token;
    entry.id = resolvedId(position.id, token);
    entry.logprob = serverPrecision(position.logprob);
    bool listed = false;
    for (const LogprobCandidate& c : position.top) {
        const LogprobCandidate resolved {c.token, serverPrecision(c.logprob), resolvedId(c.id, c.token)};
        listed = listed || resolved.id == entry.id;
        entry.distribution.push_back(resolved);
    }
    if (!listed)
        entry.distribution.push_back(LogprobCandidate {token, entry.logprob, entry.id});
    sortDescending(entry.distribution);
    return entry;
}

LogprobEntry synthesizedEntry(const QString& token, int index)
{
    static const double shares[] = {0.5, 0.25, 0.15, 0.1};
    const quint64 hash = splitMix(stableHash(token) ^ splitMix(quint64(index)));
    const double p = 0.55 + 0.44 * unitFromHash(hash);
    const QStringList alternatives = alternativeTokens(token, splitMix(hash), int(std::size(shares)));
    PositionScript position;
    position.logprob = std::log(p);
    for (qsizetype i = 0; i < alternatives.size(); ++i)
        position.top.push_back(
            LogprobCandidate {alternatives.at(i), std::log((1 - p) * shares[std::size_t(i)]), -1});
    return scriptedEntry(position, token);
}

QStringList alternativeTokens(const QString& chosen, quint64 pick, int count)
{
    static const char* const words[] = {"the", "a", "it", "this", "so", "and", "just", "that", "very",
        "really", "one", "all", "well", "now", "here", "there", "quite", "also"};
    qsizetype lead = 0;
    while (lead < chosen.size() && chosen.at(lead).isSpace())
        ++lead;
    const QString leading = chosen.left(lead);
    const QString trailing = chosen.mid(lead + chosen.trimmed().size());
    const bool capital = lead < chosen.size() && chosen.at(lead).isUpper();
    QStringList out;
    const std::size_t n = std::size(words);
    for (std::size_t k = 0; k < n && out.size() < count; ++k) {
        QString word = QString::fromLatin1(words[(pick + k) % n]);
        if (capital)
            word[0] = word.at(0).toUpper();
        const QString token = leading + word + trailing;
        if (token != chosen && !out.contains(token))
            out << token;
    }
    return out;
}

ojson logprobsJson(Dialect dialect, const std::vector<LogprobEntry>& entries, const LogprobAsk& ask)
{
    ojson content = ojson::array();
    for (const LogprobEntry& entry : entries)
        content.push_back(entryJson(dialect, entry, ask));
    return ojson {{"content", std::move(content)}};
}

bool needsNonFiniteJson(const std::vector<LogprobEntry>& entries, const LogprobAsk& ask)
{
    if (ask.sentinel != LogprobSentinel::Native)
        return false;
    auto impossible = [](double logprob) { return !std::isfinite(logprob); };
    for (const LogprobEntry& entry : entries) {
        if (impossible(entry.logprob))
            return true;
        for (const LogprobCandidate& c : topList(Dialect::Sglang, entry, ask)) {
            if (impossible(c.logprob))
                return true;
        }
    }
    return false;
}

} // namespace qs::emu::detail
