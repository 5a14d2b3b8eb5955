// SPDX-License-Identifier: MIT
#include "model/store/ResultFile.h"

#include "model/core/Clock.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSaveFile>
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <limits>

namespace qs {

namespace {

using json = nlohmann::json;
using Kind = ResultFileError::Kind;

/// Loaded records get synthetic monotonic stamps: t0 = 10^15 ns, every other stamp
/// t0 + ms·10^6. Far from 0 (which means "did not happen") even for a stamp hours before t0.
constexpr qint64 kBaseNs = 1'000'000'000'000'000;
/// Stamps further than this from t0 (ms, ≈ 27.8 h) cannot come from one request and would
/// leave the synthetic clock's range.
constexpr double kMaxStampMs = 1e8;
/// Nesting and size limits of the loader: a results file never nests deeper than a request
/// body's JSON schema, and one record holds a few thousand values. Junk that passes the JSON
/// syntax check (`[[[[…`, `[1,1,1,…`) must not exhaust memory building a DOM first.
constexpr int kMaxDepth = 512;
constexpr std::size_t kMaxValuesPerItem = 2'000'000;
/// Serialization flushes to the file in chunks of this size, so saving never holds a second
/// copy of the whole file in memory.
constexpr std::size_t kWriteChunk = 4u << 20;

// ---------------------------------------------------------------------------------------------
// Writing

std::string u8(const QString& s)
{
    return s.toStdString();
}

/// Compact, and never throwing on a stray invalid UTF-8 byte in an opaque request body.
std::string dumpCompact(const json& j)
{
    return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

// Milliseconds are stored with microsecond resolution: more digits would be noise.
double roundUs(double ms)
{
    return std::round(ms * 1000.0) / 1000.0;
}

json optMs(const std::optional<double>& v)
{
    return v && std::isfinite(*v) ? json(roundUs(*v)) : json(nullptr);
}

template <typename T> json opt(const std::optional<T>& v)
{
    return v ? json(*v) : json(nullptr);
}

json isoTime(const QDateTime& t)
{
    return t.isValid() ? json(u8(t.toUTC().toString(Qt::ISODateWithMs))) : json(nullptr);
}

const char* reasoningFieldId(ReasoningField f)
{
    switch (f) {
    case ReasoningField::Reasoning:
        return "reasoning";
    case ReasoningField::ReasoningContent:
        return "reasoning_content";
    case ReasoningField::Both:
        return "both";
    case ReasoningField::None:
        break;
    }
    return "none";
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

json stringList(const QStringList& list)
{
    json a = json::array();
    for (const QString& s : list)
        a.push_back(u8(s));
    return a;
}

json settingsToJson(const RunSettings& s)
{
    return {{"warmup", s.warmup < 0 ? json(nullptr) : json(s.warmup)},
        {"runs", s.runs < 0 ? json(nullptr) : json(s.runs)}, {"order", u8(runOrderId(s.order))},
        {"concurrency", s.concurrency}, {"max_tokens", opt(s.maxTokens)}, {"seed", s.seed},
        {"request_timeout_ms", s.requestTimeoutMs}};
}

json endpointsToJson(const std::vector<RunEndpoint>& endpoints)
{
    json list = json::array();
    for (const RunEndpoint& e : endpoints) {
        // toJson(Endpoint) carries api_key_env, never the key itself.
        list.push_back({{"label", u8(e.endpoint.label)}, {"spec", u8(e.spec)}, {"simulated", e.simulated},
            {"endpoint", toJson(e.endpoint)}, {"probe", e.probe}});
    }
    return list;
}

// ---------------------------------------------------------------------------------------------
// Reading: every access is type-checked and a failure names the path inside the file.

/// A position in the file, built on the stack while descending and only rendered to text when
/// something is wrong (so reading a valid record allocates no path strings).
struct Loc {
    std::string_view prefix; ///< root only: "run.json", "run.json.journal: line 4" or "… records[3]"
    bool prefixIsPath = false; ///< root only: `prefix` already ends inside the JSON (a record's path)
    const Loc* parent = nullptr;
    const char* key = nullptr; ///< a member of the parent, or
    std::size_t index = 0; ///< an element of the parent (when key is null)

    static Loc root(std::string_view where)
    {
        // A `where` naming a record ("run.json: records[12]") continues with ".field"; a file
        // or line ("run.json", "x.journal: line 3") continues with ": field".
        return Loc {where, !where.empty() && where.back() == ']'};
    }
    // A child points at its parent: never take one of a temporary.
    Loc member(const char* k) const& { return Loc {{}, false, this, k, 0}; }
    Loc element(std::size_t i) const& { return Loc {{}, false, this, nullptr, i}; }
    Loc member(const char*) const&& = delete;
    Loc element(std::size_t) const&& = delete;

    std::string path() const
    {
        if (!parent)
            return {};
        std::string p = parent->path();
        if (key) {
            if (!p.empty())
                p += '.';
            p += key;
        } else {
            p += '[' + std::to_string(index) + ']';
        }
        return p;
    }
    std::string str() const
    {
        const Loc* r = this;
        while (r->parent)
            r = r->parent;
        const std::string p = path();
        const std::string pre(r->prefix);
        if (p.empty())
            return pre;
        if (pre.empty())
            return p;
        if (r->prefixIsPath)
            return pre + (p.front() == '[' ? "" : ".") + p;
        return pre + ": " + p;
    }
};

std::string typeName(const json& j)
{
    switch (j.type()) {
    case json::value_t::null:
        return "null";
    case json::value_t::boolean:
        return "true/false";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
    case json::value_t::number_float:
        return "a number";
    case json::value_t::string:
        return "a string";
    case json::value_t::array:
        return "a list";
    case json::value_t::object:
        return "an object";
    case json::value_t::binary:
    case json::value_t::discarded:
        break;
    }
    return "nothing";
}

/// A short, printable excerpt of a value for an error message.
std::string excerpt(const json& j, std::size_t max = 60)
{
    std::string s = dumpCompact(j);
    if (s.size() > max)
        s = s.substr(0, max) + "…";
    return s;
}

[[noreturn]] void badField(const Loc& loc, const std::string& what)
{
    throw ResultFileError(Kind::BadField, loc.str() + ": " + what);
}

[[noreturn]] void expected(const Loc& loc, const char* what, const json& found)
{
    badField(loc, std::string("expected ") + what + ", found " + typeName(found));
}

/// A whole number (an integral float such as 5.0 is accepted: some writers emit them).
std::optional<qint64> toInteger(const json& v)
{
    if (v.is_number_unsigned()) {
        const auto u = v.get<std::uint64_t>();
        return u <= std::uint64_t(std::numeric_limits<qint64>::max()) ? std::optional<qint64>(qint64(u))
                                                                      : std::nullopt;
    }
    if (v.is_number_integer())
        return qint64(v.get<std::int64_t>());
    if (v.is_number_float()) {
        const double d = v.get<double>();
        if (std::isfinite(d) && d == std::trunc(d) && std::fabs(d) < 9e15)
            return qint64(d);
    }
    return std::nullopt;
}

qint64 checkedInteger(const json& v, const Loc& loc, qint64 min, qint64 max)
{
    const std::optional<qint64> n = toInteger(v);
    if (!n) {
        if (v.is_number())
            badField(loc, "expected a whole number, found " + excerpt(v));
        expected(loc, "a whole number", v);
    }
    if (*n < min || *n > max)
        badField(loc,
            std::to_string(*n) + " is out of range (" + std::to_string(min) + " to " + std::to_string(max)
                + ")");
    return *n;
}

QString toQString(const json& v)
{
    const auto& s = v.get_ref<const std::string&>();
    return QString::fromUtf8(s.data(), qsizetype(s.size()));
}

/// Typed access to the members of one JSON object.
class Fields {
public:
    Fields(const json& j, const Loc& loc)
        : m_j(j)
        , m_loc(loc)
    {
        if (!j.is_object())
            expected(loc, "an object", j);
    }

    /// nullptr when the key is missing or null.
    const json* find(const char* key) const
    {
        const auto it = m_j.find(key);
        return it == m_j.end() || it->is_null() ? nullptr : &*it;
    }
    [[noreturn]] void fail(const char* key, const std::string& what) const
    {
        badField(m_loc.member(key), what);
    }
    [[noreturn]] void missing(const char* key) const { fail(key, "missing"); }

    QString string(const char* key) const
    {
        const json* v = find(key);
        if (!v)
            return {};
        if (!v->is_string())
            expected(m_loc.member(key), "a string", *v);
        return toQString(*v);
    }
    QString requiredString(const char* key) const
    {
        if (!find(key))
            missing(key);
        return string(key);
    }
    std::optional<double> optNumber(const char* key) const
    {
        const json* v = find(key);
        if (!v)
            return std::nullopt;
        if (!v->is_number())
            expected(m_loc.member(key), "a number or null", *v);
        return v->get<double>();
    }
    double number(const char* key, double fallback) const { return optNumber(key).value_or(fallback); }
    std::optional<qint64> optInteger(const char* key, qint64 min = std::numeric_limits<qint64>::min(),
        qint64 max = std::numeric_limits<qint64>::max()) const
    {
        const json* v = find(key);
        if (!v)
            return std::nullopt;
        return checkedInteger(*v, m_loc.member(key), min, max);
    }
    int integer(const char* key, int fallback, int min = INT_MIN, int max = INT_MAX) const
    {
        return int(optInteger(key, min, max).value_or(fallback));
    }
    int requiredInteger(const char* key, int min = INT_MIN, int max = INT_MAX) const
    {
        if (!find(key))
            missing(key);
        return integer(key, 0, min, max);
    }
    bool boolean(const char* key, bool fallback) const
    {
        const json* v = find(key);
        if (!v)
            return fallback;
        if (!v->is_boolean())
            expected(m_loc.member(key), "true or false", *v);
        return v->get<bool>();
    }
    bool requiredBoolean(const char* key) const
    {
        if (!find(key))
            missing(key);
        return boolean(key, false);
    }
    /// An opaque value, copied as is; `fallback` when missing (null is kept as null).
    json any(const char* key, const json& fallback) const
    {
        const auto it = m_j.find(key);
        return it == m_j.end() ? fallback : *it;
    }
    /// An object member or nullptr when missing/null; anything else is an error.
    const json* object(const char* key) const
    {
        const json* v = find(key);
        if (v && !v->is_object())
            expected(m_loc.member(key), "an object or null", *v);
        return v;
    }
    const json* array(const char* key) const
    {
        const json* v = find(key);
        if (v && !v->is_array())
            expected(m_loc.member(key), "a list or null", *v);
        return v;
    }
    QDateTime time(const char* key) const
    {
        const QString s = string(key);
        if (s.isEmpty())
            return {};
        const QDateTime t = QDateTime::fromString(s, Qt::ISODateWithMs);
        if (!t.isValid())
            fail(key,
                "expected an ISO 8601 time such as \"2026-01-31T14:05:09.123Z\", found \"" + u8(s.left(40))
                    + "\"");
        return t.toUTC();
    }
    QStringList stringList(const char* key) const
    {
        QStringList out;
        if (const json* a = array(key)) {
            const Loc at = m_loc.member(key);
            for (std::size_t i = 0; i < a->size(); ++i) {
                const json& v = (*a)[i];
                if (!v.is_string())
                    expected(at.element(i), "a string", v);
                out << toQString(v);
            }
        }
        return out;
    }

private:
    const json& m_j;
    const Loc& m_loc;
};

std::optional<CountSource> countSourceFromId(const QString& id)
{
    for (CountSource s :
        {CountSource::None, CountSource::ServerUsage, CountSource::ServerTimings, CountSource::Estimate})
        if (countSourceId(s) == id)
            return s;
    return std::nullopt;
}

std::optional<ReasoningField> reasoningFieldFromId(const QString& id)
{
    for (ReasoningField f : {ReasoningField::None, ReasoningField::Reasoning,
             ReasoningField::ReasoningContent, ReasoningField::Both})
        if (id == QLatin1String(reasoningFieldId(f)))
            return f;
    return std::nullopt;
}

std::optional<FailureKind> failureKindFromId(const QString& id)
{
    // failureKindId() names every kind and says "unknown" past the last one.
    for (int k = 0; k < 256; ++k) {
        const QString name = failureKindId(FailureKind(k));
        if (name == u"unknown")
            break;
        if (name == id)
            return FailureKind(k);
    }
    return std::nullopt;
}

TokenCount countFrom(const Fields& f, const json* sources, const Loc& sourcesLoc, const char* key)
{
    TokenCount c;
    c.value = f.optInteger(key, 0);
    if (sources) {
        const QString id = Fields(*sources, sourcesLoc).string(key);
        if (!id.isEmpty()) {
            const auto s = countSourceFromId(id);
            if (!s)
                badField(sourcesLoc.member(key),
                    "expected usage, server_timings, estimate or none, found \"" + u8(id.left(40)) + "\"");
            c.source = *s;
        }
    }
    return c;
}

TokenUsage usageFromJson(const json& j, const Loc& loc)
{
    const Fields f(j, loc);
    TokenUsage u;
    u.promptTokens = f.optInteger("prompt_tokens");
    u.completionTokens = f.optInteger("completion_tokens");
    u.totalTokens = f.optInteger("total_tokens");
    u.reasoningTokens = f.optInteger("reasoning_tokens");
    u.cachedPromptTokens = f.optInteger("cached_prompt_tokens");
    return u;
}

ServerTimings timingsFromJson(const json& j, const Loc& loc)
{
    const Fields f(j, loc);
    ServerTimings t;
    t.cacheN = f.optInteger("cache_n");
    t.promptN = f.optInteger("prompt_n");
    t.promptMs = f.optNumber("prompt_ms");
    t.promptPerTokenMs = f.optNumber("prompt_per_token_ms");
    t.promptPerSecond = f.optNumber("prompt_per_second");
    t.predictedN = f.optInteger("predicted_n");
    t.predictedMs = f.optNumber("predicted_ms");
    t.predictedPerTokenMs = f.optNumber("predicted_per_token_ms");
    t.predictedPerSecond = f.optNumber("predicted_per_second");
    t.draftN = f.optInteger("draft_n");
    t.draftNAccepted = f.optInteger("draft_n_accepted");
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

std::vector<TokenEvent> eventsFromJson(
    const json& a, const Loc& loc, qsizetype contentSize, qsizetype reasoningSize)
{
    std::vector<TokenEvent> events;
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
            f.fail(
                "order", "expected interleaved, sequential or parallel, found \"" + u8(id.left(40)) + "\"");
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
        endpoints.push_back(std::move(e));
    }
    return endpoints;
}

/// "format" and "version" of a header; throws NotResults / NewerVersion / BadField.
void checkFormat(const json& j, const std::string& where, bool looksLikeSuite)
{
    const Loc loc = Loc::root(where);
    const auto format = j.find("format");
    if (format == j.end()) {
        std::string msg
            = where + ": not a Quantscope results file (it has no \"format\": \"quantscope-results\")";
        if (looksLikeSuite || j.contains("tests"))
            msg += "; it looks like a suite: run it with `quantscope run --suite FILE`";
        throw ResultFileError(Kind::NotResults, msg);
    }
    if (!format->is_string() || format->get_ref<const std::string&>() != ResultsFormatName)
        throw ResultFileError(Kind::NotResults,
            where + ": not a Quantscope results file (its \"format\" is " + excerpt(*format)
                + ", not \"quantscope-results\")");
    const auto version = j.find("version");
    if (version == j.end())
        badField(loc.member("version"), "missing");
    const qint64 v = checkedInteger(*version, loc.member("version"), 1, std::numeric_limits<qint64>::max());
    if (v > ResultsFormatVersion)
        throw ResultFileError(Kind::NewerVersion,
            where + ": written by a newer Quantscope (results format version " + std::to_string(v)
                + "; this Quantscope reads version " + std::to_string(ResultsFormatVersion)
                + "): upgrade Quantscope to open it");
}

// ---------------------------------------------------------------------------------------------
// Parsing with limits

/// Printable ASCII only: parser messages may quote raw junk bytes.
std::string printable(std::string s, std::size_t max = 200)
{
    for (char& c : s)
        if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) > 0x7e)
            c = '?';
    if (s.size() > max)
        s = s.substr(0, max) + "...";
    return s;
}

bool onlyWhitespace(QByteArrayView bytes)
{
    return std::all_of(
        bytes.begin(), bytes.end(), [](char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; });
}

/// A parse error as a ResultFileError: Truncated when the input ended before the JSON did
/// (nlohmann reports the error past the last byte), NotJson otherwise.
ResultFileError syntaxError(const std::string& where, QByteArrayView bytes, const json::parse_error& e)
{
    if (onlyWhitespace(bytes))
        return ResultFileError(
            Kind::Truncated, where + ": the file is empty (" + std::to_string(bytes.size()) + " bytes)");
    if (e.byte > std::size_t(bytes.size())) {
        const auto lines = std::count(bytes.begin(), bytes.end(), '\n');
        return ResultFileError(Kind::Truncated,
            where + ": the file is cut off: the JSON stops in the middle after "
                + std::to_string(bytes.size()) + " bytes (line " + std::to_string(lines + 1)
                + ") — the copy or the save did not finish, or the disk filled up");
    }
    std::string msg = e.what();
    if (const auto at = msg.find("parse error"); at != std::string::npos)
        msg = msg.substr(at);
    return ResultFileError(Kind::NotJson, where + ": not valid JSON (" + printable(msg) + ")");
}

/// Guards a DOM parse: refuses absurd nesting and runaway sizes before they cost memory.
struct Limits {
    std::string where;
    std::size_t values = 0;
    void check(int depth)
    {
        if (depth > kMaxDepth)
            throw ResultFileError(Kind::NotResults,
                where + ": not a Quantscope results file (JSON nested deeper than "
                    + std::to_string(kMaxDepth) + " levels)");
        if (++values > kMaxValuesPerItem)
            throw ResultFileError(Kind::TooLarge,
                where + ": holds more than " + std::to_string(kMaxValuesPerItem)
                    + " JSON values in one item: not a plausible results file");
    }
};

RunRecord readRecord(
    const json& j, const std::vector<RunEndpoint>& endpoints, const std::string& where, json* steal);

/// Reads a results file while it is parsed: header members are kept, each record is converted
/// to a RunRecord the moment its object ends and its DOM dropped, so memory holds one record's
/// DOM at a time. A file whose `records` come before `format`, `version` or `endpoints` (hand
/// edited) is read twice: header first, then the records.
class ResultsReader {
public:
    explicit ResultsReader(std::string source)
        : m_source(std::move(source))
    {
        m_limits.where = m_source;
    }

    RunResult read(QByteArrayView bytes)
    {
        json top = parse(bytes);
        if (m_isJournal)
            throwJournal();
        if (!top.is_object())
            throw ResultFileError(Kind::NotResults,
                m_source + ": not a Quantscope results file (the file holds " + m_topType
                    + ", not an object)");
        checkFormat(top, m_source, m_looksLikeSuite);
        RunResult result = headerFromJson(top, m_source);
        const Loc root = Loc::root(m_source);
        if (!m_sawRecords)
            badField(root.member("records"), "missing");
        if (m_recordsDeferred) {
            m_endpoints = result.endpoints;
            m_secondPass = true;
            m_convert = true;
            m_next = 0;
            m_limits.values = 0;
            parse(bytes);
        }
        result.records = std::move(m_records);
        return result;
    }

private:
    using Event = json::parse_event_t;

    json parse(QByteArrayView bytes)
    {
        try {
            return json::parse(bytes.data(), bytes.data() + bytes.size(),
                [this](int depth, Event event, json& parsed) { return onEvent(depth, event, parsed); });
        } catch (const json::parse_error& e) {
            if (m_isJournal) // its second line is "unexpected '{'; expected end of input"
                throwJournal();
            throw syntaxError(m_source, bytes, e);
        } catch (const json::exception& e) {
            throw ResultFileError(Kind::NotJson, m_source + ": not valid JSON (" + printable(e.what()) + ")");
        }
    }

    [[noreturn]] void throwJournal() const
    {
        throw ResultFileError(Kind::NotResults,
            m_source
                + ": this is the journal of a run, not a results file: turn it into one with "
                  "`quantscope recover "
                + m_source + " --out FILE`");
    }

    bool onEvent(int depth, Event event, json& parsed)
    {
        m_limits.check(depth);
        if (depth == 0) {
            if (event == Event::object_start || event == Event::object_end)
                return true;
            // Not an object: skip it without storing anything, and say so once the text turned out
            // to be JSON at all ("[INFO] …" and "2026-03-01 …" are junk, not a list or a number).
            m_topType = event == Event::array_start ? std::string("a list") : typeName(parsed);
            return false;
        }
        if (depth == 1)
            return onTopLevel(event, parsed);
        if (depth == 2 && m_topKey == "records")
            return onRecord(event, parsed);
        return true;
    }

    static bool isHeaderKey(const std::string& key)
    {
        static const char* const keys[] = {"format", "version", "tool_version", "host", "started_at",
            "ended_at", "complete", "note", "suite", "settings", "endpoints", "journal"};
        return std::any_of(std::begin(keys), std::end(keys), [&](const char* k) { return key == k; });
    }

    bool onTopLevel(Event event, json& parsed)
    {
        const Loc root = Loc::root(m_source);
        switch (event) {
        case Event::key:
            m_topKey = parsed.get_ref<const std::string&>();
            m_limits.values = 0;
            if (m_topKey == "tests")
                m_looksLikeSuite = true;
            if (m_topKey == "records") {
                m_sawRecords = true;
                if (m_secondPass)
                    return true;
                m_convert = m_formatOk && m_versionOk && m_endpointsOk;
                m_recordsDeferred = !m_convert;
                return m_convert; // skipped now, read in a second pass once the header is known
            }
            // Unknown members are skipped without being stored (forward compatible, and junk
            // in them costs no memory).
            return !m_secondPass && isHeaderKey(m_topKey);
        case Event::value:
            if (m_secondPass)
                return true;
            if (m_topKey == "format") {
                // Fail fast on another tool's JSON; the full check comes with the header.
                if (!parsed.is_string() || parsed.get_ref<const std::string&>() != ResultsFormatName)
                    checkFormat(json {{"format", parsed}}, m_source, m_looksLikeSuite);
                m_formatOk = true;
            } else if (m_topKey == "version") {
                json probe = {{"format", ResultsFormatName}, {"version", parsed}};
                checkFormat(probe, m_source, false); // NewerVersion before any record is read
                m_versionOk = true;
            } else if (m_topKey == "journal") {
                m_isJournal = parsed.is_boolean() && parsed.get<bool>();
            } else if (m_topKey == "records") {
                expected(root.member("records"), "a list", parsed);
            }
            return true;
        case Event::object_start:
            if (m_topKey == "records")
                badField(root.member("records"), "expected a list, found an object");
            return true;
        case Event::array_end:
            if (m_topKey == "endpoints" && !m_secondPass) {
                m_endpoints = endpointsFromJson(parsed, root.member("endpoints"));
                m_endpointsOk = true;
            }
            return true;
        case Event::array_start:
        case Event::object_end:
            return true;
        }
        return true;
    }

    bool onRecord(Event event, json& parsed)
    {
        const Loc root = Loc::root(m_source);
        const Loc records = root.member("records");
        switch (event) {
        case Event::object_start:
            m_current = m_next++;
            m_limits.values = 0;
            return true;
        case Event::object_end:
            if (!m_convert)
                return true;
            // The DOM is dropped right after: its request body can be moved, not copied.
            m_records.push_back(readRecord(
                parsed, m_endpoints, m_source + ": records[" + std::to_string(m_current) + "]", &parsed));
            return false; // converted: drop its DOM
        case Event::array_start:
            badField(records.element(m_next), "expected an object, found a list");
        case Event::value:
            expected(records.element(m_next), "an object", parsed);
        case Event::key:
        case Event::array_end:
            return true;
        }
        return true;
    }

    std::string m_source;
    Limits m_limits;
    std::string m_topKey;
    std::string m_topType = "nothing";
    bool m_formatOk = false;
    bool m_versionOk = false;
    bool m_endpointsOk = false;
    bool m_convert = false;
    bool m_recordsDeferred = false;
    bool m_secondPass = false;
    bool m_sawRecords = false;
    bool m_isJournal = false;
    bool m_looksLikeSuite = false;
    std::size_t m_next = 0;
    std::size_t m_current = 0;
    std::vector<RunEndpoint> m_endpoints;
    std::vector<RunRecord> m_records;
};

/// Writes the file piecewise: `{`, the header members one per line (format and version first,
/// so the first line identifies the file), then `"records": [` with one record per line.
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
        if (key == "format" || key == "version")
            continue;
        out += ' ';
        out += dumpCompact(json(key));
        out += ": ";
        out += dumpCompact(value);
        out += ",\n";
    }
    out += " \"records\": [";
    for (std::size_t i = 0; i < result.records.size(); ++i) {
        out += i ? ",\n  " : "\n  ";
        out += dumpCompact(recordToJson(result.records[i], result.endpoints));
        if (out.size() >= kWriteChunk) {
            sink(std::string_view(out));
            out.clear();
        }
    }
    out += result.records.empty() ? "]\n}\n" : "\n ]\n}\n";
    sink(std::string_view(out));
}

} // namespace

// -------------------------------------------------------------------------------------------------

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
    j["connect_ms"] = optMs(m.connectMs);
    j["ttfb_ms"] = optMs(m.ttfbMs);
    j["ttft_any_ms"] = optMs(m.ttftAnyMs);
    j["ttft_visible_ms"] = optMs(m.ttftVisibleMs);
    j["reasoning_ms"] = optMs(m.reasoningMs);
    j["first_sentence_ms"] = optMs(m.firstSentenceMs);
    j["e2e_ms"] = optMs(m.e2eMs);
    j["stream_end_ms"] = optMs(m.streamEndMs);
    j["decode_tps"] = optMs(m.decodeTps);
    j["gap_p50_ms"] = optMs(m.gapP50Ms);
    j["gap_p99_ms"] = optMs(m.gapP99Ms);
    j["gap_max_ms"] = optMs(m.gapMaxMs);
    j["prompt_tokens"] = opt(m.promptTokens.value);
    j["completion_tokens"] = opt(m.completionTokens.value);
    j["reasoning_tokens"] = opt(m.reasoningTokens.value);
    j["cached_prompt_tokens"] = opt(m.cachedPromptTokens.value);
    j["tokens_source"] = u8(countSourceId(m.completionTokens.source));
    j["count_sources"] = countSources(m);
    j["token_events"] = m.tokenEvents;
    j["thinking_in_content"] = m.thinkingInContent;
    j["visible_content_offset"] = m.visibleContentOffset;
    j["notes"] = stringList(m.notes);

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
    j["stream"]
        = {{"saw_done", a.sawDone}, {"truncated_event", a.truncatedEvent}, {"data_events", a.dataEvents},
            {"empty_events", a.emptyEvents}, {"usage_only_events", a.usageOnlyEvents},
            {"malformed_events", a.malformedEvents}, {"malformed_samples", stringList(a.malformedSamples)}};
    j["stream_error"] = a.streamError ? toJson(*a.streamError) : json(nullptr);
    j["ok"] = q.ok();
    j["error"] = errorJson(q.failure);

    // Evaluation (filled by the gates).
    j["gates"] = record.gates;
    j["gate_details"] = record.gateDetails;

    // Raw stamps and the token timeline, in ms from t0 (from the earliest stamp if never sent).
    const qint64 ref = referenceNs(q);
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

RunRecord recordFromJson(
    const nlohmann::json& j, const std::vector<RunEndpoint>& endpoints, const std::string& where)
{
    return readRecord(j, endpoints, where, nullptr);
}

namespace {

/// recordFromJson(); with `steal` (== &j, a DOM about to be dropped) the opaque members are
/// moved out instead of copied.
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

    m.connectMs = f.optNumber("connect_ms");
    m.ttfbMs = f.optNumber("ttfb_ms");
    m.ttftAnyMs = f.optNumber("ttft_any_ms");
    m.ttftVisibleMs = f.optNumber("ttft_visible_ms");
    m.reasoningMs = f.optNumber("reasoning_ms");
    m.firstSentenceMs = f.optNumber("first_sentence_ms");
    m.e2eMs = f.optNumber("e2e_ms");
    m.streamEndMs = f.optNumber("stream_end_ms");
    m.decodeTps = f.optNumber("decode_tps");
    m.gapP50Ms = f.optNumber("gap_p50_ms");
    m.gapP99Ms = f.optNumber("gap_p99_ms");
    m.gapMaxMs = f.optNumber("gap_max_ms");
    const nlohmann::json* sources = f.object("count_sources");
    const Loc sourcesLoc = loc.member("count_sources");
    m.promptTokens = countFrom(f, sources, sourcesLoc, "prompt_tokens");
    m.completionTokens = countFrom(f, sources, sourcesLoc, "completion_tokens");
    m.reasoningTokens = countFrom(f, sources, sourcesLoc, "reasoning_tokens");
    m.cachedPromptTokens = countFrom(f, sources, sourcesLoc, "cached_prompt_tokens");
    if (!sources || !sources->contains("completion_tokens")) {
        // Older or hand-written files: tokens_source names the completion count's source.
        const QString id = f.string("tokens_source");
        if (!id.isEmpty()) {
            const auto s = countSourceFromId(id);
            if (!s)
                f.fail("tokens_source",
                    "expected usage, server_timings, estimate or none, found \"" + u8(id.left(40)) + "\"");
            m.completionTokens.source = *s;
        }
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
            f.fail("reasoning_field",
                "expected none, reasoning, reasoning_content or both, found \"" + u8(id.left(40)) + "\"");
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

    r.gates = f.object("gates") ? *f.object("gates") : nlohmann::json::object();
    r.gateDetails = f.object("gate_details") ? *f.object("gate_details") : nlohmann::json::object();

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

} // namespace

nlohmann::json headerToJson(const RunResult& result)
{
    return {{"format", ResultsFormatName}, {"version", ResultsFormatVersion},
        {"tool_version", u8(result.toolVersion)}, {"host", u8(result.host)},
        {"started_at", isoTime(result.startedAt)}, {"ended_at", isoTime(result.endedAt)},
        {"complete", result.complete}, {"note", u8(result.note)}, {"suite", result.suite},
        {"settings", settingsToJson(result.settings)}, {"endpoints", endpointsToJson(result.endpoints)}};
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
    r.suite = f.any("suite", nullptr);
    if (const nlohmann::json* s = f.object("settings"))
        r.settings = settingsFromJson(*s, loc.member("settings"));
    const nlohmann::json* endpoints = f.find("endpoints");
    if (!endpoints)
        f.missing("endpoints");
    r.endpoints = endpointsFromJson(*endpoints, loc.member("endpoints"));
    return r;
}

QByteArray serializeResults(const RunResult& result)
{
    QByteArray bytes;
    writeResults(
        result, [&](std::string_view chunk) { bytes.append(chunk.data(), qsizetype(chunk.size())); });
    return bytes;
}

RunResult parseResults(QByteArrayView bytes, const QString& sourceName)
{
    const std::string source = sourceName.toStdString();
    if (onlyWhitespace(bytes))
        throw ResultFileError(
            Kind::Truncated, source + ": the file is empty (" + std::to_string(bytes.size()) + " bytes)");
    try {
        return ResultsReader(source).read(bytes);
    } catch (const std::bad_alloc&) {
        throw ResultFileError(Kind::TooLarge, source + ": not enough memory to load this file");
    }
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
            return failed(QStringLiteral("the folder %1 is not writable (%2)")
                              .arg(QDir::toNativeSeparators(dir.filePath()), why));
        return failed(why);
    }
    bool ok = true;
    try {
        writeResults(result, [&](std::string_view chunk) {
            if (ok && file.write(chunk.data(), qint64(chunk.size())) != qint64(chunk.size()))
                ok = false;
        });
    } catch (const std::bad_alloc&) {
        file.cancelWriting();
        return failed(QStringLiteral("not enough memory"));
    }
    if (!ok) {
        const QString why = file.errorString();
        file.cancelWriting();
        return failed(QStringLiteral("%1 (is the disk full?)").arg(why));
    }
    if (!file.commit())
        return failed(QStringLiteral("%1 (is the disk full?)").arg(file.errorString()));
    return {};
}

QByteArray readResultsFile(const QString& path)
{
    const std::string name = QDir::toNativeSeparators(path).toStdString();
    const QFileInfo info(path);
    if (!info.exists())
        throw ResultFileError(Kind::Unreadable, name + ": no such file");
    if (info.isDir())
        throw ResultFileError(Kind::Unreadable, name + ": is a directory, not a file");
    if (!info.isFile())
        throw ResultFileError(Kind::Unreadable, name + ": not a regular file");
    if (info.size() > MaxResultsFileBytes)
        throw ResultFileError(Kind::TooLarge,
            name + ": " + std::to_string(info.size() >> 20) + " MiB is more than a results file may be ("
                + std::to_string(MaxResultsFileBytes >> 20) + " MiB): not a results file, or split the run");
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        throw ResultFileError(
            Kind::Unreadable, name + ": cannot read it: " + file.errorString().toStdString());
    QByteArray bytes;
    try {
        bytes = file.readAll();
    } catch (const std::bad_alloc&) {
        throw ResultFileError(Kind::TooLarge, name + ": not enough memory to read it");
    }
    if (file.error() != QFileDevice::NoError)
        throw ResultFileError(
            Kind::Unreadable, name + ": cannot read it: " + file.errorString().toStdString());
    return bytes;
}

nlohmann::json parseJsonDocument(QByteArrayView bytes, const std::string& where)
{
    Limits limits {where};
    try {
        return nlohmann::json::parse(bytes.data(), bytes.data() + bytes.size(),
            [&](int depth, nlohmann::json::parse_event_t, nlohmann::json&) {
                limits.check(depth);
                return true;
            });
    } catch (const nlohmann::json::parse_error& e) {
        throw syntaxError(where, bytes, e);
    } catch (const nlohmann::json::exception& e) {
        throw ResultFileError(Kind::NotJson, where + ": not valid JSON (" + printable(e.what()) + ")");
    } catch (const std::bad_alloc&) {
        throw ResultFileError(Kind::TooLarge, where + ": not enough memory to read it");
    }
}

RunResult loadResults(const QString& path)
{
    const QByteArray bytes = readResultsFile(path);
    try {
        return parseResults(bytes, QDir::toNativeSeparators(path));
    } catch (const ResultFileError& e) {
        const QString journal = path + QStringLiteral(".journal");
        if (e.kind() != Kind::Truncated || !QFileInfo(journal).isFile())
            throw;
        throw ResultFileError(Kind::Truncated,
            std::string(e.what()) + ". The run's journal is beside it: recover every finished request with "
                + "`quantscope recover " + QDir::toNativeSeparators(journal).toStdString() + " --out FILE`");
    }
}

} // namespace qs
