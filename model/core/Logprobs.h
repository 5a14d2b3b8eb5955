// SPDX-License-Identifier: MIT
#pragma once

// What a server said about its own choices, token by token: the `logprobs` of a chat completion
// (../shared/reference/server-metrics-and-logprobs.md, Part 2). Values as sent, with the servers'
// ways of saying "impossible" read as −∞; the wire stage fills these, the file keeps them, the
// fidelity measure (evaluate/Fidelity) compares them across arms.

#include <QByteArray>
#include <QString>
#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

namespace qs {

/// At or below this a logprob means "impossible": llama-server sends float's lowest
/// (-3.4028234663852886e+38) for p = 0, vLLM clamps to -9999.0. exp(-9999) is 0 in a double,
/// so nothing is lost by reading both as −∞.
constexpr double ImpossibleLogprob = -9999.0;

/// The longest top list kept for one position. Quantscope asks for at most 20; a longer list is a
/// vocabulary dump (vLLM `top_logprobs: -1`) and is cut here on the wire and refused in a file.
constexpr std::size_t MaxTopCandidates = 256;

/// A raw logprob as Quantscope reads it: −∞ at or below ImpossibleLogprob, positive values
/// (rounding above 0) as 0, otherwise unchanged. NaN stays NaN (the caller drops it).
double normalizedLogprob(double raw);

/// One entry of a position's top list.
struct TokenCandidate {
    QString token; ///< as sent; "" for a partial UTF-8 piece (llama-server) or a held-back stop
    QByteArray bytes; ///< `bytes` when the server sent them, else token.toUtf8()
    double logprob = 0; ///< normalized; may be −∞ (never NaN: unreadable candidates are dropped)
    std::optional<qint64> id; ///< llama-server sends token ids; vLLM and SGLang do not
    bool operator==(const TokenCandidate&) const = default;
};

/// One generated token: the token chosen and the server's top list at that position.
struct TokenLogprob {
    QString token; ///< the text emitted at this step (llama-server: may be "" during hold-back)
    QByteArray bytes; ///< `bytes` when sent, else token.toUtf8()
    /// The chosen token's logprob, normalized (−∞ for the sentinels, `null` and `-Infinity`);
    /// nullopt when the entry had none or an unreadable one (NaN, a string).
    std::optional<double> logprob;
    std::optional<qint64> id;
    std::vector<TokenCandidate> top; ///< in the server's order (vLLM: the chosen token first)
    bool hasTop = false; ///< the entry carried a `top_logprobs` list (possibly empty)
    bool operator==(const TokenLogprob&) const = default;
};

/// All the `logprobs` of one response, folded across its chunks in arrival order.
struct LogprobStream {
    std::vector<TokenLogprob> tokens;
    int chunks = 0; ///< chunks (or the one body) that carried a non-null `logprobs.content`
    int impossible = 0; ///< values read as −∞: ≤ ImpossibleLogprob, `null`, `-Infinity`
    int unreadable = 0; ///< values dropped: NaN, `Infinity`, strings, candidates without a logprob
    /// The server sent logprobs at all. A request that asked for them and got none was served
    /// by a server that ignores `logprobs` (or an old build).
    bool present() const { return chunks > 0; }
    /// Appends the next chunk's entries and counts (the stream assembler folds chunks this way).
    void append(LogprobStream&& next);
    bool operator==(const LogprobStream&) const = default;
};

/// The file form (docs/results-format.md, "logprobs"): {"chunks", "impossible", "unreadable",
/// "tokens": [{"t": TEXT, "lp": NUMBER|null, "id"?: INT, "b"?: [BYTE…], "top"?: [[TEXT,
/// NUMBER|null, ID|null?, [BYTE…]?], …]}]}. −∞ is written as null; "lp" is absent when the
/// logprob is unknown; "b" only when the bytes are not the UTF-8 of the text; a candidate's
/// id and bytes only when known / different. Never NaN or inf.
nlohmann::json toJson(const LogprobStream& logprobs);

} // namespace qs
