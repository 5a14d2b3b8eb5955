// SPDX-License-Identifier: MIT
#include "model/core/RequestRecord.h"

#include "model/core/Clock.h"
#include "model/core/RecordFields.h"

#include <cmath>

namespace qs {

namespace {
template <typename T> nlohmann::json opt(const std::optional<T>& v)
{
    return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

// Milliseconds are stored with microsecond resolution: more digits would be noise.
nlohmann::json optMs(const std::optional<double>& v)
{
    return v ? nlohmann::json(std::round(*v * 1000.0) / 1000.0) : nlohmann::json(nullptr);
}

nlohmann::json count(const TokenCount& c)
{
    return {{"value", opt(c.value)}, {"source", countSourceId(c.source).toStdString()}};
}

std::string str(const QString& s)
{
    return s.toStdString();
}
} // namespace

nlohmann::json toJson(const TokenUsage& u)
{
    nlohmann::json j = nlohmann::json::object();
    for (const UsageField& f : usageFields)
        j[f.key] = opt(u.*f.member);
    return j;
}

nlohmann::json toJson(const ServerTimings& t)
{
    nlohmann::json j = nlohmann::json::object();
    for (const TimingField& f : timingFields) {
        nlohmann::json v = f.count ? opt(t.*f.count) : opt(t.*f.number);
        if (!v.is_null() || f.writtenWhenMissing)
            j[f.key] = std::move(v);
    }
    return j;
}

nlohmann::json toJson(const RequestMetrics& m)
{
    nlohmann::json notes = nlohmann::json::array();
    for (const QString& n : m.notes)
        notes.push_back(str(n));
    nlohmann::json j = {{"prompt_tokens", count(m.promptTokens)},
        {"completion_tokens", count(m.completionTokens)}, {"reasoning_tokens", count(m.reasoningTokens)},
        {"cached_prompt_tokens", count(m.cachedPromptTokens)}, {"token_events", m.tokenEvents},
        {"thinking_in_content", m.thinkingInContent}, {"visible_content_offset", m.visibleContentOffset},
        {"notes", notes}};
    for (const MetricField& f : metricFields)
        j[f.key] = optMs(m.*f.member);
    return j;
}

nlohmann::json toJson(const RequestRecord& r, bool withTimeline)
{
    const AssembledResponse& a = r.response;
    nlohmann::json tools = nlohmann::json::array();
    for (const ToolCall& c : a.toolCalls)
        tools.push_back({{"index", c.index}, {"id", str(c.id)}, {"type", str(c.type)}, {"name", str(c.name)},
            {"arguments", str(c.arguments)}});
    nlohmann::json response = {{"content", str(a.content)}, {"reasoning", str(a.reasoning)},
        {"reasoning_field",
            a.reasoningField == ReasoningField::Reasoning              ? "reasoning"
                : a.reasoningField == ReasoningField::ReasoningContent ? "reasoning_content"
                : a.reasoningField == ReasoningField::Both             ? "both"
                                                                       : "none"},
        {"tool_calls", tools}, {"finish_reason", str(a.finishReason)},
        {"usage", a.usage ? toJson(*a.usage) : nlohmann::json(nullptr)},
        {"server_timings", a.timings ? toJson(*a.timings) : nlohmann::json(nullptr)},
        {"id", str(a.responseId)}, {"model", str(a.model)}, {"system_fingerprint", str(a.systemFingerprint)},
        {"saw_done", a.sawDone}, {"data_events", a.dataEvents}, {"empty_events", a.emptyEvents},
        {"usage_only_events", a.usageOnlyEvents}, {"malformed_events", a.malformedEvents}};
    if (!a.malformedSamples.isEmpty()) {
        nlohmann::json samples = nlohmann::json::array();
        for (const QString& s : a.malformedSamples)
            samples.push_back(str(s));
        response["malformed_samples"] = samples;
    }
    if (a.streamError)
        response["stream_error"] = {{"code", a.streamError->code}, {"type", str(a.streamError->type)},
            {"message", str(a.streamError->message)}};
    if (a.logprobs.present()) // only when the server sent them: other records do not grow
        response["logprobs"] = toJson(a.logprobs);

    nlohmann::json j = {{"endpoint", str(r.endpointLabel)}, {"url", str(r.url.toString())},
        {"request", r.requestBody}, {"http_status", r.httpStatus}, {"content_type", str(r.contentType)},
        {"server_header", str(r.serverHeader)}, {"connection_reused", r.timing.connectionReused},
        {"keep_alive_pings", r.keepAlivePings}, {"metrics", toJson(r.metrics)}, {"response", response},
        {"failure", toJson(r.failure)}};
    if (withTimeline && r.timing.t0Ns) {
        // Compact timeline: [ms from t0, kind] with kind r=reasoning, c=content, t=tool call.
        nlohmann::json events = nlohmann::json::array();
        for (const TokenEvent& e : a.tokenEvents) {
            std::string kind;
            if (e.hasReasoning())
                kind += 'r';
            if (e.hasContent())
                kind += 'c';
            if (e.toolCall)
                kind += 't';
            events.push_back({std::round(msBetween(r.timing.t0Ns, e.stampNs) * 1000.0) / 1000.0, kind});
        }
        j["timeline"] = events;
    }
    return j;
}

} // namespace qs
