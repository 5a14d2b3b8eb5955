// SPDX-License-Identifier: MIT
#pragma once

// Pure planning of a chat response: what the request asks (RequestInfo), which token events
// the script turns into for a dialect, and when each step is due. No I/O. Internal to qs_emulator.

#include "tests/support/Emulator.h"
#include "tests/support/EmulatorDialect.h"

#include <QJsonObject>
#include <vector>

namespace qs::emu::detail {

/// The emulator's prompt-token estimate: words in every message's text + 4 per message.
int countPromptTokens(const QJsonObject& body);

/// `max_completion_tokens`, `max_tokens` or llama's `n_predict`; 0 when none (or not positive).
int requestedMaxTokens(const QJsonObject& body);

RequestInfo describeRequest(
    const QByteArray& method, const QByteArray& path, const QJsonObject& body, const DialectWriter& writer);

/// Splits `text` into `pieces` parts of nearly equal length (never splitting a surrogate pair).
QStringList splitFragments(const QString& text, int pieces);

struct TokenPlan {
    std::vector<TokenEvent> tokens;
    bool truncated = false; ///< cut by max_tokens
    bool toolCalls = false; ///< parsed tool-call events are part of the plan
    CompletionText text; ///< the same output as one message (non-streamed answers)
};

/// Script → token events in dialect order: reasoning (parsed or leaked with tags), content,
/// tool calls (parsed fragments, or markup in content when the server has no tool parser).
TokenPlan planTokens(
    const Script& script, const DialectWriter& writer, const ServerConfig& config, int maxTokens);

/// When the request asks for logprobs: each token's entry (Script::logprobs where a position
/// is scripted, synthesizedEntry elsewhere) on its event and, in order, in `text.logprobs`.
void attachLogprobs(TokenPlan& plan, const Script& script, const LogprobAsk& ask);

enum class StepKind {
    Token, ///< write tokens[index]
    Malformed, ///< write a `data:` line that is not JSON
    StreamError, ///< write the dialect's in-stream error and end
    Abort, ///< hard-close the connection
    Finish, ///< finish, usage, [DONE] (or the whole body when not streaming)
};

struct Step {
    qint64 dueNs = 0;
    StepKind kind = StepKind::Token;
    int index = 0;
};

/// Absolute deadlines from the request's receive stamp, so lateness never accumulates:
/// token k is due at received + ttft + k/rate (+ stall once k >= faultAfterTokens), where ttft is
/// the script's plus its per-token cost of the `uncachedTokens` the prefill computes; the finish
/// one decode step after the last token (the EOS step), or with it when cut by max_tokens.
std::vector<Step> planSteps(
    const Script& script, const TokenPlan& plan, int uncachedTokens, qint64 receivedNs, bool streaming);

} // namespace qs::emu::detail
