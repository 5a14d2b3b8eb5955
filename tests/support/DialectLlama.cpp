// SPDX-License-Identifier: MIT
// llama-server (cpp-httplib + nlohmann ordered_json): doc §2.1, §3, §6.1, §7.

#include "tests/support/EmulatorDialect.h"
#include "tests/support/EmulatorJson.h"
#include "tests/support/HttpRequestReader.h"

#include <QJsonObject>

namespace qs::emu::detail {

namespace {

const QByteArray kJson = QByteArrayLiteral("application/json; charset=utf-8");

// A Qwen-style template, only so /props carries something template-shaped.
const char* const kChatTemplate
    = "{%- for message in messages %}{{- '<|im_start|>' + message.role + '\\n' + message.content + "
      "'<|im_end|>' + '\\n' }}{%- endfor %}{%- if add_generation_prompt %}{{- '<|im_start|>assistant\\n' "
      "}}{%- endif %}";

double ratio(double numerator, double denominator)
{
    return denominator > 0 ? numerator / denominator : 0.0;
}

class LlamaWriter final : public DialectWriter {
public:
    explicit LlamaWriter(Era era)
        : DialectWriter(era)
    {
    }

    HttpFlavor flavor() const override { return HttpFlavor::CppHttplib; }
    QByteArray streamContentType() const override { return QByteArrayLiteral("text/event-stream"); }
    std::vector<std::pair<QByteArray, QByteArray>> streamHeaders() const override
    {
        return {{QByteArrayLiteral("X-Accel-Buffering"), QByteArrayLiteral("no")}};
    }

    // server-http.cpp: these paths (and the web UI) skip the API-key middleware.
    bool isPublicPath(const QByteArray& path) const override
    {
        return path == "/health" || path == "/v1/health" || path == "/models" || path == "/v1/models"
            || path == "/";
    }

    // The "Bearer " prefix is optional, and Anthropic clients' X-Api-Key works as well.
    bool carriesApiKey(const HttpRequest& request, const QByteArray& key) const override
    {
        QByteArray sent = request.header("Authorization");
        if (sent.isEmpty())
            sent = request.header("X-Api-Key");
        if (sent.startsWith("Bearer "))
            sent = sent.mid(7);
        return sent == key;
    }

    HttpReply unauthorized() const override
    {
        return middlewareError(401, "Invalid API Key", "authentication_error");
    }

    HttpReply routeNotFound(bool methodMismatch) const override
    {
        Q_UNUSED(methodMismatch); // cpp-httplib answers 404 for an unmatched method too
        return middlewareError(404, "File Not Found", "not_found_error");
    }

    std::optional<HttpReply> infoRoute(const QByteArray& path, const ServerConfig& config) const override
    {
        if (path == "/health" || path == "/v1/health")
            return jsonReply(200, kJson, compactJson(ojson {{"status", "ok"}}));
        if (path == "/models" || path == "/v1/models")
            return jsonReply(200, kJson, compactJson(models(config)));
        if (path == "/props")
            return jsonReply(200, kJson, compactJson(props(config)));
        if (path == "/metrics")
            return error(501, "This server does not support metrics endpoint. Start it with `--metrics`",
                "not_supported_error");
        return std::nullopt;
    }

    // ex_wrapper: nlohmann's parse_error is not an invalid_argument, so it becomes a 500.
    HttpReply invalidJson(const QByteArray& parserMessage) const override
    {
        return error(500, parserMessage.toStdString(), "server_error");
    }

    std::optional<HttpReply> httpError(HttpErrorKind kind, const ErrorContext& ctx) const override
    {
        switch (kind) {
        case HttpErrorKind::ContextExceeded:
            return contextExceeded(ctx);
        // Single-model llama-server ignores `model`; router mode is the closest real failure.
        case HttpErrorKind::ModelNotFound:
            return error(404, "model is not found", "not_found_error");
        // Only with --no-jinja (the default before late 2025); a runtime_error, hence 500.
        case HttpErrorKind::ToolsNotEnabled:
            return error(500, "tools param requires --jinja flag", "server_error");
        case HttpErrorKind::Unauthorized:
            return unauthorized();
        case HttpErrorKind::ServerError:
            return error(500, "Compute error.", "server_error");
        case HttpErrorKind::Loading:
            return middlewareError(503, "Loading model", "unavailable_error");
        case HttpErrorKind::BadRequest:
            return error(400, "'messages' is required", "invalid_request_error");
        }
        return std::nullopt;
    }

    // The slot rejects a prompt that does not fit before anything is streamed (`>=`,
    // server-context.cpp); max_tokens is not part of the check.
    std::optional<HttpReply> preflight(
        const RequestInfo& info, const ErrorContext& ctx, const ServerConfig& config) const override
    {
        Q_UNUSED(config);
        if (info.promptTokens >= ctx.contextSize)
            return contextExceeded(ctx);
        return std::nullopt;
    }

    // oaicompat_chat_params_parse: `logprobs` sets n_probs = top_logprobs (default 20), so
    // top_logprobs 0 means none; the native n_probs is read when `logprobs` is not set.
    std::optional<HttpReply> readLogprobs(
        const RequestInfo& info, const ServerConfig& config, LogprobAsk& ask) const override
    {
        Q_UNUSED(config);
        const QJsonValue top = info.body.value(QLatin1String("top_logprobs"));
        const bool topGiven = !top.isUndefined() && !top.isNull();
        if (info.body.value(QLatin1String("logprobs")).toBool(false)) {
            if (info.hasTools && info.stream)
                return error(400, "logprobs is not supported with tools + stream", "invalid_request_error");
            ask.top = topGiven ? top.toInt() : 20;
        } else if (topGiven) {
            return error(400, "top_logprobs requires logprobs to be set to true", "invalid_request_error");
        } else {
            ask.top = info.body.value(QLatin1String("n_probs")).toInt(0);
        }
        ask.wanted = ask.top > 0;
        return std::nullopt;
    }

    bool wantsUsage(const QJsonObject& body) const override
    {
        return body.value(QLatin1String("stream_options"))
            .toObject()
            .value(QLatin1String("include_usage"))
            .toBool(false);
    }

    // `"cache_prompt": false` (default true): the slot's cached prefix is not reused.
    bool reusesCache(const QJsonObject& body) const override
    {
        return body.value(QLatin1String("cache_prompt")).toBool(true);
    }

    // Since PR #23884 the 200 goes out when the slot starts; before it, with the first token.
    bool headersAtReceipt() const override { return m_era != Era::Legacy; }
    bool pingsWhileSilent() const override { return m_era != Era::Legacy; }
    bool roleJoinsFirstToken() const override { return true; }
    bool toolHeaderIsOwnEvent() const override { return false; }
    bool closeAfterStreamError() const override { return true; }
    QString toolCallId(int index) const override
    {
        Q_UNUSED(index);
        return QString::fromLatin1(randomAlnum(32));
    }

    ChatContext newChat(
        const RequestInfo& info, const HttpRequest& request, const ServerConfig& config) const override
    {
        Q_UNUSED(request);
        ChatContext ctx;
        ctx.completionId = QByteArrayLiteral("chatcmpl-") + randomAlnum(32);
        ctx.created = unixTimeSeconds();
        ctx.model = config.modelId; // meta->model_name, never the request's
        ctx.version = config.version;
        ctx.includeUsage = info.includeUsage;
        return ctx;
    }

    QByteArray roleEvent(const ChatContext& ctx) const override
    {
        return sseData(compactJson(
            chunk(ctx, ojson::array({choice(ojson {{"role", "assistant"}, {"content", nullptr}})}))));
    }

    // The entries ride on the last chunk of their token, after the delta.
    QByteArray tokenEvent(const ChatContext& ctx, const TokenEvent& token) const override
    {
        ojson out = choice(delta(token));
        if (ctx.logprobs.wanted && !token.logprobs.empty())
            out["logprobs"] = logprobsJson(Dialect::LlamaServer, token.logprobs, ctx.logprobs);
        return sseData(compactJson(chunk(ctx, ojson::array({out}))));
    }

    // The final result's chunks go out in one write, [DONE] in the next.
    QList<QByteArray> finishWrites(const ChatContext& ctx, const FinishInfo& info) const override
    {
        ojson finish = chunk(ctx, ojson::array({choice(ojson::object(), str(info.finishReason))}));
        if (!info.sendUsage) {
            addTimings(finish, info);
            return {sseData(compactJson(finish)), sseDone()};
        }
        ojson usage = chunk(ctx, ojson::array());
        usage["usage"] = usageJson(info);
        addTimings(usage, info);
        return {sseData(compactJson(finish)) + sseData(compactJson(usage)), sseDone()};
    }

    // An error after the stream started: the error chunk and no [DONE].
    QList<QByteArray> errorWrites(const ChatContext& ctx, const FinishInfo& info) const override
    {
        Q_UNUSED(ctx);
        Q_UNUSED(info);
        return {sseData(compactJson(errorObject(500, "Compute error.", "server_error")))};
    }

    HttpReply completion(
        const ChatContext& ctx, const CompletionText& text, const FinishInfo& info) const override
    {
        ojson message = {{"role", "assistant"}};
        if (!text.reasoning.isEmpty())
            message["reasoning_content"] = str(text.reasoning);
        if (text.content.isEmpty() && !text.toolCalls.empty())
            message["content"] = nullptr;
        else
            message["content"] = str(text.content);
        if (!text.toolCalls.empty()) {
            ojson calls = ojson::array();
            for (const ToolCallOut& call : text.toolCalls)
                calls.push_back({{"type", "function"},
                    {"function", {{"name", str(call.name)}, {"arguments", str(call.arguments)}}},
                    {"id", str(call.id)}});
            message["tool_calls"] = calls;
        }
        ojson choice {{"finish_reason", str(info.finishReason)}, {"index", 0}, {"message", message}};
        if (ctx.logprobs.wanted && !text.logprobs.empty())
            choice["logprobs"] = logprobsJson(Dialect::LlamaServer, text.logprobs, ctx.logprobs);
        ojson body;
        body["choices"] = ojson::array({choice});
        body["created"] = ctx.created;
        body["model"] = str(ctx.model);
        body["system_fingerprint"] = str(ctx.version);
        body["object"] = "chat.completion";
        body["usage"] = usageJson(info);
        body["id"] = ctx.completionId.toStdString();
        addTimings(body, info);
        return jsonReply(200, kJson, compactJson(body));
    }

private:
    // format_error_response: code, message, type.
    static ojson errorObject(int code, const std::string& message, const char* type)
    {
        return ojson {{"error", {{"code", code}, {"message", message}, {"type", type}}}};
    }
    static HttpReply error(int code, const std::string& message, const char* type)
    {
        return jsonReply(code, kJson, compactJson(errorObject(code, message, type)));
    }
    // The HTTP middlewares build their bodies in another order: message, type, code.
    static HttpReply middlewareError(int code, const char* message, const char* type)
    {
        return jsonReply(code, kJson,
            compactJson(ojson {{"error", {{"message", message}, {"type", type}, {"code", code}}}}));
    }

    static HttpReply contextExceeded(const ErrorContext& ctx)
    {
        const std::string message = "request (" + std::to_string(ctx.promptTokens)
            + " tokens) exceeds the available context size (" + std::to_string(ctx.contextSize)
            + " tokens), try increasing it";
        ojson body = errorObject(400, message, "exceed_context_size_error");
        body["error"]["n_prompt_tokens"] = ctx.promptTokens;
        body["error"]["n_ctx"] = ctx.contextSize;
        return jsonReply(400, kJson, compactJson(body));
    }

    // to_json_oaicompat_chat_stream: choices, created, id, model, system_fingerprint, object.
    static ojson chunk(const ChatContext& ctx, ojson choices)
    {
        ojson out;
        out["choices"] = std::move(choices);
        out["created"] = unixTimeSeconds(); // time(0) per chunk
        out["id"] = ctx.completionId.toStdString();
        out["model"] = str(ctx.model);
        out["system_fingerprint"] = str(ctx.version);
        out["object"] = "chat.completion.chunk";
        return out;
    }

    static ojson choice(ojson delta, const std::string& finishReason = {})
    {
        ojson out;
        out["finish_reason"] = finishReason.empty() ? ojson(nullptr) : ojson(finishReason);
        out["index"] = 0;
        out["delta"] = std::move(delta);
        return out;
    }

    // common_chat_msg_diff_to_json_oaicompat: only the non-empty parts.
    static ojson delta(const TokenEvent& token)
    {
        switch (token.kind) {
        case TokenKind::Reasoning:
            return ojson {{"reasoning_content", str(token.text)}};
        case TokenKind::Content:
            return ojson {{"content", str(token.text)}};
        case TokenKind::ToolCall:
            break;
        }
        ojson call;
        call["index"] = token.toolIndex;
        ojson function;
        if (token.opensToolCall) {
            call["id"] = str(token.toolId);
            call["type"] = "function";
            function["name"] = str(token.toolName);
        }
        function["arguments"] = str(token.text); // always present, may be ""
        call["function"] = std::move(function);
        return ojson {{"tool_calls", ojson::array({call})}};
    }

    // prompt_tokens is the whole prompt, cache hits included. No prompt_tokens_details: only
    // proposed (open PR #22081, doc §3.2); the cache shows in timings.cache_n.
    static ojson usageJson(const FinishInfo& info)
    {
        return ojson {{"completion_tokens", info.completionTokens}, {"prompt_tokens", info.promptTokens},
            {"total_tokens", info.promptTokens + info.completionTokens}};
    }

    static void addTimings(ojson& target, const FinishInfo& info)
    {
        if (!info.timings)
            return;
        const Timings& t = *info.timings;
        target["timings"] = ojson {{"cache_n", t.cacheN}, {"prompt_n", t.promptN}, {"prompt_ms", t.promptMs},
            {"prompt_per_token_ms", ratio(t.promptMs, t.promptN)},
            {"prompt_per_second", ratio(1e3 * t.promptN, t.promptMs)}, {"predicted_n", t.predictedN},
            {"predicted_ms", t.predictedMs}, {"predicted_per_token_ms", ratio(t.predictedMs, t.predictedN)},
            {"predicted_per_second", ratio(1e3 * t.predictedN, t.predictedMs)}};
    }

    ojson models(const ServerConfig& config) const
    {
        const std::string name = str(config.modelId);
        ojson ollama = {{"name", name}, {"model", name}, {"modified_at", ""}, {"size", ""}, {"digest", ""},
            {"type", "model"}, {"description", ""}, {"tags", ojson::array({""})},
            {"capabilities", ojson::array({"completion"})}, {"parameters", ""},
            {"details",
                {{"parent_model", ""}, {"format", "gguf"}, {"family", ""}, {"families", ojson::array({""})},
                    {"parameter_size", ""}, {"quantization_level", ""}}}};
        ojson entry;
        entry["id"] = name;
        if (m_era != Era::Legacy) { // aliases and tags came with the 2026 model registry
            entry["aliases"] = ojson::array();
            entry["tags"] = ojson::array();
        }
        entry["object"] = "model";
        entry["created"] = unixTimeSeconds();
        entry["owned_by"] = "llamacpp";
        entry["meta"] = {{"vocab_type", 2}, {"n_vocab", 151936}, {"n_ctx", config.contextSize},
            {"n_ctx_train", 262144}, {"n_embd", 4096}, {"n_params", 8190735360LL}, {"size", 5027783488LL},
            {"ftype", "Q4_K - Medium"}};
        return ojson {
            {"models", ojson::array({ollama})}, {"object", "list"}, {"data", ojson::array({entry})}};
    }

    ojson props(const ServerConfig& config) const
    {
        const ojson params = {{"n_predict", -1}, {"seed", 4294967295LL}, {"temperature", 0.8}, {"top_k", 40},
            {"top_p", 0.95}, {"min_p", 0.05}, {"repeat_penalty", 1.0}, {"stream", true},
            {"reasoning_format", "auto"}};
        const bool current = m_era != Era::Legacy;
        ojson out;
        out["default_generation_settings"] = {{"params", params}, {"n_ctx", config.contextSize}};
        out["total_slots"] = 1;
        out["model_alias"] = str(config.modelId);
        if (current)
            out["model_ftype"] = "Q4_K - Medium";
        out["model_path"] = "/models/" + str(config.modelId) + ".gguf";
        out["modalities"] = current ? ojson {{"vision", false}, {"video", false}, {"audio", false}}
                                    : ojson {{"vision", false}, {"audio", false}};
        if (current)
            out["media_marker"] = "<__media__>";
        out["endpoint_slots"] = true;
        out["endpoint_props"] = false;
        out["endpoint_metrics"] = false;
        out[current ? "ui" : "webui"] = true;
        if (current)
            out["ui_settings"] = ojson::object();
        out["chat_template"] = kChatTemplate;
        if (current)
            out["chat_template_caps"] = {{"supports_tools", true}, {"supports_tool_calls", true},
                {"supports_system_role", true}, {"supports_parallel_tool_calls", true}};
        out["bos_token"] = "";
        out["eos_token"] = "<|im_end|>";
        out["build_info"] = str(config.version);
        if (current) {
            out["is_sleeping"] = false;
            out["cors_proxy_enabled"] = false;
        }
        return out;
    }
};

} // namespace

std::unique_ptr<DialectWriter> makeLlamaWriter(Era era)
{
    return std::make_unique<LlamaWriter>(era);
}

} // namespace qs::emu::detail
