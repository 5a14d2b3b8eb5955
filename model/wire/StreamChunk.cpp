// SPDX-License-Identifier: MIT
#include "model/wire/StreamChunk.h"

#include "model/wire/ByteQuote.h"
#include "model/wire/StreamChunkFast.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <string_view>

namespace qs {

namespace {

using Json = nlohmann::json;

// All lookups go through these helpers: they check types, so a field of the wrong type reads
// as missing instead of throwing (nlohmann's get<> throws on a type mismatch).

const Json* member(const Json& object, std::string_view key)
{
    if (!object.is_object())
        return nullptr;
    const auto it = object.find(key);
    return it == object.end() ? nullptr : &*it;
}

const Json* objectMember(const Json& object, std::string_view key)
{
    const Json* v = member(object, key);
    return v && v->is_object() ? v : nullptr;
}

QString toQString(const Json* v)
{
    if (!v || !v->is_string())
        return {};
    const auto& s = v->get_ref<const Json::string_t&>();
    return QString::fromUtf8(s.data(), qsizetype(s.size()));
}

QString stringMember(const Json& object, std::string_view key)
{
    return toQString(member(object, key));
}

std::optional<qint64> toInt(const Json* v)
{
    if (!v)
        return std::nullopt;
    if (v->is_number_unsigned()) {
        const auto u = v->get<Json::number_unsigned_t>();
        if (u > Json::number_unsigned_t(std::numeric_limits<qint64>::max()))
            return std::nullopt;
        return qint64(u);
    }
    if (v->is_number_integer())
        return qint64(v->get<Json::number_integer_t>());
    if (v->is_number_float()) {
        // Some servers serialise counts as 12.0; accept them when they are whole numbers.
        const double d = v->get<double>();
        if (std::isfinite(d) && d == std::trunc(d) && std::fabs(d) < 9.0e18)
            return qint64(d);
    }
    return std::nullopt;
}

std::optional<qint64> intMember(const Json& object, std::string_view key)
{
    return toInt(member(object, key));
}

std::optional<double> doubleMember(const Json& object, std::string_view key)
{
    const Json* v = member(object, key);
    if (!v || !v->is_number())
        return std::nullopt;
    return v->get<double>();
}

/// A single-line excerpt of a payload for error messages: at most 80 UTF-16 units.
QString excerpt(QByteArrayView data)
{
    constexpr qsizetype kMaxChars = 80;
    // 4 bytes per character is the UTF-8 worst case, so this is always enough text.
    QString text = QString::fromUtf8(data.first(std::min<qsizetype>(data.size(), kMaxChars * 4)));
    for (QChar& c : text) {
        if (c.unicode() < 0x20)
            c = u' ';
    }
    if (text.size() > kMaxChars) {
        text.truncate(kMaxChars - 1);
        if (text.back().isHighSurrogate())
            text.chop(1);
        text.append(QChar(0x2026)); // …
    }
    return text;
}

StreamChunk malformed(QString reason, QByteArrayView payload)
{
    StreamChunk chunk;
    chunk.kind = StreamChunk::Kind::Malformed;
    chunk.malformedReason = std::move(reason);
    chunk.malformedQuote = quoteBytes(payload);
    return chunk;
}

const char* jsonTypeName(const Json& v)
{
    return v.type_name(); // "array", "string", "number", ...
}

/// Reads the fields of an error object (the inner object of the nested shape, or the whole
/// body of the flat shape).
ServerError readErrorFields(const Json& e)
{
    ServerError err;
    if (const Json* code = member(e, "code")) {
        if (const auto n = toInt(code);
            n && *n >= std::numeric_limits<int>::min() && *n <= std::numeric_limits<int>::max())
            err.code = int(*n);
        else if (code->is_string())
            err.codeText = toQString(code);
    }
    err.type = stringMember(e, "type");
    if (const Json* message = member(e, "message")) {
        if (message->is_string())
            err.message = toQString(message);
        else if (!message->is_null()) // e.g. a list of validation errors: keep it readable
            err.message
                = QString::fromStdString(message->dump(-1, ' ', false, Json::error_handler_t::replace));
    }
    err.param = stringMember(e, "param");
    err.nPromptTokens = intMember(e, "n_prompt_tokens");
    err.nCtx = intMember(e, "n_ctx");
    return err;
}

/// The error carried by a top-level object, in either shape; nothing when it is not one.
std::optional<ServerError> errorFromObject(const Json& root)
{
    if (const Json* e = member(root, "error")) {
        if (e->is_object()) {
            ServerError err = readErrorFields(*e);
            // llama-server puts n_prompt_tokens/n_ctx inside the error; accept them outside too.
            if (!err.nPromptTokens)
                err.nPromptTokens = intMember(root, "n_prompt_tokens");
            if (!err.nCtx)
                err.nCtx = intMember(root, "n_ctx");
            return err;
        }
        if (e->is_string()) { // some proxies: {"error":"text"}
            ServerError err;
            err.message = toQString(e);
            return err;
        }
    }
    if (const Json* object = member(root, "object");
        object && object->is_string() && object->get_ref<const Json::string_t&>() == "error")
        return readErrorFields(root);
    return std::nullopt;
}

TokenUsage readUsage(const Json& u)
{
    TokenUsage usage;
    usage.promptTokens = intMember(u, "prompt_tokens");
    usage.completionTokens = intMember(u, "completion_tokens");
    usage.totalTokens = intMember(u, "total_tokens");
    // vLLM nests reasoning tokens in completion_tokens_details; SGLang puts them top-level.
    if (const Json* details = objectMember(u, "completion_tokens_details"))
        usage.reasoningTokens = intMember(*details, "reasoning_tokens");
    if (!usage.reasoningTokens)
        usage.reasoningTokens = intMember(u, "reasoning_tokens");
    if (const Json* details = objectMember(u, "prompt_tokens_details"))
        usage.cachedPromptTokens = intMember(*details, "cached_tokens");
    return usage;
}

ServerTimings readTimings(const Json& t)
{
    ServerTimings timings;
    timings.cacheN = intMember(t, "cache_n");
    timings.promptN = intMember(t, "prompt_n");
    timings.promptMs = doubleMember(t, "prompt_ms");
    timings.promptPerTokenMs = doubleMember(t, "prompt_per_token_ms");
    timings.promptPerSecond = doubleMember(t, "prompt_per_second");
    timings.predictedN = intMember(t, "predicted_n");
    timings.predictedMs = doubleMember(t, "predicted_ms");
    timings.predictedPerTokenMs = doubleMember(t, "predicted_per_token_ms");
    timings.predictedPerSecond = doubleMember(t, "predicted_per_second");
    timings.draftN = intMember(t, "draft_n");
    timings.draftNAccepted = intMember(t, "draft_n_accepted");
    return timings;
}

void readToolCalls(const Json& array, std::vector<ToolCallFragment>& out)
{
    int position = 0;
    for (const Json& call : array) {
        if (!call.is_object()) {
            ++position;
            continue;
        }
        ToolCallFragment fragment;
        const auto index = intMember(call, "index");
        fragment.index
            = index && *index >= 0 && *index <= std::numeric_limits<int>::max() ? int(*index) : position;
        fragment.id = stringMember(call, "id");
        fragment.type = stringMember(call, "type");
        if (const Json* function = objectMember(call, "function")) {
            fragment.name = stringMember(*function, "name");
            if (const Json* arguments = member(*function, "arguments")) {
                if (arguments->is_string())
                    fragment.arguments = toQString(arguments);
                else if (arguments->is_object()) // non-standard: an object instead of its text
                    fragment.arguments = QString::fromStdString(
                        arguments->dump(-1, ' ', false, Json::error_handler_t::replace));
            }
        }
        out.push_back(std::move(fragment));
        ++position;
    }
}

/// Choice 0 of a chunk: the element whose `index` is 0 (or that has no index).
const Json* firstChoice(const Json& choices)
{
    for (const Json& choice : choices) {
        if (!choice.is_object())
            continue;
        const auto index = intMember(choice, "index");
        if (!index || *index == 0)
            return &choice;
    }
    return nullptr;
}

void readDelta(const Json& delta, StreamChunk& chunk)
{
    chunk.role = stringMember(delta, "role");
    chunk.content = stringMember(delta, "content");

    // vLLM 0.11.1-0.15.x sends the same text under both keys: take it once, from `reasoning`.
    QString reasoning = stringMember(delta, "reasoning");
    QString reasoningContent = stringMember(delta, "reasoning_content");
    if (!reasoning.isEmpty()) {
        chunk.reasoningField = reasoningContent.isEmpty() ? ReasoningField::Reasoning : ReasoningField::Both;
        chunk.reasoning = std::move(reasoning);
    } else if (!reasoningContent.isEmpty()) {
        chunk.reasoningField = ReasoningField::ReasoningContent;
        chunk.reasoning = std::move(reasoningContent);
    }

    if (const Json* toolCalls = member(delta, "tool_calls"); toolCalls && toolCalls->is_array())
        readToolCalls(*toolCalls, chunk.toolCalls);
}

// ---- logprobs (reference Part 2) ---------------------------------------------------------------

/// A logprob as sent: a number (normalized: the servers' sentinels become −∞), `null` (SGLang's
/// −∞, and `-Infinity` after withStandardLiterals) as −∞; anything else (a string, NaN, +∞) is
/// unreadable. Counts what it reads as −∞ or cannot read.
std::optional<double> readLogprobValue(const Json& v, LogprobStream& counts)
{
    if (v.is_null()) {
        ++counts.impossible;
        return -std::numeric_limits<double>::infinity();
    }
    if (v.is_number()) {
        const double raw = v.get<double>();
        if (!std::isnan(raw) && !(std::isinf(raw) && raw > 0)) {
            const double lp = normalizedLogprob(raw);
            if (std::isinf(lp))
                ++counts.impossible;
            return lp;
        }
    }
    ++counts.unreadable;
    return std::nullopt;
}

/// `bytes` as sent: an array of integers 0…255; nothing when missing, null or not such an array.
std::optional<QByteArray> readBytes(const Json* v)
{
    if (!v || !v->is_array())
        return std::nullopt;
    QByteArray bytes;
    bytes.reserve(qsizetype(v->size()));
    for (const Json& b : *v) {
        const auto n = toInt(&b);
        if (!n || *n < 0 || *n > 255)
            return std::nullopt;
        bytes.append(char(static_cast<unsigned char>(*n)));
    }
    return bytes;
}

/// One entry of a `top_logprobs` list; nothing (counted unreadable) without a readable logprob.
std::optional<TokenCandidate> readCandidate(const Json& c, LogprobStream& counts)
{
    const Json* logprob = member(c, "logprob");
    if (!logprob) {
        ++counts.unreadable;
        return std::nullopt;
    }
    const std::optional<double> value = readLogprobValue(*logprob, counts);
    if (!value)
        return std::nullopt;
    TokenCandidate candidate;
    candidate.token = stringMember(c, "token");
    candidate.bytes = readBytes(member(c, "bytes")).value_or(candidate.token.toUtf8());
    candidate.logprob = *value;
    candidate.id = intMember(c, "id");
    return candidate;
}

/// One entry of `logprobs.content`, in any dialect: llama-server's with `id`s, vLLM's with the
/// chosen token first in its top list, SGLang's with `null`s. A non-object entry is dropped
/// (counted unreadable): it has no token to align.
void readLogprobEntry(const Json& e, LogprobStream& out)
{
    if (!e.is_object()) {
        ++out.unreadable;
        return;
    }
    TokenLogprob token;
    token.token = stringMember(e, "token");
    token.bytes = readBytes(member(e, "bytes")).value_or(token.token.toUtf8());
    if (const Json* logprob = member(e, "logprob"))
        token.logprob = readLogprobValue(*logprob, out);
    token.id = intMember(e, "id");
    if (const Json* top = member(e, "top_logprobs"); top && top->is_array()) {
        token.hasTop = true;
        for (const Json& c : *top) {
            if (token.top.size() >= MaxTopCandidates)
                break; // more than anyone asks for: a vocabulary dump, not a top list
            if (auto candidate = readCandidate(c, out))
                token.top.push_back(std::move(*candidate));
        }
    }
    out.tokens.push_back(std::move(token));
}

/// `"logprobs": {"content": [...]}` of a choice; `"logprobs": null` (what servers send when
/// none were asked for) and a missing or non-array `content` mean none in this chunk.
void readLogprobs(const Json& choice, LogprobStream& out)
{
    const Json* logprobs = objectMember(choice, "logprobs");
    const Json* content = logprobs ? member(*logprobs, "content") : nullptr;
    if (!content || !content->is_array())
        return;
    out.chunks = 1;
    for (const Json& e : *content)
        readLogprobEntry(e, out);
}

/// The payload with Python's non-standard number literals (json.dumps with allow_nan) replaced
/// outside strings: `-Infinity` by null, `Infinity` and `NaN` by strings. Nothing when there
/// were none, so the payload is broken for another reason. One linear pass; the output is at
/// most 5/3 of the input.
std::optional<QByteArray> withStandardLiterals(QByteArrayView in)
{
    QByteArray out;
    out.reserve(in.size() + 16);
    bool inString = false;
    bool escaped = false;
    bool changed = false;
    for (qsizetype i = 0; i < in.size(); ++i) {
        const char c = in[i];
        if (inString) {
            out.append(c);
            if (escaped)
                escaped = false;
            else if (c == '\\')
                escaped = true;
            else if (c == '"')
                inString = false;
            continue;
        }
        if (c == '"') {
            inString = true;
            out.append(c);
            continue;
        }
        const QByteArrayView rest = in.sliced(i);
        const auto replace = [&](QByteArrayView literal, const char* with) {
            if (!rest.startsWith(literal))
                return false;
            out.append(with);
            i += literal.size() - 1;
            changed = true;
            return true;
        };
        if (replace("-Infinity", "null") || replace("Infinity", "\"Infinity\"") || replace("NaN", "\"NaN\""))
            continue;
        out.append(c);
    }
    if (!changed)
        return std::nullopt;
    return out;
}

void readChoice(const Json& choice, StreamChunk& chunk)
{
    // `message` is what a non-streaming body has; reading it costs nothing and helps with
    // proxies that answer a streaming request in one piece.
    const Json* delta = objectMember(choice, "delta");
    if (!delta)
        delta = objectMember(choice, "message");
    if (delta)
        readDelta(*delta, chunk);
    chunk.finishReason = stringMember(choice, "finish_reason");
    readLogprobs(choice, chunk.logprobs);
}

bool isDoneSentinel(QByteArrayView trimmed)
{
    return trimmed == QByteArrayView("[DONE]");
}

} // namespace

bool StreamChunk::carriesVisible() const
{
    if (!content.isEmpty())
        return true;
    return std::any_of(toolCalls.begin(), toolCalls.end(),
        [](const ToolCallFragment& f) { return !f.name.isEmpty() || !f.arguments.isEmpty(); });
}

bool StreamChunk::carriesToken() const
{
    return !reasoning.isEmpty() || carriesVisible();
}

std::optional<ServerError> parseServerError(QByteArrayView json)
{
    const Json root = Json::parse(json.begin(), json.end(), nullptr, false);
    if (root.is_discarded() || !root.is_object())
        return std::nullopt;
    return errorFromObject(root);
}

StreamChunk decodeChunk(QByteArrayView data)
{
    const QByteArrayView trimmed = data.trimmed();
    if (!trimmed.isEmpty() && !isDoneSentinel(trimmed))
        if (std::optional<StreamChunk> chunk = decodeChunkFast(trimmed))
            return std::move(*chunk);
    return decodeChunkWithDom(data);
}

StreamChunk decodeChunkWithDom(QByteArrayView data)
{
    const QByteArrayView trimmed = data.trimmed();
    if (trimmed.isEmpty())
        return malformed(QStringLiteral("empty data payload"), data);
    if (isDoneSentinel(trimmed)) {
        StreamChunk chunk;
        chunk.kind = StreamChunk::Kind::Done;
        return chunk;
    }

    Json root = Json::parse(trimmed.begin(), trimmed.end(), nullptr, false);
    if (root.is_discarded()) {
        if (const std::optional<QByteArray> standard = withStandardLiterals(trimmed))
            root = Json::parse(standard->begin(), standard->end(), nullptr, false);
    }
    if (root.is_discarded())
        return malformed(QStringLiteral("payload is not JSON: \"%1\"").arg(excerpt(trimmed)), data);
    if (!root.is_object())
        return malformed(QStringLiteral("payload is JSON but not an object (%1): \"%2\"")
                             .arg(QLatin1String(jsonTypeName(root)), excerpt(trimmed)),
            data);

    StreamChunk chunk;
    chunk.id = stringMember(root, "id");
    chunk.model = stringMember(root, "model");
    chunk.systemFingerprint = stringMember(root, "system_fingerprint");

    if (auto error = errorFromObject(root)) {
        chunk.kind = StreamChunk::Kind::Error;
        chunk.error = std::move(error);
        return chunk;
    }

    const Json* choices = member(root, "choices");
    if (choices && !choices->is_array())
        choices = nullptr;
    const Json* usage = objectMember(root, "usage"); // SGLang legacy sends "usage":null: no usage
    if (!choices && !usage)
        return malformed(
            QStringLiteral("JSON object has no choices, usage or error: \"%1\"").arg(excerpt(trimmed)), data);

    if (choices && !choices->empty()) {
        chunk.hasChoices = true;
        if (const Json* choice = firstChoice(*choices))
            readChoice(*choice, chunk);
    }
    if (usage)
        chunk.usage = readUsage(*usage);
    if (const Json* timings = objectMember(root, "timings"))
        chunk.timings = readTimings(*timings);
    return chunk;
}

} // namespace qs
