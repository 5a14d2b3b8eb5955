// SPDX-License-Identifier: MIT
// The emulator's prefix cache (docs/emulator.md, "Prefix cache"): what each dialect reuses and
// reports, prefill charged per uncached token as the project's own client measures it, the
// switches that turn it off, and its bounds.

#include "model/wire/StreamingClient.h"
#include "tests/emulator/EmulatorTestClient.h"
#include "tests/support/PrefixCache.h"
#include "tests/support/SimulatedProfiles.h"
#include "tests/support/StreamPlan.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <gtest/gtest.h>
#include <iostream>
#include <nlohmann/json.hpp>

using namespace qs::emu;
using namespace qs::emu::test;
using nlohmann::json;

namespace {

const char* dialectName(Dialect d)
{
    switch (d) {
    case Dialect::LlamaServer:
        return "llama-server";
    case Dialect::Vllm:
        return "vLLM";
    case Dialect::Sglang:
        return "SGLang";
    }
    return "?";
}

/// `words` distinct-looking words, all starting with `tag` so prompts of different tags share
/// nothing but the message header.
QString wordsOf(const QString& tag, int words)
{
    QString text;
    text.reserve(words * 12);
    for (int i = 0; i < words; ++i)
        text += tag + QString::number(i) + u' ';
    return text;
}

json messages(const QString& system, const QString& user)
{
    return json::array({{{"role", "system"}, {"content", system.toStdString()}},
        {{"role", "user"}, {"content", user.toStdString()}}});
}

QJsonObject rawBody(const json& msgs, bool stream = true)
{
    QJsonObject body
        = QJsonDocument::fromJson(QByteArray::fromStdString(json {{"messages", msgs}}.dump())).object();
    body.insert(QStringLiteral("stream"), stream);
    if (stream)
        body.insert(QStringLiteral("stream_options"), QJsonObject {{QStringLiteral("include_usage"), true}});
    return body;
}

/// The tokens a shared system prompt of `words` words gives two requests that differ from the
/// user's words on: the system message (4 + words) and the user message's start, role, newline.
int sharedPrefix(int words)
{
    return 4 + words + 3;
}

/// What the dialect reports of a shared prefix (vLLM: whole 16-token blocks).
int reported(Dialect d, int shared)
{
    return d == Dialect::Vllm ? shared / 16 * 16 : shared;
}

struct Server {
    explicit Server(ServerConfig config)
    {
        started = thread.start(config);
        endpoint.baseUrl = thread.baseUrl();
        endpoint.model = config.modelId;
    }
    qs::RequestRecord ask(const json& msgs, const json& extraBody = json::object()) const
    {
        qs::ChatRequest request;
        request.messages = msgs;
        request.extraBody = extraBody;
        return qs::runChatBlocking(endpoint, request);
    }
    EmulatorThread thread;
    qs::Endpoint endpoint;
    bool started = false;
};

ServerConfig cacheConfig(Dialect d, double perTokenMs)
{
    ServerConfig config = baseConfig(d);
    config.script = simpleScript(3, 10, 500);
    config.script.ttftPerPromptTokenMs = perTokenMs;
    config.reportCachedTokens = true;
    config.contextSize = 65536;
    return config;
}

qint64 cachedOf(const qs::RequestRecord& r)
{
    return r.metrics.cachedPromptTokens.value.value_or(-1);
}

/// The usage object of a streamed raw response (the last `data:` payload that has one).
QJsonObject usageOf(const RawResponse& response)
{
    QJsonObject usage;
    for (const QByteArray& payload : response.dataPayloads()) {
        const QJsonObject chunk = QJsonDocument::fromJson(payload).object();
        if (chunk.contains(QLatin1String("usage")) && chunk.value(QLatin1String("usage")).isObject())
            usage = chunk.value(QLatin1String("usage")).toObject();
    }
    return usage;
}

QJsonObject timingsOf(const RawResponse& response)
{
    QJsonObject timings;
    for (const QByteArray& payload : response.dataPayloads()) {
        const QJsonObject chunk = QJsonDocument::fromJson(payload).object();
        if (chunk.contains(QLatin1String("timings")))
            timings = chunk.value(QLatin1String("timings")).toObject();
    }
    return timings;
}

/// A counter's value on a /metrics page (the first sample line of that name), -1 if absent.
double metricValue(const QByteArray& page, const QByteArray& name)
{
    for (const QByteArray& line : page.split('\n')) {
        if (line.startsWith(QByteArray(name + ' ')) || line.startsWith(QByteArray(name + '{')))
            return line.mid(line.lastIndexOf(' ') + 1).toDouble();
    }
    return -1;
}

QByteArray metricsPage(EmulatorThread& emu)
{
    TestClient client(emu.server()->port());
    client.get("/metrics");
    return client.read().body;
}

} // namespace

// ---- tokens and the cache itself ------------------------------------------------------------

TEST(PrefixCacheTokens, OneIdPerCountedTokenAndToolsAfterTheSystemPrompt)
{
    QJsonObject body = rawBody(messages(
        QStringLiteral("You are  a helpful\nassistant."), QStringLiteral("What is the weather in Paris?")));
    QJsonArray msgs = body.value(QLatin1String("messages")).toArray();
    msgs.append(QJsonObject {{QStringLiteral("role"), QStringLiteral("assistant")},
        {QStringLiteral("content"),
            QJsonArray {QJsonObject {{QStringLiteral("type"), QStringLiteral("text")},
                {QStringLiteral("text"), QStringLiteral("Let me look.")}}}}});
    body.insert(QStringLiteral("messages"), msgs);
    const detail::TokenIds plain = detail::promptTokenIds(body);
    EXPECT_EQ(int(plain.size()), detail::countPromptTokens(body));
    EXPECT_EQ(detail::systemPrefixTokens(body), 4 + 5);

    // The tools go between the system prompt and the rest: the shared prefix ends there.
    const QJsonObject tooled = withTools(body);
    const detail::TokenIds withToolIds = detail::promptTokenIds(tooled);
    EXPECT_EQ(withToolIds.size(), plain.size());
    EXPECT_EQ(int(detail::commonPrefix(plain, withToolIds)), detail::systemPrefixTokens(body));
    EXPECT_EQ(detail::promptTokenIds(withTools(body)), withToolIds); // deterministic

    // The answer a client sends back continues the cached prompt + answer.
    const detail::TokenIds first
        = detail::promptTokenIds(rawBody(messages(QStringLiteral("Be brief."), QStringLiteral("Hi"))));
    const detail::TokenIds stored = detail::withAnswer(first, QString(), QStringLiteral("Hello there!"));
    json next = messages(QStringLiteral("Be brief."), QStringLiteral("Hi"));
    next.push_back({{"role", "assistant"}, {"content", "Hello there!"}});
    next.push_back({{"role", "user"}, {"content", "Bye"}});
    EXPECT_EQ(detail::commonPrefix(detail::promptTokenIds(rawBody(next)), stored), stored.size());
    // Reasoning is not sent back: the next prompt diverges where it began.
    const detail::TokenIds thought
        = detail::withAnswer(first, QStringLiteral("Greet"), QStringLiteral("Hello there!"));
    EXPECT_EQ(detail::commonPrefix(detail::promptTokenIds(rawBody(next)), thought), first.size() + 3);
}

TEST(PrefixCacheStore, LongestPrefixExtensionAndLeastRecentlyUsedBounds)
{
    detail::PrefixCache cache;
    const detail::TokenIds a {1, 2, 3, 4, 5, 6};
    cache.insert({1, 2, 3}, 4, 100);
    cache.insert(a, 4, 100); // extends {1,2,3}: replaces it
    EXPECT_EQ(cache.stats().sequences, 1u);
    EXPECT_EQ(cache.stats().tokens, 6u);
    cache.insert({1, 2}, 4, 100); // already held
    EXPECT_EQ(cache.stats().sequences, 1u);
    EXPECT_EQ(cache.longestPrefix({1, 2, 3, 9}), 3u);
    EXPECT_EQ(cache.longestPrefix({7}), 0u);
    EXPECT_EQ(cache.longestPrefix(a), 6u);

    cache.insert({7, 8}, 4, 100);
    cache.insert({9, 10}, 4, 100);
    cache.insert({11, 12}, 4, 100);
    cache.insert({1, 2, 3}, 4, 100); // touches `a`: {7,8} is now the least recently used
    cache.insert({13, 14}, 4, 100);
    EXPECT_EQ(cache.stats().sequences, 4u);
    EXPECT_EQ(cache.longestPrefix({7, 8}), 0u);
    EXPECT_EQ(cache.longestPrefix(a), 6u);

    cache.insert({20, 21, 22, 23, 24}, 4, 8); // the token budget evicts down to 8 tokens
    EXPECT_LE(cache.stats().tokens, 8u);
    EXPECT_EQ(cache.longestPrefix({20, 21, 22, 23, 24}), 5u);
    cache.insert(detail::TokenIds(50, 3), 4, 8); // longer than the budget: kept cut
    EXPECT_EQ(cache.stats().sequences, 1u);
    EXPECT_EQ(cache.stats().tokens, 8u);
    cache.clear();
    EXPECT_EQ(cache.stats().sequences, 0u);
}

// ---- each dialect, through the real client ------------------------------------------------

class PrefixCacheDialect : public ::testing::TestWithParam<Dialect> { };

TEST_P(PrefixCacheDialect, ASharedSystemPromptIsReusedAndItsPrefillSkipped)
{
    const Dialect d = GetParam();
    const double perTokenMs = 0.05;
    Server s(cacheConfig(d, perTokenMs));
    ASSERT_TRUE(s.started);
    const int words = 4000;
    const QString system = wordsOf(QStringLiteral("sys"), words);
    const qs::RequestRecord cold = s.ask(messages(system, QStringLiteral("What is the capital of Japan?")));
    const qs::RequestRecord warm = s.ask(messages(system, QStringLiteral("And the capital of France?")));
    ASSERT_TRUE(cold.ok() && warm.ok()) << cold.failure.text().toStdString();

    const int cached = reported(d, sharedPrefix(words));
    EXPECT_EQ(cachedOf(warm), cached) << dialectName(d);
    // A first request finds nothing (vLLM's current builds say 0; llama-server's cache_n 0;
    // SGLang leaves the details out, so the client has no count).
    if (d == Dialect::Sglang)
        EXPECT_FALSE(cold.metrics.cachedPromptTokens.value);
    else
        EXPECT_EQ(cachedOf(cold), 0) << dialectName(d);
    EXPECT_EQ(*warm.metrics.promptTokens.value, 4 + words + 4 + 5) << "usage counts the whole prompt";

    const std::vector<ServedRequest> served = s.thread.server()->servedRequests();
    ASSERT_EQ(served.size(), 2u);
    EXPECT_EQ(served[0].request.cachedTokens, 0);
    EXPECT_EQ(served[1].request.cachedTokens, cached);

    // Prefill is charged only for the tokens computed: the warm request saves cached × cost.
    const double saved = *cold.metrics.ttftAnyMs - *warm.metrics.ttftAnyMs;
    const double expected = cached * perTokenMs; // ~200 ms
    EXPECT_NEAR(saved, expected, std::max(0.15 * expected, 25.0)) << dialectName(d);
}

TEST_P(PrefixCacheDialect, PrefillCostPerUncachedTokenIsWhatAClientMeasures)
{
    const Dialect d = GetParam();
    const double perTokenMs = 0.02;
    Server s(cacheConfig(d, perTokenMs));
    ASSERT_TRUE(s.started);
    std::vector<double> x, y;
    for (const int words : {1000, 2000, 4000, 8000, 16000}) {
        const QString tag = QStringLiteral("p%1w").arg(words);
        const qs::RequestRecord r = s.ask(messages(wordsOf(tag, words), QStringLiteral("Summarise.")));
        ASSERT_TRUE(r.ok()) << r.failure.text().toStdString();
        const qint64 prompt = *r.metrics.promptTokens.value;
        x.push_back(double(prompt - std::max<qint64>(cachedOf(r), 0)));
        y.push_back(*r.metrics.ttftAnyMs);
    }
    // Least squares: TTFT = a + slope · uncached tokens.
    const double n = double(x.size());
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
        sx += x[i];
        sy += y[i];
        sxx += x[i] * x[i];
        sxy += x[i] * y[i];
    }
    const double slope = (n * sxy - sx * sy) / (n * sxx - sx * sx);
    std::cout << dialectName(d) << ": " << slope << " ms per uncached prompt token measured, " << perTokenMs
              << " scripted\n";
    EXPECT_NEAR(slope, perTokenMs, 0.15 * perTokenMs)
        << dialectName(d) << ": " << slope << " ms per prompt token, TTFT at 16K words " << y.back() << " ms";
}

TEST_P(PrefixCacheDialect, SwitchedOffNothingIsReusedOrStored)
{
    const Dialect d = GetParam();
    ServerConfig config = cacheConfig(d, 0.05);
    config.prefixCaching = false; // --no-enable-prefix-caching, --disable-radix-cache
    Server s(config);
    ASSERT_TRUE(s.started);
    const QString system = wordsOf(QStringLiteral("sys"), 2000);
    const qs::RequestRecord cold = s.ask(messages(system, QStringLiteral("One?")));
    const qs::RequestRecord again = s.ask(messages(system, QStringLiteral("Two?")));
    ASSERT_TRUE(cold.ok() && again.ok());
    EXPECT_LE(cachedOf(again), 0) << dialectName(d); // 0, or no details at all (SGLang)
    EXPECT_EQ(s.thread.server()->servedRequests().at(1).request.cachedTokens, 0);
    EXPECT_EQ(s.thread.server()->prefixCache().sequences, 0u);
    EXPECT_NEAR(*again.metrics.ttftAnyMs, *cold.metrics.ttftAnyMs, 30.0) << "both computed the whole prompt";
}

TEST_P(PrefixCacheDialect, MetricsCountCachedTokensTheServersWay)
{
    const Dialect d = GetParam();
    Server s(cacheConfig(d, 0));
    ASSERT_TRUE(s.started);
    const QString system = wordsOf(QStringLiteral("sys"), 200);
    const qs::RequestRecord a = s.ask(messages(system, QStringLiteral("One?")));
    const qs::RequestRecord b = s.ask(messages(system, QStringLiteral("Two?")));
    ASSERT_TRUE(a.ok() && b.ok());
    const double prompts = double(*a.metrics.promptTokens.value + *b.metrics.promptTokens.value);
    const double cached = reported(d, sharedPrefix(200));
    const QByteArray page = metricsPage(s.thread);
    switch (d) {
    case Dialect::LlamaServer: // prompt_tokens counts only the evaluated tokens
        EXPECT_EQ(metricValue(page, "llamacpp:prompt_tokens_total"), prompts - cached);
        EXPECT_EQ(metricValue(page, "llamacpp:prompt_tokens_cached_total"), cached);
        break;
    case Dialect::Vllm: // whole prompts; the cache's counters beside them
        EXPECT_EQ(metricValue(page, "vllm:prompt_tokens_total"), prompts);
        EXPECT_EQ(metricValue(page, "vllm:prompt_tokens_cached_total"), cached);
        EXPECT_EQ(metricValue(page, "vllm:prefix_cache_queries_total"), prompts);
        EXPECT_EQ(metricValue(page, "vllm:prefix_cache_hits_total"), cached);
        break;
    case Dialect::Sglang:
        EXPECT_EQ(metricValue(page, "sglang:prompt_tokens_total"), prompts);
        EXPECT_EQ(metricValue(page, "sglang:cached_tokens_total"), cached);
        break;
    }
}

TEST_P(PrefixCacheDialect, AConversationReusesThePreviousTurnAndItsAnswer)
{
    const Dialect d = GetParam();
    Server s(cacheConfig(d, 0));
    ASSERT_TRUE(s.started);
    json history = messages(wordsOf(QStringLiteral("sys"), 100), QStringLiteral("Hi, I am Sam."));
    const qs::RequestRecord first = s.ask(history);
    ASSERT_TRUE(first.ok());
    EXPECT_EQ(first.response.content, QStringLiteral("w0 w1 w2 "));
    history.push_back({{"role", "assistant"}, {"content", first.response.content.toStdString()}});
    history.push_back({{"role", "user"}, {"content", "What is my name?"}});
    const qs::RequestRecord second = s.ask(history);
    ASSERT_TRUE(second.ok());
    // The first prompt, the assistant's start, role and newline, and its three words.
    const qint64 held = *first.metrics.promptTokens.value + 3 + 3;
    EXPECT_EQ(cachedOf(second), reported(d, int(held))) << dialectName(d);
}

INSTANTIATE_TEST_SUITE_P(Dialects, PrefixCacheDialect,
    ::testing::Values(Dialect::LlamaServer, Dialect::Vllm, Dialect::Sglang),
    [](const ::testing::TestParamInfo<Dialect>& param) {
        switch (param.param) {
        case Dialect::LlamaServer:
            return std::string("LlamaServer");
        case Dialect::Vllm:
            return std::string("Vllm");
        case Dialect::Sglang:
            return std::string("Sglang");
        }
        return std::string("Unknown");
    });

// ---- each dialect's bytes ---------------------------------------------------------------------

TEST(PrefixCacheWire, LlamaServerTimingsCountEvaluatedAndCachedTokens)
{
    EmulatorThread emu;
    ASSERT_TRUE(emu.start(cacheConfig(Dialect::LlamaServer, 0)));
    const QString system = wordsOf(QStringLiteral("sys"), 50);
    postChat(emu, rawBody(messages(system, QStringLiteral("One?"))));
    const RawResponse warm = postChat(emu, rawBody(messages(system, QStringLiteral("Two?"))));
    const QJsonObject timings = timingsOf(warm);
    const int prompt = 4 + 50 + 4 + 1;
    EXPECT_EQ(timings.value(QLatin1String("cache_n")).toInt(), sharedPrefix(50));
    EXPECT_EQ(timings.value(QLatin1String("prompt_n")).toInt(), prompt - sharedPrefix(50));
    const QJsonObject usage = usageOf(warm);
    EXPECT_EQ(usage.value(QLatin1String("prompt_tokens")).toInt(), prompt);
    EXPECT_FALSE(usage.contains(QLatin1String("prompt_tokens_details"))) << "only proposed (PR #22081)";
    EXPECT_TRUE(warm.body.contains("\"timings\":{\"cache_n\":57,\"prompt_n\":2,")) << warm.body.toStdString();

    // Not streamed: the same counts in the body.
    const RawResponse body = postChat(emu, rawBody(messages(system, QStringLiteral("Three?")), false));
    const QJsonObject t = body.json().value(QLatin1String("timings")).toObject();
    EXPECT_EQ(t.value(QLatin1String("cache_n")).toInt(), sharedPrefix(50));
}

TEST(PrefixCacheWire, LlamaServerCachePromptFalseReusesNothingButIsRemembered)
{
    ServerConfig config = cacheConfig(Dialect::LlamaServer, 0.05);
    Server s(config);
    ASSERT_TRUE(s.started);
    const QString system = wordsOf(QStringLiteral("sys"), 2000);
    const json noCache = {{"cache_prompt", false}};
    const qs::RequestRecord first = s.ask(messages(system, QStringLiteral("One?")), noCache);
    const qs::RequestRecord second = s.ask(messages(system, QStringLiteral("Two?")), noCache);
    ASSERT_TRUE(first.ok() && second.ok());
    EXPECT_EQ(cachedOf(second), 0);
    EXPECT_EQ(*second.response.timings->promptN, *second.metrics.promptTokens.value);
    EXPECT_NEAR(*second.metrics.ttftAnyMs, *first.metrics.ttftAnyMs, 30.0);
    // The slot kept what it computed: a request that allows the cache finds it.
    const qs::RequestRecord third = s.ask(messages(system, QStringLiteral("Three?")));
    EXPECT_EQ(cachedOf(third), sharedPrefix(2000));
}

TEST(PrefixCacheWire, VllmReportsDetailsOnlyWithTheFlag)
{
    const QString system = wordsOf(QStringLiteral("sys"), 50);
    const int shared = reported(Dialect::Vllm, sharedPrefix(50)); // 48
    for (const bool flag : {false, true}) {
        for (const Era era : {Era::Current, Era::Legacy}) {
            SCOPED_TRACE(testing::Message() << "flag " << flag << " era " << int(era));
            ServerConfig config = cacheConfig(Dialect::Vllm, 0);
            config.era = era;
            config.reportCachedTokens = flag;
            EmulatorThread emu;
            ASSERT_TRUE(emu.start(config));
            const RawResponse cold = postChat(emu, rawBody(messages(system, QStringLiteral("One?"))));
            const RawResponse warm = postChat(emu, rawBody(messages(system, QStringLiteral("Two?"))));
            const RawResponse body
                = postChat(emu, rawBody(messages(system, QStringLiteral("Three?")), false));
            const QJsonValue bodyDetails = body.json()
                                               .value(QLatin1String("usage"))
                                               .toObject()
                                               .value(QLatin1String("prompt_tokens_details"));
            if (!flag) {
                EXPECT_FALSE(usageOf(warm).contains(QLatin1String("prompt_tokens_details")));
                EXPECT_TRUE(bodyDetails.isNull());
                continue;
            }
            EXPECT_EQ(usageOf(warm).value(QLatin1String("prompt_tokens_details")).toObject(),
                (QJsonObject {{QStringLiteral("cached_tokens"), shared}}));
            EXPECT_EQ(bodyDetails.toObject().value(QLatin1String("cached_tokens")).toInt(), shared);
            // A miss: current main says 0 (`is not None`), older builds leave it out.
            EXPECT_EQ(usageOf(cold).contains(QLatin1String("prompt_tokens_details")), era == Era::Current);
        }
    }
    // In the usage chunk's key order.
    ServerConfig config = cacheConfig(Dialect::Vllm, 0);
    EmulatorThread emu;
    ASSERT_TRUE(emu.start(config));
    postChat(emu, rawBody(messages(system, QStringLiteral("One?"))));
    const RawResponse warm = postChat(emu, rawBody(messages(system, QStringLiteral("Two?"))));
    EXPECT_TRUE(warm.body.contains("\"usage\":{\"prompt_tokens\":59,\"total_tokens\":62,\"completion_"
                                   "tokens\":3,\"prompt_tokens_details\":{"
                                   "\"cached_tokens\":48}}"))
        << warm.body.toStdString();
}

TEST(PrefixCacheWire, SglangReportsDetailsOnlyWithTheFlagAndAHit)
{
    const QString system = wordsOf(QStringLiteral("sys"), 50);
    for (const bool flag : {false, true}) {
        SCOPED_TRACE(flag);
        ServerConfig config = cacheConfig(Dialect::Sglang, 0);
        config.reportCachedTokens = flag;
        EmulatorThread emu;
        ASSERT_TRUE(emu.start(config));
        const RawResponse cold = postChat(emu, rawBody(messages(system, QStringLiteral("One?"))));
        const RawResponse warm = postChat(emu, rawBody(messages(system, QStringLiteral("Two?"))));
        EXPECT_TRUE(usageOf(cold).value(QLatin1String("prompt_tokens_details")).isNull());
        const QJsonValue details = usageOf(warm).value(QLatin1String("prompt_tokens_details"));
        if (flag)
            EXPECT_EQ(details.toObject().value(QLatin1String("cached_tokens")).toInt(), sharedPrefix(50));
        else
            EXPECT_TRUE(details.isNull());
    }
}

// ---- bounds and the simulated endpoints -----------------------------------------------------

TEST(PrefixCacheBounds, ManyDistinctPromptsKeepTheCacheBounded)
{
    ServerConfig config = cacheConfig(Dialect::Sglang, 0);
    config.script = simpleScript(1, 0, 1000);
    config.prefixCacheSequences = 16;
    config.prefixCacheTokens = 4000;
    EmulatorThread emu;
    ASSERT_TRUE(emu.start(config));
    for (int i = 0; i < 120; ++i) {
        const RawResponse r = postChat(
            emu, rawBody(messages(wordsOf(QStringLiteral("q%1x").arg(i), 60 + i), QStringLiteral("Go."))));
        ASSERT_EQ(r.status, 200) << i;
        const PrefixCacheStats stats = emu.server()->prefixCache();
        ASSERT_LE(stats.sequences, 16u) << i;
        ASSERT_LE(stats.tokens, 4000u) << i;
    }
    EXPECT_GT(emu.server()->prefixCache().tokens, 1000u); // it does hold the recent ones
    // The most recent prompt is still there; the first is long gone.
    const RawResponse recent
        = postChat(emu, rawBody(messages(wordsOf(QStringLiteral("q119x"), 179), QStringLiteral("Again."))));
    EXPECT_EQ(usageOf(recent)
                  .value(QLatin1String("prompt_tokens_details"))
                  .toObject()
                  .value(QLatin1String("cached_tokens"))
                  .toInt(),
        sharedPrefix(179));
    const RawResponse old
        = postChat(emu, rawBody(messages(wordsOf(QStringLiteral("q0x"), 60), QStringLiteral("Again."))));
    EXPECT_EQ(usageOf(old)
                  .value(QLatin1String("prompt_tokens_details"))
                  .toObject()
                  .value(QLatin1String("cached_tokens"))
                  .toInt(),
        3)
        << "only the system message's header is shared with anything";
    emu.server()->clearPrefixCache();
    EXPECT_EQ(emu.server()->prefixCache().sequences, 0u);
}

TEST(PrefixCacheSimulated, ProfilesCacheAndReportTheSharedSystemPrompt)
{
    for (const char* name : {"nvfp4-like", "q4km-like"}) {
        SCOPED_TRACE(name);
        auto config = simulatedProfile(QString::fromLatin1(name));
        ASSERT_TRUE(config);
        Server s(*config);
        ASSERT_TRUE(s.started);
        const QString system = wordsOf(QStringLiteral("sys"), 150);
        const json shortAnswer = {{"max_tokens", 4}};
        const qs::RequestRecord cold
            = s.ask(messages(system, QStringLiteral("What is the capital of Japan?")), shortAnswer);
        const qs::RequestRecord warm
            = s.ask(messages(system, QStringLiteral("What is the capital of France?")), shortAnswer);
        ASSERT_TRUE(cold.ok() && warm.ok());
        // The questions share "What is the capital of" too. q4km-like reuses nothing: the seeds'
        // llama-server recomputed every turn (SimulatedProfiles.h).
        if (config->prefixCaching) {
            EXPECT_EQ(cachedOf(warm), reported(config->dialect, sharedPrefix(150) + 5));
            EXPECT_LT(*warm.metrics.ttftAnyMs, *cold.metrics.ttftAnyMs);
        } else {
            EXPECT_EQ(cachedOf(warm), 0);
        }
        if (config->dialect == Dialect::LlamaServer) {
            // cache_prompt false: computed whole, as the seeds' server did every turn.
            const qs::RequestRecord again
                = s.ask(messages(system, QStringLiteral("What is the capital of Peru?")),
                    {{"max_tokens", 4}, {"cache_prompt", false}});
            EXPECT_EQ(cachedOf(again), 0);
            EXPECT_EQ(*again.response.timings->promptN, *again.metrics.promptTokens.value);
        }
    }
}
