// SPDX-License-Identifier: MIT
// One record's text into a RunRecord with simdjson On-Demand; declines whatever it is not sure of.
#include "model/store/FastRecordReader.h"

#include "model/core/RecordFields.h"
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

namespace od = simdjson::ondemand;

/// Thrown inside read(): this record is left to the strict reader.
struct Decline { };

[[noreturn]] void decline()
{
    throw Decline {};
}

template <typename T> T take(simdjson::simdjson_result<T>&& result)
{
    T value;
    if (std::move(result).get(value))
        decline();
    return value;
}

/// A record longer than this goes the strict way: below it, no record can hold the strict
/// reader's kMaxValuesPerItem values, so both readers refuse the same records.
constexpr std::size_t kMaxFastRecordBytes = kMaxValuesPerItem;
/// Nesting the quick reader accepts (the strict one allows kMaxDepth from the file's root).
constexpr std::size_t kMaxFastDepth = 256;

/// The members a record may have, in the order the writer writes them (nlohmann sorts keys).
enum Key : int {
    CachedPromptTokens,
    CompletionTokens,
    Concurrency,
    ConnectMs,
    ConnectionReused,
    Content,
    ContentType,
    CountSources,
    DecodeTps,
    E2eMs,
    EndpointLabel,
    EndpointIndex,
    Error,
    Events,
    FinishReason,
    FirstSentenceMs,
    GapMaxMs,
    GapP50Ms,
    GapP99Ms,
    GateDetails,
    Gates,
    HttpStatus,
    Iteration,
    KeepAlivePings,
    LogprobsKey,
    Model,
    Notes,
    Ok,
    PromptTokens,
    Reasoning,
    ReasoningFieldKey,
    ReasoningMs,
    ReasoningTokens,
    Request,
    ResponseId,
    Role,
    ServerHeader,
    ServerTimingsKey,
    Stamps,
    StartOffsetMs,
    StartedAt,
    Stream,
    StreamEndMs,
    StreamErrorKey,
    SystemFingerprint,
    Test,
    ThinkingInContent,
    TokenEvents,
    TokensSource,
    ToolCalls,
    TtfbMs,
    TtftAnyMs,
    TtftVisibleMs,
    Turn,
    Url,
    Usage,
    VisibleContentOffset,
    Warmup,
    KeyCount
};

constexpr std::array<std::string_view, KeyCount> kKeys = {"cached_prompt_tokens", "completion_tokens",
    "concurrency", "connect_ms", "connection_reused", "content", "content_type", "count_sources",
    "decode_tps", "e2e_ms", "endpoint", "endpoint_index", "error", "events", "finish_reason",
    "first_sentence_ms", "gap_max_ms", "gap_p50_ms", "gap_p99_ms", "gate_details", "gates", "http_status",
    "iteration", "keep_alive_pings", "logprobs", "model", "notes", "ok", "prompt_tokens", "reasoning",
    "reasoning_field", "reasoning_ms", "reasoning_tokens", "request", "response_id", "role", "server_header",
    "server_timings", "stamps", "start_offset_ms", "started_at", "stream", "stream_end_ms", "stream_error",
    "system_fingerprint", "test", "thinking_in_content", "token_events", "tokens_source", "tool_calls",
    "ttfb_ms", "ttft_any_ms", "ttft_visible_ms", "turn", "url", "usage", "visible_content_offset", "warmup"};
static_assert(std::is_sorted(kKeys.begin(), kKeys.end()), "binary search and the writer's order");

/// The key's id, trying the one after the previous key first (the writer's order).
int keyId(std::string_view key, int& hint)
{
    if (hint < KeyCount && kKeys[std::size_t(hint)] == key)
        return hint++;
    const auto it = std::lower_bound(kKeys.begin(), kKeys.end(), key);
    if (it == kKeys.end() || *it != key)
        decline(); // a member this reader does not know: the strict one ignores or refuses it
    hint = int(it - kKeys.begin()) + 1;
    return hint - 1;
}

/// What a value is, as the strict reader asks.
od::json_type typeOf(od::value& v)
{
    return take(v.type());
}

/// A number as nlohmann holds it: an integer (signed or not) or a double.
struct Number {
    od::number_type type;
    std::int64_t i = 0;
    std::uint64_t u = 0;
    double d = 0;
    double asDouble() const
    {
        return type == od::number_type::signed_integer  ? double(i)
            : type == od::number_type::unsigned_integer ? double(u)
                                                        : d;
    }
    /// toInteger(): a whole number, an integral float below 9e15 included.
    std::optional<qint64> asInteger() const
    {
        switch (type) {
        case od::number_type::signed_integer:
            return qint64(i);
        case od::number_type::unsigned_integer:
            return u <= std::uint64_t(std::numeric_limits<qint64>::max()) ? std::optional<qint64>(qint64(u))
                                                                          : std::nullopt;
        case od::number_type::floating_point_number:
            if (std::isfinite(d) && d == std::trunc(d) && std::fabs(d) < 9e15)
                return qint64(d);
        }
        return std::nullopt;
    }
};

Number numberOf(od::value& v)
{
    od::number n = take(v.get_number());
    Number out {n.get_number_type()};
    switch (out.type) {
    case od::number_type::signed_integer:
        out.i = n.get_int64();
        break;
    case od::number_type::unsigned_integer:
        out.u = n.get_uint64();
        break;
    case od::number_type::floating_point_number:
        out.d = n.get_double();
        break;
    }
    return out;
}

/// Fields::optNumber: null → none, a number → its double, anything else declines.
std::optional<double> optNumber(od::value& v)
{
    const od::json_type t = typeOf(v);
    if (t == od::json_type::null) {
        take(v.is_null());
        return std::nullopt;
    }
    if (t != od::json_type::number)
        decline();
    return numberOf(v).asDouble();
}

/// checkedInteger within [min, max]; null → none.
std::optional<qint64> optInteger(od::value& v, qint64 min, qint64 max)
{
    const od::json_type t = typeOf(v);
    if (t == od::json_type::null) {
        take(v.is_null());
        return std::nullopt;
    }
    if (t != od::json_type::number)
        decline();
    const auto n = numberOf(v).asInteger();
    if (!n || *n < min || *n > max)
        decline();
    return n;
}

std::optional<bool> optBool(od::value& v)
{
    const od::json_type t = typeOf(v);
    if (t == od::json_type::null) {
        take(v.is_null());
        return std::nullopt;
    }
    if (t != od::json_type::boolean)
        decline();
    return take(v.get_bool());
}

/// A string's UTF-8 bytes; null → none.
std::optional<std::string_view> optString(od::value& v)
{
    const od::json_type t = typeOf(v);
    if (t == od::json_type::null) {
        take(v.is_null());
        return std::nullopt;
    }
    if (t != od::json_type::string)
        decline();
    return take(v.get_string());
}

/// Milliseconds from t0 into the synthetic clock (stampFrom / eventsFromJson).
qint64 stampOf(double ms)
{
    if (!(std::fabs(ms) <= kMaxStampMs))
        decline();
    return kBaseNs + std::llround(ms * 1e6);
}

/// "2026-01-31T14:05:09.123Z", the form the writer writes, without QDateTime's parser; any other
/// form is read by it, as Fields::time() does.
QDateTime isoTime(std::string_view s)
{
    const auto digits = [&](std::size_t at, std::size_t n, int& out) {
        out = 0;
        for (std::size_t k = at; k < at + n; ++k) {
            if (s[k] < '0' || s[k] > '9')
                return false;
            out = out * 10 + (s[k] - '0');
        }
        return true;
    };
    int y, mo, d, h, mi, sec, ms;
    if (s.size() == 24 && s[4] == '-' && s[7] == '-' && s[10] == 'T' && s[13] == ':' && s[16] == ':'
        && s[19] == '.' && s[23] == 'Z' && digits(0, 4, y) && digits(5, 2, mo) && digits(8, 2, d)
        && digits(11, 2, h) && digits(14, 2, mi) && digits(17, 2, sec) && digits(20, 3, ms) && y > 0 && h < 24
        && mi < 60 && sec < 60) {
        const QDate date(y, mo, d);
        if (date.isValid())
            return QDateTime(date, QTime(h, mi, sec, ms), Qt::UTC);
    }
    const QDateTime t
        = QDateTime::fromString(QString::fromUtf8(s.data(), qsizetype(s.size())), Qt::ISODateWithMs);
    if (!t.isValid())
        decline();
    return t.toUTC();
}

/// Control characters (never raw in a valid JSON string, and a line holds one record) and
/// \u escapes of surrogates (nlohmann and simdjson differ on lone ones): left to the strict reader.
bool needsStrictReader(std::string_view text)
{
    // Eight bytes at a time: a byte below 0x20 sets its top bit in (x - 0x20…) & ~x.
    constexpr std::uint64_t ones = 0x0101010101010101ull;
    std::size_t at = 0;
    for (; at + 8 <= text.size(); at += 8) {
        std::uint64_t x;
        std::memcpy(&x, text.data() + at, 8);
        if ((x - ones * 0x20) & ~x & (ones * 0x80))
            return true;
    }
    for (; at < text.size(); ++at)
        if (static_cast<unsigned char>(text[at]) < 0x20)
            return true;
    for (std::size_t u = text.find("\\u"); u != std::string_view::npos; u = text.find("\\u", u + 2)) {
        if (u + 3 < text.size() && (text[u + 2] == 'd' || text[u + 2] == 'D'))
            return true;
    }
    return false;
}

/// A whole number the quick way (most are plain integers), else as toInteger() reads it.
std::optional<qint64> wholeNumber(od::value& v)
{
    std::int64_t i;
    if (!v.get_int64().get(i))
        return qint64(i);
    if (typeOf(v) != od::json_type::number)
        decline();
    return numberOf(v).asInteger();
}

/// Each metric member by its key.
constexpr std::array<std::optional<double> RequestMetrics::*, KeyCount> metricMembers()
{
    std::array<std::optional<double> RequestMetrics::*, KeyCount> members {};
    for (const MetricField& f : metricFields) {
        for (std::size_t k = 0; k < kKeys.size(); ++k)
            if (kKeys[k] == f.key)
                members[k] = f.member;
    }
    return members;
}
constexpr auto kMetricMembers = metricMembers();

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
        const od::json_type t = typeOf(v);
        if (t == od::json_type::null) {
            take(v.is_null());
            return {};
        }
        if (t != od::json_type::array)
            decline();
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
            const int key = keyId(take(field.unescaped_key()), hint);
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
                const od::json_type type = typeOf(v);
                if (type == od::json_type::null)
                    take(v.is_null());
                else if (type == od::json_type::object)
                    q.requestBody = m->shared(take(take(v.get_object()).raw_json()));
                else
                    decline();
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
                const od::json_type type = typeOf(v);
                if (type == od::json_type::null) {
                    take(v.is_null());
                    break;
                }
                if (type != od::json_type::object)
                    decline();
                sourcesObject = true;
                for (auto sm : take(v.get_object())) {
                    od::field sf = take(std::move(sm));
                    const std::string_view k = take(sf.unescaped_key());
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
                const od::json_type type = typeOf(v);
                if (type == od::json_type::null) {
                    take(v.is_null());
                    break;
                }
                if (type != od::json_type::object)
                    decline();
                TokenUsage u;
                bool seenUsage[std::size(usageFields)] = {};
                for (auto um : take(v.get_object())) {
                    od::field uf = take(std::move(um));
                    const std::string_view k = take(uf.unescaped_key());
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
                const od::json_type type = typeOf(v);
                if (type == od::json_type::null) {
                    take(v.is_null());
                    break;
                }
                if (type != od::json_type::object)
                    decline();
                std::bitset<7> seenStream;
                for (auto sm : take(v.get_object())) {
                    od::field sf = take(std::move(sm));
                    const std::string_view k = take(sf.unescaped_key());
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
            case Stamps: {
                const od::json_type type = typeOf(v);
                if (type == od::json_type::null) {
                    take(v.is_null());
                    break;
                }
                if (type != od::json_type::object)
                    decline();
                stampsObject = true;
                std::bitset<10> seenStamp;
                for (auto sm : take(v.get_object())) {
                    od::field sf = take(std::move(sm));
                    const std::string_view k = take(sf.unescaped_key());
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
                const od::json_type type = typeOf(v);
                if (type == od::json_type::null) {
                    take(v.is_null());
                    break;
                }
                if (type != od::json_type::array)
                    decline();
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
                const od::json_type type = typeOf(v);
                SharedJson& target = key == Gates ? r.gates : r.gateDetails;
                if (type == od::json_type::null)
                    take(v.is_null());
                else if (type == od::json_type::object)
                    target = m->shared(take(take(v.get_object()).raw_json()));
                else
                    decline();
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
                const od::json_type type = typeOf(v);
                if (type == od::json_type::null) {
                    take(v.is_null());
                    break;
                }
                const bool list = key == ToolCalls;
                if (type != (list ? od::json_type::array : od::json_type::object))
                    decline();
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
