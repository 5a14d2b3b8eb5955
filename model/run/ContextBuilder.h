// SPDX-License-Identifier: MIT
#pragma once

#include "model/core/Endpoint.h"
#include "model/core/RunRecord.h"
#include "model/core/Suite.h"

#include <QString>
#include <optional>
#include <vector>

namespace qs {

// The long contexts of the context sweep, and the sizes a runner must know before it sends
// anything. Pure: no I/O. docs/suites.md, "Context tests".

/// Tokens of `text` as a BPE tokenizer counts plain English, roughly: every word and every
/// punctuation mark. The briefing is written in short lowercase words so that this stays within
/// about 10 % of Qwen's and Llama's counts; the servers' own counts (usage.prompt_tokens) are
/// what the statistics use.
int estimateTokens(const QString& text);

/// The system prompt of a context test: the suite's system prompt, then "Briefing:" and a
/// generated briefing (calendar entries, reminders, notes, errands) grown until the whole first
/// request — this system prompt and the test's first user turn — is about `context.tokens`
/// tokens, with `context.fact` placed at `context.depth` of the briefing. The same text for the
/// same suite and test, whatever the endpoint or iteration (the comparison is paired). The test
/// must have a context.
QString contextSystemPrompt(const Suite& suite, const SuiteTest& test);

/// The salt that starts the system prompt when the suite measures cold prefill
/// (`"prefix_cache": "cold"`): the same on every endpoint at the same test, iteration and turn,
/// different for every request of an endpoint, so no prefix cache can serve any of the prompt.
QString coldPrefixSalt(quint64 seed, const QString& test, int iteration, int turn, bool warmup);

/// The line that ends the system prompt when the suite measures production's pattern
/// (`"prefix_cache": "warm"`): the system prompt and briefing before it are the same in every
/// request, so a server serves them from its cache, while the line after them differs per
/// conversation, so a timing repeat of a prompt is a new user turn to the server, not a cache
/// hit on the whole prompt. Constant over the turns of one conversation: turn k finds turn
/// k − 1's context cached, as a live conversation does.
QString warmConversationSalt(quint64 seed, const QString& test, int iteration, bool warmup);

/// What the largest request of `test` needs, estimated before sending: its system prompt, every
/// user turn, the tools when offered, the chat template's few tokens per message, and its output
/// budget. Known only for tests whose size the suite fixes (a context or a synthetic prompt);
/// nothing for the others, whose replies decide their size.
std::optional<qint64> estimatedContextNeed(const Suite& suite, const SuiteTest& test, int maxTokens);

/// The server flag that raises the context size, in the runtime's own words: "--ctx-size N"
/// (llama-server; per slot, so × --parallel), "--max-model-len N" (vLLM), "--context-length N"
/// (SGLang), or a sentence naming all three when the runtime is not known.
QString contextFlagAdvice(Runtime runtime, qint64 tokens);

/// Why the run cannot start: the tests that need more context than an endpoint's server has (the
/// probe's context size, per slot on llama-server), each with its estimate and the flag to raise,
/// or an empty string when every test fits or no server said its size. Endpoints not `usable`
/// are skipped.
QString contextRefusal(const Suite& suite, const std::vector<RunEndpoint>& endpoints,
    const std::vector<bool>& usable, const RunSettings& settings);

} // namespace qs
