// SPDX-License-Identifier: MIT
#pragma once

// Logprobs as each emulated server writes them (../shared/reference/server-metrics-and-logprobs.md,
// Part 2): one generated token's distribution, resolved from a LogprobScript or synthesized,
// and its `logprobs.content` JSON in the key order, top-list order and special values of
// llama-server, vLLM and SGLang. No I/O. Internal to qs_emulator.

#include "tests/support/Emulator.h"
#include "tests/support/EmulatorJson.h"

#include <QString>
#include <vector>

namespace qs::emu::detail {

/// What a request asks of logprobs, as the server read it, and how the server writes them.
struct LogprobAsk {
    bool wanted = false;
    int top = 0; ///< entries per top list; -1: every listed token (vLLM `top_logprobs: -1`)
    LogprobSentinel sentinel = LogprobSentinel::Native;
    bool fillTopWithImpossible = false;
};

/// One generated token's logprobs. Values are float32-rounded (serverPrecision), as the
/// servers compute them.
struct LogprobEntry {
    QString token; ///< the streamed text (a split character: the whole character)
    qint64 id = 0;
    double logprob = 0;
    /// Every listed token, the chosen one included, by logprob descending (ties in script order).
    std::vector<LogprobCandidate> distribution;
    /// The chosen token's own bytes: token's UTF-8, or the last piece's of a split character.
    QByteArray bytes;
    /// A split character's earlier pieces, one byte token each, with their own (synthesized)
    /// distributions: generated before this token, held back by the server until the character
    /// was whole. Each dialect reports them its own way (logprobsJson).
    std::vector<LogprobEntry> heldBack;
};

/// The bytes a token name stands for: a byte token spelled as llama.cpp's vocabularies spell
/// them, `<0xC3>` (one or more in a row), is those raw bytes; any other name its UTF-8.
QByteArray tokenBytes(const QString& name);

/// The byte-token name of `bytes`: `<0xC3><0xA9>`.
QString byteTokenName(const QByteArray& bytes);

/// `logprob` as a float32 would hold it (what the servers send, printed as the shortest
/// double): finite values rounded, anything below float's range −∞.
double serverPrecision(double logprob);

/// A scripted position for the streamed `token`. When the position's chosen token (its id) is
/// listed under a byte-token name whose bytes end `token`'s UTF-8 but are shorter, `token` is a
/// character split across tokens and that byte token its last piece: every byte before it is an
/// earlier piece, held back (LogprobEntry::heldBack; docs/emulator.md, "Split characters").
LogprobEntry scriptedEntry(const PositionScript& position, const QString& token);

/// A plausible, deterministic distribution for `token` at plan index `index` when nothing is
/// scripted: the chosen token with p in [0.55, 0.99), four alternatives sharing the rest (the
/// listed probabilities sum to 1).
LogprobEntry synthesizedEntry(const QString& token, int index);

/// `count` plausible alternatives to `chosen` (common words, with its leading capital and its
/// trailing whitespace), none equal to it, picked by `pick`.
QStringList alternativeTokens(const QString& chosen, quint64 pick, int count);

/// `{"content":[…]}` for `entries` in `dialect`'s shape: llama-server (id, token, bytes,
/// logprob, top_logprobs; top list sorted), vLLM (token, logprob, bytes, top_logprobs; the
/// chosen token first, the k-th dropped when it ranks below k), SGLang (token, bytes, logprob,
/// top_logprobs; duplicate texts collapsed). −∞ per `ask.sentinel`; SGLang's native one is the
/// `null` of its streams (see needsNonFiniteJson for its bodies). A split character: llama-server
/// one entry with the whole character's text and the last piece's id, logprob and list; vLLM an
/// entry `""`/`[]` per earlier piece, then the whole character on the last (`""` too when more
/// than one piece was held back: its re-decoding with one predecessor fails); SGLang one entry
/// per piece, each spelt U+FFFD. Byte tokens in top lists: llama-server `""` with their raw
/// bytes, vLLM `""`/`[]`, SGLang U+FFFD (and collapsed).
ojson logprobsJson(Dialect dialect, const std::vector<LogprobEntry>& entries, const LogprobAsk& ask);

/// Whether the rendered `logprobsJson` holds a −∞ that SGLang's non-streamed encoder cannot
/// write (Native sentinel): the server then fails with a 500.
bool needsNonFiniteJson(const std::vector<LogprobEntry>& entries, const LogprobAsk& ask);

} // namespace qs::emu::detail
