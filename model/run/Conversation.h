// SPDX-License-Identifier: MIT
#pragma once

#include "model/core/ChatRequest.h"
#include "model/core/RequestRecord.h"
#include "model/core/RunRecord.h"
#include "model/core/Suite.h"

namespace qs {

/// One conversation of a test: the requests of its turns, in order, with each assistant turn
/// being the model's own previous reply — so the context grows as in a real conversation, and
/// each endpoint hears its own words back. Pure: no I/O.
class Conversation {
public:
    /// `warmupIndex` picks the warm-up prompt (warm-ups are always one turn and never use the
    /// test's own prompts, so they do not prime the prefix cache with them).
    Conversation(const Suite& suite, int testIndex, const RunSettings& settings, int iteration, bool warmup,
        int warmupIndex = 0);

    int turnCount() const { return m_turnCount; }
    int turn() const { return m_turn; } ///< 1-based turn the next request belongs to
    bool done() const { return m_turn > m_turnCount; }

    /// The request for the current turn.
    ChatRequest request() const;
    /// Records the reply to the current turn and moves to the next. The reply's visible text
    /// (leaked thinking stripped: reasoning is never sent back, as Qwen's guidance says) becomes
    /// the assistant message; tool calls are sent back with a placeholder result, since
    /// Quantscope does not execute tools.
    void addReply(const RequestRecord& reply);
    /// Ends the conversation early (a turn failed: later turns would not be comparable).
    void abandon() { m_turn = m_turnCount + 1; }

private:
    const Suite* m_suite;
    const SuiteTest* m_test;
    RunSettings m_settings;
    int m_iteration;
    bool m_warmup;
    int m_warmupIndex;
    int m_turnCount;
    int m_turn = 1;
    nlohmann::json m_history = nlohmann::json::array(); ///< messages after the system prompt
};

/// A deterministic prompt of about `tokens` tokens (one common English word ≈ one token), made
/// from `seed`, for throughput tests: the same seed gives the same text on every endpoint, and
/// different seeds share no prefix beyond the first word.
QString syntheticPrompt(int tokens, quint64 seed);

} // namespace qs
