// SPDX-License-Identifier: MIT
// GET /metrics on the emulated servers, and the loopback exporters (DCGM, node) with their
// scripted values and faults, read back through Quantscope's own parser and catalogue.

#include "model/core/Clock.h"
#include "model/core/MetricCatalog.h"
#include "model/wire/PrometheusText.h"
#include "model/wire/ScrapeReduction.h"
#include "tests/emulator/EmulatorTestClient.h"
#include "tests/support/ExporterServer.h"
#include "tests/support/MetricsPage.h"

#include <QElapsedTimer>
#include <QThread>
#include <gtest/gtest.h>

using namespace qs;
using namespace qs::emu;
using namespace qs::emu::test;

namespace {

struct Scrape {
    RawResponse response;
    std::optional<PromPage> page;
    PromError error;
};

Scrape scrape(quint16 port, const QList<QByteArray>& headers = {})
{
    Scrape s;
    TestClient client(port);
    client.get("/metrics", headers);
    s.response = client.read();
    const std::string body = s.response.body.toStdString();
    s.page = parsePrometheusText(
        body, promFormatFromContentType(s.response.header("Content-Type").toStdString()), &s.error);
    return s;
}

// The sum of a sample over its label sets (-1 when absent).
double valueOf(const PromPage& page, std::string_view sampleName, std::string_view labelName = {},
    std::string_view labelValue = {})
{
    double sum = 0;
    bool any = false;
    for (const PromFamily& f : page.families)
        for (const PromSample& s : f.samples) {
            if (s.name != sampleName)
                continue;
            if (!labelName.empty()) {
                bool match = false;
                for (const auto& [n, v] : s.labels)
                    match = match || (n == labelName && v == labelValue);
                if (!match)
                    continue;
            }
            sum += s.value;
            any = true;
        }
    return any ? sum : -1;
}

// Streams one chat request to the end; returns what the emulator says it did.
ServedRequest streamOne(EmulatorThread& emu)
{
    TestClient client(emu.server()->port());
    client.postJson("/v1/chat/completions", chatBody(true));
    const RawResponse r = client.read();
    EXPECT_EQ(r.status, 200);
    EXPECT_TRUE(r.complete);
    // The counters move when the responder finishes, right after its last write.
    QThread::msleep(30);
    const auto served = emu.server()->servedRequests();
    return served.empty() ? ServedRequest {} : served.back();
}

ServerConfig metricsConfig(Dialect dialect, int tokens = 5)
{
    ServerConfig c = baseConfig(dialect);
    c.script = simpleScript(tokens, 20, 200);
    return c;
}

} // namespace

// ---- number formats ------------------------------------------------------------------------

TEST(EmulatorMetricsFormat, NumbersAsEachLibraryPrintsThem)
{
    using detail::formatNumber;
    using detail::NumberStyle;
    EXPECT_EQ(formatNumber(1234567, NumberStyle::CppStream), "1.23457e+06");
    EXPECT_EQ(formatNumber(48213, NumberStyle::CppStream), "48213");
    EXPECT_EQ(formatNumber(0.25, NumberStyle::CppStream), "0.25");
    EXPECT_EQ(formatNumber(3, NumberStyle::Python), "3.0");
    EXPECT_EQ(formatNumber(0.1, NumberStyle::Python), "0.1");
    EXPECT_EQ(formatNumber(1234567, NumberStyle::Python), "1.234567e+06");
    EXPECT_EQ(formatNumber(1725012345.6789, NumberStyle::Python), "1.7250123456789e+09");
    EXPECT_EQ(formatNumber(1e10, NumberStyle::Python), "1e+010"); // client_python's own quirk
    EXPECT_EQ(formatNumber(1e-5, NumberStyle::Python), "1e-05");
    EXPECT_EQ(formatNumber(-2.5, NumberStyle::Python), "-2.5");
    EXPECT_EQ(formatNumber(INFINITY, NumberStyle::Python), "+Inf");
    EXPECT_EQ(formatNumber(4e6, NumberStyle::Go), "4e+06");
    EXPECT_EQ(formatNumber(128e9, NumberStyle::Go), "1.28e+11");
    EXPECT_EQ(formatNumber(123, NumberStyle::Go), "123");
    EXPECT_EQ(formatNumber(0.5, NumberStyle::Go), "0.5");
    for (const double v : {1234567.0, 3.0, 0.1, 1e10, 1725012345.6789, 1e-5, 128e9, 0.0})
        for (const auto style : {NumberStyle::CppStream, NumberStyle::Python, NumberStyle::Go})
            EXPECT_TRUE(parsePromValue(formatNumber(v, style))) << formatNumber(v, style);
}

// ---- llama-server ---------------------------------------------------------------------------

TEST(EmulatorMetrics, LlamaServerCountsWhatItStreamed)
{
    EmulatorThread emu;
    ASSERT_TRUE(emu.start(metricsConfig(Dialect::LlamaServer, 7)));
    const Scrape before = scrape(emu.server()->port());
    ASSERT_TRUE(before.page) << before.error.text();
    EXPECT_EQ(before.response.header("Content-Type"), "text/plain; version=0.0.4");
    const QByteArray started = before.response.header("Process-Start-Time-Unix");
    EXPECT_NEAR(started.toDouble(), double(QDateTime::currentSecsSinceEpoch()), 60);
    EXPECT_EQ(valueOf(*before.page, "llamacpp:prompt_tokens_total"), 0);
    EXPECT_EQ(valueOf(*before.page, "llamacpp:requests_processing"), 0);

    const ServedRequest served = streamOne(emu);
    ASSERT_EQ(served.completionTokens, 7);
    const Scrape after = scrape(emu.server()->port());
    ASSERT_TRUE(after.page) << after.error.text();
    EXPECT_EQ(valueOf(*after.page, "llamacpp:prompt_tokens_total"), served.request.promptTokens);
    EXPECT_EQ(valueOf(*after.page, "llamacpp:tokens_predicted_total"), 7);
    EXPECT_EQ(valueOf(*after.page, "llamacpp:requests_processing"), 0);
    EXPECT_EQ(valueOf(*after.page, "llamacpp:requests_deferred"), 0);
    EXPECT_GT(valueOf(*after.page, "llamacpp:prompt_seconds_total"), 0.015);
    EXPECT_GT(valueOf(*after.page, "llamacpp:tokens_predicted_seconds_total"), 0.02);
    EXPECT_EQ(after.response.header("Process-Start-Time-Unix"), started);
    // No labels anywhere; every family typed.
    for (const PromFamily& f : after.page->families) {
        EXPECT_NE(f.type, MetricType::Untyped) << f.name;
        for (const PromSample& s : f.samples)
            EXPECT_TRUE(s.labels.empty()) << s.name;
    }
    // Through the recorder's path: the catalogue reads the same numbers.
    TelemetrySource source;
    const TelemetrySample sample
        = reducePage(*after.page, source, 0, 0, 1, TelemetrySample::Phase::IdleAfter);
    EXPECT_EQ(sourceFlavour(source.families), QStringLiteral("llama-server"));
    EXPECT_EQ(*readRole(source, sample, MetricRole::GeneratedTokens), 7);
    EXPECT_EQ(*readRole(source, sample, MetricRole::PromptTokens), served.request.promptTokens);
}

TEST(EmulatorMetrics, LlamaServerGeneratedTokensMoveOnlyAtTheEnd)
{
    EmulatorThread emu;
    ServerConfig c = metricsConfig(Dialect::LlamaServer);
    c.script = simpleScript(20, 20, 40); // ~0.5 s of decoding
    ASSERT_TRUE(emu.start(c));
    TestClient client(emu.server()->port());
    client.postJson("/v1/chat/completions", chatBody(true));
    QThread::msleep(250);
    const Scrape mid = scrape(emu.server()->port());
    ASSERT_TRUE(mid.page) << mid.error.text();
    EXPECT_EQ(valueOf(*mid.page, "llamacpp:requests_processing"), 1);
    EXPECT_EQ(valueOf(*mid.page, "llamacpp:tokens_predicted_total"), 0);
    EXPECT_GT(valueOf(*mid.page, "llamacpp:prompt_tokens_total"), 0); // the prefill is over
    client.read();
    QThread::msleep(30);
    const Scrape end = scrape(emu.server()->port());
    EXPECT_EQ(valueOf(*end.page, "llamacpp:tokens_predicted_total"), 20);
    EXPECT_EQ(valueOf(*end.page, "llamacpp:requests_processing"), 0);
}

TEST(EmulatorMetrics, LlamaServerWithoutMetricsAnswers501)
{
    EmulatorThread emu;
    ServerConfig c = metricsConfig(Dialect::LlamaServer);
    c.metricsEnabled = false;
    ASSERT_TRUE(emu.start(c));
    const Scrape s = scrape(emu.server()->port());
    EXPECT_EQ(s.response.status, 501);
    EXPECT_EQ(s.response.body,
        "{\"error\":{\"code\":501,\"message\":\"This server does not support metrics endpoint. Start it with "
        "`--metrics`\",\"type\":\"not_supported_error\"}}");
    EXPECT_FALSE(s.page);
}

TEST(EmulatorMetrics, LlamaServerMetricsNeedTheApiKey)
{
    EmulatorThread emu;
    ServerConfig c = metricsConfig(Dialect::LlamaServer);
    c.apiKey = QStringLiteral("sekrit");
    ASSERT_TRUE(emu.start(c));
    EXPECT_EQ(scrape(emu.server()->port()).response.status, 401);
    const Scrape s = scrape(emu.server()->port(), {QByteArrayLiteral("Authorization: Bearer sekrit")});
    EXPECT_EQ(s.response.status, 200);
    EXPECT_TRUE(s.page);
}

// ---- vLLM -----------------------------------------------------------------------------------

TEST(EmulatorMetrics, VllmCountersHistogramsAndCreated)
{
    EmulatorThread emu;
    ASSERT_TRUE(emu.start(metricsConfig(Dialect::Vllm, 6)));
    const ServedRequest served = streamOne(emu);
    ASSERT_EQ(served.completionTokens, 6);
    const Scrape s = scrape(emu.server()->port());
    ASSERT_TRUE(s.page) << s.error.text();
    EXPECT_EQ(s.response.header("content-type"), "text/plain; version=0.0.4; charset=utf-8");
    const PromPage& page = *s.page;
    EXPECT_EQ(valueOf(page, "vllm:prompt_tokens_total"), served.request.promptTokens);
    EXPECT_EQ(valueOf(page, "vllm:generation_tokens_total"), 6);
    EXPECT_EQ(valueOf(page, "vllm:request_success_total", "finished_reason", "stop"), 1);
    EXPECT_EQ(valueOf(page, "vllm:num_requests_running"), 0);
    EXPECT_EQ(valueOf(page, "vllm:kv_cache_usage_perc"), 0);
    EXPECT_EQ(valueOf(page, "vllm:time_to_first_token_seconds_count"), 1);
    EXPECT_EQ(valueOf(page, "vllm:inter_token_latency_seconds_count"), 5); // between 6 tokens
    EXPECT_EQ(valueOf(page, "vllm:e2e_request_latency_seconds_count"), 1);
    EXPECT_EQ(valueOf(page, "vllm:request_queue_time_seconds_count"), 1);
    EXPECT_EQ(valueOf(page, "vllm:request_prefill_time_seconds_count"), 1);
    // The real times: TTFT ≈ 20 ms scripted, tokens 5 ms apart.
    const double ttft = valueOf(page, "vllm:time_to_first_token_seconds_sum");
    EXPECT_GT(ttft, 0.015);
    EXPECT_LT(ttft, 0.5);
    const double e2e = valueOf(page, "vllm:e2e_request_latency_seconds_sum");
    EXPECT_GE(e2e, ttft);
    EXPECT_NEAR(valueOf(page, "vllm:time_to_first_token_seconds_bucket", "le", "0.04"), 1, 1.0); // 0 or 1
    EXPECT_EQ(valueOf(page, "vllm:time_to_first_token_seconds_bucket", "le", "+Inf"), 1);
    EXPECT_EQ(valueOf(page, "vllm:time_to_first_token_seconds_bucket", "le", "2560.0"), 1);
    // Labels and client_python's separate _created families.
    const PromFamily* running = page.family("vllm:num_requests_running");
    ASSERT_NE(running, nullptr);
    ASSERT_EQ(running->samples.size(), 1u);
    EXPECT_EQ(running->samples[0].labels,
        (std::vector<std::pair<std::string, std::string>> {
            {"model_name", "qwen3.5-9b-q4_k_m"}, {"engine", "0"}}));
    ASSERT_NE(page.family("vllm:prompt_tokens_created"), nullptr);
    EXPECT_EQ(page.family("vllm:prompt_tokens_created")->type, MetricType::Gauge);
    ASSERT_NE(page.family("vllm:time_to_first_token_seconds_created"), nullptr);
    EXPECT_TRUE(page.warnings.empty());

    TelemetrySource source;
    const TelemetrySample sample = reducePage(page, source, 0, 0, 1, TelemetrySample::Phase::IdleAfter);
    const auto h = readHistogram(source, sample, MetricRole::ServerTtft);
    ASSERT_TRUE(h);
    EXPECT_EQ(h->count, 1);
    EXPECT_EQ(h->buckets.size(), 23u);
    EXPECT_EQ(*readRole(source, sample, MetricRole::GeneratedTokens), 6);
}

TEST(EmulatorMetrics, VllmIsLiveWhileStreaming)
{
    EmulatorThread emu;
    ServerConfig c = metricsConfig(Dialect::Vllm);
    c.script = simpleScript(20, 20, 40);
    ASSERT_TRUE(emu.start(c));
    TestClient client(emu.server()->port());
    client.postJson("/v1/chat/completions", chatBody(true));
    QThread::msleep(250);
    const Scrape mid = scrape(emu.server()->port());
    ASSERT_TRUE(mid.page) << mid.error.text();
    EXPECT_EQ(valueOf(*mid.page, "vllm:num_requests_running"), 1);
    const double generated = valueOf(*mid.page, "vllm:generation_tokens_total");
    EXPECT_GT(generated, 0);
    EXPECT_LT(generated, 20);
    EXPECT_GT(valueOf(*mid.page, "vllm:kv_cache_usage_perc"), 0);
    const EmulatorLoad load = emu.server()->load();
    EXPECT_EQ(load.running, 1);
    EXPECT_GT(load.kvTokens, 0);
    client.read();
    QThread::msleep(30);
    EXPECT_EQ(emu.server()->load().running, 0);
    EXPECT_EQ(emu.server()->load().kvTokens, 0);
}

TEST(EmulatorMetrics, VllmOpenMetricsWhenAsked)
{
    EmulatorThread emu;
    ASSERT_TRUE(emu.start(metricsConfig(Dialect::Vllm, 4)));
    streamOne(emu);
    const Scrape s = scrape(emu.server()->port(),
        {QByteArrayLiteral(
            "Accept: application/openmetrics-text; version=1.0.0,text/plain;version=0.0.4;q=0.5")});
    ASSERT_TRUE(s.page) << s.error.text();
    EXPECT_EQ(s.page->format, PromFormat::OpenMetrics);
    EXPECT_TRUE(s.page->sawEof);
    const PromFamily* generation = s.page->family("vllm:generation_tokens");
    ASSERT_NE(generation, nullptr);
    EXPECT_EQ(generation->type, MetricType::Counter);
    ASSERT_EQ(generation->samples.size(), 2u);
    EXPECT_EQ(generation->samples[0].name, "vllm:generation_tokens_total");
    EXPECT_EQ(generation->samples[0].value, 4);
    EXPECT_EQ(generation->samples[1].name, "vllm:generation_tokens_created");
    EXPECT_EQ(s.page->family("vllm:generation_tokens_created"), nullptr);
}

TEST(EmulatorMetrics, VllmWithoutLogStatsHasNoEngineSeries)
{
    EmulatorThread emu;
    ServerConfig c = metricsConfig(Dialect::Vllm);
    c.metricsEnabled = false;
    ASSERT_TRUE(emu.start(c));
    const Scrape s = scrape(emu.server()->port());
    ASSERT_TRUE(s.page) << s.error.text();
    EXPECT_EQ(s.response.status, 200);
    EXPECT_NE(s.page->family("process_start_time_seconds"), nullptr);
    for (const PromFamily& f : s.page->families)
        EXPECT_FALSE(f.name.starts_with("vllm:")) << f.name;
}

// ---- SGLang ---------------------------------------------------------------------------------

TEST(EmulatorMetrics, SglangCountsAtFinish)
{
    EmulatorThread emu;
    ServerConfig c = metricsConfig(Dialect::Sglang);
    c.script = simpleScript(20, 20, 40);
    ASSERT_TRUE(emu.start(c));
    TestClient client(emu.server()->port());
    client.postJson("/v1/chat/completions", chatBody(true));
    QThread::msleep(250);
    const Scrape mid = scrape(emu.server()->port());
    ASSERT_TRUE(mid.page) << mid.error.text();
    EXPECT_EQ(valueOf(*mid.page, "sglang:num_running_reqs"), 1);
    EXPECT_EQ(valueOf(*mid.page, "sglang:generation_tokens_total"), 0);
    EXPECT_EQ(valueOf(*mid.page, "sglang:prompt_tokens_total"), 0);
    EXPECT_GT(valueOf(*mid.page, "sglang:token_usage"), 0);
    EXPECT_GT(valueOf(*mid.page, "sglang:gen_throughput"), 0);
    client.read();
    QThread::msleep(30);
    const auto served = emu.server()->servedRequests();
    ASSERT_EQ(served.size(), 1u);
    const Scrape end = scrape(emu.server()->port());
    ASSERT_TRUE(end.page) << end.error.text();
    EXPECT_EQ(valueOf(*end.page, "sglang:generation_tokens_total"), 20);
    EXPECT_EQ(valueOf(*end.page, "sglang:prompt_tokens_total"), served[0].request.promptTokens);
    EXPECT_EQ(valueOf(*end.page, "sglang:num_requests_total"), 1);
    EXPECT_EQ(valueOf(*end.page, "sglang:num_running_reqs"), 0);
    EXPECT_EQ(valueOf(*end.page, "sglang:time_to_first_token_seconds_count"), 1);
    EXPECT_EQ(valueOf(*end.page, "sglang:inter_token_latency_seconds_count"), 19);
    EXPECT_EQ(valueOf(*end.page, "sglang:num_retracted_reqs", "pid", "4242"), 0);
    EXPECT_EQ(end.page->family("sglang:prompt_tokens_created"), nullptr); // multiprocess mode
    TelemetrySource source;
    const TelemetrySample sample = reducePage(*end.page, source, 0, 0, 1, TelemetrySample::Phase::IdleAfter);
    EXPECT_EQ(sourceFlavour(source.families), QStringLiteral("sglang"));
    EXPECT_EQ(*readRole(source, sample, MetricRole::RequestsRunning), 0);
}

TEST(EmulatorMetrics, SglangWithoutMetricsAnswers404)
{
    EmulatorThread emu;
    ServerConfig c = metricsConfig(Dialect::Sglang);
    c.metricsEnabled = false;
    ASSERT_TRUE(emu.start(c));
    const Scrape s = scrape(emu.server()->port());
    EXPECT_EQ(s.response.status, 404);
    EXPECT_EQ(s.response.body, "{\"detail\":\"Not Found\"}");
}

// ---- exporters ------------------------------------------------------------------------------

TEST(Exporter, DcgmScriptedValuesAndLabels)
{
    ExporterConfig c;
    c.kind = ExporterKind::Dcgm;
    c.gpus = 2;
    c.modelName = QStringLiteral("NVIDIA H100 80GB HBM3");
    c.memoryTotalBytes = 80.0 * 1073741824.0;
    ExporterValues v;
    v.memoryUsedBytes = 30.0 * 1073741824.0;
    v.powerW = 250;
    v.utilization = 0.75;
    v.temperatureC = 61;
    c.timeline = {{0, v}};
    ExporterThread exporter;
    ASSERT_TRUE(exporter.start(c));
    EXPECT_EQ(exporter.metricsUrl().path(), QStringLiteral("/metrics"));
    const Scrape s = scrape(exporter.server()->port());
    ASSERT_TRUE(s.page) << s.error.text();
    EXPECT_EQ(
        s.response.header("Content-Type"), "text/plain; version=0.0.4; charset=utf-8; escaping=underscores");
    const PromFamily* used = s.page->family("DCGM_FI_DEV_FB_USED");
    ASSERT_NE(used, nullptr);
    ASSERT_EQ(used->samples.size(), 2u);
    EXPECT_EQ(used->samples[0].value, 30720); // MiB
    std::vector<std::string> names;
    for (const auto& [n, value] : used->samples[1].labels)
        names.push_back(n);
    EXPECT_EQ(names,
        (std::vector<std::string> {
            "gpu", "UUID", "pci_bus_id", "device", "modelName", "Hostname", "DCGM_FI_DRIVER_VERSION"}));
    EXPECT_EQ(used->samples[1].labels[3].second, "nvidia1");
    EXPECT_EQ(s.page->family("DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION")->type, MetricType::Counter);

    TelemetrySource source;
    const TelemetrySample sample = reducePage(*s.page, source, 0, 0, 1, TelemetrySample::Phase::Run);
    EXPECT_EQ(sourceFlavour(source.families), QStringLiteral("dcgm"));
    EXPECT_DOUBLE_EQ(*readRole(source, sample, MetricRole::GpuPower), 500); // two GPUs
    EXPECT_DOUBLE_EQ(*readRole(source, sample, MetricRole::GpuUtilization), 0.75);
    EXPECT_DOUBLE_EQ(*readRole(source, sample, MetricRole::GpuTemperature), 61);
    EXPECT_DOUBLE_EQ(*readRole(source, sample, MetricRole::GpuMemoryUsed), 2 * 30.0 * 1073741824.0);
    EXPECT_DOUBLE_EQ(*readRole(source, sample, MetricRole::GpuMemoryTotal), 2 * 80.0 * 1073741824.0);
}

TEST(Exporter, DcgmEnergyIntegratesThePowerOverRealTime)
{
    ExporterConfig c;
    ExporterValues low;
    low.powerW = 100;
    ExporterValues high;
    high.powerW = 300;
    c.timeline = {{0, low}, {400, high}};
    ExporterThread exporter;
    ASSERT_TRUE(exporter.start(c));
    QElapsedTimer clock;
    clock.start();
    const Scrape first = scrape(exporter.server()->port());
    ASSERT_TRUE(first.page) << first.error.text();
    EXPECT_DOUBLE_EQ(valueOf(*first.page, "DCGM_FI_DEV_POWER_USAGE"), 100);
    QThread::msleep(700);
    const Scrape second = scrape(exporter.server()->port());
    const double elapsedMs = double(clock.elapsed());
    ASSERT_TRUE(second.page) << second.error.text();
    EXPECT_DOUBLE_EQ(valueOf(*second.page, "DCGM_FI_DEV_POWER_USAGE"), 300);
    // From start: ~400 ms at 100 W then the rest at 300 W (mJ = W × ms); generous for a busy box.
    const double energyMj
        = valueOf(*second.page, "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION") - c.energyStartMillijoules;
    const double expected = 100 * 400 + 300 * (elapsedMs - 400);
    EXPECT_NEAR(energyMj, expected, 0.25 * expected) << elapsedMs << " ms";
    EXPECT_GT(energyMj, 100 * 400 + 300 * 250);
    const double delta = valueOf(*second.page, "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION")
        - valueOf(*first.page, "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION");
    EXPECT_GT(delta, 0);
    EXPECT_GE(exporter.server()->energyMillijoules(),
        valueOf(*second.page, "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION"));
    EXPECT_EQ(exporter.server()->scrapes(), 2);
}

TEST(Exporter, NodeMeminfo)
{
    ExporterConfig c;
    c.kind = ExporterKind::Node;
    c.memoryTotalBytes = 128e9;
    c.values = [](double) {
        ExporterValues v;
        v.memoryUsedBytes = 40e9;
        return v;
    };
    ExporterThread exporter;
    ASSERT_TRUE(exporter.start(c));
    const Scrape s = scrape(exporter.server()->port());
    ASSERT_TRUE(s.page) << s.error.text();
    TelemetrySource source;
    const TelemetrySample sample = reducePage(*s.page, source, 0, 0, 1, TelemetrySample::Phase::Run);
    EXPECT_EQ(sourceFlavour(source.families), QStringLiteral("node"));
    EXPECT_NEAR(*readRole(source, sample, MetricRole::HostMemoryTotal), 128e9, 1024);
    EXPECT_NEAR(*readRole(source, sample, MetricRole::HostMemoryUsed), 40e9, 2048);
    EXPECT_GT(valueOf(*s.page, "node_memory_Cached_bytes"), 0);
    EXPECT_GE(valueOf(*s.page, "node_memory_MemFree_bytes"), 0);
}

TEST(Exporter, SimulatedSparkFollowsTheEmulatorsLoad)
{
    EmulatorThread emu;
    ServerConfig sc = metricsConfig(Dialect::LlamaServer);
    sc.script = simpleScript(20, 20, 40);
    ASSERT_TRUE(emu.start(sc));
    EmulatorServer* server = emu.server();
    ExporterThread gpu;
    ASSERT_TRUE(gpu.start(ExporterConfig::simulated(
        ExporterKind::Dcgm, QStringLiteral("q4km-like"), [server] { return server->load(); })));
    ExporterThread memory;
    ASSERT_TRUE(memory.start(ExporterConfig::simulated(
        ExporterKind::Node, QStringLiteral("q4km-like"), [server] { return server->load(); })));
    const Scrape idleGpu = scrape(gpu.server()->port());
    const Scrape idleMemory = scrape(memory.server()->port());
    ASSERT_TRUE(idleGpu.page && idleMemory.page);
    EXPECT_EQ(idleGpu.page->family("DCGM_FI_DEV_FB_USED"), nullptr); // GB10: no framebuffer series
    const double idlePower = valueOf(*idleGpu.page, "DCGM_FI_DEV_POWER_USAGE");
    const double idleAvailable = valueOf(*idleMemory.page, "node_memory_MemAvailable_bytes");

    TestClient client(server->port());
    client.postJson("/v1/chat/completions", chatBody(true));
    QThread::msleep(250);
    const Scrape busyGpu = scrape(gpu.server()->port());
    const Scrape busyMemory = scrape(memory.server()->port());
    client.read();
    ASSERT_TRUE(busyGpu.page && busyMemory.page);
    EXPECT_GT(valueOf(*busyGpu.page, "DCGM_FI_DEV_POWER_USAGE"), idlePower + 10);
    EXPECT_GT(valueOf(*busyGpu.page, "DCGM_FI_DEV_GPU_UTIL"), 50);
    EXPECT_LT(valueOf(*busyMemory.page, "node_memory_MemAvailable_bytes"), idleAvailable);
    // A plausible Spark: 128 GB, the OS and a 9B Q4 model resident.
    const double used = valueOf(*idleMemory.page, "node_memory_MemTotal_bytes") - idleAvailable;
    EXPECT_GT(used, 10e9);
    EXPECT_LT(used, 40e9);

    // Without a load: a fixed timeline, still a valid page.
    ExporterThread fixed;
    ASSERT_TRUE(fixed.start(ExporterConfig::simulated(ExporterKind::Dcgm, QStringLiteral("nvfp4-like"))));
    EXPECT_TRUE(scrape(fixed.server()->port()).page);
}

TEST(ExporterFaults, DownRefusesAndComesBack)
{
    ExporterThread exporter;
    ASSERT_TRUE(exporter.start(ExporterConfig {}));
    const quint16 port = exporter.server()->port();
    EXPECT_TRUE(scrape(port).page);
    ASSERT_TRUE(exporter.setFault(ExporterFault::Down));
    {
        TestClient client(port);
        EXPECT_FALSE(client.isConnected());
    }
    ASSERT_TRUE(exporter.setFault(ExporterFault::None));
    EXPECT_EQ(exporter.server()->port(), port);
    EXPECT_TRUE(scrape(port).page);

    ExporterConfig startsDown;
    startsDown.fault = ExporterFault::Down;
    ExporterThread down;
    ASSERT_TRUE(down.start(startsDown));
    EXPECT_NE(down.server()->port(), 0);
    TestClient client(down.server()->port());
    EXPECT_FALSE(client.isConnected());
}

TEST(ExporterFaults, SlowAnswersLate)
{
    ExporterConfig c;
    c.fault = ExporterFault::Slow;
    c.slowMs = 300;
    ExporterThread exporter;
    ASSERT_TRUE(exporter.start(c));
    QElapsedTimer clock;
    clock.start();
    const Scrape s = scrape(exporter.server()->port());
    EXPECT_GE(clock.elapsed(), 280);
    EXPECT_TRUE(s.page) << s.error.text();
}

TEST(ExporterFaults, HtmlGarbageHugeTruncated)
{
    ExporterConfig c;
    c.openMetrics = true;
    c.hugeBytes = 3 * 1024 * 1024;
    ExporterThread exporter;
    ASSERT_TRUE(exporter.start(c));
    const quint16 port = exporter.server()->port();

    exporter.setFault(ExporterFault::Html);
    Scrape s = scrape(port);
    EXPECT_EQ(s.response.status, 200);
    ASSERT_FALSE(s.page);
    EXPECT_NE(s.error.message.find("HTML"), std::string::npos) << s.error.text();

    exporter.setFault(ExporterFault::Garbage);
    s = scrape(port);
    EXPECT_EQ(s.response.status, 200);
    EXPECT_FALSE(s.page);

    exporter.setFault(ExporterFault::Huge);
    s = scrape(port);
    EXPECT_GE(s.response.body.size(), c.hugeBytes);
    PromError error;
    EXPECT_FALSE(parsePrometheusText(s.response.body.toStdString(), PromFormat::Text004, &error, 10000));
    EXPECT_NE(error.message.find("more than 10000 series"), std::string::npos) << error.text();

    exporter.setFault(ExporterFault::TruncatedOpenMetrics);
    s = scrape(port, {QByteArrayLiteral("Accept: application/openmetrics-text; version=1.0.0")});
    EXPECT_TRUE(s.response.header("Content-Type").startsWith("application/openmetrics-text"));
    EXPECT_FALSE(s.page);

    exporter.setFault(ExporterFault::None);
    s = scrape(port, {QByteArrayLiteral("Accept: application/openmetrics-text; version=1.0.0")});
    ASSERT_TRUE(s.page) << s.error.text();
    EXPECT_TRUE(s.page->sawEof);
}

TEST(ExporterFaults, OtherPaths)
{
    ExporterThread exporter;
    ASSERT_TRUE(exporter.start(ExporterConfig {}));
    TestClient client(exporter.server()->port());
    client.get("/nope");
    const RawResponse r = client.read();
    EXPECT_EQ(r.status, 404);
    EXPECT_EQ(r.body, "404 page not found\n");
    EXPECT_EQ(exporter.server()->scrapes(), 0);
}
