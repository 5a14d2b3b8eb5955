// SPDX-License-Identifier: MIT
// computeResources over hand-scripted telemetry: every expected number below is worked out by
// hand from the script, not by the code under test.
#include "StatsTestSupport.h"
#include "TelemetryTestSupport.h"
#include "model/evaluate/Evaluation.h"
#include "model/evaluate/Guardrails.h"
#include "model/evaluate/Resources.h"

#include <gtest/gtest.h>

using namespace qs;
using namespace qs::test;
using Phase = TelemetrySample::Phase;

namespace {

constexpr double MiB = 1048576.0;

RunRecord timed(int endpoint, double startMs, double durationMs, int concurrency, qint64 completion,
    bool warmup = false, qint64 prompt = 200)
{
    Req q;
    q.endpoint = endpoint;
    q.completionTokens = completion;
    q.promptTokens = prompt;
    q.warmup = warmup;
    RunRecord r = record(q);
    r.concurrency = concurrency;
    r.startOffsetMs = startMs;
    r.request.timing.t0Ns = 1'000'000'000;
    r.request.timing.endNs = r.request.timing.t0Ns + qint64(durationMs * 1e6);
    return r;
}

/// One endpoint on a DGX-Spark-like machine: a warm-up [1, 2] s (10 tokens), two requests at
/// concurrency 1 [3, 5] and [6, 8] s (40 tokens each), two at concurrency 2 both [10, 14] s (50
/// tokens each): 190 completion tokens, 1000 prompt tokens, 9 s of serving.
struct Spark {
    RunResult run = makeRun({QStringLiteral("spark")});
    int runtime = 0;
    int node = 0;
    int dcgm = 0;
};

int levelAt(const RunResult& run, double t)
{
    int level = 0;
    for (const RunRecord& r : run.records) {
        const double end = r.startOffsetMs + double(r.request.timing.endNs - r.request.timing.t0Ns) / 1e6;
        if (t >= r.startOffsetMs && t <= end)
            level = r.concurrency;
    }
    return level;
}

int inFlightAt(const RunResult& run, double t)
{
    int n = 0;
    for (const RunRecord& r : run.records) {
        const double end = r.startOffsetMs + double(r.request.timing.endNs - r.request.timing.t0Ns) / 1e6;
        n += (t >= r.startOffsetMs && t <= end) ? 1 : 0;
    }
    return n;
}

double tokensEndedBy(const RunResult& run, double t)
{
    double n = 0;
    for (const RunRecord& r : run.records) {
        const double end = r.startOffsetMs + double(r.request.timing.endNs - r.request.timing.t0Ns) / 1e6;
        n += end <= t ? double(*r.request.metrics.completionTokens.value) : 0;
    }
    return n;
}

/// The scripted Spark: samples at 0 and 100 ms (idle before), every 500 ms from 250 to 15750
/// (run), 16000 and 16100 (idle after). Host memory 60 GiB idle, 60.5 GiB between requests, 62 at
/// concurrency 1, 64 at 2 with one 65 GiB spike at 12250; power 30 / 100 / 150 W; a 100 W energy
/// counter throughout (in mJ, as DCGM ≤ 4.8 exports it).
Spark spark(const std::function<void(double at, Phase phase, std::vector<Value>& runtime,
                std::vector<Value>& node, std::vector<Value>& dcgm)>& tweak
    = {})
{
    Spark s;
    RunResult& run = s.run;
    run.records = {timed(0, 1000, 1000, 1, 10, true), timed(0, 3000, 2000, 1, 40),
        timed(0, 6000, 2000, 1, 40), timed(0, 10000, 4000, 2, 50), timed(0, 10000, 4000, 2, 50)};
    TelemetryBuilder b(run.telemetry);
    s.runtime = b.source(0, QStringLiteral("http://spark:8080/metrics"), TelemetrySource::Kind::Runtime);
    s.node = b.source(0, QStringLiteral("http://spark:9100/metrics"));
    s.dcgm = b.source(0, QStringLiteral("http://spark:9400/metrics"));
    std::vector<std::pair<double, Phase>> times {{0, Phase::IdleBefore}, {100, Phase::IdleBefore}};
    for (double t = 250; t < 16000; t += 500)
        times.emplace_back(t, Phase::Run);
    times.emplace_back(16000, Phase::IdleAfter);
    times.emplace_back(16100, Phase::IdleAfter);
    for (const auto& [t, phase] : times) {
        const int level = phase == Phase::Run ? levelAt(run, t) : 0;
        const double used = phase != Phase::Run ? 60 * GiB
            : t == 12250                        ? 65 * GiB
            : level == 0                        ? 60.5 * GiB
            : level == 1                        ? 62 * GiB
                                                : 64 * GiB;
        const double power = level == 0 ? 30 : level == 1 ? 100 : 150;
        const bool after = phase == Phase::IdleAfter;
        std::vector<Value> runtime {
            {QStringLiteral("llamacpp:tokens_predicted_total"), 1000 + tokensEndedBy(run, t)},
            {QStringLiteral("llamacpp:prompt_tokens_total"), after ? 5600.0 : 5000.0},
            {QStringLiteral("llamacpp:prompt_tokens_cached_total"), after ? 500.0 : 100.0},
            {QStringLiteral("llamacpp:requests_processing"), double(inFlightAt(run, t))},
            {QStringLiteral("llamacpp:requests_deferred"), 0},
        };
        std::vector<Value> node = hostMemory(used, 128 * GiB);
        std::vector<Value> dcgm {{QStringLiteral("DCGM_FI_DEV_POWER_USAGE"), power},
            {QStringLiteral("DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION"), 5e6 + 100 * t}};
        if (tweak)
            tweak(t, phase, runtime, node, dcgm);
        b.sample(s.runtime, t, phase, runtime);
        b.sample(s.node, t, phase, node);
        b.sample(s.dcgm, t, phase, dcgm);
    }
    return s;
}

QStringList ids(const std::vector<Guardrail>& guardrails)
{
    QStringList out;
    for (const Guardrail& g : guardrails)
        out << g.id;
    return out;
}

const QStringList serverIds {QStringLiteral("server_token_mismatch"), QStringLiteral("server_queueing"),
    QStringLiteral("server_preemptions"), QStringLiteral("kv_cache_near_full"), QStringLiteral("memory_grew"),
    QStringLiteral("server_restarted"), QStringLiteral("telemetry_gaps")};

bool anyServerGuardrail(const std::vector<Guardrail>& g)
{
    for (const QString& id : ids(g))
        if (serverIds.contains(id))
            return true;
    return false;
}

} // namespace

TEST(Resources, HostMemoryIdlePeakMedianAndPerConcurrencyFollowTheScript)
{
    const Spark s = spark();
    const ResourceReport report = computeResources(s.run);
    ASSERT_TRUE(report.collected);
    ASSERT_EQ(report.endpoints.size(), 1u);
    const EndpointResources& r = report.endpoints[0];
    EXPECT_EQ(r.label, QStringLiteral("spark"));
    EXPECT_EQ(r.sources,
        (QStringList {QStringLiteral("http://spark:8080/metrics"),
            QStringLiteral("http://spark:9100/metrics"), QStringLiteral("http://spark:9400/metrics")}));
    EXPECT_EQ(r.memoryKind, QStringLiteral("host"));
    EXPECT_DOUBLE_EQ(*r.memoryIdle.value, 60 * GiB);
    EXPECT_EQ(r.memoryIdle.samples, 4);
    EXPECT_DOUBLE_EQ(*r.memoryIdleBefore.value, 60 * GiB);
    EXPECT_DOUBLE_EQ(*r.memoryIdleAfter.value, 60 * GiB);
    EXPECT_DOUBLE_EQ(*r.memoryPeak.value, 65 * GiB);
    // 2 + 4 + 4 samples at concurrency 1 (warm-up included), 8 at concurrency 2.
    EXPECT_EQ(r.memoryPeak.samples, 18);
    EXPECT_DOUBLE_EQ(*r.memoryServingMedian.value, 62 * GiB);
    EXPECT_EQ(r.memoryIdle.source,
        QStringLiteral(
            "node_memory_MemTotal_bytes − node_memory_MemAvailable_bytes @ http://spark:9100/metrics"));
    EXPECT_DOUBLE_EQ(*r.memoryTotal.value, 128 * GiB);
    ASSERT_EQ(r.byConcurrency.size(), 2u);
    EXPECT_EQ(r.byConcurrency[0].concurrency, 1);
    EXPECT_DOUBLE_EQ(*r.byConcurrency[0].memoryMedian.value, 62 * GiB);
    EXPECT_DOUBLE_EQ(*r.byConcurrency[0].memoryPeak.value, 62 * GiB);
    EXPECT_EQ(r.byConcurrency[0].memoryMedian.samples, 10);
    EXPECT_EQ(r.byConcurrency[1].concurrency, 2);
    EXPECT_DOUBLE_EQ(*r.byConcurrency[1].memoryMedian.value, 64 * GiB);
    EXPECT_DOUBLE_EQ(*r.byConcurrency[1].memoryPeak.value, 65 * GiB);
    EXPECT_EQ(r.byConcurrency[1].memoryPeak.samples, 8);
    // 10 samples at 100 W and 8 at 150 W: the median is 100 W.
    EXPECT_DOUBLE_EQ(*r.powerMedian.value, 100);
    EXPECT_EQ(r.powerMedian.source, QStringLiteral("DCGM_FI_DEV_POWER_USAGE @ http://spark:9400/metrics"));
    EXPECT_FALSE(r.gpuUtilizationMedian.value);
    EXPECT_FALSE(r.kvCachePeak.value);
    EXPECT_DOUBLE_EQ(*r.waitingPeak.value, 0);
    EXPECT_FALSE(r.restarted);
    EXPECT_EQ(r.failedScrapes, 0);
    EXPECT_EQ(r.foreignLoad.samples, 0);
    EXPECT_TRUE(r.notes.isEmpty()) << r.notes.join(u'\n').toStdString();
    // A node exporter reports the machine; the one GPU of a DCGM exporter no other endpoint reads
    // is this endpoint's.
    EXPECT_TRUE(r.memoryPeak.wholeMachine);
    EXPECT_EQ(r.memoryPeak.series, 0);
    EXPECT_FALSE(r.powerMedian.wholeMachine);
    EXPECT_EQ(r.powerMedian.series, 1);
    EXPECT_TRUE(r.wholeMachine);
}

TEST(Resources, EnergyCounterOverTheServingIntervalsPerCompletionToken)
{
    const EndpointResources r = computeResources(spark().run).endpoints[0];
    // 100 W for the 9 s the endpoint was serving = 900 J over 190 completion tokens (warm-up included).
    ASSERT_TRUE(r.energyPerToken.value);
    EXPECT_NEAR(*r.energyPerToken.value, 900.0 / 190.0, 1e-9);
    EXPECT_TRUE(r.energyPerToken.source.startsWith(QStringLiteral(
        "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION @ http://spark:9400/metrics: Δ of the energy counter")));
    EXPECT_TRUE(r.energyPerToken.source.contains(QStringLiteral("warm-ups included")));
    EXPECT_TRUE(r.energyPerToken.source.contains(QStringLiteral("190 completion tokens")));
}

TEST(Resources, EnergyCounterWithPowerThatFollowsTheLoad)
{
    // Samples on whole seconds, so each interval is all serving or all idle: 20 W idle, 100 W at
    // concurrency 1 (5 s), 200 W at concurrency 2 (4 s): 500 + 800 J.
    RunResult run = makeRun({QStringLiteral("gpu")});
    run.records = {timed(0, 1000, 1000, 1, 10, true), timed(0, 3000, 2000, 1, 40),
        timed(0, 6000, 2000, 1, 40), timed(0, 10000, 4000, 2, 50), timed(0, 10000, 4000, 2, 50)};
    TelemetryBuilder b(run.telemetry);
    const int dcgm = b.source(0, QStringLiteral("http://gpu:9400/metrics"));
    double joules = 0;
    for (int k = 0; k <= 16; ++k) {
        const Phase phase = k == 0 ? Phase::IdleBefore : k == 16 ? Phase::IdleAfter : Phase::Run;
        b.sample(dcgm, k * 1000.0, phase, {{QStringLiteral("DCGM_FI_DEV_GPU_ENERGY_JOULES_TOTAL"), joules}});
        const int level = levelAt(run, k * 1000.0 + 500);
        joules += level == 0 ? 20 : level == 1 ? 100 : 200;
    }
    const EndpointResources r = computeResources(run).endpoints[0];
    ASSERT_TRUE(r.energyPerToken.value);
    EXPECT_NEAR(*r.energyPerToken.value, 1300.0 / 190.0, 1e-9);
    EXPECT_EQ(r.energyPerToken.samples, 9);
    EXPECT_FALSE(r.memoryIdle.value); // no memory series: not measured, never 0
    EXPECT_TRUE(r.memoryKind.isEmpty());
}

TEST(Resources, WithoutAnEnergyCounterPowerIsIntegratedAndAGapIsScaledNotLost)
{
    RunResult run = makeRun({QStringLiteral("gpu")});
    run.records = {timed(0, 1000, 1000, 1, 10, true), timed(0, 3000, 2000, 1, 40),
        timed(0, 6000, 2000, 1, 40), timed(0, 10000, 4000, 2, 50), timed(0, 10000, 4000, 2, 50)};
    RunResult gapped = run;
    for (RunResult* r : {&run, &gapped}) {
        TelemetryBuilder b(r->telemetry);
        const int dcgm = b.source(0, QStringLiteral("http://gpu:9400/metrics"));
        for (int k = 0; k <= 16; ++k) {
            const Phase phase = k == 0 ? Phase::IdleBefore : k == 16 ? Phase::IdleAfter : Phase::Run;
            b.sample(dcgm, k * 1000.0, phase, {{QStringLiteral("DCGM_FI_DEV_POWER_USAGE"), 150}});
        }
        if (r == &gapped)
            b.failed(dcgm, 3500, QStringLiteral("connection refused"));
    }
    // 150 W over 9 s of serving = 1350 J.
    const EndpointResources r = computeResources(run).endpoints[0];
    ASSERT_TRUE(r.energyPerToken.value);
    EXPECT_NEAR(*r.energyPerToken.value, 1350.0 / 190.0, 1e-9);
    EXPECT_TRUE(r.energyPerToken.source.contains(QStringLiteral("integrated over time")));
    EXPECT_EQ(r.energyPerToken.uncertainty.coverage, 1.0);
    EXPECT_FALSE(r.energyPerToken.uncertainty.scaled);
    // The failed scrape at 3.5 s: the 3–4 s interval is not interpolated, and the 8 s covered
    // stand for all 9 (1200 J read, scaled by 9/8), where they used to be divided by every token.
    const EndpointResources g = computeResources(gapped).endpoints[0];
    ASSERT_TRUE(g.energyPerToken.value);
    EXPECT_NEAR(*g.energyPerToken.value, 1200.0 * 9.0 / 8.0 / 190.0, 1e-9);
    EXPECT_NEAR(*g.energyPerToken.uncertainty.coverage, 8.0 / 9.0, 1e-9);
    EXPECT_TRUE(g.energyPerToken.uncertainty.scaled);
    EXPECT_EQ(g.failedScrapes, 1);
    EXPECT_TRUE(
        g.notes.join(u'\n').contains(QStringLiteral("energy per token rests on 89 % of the serving time")))
        << g.notes.join(u'\n').toStdString();
    EXPECT_TRUE(g.notes.join(u'\n').contains(QStringLiteral("http://gpu:9400/metrics failed once at 3.5 s: "
                                                            "connection refused")));
}

TEST(Resources, GpuFramebufferIsPreferredOverHostMemory)
{
    const Spark s
        = spark([](double, Phase, std::vector<Value>&, std::vector<Value>&, std::vector<Value>& dcgm) {
              dcgm.push_back({QStringLiteral("DCGM_FI_DEV_FB_USED"), 30000});
              dcgm.push_back({QStringLiteral("DCGM_FI_DEV_FB_FREE"), 10000});
          });
    const EndpointResources r = computeResources(s.run).endpoints[0];
    EXPECT_EQ(r.memoryKind, QStringLiteral("gpu"));
    EXPECT_DOUBLE_EQ(*r.memoryIdle.value, 30000 * MiB);
    EXPECT_DOUBLE_EQ(*r.memoryPeak.value, 30000 * MiB);
    EXPECT_DOUBLE_EQ(*r.memoryTotal.value, 40000 * MiB);
    EXPECT_EQ(r.memoryPeak.source, QStringLiteral("DCGM_FI_DEV_FB_USED @ http://spark:9400/metrics"));
}

TEST(Resources, ServerCountersBetweenTheBaselinesMatchTheClientSums)
{
    const EndpointResources r = computeResources(spark().run).endpoints[0];
    EXPECT_DOUBLE_EQ(*r.serverGeneratedTokens, 190);
    EXPECT_DOUBLE_EQ(*r.clientGeneratedTokens, 190);
    // llama-server: 600 computed + 400 from the cache.
    EXPECT_DOUBLE_EQ(*r.serverPromptTokens, 1000);
    EXPECT_DOUBLE_EQ(*r.clientPromptTokens, 1000);
    EXPECT_NEAR(*r.serverGeneratedPerSecond, 190.0 / 9.0, 1e-9);
    EXPECT_NEAR(*r.clientGeneratedPerSecond, 190.0 / 9.0, 1e-9);
    EXPECT_FALSE(r.preemptions); // llama-server has no such counter
    EXPECT_EQ(r.generatedTokensQuantum, 0);
    EXPECT_FALSE(anyServerGuardrail(checkGuardrails(spark().run)));
}

TEST(Resources, LlamaServerWithoutTheCachedCounterHasNoServerPromptCount)
{
    const Spark s
        = spark([](double, Phase, std::vector<Value>& runtime, std::vector<Value>&, std::vector<Value>&) {
              std::erase_if(
                  runtime, [](const Value& v) { return v.name == u"llamacpp:prompt_tokens_cached_total"; });
          });
    const EndpointResources r = computeResources(s.run).endpoints[0];
    EXPECT_FALSE(r.serverPromptTokens);
    EXPECT_TRUE(r.notes.join(u'\n').contains(QStringLiteral("cache hits excluded")));
}

TEST(Resources, ACounterThatWentDownIsARestartAndNoDeltaIsMeasured)
{
    const Spark s
        = spark([](double t, Phase, std::vector<Value>& runtime, std::vector<Value>&, std::vector<Value>&) {
              if (t > 9000)
                  runtime[0].value -= 1000; // the process restarted at 9 s and counted from 0
          });
    const EndpointResources r = computeResources(s.run).endpoints[0];
    EXPECT_TRUE(r.restarted);
    EXPECT_FALSE(r.serverGeneratedTokens);
    EXPECT_FALSE(r.serverPromptTokens);
    EXPECT_FALSE(r.serverGeneratedPerSecond);
    EXPECT_DOUBLE_EQ(*r.clientGeneratedTokens, 190);
    EXPECT_TRUE(
        r.notes.join(u'\n').contains(QStringLiteral("llamacpp:tokens_predicted_total went down from 1090 "
                                                    "to 90 between ")))
        << r.notes.join(u'\n').toStdString();
    const QStringList g = ids(checkGuardrails(s.run));
    EXPECT_TRUE(g.contains(QStringLiteral("server_restarted")));
    EXPECT_FALSE(g.contains(QStringLiteral("server_token_mismatch")));
}

TEST(Resources, FailedScrapesAreCountedAndNotedAsOneGap)
{
    Spark s = spark();
    for (TelemetrySample& x : s.run.telemetry.samples)
        if (x.source == s.node && (x.atMs == 4250 || x.atMs == 4750)) {
            x.values.clear();
            x.error = QStringLiteral("connection refused");
        }
    const EndpointResources r = computeResources(s.run).endpoints[0];
    EXPECT_EQ(r.failedScrapes, 2);
    const QString notes = r.notes.join(u'\n');
    EXPECT_TRUE(notes.contains(QStringLiteral("http://spark:9100/metrics failed 2 times between 4.")));
    EXPECT_TRUE(notes.contains(QStringLiteral(": connection refused")));
    // The gap is a gap: 8 samples at concurrency 1 instead of 10, nothing interpolated.
    EXPECT_EQ(r.byConcurrency[0].memoryMedian.samples, 8);
    EXPECT_DOUBLE_EQ(*r.memoryPeak.value, 65 * GiB);
    const auto g = checkGuardrails(s.run);
    ASSERT_TRUE(ids(g).contains(QStringLiteral("telemetry_gaps")));
    const auto gaps
        = std::find_if(g.begin(), g.end(), [](const Guardrail& x) { return x.id == u"telemetry_gaps"; });
    EXPECT_EQ(gaps->severity, Guardrail::Severity::Info);
}

TEST(Resources, AnExporterSharedByTwoEndpointsIsTheMachines)
{
    RunResult run = makeRun({QStringLiteral("A"), QStringLiteral("B")});
    run.records = {timed(0, 1000, 1000, 1, 10), timed(1, 3000, 1000, 1, 10)};
    TelemetryBuilder b(run.telemetry);
    const int a = b.source(0, QStringLiteral("http://box:9400/metrics"));
    const int c = b.source(1, QStringLiteral("http://box:9400/metrics"));
    for (int k = 0; k <= 5; ++k) {
        const Phase phase = k == 0 ? Phase::IdleBefore : k == 5 ? Phase::IdleAfter : Phase::Run;
        for (int src : {a, c})
            b.sample(src, k * 1000.0 + 250, phase, {{QStringLiteral("DCGM_FI_DEV_FB_USED"), 1000.0 + k}});
    }
    const ResourceReport report = computeResources(run);
    ASSERT_EQ(report.endpoints.size(), 2u);
    EXPECT_TRUE(report.endpoints[0].notes.join(u'\n').contains(
        QStringLiteral("http://box:9400/metrics is also scraped for \"B\": its figures are the machine's")));
    EXPECT_TRUE(report.endpoints[1].notes.join(u'\n').contains(QStringLiteral("also scraped for \"A\"")));
    for (const EndpointResources& e : report.endpoints) {
        EXPECT_TRUE(e.memoryPeak.wholeMachine) << "one GPU, but two endpoints read it";
        EXPECT_TRUE(e.wholeMachine);
    }
    // A served [1, 2] s: the sample at 1.25 s; B served [3, 4] s: the sample at 3.25 s.
    EXPECT_DOUBLE_EQ(*report.endpoints[0].memoryPeak.value, 1001 * MiB);
    EXPECT_DOUBLE_EQ(*report.endpoints[1].memoryPeak.value, 1003 * MiB);
}

TEST(Resources, WithoutTelemetryEveryServerFigureIsNotMeasured)
{
    RunResult run = makeRun({QStringLiteral("A")});
    run.records = {timed(0, 0, 1000, 1, 10, true), timed(0, 1000, 1000, 1, 40)};
    const ResourceReport report = computeResources(run);
    EXPECT_FALSE(report.collected);
    ASSERT_EQ(report.endpoints.size(), 1u);
    const EndpointResources& r = report.endpoints[0];
    EXPECT_TRUE(r.sources.isEmpty());
    EXPECT_FALSE(r.memoryIdle.value);
    EXPECT_FALSE(r.memoryPeak.value);
    EXPECT_FALSE(r.powerMedian.value);
    EXPECT_FALSE(r.energyPerToken.value);
    EXPECT_FALSE(r.serverGeneratedTokens);
    EXPECT_DOUBLE_EQ(*r.clientGeneratedTokens, 50);
    EXPECT_DOUBLE_EQ(*r.clientPromptTokens, 400);
    const nlohmann::json j = toJson(report);
    ASSERT_EQ(j.size(), 1u);
    const nlohmann::json& e = j[0];
    EXPECT_EQ(e["endpoint"], "A");
    EXPECT_TRUE(e["sources"].is_array() && e["sources"].empty());
    for (const char* key : {"memory_idle_bytes", "memory_peak_bytes", "power_median_w", "energy_per_token_j",
             "server_generated_tokens", "server_prompt_tokens"}) {
        ASSERT_TRUE(e.contains(key)) << key;
        EXPECT_TRUE(e[key].is_null()) << key;
    }
    EXPECT_TRUE(e["memory_by_concurrency"].is_object() && e["memory_by_concurrency"].empty());
    EXPECT_EQ(e["client_generated_tokens"], 50);
    EXPECT_EQ(e["client_prompt_tokens"], 400);
    EXPECT_FALSE(anyServerGuardrail(checkGuardrails(run)));
}

TEST(Resources, JsonCarriesTheScriptedFiguresAndTheirSources)
{
    const nlohmann::json j = toJson(computeResources(spark().run));
    ASSERT_EQ(j.size(), 1u);
    const nlohmann::json& e = j[0];
    EXPECT_EQ(e["endpoint"], "spark");
    EXPECT_EQ(e["sources"].size(), 3u);
    EXPECT_DOUBLE_EQ(e["memory_idle_bytes"].get<double>(), 60 * GiB);
    EXPECT_DOUBLE_EQ(e["memory_peak_bytes"].get<double>(), 65 * GiB);
    EXPECT_DOUBLE_EQ(e["memory_by_concurrency"]["1"]["median_bytes"].get<double>(), 62 * GiB);
    EXPECT_DOUBLE_EQ(e["memory_by_concurrency"]["2"]["peak_bytes"].get<double>(), 65 * GiB);
    EXPECT_DOUBLE_EQ(e["power_median_w"].get<double>(), 100);
    EXPECT_NEAR(e["energy_per_token_j"].get<double>(), 900.0 / 190.0, 1e-9);
    EXPECT_EQ(e["server_generated_tokens"], 190);
    EXPECT_EQ(e["client_generated_tokens"], 190);
    EXPECT_EQ(e["server_prompt_tokens"], 1000);
    EXPECT_EQ(e["client_prompt_tokens"], 1000);
    EXPECT_EQ(e["memory_kind"], "host");
    EXPECT_EQ(e["figure_sources"]["power_median_w"]["source"],
        "DCGM_FI_DEV_POWER_USAGE @ http://spark:9400/metrics");
    EXPECT_EQ(e["figure_sources"]["memory_peak_bytes"]["samples"], 18);
    EXPECT_EQ(e["figure_sources"]["memory_peak_bytes"]["whole_machine"], true);
    EXPECT_EQ(e["figure_sources"]["power_median_w"]["whole_machine"], false);
    EXPECT_EQ(e["figure_sources"]["power_median_w"]["series"], 1);
    EXPECT_TRUE(e["figure_sources"]["power_median_w"]["selection"].is_null());
    EXPECT_EQ(e["whole_machine"], true);
    EXPECT_EQ(e["energy_per_token_uncertainty"]["coverage"], 1.0);
    EXPECT_TRUE(e["energy_per_token_uncertainty"]["relative_se"].is_null()) << "9 s of serving is too short";
}

namespace {

/// A vLLM endpoint at concurrency 1: request A [1, 3] s (client TTFT 350 ms), request B [4, 6] s
/// (450 ms), scrapes at 0 (idle), 0.5, 3.5, 6.5 s and 7 s (idle). A's server TTFT 0.3 s, queue
/// 10 ms, prefill 250 ms; B's 0.4 s, 20 ms, 300 ms.
RunResult vllmRun()
{
    RunResult run = makeRun({QStringLiteral("vllm")});
    run.records = {timed(0, 1000, 2000, 1, 40), timed(0, 4000, 2000, 1, 40)};
    run.records[0].request.metrics.ttftAnyMs = 350;
    run.records[1].request.metrics.ttftAnyMs = 450;
    TelemetryBuilder b(run.telemetry);
    const int src = b.source(0, QStringLiteral("http://vllm:8000/metrics"), TelemetrySource::Kind::Runtime);
    const auto values = [](int done) {
        const double ttftSum[] = {0, 0.3, 0.7};
        const double queueSum[] = {0, 0.01, 0.03};
        const double prefillSum[] = {0, 0.25, 0.55};
        const double n = done;
        std::vector<Value> v {{QStringLiteral("vllm:num_requests_running"), 0},
            {QStringLiteral("vllm:num_requests_waiting"), 0},
            {QStringLiteral("vllm:generation_tokens_total"), 40.0 * done}};
        for (const Value& x : histogram(QStringLiteral("vllm:time_to_first_token_seconds"), ttftSum[done], n,
                 {{QStringLiteral("0.1"), 0}, {QStringLiteral("0.5"), n}, {QStringLiteral("1"), n},
                     {QStringLiteral("+Inf"), n}}))
            v.push_back(x);
        for (const Value& x : histogram(QStringLiteral("vllm:request_queue_time_seconds"), queueSum[done], n,
                 {{QStringLiteral("0.05"), n}, {QStringLiteral("+Inf"), n}}))
            v.push_back(x);
        for (const Value& x : histogram(QStringLiteral("vllm:request_prefill_time_seconds"), prefillSum[done],
                 n, {{QStringLiteral("0.5"), n}, {QStringLiteral("+Inf"), n}}))
            v.push_back(x);
        return v;
    };
    b.sample(src, 0, Phase::IdleBefore, values(0));
    b.sample(src, 500, Phase::Run, values(0));
    b.sample(src, 3500, Phase::Run, values(1));
    b.sample(src, 6500, Phase::Run, values(2));
    b.sample(src, 7000, Phase::IdleAfter, values(2));
    return run;
}

} // namespace

TEST(Resources, ServerHistogramsOverTheRunBesideTheClient)
{
    const EndpointResources r = computeResources(vllmRun()).endpoints[0];
    ASSERT_EQ(r.serverLatency.size(), 3u);
    const ServerLatency& ttft = r.serverLatency[0];
    EXPECT_EQ(ttft.role, MetricRole::ServerTtft);
    EXPECT_DOUBLE_EQ(ttft.count, 2);
    EXPECT_NEAR(*ttft.meanMs, 350, 1e-9);
    // Both in the (0.1, 0.5] bucket: p50 = 0.1 + 0.4·1/2, p90 = 0.1 + 0.4·1.8/2.
    EXPECT_NEAR(*ttft.p50Ms, 300, 1e-9);
    EXPECT_NEAR(*ttft.p90Ms, 460, 1e-9);
    EXPECT_NEAR(*ttft.clientMeanMs, 400, 1e-9);
    EXPECT_EQ(ttft.source, QStringLiteral("vllm:time_to_first_token_seconds @ http://vllm:8000/metrics"));
    EXPECT_EQ(r.serverLatency[1].role, MetricRole::ServerQueue);
    EXPECT_NEAR(*r.serverLatency[1].meanMs, 15, 1e-9);
    EXPECT_FALSE(r.serverLatency[1].clientMeanMs);
    EXPECT_EQ(r.serverLatency[2].role, MetricRole::ServerPrefill);
    EXPECT_NEAR(*r.serverLatency[2].meanMs, 275, 1e-9);
    EXPECT_DOUBLE_EQ(*r.serverGeneratedTokens, 80);
}

TEST(Resources, TtftBreakdownFromHistogramDeltasAroundEachRequest)
{
    const EndpointResources r = computeResources(vllmRun()).endpoints[0];
    ASSERT_EQ(r.ttftBreakdown.size(), 2u);
    const TtftBreakdown& a = r.ttftBreakdown[0];
    EXPECT_DOUBLE_EQ(a.clientTtftMs, 350);
    EXPECT_NEAR(*a.queueMs, 10, 1e-9);
    EXPECT_NEAR(*a.prefillMs, 250, 1e-9);
    EXPECT_FALSE(a.firstDecodeMs);
    EXPECT_NEAR(*a.networkAndQueueMs, 90, 1e-9);
    EXPECT_TRUE(a.source.contains(QStringLiteral("Δ between scrapes @ http://vllm:8000/metrics")));
    const TtftBreakdown& b = r.ttftBreakdown[1];
    EXPECT_NEAR(*b.queueMs, 20, 1e-9);
    EXPECT_NEAR(*b.prefillMs, 300, 1e-9);
    EXPECT_NEAR(*b.networkAndQueueMs, 130, 1e-9);
}

TEST(Resources, NoBreakdownWhenTwoObservationsFellBetweenTheScrapes)
{
    RunResult run = vllmRun();
    // Without the 3.5 s scrape both requests lie between 0.5 and 6.5 s: Δcount = 2 for each.
    std::erase_if(run.telemetry.samples, [](const TelemetrySample& s) { return s.atMs == 3500; });
    const EndpointResources r = computeResources(run).endpoints[0];
    EXPECT_TRUE(r.ttftBreakdown.empty());
    EXPECT_EQ(r.serverLatency.size(), 3u); // the run's histograms still are there
}

TEST(Resources, TtftBreakdownFromLlamaServerTimings)
{
    RunResult run = makeRun({QStringLiteral("llama")});
    run.records = {timed(0, 1000, 2000, 1, 40, true), timed(0, 4000, 2000, 1, 40)};
    for (RunRecord& r : run.records) {
        ServerTimings t;
        t.promptMs = 120;
        t.predictedPerTokenMs = 20;
        r.request.response.timings = t;
        r.request.metrics.ttftAnyMs = 200;
    }
    // No scraping needed: the timings come with each response. Warm-ups are left out.
    const EndpointResources r = computeResources(run).endpoints[0];
    ASSERT_EQ(r.ttftBreakdown.size(), 1u);
    EXPECT_NEAR(*r.ttftBreakdown[0].prefillMs, 120, 1e-9);
    EXPECT_NEAR(*r.ttftBreakdown[0].firstDecodeMs, 20, 1e-9);
    EXPECT_NEAR(*r.ttftBreakdown[0].networkAndQueueMs, 80, 1e-9)
        << "200 − 120: the decode step is not in the TTFT";
    EXPECT_FALSE(r.ttftBreakdown[0].queueMs);
    EXPECT_EQ(r.ttftBreakdown[0].source,
        QStringLiteral("timings.prompt_ms, timings.predicted_per_token_ms (llama-server)"));
    const nlohmann::json j = toJson(computeResources(run));
    EXPECT_EQ(j[0]["ttft_breakdown"]["requests"], 1);
    EXPECT_NEAR(j[0]["ttft_breakdown"]["median_prefill_ms"].get<double>(), 120, 1e-9);
}

TEST(Resources, MoreRequestsOnTheServerThanInFlightIsForeignLoad)
{
    const Spark s
        = spark([](double t, Phase, std::vector<Value>& runtime, std::vector<Value>&, std::vector<Value>&) {
              if (t == 4250) // one request of ours in flight, and one more waiting on the server
                  runtime[4].value = 1;
          });
    const EndpointResources r = computeResources(s.run).endpoints[0];
    EXPECT_EQ(r.foreignLoad.samples, 1);
    EXPECT_DOUBLE_EQ(r.foreignLoad.atMs, 4250);
    EXPECT_DOUBLE_EQ(r.foreignLoad.running, 1);
    EXPECT_DOUBLE_EQ(r.foreignLoad.waiting, 1);
    EXPECT_EQ(r.foreignLoad.inFlight, 1);
    EXPECT_TRUE(ids(checkGuardrails(s.run)).contains(QStringLiteral("server_queueing")));
}

TEST(Resources, EvaluationCarriesResourcesAndCombineRenumbersTelemetry)
{
    const Spark s = spark();
    EXPECT_EQ(evaluate(s.run, 0, {}, false).resources.endpoints.size(), 1u);
    RunResult other = vllmRun();
    std::vector<LabelledResult> files {{QStringLiteral("a"), s.run}, {QStringLiteral("b"), other}};
    const RunResult combined = combineResults(std::move(files));
    ASSERT_EQ(combined.telemetry.sources.size(), 4u);
    EXPECT_EQ(combined.telemetry.sources[3].endpoint, 1);
    EXPECT_EQ(combined.telemetry.sources[3].url, QStringLiteral("http://vllm:8000/metrics"));
    EXPECT_EQ(
        combined.telemetry.samples.size(), s.run.telemetry.samples.size() + other.telemetry.samples.size());
    EXPECT_TRUE(std::is_sorted(combined.telemetry.samples.begin(), combined.telemetry.samples.end(),
        [](const TelemetrySample& a, const TelemetrySample& b) { return a.atMs < b.atMs; }));
    const ResourceReport report = computeResources(combined);
    ASSERT_EQ(report.endpoints.size(), 2u);
    EXPECT_DOUBLE_EQ(*report.endpoints[0].memoryPeak.value, 65 * GiB);
    EXPECT_DOUBLE_EQ(*report.endpoints[1].serverGeneratedTokens, 80);
    EXPECT_EQ(report.endpoints[1].ttftBreakdown.size(), 2u);
}
