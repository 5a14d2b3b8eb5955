// SPDX-License-Identifier: MIT
#pragma once

// The pieces of the fidelity measure that Fidelity.cpp, TopListKl.cpp and the fidelity
// guardrails share: what "the same token" means, an answer's tokens as they line up across arms,
// and which records are fidelity records. Internal to model/evaluate (docs/methodology.md,
// "Fidelity").

#include "model/core/Logprobs.h"
#include "model/core/RunRecord.h"

#include <QByteArray>
#include <QString>
#include <nlohmann/json.hpp>
#include <optional>
#include <utility>
#include <vector>

namespace qs::fidelity {

/// Two entries name the same token: by id when both carry one (llama-server), else by bytes.
inline bool sameToken(const QByteArray& aBytes, const std::optional<qint64>& aId, const QByteArray& bBytes,
    const std::optional<qint64>& bId)
{
    return (aId && bId) ? *aId == *bId : aBytes == bBytes;
}
inline bool sameToken(const TokenCandidate& a, const TokenCandidate& b)
{
    return sameToken(a.bytes, a.id, b.bytes, b.id);
}

/// p = exp(logprob), 0 for −∞ (and for anything that is not a finite number).
double probability(double logprob);

/// The request asked the server for logprobs: `"logprobs": true` or llama-server's native
/// `"n_probs"` (> 0).
bool askedForLogprobs(const nlohmann::json& requestBody);

/// What a logprob entry's bytes and top list are, position-wise. A server sends one entry per
/// generated token only while every token ends on a whole character; around a character split
/// across tokens (byte tokens) and around llama-server's stop-string hold-back an entry can hold
/// another position's text or stand for several positions (docs/methodology.md, "Alignment";
/// ../shared/reference/server-metrics-and-logprobs.md §2.2–2.5).
enum class EntryKind {
    /// One position: its bytes are its token's text, its top list that position's distribution.
    Clean,
    /// llama-server held a partial character back and streamed it merged with the next token: the
    /// bytes are the text of two or more positions, the id, logprob and top list the last one's
    /// (seen as the entry's own token, listed by id, holding only the tail of its bytes).
    Merged,
    /// The first entry with text after one or more "" entries (vLLM's partial characters,
    /// llama-server's stop-string hold-back): it may carry their text, or their text is lost.
    AfterHeldBack,
    /// Its text holds U+FFFD: SGLang's (and some vLLM builds') spelling of a partial character,
    /// so its bytes are not the answer's.
    Replacement,
    /// Bytes that are not UTF-8 and no merge to explain them: pieces that cannot be told apart.
    InvalidUtf8,
};

/// One answer as the fidelity measure walks it.
struct AlignedAnswer {
    /// The entries with text, in order: empty entries (llama-server's held-back text, vLLM's
    /// partial UTF-8 "") carry no text of their own and are skipped (the next entry is then
    /// AfterHeldBack).
    std::vector<const TokenLogprob*> tokens;
    std::vector<qsizetype> offsets; ///< byte offset of each token in `bytes`
    std::vector<EntryKind> kinds; ///< what each token's entry is
    /// Generated tokens (positions) each entry stands for: 1 for a clean or U+FFFD entry, 1 + the
    /// "" entries before an AfterHeldBack one, 2 for a merge of one held-back byte; 0 when unknown
    /// (a merge of several held-back bytes: one token or several).
    std::vector<int> positions;
    QByteArray bytes; ///< the tokens' bytes, concatenated
    bool asked = false; ///< the request asked for logprobs
    bool logprobs = false; ///< the server sent logprobs (LogprobStream::present())
    /// Every entry is Clean or Merged: the bytes are the answer's text as the server emitted it.
    bool faithful = true;
    bool opaque(std::size_t i) const { return kinds[i] != EntryKind::Clean; }
};

AlignedAnswer alignedAnswer(const RunRecord& record);

/// How the walk of two answers ended.
enum class WalkEnd {
    Identical, ///< both answers' tokens ran out together
    Diverged, ///< at `at`: a different token, or one answer ended first
    Stopped, ///< at `at`: a partial-character gap it could not cross; the texts decide the rest
};

/// Two answers' tokens walked side by side. Only clean entries are compared; wherever either
/// side's entry is not one position's own (EntryKind), both sides skip to where their bytes line
/// up again (a gap) and go on only if they provably wrote the same text in as many tokens there.
struct Walk {
    std::vector<std::pair<int, int>> shared; ///< (reference, candidate) tokens chosen alike
    std::optional<std::pair<int, int>> parted; ///< the clean pair at the divergence, when there is one
    WalkEnd end = WalkEnd::Identical;
    int at = 0; ///< reference token where the walk ended
    bool inGap = false; ///< the divergence fell inside a gap: no distribution there to compare
    int partial = 0; ///< reference tokens inside the gaps crossed
    QString why; ///< the tokens cannot be walked at all (tokenizers differ): no KL
    QString stop; ///< why the walk stopped (WalkEnd::Stopped)
};

/// Walks two answers' tokens side by side (FidelityWalk.cpp): clean entries pair by pair; around
/// entries that are not one position's own, a gap that is crossed, parted in, or stopped at
/// (docs/methodology.md, "Alignment"). The records' texts decide the gaps whose bytes are not
/// the text.
Walk walkAnswers(const AlignedAnswer& reference, const AlignedAnswer& candidate,
    const RunRecord& referenceRecord, const RunRecord& candidateRecord);

/// What a response said, for comparing answers without tokens: reasoning, content, then each
/// tool call as "name(arguments)".
QString responseText(const AssembledResponse& response);

/// Records whose answers are compared: measured, and either asking for logprobs or of a test the
/// stored suite marks `"fidelity": true` (indexes into RunResult::records, in file order).
std::vector<int> fidelityRecords(const RunResult& result);

} // namespace qs::fidelity
