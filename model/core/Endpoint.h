// SPDX-License-Identifier: MIT
#pragma once

#include <QString>
#include <QStringList>
#include <QUrl>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>

namespace qs {

/// The server software behind an endpoint. Detected by EndpointProbe where the server tells
/// (llama-server `/props`, vLLM `/version`, SGLang `/server_info`, the `Server` header).
enum class Runtime { Unknown, LlamaServer, Vllm, Sglang, Other };

QString runtimeName(Runtime runtime); ///< "llama-server", "vllm", "sglang", "other", "unknown"
std::optional<Runtime> runtimeFromName(const QString& name); ///< inverse of runtimeName, case-insensitive

/// Timeouts of one request, all in milliseconds; 0 disables one.
///
/// They count progress, not bytes, so a trickling server cannot hold a run: for a stream, a
/// complete data event (keep-alive comments and partial lines are not progress); for any other
/// body, its first byte (the rest must follow within idleMs). Header bytes never count. A stream
/// of valid events that never ends is stopped by the client past max_tokens (StreamingClient),
/// so totalMs can stay 0 without a hostile server holding a run forever.
struct Timeouts {
    int connectMs = 5000; ///< TCP (and TLS) connection established
    /// request written -> first progress (for a stream: first data event): prefill of long
    /// prompts, queueing
    int firstByteMs = 300000;
    int idleMs = 60000; ///< no progress for this long once the response has started
    int totalMs = 0; ///< whole request; 0 = no limit (a slow but steady stream is not an error)
    bool operator==(const Timeouts&) const = default;
};

/// One OpenAI-compatible endpoint under test. A value type: copy it freely across threads.
struct Endpoint {
    QString label; ///< what the user calls it, e.g. "Q4_K_M llama-server"
    QUrl baseUrl; ///< e.g. http://10.0.0.5:8003 (a trailing /v1 is accepted and removed)
    QString model; ///< model id sent in requests; empty = discover from /v1/models
    QString apiKeyEnv; ///< NAME of the environment variable holding the API key; never the key
    Runtime runtime = Runtime::Unknown; ///< Unknown = detect by probing
    QString quantization; ///< free label, e.g. "NVFP4", "Q4_K_M"
    /// Merged into every request body (RFC 7386 merge patch), e.g.
    /// {"chat_template_kwargs":{"enable_thinking":false}}.
    nlohmann::json extraBody = nlohmann::json::object();
    Timeouts timeouts;
    /// Extra Prometheus pages scraped during a run besides the runtime's own `/metrics` (found at
    /// baseUrl): a DCGM exporter, a node exporter, anything else. Full URLs, e.g.
    /// "http://10.0.0.5:9400/metrics".
    QStringList metricsUrls;
    /// Free facts about what is behind the endpoint, as the user names them (`meta.KEY=VALUE` in
    /// an endpoint spec), e.g. calibration=annie-500, method=awq_lite: saved with the run, so a
    /// campaign can say what changed between attempts as data, not prose.
    std::map<QString, QString> meta;

    /// The API key read from `apiKeyEnv` now, or empty. Never stored in any file.
    QString apiKey() const;
    /// baseUrl with `path` appended (path starts with '/'), e.g. url("/v1/models").
    QUrl url(const QString& path) const;
    /// "label" or, when unnamed, "host:port".
    QString displayName() const;
    bool operator==(const Endpoint&) const = default;
};

/// Normalises what a user typed: adds http:// when no scheme is given, strips a trailing
/// "/v1" or "/v1/chat/completions" and trailing slashes. Returns an empty QUrl plus `error`
/// when the text is not an http(s) URL.
QUrl normalizeBaseUrl(const QString& text, QString* error = nullptr);

/// A metrics URL as typed: adds http:// when no scheme is given and /metrics when no path is.
/// Empty QUrl plus `error` when it is not an http(s) URL with a host.
QUrl normalizeMetricsUrl(const QString& text, QString* error = nullptr);

nlohmann::json toJson(const Endpoint& endpoint);
/// Reads an endpoint description; throws std::invalid_argument naming the bad field. An
/// "api_key" field is refused: keys belong in the environment (api_key_env).
Endpoint endpointFromJson(const nlohmann::json& json);

} // namespace qs
