// SPDX-License-Identifier: MIT
// One record's text into a RunRecord with simdjson On-Demand; declines whatever it is not sure of.
#include "model/store/FastRecordReader.h"

#include "model/core/RecordFields.h"
#include "model/store/FastRecordValues.h"
#include "model/store/LogprobFields.h"
#include "model/store/RecordParts.h"

#include <QHash>
#include <algorithm>
#include <array>
#include <bitset>
#include <cstring>
#include <simdjson.h>
#include <unordered_map>

namespace qs::results {

namespace {

using namespace fast_record;

} // namespace

struct FastRecordReader::State {
    explicit State(const std::vector<RunEndpoint>& e)
        : endpoints(e)
    {
    }
    const std::vector<RunEndpoint>& endpoints;
    od::parser parser;
    std::string copy; ///< a text with too little readable after it, with padding
    /// Every distinct text once, found by its UTF-8 bytes (no QString made for a repeat).
    struct Hash {
        using is_transparent = void;
        std::size_t operator()(std::string_view s) const { return std::hash<std::string_view> {}(s); }
    };
    std::unordered_map<std::string, QString, Hash, std::equal_to<>> texts;
    std::unordered_map<std::string, SharedJson> json; ///< request bodies and verdicts, by their text
    std::unordered_map<std::string, QStringList> lists; ///< notes and samples, by their text
    QString lastUrlText;
    QUrl lastUrl;

    QString text(std::string_view utf8)
    {
        if (utf8.empty())
            return {};
        if (const auto it = texts.find(utf8); it != texts.end())
            return it->second;
        const QString s = QString::fromUtf8(utf8.data(), qsizetype(utf8.size()));
        texts.emplace(std::string(utf8), s);
        return s;
    }
    QString text(od::value& v)
    {
        const auto s = optString(v);
        return s ? text(*s) : QString();
    }

    /// A JSON value read by nlohmann from its text, once per distinct text (conservative limits).
    SharedJson shared(std::string_view raw)
    {
        const std::string key(raw);
        if (const auto it = json.find(key); it != json.end())
            return it->second;
        SharedJson value(parse(raw));
        json.emplace(key, value);
        return value;
    }

    static nlohmann::json parse(std::string_view raw)
    {
        try {
            return nlohmann::json::parse(
                raw.begin(), raw.end(), [](int depth, nlohmann::json::parse_event_t, nlohmann::json&) {
                    if (std::size_t(depth) > kMaxFastDepth)
                        decline();
                    return true;
                });
        } catch (const nlohmann::json::exception&) {
            decline();
        }
    }

    QStringList stringList(od::value& v)
    {
        if (!present(v, od::json_type::array))
            return {};
        od::array a = take(v.get_array());
        const std::string_view raw = take(a.raw_json());
        const std::string key(raw);
        if (const auto it = lists.find(key); it != lists.end())
            return it->second;
        QStringList out;
        const nlohmann::json j = parse(raw);
        for (const auto& s : j) {
            if (!s.is_string())
                decline();
            out << text(s.get_ref<const std::string&>());
        }
        lists.emplace(key, out);
        return out;
    }
};

FastRecordReader::FastRecordReader(const std::vector<RunEndpoint>& endpoints)
    : m(std::make_unique<State>(endpoints))
{
}

FastRecordReader::~FastRecordReader() = default;

std::size_t FastRecordReader::padding()
{
    return simdjson::SIMDJSON_PADDING;
}

std::optional<RunRecord> FastRecordReader::read(std::string_view text, std::size_t readableAfter)
{
    if (text.size() > kMaxFastRecordBytes || needsStrictReader(text))
        return std::nullopt;
    if (readableAfter < padding()) {
        m->copy.assign(text);
        m->copy.resize(text.size() + padding(), ' ');
        text = std::string_view(m->copy.data(), text.size());
    }
    if (m->parser.capacity() < text.size() || m->parser.max_depth() != kMaxFastDepth) {
        if (m->parser.allocate(std::max(text.size(), std::size_t(64) << 10), kMaxFastDepth))
            return std::nullopt;
    }

    RunRecord r;
    RequestRecord& q = r.request;
    AssembledResponse& a = q.response;
    RequestMetrics& metrics = q.metrics;
    RequestTiming& t = q.timing;
    try {
        od::document doc = take(m->parser.iterate(
            simdjson::padded_string_view(text.data(), text.size(), text.size() + padding())));
        {
            // The object must be the whole text (no second value after it).
            od::object whole = take(doc.get_object());
            if (take(whole.raw_json()).size() != text.size())
                decline();
            doc.rewind();
        }
        od::object obj = take(doc.get_object());

        std::array<bool, KeyCount> seen {};
        std::optional<qint64> endpointIndex;
        std::optional<std::int64_t> counts[4]; // prompt, completion, reasoning, cached
        QString sources[4];
        bool sourcesSeen[4] = {};
        bool sourcesObject = false;
        QString tokensSource;
        bool stampsObject = false;
        struct RawEvent {
            double ms;
            qint64 content, reasoning, tool;
        };
        std::vector<RawEvent> events;
        bool eventsSeen = false;

        int hint = 0;
        for (auto member : obj) {
            od::field field = take(std::move(member));
            const int key = keyId(unescapedKey(field), hint);
            if (seen[std::size_t(key)])
                decline(); // a repeated member: nlohmann keeps the last, leave that to it
            seen[std::size_t(key)] = true;
            od::value v = field.value();
            switch (Key(key)) {
            case EndpointLabel:
                q.endpointLabel = m->text(v);
                break;
            case EndpointIndex:
                endpointIndex = optInteger(v, 0, INT_MAX);
                break;
            case Test:
                if (const auto s = optString(v))
                    r.test = m->text(*s);
                else
                    decline(); // required
                break;
            case Turn:
                r.turn = int(optInteger(v, 0, INT_MAX).value_or(1));
                break;
            case Iteration:
                if (const auto n = optInteger(v, 0, INT_MAX))
                    r.iteration = int(*n);
                else
                    decline();
                break;
            case Warmup:
                if (const auto b = optBool(v))
                    r.warmup = *b;
                else
                    decline();
                break;
            case Concurrency:
                r.concurrency = int(optInteger(v, 0, INT_MAX).value_or(1));
                break;
            case StartOffsetMs:
                r.startOffsetMs = optNumber(v).value_or(0);
                break;
            case StartedAt:
                if (const auto s = optString(v); s && !s->empty())
                    r.startedAt = isoTime(*s);
                break;
            case Url:
                if (const auto s = optString(v)) {
                    const QString url = m->text(*s);
                    if (url != m->lastUrlText) {
                        m->lastUrlText = url;
                        m->lastUrl = QUrl(url);
                    }
                    q.url = m->lastUrl;
                }
                break;
            case Request: {
                if (present(v, od::json_type::object))
                    q.requestBody = m->shared(take(take(v.get_object()).raw_json()));
                break;
            }
            case HttpStatus:
                q.httpStatus = int(optInteger(v, 0, 999).value_or(0));
                break;
            case ContentType:
                q.contentType = m->text(v);
                break;
            case ServerHeader:
                q.serverHeader = m->text(v);
                break;
            case ConnectionReused:
                t.connectionReused = optBool(v).value_or(false);
                break;
            case KeepAlivePings:
                q.keepAlivePings = int(optInteger(v, 0, INT_MAX).value_or(0));
                break;
            case ConnectMs:
            case TtfbMs:
            case TtftAnyMs:
            case TtftVisibleMs:
            case ReasoningMs:
            case FirstSentenceMs:
            case E2eMs:
            case StreamEndMs:
            case DecodeTps:
            case GapP50Ms:
            case GapP99Ms:
            case GapMaxMs: {
                metrics.*kMetricMembers[std::size_t(key)] = optNumber(v);
                break;
            }
            case PromptTokens:
                counts[0] = optInteger(v, 0, std::numeric_limits<qint64>::max());
                break;
            case CompletionTokens:
                counts[1] = optInteger(v, 0, std::numeric_limits<qint64>::max());
                break;
            case ReasoningTokens:
                counts[2] = optInteger(v, 0, std::numeric_limits<qint64>::max());
                break;
            case CachedPromptTokens:
                counts[3] = optInteger(v, 0, std::numeric_limits<qint64>::max());
                break;
            case CountSources: {
                if (!present(v, od::json_type::object))
                    break;
                sourcesObject = true;
                for (auto sm : take(v.get_object())) {
                    od::field sf = take(std::move(sm));
                    const std::string_view k = unescapedKey(sf);
                    static constexpr std::string_view names[]
                        = {"prompt_tokens", "completion_tokens", "reasoning_tokens", "cached_prompt_tokens"};
                    const auto at = std::find(std::begin(names), std::end(names), k);
                    if (at == std::end(names))
                        decline();
                    const std::size_t i = std::size_t(at - std::begin(names));
                    if (sourcesSeen[i])
                        decline();
                    sourcesSeen[i] = true;
                    od::value sv = sf.value();
                    // A null source reads as missing, but its key is there (tokens_source's rule).
                    sources[i] = m->text(sv);
                }
                break;
            }
            case TokensSource:
                tokensSource = m->text(v);
                break;
            case TokenEvents:
                metrics.tokenEvents = int(optInteger(v, 0, INT_MAX).value_or(0));
                break;
            case ThinkingInContent:
                metrics.thinkingInContent = optBool(v).value_or(false);
                break;
            case VisibleContentOffset:
                metrics.visibleContentOffset = int(optInteger(v, 0, INT_MAX).value_or(0));
                break;
            case Notes:
                metrics.notes = m->stringList(v);
                break;
            case Content:
                a.content = m->text(v);
                break;
            case Reasoning:
                a.reasoning = m->text(v);
                break;
            case ReasoningFieldKey:
                if (const auto s = optString(v); s && !s->empty()) {
                    const auto rf = reasoningFieldFromId(m->text(*s));
                    if (!rf)
                        decline();
                    a.reasoningField = *rf;
                }
                break;
            case Role:
                a.role = m->text(v);
                break;
            case FinishReason:
                a.finishReason = m->text(v);
                break;
            case ResponseId:
                if (const auto s = optString(v))
                    a.responseId = QString::fromUtf8(s->data(), qsizetype(s->size())); // one per record
                break;
            case Model:
                a.model = m->text(v);
                break;
            case SystemFingerprint:
                a.systemFingerprint = m->text(v);
                break;
            case Usage: {
                if (!present(v, od::json_type::object))
                    break;
                TokenUsage u;
                bool seenUsage[std::size(usageFields)] = {};
                for (auto um : take(v.get_object())) {
                    od::field uf = take(std::move(um));
                    const std::string_view k = unescapedKey(uf);
                    const auto f = std::find_if(std::begin(usageFields), std::end(usageFields),
                        [&](const UsageField& x) { return k == x.key; });
                    if (f == std::end(usageFields) || seenUsage[f - std::begin(usageFields)])
                        decline();
                    seenUsage[f - std::begin(usageFields)] = true;
                    od::value uv = uf.value();
                    u.*(f->member) = optInteger(
                        uv, std::numeric_limits<qint64>::min(), std::numeric_limits<qint64>::max());
                }
                a.usage = u;
                break;
            }
            case Stream: {
                if (!present(v, od::json_type::object))
                    break;
                std::bitset<7> seenStream;
                for (auto sm : take(v.get_object())) {
                    od::field sf = take(std::move(sm));
                    const std::string_view k = unescapedKey(sf);
                    od::value sv = sf.value();
                    static constexpr std::string_view names[]
                        = {"data_events", "empty_events", "malformed_events", "malformed_samples", "saw_done",
                            "truncated_event", "usage_only_events"};
                    const auto at = std::find(std::begin(names), std::end(names), k);
                    if (at == std::end(names) || seenStream.test(std::size_t(at - std::begin(names))))
                        decline();
                    seenStream.set(std::size_t(at - std::begin(names)));
                    switch (at - std::begin(names)) {
                    case 0:
                        a.dataEvents = int(optInteger(sv, 0, INT_MAX).value_or(0));
                        break;
                    case 1:
                        a.emptyEvents = int(optInteger(sv, 0, INT_MAX).value_or(0));
                        break;
                    case 2:
                        a.malformedEvents = int(optInteger(sv, 0, INT_MAX).value_or(0));
                        break;
                    case 3:
                        a.malformedSamples = m->stringList(sv);
                        break;
                    case 4:
                        a.sawDone = optBool(sv).value_or(false);
                        break;
                    case 5:
                        a.truncatedEvent = optBool(sv).value_or(false);
                        break;
                    case 6:
                        a.usageOnlyEvents = int(optInteger(sv, 0, INT_MAX).value_or(0));
                        break;
                    }
                }
                break;
            }
            case StampedReads: {
                if (!present(v, od::json_type::object))
                    break;
                std::bitset<2> seenReads;
                for (auto sm : take(v.get_object())) {
                    od::field sf = take(std::move(sm));
                    const std::string_view k = unescapedKey(sf);
                    od::value sv = sf.value();
                    const int at = k == "arrival" ? 0 : k == "read_time" ? 1 : -1;
                    if (at < 0 || seenReads.test(std::size_t(at)))
                        decline();
                    seenReads.set(std::size_t(at));
                    (at == 0 ? t.arrivalStampedReads : t.readTimeStampedReads)
                        = int(optInteger(sv, 0, INT_MAX).value_or(0));
                }
                break;
            }
            case Stamps: {
                if (!present(v, od::json_type::object))
                    break;
                stampsObject = true;
                std::bitset<10> seenStamp;
                for (auto sm : take(v.get_object())) {
                    od::field sf = take(std::move(sm));
                    const std::string_view k = unescapedKey(sf);
                    od::value sv = sf.value();
                    static constexpr std::string_view names[] = {"connected", "done", "end", "first_byte",
                        "first_event", "headers", "last_event", "start", "stream_error", "t0"};
                    qint64* targets[] = {&t.connectedNs, &a.doneNs, &t.endNs, &t.firstByteNs, &a.firstEventNs,
                        &t.headersNs, &a.lastEventNs, &t.startNs, &a.streamErrorNs, &t.t0Ns};
                    const auto at = std::find(std::begin(names), std::end(names), k);
                    if (at == std::end(names) || seenStamp.test(std::size_t(at - std::begin(names))))
                        decline();
                    seenStamp.set(std::size_t(at - std::begin(names)));
                    const auto ms = optNumber(sv);
                    *targets[at - std::begin(names)] = ms ? stampOf(*ms) : 0;
                }
                break;
            }
            case Events: {
                if (!present(v, od::json_type::array))
                    break;
                eventsSeen = true;
                for (auto element : take(v.get_array())) {
                    od::value e = take(std::move(element));
                    if (typeOf(e) != od::json_type::array)
                        decline();
                    RawEvent raw {};
                    int n = 0;
                    for (auto part : take(e.get_array())) {
                        od::value p = take(std::move(part));
                        if (n == 0) {
                            double ms;
                            if (p.get_double().get(ms)) {
                                if (typeOf(p) != od::json_type::number)
                                    decline();
                                ms = numberOf(p).asDouble();
                            }
                            raw.ms = ms;
                        } else if (n == 3 && typeOf(p) == od::json_type::boolean) {
                            raw.tool = take(p.get_bool()) ? 1 : 0;
                        } else if (n < 4) {
                            const auto i = wholeNumber(p);
                            if (!i)
                                decline();
                            (n == 1 ? raw.content : n == 2 ? raw.reasoning : raw.tool) = *i;
                        }
                        if (++n > 4)
                            decline();
                    }
                    if (n != 4)
                        decline();
                    events.push_back(raw);
                }
                break;
            }
            case Gates:
            case GateDetails: {
                SharedJson& target = key == Gates ? r.gates : r.gateDetails;
                if (present(v, od::json_type::object))
                    target = m->shared(take(take(v.get_object()).raw_json()));
                break;
            }
            case Ok: // derived from "error" when written; never read
                if (typeOf(v) != od::json_type::boolean)
                    decline();
                take(v.get_bool());
                break;
            case ToolCalls:
            case ServerTimingsKey:
            case StreamErrorKey:
            case Error:
            case LogprobsKey: {
                // Rare and varied: read by the strict reader's own functions, from their text.
                const bool list = key == ToolCalls;
                if (!present(v, list ? od::json_type::array : od::json_type::object))
                    break;
                const std::string_view raw
                    = list ? take(take(v.get_array()).raw_json()) : take(take(v.get_object()).raw_json());
                if (list && raw.find_first_not_of(" []") == std::string_view::npos)
                    break; // [] (and [ ]): no tool calls
                const nlohmann::json j = State::parse(raw);
                const Loc loc = Loc::root("record");
                try {
                    switch (Key(key)) {
                    case ToolCalls:
                        a.toolCalls = toolCallsFromJson(j, loc);
                        break;
                    case ServerTimingsKey:
                        a.timings = timingsFromJson(j, loc);
                        break;
                    case StreamErrorKey:
                        a.streamError = serverErrorFromJson(j, loc);
                        break;
                    case Error:
                        q.failure = failureFromJson(j, loc);
                        break;
                    default:
                        a.logprobs = logprobsFromJson(j, loc);
                        break;
                    }
                } catch (const ResultFileError&) {
                    decline();
                }
                break;
            }
            case KeyCount:
                decline();
            }
        }

        // Where it sat in the plan: the index is authoritative, a label alone names the endpoint.
        const auto& endpoints = m->endpoints;
        if (endpointIndex) {
            if (std::size_t(*endpointIndex) >= endpoints.size())
                decline();
            r.endpoint = int(*endpointIndex);
        } else if (!q.endpointLabel.isEmpty()) {
            const auto it = std::find_if(endpoints.begin(), endpoints.end(),
                [&](const RunEndpoint& e) { return e.endpoint.label == q.endpointLabel; });
            if (it == endpoints.end())
                decline();
            r.endpoint = int(it - endpoints.begin());
        } else {
            decline();
        }
        if (q.endpointLabel.isEmpty())
            q.endpointLabel
                = m->text(endpoints[std::size_t(r.endpoint)].endpoint.displayName().toStdString());
        if (!seen[Test] || !seen[Iteration] || !seen[Warmup])
            decline();

        TokenCount* countsOut[] = {&metrics.promptTokens, &metrics.completionTokens, &metrics.reasoningTokens,
            &metrics.cachedPromptTokens};
        for (int i = 0; i < 4; ++i) {
            countsOut[i]->value = counts[i];
            if (!sources[i].isEmpty()) {
                const auto s = countSourceFromId(sources[i]);
                if (!s)
                    decline();
                countsOut[i]->source = *s;
            }
        }
        if (!sourcesObject || !sourcesSeen[1]) {
            // Older or hand-written files: tokens_source names the completion count's source.
            if (!tokensSource.isEmpty()) {
                const auto s = countSourceFromId(tokensSource);
                if (!s)
                    decline();
                metrics.completionTokens.source = *s;
            }
        }

        if (eventsSeen) {
            a.tokenEvents.reserve(events.size());
            int content = 0;
            int reasoning = 0;
            for (const RawEvent& raw : events) {
                if (raw.content < content || raw.content > a.content.size() || raw.reasoning < reasoning
                    || raw.reasoning > a.reasoning.size() || raw.tool < 0 || raw.tool > 1)
                    decline();
                TokenEvent e;
                e.stampNs = stampOf(raw.ms);
                e.contentBegin = content;
                e.contentEnd = int(raw.content);
                e.reasoningBegin = reasoning;
                e.reasoningEnd = int(raw.reasoning);
                e.toolCall = raw.tool == 1;
                content = e.contentEnd;
                reasoning = e.reasoningEnd;
                a.tokenEvents.push_back(e);
            }
            if (!a.tokenEvents.empty() && t.t0Ns == 0 && !stampsObject)
                t.t0Ns = kBaseNs; // a minimal hand-written record: its event times are from t0
        }
    } catch (const Decline&) {
        return std::nullopt;
    } catch (const std::bad_alloc&) {
        throw;
    } catch (const std::exception&) { // e.g. nlohmann's type errors in a part read the strict way
        return std::nullopt;
    }
    return r;
}

} // namespace qs::results
