// SPDX-License-Identifier: MIT
// Writing records and whole results files (docs/results-format.md).
#include "model/core/Clock.h"
#include "model/core/Platform.h"
#include "model/core/RecordFields.h"
#include "model/store/JudgingFields.h"
#include "model/store/ResultFormat.h"
#include "model/store/TelemetryFields.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSaveFile>
#include <cerrno>
#include <cmath>

namespace qs {

namespace {

using namespace results;

/// Serialization flushes to the file in chunks of this size, so saving never holds a second
/// copy of the whole file in memory.
constexpr std::size_t kWriteChunk = 4u << 20;

json optMs(const std::optional<double>& v)
{
    return v && std::isfinite(*v) ? json(roundUs(*v)) : json(nullptr);
}

template <typename T> json opt(const std::optional<T>& v)
{
    return v ? json(*v) : json(nullptr);
}

json toJson(const ServerError& e)
{
    return {{"code", e.code}, {"code_text", u8(e.codeText)}, {"type", u8(e.type)}, {"message", u8(e.message)},
        {"param", u8(e.param)}, {"n_prompt_tokens", opt(e.nPromptTokens)}, {"n_ctx", opt(e.nCtx)}};
}

json errorJson(const Failure& f)
{
    if (!f.isFailure())
        return nullptr;
    json j = toJson(f); // kind, http_status, summary, server_message, advice
    j["message"] = u8(f.text());
    return j;
}

/// The stamp every other one is measured from: t0, or for a request that was never sent the
/// earliest stamp it has.
qint64 referenceNs(const RequestRecord& r)
{
    const RequestTiming& t = r.timing;
    if (t.t0Ns)
        return t.t0Ns;
    if (t.startNs)
        return t.startNs;
    const AssembledResponse& a = r.response;
    qint64 ref = 0;
    for (qint64 s : {t.connectedNs, t.firstByteNs, t.headersNs, t.endNs, a.firstEventNs, a.lastEventNs,
             a.doneNs, a.streamErrorNs}) {
        if (s && (!ref || s < ref))
            ref = s;
    }
    if (!a.tokenEvents.empty() && (!ref || a.tokenEvents.front().stampNs < ref))
        ref = a.tokenEvents.front().stampNs;
    return ref;
}

json stampMs(qint64 ref, qint64 stamp)
{
    return stamp ? json(roundUs(msBetween(ref, stamp))) : json(nullptr);
}

json countSources(const RequestMetrics& m)
{
    return {{"prompt_tokens", u8(countSourceId(m.promptTokens.source))},
        {"completion_tokens", u8(countSourceId(m.completionTokens.source))},
        {"reasoning_tokens", u8(countSourceId(m.reasoningTokens.source))},
        {"cached_prompt_tokens", u8(countSourceId(m.cachedPromptTokens.source))}};
}

json settingsToJson(const RunSettings& s)
{
    return {{"warmup", s.warmup < 0 ? json(nullptr) : json(s.warmup)},
        {"runs", s.runs < 0 ? json(nullptr) : json(s.runs)}, {"order", u8(runOrderId(s.order))},
        {"concurrency", s.concurrency}, {"max_tokens", opt(s.maxTokens)}, {"seed", s.seed},
        {"request_timeout_ms", s.requestTimeoutMs}, {"server_metrics", s.serverMetrics},
        {"scrape_ms", s.scrapeMs}, {"prompts_per_category", s.promptsPerCategory}};
}

json endpointsToJson(const std::vector<RunEndpoint>& endpoints)
{
    json list = json::array();
    for (const RunEndpoint& e : endpoints) {
        // toJson(Endpoint) carries api_key_env, never the key itself.
        json j = {{"label", u8(e.endpoint.label)}, {"spec", u8(e.spec)}, {"simulated", e.simulated},
            {"endpoint", toJson(e.endpoint)}, {"probe", e.probe}};
        if (e.reference) // only when set: files without a reference stay as they were
            j["reference"] = true;
        list.push_back(std::move(j));
    }
    return list;
}

/// Appends `items` as a JSON list, one element (made by `toJson`) per line indented by `indent`,
/// handing `out` to `sink` whenever it grew past kWriteChunk.
template <typename Items, typename ToJson, typename Sink>
void writeList(std::string& out, const Items& items, const char* indent, ToJson&& toJson, Sink& sink)
{
    out += '[';
    bool first = true;
    for (const auto& item : items) {
        out += first ? "\n" : ",\n";
        first = false;
        out += indent;
        out += dumpCompact(toJson(item));
        if (out.size() >= kWriteChunk) {
            sink(std::string_view(out));
            out.clear();
        }
    }
    if (!first) {
        out += '\n';
        out += std::string_view(indent).substr(1);
    }
    out += ']';
}

/// Writes the file piecewise: `{`, the header members one per line (format and version first,
/// so the first line identifies the file), then `"telemetry"` with one source and one sample per
/// line, then `"judging"` (when something was judged) with one verdict per line, then
/// `"records": [` with one record per line.
template <typename Sink> void writeResults(const RunResult& result, Sink&& sink)
{
    const json header = headerToJson(result);
    std::string out;
    out.reserve(kWriteChunk + (64u << 10));
    out += "{\"format\": ";
    out += dumpCompact(header["format"]);
    out += ", \"version\": ";
    out += dumpCompact(header["version"]);
    out += ",\n";
    for (const auto& [key, value] : header.items()) {
        if (key == "format" || key == "version" || key == "telemetry" || key == "judging")
            continue;
        out += ' ';
        out += dumpCompact(json(key));
        out += ": ";
        out += dumpCompact(value);
        out += ",\n";
    }
    // The telemetry's run-wide members on its first line, then its lists (sources before samples,
    // so a reader knows the tables before the first value).
    std::string telemetryHead = dumpCompact(header["telemetry"]);
    telemetryHead.pop_back(); // its closing brace: the lists follow
    out += " \"telemetry\": ";
    out += telemetryHead;
    out += ",\n  \"sources\": ";
    writeList(
        out, result.telemetry.sources, "   ", [](const TelemetrySource& s) { return sourceToJson(s); }, sink);
    out += ",\n  \"samples\": ";
    writeList(
        out, result.telemetry.samples, "   ", [](const TelemetrySample& s) { return sampleToJson(s); }, sink);
    out += "},\n";
    // The judging's run-wide members on its first line, then one verdict per line.
    if (const auto judging = header.find("judging"); judging != header.end()) {
        std::string judgingHead = dumpCompact(*judging);
        judgingHead.pop_back(); // its closing brace: the lists follow
        out += " \"judging\": ";
        out += judgingHead;
        out += ",\n  \"rubric_verdicts\": ";
        writeList(out, result.judging.rubricVerdicts, "   ", rubricVerdictToJson, sink);
        out += ",\n  \"pair_verdicts\": ";
        writeList(out, result.judging.pairVerdicts, "   ", pairVerdictToJson, sink);
        out += "},\n";
    }
    out += " \"records\": ";
    writeList(
        out, result.records, "  ", [&](const RunRecord& r) { return recordToJson(r, result.endpoints); },
        sink);
    out += "\n}\n";
    sink(std::string_view(out));
}

/// Makes a rename in `folder` durable. QSaveFile syncs the file's data before renaming it over
/// the old one, but not the folder, and until the folder is synced a power cut may undo the
/// rename (docs/results-format.md, "What a crash can and cannot do to your results"). Best
/// effort: some file systems cannot sync a folder, and the file is saved either way.
void syncFolder(const QString& folder)
{
    platform::syncFolder(folder);
}

} // namespace

nlohmann::json recordToJson(const RunRecord& record, const std::vector<RunEndpoint>& endpoints)
{
    const RequestRecord& q = record.request;
    const AssembledResponse& a = q.response;
    const RequestMetrics& m = q.metrics;
    const RequestTiming& t = q.timing;

    QString label = q.endpointLabel;
    if (label.isEmpty() && record.endpoint >= 0 && std::size_t(record.endpoint) < endpoints.size())
        label = endpoints[std::size_t(record.endpoint)].endpoint.displayName();

    json j = json::object();
    // Where the request sat in the plan.
    j["endpoint"] = u8(label);
    j["endpoint_index"] = record.endpoint;
    j["test"] = u8(record.test);
    j["turn"] = record.turn;
    j["iteration"] = record.iteration;
    j["warmup"] = record.warmup;
    j["concurrency"] = record.concurrency;
    j["start_offset_ms"] = roundUs(record.startOffsetMs);
    j["started_at"] = isoTime(record.startedAt);

    // What was sent and how the server answered.
    j["url"] = u8(q.url.toString());
    j["request"] = q.requestBody;
    j["http_status"] = q.httpStatus;
    j["content_type"] = u8(q.contentType);
    j["server_header"] = u8(q.serverHeader);
    j["connection_reused"] = t.connectionReused;
    j["keep_alive_pings"] = q.keepAlivePings;

    // Measurements (docs/methodology.md).
    for (const MetricField& f : metricFields)
        j[f.key] = optMs(m.*f.member);
    j["prompt_tokens"] = opt(m.promptTokens.value);
    j["completion_tokens"] = opt(m.completionTokens.value);
    j["reasoning_tokens"] = opt(m.reasoningTokens.value);
    j["cached_prompt_tokens"] = opt(m.cachedPromptTokens.value);
    j["tokens_source"] = u8(countSourceId(m.completionTokens.source));
    j["count_sources"] = countSources(m);
    j["token_events"] = m.tokenEvents;
    j["thinking_in_content"] = m.thinkingInContent;
    j["visible_content_offset"] = m.visibleContentOffset;
    j["notes"] = stringListToJson(m.notes);

    // What came back.
    j["content"] = u8(a.content);
    j["reasoning"] = u8(a.reasoning);
    j["reasoning_field"] = reasoningFieldId(a.reasoningField);
    j["role"] = u8(a.role);
    json tools = json::array();
    for (const ToolCall& c : a.toolCalls)
        tools.push_back({{"index", c.index}, {"id", u8(c.id)}, {"type", u8(c.type)}, {"name", u8(c.name)},
            {"arguments", u8(c.arguments)}});
    j["tool_calls"] = std::move(tools);
    j["finish_reason"] = u8(a.finishReason);
    j["usage"] = a.usage ? toJson(*a.usage) : json(nullptr);
    j["server_timings"] = a.timings ? toJson(*a.timings) : json(nullptr);
    j["response_id"] = u8(a.responseId);
    j["model"] = u8(a.model);
    j["system_fingerprint"] = u8(a.systemFingerprint);
    j["stream"] = {{"saw_done", a.sawDone}, {"truncated_event", a.truncatedEvent},
        {"data_events", a.dataEvents}, {"empty_events", a.emptyEvents},
        {"usage_only_events", a.usageOnlyEvents}, {"malformed_events", a.malformedEvents},
        {"malformed_samples", stringListToJson(a.malformedSamples)}};
    j["stream_error"] = a.streamError ? toJson(*a.streamError) : json(nullptr);
    if (a.logprobs.present()) // only when sent: records of runs without logprobs do not grow
        j["logprobs"] = toJson(a.logprobs);
    j["ok"] = q.ok();
    j["error"] = errorJson(q.failure);

    // Evaluation (filled by the gates).
    j["gates"] = record.gates;
    j["gate_details"] = record.gateDetails;

    // Raw stamps and the token timeline, in ms from t0 (from the earliest stamp if never sent).
    const qint64 ref = referenceNs(q);
    if (t.arrivalStampedReads > 0 || t.readTimeStampedReads > 0) // absent: not counted (methodology §1)
        j["stamped_reads"] = {{"arrival", t.arrivalStampedReads}, {"read_time", t.readTimeStampedReads}};
    j["stamps"] = {{"t0", stampMs(ref, t.t0Ns)}, {"start", stampMs(ref, t.startNs)},
        {"connected", stampMs(ref, t.connectedNs)}, {"first_byte", stampMs(ref, t.firstByteNs)},
        {"headers", stampMs(ref, t.headersNs)}, {"end", stampMs(ref, t.endNs)},
        {"first_event", stampMs(ref, a.firstEventNs)}, {"last_event", stampMs(ref, a.lastEventNs)},
        {"done", stampMs(ref, a.doneNs)}, {"stream_error", stampMs(ref, a.streamErrorNs)}};
    json events = json::array();
    events.get_ref<json::array_t&>().reserve(a.tokenEvents.size());
    for (const TokenEvent& e : a.tokenEvents)
        events.push_back(json::array(
            {roundUs(msBetween(ref, e.stampNs)), e.contentEnd, e.reasoningEnd, e.toolCall ? 1 : 0}));
    j["events"] = std::move(events);
    return j;
}

nlohmann::json headerToJson(const RunResult& result)
{
    json header = {{"format", ResultsFormatName}, {"version", ResultsFormatVersion},
        {"tool_version", u8(result.toolVersion)}, {"host", u8(result.host)},
        {"started_at", isoTime(result.startedAt)}, {"ended_at", isoTime(result.endedAt)},
        {"complete", result.complete}, {"note", u8(result.note)}, {"suite", result.suite},
        {"settings", settingsToJson(result.settings)}, {"endpoints", endpointsToJson(result.endpoints)},
        {"telemetry", telemetryHeaderToJson(result.telemetry)}};
    if (hasJudging(result.judging))
        header["judging"] = judgingHeaderToJson(result.judging);
    if (!result.untilDecided.is_null()) // only then: other files keep their bytes
        header["until_decided"] = result.untilDecided;
    if (!result.userNote.isEmpty()) // the same
        header["user_note"] = u8(result.userNote);
    return header;
}

QByteArray serializeResults(const RunResult& result)
{
    QByteArray bytes;
    writeResults(
        result, [&](std::string_view chunk) { bytes.append(chunk.data(), qsizetype(chunk.size())); });
    return bytes;
}

QString saveResults(const RunResult& result, const QString& path)
{
    const auto failed = [&](const QString& why) {
        return QStringLiteral("cannot save the results to %1: %2").arg(QDir::toNativeSeparators(path), why);
    };
    const QFileInfo info(path);
    if (info.isDir())
        return failed(QStringLiteral("it is a directory"));
    const QFileInfo dir(info.absolutePath());
    if (!dir.isDir())
        return failed(
            QStringLiteral("the folder %1 does not exist").arg(QDir::toNativeSeparators(dir.filePath())));

    // QSaveFile writes a temporary file beside the target and renames it over the target only
    // when everything was written and synced: a failure at any point leaves the old file as it was.
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly)) {
        const QString why = file.errorString();
        if (!dir.isWritable())
            return failed(QStringLiteral("the folder %1 is not writable (%2); save to another folder")
                              .arg(QDir::toNativeSeparators(dir.filePath()), why));
        return failed(why);
    }
    bool ok = true;
    int writeErrno = 0;
    try {
        writeResults(result, [&](std::string_view chunk) {
            errno = 0;
            if (ok && file.write(chunk.data(), qint64(chunk.size())) != qint64(chunk.size())) {
                ok = false;
                writeErrno = errno;
            }
        });
    } catch (const std::bad_alloc&) {
        file.cancelWriting();
        return failed(QStringLiteral("not enough memory"));
    }
    if (!ok) {
        const QString why = writeFailure(file, writeErrno);
        file.cancelWriting();
        return failed(QStringLiteral("%1 (is the disk full?)").arg(why));
    }
    errno = 0;
    if (!file.commit())
        return failed(QStringLiteral("%1 (is the disk full?)").arg(writeFailure(file, errno)));
    syncFolder(dir.absoluteFilePath());
    return {};
}

} // namespace qs
