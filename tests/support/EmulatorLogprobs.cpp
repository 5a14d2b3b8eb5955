// SPDX-License-Identifier: MIT
#include "tests/support/EmulatorLogprobs.h"

#include "tests/support/StableHash.h"

#include <QRegularExpression>
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

ojson bytesJson(const QByteArray& bytes)
{
    ojson out = ojson::array();
    for (const char byte : bytes)
        out.push_back(int(quint8(byte)));
    return out;
}

bool validUtf8(const QByteArray& bytes)
{
    return QString::fromUtf8(bytes).toUtf8() == bytes;
}

/// A token as one dialect writes it: its text and `bytes`.
struct WireToken {
    QString text;
    QByteArray bytes;
    double logprob = 0;
    qint64 id = 0;
};

/// How `dialect` writes a token decoded on its own. Whole characters are their text everywhere;
/// a partial one (a byte token) is llama-server's text cut to valid UTF-8 with the raw bytes,
/// vLLM's failed re-decoding "" with [], SGLang's replacement text U+FFFD.
WireToken wireToken(Dialect dialect, const QByteArray& raw, double logprob, qint64 id)
{
    const QString text = QString::fromUtf8(raw);
    if (validUtf8(raw))
        return {text, raw, logprob, id};
    switch (dialect) {
    case Dialect::LlamaServer: {
        qsizetype valid = raw.size();
        while (valid > 0 && !validUtf8(raw.left(valid)))
            --valid;
        return {QString::fromUtf8(raw.left(valid)), raw, logprob, id};
    }
    case Dialect::Vllm:
        return {QString(), QByteArray(), logprob, id};
    case Dialect::Sglang:
        break;
    }
    return {text, text.toUtf8(), logprob, id};
}

WireToken wireCandidate(Dialect dialect, const LogprobCandidate& c)
{
    return wireToken(dialect, tokenBytes(c.token), c.logprob, c.id);
}

/// The chosen token of `entry` as `dialect` writes it. `piece`: one of a split character's
/// held-back pieces.
WireToken wireChosen(Dialect dialect, const LogprobEntry& entry, bool piece)
{
    const QByteArray text = entry.token.toUtf8();
    switch (dialect) {
    case Dialect::LlamaServer: // the text emitted at this step: the whole character
        return {entry.token, text, entry.logprob, entry.id};
    case Dialect::Vllm:
        // Decoded with its predecessor: whole when one piece was held back, else "".
        if (piece || entry.heldBack.size() > 1)
            return {QString(), QByteArray(), entry.logprob, entry.id};
        return {entry.token, text, entry.logprob, entry.id};
    case Dialect::Sglang:
        break;
    }
    return wireToken(dialect, entry.bytes, entry.logprob, entry.id);
}

// The top list as `dialect` builds it from the distribution, at most `ask.top` long.
std::vector<WireToken> topList(Dialect dialect, const LogprobEntry& entry, const LogprobAsk& ask, bool piece)
{
    const std::size_t n = ask.top < 0 ? entry.distribution.size() : std::size_t(ask.top);
    std::vector<WireToken> list;
    if (dialect == Dialect::Vllm) {
        // The engine's dict holds the sampled token first, then the top-k by rank; vLLM keeps
        // its first k items, so a sampled token outside the top k pushes the k-th out.
        list.push_back(wireChosen(dialect, entry, piece));
        for (const LogprobCandidate& c : entry.distribution) {
            if (c.id != entry.id)
                list.push_back(wireCandidate(dialect, c));
        }
    } else {
        for (const LogprobCandidate& c : entry.distribution)
            list.push_back(wireCandidate(dialect, c));
    }
    if (list.size() > n)
        list.resize(n);
    if (dialect == Dialect::Sglang) {
        // Built as a dict keyed by the text: later duplicates overwrite in place, one survives.
        std::vector<WireToken> unique;
        for (const WireToken& c : list) {
            if (std::none_of(
                    unique.begin(), unique.end(), [&c](const WireToken& u) { return u.text == c.text; }))
                unique.push_back(c);
        }
        list = std::move(unique);
    }
    if (ask.fillTopWithImpossible) {
        for (qint64 k = 0; list.size() < n; ++k) {
            const QString unused = QStringLiteral("<unused%1>").arg(k);
            list.push_back(WireToken {unused, unused.toUtf8(), kNegativeInfinity, kFirstUnusedId - k});
        }
    }
    return list;
}

ojson wireJson(Dialect dialect, const WireToken& c, const LogprobAsk& ask)
{
    ojson out;
    switch (dialect) {
    case Dialect::LlamaServer:
        out["id"] = c.id;
        out["token"] = str(c.text);
        out["bytes"] = bytesJson(c.bytes);
        out["logprob"] = valueJson(dialect, c.logprob, ask);
        break;
    case Dialect::Vllm:
        out["token"] = str(c.text);
        out["logprob"] = valueJson(dialect, c.logprob, ask);
        out["bytes"] = bytesJson(c.bytes);
        break;
    case Dialect::Sglang:
        out["token"] = str(c.text);
        out["bytes"] = bytesJson(c.bytes);
        out["logprob"] = valueJson(dialect, c.logprob, ask);
        break;
    }
    return out;
}

ojson entryJson(Dialect dialect, const LogprobEntry& entry, const LogprobAsk& ask, bool piece)
{
    ojson out = wireJson(dialect, wireChosen(dialect, entry, piece), ask);
    ojson top = ojson::array();
    for (const WireToken& c : topList(dialect, entry, ask, piece))
        top.push_back(wireJson(dialect, c, ask));
    out["top_logprobs"] = std::move(top);
    return out;
}

/// A held-back piece's distribution: the byte on top (p in [0.6, 0.95)), two neighbouring byte
/// tokens and two words sharing the rest. Deterministic from the character and the piece.
LogprobEntry pieceEntry(char byte, const QString& character, int piece)
{
    const quint64 hash = splitMix(stableHash(character) ^ splitMix(quint64(piece) + 0xB17EULL));
    const double p = 0.6 + 0.35 * unitFromHash(hash);
    const QString own = byteTokenName(QByteArray(1, byte));
    PositionScript position;
    position.logprob = std::log(p);
    const double shares[] = {0.4, 0.3, 0.2, 0.1};
    const QString others[] = {byteTokenName(QByteArray(1, char(quint8(byte) ^ 1))),
        byteTokenName(QByteArray(1, char(quint8(byte) ^ 2))), QStringLiteral(" the"), QStringLiteral(" a")};
    for (std::size_t i = 0; i < std::size(others); ++i)
        position.top.push_back(LogprobCandidate {others[i], std::log((1 - p) * shares[i]), -1});
    return scriptedEntry(position, own);
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
    entry.bytes = tokenBytes(token);
    entry.id = resolvedId(position.id, token);
    entry.logprob = serverPrecision(position.logprob);
    const LogprobCandidate* chosen = nullptr;
    for (const LogprobCandidate& c : position.top) {
        const LogprobCandidate resolved {c.token, serverPrecision(c.logprob), resolvedId(c.id, c.token)};
        if (resolved.id == entry.id && !chosen)
            chosen = &c;
        entry.distribution.push_back(resolved);
    }
    if (!chosen)
        entry.distribution.push_back(LogprobCandidate {token, entry.logprob, entry.id});
    sortDescending(entry.distribution);
    // A split character: the chosen token is its last piece, the bytes before it earlier ones.
    const QByteArray own = chosen ? tokenBytes(chosen->token) : QByteArray();
    if (!own.isEmpty() && own.size() < entry.bytes.size() && entry.bytes.endsWith(own)) {
        const QByteArray held = entry.bytes.left(entry.bytes.size() - own.size());
        for (qsizetype i = 0; i < held.size(); ++i)
            entry.heldBack.push_back(pieceEntry(held[i], token, int(i)));
        entry.bytes = own;
    }
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

QByteArray tokenBytes(const QString& name)
{
    static const QRegularExpression bytesName(QStringLiteral("^(<0x[0-9A-Fa-f]{2}>)+$"));
    if (!bytesName.match(name).hasMatch())
        return name.toUtf8();
    QByteArray out;
    for (qsizetype i = 0; i < name.size(); i += 6)
        out.append(char(name.mid(i + 3, 2).toUInt(nullptr, 16)));
    return out;
}

QString byteTokenName(const QByteArray& bytes)
{
    QString out;
    for (const char b : bytes)
        out += QStringLiteral("<0x%1>").arg(QString::number(quint8(b), 16).toUpper().rightJustified(2, u'0'));
    return out;
}

ojson logprobsJson(Dialect dialect, const std::vector<LogprobEntry>& entries, const LogprobAsk& ask)
{
    ojson content = ojson::array();
    for (const LogprobEntry& entry : entries) {
        // llama-server sends nothing for a piece it holds back; vLLM and SGLang one entry each.
        if (dialect != Dialect::LlamaServer)
            for (const LogprobEntry& piece : entry.heldBack)
                content.push_back(entryJson(dialect, piece, ask, true));
        content.push_back(entryJson(dialect, entry, ask, false));
    }
    return ojson {{"content", std::move(content)}};
}

bool needsNonFiniteJson(const std::vector<LogprobEntry>& entries, const LogprobAsk& ask)
{
    if (ask.sentinel != LogprobSentinel::Native)
        return false;
    auto impossible = [](double logprob) { return !std::isfinite(logprob); };
    for (const LogprobEntry& entry : entries) {
        if (impossible(entry.logprob) || needsNonFiniteJson(entry.heldBack, ask))
            return true;
        for (const WireToken& c : topList(Dialect::Sglang, entry, ask, false)) {
            if (impossible(c.logprob))
                return true;
        }
    }
    return false;
}

} // namespace qs::emu::detail
