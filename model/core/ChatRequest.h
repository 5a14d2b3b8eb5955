// SPDX-License-Identifier: MIT
#pragma once

#include "model/core/Endpoint.h"

#include <QByteArray>
#include <nlohmann/json.hpp>
#include <optional>

namespace qs {

/// What to ask one endpoint. Messages and tools are OpenAI JSON as-is, so suites can carry
/// anything a server understands (tool results, images…).
struct ChatRequest {
    nlohmann::json messages = nlohmann::json::array(); ///< [{"role":"user","content":"…"}, …]
    nlohmann::json tools; ///< null, or an array of function schemas
    std::optional<int> maxTokens;
    std::optional<double> temperature;
    std::optional<qint64> seed;
    bool stream = true;
    /// Ask for `logprobs` with this many alternatives per position (fidelity tests; at most 20,
    /// vLLM's default `--max-logprobs`). Unset: no logprobs asked for.
    std::optional<int> topLogprobs;
    /// Measure cold prefill: tell a server that can be told per request not to serve the prompt
    /// from its cache (llama-server's `"cache_prompt": false`; vLLM and SGLang only have server
    /// flags, so a cold suite also salts every prompt). Sent only where the runtime is known.
    bool noPromptCache = false;
    /// Merged last (RFC 7386), after the endpoint's extra_body: per-test overrides.
    nlohmann::json extraBody = nlohmann::json::object();

    /// A single user message, for probes and the CLI.
    static ChatRequest fromPrompt(const QString& prompt, const QString& system = {});
};

/// The exact JSON body Quantscope sends: model (when known), messages, `stream` with
/// `stream_options.include_usage: true` (so every server reports its own token counts), sampling
/// fields, tools when present, `logprobs: true` with `top_logprobs: N` when asked (llama-server with
/// tools in a stream rejects that with a 400, issue #28478, so there — `endpoint.runtime` known —
/// the native `n_probs: N` is sent instead, which returns the same OpenAI-shaped logprobs),
/// `cache_prompt: false` to llama-server when `noPromptCache` is set, then the
/// endpoint's extra_body, then the request's extraBody.
nlohmann::json buildChatBody(const Endpoint& endpoint, const ChatRequest& request);

} // namespace qs
