// SPDX-License-Identifier: MIT
#pragma once

// The emulated server's prefix cache (docs/emulator.md, "Prefix cache"): the token sequences of
// recent prompts (and of the answers that followed them), so that a new prompt finds the longest
// prefix a real server would already hold in its KV cache — llama-server's slot/prompt cache,
// vLLM's automatic prefix caching, SGLang's radix cache. Bounded (least recently used first out),
// so an hours-long simulated run never grows it. Internal to qs_emulator.

#include "tests/support/Emulator.h"

#include <QJsonObject>
#include <QString>
#include <QtGlobal>
#include <cstddef>
#include <list>
#include <mutex>
#include <vector>

namespace qs::emu::detail {

using TokenIds = std::vector<quint64>;

/// The prompt as the emulator's tokens, exactly countPromptTokens(body) of them: per message a
/// start token, the role, a newline, one token per word of its text, and an end token (the
/// "words + 4 per message" count, laid out like a ChatML template). Equal words give equal ids.
/// The tool schemas sit where templates put them, right after the leading system messages: they
/// count no tokens of their own (the emulator's count never included them), but a different tool
/// list changes the first token after the system prompt, so the shared prefix ends there. An
/// assistant message's tool calls are folded into its end token the same way.
TokenIds promptTokenIds(const QJsonObject& body);

/// `prompt` followed by what the server generated after it, as a template renders that answer
/// when the client sends it back: the assistant's start, role and newline, then the words of the
/// reasoning (which a client rarely sends back, so the next prompt usually diverges there) and of
/// the content. Real servers keep the generated tokens in their cache too.
TokenIds withAnswer(TokenIds prompt, const QString& reasoning, const QString& content);

/// The tokens of the leading system messages: where the tool schemas go.
int systemPrefixTokens(const QJsonObject& body);

/// Least-recently-used store of token sequences, thread-safe.
class PrefixCache {
public:
    /// The longest common prefix, in tokens, of `tokens` with any stored sequence.
    std::size_t longestPrefix(const TokenIds& tokens) const;
    /// Stores `tokens` as the most recently used sequence. A stored sequence it extends is dropped
    /// (the new one holds it); one that already holds it is only marked used. Then the least
    /// recently used go until at most `maxSequences` sequences of `maxTokens` tokens in all
    /// remain (a longer sequence is kept cut to `maxTokens`).
    void insert(TokenIds tokens, std::size_t maxSequences, std::size_t maxTokens);
    void clear();
    PrefixCacheStats stats() const;

private:
    mutable std::mutex m_mutex;
    std::list<TokenIds> m_entries; ///< most recently used first
    std::size_t m_tokens = 0;
};

/// The common prefix of two sequences, in tokens.
std::size_t commonPrefix(const TokenIds& a, const TokenIds& b);

} // namespace qs::emu::detail
