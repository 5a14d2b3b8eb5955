// SPDX-License-Identifier: MIT
// vLLM (FastAPI/uvicorn, pydantic exclude_unset): doc §2.2, §4, §6.2, §6.4, §7.

#include "tests/support/EmulatorDialect.h"
#include "tests/support/EmulatorJson.h"
#include "tests/support/HttpRequestReader.h"

#include <QJsonObject>
#include <QJsonValue>

namespace qs::emu::detail {

namespace {

const QByteArray kJson = QByteArrayLiteral("application/json");
constexpr int kVocabulary = 151936; // what `top_logprobs: -1` and `--max-logprobs -1` mean
constexpr int kBlockTokens = 16; // the KV cache's default block size

class VllmWriter final : public DialectWriter {
public:
    explicit VllmWriter(Era era)
        : DialectWriter(era)
    {
    }

    HttpFlavor flavor() const override { return HttpFlavor::Uvicorn; }
    QByteArray streamContentType() const override
    {
        return QByteArrayLiteral("text/event-stream; charset=utf-8");
    }

    // The API-key middleware only guards /v1/….
    bool isPublicPath(const QByteArray& path) const override { return !path.startsWith("/v1"); }

    HttpReply unauthorized() const override { return fastApiUnauthorized(); }
    HttpReply routeNotFound(bool methodMismatch) const override
    {
        return fastApiRouteNotFound(methodMismatch);
    }

    std::optional<HttpReply> infoRoute(const QByteArray& path, const ServerConfig& config) const override
    {
        if (path == "/health")
            return HttpReply {200, {}, {}}; // Response(status_code=200): empty, no content-type
        if (path == "/version")
            return jsonReply(200, kJson, compactJson(ojson {{"version", str(config.version)}}));
        if (path == "/v1/models")
            return jsonReply(200, kJson, compactJson(models(config)));
        return std::nullopt;
    }

    HttpReply invalidJson(const QByteArray& parserMessage) const override
    {
        Q_UNUSED(parserMessage);
        return error(400,
            "1 validation error:\n  {'type': 'json_invalid', 'loc': ('body', 0), 'msg': 'JSON decode "
            "error', 'input': {}, 'ctx': {'error': 'Expecting value'}}",
            validationType(), nullptr);
    }

    std::optional<HttpReply> httpError(HttpErrorKind kind, const ErrorContext& ctx) const override
    {
        switch (kind) {
        case HttpErrorKind::ContextExceeded:
            return contextExceeded(ctx);
        case HttpErrorKind::ModelNotFound:
            return modelNotFound(ctx.requestModel.isEmpty() ? ctx.modelId : ctx.requestModel);
        case HttpErrorKind::ToolsNotEnabled:
            return toolsNotEnabled();
        case HttpErrorKind::Unauthorized:
            return unauthorized();
        case HttpErrorKind::ServerError:
            return error(500, "Internal server error", "InternalServerError", nullptr);
        // vLLM does not listen before its engine is up; a 503 is the closest thing to "loading".
        case HttpErrorKind::Loading:
            return error(503, "Service Unavailable", "ServiceUnavailableError", nullptr);
        case HttpErrorKind::BadRequest:
            return error(400,
                "1 validation error:\n  {'type': 'missing', 'loc': ('body', 'messages'), 'msg': "
                "'Field required', 'input': {}}",
                validationType(), m_era == Era::Legacy ? ojson(nullptr) : ojson("messages"));
        }
        return std::nullopt;
    }

    std::optional<HttpReply> preflight(
        const RequestInfo& info, const ErrorContext& ctx, const ServerConfig& config) const override
    {
        if (!ctx.requestModel.isEmpty() && ctx.requestModel != config.modelId)
            return modelNotFound(ctx.requestModel);
        if (info.hasTools && !config.toolParser && isAutoToolChoice(info.body))
            return toolsNotEnabled();
        if (info.promptTokens >= ctx.contextSize || info.promptTokens + ctx.maxTokens > ctx.contextSize)
            return contextExceeded(ctx);
        return std::nullopt;
    }

    // protocol.py's check_logprobs validator, then the engine's cap (--max-logprobs).
    std::optional<HttpReply> readLogprobs(
        const RequestInfo& info, const ServerConfig& config, LogprobAsk& ask) const override
    {
        const bool logprobs = info.body.value(QLatin1String("logprobs")).toBool(false);
        const QJsonValue topValue = info.body.value(QLatin1String("top_logprobs"));
        const int top = topValue.toInt(0);
        const ojson param = m_era == Era::Legacy ? ojson(nullptr) : ojson("top_logprobs");
        if (top < 0 && top != -1)
            return error(400, "`top_logprobs` must be a positive value or -1.", validationType(), param);
        if ((top == -1 || top > 0) && !logprobs)
            return error(
                400, "when using `top_logprobs`, `logprobs` must be set to true.", validationType(), param);
        if (!logprobs)
            return std::nullopt;
        if (top != 0) {
            const int requested = top == -1 ? kVocabulary : top;
            const int allowed = config.maxLogprobs == -1 ? kVocabulary : config.maxLogprobs;
            if (requested > allowed)
                return error(400,
                    "Requested sample logprobs of " + std::to_string(requested)
                        + ", which is greater than max allowed: " + std::to_string(allowed),
                    "BadRequestError", m_era == Era::Legacy ? ojson(nullptr) : ojson("logprobs"));
        }
        ask.wanted = true;
        ask.top = top;
        return std::nullopt;
    }

    // StreamOptions.include_usage defaults to true once stream_options is sent at all.
    bool wantsUsage(const QJsonObject& body) const override
    {
        const QJsonValue options = body.value(QLatin1String("stream_options"));
        return options.isObject() && options.toObject().value(QLatin1String("include_usage")).toBool(true);
    }

    bool headersAtReceipt() const override { return true; } // Starlette starts the response at once

    // Automatic prefix caching hits whole KV blocks only (block_size 16).
    int cachedTokens(std::size_t commonPrefix, int promptTokens) const override
    {
        return DialectWriter::cachedTokens(commonPrefix, promptTokens) / kBlockTokens * kBlockTokens;
    }
    QString toolCallId(int index) const override
    {
        Q_UNUSED(index);
        return QStringLiteral("chatcmpl-tool-") + QString::fromLatin1(randomHex(idHexLength()));
    }

    // A named tool_choice is constrained decoding: the stream ends with "stop".
    QString finishReason(bool truncated, bool toolCalls, const RequestInfo& info) const override
    {
        const bool named = info.body.value(QLatin1String("tool_choice")).isObject();
        return DialectWriter::finishReason(truncated, toolCalls && !named, info);
    }

    ChatContext newChat(
        const RequestInfo& info, const HttpRequest& request, const ServerConfig& config) const override
    {
        ChatContext ctx;
        const QByteArray requestId = request.header("X-Request-Id");
        ctx.completionId
            = QByteArrayLiteral("chatcmpl-") + (requestId.isEmpty() ? randomHex(idHexLength()) : requestId);
        ctx.created = unixTimeSeconds(); // one value for the whole stream
        ctx.model = config.modelId;
        ctx.version = config.version;
        ctx.includeUsage = info.includeUsage;
        return ctx;
    }

    QByteArray roleEvent(const ChatContext& ctx) const override
    {
        ojson delta = {{"role", "assistant"}, {"content", ""}};
        addReasoningNull(delta);
        ojson choice = {{"index", 0}, {"delta", delta}, {"logprobs", nullptr}, {"finish_reason", nullptr}};
        ojson out = head(ctx);
        out["choices"] = ojson::array({choice});
        out["prompt_token_ids"] = nullptr;
        return sseData(compactJson(out));
    }

    QByteArray tokenEvent(const ChatContext& ctx, const TokenEvent& token) const override
    {
        ojson logprobs = nullptr;
        if (ctx.logprobs.wanted && !token.logprobs.empty())
            logprobs = logprobsJson(Dialect::Vllm, token.logprobs, ctx.logprobs);
        return sseData(compactJson(withChoice(ctx, delta(token), nullptr, false, logprobs)));
    }

    QList<QByteArray> finishWrites(const ChatContext& ctx, const FinishInfo& info) const override
    {
        // Without a parser the EOS output's delta is {"content":""}; the tool parser returns {}.
        ojson finalDelta
            = info.finishReason == QLatin1String("tool_calls") ? ojson::object() : ojson {{"content", ""}};
        addReasoningNull(finalDelta);
        ojson finish = withChoice(ctx, finalDelta, str(info.finishReason), true);
        QList<QByteArray> writes;
        if (!info.sendUsage) {
            addFingerprint(finish, ctx);
            writes << sseData(compactJson(finish));
        } else {
            writes << sseData(compactJson(finish)) << sseData(compactJson(usageChunk(ctx, info)));
        }
        writes << sseDone();
        return writes;
    }

    // serving.py: the except block yields json.dumps(error), then falls through to [DONE].
    QList<QByteArray> errorWrites(const ChatContext& ctx, const FinishInfo& info) const override
    {
        Q_UNUSED(ctx);
        Q_UNUSED(info);
        return {sseData(pythonJsonDumps(streamError())), sseDone()};
    }

    HttpReply completion(
        const ChatContext& ctx, const CompletionText& text, const FinishInfo& info) const override
    {
        return jsonReply(200, kJson, compactJson(completionJson(ctx, text, info)));
    }

private:
    int idHexLength() const { return m_era == Era::Current ? 16 : 32; }
    const char* validationType() const { return m_era == Era::Legacy ? "BadRequestError" : "Bad Request"; }

    // ErrorResponse: nested {"error":{…}} since v0.10.1, flat with "object":"error" before.
    ojson errorJson(const std::string& message, const char* type, const ojson& param, int code) const
    {
        if (m_era == Era::Legacy)
            return ojson {
                {"object", "error"}, {"message", message}, {"type", type}, {"param", param}, {"code", code}};
        return ojson {{"error", {{"message", message}, {"type", type}, {"param", param}, {"code", code}}}};
    }
    HttpReply error(int code, const std::string& message, const char* type, const ojson& param) const
    {
        return jsonReply(code, kJson, compactJson(errorJson(message, type, param, code)));
    }

    ojson streamError() const
    {
        ojson inner;
        if (m_era == Era::Legacy)
            inner["object"] = "error";
        inner["message"] = "Internal server error";
        inner["type"] = "InternalServerError";
        inner["param"] = nullptr;
        inner["code"] = 500;
        return ojson {{"error", inner}};
    }

    HttpReply modelNotFound(const QString& model) const
    {
        return error(404, "The model `" + str(model) + "` does not exist.", "NotFoundError",
            m_era == Era::Legacy ? ojson(nullptr) : ojson("model"));
    }

    HttpReply toolsNotEnabled() const
    {
        return error(400,
            "\"auto\" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set",
            "BadRequestError", nullptr);
    }

    HttpReply contextExceeded(const ErrorContext& ctx) const
    {
        const std::string limit = std::to_string(ctx.contextSize);
        const std::string prompt = std::to_string(ctx.promptTokens);
        const std::string output = std::to_string(ctx.maxTokens);
        if (m_era == Era::Legacy) {
            const std::string total = std::to_string(ctx.promptTokens + ctx.maxTokens);
            return error(400,
                "This model's maximum context length is " + limit + " tokens. However, you requested " + total
                    + " tokens (" + prompt + " in the messages, " + output
                    + " in the completion). Please reduce the length of the messages or completion.",
                "BadRequestError", nullptr);
        }
        if (ctx.promptTokens >= ctx.contextSize)
            return error(400,
                "This model's maximum context length is " + limit + " tokens. However, your request has "
                    + prompt
                    + " input tokens. Please reduce the length of the input messages. "
                      "(parameter=input_tokens, value="
                    + prompt + ")",
                "BadRequestError", "input_tokens");
        return error(400,
            "This model's maximum context length is " + limit + " tokens. However, your request has " + prompt
                + " input tokens plus " + output
                + " 'max_tokens'. Please reduce one or the other. (parameter=max_tokens, value=" + output
                + ")",
            "BadRequestError", "max_tokens");
    }

    static bool isAutoToolChoice(const QJsonObject& body)
    {
        const QJsonValue choice = body.value(QLatin1String("tool_choice"));
        return choice.isUndefined() || choice.isNull() || choice.toString() == QLatin1String("auto");
    }

    // v0.11.1–v0.15.x: a validator sets reasoning_content on every delta, so exclude_unset keeps
    // an explicit null wherever no reasoning was streamed.
    void addReasoningNull(ojson& delta) const
    {
        if (m_era != Era::Transitional)
            return;
        ojson out;
        for (auto& [key, value] : delta.items()) {
            if (key == "tool_calls")
                out["reasoning_content"] = nullptr;
            out[key] = value;
        }
        if (!out.contains("reasoning_content"))
            out["reasoning_content"] = nullptr;
        delta = std::move(out);
    }

    ojson delta(const TokenEvent& token) const
    {
        ojson out;
        switch (token.kind) {
        case TokenKind::Reasoning:
            if (m_era != Era::Legacy)
                out["reasoning"] = str(token.text);
            if (m_era != Era::Current)
                out["reasoning_content"] = str(token.text);
            return out;
        case TokenKind::Content:
            out["content"] = str(token.text);
            break;
        case TokenKind::ToolCall: {
            ojson call;
            if (token.opensToolCall) {
                call["id"] = str(token.toolId);
                call["type"] = "function";
                call["index"] = token.toolIndex;
                call["function"] = {{"name", str(token.toolName)}};
            } else {
                call["index"] = token.toolIndex;
                call["function"] = {{"arguments", str(token.text)}};
            }
            out["tool_calls"] = ojson::array({call});
            break;
        }
        }
        addReasoningNull(out);
        return out;
    }

    static ojson head(const ChatContext& ctx)
    {
        ojson out;
        out["id"] = ctx.completionId.toStdString();
        out["object"] = "chat.completion.chunk";
        out["created"] = ctx.created;
        out["model"] = str(ctx.model);
        return out;
    }

    static ojson withChoice(
        const ChatContext& ctx, ojson delta, const ojson& finishReason, bool final, ojson logprobs = nullptr)
    {
        ojson choice;
        choice["index"] = 0;
        choice["delta"] = std::move(delta);
        choice["logprobs"] = std::move(logprobs);
        choice["finish_reason"] = finishReason;
        if (final)
            choice["stop_reason"] = nullptr;
        choice["token_ids"] = nullptr;
        ojson out = head(ctx);
        out["choices"] = ojson::array({choice});
        return out;
    }

    // --enable-prompt-tokens-details: current main reports any count (`num_cached_tokens is not
    // None`), older builds only a non-zero one (`and num_cached_tokens`).
    bool reportsCachedTokens(const FinishInfo& info) const
    {
        return info.reportCachedTokens && (m_era == Era::Current || info.cachedTokens > 0);
    }

    // Current main stamps system_fingerprint on the terminal chunk only; older builds never.
    void addFingerprint(ojson& chunk, const ChatContext& ctx) const
    {
        if (m_era == Era::Current)
            chunk["system_fingerprint"] = "vllm-" + str(ctx.version);
    }

    // Dumped with exclude_none: no nulls at all.
    ojson usageChunk(const ChatContext& ctx, const FinishInfo& info) const
    {
        ojson usage = {{"prompt_tokens", info.promptTokens},
            {"total_tokens", info.promptTokens + info.completionTokens},
            {"completion_tokens", info.completionTokens}};
        if (reportsCachedTokens(info))
            usage["prompt_tokens_details"] = {{"cached_tokens", info.cachedTokens}};
        if (m_era == Era::Current && ctx.reasoningParsed)
            usage["completion_tokens_details"] = {{"reasoning_tokens", info.reasoningTokens}};
        ojson out = head(ctx);
        out["choices"] = ojson::array();
        out["usage"] = usage;
        addFingerprint(out, ctx);
        return out;
    }

    ojson completionJson(const ChatContext& ctx, const CompletionText& text, const FinishInfo& info) const
    {
        ojson calls = ojson::array();
        for (const ToolCallOut& call : text.toolCalls)
            calls.push_back({{"id", str(call.id)}, {"type", "function"},
                {"function", {{"name", str(call.name)}, {"arguments", str(call.arguments)}}}});
        const ojson reasoning = text.reasoning.isEmpty() ? ojson(nullptr) : ojson(str(text.reasoning));
        ojson message;
        message["role"] = "assistant";
        message["content"]
            = text.content.isEmpty() && !calls.empty() ? ojson(nullptr) : ojson(str(text.content));
        message["refusal"] = nullptr;
        message["annotations"] = nullptr;
        message["audio"] = nullptr;
        message["function_call"] = nullptr;
        if (m_era != Era::Current || !calls.empty()) // newer builds drop an empty list
            message["tool_calls"] = calls;
        if (m_era != Era::Legacy)
            message["reasoning"] = reasoning;
        if (m_era != Era::Current)
            message["reasoning_content"] = reasoning;
        const ojson logprobs
            = ctx.logprobs.wanted ? logprobsJson(Dialect::Vllm, text.logprobs, ctx.logprobs) : ojson(nullptr);
        ojson choice = {{"index", 0}, {"message", message}, {"logprobs", logprobs},
            {"finish_reason", str(info.finishReason)}, {"stop_reason", nullptr}, {"token_ids", nullptr}};
        ojson out;
        out["id"] = ctx.completionId.toStdString();
        out["object"] = "chat.completion";
        out["created"] = ctx.created;
        out["model"] = str(ctx.model);
        out["choices"] = ojson::array({choice});
        out["service_tier"] = nullptr;
        out["system_fingerprint"]
            = m_era == Era::Current ? ojson("vllm-" + str(ctx.version)) : ojson(nullptr);
        out["usage"] = {{"prompt_tokens", info.promptTokens},
            {"total_tokens", info.promptTokens + info.completionTokens},
            {"completion_tokens", info.completionTokens},
            {"prompt_tokens_details",
                reportsCachedTokens(info) ? ojson {{"cached_tokens", info.cachedTokens}} : ojson(nullptr)}};
        out["prompt_logprobs"] = nullptr;
        out["prompt_token_ids"] = nullptr;
        out["kv_transfer_params"] = nullptr;
        return out;
    }

    ojson models(const ServerConfig& config) const
    {
        const qint64 now = unixTimeSeconds();
        const ojson permission = {{"id", "modelperm-" + randomHex(32).toStdString()},
            {"object", "model_permission"}, {"created", now}, {"allow_create_engine", false},
            {"allow_sampling", true}, {"allow_logprobs", true}, {"allow_search_indices", false},
            {"allow_view", true}, {"allow_fine_tuning", false}, {"organization", "*"}, {"group", nullptr},
            {"is_blocking", false}};
        const ojson card = {{"id", str(config.modelId)}, {"object", "model"}, {"created", now},
            {"owned_by", "vllm"}, {"root", str(config.modelId)}, {"parent", nullptr},
            {"max_model_len", config.contextSize}, {"permission", ojson::array({permission})}};
        return ojson {{"object", "list"}, {"data", ojson::array({card})}};
    }
};

} // namespace

std::unique_ptr<DialectWriter> makeVllmWriter(Era era)
{
    return std::make_unique<VllmWriter>(era);
}

} // namespace qs::emu::detail
