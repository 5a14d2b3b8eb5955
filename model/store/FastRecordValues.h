// SPDX-License-Identifier: MIT
#pragma once
// Internal to FastRecordReader.cpp: the members a record may have, and reading one simdjson
// On-Demand value the way the strict reader (RecordReader.cpp, Fields) would — or declining.
// A header, not a second source file, so the per-value helpers stay inlined in the record loop.

#include "model/core/Clock.h"
#include "model/core/RecordFields.h"
#include "model/store/ResultFormat.h"

#include <QDateTime>
#include <algorithm>
#include <array>
#include <optional>
#include <simdjson.h>
#include <string_view>

namespace qs::results::fast_record {

namespace od = simdjson::ondemand;

/// Thrown inside read(): this record is left to the strict reader.
struct Decline { };

[[noreturn]] inline void decline()
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

/// A member's key, unescaped. simdjson 3.0 (Debian 12) takes no argument, 3.6 (Ubuntu 24.04)
/// requires one, 3.12 (Debian 13) has a default; false: an invalid escape declines the record.
template <typename Field> std::string_view unescapedKey(Field& field)
{
    if constexpr (requires { field.unescaped_key(false); })
        return take(field.unescaped_key(false));
    else
        return take(field.unescaped_key());
}

/// A record longer than this goes the strict way: below it, no record can hold the strict
/// reader's kMaxValuesPerItem values, so both readers refuse the same records.
inline constexpr std::size_t kMaxFastRecordBytes = kMaxValuesPerItem;
/// Nesting the quick reader accepts (the strict one allows kMaxDepth from the file's root).
inline constexpr std::size_t kMaxFastDepth = 256;

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
    StampedReads,
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

inline constexpr std::array<std::string_view, KeyCount> kKeys
    = {"cached_prompt_tokens", "completion_tokens", "concurrency", "connect_ms", "connection_reused",
        "content", "content_type", "count_sources", "decode_tps", "e2e_ms", "endpoint", "endpoint_index",
        "error", "events", "finish_reason", "first_sentence_ms", "gap_max_ms", "gap_p50_ms", "gap_p99_ms",
        "gate_details", "gates", "http_status", "iteration", "keep_alive_pings", "logprobs", "model", "notes",
        "ok", "prompt_tokens", "reasoning", "reasoning_field", "reasoning_ms", "reasoning_tokens", "request",
        "response_id", "role", "server_header", "server_timings", "stamped_reads", "stamps",
        "start_offset_ms", "started_at", "stream", "stream_end_ms", "stream_error", "system_fingerprint",
        "test", "thinking_in_content", "token_events", "tokens_source", "tool_calls", "ttfb_ms",
        "ttft_any_ms", "ttft_visible_ms", "turn", "url", "usage", "visible_content_offset", "warmup"};
static_assert(std::is_sorted(kKeys.begin(), kKeys.end()), "binary search and the writer's order");

/// The key's id, trying the one after the previous key first (the writer's order).
inline int keyId(std::string_view key, int& hint)
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
inline od::json_type typeOf(od::value& v)
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
            break;
        default: // big_integer (simdjson 3.10+): numberOf() declined it already
            break;
        }
        return std::nullopt;
    }
};

inline Number numberOf(od::value& v)
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
    default:
        // A big_integer (beyond 64 bits; simdjson 3.10+ names it): the exact reader takes the
        // record, as it takes anything else this one does not.
        decline();
    }
    return out;
}

/// Whether `v` holds a value of type `want`: false for null (consumed), declines for any other.
inline bool present(od::value& v, od::json_type want)
{
    const od::json_type t = typeOf(v);
    if (t == od::json_type::null) {
        take(v.is_null());
        return false;
    }
    if (t != want)
        decline();
    return true;
}

/// Fields::optNumber: null → none, a number → its double, anything else declines.
inline std::optional<double> optNumber(od::value& v)
{
    if (!present(v, od::json_type::number))
        return std::nullopt;
    return numberOf(v).asDouble();
}

/// checkedInteger within [min, max]; null → none.
inline std::optional<qint64> optInteger(od::value& v, qint64 min, qint64 max)
{
    if (!present(v, od::json_type::number))
        return std::nullopt;
    const auto n = numberOf(v).asInteger();
    if (!n || *n < min || *n > max)
        decline();
    return n;
}

inline std::optional<bool> optBool(od::value& v)
{
    if (!present(v, od::json_type::boolean))
        return std::nullopt;
    return take(v.get_bool());
}

/// A string's UTF-8 bytes; null → none.
inline std::optional<std::string_view> optString(od::value& v)
{
    if (!present(v, od::json_type::string))
        return std::nullopt;
    return take(v.get_string());
}

/// Milliseconds from t0 into the synthetic clock (stampFrom / eventsFromJson).
inline qint64 stampOf(double ms)
{
    if (!(std::fabs(ms) <= kMaxStampMs))
        decline();
    return kBaseNs + std::llround(ms * 1e6);
}

/// "2026-01-31T14:05:09.123Z", the form the writer writes, without QDateTime's parser; any other
/// form is read by it, as Fields::time() does.
inline QDateTime isoTime(std::string_view s)
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
            return utcDateTime(date, QTime(h, mi, sec, ms));
    }
    const QDateTime t
        = QDateTime::fromString(QString::fromUtf8(s.data(), qsizetype(s.size())), Qt::ISODateWithMs);
    if (!t.isValid())
        decline();
    return t.toUTC();
}

/// Control characters (never raw in a valid JSON string, and a line holds one record) and
/// \u escapes of surrogates (nlohmann and simdjson differ on lone ones): left to the strict reader.
inline bool needsStrictReader(std::string_view text)
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
inline std::optional<qint64> wholeNumber(od::value& v)
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
inline constexpr auto kMetricMembers = metricMembers();

} // namespace qs::results::fast_record
