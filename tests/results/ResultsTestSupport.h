// SPDX-License-Identifier: MIT
#pragma once

// Builders shared by the result-file and journal tests: realistic records made by feeding SSE
// chunks through the real StreamAssembler and computeMetrics, telemetry and judging, and small
// file helpers.

#include "model/core/Rubric.h"
#include "model/store/ResultFile.h"
#include "model/store/RunJournal.h"
#include "model/wire/RequestMetrics.h"
#include "model/wire/StreamAssembler.h"

#include <QByteArray>
#include <QFile>
#include <QString>
#include <cmath>
#include <gtest/gtest.h>
#include <limits>
#include <nlohmann/json.hpp>
#include <ostream>

inline void PrintTo(const QString& s, std::ostream* os)
{
    *os << '"' << s.toStdString() << '"';
}

namespace qs::test {

using json = nlohmann::json;

/// Runs `load` and expects a ResultFileError of `kind` whose message contains every `needle`.
/// Returns the message.
template <typename F>
std::string expectError(F&& load, ResultFileError::Kind kind, std::initializer_list<const char*> needles)
{
    try {
        load();
    } catch (const ResultFileError& e) {
        EXPECT_EQ(int(e.kind()), int(kind)) << e.what();
        for (const char* n : needles)
            EXPECT_NE(std::string(e.what()).find(n), std::string::npos)
                << "missing \"" << n << "\" in: " << e.what();
        return e.what();
    }
    ADD_FAILURE() << "no ResultFileError was thrown";
    return {};
}

/// Builds one request's record the way StreamingClient does: stamps, SSE events, assembly, metrics.
class StreamBuilder {
public:
    explicit StreamBuilder(qint64 t0Ns = 7'000'123'456'789)
        : m_t0(t0Ns)
    {
        m_record.timing.startNs = t0Ns - 2'345'678;
        m_record.timing.connectedNs = t0Ns - 1'000'321;
        m_record.timing.t0Ns = t0Ns;
        m_record.httpStatus = 200;
        m_record.contentType = QStringLiteral("text/event-stream");
        m_record.serverHeader = QStringLiteral("llama.cpp");
    }

    StreamBuilder& headersAt(double ms)
    {
        m_record.timing.firstByteNs = at(ms);
        m_record.timing.headersNs = at(ms);
        return *this;
    }
    StreamBuilder& chunk(double ms, const json& payload)
    {
        return raw(ms, QByteArray::fromStdString(payload.dump()));
    }
    StreamBuilder& raw(double ms, const QByteArray& data, bool complete = true)
    {
        SseEvent e;
        e.data = data;
        e.stampNs = at(ms);
        e.complete = complete;
        m_assembler.add(e);
        return *this;
    }
    StreamBuilder& content(double ms, const QString& text)
    {
        return delta(ms, {{"content", text.toStdString()}});
    }
    StreamBuilder& reasoning(double ms, const QString& text)
    {
        return delta(ms, {{"reasoning_content", text.toStdString()}});
    }
    StreamBuilder& tool(double ms, int index, const char* id, const char* name, const char* args)
    {
        json fragment = {{"index", index}, {"function", {{"arguments", args}}}};
        if (id)
            fragment["id"] = id;
        if (name)
            fragment["function"]["name"] = name;
        return delta(ms, {{"tool_calls", json::array({fragment})}});
    }
    StreamBuilder& finish(double ms, const char* reason)
    {
        return chunk(ms,
            {{"id", "chatcmpl-1"}, {"model", "qwen3"},
                {"choices",
                    json::array({{{"index", 0}, {"delta", json::object()}, {"finish_reason", reason}}})}});
    }
    StreamBuilder& usage(double ms, int prompt, int completion, std::optional<int> cached = {})
    {
        json u = {{"prompt_tokens", prompt}, {"completion_tokens", completion},
            {"total_tokens", prompt + completion}};
        if (cached)
            u["prompt_tokens_details"] = {{"cached_tokens", *cached}};
        return chunk(ms, {{"choices", json::array()}, {"usage", u}});
    }
    StreamBuilder& timings(double ms, int promptN, int cacheN, int predictedN)
    {
        return chunk(ms,
            {{"choices", json::array({{{"index", 0}, {"delta", json::object()}, {"finish_reason", "stop"}}})},
                {"timings",
                    {{"cache_n", cacheN}, {"prompt_n", promptN}, {"prompt_ms", 41.25},
                        {"prompt_per_token_ms", 1.5}, {"prompt_per_second", 666.6},
                        {"predicted_n", predictedN}, {"predicted_ms", 812.5},
                        {"predicted_per_token_ms", 25.1}, {"predicted_per_second", 39.8}}}});
    }
    StreamBuilder& done(double ms) { return raw(ms, "[DONE]"); }
    StreamBuilder& endAt(double ms)
    {
        m_record.timing.endNs = at(ms);
        return *this;
    }
    StreamBuilder& failure(const Failure& f)
    {
        m_record.failure = f;
        return *this;
    }

    RequestRecord build(const QString& label, const json& body)
    {
        m_record.endpointLabel = label;
        m_record.url = QUrl(QStringLiteral("http://10.0.0.5:8080/v1/chat/completions"));
        m_record.requestBody = body;
        m_record.keepAlivePings = 3;
        m_record.response = m_assembler.takeResponse();
        m_record.metrics = computeMetrics(m_record.timing, m_record.response);
        return m_record;
    }

private:
    qint64 at(double ms) const { return m_t0 + qint64(ms * 1e6); }
    StreamBuilder& delta(double ms, const json& d)
    {
        return chunk(ms,
            {{"id", "chatcmpl-1"}, {"model", "qwen3"}, {"system_fingerprint", "fp_1"},
                {"choices", json::array({{{"index", 0}, {"delta", d}, {"finish_reason", nullptr}}})}});
    }

    qint64 m_t0;
    StreamAssembler m_assembler;
    RequestRecord m_record;
};

inline json requestBody(const char* prompt, bool tools = false)
{
    json body = {{"model", "qwen3"}, {"stream", true}, {"stream_options", {{"include_usage", true}}},
        {"max_tokens", 256}, {"temperature", 0},
        {"messages",
            json::array({{{"role", "system"}, {"content", "You are a concise voice assistant."}},
                {{"role", "user"}, {"content", prompt}}})}};
    if (tools)
        body["tools"] = json::array({{{"type", "function"},
            {"function",
                {{"name", "web_search"},
                    {"parameters",
                        {{"type", "object"}, {"properties", {{"query", {{"type", "string"}}}}},
                            {"required", json::array({"query"})}}}}}}});
    return body;
}

inline std::vector<RunEndpoint> makeEndpoints()
{
    RunEndpoint a;
    a.endpoint.label = QStringLiteral("NVFP4 vLLM");
    a.endpoint.baseUrl = QUrl(QStringLiteral("http://10.0.0.5:8000"));
    a.endpoint.model = QStringLiteral("qwen3");
    a.endpoint.apiKeyEnv = QStringLiteral("QS_TEST_SECRET_KEY");
    a.endpoint.runtime = Runtime::Vllm;
    a.endpoint.quantization = QStringLiteral("NVFP4");
    a.endpoint.extraBody = {{"chat_template_kwargs", {{"enable_thinking", false}}}};
    a.spec = QStringLiteral("http://10.0.0.5:8000");
    a.probe = {{"runtime", "vllm"}, {"rtt_median_ms", 0.42}, {"models", json::array({"qwen3"})}};
    RunEndpoint b;
    b.endpoint.label = QStringLiteral("Q4_K_M sim");
    b.endpoint.baseUrl = QUrl(QStringLiteral("http://127.0.0.1:39123"));
    b.endpoint.runtime = Runtime::LlamaServer;
    b.spec = QStringLiteral("sim:q4km-like");
    b.simulated = true;
    return {a, b};
}

inline RunRecord runRecord(int endpoint, const char* test, int iteration, bool warmup, RequestRecord request)
{
    RunRecord r;
    r.endpoint = endpoint;
    r.test = QString::fromUtf8(test);
    r.iteration = iteration;
    r.warmup = warmup;
    r.concurrency = 2;
    r.startOffsetMs = 1234.5678 * iteration;
    r.startedAt = QDateTime::fromString(QStringLiteral("2026-03-01T10:20:30.456Z"), Qt::ISODateWithMs);
    r.request = std::move(request);
    return r;
}

/// Six records covering the cases a file must keep: success with reasoning and usage, llama-server
/// timings, a tool call, a warm-up, a failure with partial data and estimated counts, a request
/// that was never sent, and a stream error with malformed events and thinking left in content.
inline RunResult makeResult()
{
    RunResult result;
    result.toolVersion = QStringLiteral("0.1.0");
    result.host = QStringLiteral("bench-host");
    result.startedAt = QDateTime::fromString(QStringLiteral("2026-03-01T10:20:00Z"), Qt::ISODate);
    result.endedAt = QDateTime::fromString(QStringLiteral("2026-03-01T10:25:00.5Z"), Qt::ISODateWithMs);
    result.complete = true;
    result.note = QStringLiteral("a note with \"quotes\" and ünïcödé ✓");
    result.suite = {{"id", "voice-assistant"}, {"tests", json::array({{{"id", "factual"}}})}};
    result.settings.warmup = 2;
    result.settings.runs = 5;
    result.settings.order = RunOrder::Sequential;
    result.settings.concurrency = 2;
    result.settings.maxTokens = 300;
    result.settings.seed = 18'000'000'000'000'000'000ull; // above INT64_MAX: must stay unsigned
    result.settings.requestTimeoutMs = 60000;
    result.endpoints = makeEndpoints();

    // 1. Success: reasoning, then a two-sentence answer; usage with cached tokens.
    StreamBuilder ok;
    ok.headersAt(3.2)
        .reasoning(80.1234567, QStringLiteral("Let me think"))
        .reasoning(95.5, QStringLiteral(" briefly."));
    ok.content(120.25, QStringLiteral("Tokyo is the capital")).content(140.0, QStringLiteral(" of Japan."));
    ok.content(160.75, QStringLiteral(" Anything else? 😀"))
        .finish(170, "stop")
        .usage(171, 42, 12, 30)
        .done(172.5)
        .endAt(173);
    result.records.push_back(runRecord(
        0, "factual", 1, false, ok.build(QStringLiteral("NVFP4 vLLM"), requestBody("Capital of Japan?"))));
    result.records.back().gates = {{"answer", true}, {"no_markdown", nullptr}};
    result.records.back().gateDetails = {{"answer", {{"matched", "Tokyo"}, {"range", json::array({0, 5})}}}};

    // 2. llama-server timings instead of usage (counts from server_timings).
    StreamBuilder timed(9'000'000'000'000);
    timed.headersAt(300)
        .content(310.5, QStringLiteral("Hello"))
        .content(335.25, QStringLiteral(" there!"))
        .timings(336, 20, 100, 2)
        .done(337)
        .endAt(337.5);
    result.records.push_back(runRecord(1, "greeting", 1, false, timed.build(QString(), requestBody("Hi!"))));

    // 3. Tool call (two fragments), warm-up.
    StreamBuilder tool;
    tool.headersAt(1)
        .tool(90, 0, "call_1", "web_search", "")
        .tool(110, 0, nullptr, nullptr, "{\"query\":")
        .tool(125, 0, nullptr, nullptr, "\"weather Paris\"}")
        .finish(126, "tool_calls")
        .usage(127, 80, 9)
        .done(128)
        .endAt(128);
    result.records.push_back(runRecord(0, "weather", 1, true,
        tool.build(QStringLiteral("NVFP4 vLLM"), requestBody("Weather in Paris?", true))));

    // 4. Disconnected mid-answer: partial content and stamps kept, counts estimated (no usage).
    StreamBuilder cut;
    cut.headersAt(2)
        .content(50, QStringLiteral("One"))
        .content(75, QStringLiteral(" two"))
        .content(100, QStringLiteral(" thr"))
        .endAt(101);
    cut.failure(makeFailure(FailureKind::Disconnected,
        QStringLiteral("the connection closed before the stream ended"),
        QStringLiteral("check the server log")));
    result.records.push_back(
        runRecord(1, "long", 2, false, cut.build(QStringLiteral("Q4_K_M sim"), requestBody("Count."))));

    // 5. Never sent: connection refused (no t0, no events).
    RequestRecord refused;
    refused.endpointLabel = QStringLiteral("Q4_K_M sim");
    refused.url = QUrl(QStringLiteral("http://127.0.0.1:39123/v1/chat/completions"));
    refused.requestBody = requestBody("Hello?");
    refused.timing.startNs = 8'000'000'000'000;
    refused.timing.endNs = 8'000'412'345'000;
    refused.failure = makeFailure(FailureKind::ConnectionRefused, QStringLiteral("connection refused"),
        QStringLiteral("is the server running on port 39123?"));
    refused.metrics = computeMetrics(refused.timing, refused.response);
    result.records.push_back(runRecord(1, "factual", 3, false, refused));

    // 6. Thinking left in content, a malformed event, then an error inside the stream.
    StreamBuilder leak;
    leak.headersAt(5)
        .content(60, QStringLiteral("<think>hmm"))
        .content(70, QStringLiteral("</think>"))
        .content(90, QStringLiteral(" 15 balls."));
    leak.raw(95, "{not json")
        .raw(96, R"({"error":{"code":500,"message":"CUDA out of memory","type":"server_error"}})")
        .endAt(97);
    leak.failure(makeFailure(FailureKind::StreamError,
        QStringLiteral("the server reported an error inside the stream"), QString(), 200));
    RequestRecord leaked = leak.build(QStringLiteral("NVFP4 vLLM"), requestBody("3 boxes of 5 balls?"));
    leaked.failure.serverMessage = QStringLiteral("CUDA out of memory");
    RunRecord r6 = runRecord(0, "reasoning", 4, false, leaked);
    r6.turn = 3;
    result.records.push_back(r6);
    return result;
}

/// A telemetry source as the scraper builds it: `seriesCount` series of a histogram with `le`
/// labels (the last one "+Inf") and a gauge with a label needing escapes.
inline TelemetrySource makeSource(
    int endpoint, const QString& url, TelemetrySource::Kind kind, int seriesCount)
{
    TelemetrySource s;
    s.endpoint = endpoint;
    s.url = url;
    s.kind = kind;
    s.format = QStringLiteral("prometheus-0.0.4");
    s.families = {{QStringLiteral("vllm:time_to_first_token_seconds"), MetricType::Histogram},
        {QStringLiteral("vllm:num_requests_waiting"), MetricType::Gauge}};
    for (int i = 0; i < seriesCount; ++i) {
        TelemetrySeries series;
        const bool gauge = i == seriesCount - 1;
        series.family = s.families[gauge ? 1 : 0].name;
        series.type = s.families[gauge ? 1 : 0].type;
        series.name = gauge ? series.family : series.family + QStringLiteral("_bucket");
        // Label order as on the wire (not sorted): the file must keep it.
        series.labels = {{QStringLiteral("model_name"), QStringLiteral("qwen \"3.5\" ünï\\x")},
            {QStringLiteral("engine"), QString::number(i % 3)}};
        if (!gauge)
            series.labels.emplace_back(QStringLiteral("le"),
                i == seriesCount - 2 ? QStringLiteral("+Inf") : QString::number(0.001 * (i + 1)));
        s.series.push_back(series);
    }
    s.notes = {QStringLiteral("1.2 s: connection refused (exporter down?)")};
    return s;
}

/// A run's telemetry: a runtime and an exporter, idle baselines, gaps, NaN and infinities.
inline Telemetry makeTelemetry()
{
    Telemetry t;
    t.periodMs = 333;
    t.notes = {QStringLiteral("scrape period 333 ms")};
    t.sources.push_back(
        makeSource(0, QStringLiteral("http://127.0.0.1:8000/metrics"), TelemetrySource::Kind::Runtime, 6));
    t.sources.push_back(
        makeSource(1, QStringLiteral("http://10.0.0.5:9400/metrics"), TelemetrySource::Kind::Exporter, 3));
    t.sources[0].processStartUnix = 1772360400.25;
    t.sources[1].format = QStringLiteral("openmetrics-1.0.0");
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double inf = std::numeric_limits<double>::infinity();
    const auto sample
        = [&](int source, double at, TelemetrySample::Phase phase, std::vector<std::pair<int, double>> v) {
              TelemetrySample s;
              s.source = source;
              s.atMs = at;
              s.durationMs = 1.234;
              s.phase = phase;
              s.values = std::move(v);
              t.samples.push_back(s);
          };
    using P = TelemetrySample::Phase;
    sample(0, -12.5, P::IdleBefore, {{0, 0}, {1, 3}, {4, 17}, {5, 0}});
    sample(1, -11.0, P::IdleBefore, {{0, 1.2345678901234567e11}, {1, 1e-300}, {2, -0.0}});
    sample(0, 320.001, P::Run, {{0, nan}, {1, inf}, {2, -inf}, {3, 0.1 + 0.2}, {5, 4}});
    TelemetrySample gap;
    gap.source = 1;
    gap.atMs = 333.5;
    gap.durationMs = 2000;
    gap.error = QStringLiteral("timed out after 2000 ms (exporter slow?)");
    t.samples.push_back(gap);
    sample(1, 666.75, P::Run, {{2, 9007199254740993.0}}); // beyond 2^53: stays the double it is
    sample(0, 1000.125, P::IdleAfter, {});
    sample(0, 1333.0, P::IdleAfter, {{0, 12}, {5, 0}});
    return t;
}

/// Telemetry equality where NaN equals NaN (operator== says NaN != NaN).
inline void expectSameTelemetry(const Telemetry& a, const Telemetry& b)
{
    EXPECT_EQ(a.periodMs, b.periodMs);
    EXPECT_EQ(a.notes, b.notes);
    EXPECT_TRUE(a.sources == b.sources);
    ASSERT_EQ(a.samples.size(), b.samples.size());
    for (std::size_t i = 0; i < a.samples.size(); ++i) {
        SCOPED_TRACE("sample " + std::to_string(i));
        const TelemetrySample& x = a.samples[i];
        const TelemetrySample& y = b.samples[i];
        EXPECT_EQ(x.source, y.source);
        EXPECT_EQ(x.atMs, y.atMs);
        EXPECT_EQ(x.durationMs, y.durationMs);
        EXPECT_EQ(int(x.phase), int(y.phase));
        EXPECT_EQ(x.error, y.error);
        ASSERT_EQ(x.values.size(), y.values.size());
        for (std::size_t k = 0; k < x.values.size(); ++k) {
            EXPECT_EQ(x.values[k].first, y.values[k].first);
            const double u = x.values[k].second;
            const double v = y.values[k].second;
            EXPECT_TRUE((std::isnan(u) && std::isnan(v)) || (u == v && std::signbit(u) == std::signbit(v)))
                << u << " vs " << v;
        }
    }
}

/// A judge's exchange as JudgeRunner keeps it: the messages sent, the raw reply, when and how long.
inline JudgeExchange makeExchange(
    const QString& reply, const QString& error = {}, double durationMs = 812.125)
{
    JudgeExchange e;
    e.messages = json::array({{{"role", "system"}, {"content", "You are a strict judge. Answer with JSON."}},
        {{"role", "user"}, {"content", "Answer 1: Tokyo.\nAnswer 2: Kyoto, I think? ünï ✓"}}});
    e.reply = reply;
    e.reasoning = error.isEmpty() ? QStringLiteral("Answer 1 is right.") : QString();
    e.at = QDateTime::fromString(QStringLiteral("2026-03-01T11:00:01.250Z"), Qt::ISODateWithMs);
    e.durationMs = durationMs;
    e.error = error;
    return e;
}

/// What a judge said about makeResult()'s run: the built-in voice-assistant rubric, a rubric
/// verdict per endpoint (one failed), and a pair judged in both orders plus a failed one.
inline Judging makeJudging()
{
    Judging j;
    j.judge.spec = QStringLiteral("http://10.0.0.7:8000,model=qwen3-32b");
    j.judge.url = QStringLiteral("http://10.0.0.7:8000");
    j.judge.model = QStringLiteral("qwen3-32b");
    j.judge.runtime = QStringLiteral("vllm");
    j.judge.endpointLabel = QStringLiteral("judge 32B");
    j.judge.simulated = false;
    j.judge.probe = {{"runtime", "vllm"}, {"models", json::array({"qwen3-32b"})}};
    j.judge.temperature = 0;
    j.judge.seed = 4711;
    j.rubric = loadBuiltinRubric(QStringLiteral("voice-assistant"));
    j.startedAt = QDateTime::fromString(QStringLiteral("2026-03-01T11:00:00Z"), Qt::ISODate);
    j.endedAt = QDateTime::fromString(QStringLiteral("2026-03-01T11:02:00.5Z"), Qt::ISODateWithMs);
    j.complete = true;
    j.notes = {QStringLiteral("the judge ignores `seed`")};

    RubricVerdict good;
    good.answer = {0, QStringLiteral("factual"), 1, 1};
    good.scores = {{QStringLiteral("answers_question"), 5}, {QStringLiteral("correct"), 4},
        {QStringLiteral("warm_personal"), 2}};
    good.reason = QStringLiteral("Right, but \"generic\".");
    good.exchange
        = makeExchange(QStringLiteral("```json\n{\"scores\": {\"correct\": 4}, \"reason\": \"…\"}\n```"));
    RubricVerdict failed;
    failed.answer = {1, QStringLiteral("reasoning"), 3, 4};
    failed.exchange = makeExchange(
        QStringLiteral("I think it's fine"), QStringLiteral("the reply is not JSON: I think it's fine"));
    j.rubricVerdicts = {good, failed};

    PairVerdict first;
    first.candidate = 1;
    first.baseline = 0;
    first.test = QStringLiteral("factual");
    first.turn = 2;
    first.iteration = 3;
    first.candidateFirst = true;
    first.pick = PairPick::Second;
    first.reason = QStringLiteral("Answer 2 is warmer.");
    first.exchange = makeExchange(QStringLiteral("{\"better\": \"2\", \"reason\": \"Answer 2 is warmer.\"}"));
    PairVerdict swapped = first;
    swapped.candidateFirst = false;
    swapped.pick = PairPick::Tie;
    swapped.reason = QStringLiteral("Both fine.");
    PairVerdict broken = first;
    broken.test = QStringLiteral("greeting");
    broken.pick = PairPick::Failed;
    broken.reason.clear();
    broken.exchange = makeExchange(QString(), QStringLiteral("timed out after 120 s"), 120000);
    PairVerdict firstPick = first;
    firstPick.test = QStringLiteral("long");
    firstPick.pick = PairPick::First;
    j.pairVerdicts = {first, swapped, broken, firstPick};
    return j;
}

/// A run's file as JSON, and JSON as file bytes (json::dump sorts the keys: "records" comes before
/// the header members, which exercises the reader's second pass).
inline json fileJson(const RunResult& r)
{
    return json::parse(serializeResults(r).toStdString());
}

inline QByteArray bytesOf(const json& j)
{
    return QByteArray::fromStdString(j.dump());
}

/// makeResult()'s records again and again, the i-th numbered iteration i + 1 (so a recovered
/// record says which one it is).
inline RunRecord numbered(const RunResult& r, int i)
{
    RunRecord record = r.records[std::size_t(i) % r.records.size()];
    record.iteration = i + 1;
    return record;
}

/// makeResult() with `n` numbered records.
inline RunResult makeResultWith(int n)
{
    RunResult r = makeResult();
    const RunResult base = r;
    r.records.clear();
    for (int i = 0; i < n; ++i)
        r.records.push_back(numbered(base, i));
    return r;
}

inline void writeFile(const QString& path, QByteArrayView bytes)
{
    QFile f(path);
    ASSERT_TRUE(f.open(QIODevice::WriteOnly | QIODevice::Truncate)) << f.errorString().toStdString();
    ASSERT_EQ(f.write(bytes.data(), bytes.size()), bytes.size());
}

inline QByteArray readFile(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

} // namespace qs::test
