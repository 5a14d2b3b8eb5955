// SPDX-License-Identifier: MIT
// SGLang (FastAPI/uvicorn, msgspec fast path and pydantic path): doc §2.3, §5, §6.3, §6.4, §7.

#include "tests/support/EmulatorDialect.h"
#include "tests/support/EmulatorJson.h"
#include "tests/support/HttpRequestReader.h"

#include <QJsonObject>
#include <QJsonValue>
#include <algorithm>

namespace qs::emu::detail {

namespace {

const QByteArray kJson = QByteArrayLiteral("application/json");
constexpr int kEosTokenId = 151645; // Qwen's <|im_end|>: matched_stop of a natural stop

class SglangWriter final : public DialectWriter {
public:
    explicit SglangWriter(Era era)
        : DialectWriter(era)
    {
    }

    HttpFlavor flavor() const override { return HttpFlavor::Uvicorn; }
    QByteArray streamContentType() const override
    {
        return QByteArrayLiteral("text/event-stream; charset=utf-8");
    }

    // add_api_key_middleware lets /health* and /metrics through, nothing else.
    bool isPublicPath(const QByteArray& path) const override
    {
        return path.startsWith("/health") || path.startsWith("/metrics");
    }

    HttpReply unauthorized() const override { return fastApiUnauthorized(); }
    HttpReply routeNotFound(bool methodMismatch) const override
    {
        return fastApiRouteNotFound(methodMismatch);
    }

    std::optional<HttpReply> infoRoute(const QByteArray& path, const ServerConfig& config) const override
    {
        if (path == "/health")
            return HttpReply {200, {}, {}}; // no generation check by default, empty body
        if (path == "/v1/models")
            return jsonReply(200, kJson, compactJson(models(config)));
        if (path == "/server_info" || path == "/get_server_info")
            return jsonReply(200, kJson, compactJson(serverInfo(config)));
        if (path == "/model_info" || path == "/get_model_info")
            return jsonReply(200, kJson, compactJson(modelInfo(config)));
        return std::nullopt;
    }

    bool isHealthGenerate(const QByteArray& path) const override { return path == "/health_generate"; }

    HttpReply invalidJson(const QByteArray& parserMessage) const override
    {
        Q_UNUSED(parserMessage);
        return error(400,
            "[{'type': 'json_invalid', 'loc': ('body', 0), 'msg': 'JSON decode error', 'input': {}, "
            "'ctx': {'error': 'Expecting value'}}]",
            "Bad Request");
    }

    std::optional<HttpReply> httpError(HttpErrorKind kind, const ErrorContext& ctx) const override
    {
        switch (kind) {
        case HttpErrorKind::ContextExceeded:
            return contextExceeded(ctx);
        // SGLang echoes any model name; a 404 in its own flat shape is the closest failure.
        case HttpErrorKind::ModelNotFound:
            return error(404,
                "The model `" + str(ctx.requestModel.isEmpty() ? ctx.modelId : ctx.requestModel)
                    + "` does not exist.",
                "NotFoundError");
        case HttpErrorKind::ToolsNotEnabled:
            return std::nullopt; // markup in content instead
        case HttpErrorKind::Unauthorized:
            return unauthorized();
        case HttpErrorKind::ServerError:
            return error(500, "Internal server error: CUDA error: an illegal memory access was encountered",
                "InternalServerError");
        case HttpErrorKind::Loading:
            return error(503, "The server is not ready yet.", "Service Unavailable");
        case HttpErrorKind::BadRequest:
            return error(400,
                "[{'type': 'missing', 'loc': ('body', 'messages'), 'msg': 'Field required', 'input': "
                "{}}]",
                "Bad Request");
        }
        return std::nullopt;
    }

    // The tokenizer manager's ValueError surfaces as HTTP 400 thanks to the kick-start.
    std::optional<HttpReply> preflight(
        const RequestInfo& info, const ErrorContext& ctx, const ServerConfig& config) const override
    {
        Q_UNUSED(config);
        if (info.promptTokens >= ctx.contextSize || info.promptTokens + ctx.maxTokens > ctx.contextSize)
            return contextExceeded(ctx);
        return std::nullopt;
    }

    // No validator: top_logprobs without logprobs is ignored, and there is no cap.
    std::optional<HttpReply> readLogprobs(
        const RequestInfo& info, const ServerConfig& config, LogprobAsk& ask) const override
    {
        Q_UNUSED(config);
        ask.wanted = info.body.value(QLatin1String("logprobs")).toBool(false);
        ask.top = ask.wanted ? std::max(0, info.body.value(QLatin1String("top_logprobs")).toInt(0)) : 0;
        return std::nullopt;
    }

    bool wantsUsage(const QJsonObject& body) const override
    {
        return body.value(QLatin1String("stream_options"))
            .toObject()
            .value(QLatin1String("include_usage"))
            .toBool(false);
    }

    bool headersAtReceipt() const override { return false; } // the first chunk is pulled first
    bool toolsAsMarkup(const ServerConfig& config) const override { return !config.toolParser; }
    QString toolCallId(int index) const override
    {
        Q_UNUSED(index);
        return QStringLiteral("call_") + QString::fromLatin1(randomHex(24));
    }

    ChatContext newChat(
        const RequestInfo& info, const HttpRequest& request, const ServerConfig& config) const override
    {
        Q_UNUSED(request);
        ChatContext ctx;
        const QString rid = info.body.value(QLatin1String("rid")).toString();
        ctx.completionId = rid.isEmpty() ? randomHex(32) : rid.toUtf8();
        ctx.created = unixTimeSeconds();
        // The request's model is echoed, unvalidated; "default" when none was sent.
        const QString model = info.body.value(QLatin1String("model")).toString();
        ctx.model = model.isEmpty() ? QStringLiteral("default") : model;
        ctx.version = config.version;
        ctx.includeUsage = info.includeUsage;
        ctx.toolParserActive = info.hasTools && config.toolParser;
        return ctx;
    }

    QByteArray roleEvent(const ChatContext& ctx) const override
    {
        if (legacy())
            return sseData(
                compactJson(pydanticChunk(ctx, "assistant", "", nullptr, nullptr, nullptr, nullptr)));
        return sseData(
            compactJson(msgspecChunk(ctx, ojson {{"role", "assistant"}, {"content", ""}}, nullptr, nullptr)));
    }

    QByteArray tokenEvent(const ChatContext& ctx, const TokenEvent& token) const override
    {
        ojson out = tokenChunk(ctx, token);
        if (ctx.logprobs.wanted && !token.logprobs.empty()) // the key is there already: null
            out["choices"][0]["logprobs"] = logprobsJson(Dialect::Sglang, token.logprobs, ctx.logprobs);
        return sseData(compactJson(out));
    }

    QList<QByteArray> finishWrites(const ChatContext& ctx, const FinishInfo& info) const override
    {
        QList<QByteArray> writes {sseData(compactJson(finishChunk(ctx, info)))};
        if (info.sendUsage)
            writes << sseData(compactJson(usageChunk(ctx, info)));
        writes << sseDone();
        return writes;
    }

    // After the error chunk the loop ends; the usage chunk (if asked for) and [DONE] follow.
    QList<QByteArray> errorWrites(const ChatContext& ctx, const FinishInfo& info) const override
    {
        const ojson error = {{"error",
            {{"object", "error"}, {"message", "Generation aborted."}, {"type", "SERVICE_UNAVAILABLE"},
                {"param", nullptr}, {"code", 503}}}};
        QList<QByteArray> writes {sseData(pythonJsonDumps(error))};
        if (info.sendUsage)
            writes << sseData(compactJson(usageChunk(ctx, info)));
        writes << sseDone();
        return writes;
    }

    HttpReply completion(
        const ChatContext& ctx, const CompletionText& text, const FinishInfo& info) const override
    {
        // Starlette's json.dumps refuses -inf ("Out of range float values are not JSON
        // compliant"); the ServerErrorMiddleware answers for it.
        if (ctx.logprobs.wanted && needsNonFiniteJson(text.logprobs, ctx.logprobs))
            return HttpReply {500, QByteArrayLiteral("text/plain; charset=utf-8"),
                QByteArrayLiteral("Internal Server Error")};
        ojson calls = nullptr;
        if (!text.toolCalls.empty()) {
            calls = ojson::array();
            int index = 0;
            for (const ToolCallOut& call : text.toolCalls)
                calls.push_back({{"id", str(call.id)}, {"index", index++}, {"type", "function"},
                    {"function", {{"name", str(call.name)}, {"arguments", str(call.arguments)}}}});
        }
        ojson message;
        message["role"] = "assistant";
        message["content"] = str(text.content); // "" rather than null
        message["reasoning_content"] = text.reasoning.isEmpty() ? ojson(nullptr) : ojson(str(text.reasoning));
        message["tool_calls"] = calls;
        ojson choice;
        choice["index"] = 0;
        choice["message"] = message;
        choice["logprobs"] = ctx.logprobs.wanted ? logprobsJson(Dialect::Sglang, text.logprobs, ctx.logprobs)
                                                 : ojson(nullptr);
        choice["finish_reason"] = str(info.finishReason);
        choice["matched_stop"] = matchedStop(info);
        ojson out;
        out["id"] = ctx.completionId.toStdString();
        out["object"] = "chat.completion";
        out["created"] = ctx.created;
        out["model"] = str(ctx.model);
        out["choices"] = ojson::array({choice});
        out["usage"] = usageJson(info);
        out["metadata"] = {{"weight_version", "default"}};
        return jsonReply(200, kJson, compactJson(out));
    }

private:
    bool legacy() const { return m_era == Era::Legacy; }

    ojson tokenChunk(const ChatContext& ctx, const TokenEvent& token) const
    {
        switch (token.kind) {
        case TokenKind::Reasoning:
            if (legacy())
                return pydanticChunk(ctx, nullptr, nullptr, str(token.text), nullptr, nullptr, nullptr);
            return msgspecChunk(ctx, ojson {{"reasoning_content", str(token.text)}}, nullptr, nullptr);
        case TokenKind::Content:
            // Content produced while a tool parser is active goes through pydantic as well.
            if (legacy() || ctx.toolParserActive)
                return pydanticChunk(ctx, nullptr, str(token.text), nullptr, nullptr, nullptr, nullptr);
            return msgspecChunk(ctx, ojson {{"content", str(token.text)}}, nullptr, nullptr);
        case TokenKind::ToolCall:
            break;
        }
        ojson call;
        call["id"] = token.opensToolCall ? ojson(str(token.toolId)) : ojson(nullptr);
        call["index"] = token.toolIndex;
        call["type"] = "function";
        call["function"] = {{"name", token.opensToolCall ? ojson(str(token.toolName)) : ojson(nullptr)},
            {"arguments", str(token.text)}};
        return pydanticChunk(ctx, nullptr, nullptr, nullptr, ojson::array({call}), nullptr, nullptr);
    }

    // ErrorResponse is flat (ORJSON): object, message, type, param, code.
    static HttpReply error(int code, const std::string& message, const char* type)
    {
        return jsonReply(code, kJson,
            compactJson(ojson {{"object", "error"}, {"message", message}, {"type", type}, {"param", nullptr},
                {"code", code}}));
    }

    static HttpReply contextExceeded(const ErrorContext& ctx)
    {
        const std::string limit = std::to_string(ctx.contextSize);
        const std::string prompt = std::to_string(ctx.promptTokens);
        if (ctx.promptTokens >= ctx.contextSize)
            return error(400,
                "The input (" + prompt + " tokens) is longer than the model's context length (" + limit
                    + " tokens).",
                "BadRequestError");
        return error(400,
            "Requested token count exceeds the model's maximum context length of " + limit
                + " tokens. You requested a total of " + std::to_string(ctx.promptTokens + ctx.maxTokens)
                + " tokens: " + prompt + " tokens from the input messages and "
                + std::to_string(ctx.maxTokens)
                + " tokens for the completion. Please reduce the number of tokens in the input messages or "
                  "the completion to fit within the limit.",
            "BadRequestError");
    }

    static ojson head(const ChatContext& ctx)
    {
        ojson out;
        out["id"] = ctx.completionId.toStdString();
        out["object"] = "chat.completion.chunk";
        out["created"] = unixTimeSeconds(); // int(time.time()) per chunk
        out["model"] = str(ctx.model);
        return out;
    }

    static ojson choice(ojson delta, const ojson& finishReason, const ojson& matchedStop)
    {
        ojson out;
        out["index"] = 0;
        out["delta"] = std::move(delta);
        out["logprobs"] = nullptr;
        out["finish_reason"] = finishReason;
        out["matched_stop"] = matchedStop;
        return out;
    }

    // msgspec StreamChunk/StreamDelta: nulls left out, no `usage` key.
    static ojson msgspecChunk(
        const ChatContext& ctx, ojson delta, const ojson& finishReason, const ojson& matchedStop)
    {
        ojson out = head(ctx);
        out["choices"] = ojson::array({choice(std::move(delta), finishReason, matchedStop)});
        return out;
    }

    // pydantic ChatCompletionStreamResponse: every delta key, explicit nulls, "usage":null.
    static ojson pydanticChunk(const ChatContext& ctx, const ojson& role, const ojson& content,
        const ojson& reasoning, const ojson& toolCalls, const ojson& finishReason, const ojson& matchedStop)
    {
        const ojson delta = {{"role", role}, {"content", content}, {"reasoning_content", reasoning},
            {"tool_calls", toolCalls}};
        ojson out = head(ctx);
        out["choices"] = ojson::array({choice(delta, finishReason, matchedStop)});
        out["usage"] = nullptr;
        return out;
    }

    static ojson matchedStop(const FinishInfo& info)
    {
        return info.finishReason == QLatin1String("stop") ? ojson(kEosTokenId) : ojson(nullptr);
    }

    ojson finishChunk(const ChatContext& ctx, const FinishInfo& info) const
    {
        const std::string reason = str(info.finishReason);
        if (legacy())
            return pydanticChunk(ctx, nullptr, nullptr, nullptr, nullptr, reason, matchedStop(info));
        return msgspecChunk(ctx, ojson::object(), reason, matchedStop(info));
    }

    // --enable-cache-report: {"cached_tokens": N} only when N > 0 (UsageProcessor's
    // _details_if_cached), null otherwise.
    static ojson usageJson(const FinishInfo& info)
    {
        const bool details = info.reportCachedTokens && info.cachedTokens > 0;
        return ojson {{"prompt_tokens", info.promptTokens},
            {"total_tokens", info.promptTokens + info.completionTokens},
            {"completion_tokens", info.completionTokens},
            {"prompt_tokens_details",
                details ? ojson {{"cached_tokens", info.cachedTokens}} : ojson(nullptr)},
            {"reasoning_tokens", info.reasoningTokens}};
    }

    static ojson usageChunk(const ChatContext& ctx, const FinishInfo& info)
    {
        ojson out = head(ctx);
        out["choices"] = ojson::array();
        out["usage"] = usageJson(info);
        return out;
    }

    static ojson models(const ServerConfig& config)
    {
        const ojson card = {{"id", str(config.modelId)}, {"object", "model"}, {"created", unixTimeSeconds()},
            {"owned_by", "sglang"}, {"root", str(config.modelId)}, {"parent", nullptr},
            {"max_model_len", config.contextSize}};
        return ojson {{"object", "list"}, {"data", ojson::array({card})}};
    }

    // dataclasses.asdict(server_args) (a subset, in field order) + scheduler info + version.
    static ojson serverInfo(const ServerConfig& config)
    {
        const std::string model = str(config.modelId);
        ojson out;
        out["model_path"] = model;
        out["tokenizer_path"] = model;
        out["tokenizer_mode"] = "auto";
        out["host"] = "127.0.0.1";
        out["dtype"] = "auto";
        out["context_length"] = config.contextSize;
        out["served_model_name"] = model;
        out["tp_size"] = 1;
        out["dp_size"] = 1;
        out["mem_fraction_static"] = 0.88;
        out["max_running_requests"] = nullptr;
        out["chunked_prefill_size"] = 8192;
        out["api_key"] = nullptr;
        out["enable_metrics"] = false;
        out["tool_call_parser"] = config.toolParser ? ojson("qwen25") : ojson(nullptr);
        out["reasoning_parser"]
            = config.script.reasoningMode == ReasoningMode::Parsed ? ojson("qwen3") : ojson(nullptr);
        out["max_total_num_tokens"] = std::max(config.contextSize, 1) * 8;
        out["max_req_input_len"] = std::max(config.contextSize - 5, 1);
        out["internal_states"]
            = ojson::array({ojson {{"last_gen_throughput", 0.0}, {"memory_usage", {{"weight", 5.06}}}}});
        out["version"] = str(config.version);
        return out;
    }

    static ojson modelInfo(const ServerConfig& config)
    {
        return ojson {{"model_path", str(config.modelId)}, {"tokenizer_path", str(config.modelId)},
            {"is_generation", true}, {"preferred_sampling_params", nullptr}, {"weight_version", "default"},
            {"has_image_understanding", false}, {"has_audio_understanding", false}, {"model_type", "qwen3"},
            {"architectures", ojson::array({"Qwen3ForCausalLM"})}};
    }
};

} // namespace

std::unique_ptr<DialectWriter> makeSglangWriter(Era era)
{
    return std::make_unique<SglangWriter>(era);
}

} // namespace qs::emu::detail
