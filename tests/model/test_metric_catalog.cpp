// SPDX-License-Identifier: MIT
#include "PromFixtures.h"
#include "model/core/MetricCatalog.h"
#include "model/wire/PrometheusText.h"
#include "model/wire/ScrapeReduction.h"

#include <cmath>
#include <gtest/gtest.h>

using namespace qs;

namespace {

// One source fed page after page, as the recorder does.
struct Scraped {
    TelemetrySource source;
    std::vector<TelemetrySample> samples;

    const TelemetrySample& add(std::string_view text, PromFormat format = PromFormat::Text004)
    {
        PromError error;
        const auto page = parsePrometheusText(text, format, &error);
        EXPECT_TRUE(page) << error.text();
        samples.push_back(page
                ? reducePage(*page, source, 0, double(samples.size()) * 333, 2, TelemetrySample::Phase::Run)
                : failedSample(0, 0, 0, TelemetrySample::Phase::Run, QStringLiteral("bad page")));
        return samples.back();
    }
    std::optional<double> read(MetricRole role, QString* found = nullptr) const
    {
        return readRole(source, samples.back(), role, found);
    }
};

constexpr double MiB = 1048576.0;

} // namespace

TEST(MetricCatalog, LlamaServerRoles)
{
    Scraped s;
    s.add(fixtures::LlamaPage);
    QString found;
    EXPECT_DOUBLE_EQ(*s.read(MetricRole::PromptTokens, &found), 1234570.0);
    EXPECT_EQ(found, QStringLiteral("llamacpp:prompt_tokens_total"));
    EXPECT_DOUBLE_EQ(*s.read(MetricRole::GeneratedTokens), 48213);
    EXPECT_DOUBLE_EQ(*s.read(MetricRole::RequestsRunning), 2);
    EXPECT_DOUBLE_EQ(*s.read(MetricRole::RequestsWaiting), 1);
    EXPECT_DOUBLE_EQ(*s.read(MetricRole::PromptSeconds), 312.482);
    EXPECT_DOUBLE_EQ(*s.read(MetricRole::PredictedSeconds), 1205.77);
    EXPECT_FALSE(s.read(MetricRole::KvCacheUsage)); // removed from llama-server in 2025
    EXPECT_FALSE(s.read(MetricRole::ServerTtft));
    EXPECT_EQ(sourceFlavour(s.source.families), QStringLiteral("llama-server"));
}

TEST(MetricCatalog, VllmNewKvCacheNameWinsOverTheOld)
{
    Scraped s;
    s.add("# TYPE vllm:gpu_cache_usage_perc gauge\nvllm:gpu_cache_usage_perc{engine=\"0\",model_name=\"m\"} "
          "0.9\n"
          "# TYPE vllm:kv_cache_usage_perc gauge\nvllm:kv_cache_usage_perc{engine=\"0\",model_name=\"m\"} "
          "0.25\n");
    QString found;
    EXPECT_DOUBLE_EQ(*s.read(MetricRole::KvCacheUsage, &found), 0.25);
    EXPECT_EQ(found, QStringLiteral("vllm:kv_cache_usage_perc"));

    Scraped old; // an 0.10-era server: only the old name
    old.add(fixtures::VllmPageOpenMetrics, PromFormat::OpenMetrics);
    EXPECT_DOUBLE_EQ(*old.read(MetricRole::KvCacheUsage, &found), 0.25);
    EXPECT_EQ(found, QStringLiteral("vllm:gpu_cache_usage_perc"));
    // OpenMetrics counters: the family is named without _total, the sample with it.
    EXPECT_DOUBLE_EQ(*old.read(MetricRole::PromptTokens), 1234567.0);
    EXPECT_DOUBLE_EQ(*old.read(MetricRole::GeneratedTokens), 98765.0);
}

TEST(MetricCatalog, VllmRatiosAreAveragedAndAmountsSummedOverEngines)
{
    Scraped s;
    s.add("# TYPE vllm:kv_cache_usage_perc gauge\n"
          "vllm:kv_cache_usage_perc{engine=\"0\",model_name=\"m\"} 0.2\n"
          "vllm:kv_cache_usage_perc{engine=\"1\",model_name=\"m\"} 0.6\n"
          "# TYPE vllm:num_requests_running gauge\n"
          "vllm:num_requests_running{engine=\"0\",model_name=\"m\"} 3\n"
          "vllm:num_requests_running{engine=\"1\",model_name=\"m\"} 4\n");
    EXPECT_DOUBLE_EQ(*s.read(MetricRole::KvCacheUsage), 0.4);
    EXPECT_DOUBLE_EQ(*s.read(MetricRole::RequestsRunning), 7);
}

TEST(MetricCatalog, DcgmUnitsSentinelsAndSums)
{
    Scraped s;
    s.add(fixtures::DcgmPage);
    QString found;
    // FB_USED in MiB, summed over both GPUs.
    EXPECT_DOUBLE_EQ(*s.read(MetricRole::GpuMemoryUsed, &found), 81000 * MiB);
    EXPECT_EQ(found, QStringLiteral("DCGM_FI_DEV_FB_USED"));
    // No FB_TOTAL in the default CSV: used + free.
    EXPECT_DOUBLE_EQ(*s.read(MetricRole::GpuMemoryTotal, &found), (81000 + 3072) * MiB);
    EXPECT_EQ(found, QStringLiteral("DCGM_FI_DEV_FB_USED + DCGM_FI_DEV_FB_FREE"));
    // Power adds up; utilisation (% → ratio) and temperature are averaged.
    EXPECT_NEAR(*s.read(MetricRole::GpuPower), 400.0, 1e-9);
    EXPECT_DOUBLE_EQ(*s.read(MetricRole::GpuUtilization), 0.5);
    EXPECT_DOUBLE_EQ(*s.read(MetricRole::GpuTemperature), 45);
    // mJ → J; GPU 1 reports DCGM's int64 "not supported" sentinel, which is no value.
    EXPECT_DOUBLE_EQ(*s.read(MetricRole::GpuEnergy, &found), 4000.0);
    EXPECT_EQ(found, QStringLiteral("DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION"));
    EXPECT_TRUE(isDcgmSentinel(140737488355328.0));
    EXPECT_TRUE(isDcgmSentinel(9223372036854775794.0));
    EXPECT_FALSE(isDcgmSentinel(4e12));
    EXPECT_EQ(sourceFlavour(s.source.families), QStringLiteral("dcgm"));
}

TEST(MetricCatalog, DcgmSentinelOnlyMeansNoValue)
{
    Scraped s;
    s.add("# TYPE DCGM_FI_DEV_FB_USED gauge\nDCGM_FI_DEV_FB_USED{gpu=\"0\"} 140737488355330\n"
          "# TYPE DCGM_FI_DEV_POWER_USAGE gauge\nDCGM_FI_DEV_POWER_USAGE{gpu=\"0\"} NaN\n");
    EXPECT_FALSE(s.read(MetricRole::GpuMemoryUsed));
    EXPECT_FALSE(s.read(MetricRole::GpuPower));
}

TEST(MetricCatalog, Dcgm49NamesWinAndNeedNoFactor)
{
    Scraped s;
    s.add("# TYPE DCGM_FI_DEV_GPU_ENERGY_JOULES_TOTAL "
          "counter\nDCGM_FI_DEV_GPU_ENERGY_JOULES_TOTAL{gpu=\"0\"} 12.5\n"
          "# TYPE DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION "
          "counter\nDCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{gpu=\"0\"} 99000\n"
          "# TYPE DCGM_FI_DEV_GPU_UTIL_RATIO gauge\nDCGM_FI_DEV_GPU_UTIL_RATIO{gpu=\"0\"} 0.75\n"
          "# TYPE DCGM_FI_DEV_BOARD_POWER_WATTS gauge\nDCGM_FI_DEV_BOARD_POWER_WATTS{gpu=\"0\"} 250\n");
    EXPECT_DOUBLE_EQ(*s.read(MetricRole::GpuEnergy), 12.5);
    EXPECT_DOUBLE_EQ(*s.read(MetricRole::GpuUtilization), 0.75);
    EXPECT_DOUBLE_EQ(*s.read(MetricRole::GpuPower), 250);
}

TEST(MetricCatalog, HostMemoryIsTotalMinusAvailable)
{
    Scraped s;
    s.add(fixtures::NodePage);
    QString found;
    EXPECT_DOUBLE_EQ(*s.read(MetricRole::HostMemoryTotal), 128849018880.0);
    EXPECT_DOUBLE_EQ(*s.read(MetricRole::HostMemoryUsed, &found), 128849018880.0 - 68719476736.0);
    EXPECT_TRUE(found.contains(QStringLiteral("node_memory_MemAvailable_bytes")));
    EXPECT_EQ(sourceFlavour(s.source.families), QStringLiteral("node"));
    // Kept for the reader though nothing is computed from it.
    EXPECT_TRUE(keepSeries(QStringLiteral("node_memory_Cached_bytes")));
    EXPECT_FALSE(keepSeries(QStringLiteral("node_memory_Active_anon_bytes")));

    Scraped ancient; // node exporter < 0.16: no _bytes, kB
    ancient.add("node_memory_MemTotal 1000\nnode_memory_MemAvailable 400\n");
    EXPECT_DOUBLE_EQ(*ancient.read(MetricRole::HostMemoryUsed), 600 * 1024.0);

    Scraped half;
    half.add("node_memory_MemTotal_bytes 1000\n");
    EXPECT_FALSE(half.read(MetricRole::HostMemoryUsed));
}

TEST(MetricCatalog, SglangRoles)
{
    Scraped s;
    s.add(fixtures::SglangPage);
    EXPECT_DOUBLE_EQ(*s.read(MetricRole::RequestsRunning), 4);
    EXPECT_DOUBLE_EQ(*s.read(MetricRole::RequestsWaiting), 2);
    EXPECT_DOUBLE_EQ(*s.read(MetricRole::KvCacheUsage), 0.12);
    EXPECT_DOUBLE_EQ(*s.read(MetricRole::PromptTokensCached), 1024);
    const auto queue = readHistogram(s.source, s.samples.back(), MetricRole::ServerQueue);
    ASSERT_TRUE(queue);
    EXPECT_DOUBLE_EQ(queue->count, 50);
    EXPECT_DOUBLE_EQ(queue->sum, 1.25);
    ASSERT_EQ(queue->buckets.size(), 3u);
    EXPECT_DOUBLE_EQ(queue->buckets[0].first, 0.0);
    EXPECT_EQ(sourceFlavour(s.source.families), QStringLiteral("sglang"));
}

TEST(MetricCatalog, FailedSampleReadsNothing)
{
    Scraped s;
    s.add(fixtures::LlamaPage);
    s.samples.push_back(failedSample(0, 999, 1, TelemetrySample::Phase::Run, QStringLiteral("refused")));
    EXPECT_FALSE(s.read(MetricRole::RequestsRunning));
    EXPECT_FALSE(readHistogram(s.source, s.samples.back(), MetricRole::ServerTtft));
    const ServerPoint p = serverPoint(s.source, s.samples.back());
    EXPECT_EQ(p.error, QStringLiteral("refused"));
    EXPECT_TRUE(p.values.empty());
}

TEST(MetricCatalog, ReadHistogramFromVllm)
{
    Scraped s;
    s.add(fixtures::VllmPage004);
    const auto ttft = readHistogram(s.source, s.samples.back(), MetricRole::ServerTtft);
    ASSERT_TRUE(ttft);
    EXPECT_EQ(ttft->family, QStringLiteral("vllm:time_to_first_token_seconds"));
    EXPECT_DOUBLE_EQ(ttft->count, 128);
    EXPECT_DOUBLE_EQ(ttft->sum, 10.24);
    ASSERT_EQ(ttft->buckets.size(), 13u);
    EXPECT_DOUBLE_EQ(ttft->buckets.front().first, 0.001);
    EXPECT_TRUE(std::isinf(ttft->buckets.back().first));
    EXPECT_DOUBLE_EQ(ttft->buckets.back().second, 128);
    // readRole of a histogram role is its _sum.
    EXPECT_DOUBLE_EQ(*s.read(MetricRole::ServerTtft), 10.24);
    // Hand-computed histogram_quantile(0.5): rank 64 lies in (0.06, 0.08] holding 40..80:
    // 0.06 + 0.02 * (64 - 40) / 40 = 0.072.
    EXPECT_NEAR(*histogramQuantile(*ttft, 0.5), 0.072, 1e-12);
    // 0.99: rank 126.72 in (0.5, 0.75] holding 126..128: 0.5 + 0.25 * 0.72 / 2 = 0.59.
    EXPECT_NEAR(*histogramQuantile(*ttft, 0.99), 0.59, 1e-12);
    EXPECT_EQ(sourceFlavour(s.source.families), QStringLiteral("vllm"));
}

TEST(MetricCatalog, HistogramDeltaAndQuantileLikePrometheus)
{
    HistogramReading a;
    a.family = QStringLiteral("h");
    a.buckets = {{0.1, 1}, {0.25, 2}, {0.5, 3}, {1, 3}, {INFINITY, 3}};
    a.count = 3;
    a.sum = 0.5;
    HistogramReading b = a;
    b.buckets = {{0.1, 3}, {0.25, 7}, {0.5, 12}, {1, 13}, {INFINITY, 13}};
    b.count = 13;
    b.sum = 4.5;
    const auto d = histogramDelta(a, b);
    ASSERT_TRUE(d);
    EXPECT_DOUBLE_EQ(d->count, 10);
    EXPECT_DOUBLE_EQ(d->sum, 4);
    // Window buckets: 0.1:2, 0.25:5, 0.5:9, 1:10, +Inf:10.
    EXPECT_DOUBLE_EQ(d->buckets[2].second, 9);
    // histogram_quantile by hand:
    EXPECT_NEAR(*histogramQuantile(*d, 0.1), 0.05, 1e-12); // rank 1 in [0, 0.1] holding 2
    EXPECT_NEAR(*histogramQuantile(*d, 0.5), 0.25, 1e-12); // rank 5 = top of (0.1, 0.25]
    EXPECT_NEAR(*histogramQuantile(*d, 0.7), 0.375, 1e-12); // 0.25 + 0.25 * 2/4
    EXPECT_NEAR(*histogramQuantile(*d, 0.95), 0.75, 1e-12); // 0.5 + 0.5 * 0.5/1
    EXPECT_FALSE(histogramQuantile(*d, 1.5));

    // Rank in the +Inf bucket: the highest finite bound.
    HistogramReading tail;
    tail.buckets = {{0.1, 1}, {1, 2}, {INFINITY, 10}};
    EXPECT_DOUBLE_EQ(*histogramQuantile(tail, 0.9), 1.0);
    // Nothing observed: no quantile.
    HistogramReading empty;
    empty.buckets = {{0.1, 0}, {INFINITY, 0}};
    EXPECT_FALSE(histogramQuantile(empty, 0.5));
    EXPECT_FALSE(histogramQuantile(HistogramReading {}, 0.5));

    // A restart (counts went down) or other bounds: no delta.
    EXPECT_FALSE(histogramDelta(b, a));
    HistogramReading other = b;
    other.buckets[1].first = 0.3;
    EXPECT_FALSE(histogramDelta(a, other));
}

TEST(MetricCatalog, HistogramDeltaAcrossTwoScrapes)
{
    Scraped s;
    s.add(fixtures::VllmPage004);
    std::string later = fixtures::VllmPage004;
    const std::string from = "le=\"0.5\",model_name=\"Qwen/Qwen3-8B\"} 126.0";
    later.replace(later.find(from), from.size(), "le=\"0.5\",model_name=\"Qwen/Qwen3-8B\"} 127.0");
    for (const char* le : {"0.75", "1.0", "+Inf"}) {
        const std::string b = std::string("le=\"") + le + "\",model_name=\"Qwen/Qwen3-8B\"} 128.0";
        later.replace(
            later.find(b), b.size(), std::string("le=\"") + le + "\",model_name=\"Qwen/Qwen3-8B\"} 129.0");
    }
    const std::string count
        = "vllm:time_to_first_token_seconds_count{engine=\"0\",model_name=\"Qwen/Qwen3-8B\"} 128.0";
    later.replace(later.find(count), count.size(),
        "vllm:time_to_first_token_seconds_count{engine=\"0\",model_name=\"Qwen/Qwen3-8B\"} 129.0");
    s.add(later);
    const auto a = readHistogram(s.source, s.samples[0], MetricRole::ServerTtft);
    const auto b = readHistogram(s.source, s.samples[1], MetricRole::ServerTtft);
    ASSERT_TRUE(a && b);
    const auto d = histogramDelta(*a, *b);
    ASSERT_TRUE(d);
    EXPECT_DOUBLE_EQ(d->count, 1);
    // The one new observation lies in (0.25, 0.5]: its median is the bucket's middle.
    EXPECT_NEAR(*histogramQuantile(*d, 0.5), 0.375, 1e-12);
}

TEST(MetricCatalog, KnownFamiliesInCatalogueOrder)
{
    Scraped vllm;
    vllm.add(fixtures::VllmPage004);
    const QStringList known = knownFamilies(vllm.source.families);
    EXPECT_TRUE(known.contains(QStringLiteral("vllm:num_requests_running")));
    EXPECT_TRUE(known.contains(QStringLiteral("vllm:kv_cache_usage_perc")));
    EXPECT_TRUE(known.contains(QStringLiteral("vllm:time_to_first_token_seconds")));
    EXPECT_FALSE(known.contains(QStringLiteral("python_gc_objects_collected_total")));
    EXPECT_LT(known.indexOf(QStringLiteral("vllm:num_requests_running")),
        known.indexOf(QStringLiteral("vllm:num_requests_waiting")));

    Scraped om; // OpenMetrics counter families are named without _total: still known
    om.add(fixtures::VllmPageOpenMetrics, PromFormat::OpenMetrics);
    EXPECT_TRUE(knownFamilies(om.source.families).contains(QStringLiteral("vllm:prompt_tokens_total")));

    Scraped node;
    node.add(fixtures::NodePage);
    const QStringList nodeKnown = knownFamilies(node.source.families);
    EXPECT_TRUE(nodeKnown.contains(QStringLiteral("node_memory_MemTotal_bytes")));
    EXPECT_TRUE(nodeKnown.contains(QStringLiteral("node_memory_MemAvailable_bytes")));

    EXPECT_TRUE(knownFamilies({{QStringLiteral("something_else"), MetricType::Gauge}}).isEmpty());
    EXPECT_EQ(sourceFlavour({{QStringLiteral("something_else"), MetricType::Gauge}}), QString());
}

TEST(MetricCatalog, KeepSeries)
{
    EXPECT_TRUE(keepSeries(QStringLiteral("vllm:time_to_first_token_seconds_bucket")));
    EXPECT_TRUE(keepSeries(QStringLiteral("vllm:time_to_first_token_seconds_sum")));
    EXPECT_FALSE(keepSeries(QStringLiteral("vllm:time_to_first_token_seconds_created")));
    EXPECT_FALSE(keepSeries(QStringLiteral("vllm:time_to_first_token_seconds"))); // no such sample
    EXPECT_TRUE(keepSeries(QStringLiteral("DCGM_FI_DEV_FB_FREE")));
    EXPECT_TRUE(keepSeries(QStringLiteral("llamacpp:tokens_predicted_total")));
    EXPECT_FALSE(keepSeries(QStringLiteral("python_gc_objects_collected_total")));
}

TEST(MetricCatalog, ServerPointsCarryTheGauges)
{
    Telemetry t;
    t.sources.resize(2);
    t.sources[1].endpoint = 4;
    Scraped llama;
    llama.add(fixtures::LlamaPage);
    Scraped dcgm;
    dcgm.add(fixtures::DcgmPage);
    t.sources[0] = llama.source;
    t.sources[1].series = dcgm.source.series;
    TelemetrySample a = llama.samples.back();
    TelemetrySample b = dcgm.samples.back();
    b.source = 1;
    t.samples = {a, b};
    const auto points = serverPoints(t);
    ASSERT_EQ(points.size(), 2u);
    EXPECT_DOUBLE_EQ(*points[0].value(MetricRole::RequestsRunning), 2);
    EXPECT_FALSE(points[0].value(MetricRole::GpuPower));
    EXPECT_EQ(points[1].endpoint, 4);
    EXPECT_EQ(points[1].source, 1);
    EXPECT_NEAR(*points[1].value(MetricRole::GpuPower), 400, 1e-9);
    EXPECT_DOUBLE_EQ(*points[1].value(MetricRole::GpuMemoryUsed), 81000 * MiB);
    EXPECT_FALSE(points[1].value(MetricRole::GpuEnergy)); // a counter, not a gauge
}
