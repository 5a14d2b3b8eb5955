// SPDX-License-Identifier: MIT
// Reading records and headers from their JSON, every field type-checked.
#include "model/core/RecordFields.h"
#include "model/store/JudgingFields.h"
#include "model/store/LogprobFields.h"
#include "model/store/RecordParts.h"
#include "model/store/ResultFields.h"
#include "model/store/TelemetryFields.h"

#include <algorithm>

namespace qs {

namespace results {

/// The count source an id names ("usage", …); anything else fails at `at`.
CountSource countSourceAt(const QString& id, const Loc& at)
{
    const auto s = countSourceFromId(id);
    if (!s)
        badField(at, unknownId("usage, server_timings, estimate or none", id));
    return *s;
}

namespace {

TokenCount countFrom(const Fields& f, const json* sources, const Loc& sourcesLoc, const char* key)
{
    TokenCount c;
    c.value = f.optInteger(key, 0);
    if (sources) {
        const QString id = Fields(*sources, sourcesLoc).string(key);
        if (!id.isEmpty())
            c.source = countSourceAt(id, sourcesLoc.member(key));
    }
    return c;
}

} // namespace

TokenUsage usageFromJson(const json& j, const Loc& loc)
{
    const Fields f(j, loc);
    TokenUsage u;
    for (const UsageField& field : usageFields)
        u.*field.member = f.optInteger(field.key);
    return u;
}

ServerTimings timingsFromJson(const json& j, const Loc& loc)
{
    const Fields f(j, loc);
    ServerTimings t;
    for (const TimingField& field : timingFields) {
        if (field.count)
            t.*field.count = f.optInteger(field.key);
        else
            t.*field.number = f.optNumber(field.key);
    }
    return t;
}

ServerError serverErrorFromJson(const json& j, const Loc& loc)
{
    const Fields f(j, loc);
    ServerError e;
    e.code = f.integer("code", 0);
    e.codeText = f.string("code_text");
    e.type = f.string("type");
    e.message = f.string("message");
    e.param = f.string("param");
    e.nPromptTokens = f.optInteger("n_prompt_tokens");
    e.nCtx = f.optInteger("n_ctx");
    return e;
}

Failure failureFromJson(const json& j, const Loc& loc)
{
    const Fields f(j, loc);
    const QString id = f.requiredString("kind");
    const auto kind = failureKindFromId(id);
    if (!kind)
        f.fail("kind", "unknown failure kind \"" + u8(id.left(40)) + "\"");
    Failure failure;
    failure.kind = *kind;
    if (!failure.isFailure())
        return failure;
    failure.httpStatus = f.integer("http_status", 0, 0, 999);
    // A hand-written {kind, message} has no summary: the message is the summary then.
    failure.summary = j.contains("summary") ? f.string("summary") : f.string("message");
    failure.serverMessage = f.string("server_message");
    failure.advice = f.string("advice");
    return failure;
}

std::vector<ToolCall> toolCallsFromJson(const json& a, const Loc& loc)
{
    std::vector<ToolCall> calls;
    calls.reserve(a.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
        const Loc at = loc.element(i);
        const Fields f(a[i], at);
        ToolCall c;
        c.index = f.integer("index", int(i), 0);
        c.id = f.string("id");
        c.type = f.string("type");
        c.name = f.string("name");
        // Arguments are JSON text as the model produced it; a hand-written file may give an object.
        if (const json* args = f.find("arguments"))
            c.arguments = args->is_string() ? toQString(*args) : QString::fromStdString(dumpCompact(*args));
        calls.push_back(std::move(c));
    }
    return calls;
}

namespace {

TokenTimeline eventsFromJson(const json& a, const Loc& loc, qsizetype contentSize, qsizetype reasoningSize)
{
    TokenTimeline events;
    events.reserve(a.size());
    int content = 0;
    int reasoning = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        const json& e = a[i];
        const Loc at = loc.element(i);
        if (!e.is_array() || e.size() != 4) {
            if (e.is_array())
                badField(at,
                    "expected [t_ms, content_end, reasoning_end, tool], found a list of "
                        + std::to_string(e.size()) + " values");
            expected(at, "[t_ms, content_end, reasoning_end, tool]", e);
        }
        const Loc timeAt = at.element(0);
        if (!e[0].is_number())
            expected(timeAt, "a time in ms", e[0]);
        const double ms = e[0].get<double>();
        if (!(std::fabs(ms) <= kMaxStampMs))
            badField(timeAt, "time " + excerpt(e[0]) + " ms is out of range");
        // Offsets only grow: each event appends to the text the previous one ended.
        TokenEvent t;
        t.stampNs = kBaseNs + std::llround(ms * 1e6);
        t.contentBegin = content;
        t.contentEnd = int(checkedInteger(e[1], at.element(1), content, contentSize));
        t.reasoningBegin = reasoning;
        t.reasoningEnd = int(checkedInteger(e[2], at.element(2), reasoning, reasoningSize));
        if (e[3].is_boolean())
            t.toolCall = e[3].get<bool>();
        else
            t.toolCall = checkedInteger(e[3], at.element(3), 0, 1) == 1;
        content = t.contentEnd;
        reasoning = t.reasoningEnd;
        events.push_back(t);
    }
    return events;
}

qint64 stampFrom(const Fields& f, const char* key)
{
    const std::optional<double> ms = f.optNumber(key);
    if (!ms)
        return 0;
    if (!(std::fabs(*ms) <= kMaxStampMs))
        f.fail(key, "time " + std::to_string(*ms) + " ms is out of range");
    return kBaseNs + std::llround(*ms * 1e6);
}

RunSettings settingsFromJson(const json& j, const Loc& loc)
{
    const Fields f(j, loc);
    RunSettings s;
    s.warmup = f.integer("warmup", -1, 0, 1'000'000);
    s.runs = f.integer("runs", -1, 0, 1'000'000);
    if (const QString id = f.string("order"); !id.isEmpty()) {
        const auto o = runOrderFromId(id);
        if (!o)
            f.fail("order", unknownId("interleaved, sequential or parallel", id));
        s.order = *o;
    }
    s.concurrency = f.integer("concurrency", 1, 0, 1'000'000);
    if (const auto m = f.optInteger("max_tokens", 0, INT_MAX))
        s.maxTokens = int(*m);
    if (const json* seed = f.find("seed")) {
        if (seed->is_number_unsigned())
            s.seed = seed->get<std::uint64_t>();
        else
            s.seed
                = quint64(checkedInteger(*seed, loc.member("seed"), 0, std::numeric_limits<qint64>::max()));
    }
    s.requestTimeoutMs = f.integer("request_timeout_ms", 0, 0);
    s.serverMetrics = f.boolean("server_metrics", s.serverMetrics);
    s.scrapeMs = f.integer("scrape_ms", s.scrapeMs, 0);
    s.promptsPerCategory = f.integer("prompts_per_category", 0, 0);
    return s;
}

Endpoint endpointFrom(const json& j, const Loc& loc)
{
    if (!j.is_object())
        expected(loc, "an object", j);
    try {
        // An endpoint that never got a URL (a simulated one that failed to start) is still a
        // column of the file; endpointFromJson() insists on a URL, so lend it one.
        const auto url = j.find("base_url");
        if (url == j.end() || url->is_null()
            || (url->is_string() && url->get_ref<const std::string&>().empty())) {
            json copy = j;
            copy["base_url"] = "http://unknown";
            Endpoint e = endpointFromJson(copy);
            e.baseUrl = QUrl();
            return e;
        }
        return endpointFromJson(j);
    } catch (const std::invalid_argument& e) {
        badField(loc, e.what());
    }
}

} // namespace

std::vector<RunEndpoint> endpointsFromJson(const json& a, const Loc& loc)
{
    if (!a.is_array())
        expected(loc, "a list", a);
    std::vector<RunEndpoint> endpoints;
    for (std::size_t i = 0; i < a.size(); ++i) {
        const Loc at = loc.element(i);
        const Fields f(a[i], at);
        RunEndpoint e;
        const json* ep = f.find("endpoint");
        if (!ep)
            f.missing("endpoint");
        e.endpoint = endpointFrom(*ep, at.member("endpoint"));
        if (e.endpoint.label.isEmpty())
            e.endpoint.label = f.string("label");
        e.spec = f.string("spec");
        e.simulated = f.boolean("simulated", false);
        e.probe = f.any("probe", json::object());
        e.reference = f.boolean("reference", false);
        endpoints.push_back(std::move(e));
    }
    return endpoints;
}

RunRecord readRecord(
    const json& j, const std::vector<RunEndpoint>& endpoints, const std::string& where, json* steal)
{
    const Loc loc = Loc::root(where);
    const Fields f(j, loc);
    RunRecord r;
    RequestRecord& q = r.request;
    AssembledResponse& a = q.response;
    RequestMetrics& m = q.metrics;
    RequestTiming& t = q.timing;

    // Where it sat in the plan. The index is authoritative; a hand-written file may give only a label.
    q.endpointLabel = f.string("endpoint");
    if (const auto index = f.optInteger("endpoint_index", 0, INT_MAX)) {
        if (std::size_t(*index) >= endpoints.size())
            f.fail("endpoint_index",
                std::to_string(*index) + " is out of range: the file lists "
                    + std::to_string(endpoints.size()) + " endpoints");
        r.endpoint = int(*index);
    } else if (!q.endpointLabel.isEmpty()) {
        const auto it = std::find_if(endpoints.begin(), endpoints.end(),
            [&](const RunEndpoint& e) { return e.endpoint.label == q.endpointLabel; });
        if (it == endpoints.end())
            f.fail("endpoint", "\"" + u8(q.endpointLabel.left(60)) + "\" is not one of the file's endpoints");
        r.endpoint = int(it - endpoints.begin());
    } else {
        f.missing("endpoint");
    }
    if (q.endpointLabel.isEmpty())
        q.endpointLabel = endpoints[std::size_t(r.endpoint)].endpoint.displayName();
    r.test = f.requiredString("test");
    r.turn = f.integer("turn", 1, 0);
    r.iteration = f.requiredInteger("iteration", 0);
    r.warmup = f.requiredBoolean("warmup");
    r.concurrency = f.integer("concurrency", 1, 0);
    r.startOffsetMs = f.number("start_offset_ms", 0);
    r.startedAt = f.time("started_at");

    q.url = QUrl(f.string("url"));
    if (steal && steal->contains("request"))
        q.requestBody = std::move((*steal)["request"]);
    else
        q.requestBody = f.any("request", nullptr);
    q.httpStatus = f.integer("http_status", 0, 0, 999);
    q.contentType = f.string("content_type");
    q.serverHeader = f.string("server_header");
    t.connectionReused = f.boolean("connection_reused", false);
    q.keepAlivePings = f.integer("keep_alive_pings", 0, 0);

    for (const MetricField& field : metricFields)
        m.*field.member = f.optNumber(field.key);
    const nlohmann::json* sources = f.object("count_sources");
    const Loc sourcesLoc = loc.member("count_sources");
    m.promptTokens = countFrom(f, sources, sourcesLoc, "prompt_tokens");
    m.completionTokens = countFrom(f, sources, sourcesLoc, "completion_tokens");
    m.reasoningTokens = countFrom(f, sources, sourcesLoc, "reasoning_tokens");
    m.cachedPromptTokens = countFrom(f, sources, sourcesLoc, "cached_prompt_tokens");
    if (!sources || !sources->contains("completion_tokens")) {
        // Older or hand-written files: tokens_source names the completion count's source.
        const QString id = f.string("tokens_source");
        if (!id.isEmpty())
            m.completionTokens.source = countSourceAt(id, loc.member("tokens_source"));
    }
    m.tokenEvents = f.integer("token_events", 0, 0);
    m.thinkingInContent = f.boolean("thinking_in_content", false);
    m.visibleContentOffset = f.integer("visible_content_offset", 0, 0);
    m.notes = f.stringList("notes");

    a.content = f.string("content");
    a.reasoning = f.string("reasoning");
    if (const QString id = f.string("reasoning_field"); !id.isEmpty()) {
        const auto rf = reasoningFieldFromId(id);
        if (!rf)
            f.fail("reasoning_field", unknownId("none, reasoning, reasoning_content or both", id));
        a.reasoningField = *rf;
    }
    a.role = f.string("role");
    if (const nlohmann::json* tools = f.array("tool_calls"))
        a.toolCalls = toolCallsFromJson(*tools, loc.member("tool_calls"));
    a.finishReason = f.string("finish_reason");
    if (const nlohmann::json* u = f.object("usage"))
        a.usage = usageFromJson(*u, loc.member("usage"));
    if (const nlohmann::json* st = f.object("server_timings"))
        a.timings = timingsFromJson(*st, loc.member("server_timings"));
    a.responseId = f.string("response_id");
    a.model = f.string("model");
    a.systemFingerprint = f.string("system_fingerprint");
    if (const nlohmann::json* s = f.object("stream")) {
        const Loc sl = loc.member("stream");
        const Fields sf(*s, sl);
        a.sawDone = sf.boolean("saw_done", false);
        a.truncatedEvent = sf.boolean("truncated_event", false);
        a.dataEvents = sf.integer("data_events", 0, 0);
        a.emptyEvents = sf.integer("empty_events", 0, 0);
        a.usageOnlyEvents = sf.integer("usage_only_events", 0, 0);
        a.malformedEvents = sf.integer("malformed_events", 0, 0);
        a.malformedSamples = sf.stringList("malformed_samples");
    }
    if (const nlohmann::json* se = f.object("stream_error"))
        a.streamError = serverErrorFromJson(*se, loc.member("stream_error"));
    if (const nlohmann::json* e = f.object("error"))
        q.failure = failureFromJson(*e, loc.member("error"));
    if (const nlohmann::json* lp = f.object("logprobs"))
        a.logprobs = logprobsFromJson(*lp, loc.member("logprobs"));

    r.gates = f.object("gates") ? *f.object("gates") : nlohmann::json::object();
    r.gateDetails = f.object("gate_details") ? *f.object("gate_details") : nlohmann::json::object();

    if (const nlohmann::json* s = f.object("stamped_reads")) {
        const Fields sf(*s, loc.member("stamped_reads"));
        t.arrivalStampedReads = sf.integer("arrival", 0, 0);
        t.readTimeStampedReads = sf.integer("read_time", 0, 0);
    }
    if (const nlohmann::json* s = f.object("stamps")) {
        const Loc sl = loc.member("stamps");
        const Fields sf(*s, sl);
        t.t0Ns = stampFrom(sf, "t0");
        t.startNs = stampFrom(sf, "start");
        t.connectedNs = stampFrom(sf, "connected");
        t.firstByteNs = stampFrom(sf, "first_byte");
        t.headersNs = stampFrom(sf, "headers");
        t.endNs = stampFrom(sf, "end");
        a.firstEventNs = stampFrom(sf, "first_event");
        a.lastEventNs = stampFrom(sf, "last_event");
        a.doneNs = stampFrom(sf, "done");
        a.streamErrorNs = stampFrom(sf, "stream_error");
    }
    if (const nlohmann::json* events = f.array("events")) {
        a.tokenEvents = eventsFromJson(*events, loc.member("events"), a.content.size(), a.reasoning.size());
        if (!a.tokenEvents.empty() && t.t0Ns == 0 && !f.object("stamps"))
            t.t0Ns = kBaseNs; // a minimal hand-written record: its event times are from t0
    }
    return r;
}

} // namespace results

using namespace results;

RunRecord recordFromJson(
    const nlohmann::json& j, const std::vector<RunEndpoint>& endpoints, const std::string& where)
{
    return readRecord(j, endpoints, where, nullptr);
}

RunResult headerFromJson(const nlohmann::json& j, const std::string& where)
{
    if (!j.is_object())
        throw ResultFileError(Kind::NotResults,
            where + ": not a Quantscope results file (it holds " + typeName(j) + ", not an object)");
    checkFormat(j, where, false);
    const Loc loc = Loc::root(where);
    const Fields f(j, loc);
    RunResult r;
    r.toolVersion = f.string("tool_version");
    r.host = f.string("host");
    r.startedAt = f.time("started_at");
    r.endedAt = f.time("ended_at");
    r.complete = f.boolean("complete", false);
    r.note = f.string("note");
    r.userNote = f.string("user_note");
    r.suite = f.any("suite", nullptr);
    r.untilDecided = f.any("until_decided", nullptr);
    if (const nlohmann::json* s = f.object("settings"))
        r.settings = settingsFromJson(*s, loc.member("settings"));
    const nlohmann::json* endpoints = f.find("endpoints");
    if (!endpoints)
        f.missing("endpoints");
    r.endpoints = endpointsFromJson(*endpoints, loc.member("endpoints"));
    if (const nlohmann::json* t = f.object("telemetry"))
        r.telemetry = telemetryFromJson(*t, loc.member("telemetry"), r.endpoints.size());
    if (const nlohmann::json* judging = f.object("judging"))
        r.judging = judgingFromJson(*judging, loc.member("judging"), r.endpoints.size());
    return r;
}

} // namespace qs
