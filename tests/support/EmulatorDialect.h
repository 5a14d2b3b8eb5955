// SPDX-License-Identifier: MIT
#pragma once

// What each emulated server writes: the bytes of its chunks, bodies and errors, era by era
// (../shared/reference/server-stream-formats.md). No sockets and no clocks here; the HTTP
// plumbing (EmulatorConnection) and the timing (ChatResponder) decide when bytes go out.
// Internal to qs_emulator.

#include "tests/support/Emulator.h"
#include "tests/support/EmulatorHttp.h"
#include "tests/support/EmulatorLogprobs.h"

#include <QByteArray>
#include <QList>
#include <QString>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

namespace qs::emu::detail {

struct HttpRequest;

enum class TokenKind { Reasoning, Content, ToolCall };

/// One token-bearing event of a stream (one chunk on the wire).
struct TokenEvent {
    TokenKind kind = TokenKind::Content;
    QString text; ///< reasoning or content text, or an arguments fragment
    int toolIndex = 0; ///< ToolCall: index of the call in the message
    bool opensToolCall = false; ///< ToolCall: the event that carries the call's id and name
    QString toolId;
    QString toolName;
    int scriptPosition = -1; ///< index into Script::logprobs (reasoning then content); -1: none
    std::vector<LogprobEntry> logprobs; ///< the entries this chunk carries (empty: none)
};

/// Per-request values that every chunk of one response repeats.
struct ChatContext {
    QByteArray completionId;
    qint64 created = 0;
    QString model; ///< the `model` written in chunks and bodies
    QString version; ///< ServerConfig::version
    bool includeUsage = false;
    bool reasoningParsed = false; ///< a reasoning parser is active (ReasoningMode::Parsed)
    bool toolParserActive = false; ///< request has tools and the server parses them
    LogprobAsk logprobs; ///< what the request asked of logprobs (not wanted: none written)
};

/// llama-server's `timings` object, from the emulator's real stamps.
struct Timings {
    int cacheN = 0; ///< prompt tokens reused from the cache
    int promptN = 0; ///< prompt tokens evaluated: the prompt less cacheN
    double promptMs = 0;
    int predictedN = 0;
    double predictedMs = 0;
};

struct FinishInfo {
    QString finishReason = QStringLiteral("stop");
    int promptTokens = 0;
    int completionTokens = 0;
    int reasoningTokens = 0;
    int cachedTokens = 0; ///< of promptTokens, from the prefix cache (RequestInfo::cachedTokens)
    bool reportCachedTokens = false; ///< ServerConfig::reportCachedTokens
    bool sendUsage = false; ///< asked for and not suppressed by Fault::NoUsageChunk
    std::optional<Timings> timings; ///< llama-server only, when Script::includeTimings
};

struct ToolCallOut {
    QString id;
    QString name;
    QString arguments;
};

/// The whole message, for non-streamed responses.
struct CompletionText {
    QString reasoning; ///< parsed reasoning (empty when leaked into content)
    QString content;
    std::vector<ToolCallOut> toolCalls;
    std::vector<LogprobEntry> logprobs; ///< one per generated token (all of them, reasoning too)
};

/// Numbers the error messages quote.
struct ErrorContext {
    int promptTokens = 0;
    int maxTokens = 0; ///< 0 when the request set none
    int contextSize = 0;
    QString requestModel; ///< the request's `model`, may be empty
    QString modelId; ///< the served model
};

class DialectWriter {
public:
    static std::unique_ptr<DialectWriter> create(Dialect dialect, Era era);
    virtual ~DialectWriter() = default;

    // ---- HTTP plumbing -------------------------------------------------------------------
    virtual HttpFlavor flavor() const = 0;
    virtual QByteArray streamContentType() const = 0;
    virtual std::vector<std::pair<QByteArray, QByteArray>> streamHeaders() const { return {}; }
    /// Paths the server's API-key middleware lets through without a key.
    virtual bool isPublicPath(const QByteArray& path) const = 0;
    /// Whether the request carries `key` the way this server's middleware accepts it
    /// (default: exactly `Authorization: Bearer <key>`).
    virtual bool carriesApiKey(const HttpRequest& request, const QByteArray& key) const;
    virtual HttpReply unauthorized() const = 0;
    /// Unknown path, or a known path with the wrong method (`methodMismatch`).
    virtual HttpReply routeNotFound(bool methodMismatch) const = 0;
    /// GET routes other than chat (health, models, props, version, server_info …);
    /// nullopt when this server has no such route. SGLang's /health_generate is handled by
    /// the connection (it answers after a generation) and is reported by isHealthGenerate().
    virtual std::optional<HttpReply> infoRoute(const QByteArray& path, const ServerConfig& config) const = 0;
    virtual bool isHealthGenerate(const QByteArray& path) const
    {
        Q_UNUSED(path);
        return false;
    }

    // ---- request checks ------------------------------------------------------------------
    /// Answer to a body that is not JSON (`parserMessage` is nlohmann's exception text).
    virtual HttpReply invalidJson(const QByteArray& parserMessage) const = 0;
    /// The server's exact answer for `kind`; nullopt when this server would not fail at all
    /// (SGLang without a tool parser answers tools normally, markup in content).
    virtual std::optional<HttpReply> httpError(HttpErrorKind kind, const ErrorContext& ctx) const = 0;
    /// Checks the real server makes before it streams: served model name, tool parser,
    /// context size. nullopt: the request goes on.
    virtual std::optional<HttpReply> preflight(
        const RequestInfo& info, const ErrorContext& ctx, const ServerConfig& config) const = 0;
    /// How this server reads `logprobs`, `top_logprobs` (and llama's `n_probs`) into `ask`, or
    /// its 400 for a combination it rejects.
    virtual std::optional<HttpReply> readLogprobs(
        const RequestInfo& info, const ServerConfig& config, LogprobAsk& ask) const = 0;
    /// The server's default for usage in streams (vLLM: on once `stream_options` is present).
    virtual bool wantsUsage(const QJsonObject& body) const = 0;

    // ---- prefix cache (docs/emulator.md, "Prefix cache") --------------------------------
    /// Whether this request may reuse cached tokens (llama-server: its `cache_prompt`).
    virtual bool reusesCache(const QJsonObject& body) const
    {
        Q_UNUSED(body);
        return true;
    }
    /// What the server reuses of a prefix of `commonPrefix` tokens it holds: never the whole
    /// prompt (the last token is computed again for its logits), in the server's own unit.
    virtual int cachedTokens(std::size_t commonPrefix, int promptTokens) const;

    // ---- stream shape --------------------------------------------------------------------
    virtual bool headersAtReceipt() const = 0; ///< status line before prefill
    virtual bool pingsWhileSilent() const { return false; } ///< `:\n\n` comment frames
    virtual bool roleJoinsFirstToken() const { return false; } ///< role chunk + token, one write
    virtual bool toolHeaderIsOwnEvent() const { return true; } ///< id+name before any arguments
    virtual bool toolsAsMarkup(const ServerConfig& config) const
    {
        Q_UNUSED(config);
        return false;
    }
    virtual bool closeAfterStreamError() const { return false; }
    virtual QString toolCallId(int index) const = 0;
    virtual QString finishReason(bool truncated, bool toolCalls, const RequestInfo& info) const;
    virtual ChatContext newChat(
        const RequestInfo& info, const HttpRequest& request, const ServerConfig& config) const = 0;

    // ---- stream bytes (each QByteArray is complete SSE text) ----------------------------
    virtual QByteArray roleEvent(const ChatContext& ctx) const = 0;
    virtual QByteArray tokenEvent(const ChatContext& ctx, const TokenEvent& token) const = 0;
    /// Finish chunk, usage chunk and [DONE]; one entry per HTTP chunk, in order.
    virtual QList<QByteArray> finishWrites(const ChatContext& ctx, const FinishInfo& info) const = 0;
    /// The in-stream error and what follows it; one entry per HTTP chunk.
    virtual QList<QByteArray> errorWrites(const ChatContext& ctx, const FinishInfo& info) const = 0;
    virtual HttpReply completion(
        const ChatContext& ctx, const CompletionText& text, const FinishInfo& info) const = 0;

protected:
    explicit DialectWriter(Era era)
        : m_era(era)
    {
    }
    Era m_era;
};

std::unique_ptr<DialectWriter> makeLlamaWriter(Era era);
std::unique_ptr<DialectWriter> makeVllmWriter(Era era);
std::unique_ptr<DialectWriter> makeSglangWriter(Era era);

/// A JSON object without spaces (all three stacks write compact JSON bodies).
HttpReply jsonReply(int status, const QByteArray& contentType, const QByteArray& body);

// vLLM and SGLang are both FastAPI apps: Starlette answers these, not the servers' own code.
HttpReply fastApiUnauthorized(); ///< 401 {"error":"Unauthorized"}
HttpReply fastApiRouteNotFound(bool methodMismatch); ///< 404 {"detail":"Not Found"} / 405

} // namespace qs::emu::detail
