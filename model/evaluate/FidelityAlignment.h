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

/// One answer as the fidelity measure walks it.
struct AlignedAnswer {
    /// The entries with text, in order: empty entries (llama-server's held-back text, vLLM's
    /// partial UTF-8 "") carry no text of their own and are skipped.
    std::vector<const TokenLogprob*> tokens;
    std::vector<qsizetype> offsets; ///< byte offset of each token in `bytes`
    QByteArray bytes; ///< the tokens' bytes, concatenated
    bool asked = false; ///< the request asked for logprobs
    bool logprobs = false; ///< the server sent logprobs (LogprobStream::present())
    /// The tokens' bytes hold a U+FFFD (SGLang's and vLLM's stand-in for a partial character):
    /// their text is not the answer's text.
    bool replacementChars = false;
};

AlignedAnswer alignedAnswer(const RunRecord& record);

/// What a response said, for comparing answers without tokens: reasoning, content, then each
/// tool call as "name(arguments)".
QString responseText(const AssembledResponse& response);

/// Records whose answers are compared: measured, and either asking for logprobs or of a test the
/// stored suite marks `"fidelity": true` (indexes into RunResult::records, in file order).
std::vector<int> fidelityRecords(const RunResult& result);

} // namespace qs::fidelity
