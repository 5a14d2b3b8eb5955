// SPDX-License-Identifier: MIT
// Prefill scaling (model/evaluate/PrefillScaling): the slope of TTFT on uncached prompt tokens per
// endpoint, its cluster bootstrap over distinct prompts, the context sweep's correctness and memory
// per context size, and the JSON `summary --json` prints. Runs built in code, as the context-sweep
// suite would have measured them.
#include "model/evaluate/Evaluation.h"
#include "model/evaluate/PrefillScaling.h"
#include "tests/stats/StatsTestSupport.h"
#include "tests/stats/TelemetryTestSupport.h"

#include <chrono>
#include <gtest/gtest.h>
#include <map>

using namespace qs;
using namespace qs::test;
using json = nlohmann::json;

namespace {

const std::vector<int> sweepSizes {1024, 2048, 4096, 8192, 16384, 30000};
const std::vector<double> sweepDepths {0.1, 0.5, 0.9};

QString sweepTestId(int size, double depth)
{
    return QStringLiteral("ctx-%1-d%2").arg(size).arg(std::lround(depth * 100));
}

/// A context-sweep suite as the lead's built-in writes it: one test per size × depth.
json sweepSuite(const std::vector<int>& sizes, const std::vector<double>& depths, const char* cacheMode)
{
    json tests = json::array();
    for (int size : sizes)
        for (double depth : depths)
            tests.push_back({{"id", sweepTestId(size, depth).toStdString()},
                {"prompt", "When is the dentist appointment?"}, {"expect", json::array({"Thursday"})},
                {"context",
                    {{"tokens", size}, {"fact", "The dentist appointment is on Thursday."},
                        {"depth", depth}}}});
    json suite = {{"id", "context-sweep"}, {"name", "Context sweep"},
        {"system", "You are a helpful assistant."}, {"tests", tests}};
    if (cacheMode)
        suite["prefix_cache"] = cacheMode;
    return suite;
}

struct SweepOptions {
    std::vector<int> sizes = sweepSizes;
    std::vector<double> depths = sweepDepths;
    int iterations = 5;
    int repeats = 1; ///< each request written this many times (the same prompt again: no new evidence)
    double interceptMs = 40;
    double msPerToken = 0.05; ///< 50 ms per 1K tokens
    /// Fraction of the prompt a server served from its cache, per test (drawn); 0 = none reported.
    double maxCachedFraction = 0;
    bool reportCached = false;
    const char* cacheMode = "cold";
    int endpoints = 1;
};

/// TTFT = intercept + slope · uncached tokens + a per-prompt offset (prompts differ beyond their
/// length) + a little per-request noise.
RunResult sweepRun(const SweepOptions& o)
{
    QStringList labels;
    for (int e = 0; e < o.endpoints; ++e)
        labels << QStringLiteral("arm%1").arg(e);
    RunResult run = makeRun(labels);
    run.suite = sweepSuite(o.sizes, o.depths, o.cacheMode);
    Rng rng(7);
    for (int size : o.sizes)
        for (double depth : o.depths) {
            const QString test = sweepTestId(size, depth);
            const double promptOffset = 25 * rng.normal();
            const double cachedFraction = o.maxCachedFraction * rng.uniform();
            for (int i = 1; i <= o.iterations; ++i)
                for (int e = 0; e < o.endpoints; ++e) {
                    const qint64 prompt = size + qint64(std::lround(10 * rng.uniform()));
                    const qint64 cached = qint64(std::floor(cachedFraction * double(prompt)));
                    const double uncached = double(prompt - cached);
                    const double ttft
                        = o.interceptMs + o.msPerToken * (e + 1) * uncached + promptOffset + 5 * rng.normal();
                    RunRecord r = record({.endpoint = e,
                        .test = test,
                        .iteration = i,
                        .ttftMs = ttft,
                        .promptTokens = prompt});
                    if (o.reportCached)
                        r.request.metrics.cachedPromptTokens = {cached, CountSource::ServerTimings};
                    r.gates = {{"expected_answer", depth < 0.8 || size < 16000}};
                    for (int k = 0; k < o.repeats; ++k) {
                        r.iteration = (i - 1) * o.repeats + k + 1;
                        run.records.push_back(r);
                    }
                }
        }
    return run;
}

PrefillScaling compute(const RunResult& run, bool intervals = true)
{
    PrefillOptions options;
    options.intervals = intervals;
    return prefillScaling(run, computeResources(run), options);
}

} // namespace

TEST(PrefillScaling, RecoversTheSlopeOfAContextSweep)
{
    const RunResult run = sweepRun({});
    const PrefillScaling p = compute(run);
    ASSERT_EQ(p.source, PrefillSource::ContextSweep);
    ASSERT_EQ(p.endpoints.size(), 1u);
    const EndpointPrefill& e = p.endpoints.front();
    ASSERT_TRUE(e.msPer1kTokens) << e.reason.toStdString();
    EXPECT_NEAR(*e.msPer1kTokens, 50.0, 2.5); // within 5 %
    ASSERT_TRUE(e.interval);
    EXPECT_TRUE(e.interval->contains(50.0)) << e.interval->lo << " – " << e.interval->hi;
    EXPECT_LT(e.interval->lo, *e.msPer1kTokens);
    EXPECT_GT(e.interval->hi, *e.msPer1kTokens);
    ASSERT_TRUE(e.interceptMs);
    EXPECT_NEAR(*e.interceptMs, 40.0, 30.0);
    ASSERT_TRUE(e.r2);
    EXPECT_GT(*e.r2, 0.99);
    EXPECT_EQ(e.prompts, 18);
    EXPECT_EQ(e.requests, 90);
    EXPECT_GE(*e.minTokens, 1024);
    EXPECT_LE(*e.maxTokens, 30010);
    EXPECT_TRUE(e.points.empty()); // not kept in the evaluation
    EXPECT_EQ(e.medians.size(), 18u); // one per distinct prompt: what the chart plots
    EXPECT_TRUE(std::is_sorted(e.medians.begin(), e.medians.end(),
        [](const auto& a, const auto& b) { return a.uncachedTokens < b.uncachedTokens; }));
    EXPECT_EQ(p.resamples, 2000);
    // Deterministic: the same data, the same interval.
    const PrefillScaling again = compute(run);
    EXPECT_EQ(again.endpoints.front().interval->lo, e.interval->lo);
    EXPECT_EQ(again.endpoints.front().interval->hi, e.interval->hi);
}

TEST(PrefillScaling, RepeatsOfOnePromptAreNotExtraEvidence)
{
    const PrefillScaling once = compute(sweepRun({}));
    const PrefillScaling fivefold = compute(sweepRun({.repeats = 5}));
    const EndpointPrefill& a = once.endpoints.front();
    const EndpointPrefill& b = fivefold.endpoints.front();
    ASSERT_TRUE(a.interval && b.interval);
    EXPECT_EQ(b.requests, 5 * a.requests);
    EXPECT_EQ(b.prompts, a.prompts);
    EXPECT_NEAR(*b.msPer1kTokens, *a.msPer1kTokens, 1e-6);
    // Clusters resampled whole: five copies of every request leave every resample's slope as it was.
    const double width = a.interval->hi - a.interval->lo;
    EXPECT_NEAR(b.interval->lo, a.interval->lo, 0.05 * width);
    EXPECT_NEAR(b.interval->hi, a.interval->hi, 0.05 * width);
}

TEST(PrefillScaling, CachedTokensAreSubtracted)
{
    // Each prompt had up to 60 % of its tokens served from the cache; TTFT follows the rest only.
    const RunResult run = sweepRun({.maxCachedFraction = 0.6, .reportCached = true, .cacheMode = "warm"});
    const PrefillScaling p = compute(run);
    const EndpointPrefill& e = p.endpoints.front();
    ASSERT_TRUE(e.msPer1kTokens) << e.reason.toStdString();
    EXPECT_NEAR(*e.msPer1kTokens, 50.0, 2.5);
    EXPECT_EQ(e.requestsWithCachedCount, e.requests);
    for (const PrefillPoint& pt : e.points)
        EXPECT_LE(pt.uncachedTokens, pt.promptTokens);
    ASSERT_TRUE(e.cachedShare());
    EXPECT_GT(*e.cachedShare(), 0.1);
    EXPECT_LT(*e.cachedShare(), 0.6);
    EXPECT_TRUE(e.notes.isEmpty()) << e.notes.join(u'\n').toStdString();
    const json j = prefillScalingJson(p);
    EXPECT_EQ(j[0]["tokens"], "uncached");
    EXPECT_EQ(j[0]["cache_mode"], "warm");

    // The same run with the cached counts withheld: all prompt tokens count, and the note says so.
    RunResult blind = run;
    for (RunRecord& r : blind.records)
        r.request.metrics.cachedPromptTokens = {};
    const PrefillScaling blindPrefill = compute(blind);
    const EndpointPrefill& b = blindPrefill.endpoints.front();
    ASSERT_TRUE(b.msPer1kTokens);
    EXPECT_LT(*b.msPer1kTokens, 45.0); // the cache's share is wrongly counted as prefill
    ASSERT_EQ(b.notes.size(), 1);
    EXPECT_TRUE(b.notes.front().contains(QStringLiteral("did not say how many prompt tokens")));
    EXPECT_EQ(prefillScalingJson(compute(blind))[0]["tokens"], "prompt");
}

TEST(PrefillScaling, WarmRunsThatServeTheContextFromCacheRefuseASlope)
{
    // Warm: everything but the last ~100 tokens comes from the cache.
    RunResult run = sweepRun({.reportCached = true, .cacheMode = "warm"});
    for (RunRecord& r : run.records) {
        const qint64 prompt = *r.request.metrics.promptTokens.value;
        r.request.metrics.cachedPromptTokens = {prompt - 100 - r.iteration, CountSource::ServerTimings};
    }
    const PrefillScaling prefill = compute(run);
    const EndpointPrefill& e = prefill.endpoints.front();
    EXPECT_FALSE(e.msPer1kTokens);
    EXPECT_TRUE(e.reason.contains(QStringLiteral("a slope needs at least 2×"))) << e.reason.toStdString();
    EXPECT_TRUE(e.reason.contains(QStringLiteral("prefix cache"))) << e.reason.toStdString();
}

TEST(PrefillScaling, NullWithAReasonBelowThreeDistinctPrompts)
{
    const RunResult run = sweepRun({.sizes = {1024, 8192}, .depths = {0.5}});
    const PrefillScaling p = compute(run);
    const EndpointPrefill& e = p.endpoints.front();
    EXPECT_EQ(e.prompts, 2);
    EXPECT_FALSE(e.msPer1kTokens);
    EXPECT_FALSE(e.interval);
    EXPECT_EQ(e.reason.toStdString(), "only 2 distinct prompts: a slope needs at least 3");
    const json j = prefillScalingJson(p);
    EXPECT_TRUE(j[0]["ms_per_1k_tokens"].is_null());
    EXPECT_TRUE(j[0]["interval"].is_null());
    EXPECT_EQ(j[0]["reason"], "only 2 distinct prompts: a slope needs at least 3");
    EXPECT_EQ(j[0]["source"], "context-sweep");
}

TEST(PrefillScaling, MultiTurnGrowthWhenNoContextTests)
{
    // Three conversations of five turns; TTFT grows with the conversation so far. A single-turn
    // test beside them is left out.
    RunResult run = makeRun({QStringLiteral("q4km"), QStringLiteral("nvfp4")});
    run.suite = {{"id", "voice-assistant"}, {"tests", json::array()}};
    for (int c = 0; c < 3; ++c)
        for (int turn = 1; turn <= 5; ++turn)
            for (int i = 1; i <= 3; ++i)
                for (int e = 0; e < 2; ++e) {
                    const qint64 prompt = 200 + 250 * turn + 40 * c;
                    const double perToken = e == 0 ? 0.3 : 0.03;
                    run.records.push_back(record({.endpoint = e,
                        .test = QStringLiteral("chat-%1").arg(c),
                        .turn = turn,
                        .iteration = i,
                        .ttftMs = 80 + perToken * double(prompt) + i,
                        .promptTokens = prompt}));
                }
    for (int i = 1; i <= 3; ++i)
        run.records.push_back(
            record({.test = QStringLiteral("greeting"), .iteration = i, .ttftMs = 5000, .promptTokens = 60}));
    const PrefillScaling p = compute(run);
    ASSERT_EQ(p.source, PrefillSource::MultiTurn);
    ASSERT_EQ(p.endpoints.size(), 2u);
    const EndpointPrefill& q4 = p.endpoints[0];
    ASSERT_TRUE(q4.msPer1kTokens) << q4.reason.toStdString();
    EXPECT_NEAR(*q4.msPer1kTokens, 300.0, 15.0);
    EXPECT_NEAR(*p.endpoints[1].msPer1kTokens, 30.0, 1.5);
    EXPECT_EQ(q4.prompts, 3); // a conversation is one prompt, all its turns and repeats included
    EXPECT_EQ(q4.requests, 45);
    EXPECT_EQ(q4.medians.size(), 15u); // per conversation and turn
    EXPECT_TRUE(q4.contexts.empty());
    EXPECT_EQ(prefillScalingJson(p)[0]["source"], "multi-turn");
    EXPECT_EQ(prefillScalingJson(p)[0]["cache_mode"], "not stated");
    ASSERT_EQ(p.cacheModes.size(), 1u);
    EXPECT_EQ(cacheModeText(p.cacheModes.front().mode).toStdString(), "not stated");

    // One conversation only: no slope, and the reason.
    RunResult one = run;
    one.records.erase(std::remove_if(one.records.begin(), one.records.end(),
                          [](const RunRecord& r) { return r.test != u"chat-0"; }),
        one.records.end());
    const PrefillScaling onePrefill = compute(one);
    const EndpointPrefill& single = onePrefill.endpoints.front();
    EXPECT_FALSE(single.msPer1kTokens);
    EXPECT_TRUE(single.reason.startsWith(QStringLiteral("only 1 distinct prompt: a slope needs at least 3")))
        << single.reason.toStdString();
}

TEST(PrefillScaling, NothingWithoutContextOrMultiTurnTests)
{
    RunResult run = makeRun({QStringLiteral("A")});
    for (int i = 1; i <= 3; ++i)
        run.records.push_back(record({.iteration = i}));
    const PrefillScaling p = compute(run);
    EXPECT_TRUE(p.empty());
    EXPECT_TRUE(p.endpoints.empty());
    EXPECT_TRUE(prefillScalingJson(p).empty());
}

TEST(PrefillScaling, CorrectnessAndMemoryPerContextSize)
{
    RunResult run = sweepRun({.iterations = 2});
    // Requests one after another, 1 s apart and 500 ms long; a node exporter sampled every 250 ms,
    // the host's memory growing with the context of the request in flight.
    double at = 1000;
    std::map<double, int> sizeAt;
    for (RunRecord& r : run.records) {
        r.startOffsetMs = at;
        r.request.metrics.streamEndMs = 500;
        sizeAt[at] = r.test.section(u'-', 1, 1).toInt(); // "ctx-8192-d50" -> 8192
        at += 1000;
    }
    TelemetryBuilder tb(run.telemetry);
    const int node = tb.source(0, QStringLiteral("http://spark:9100/metrics"));
    tb.sample(node, 0, TelemetrySample::Phase::IdleBefore, hostMemory(20 * GiB, 128 * GiB));
    for (const auto& [start, size] : sizeAt)
        for (double t = start + 100; t < start + 1000; t += 250) {
            const bool inFlight = t <= start + 500;
            tb.sample(node, t, TelemetrySample::Phase::Run,
                hostMemory((inFlight ? 30 + size / 1024.0 : 25) * GiB, 128 * GiB));
        }
    tb.sample(node, at + 1000, TelemetrySample::Phase::IdleAfter, hostMemory(20 * GiB, 128 * GiB));

    const PrefillScaling p = compute(run, false);
    const EndpointPrefill& e = p.endpoints.front();
    EXPECT_FALSE(e.interval); // no bootstrap asked for
    ASSERT_TRUE(e.msPer1kTokens);
    ASSERT_EQ(e.contexts.size(), sweepSizes.size());
    for (std::size_t i = 0; i < sweepSizes.size(); ++i) {
        const ContextRow& c = e.contexts[i];
        EXPECT_EQ(c.contextTokens, sweepSizes[i]);
        EXPECT_EQ(c.prompts, 3);
        EXPECT_EQ(c.requests, 6);
        EXPECT_EQ(c.graded, 6);
        // The fact at depth 0.9 is missed from 16K on.
        EXPECT_EQ(c.right, sweepSizes[i] >= 16000 ? 4 : 6) << c.contextTokens;
        ASSERT_TRUE(c.medianPromptTokens);
        EXPECT_NEAR(*c.medianPromptTokens, sweepSizes[i] + 5, 5);
        ASSERT_TRUE(c.medianTtftMs);
        ASSERT_TRUE(c.memoryPeak.value) << c.contextTokens;
        EXPECT_DOUBLE_EQ(*c.memoryPeak.value, (30 + sweepSizes[i] / 1024.0) * GiB);
        EXPECT_TRUE(c.memoryPeak.source.contains(QStringLiteral("http://spark:9100/metrics")));
        EXPECT_GT(c.memoryPeak.samples, 0);
    }
    ASSERT_EQ(e.depths.size(), 3u);
    EXPECT_DOUBLE_EQ(e.depths[0].depth, 0.1);
    EXPECT_EQ(e.depths[0].right, e.depths[0].graded);
    EXPECT_EQ(e.depths[2].graded, 12);
    EXPECT_EQ(e.depths[2].right, 8);

    const json rows = prefillContextJson(p);
    ASSERT_EQ(rows.size(), sweepSizes.size());
    EXPECT_EQ(rows[0]["endpoint"], "arm0");
    EXPECT_EQ(rows[0]["context_tokens"], 1024);
    EXPECT_EQ(rows[5]["graded"], 6);
    EXPECT_EQ(rows[5]["right"], 4);
    EXPECT_DOUBLE_EQ(rows[5]["memory_peak_bytes"].get<double>(), std::round((30 + 30000 / 1024.0) * GiB));
}

TEST(PrefillScaling, MemoryNotMeasuredWithoutTelemetry)
{
    const PrefillScaling prefill = compute(sweepRun({.iterations = 1}), false);
    const EndpointPrefill& e = prefill.endpoints.front();
    for (const ContextRow& c : e.contexts)
        EXPECT_FALSE(c.memoryPeak.value);
    EXPECT_TRUE(
        prefillContextJson(compute(sweepRun({.iterations = 1}), false))[0]["memory_peak_bytes"].is_null());
}

TEST(PrefillScaling, JsonKeys)
{
    const PrefillScaling p = compute(sweepRun({.endpoints = 2}));
    const json j = prefillScalingJson(p);
    ASSERT_EQ(j.size(), 2u);
    for (const json& entry : j) {
        for (const char* key : {"endpoint", "ms_per_1k_tokens", "interval", "source"})
            EXPECT_TRUE(entry.contains(key)) << key;
        EXPECT_TRUE(entry["endpoint"].is_string());
        EXPECT_TRUE(entry["ms_per_1k_tokens"].is_number());
        ASSERT_TRUE(entry["interval"].is_array());
        EXPECT_EQ(entry["interval"].size(), 2u);
        EXPECT_LE(entry["interval"][0].get<double>(), entry["ms_per_1k_tokens"].get<double>());
        EXPECT_GE(entry["interval"][1].get<double>(), entry["ms_per_1k_tokens"].get<double>());
        EXPECT_EQ(entry["source"], "context-sweep");
        for (const char* key : {"prompts", "requests", "tokens_span", "tokens", "cache_mode", "reason"})
            EXPECT_TRUE(entry.contains(key)) << key;
        EXPECT_EQ(entry["cache_mode"], "cold");
        EXPECT_TRUE(entry["reason"].is_null());
    }
    EXPECT_EQ(j[0]["endpoint"], "arm0");
    EXPECT_NEAR(j[0]["ms_per_1k_tokens"].get<double>(), 50, 2.5);
    EXPECT_NEAR(j[1]["ms_per_1k_tokens"].get<double>(), 100, 5);
}

TEST(PrefillScaling, EvaluationCarriesItAndBootstrapsOnlyWithTheComparison)
{
    const RunResult run = sweepRun({.endpoints = 2});
    const Evaluation fast = evaluate(run, 0, {}, false);
    ASSERT_EQ(fast.prefill.endpoints.size(), 2u);
    EXPECT_TRUE(fast.prefill.endpoints[0].msPer1kTokens);
    EXPECT_FALSE(fast.prefill.endpoints[0].interval);
    EXPECT_FALSE(fast.prefill.withIntervals);
    const Evaluation full = evaluate(run, 0);
    EXPECT_TRUE(full.prefill.endpoints[0].interval);
    EXPECT_TRUE(full.prefill.withIntervals);
    EXPECT_EQ(*full.prefill.endpoints[1].msPer1kTokens, *fast.prefill.endpoints[1].msPer1kTokens);
}

TEST(PrefillScaling, ClusterBootstrapStaysCheapOnALongRun)
{
    // 100,000 requests over 60 prompts: the resamples cost O(prompts), not O(requests).
    const RunResult run
        = sweepRun({.depths = {0.1, 0.3, 0.5, 0.7, 0.8, 0.9, 0.2, 0.4, 0.6, 0.95}, .iterations = 1667});
    ASSERT_GE(run.records.size(), 100000u);
    const auto started = std::chrono::steady_clock::now();
    const PrefillScaling p = compute(run);
    const double ms
        = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
    EXPECT_TRUE(p.endpoints.front().interval);
    EXPECT_LT(ms, 5000.0); // generous: about 100 ms on a laptop, ASan included
}
