// SPDX-License-Identifier: MIT
#pragma once

#include "model/core/Telemetry.h"

#include <QString>
#include <QStringList>
#include <optional>
#include <vector>

namespace qs {

// The Prometheus names Quantscope understands, and what each means. Everything else a source
// exposes is kept by family name (TelemetrySource::families) and shown as text, never read.
// Names from ../shared/reference/server-metrics-and-logprobs.md §1.2–1.8; where a metric was
// renamed, every name is listed, the newest first, and the first one present wins.

/// What a well-known series tells, in Quantscope's units (bytes, watts, joules, ratios 0–1,
/// tokens, seconds, requests).
enum class MetricRole {
    // The runtime's own /metrics.
    RequestsRunning, ///< gauge: requests being served now (llama: requests_processing)
    RequestsWaiting, ///< gauge: requests queued on the server (llama: requests_deferred)
    KvCacheUsage, ///< gauge, ratio 0–1 (vLLM kv_cache_usage_perc / gpu_cache_usage_perc, SGLang token_usage)
    Preemptions, ///< counter (vLLM num_preemptions_total, SGLang num_retracted_requests_total)
    GeneratedTokens, ///< counter (llama tokens_predicted_total, vLLM generation_tokens_total, …)
    PromptTokens, ///< counter: prompt tokens the server computed (llama: cache hits excluded)
    PromptTokensCached, ///< counter: prompt tokens served from a cache (llama, vLLM 2026, SGLang)
    PromptSeconds, ///< counter, s: llama-server's summed prefill time (per slot)
    PredictedSeconds, ///< counter, s: llama-server's summed generation time (per slot)
    ServerTtft, ///< histogram, s (vLLM, SGLang time_to_first_token_seconds)
    ServerItl, ///< histogram, s (vLLM inter_token_latency / time_per_output_token, SGLang ITL)
    ServerE2e, ///< histogram, s
    ServerQueue, ///< histogram, s (vLLM request_queue_time_seconds, SGLang queue_time_seconds)
    ServerPrefill, ///< histogram, s (vLLM request_prefill_time_seconds)
    // GPU (DCGM exporter, ≤ 4.8 and ≥ 4.9 names, units converted).
    GpuMemoryUsed, ///< gauge, bytes (DCGM_FI_DEV_FB_USED in MiB)
    GpuMemoryTotal, ///< gauge, bytes (FB_USED + FB_FREE + FB_RESERVED, or FB_TOTAL)
    GpuUtilization, ///< gauge, ratio 0–1 (DCGM_FI_DEV_GPU_UTIL in %)
    GpuPower, ///< gauge, W (DCGM_FI_DEV_POWER_USAGE, DCGM_FI_DEV_BOARD_POWER_WATTS)
    GpuEnergy, ///< counter, J (DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION in mJ, …_GPU_ENERGY_JOULES_TOTAL)
    GpuTemperature, ///< gauge, °C
    // Host (node exporter): what unified-memory machines (DGX Spark, GB10) report instead of VRAM.
    HostMemoryUsed, ///< gauge, bytes: node_memory_MemTotal_bytes − node_memory_MemAvailable_bytes
    HostMemoryTotal, ///< gauge, bytes: node_memory_MemTotal_bytes
};
QString metricRoleId(MetricRole role); ///< e.g. "requests_running", "gpu_memory_used"
QString metricRoleTitle(MetricRole role); ///< e.g. "Requests waiting", "GPU memory used"
QString metricRoleUnit(MetricRole role); ///< "bytes", "W", "J", "ratio", "tokens", "s", "requests", "°C"
std::vector<MetricRole> allMetricRoles();
bool isCounterRole(MetricRole role); ///< counters are read as deltas between two samples
bool isHistogramRole(MetricRole role);

/// One name a role may be found under, and the factor to Quantscope's unit.
struct CatalogName {
    /// As a sample is named on the page, whatever the TYPE line says (counters with `_total`:
    /// OpenMetrics names the family without it, 0.0.4 with it); a histogram's base name.
    QString name; ///< e.g. "DCGM_FI_DEV_FB_USED", "vllm:time_to_first_token_seconds"
    double factor = 1; ///< e.g. 1048576 (MiB → bytes), 0.001 (mJ → J), 0.01 (% → ratio)
};
/// The names of `role`, newest first. Empty for HostMemoryUsed (derived from two names) and for
/// GpuMemoryTotal's sum form.
const std::vector<CatalogName>& catalogNames(MetricRole role);

/// The well-known family names a scrape contained (for the probe: "found vllm:num_requests_running,
/// vllm:kv_cache_usage_perc, …"), in catalogue order.
QStringList knownFamilies(const std::vector<TelemetryFamily>& families);
/// Which runtime or exporter a family list looks like: "llama-server", "vllm", "sglang", "dcgm",
/// "node", or "" when none of the catalogue's prefixes is there.
QString sourceFlavour(const std::vector<TelemetryFamily>& families);

/// Whether a sample named `sampleName` is kept in the results file: the catalogued names (and a
/// few more that explain them: page cache, free framebuffer, busy slots…), and for the catalogued
/// histograms their `_sum`, `_count` and `_bucket` series. Everything else is known by family
/// name only.
bool keepSeries(const QString& sampleName);

/// DCGM's "blank / not supported / no permission" sentinels (≥ 2^47 as a double, ≥
/// 0x7ffffffffffffff0 as an int64) leak into exports; they mean "no value".
bool isDcgmSentinel(double value);

/// The value of a gauge or counter `role` in one sample, in the role's unit: the first catalogued
/// name present, summed over its label sets (engines, GPUs, ranks) that `selection` keeps, DCGM
/// sentinels and NaN ignored. nullopt when the sample holds no series of the role or the scrape
/// failed. `found` (optional) receives the family name used, for "where it came from".
std::optional<double> readRole(const TelemetrySource& source, const TelemetrySample& sample, MetricRole role,
    QString* found = nullptr, const SeriesSelection& selection = {});

/// One series of a role in one sample, apart from the others.
struct SeriesReading {
    int series = -1; ///< index into TelemetrySource::series
    std::optional<double> value; ///< in the role's unit; nullopt: blank (a DCGM sentinel, NaN)
};
/// Each series of a gauge or counter role in one sample, for figures that must follow every GPU
/// apart: a counter's Δ per label set (a GPU blank in one scrape is a gap in its own counter, not a
/// drop and a jump of the sum), a sum that is a gap rather than a dip when one GPU is blank. The
/// series of the first catalogued name that has any in the sample, blank ones included, those
/// `selection` keeps, in series-table order. Empty when the scrape failed, the sample has none, or
/// the role has no single name (HostMemoryUsed, GpuMemoryTotal's sum form, histograms). `found`
/// (optional) receives the name.
std::vector<SeriesReading> readRoleSeries(const TelemetrySource& source, const TelemetrySample& sample,
    MetricRole role, const SeriesSelection& selection = {}, QString* found = nullptr);

/// A histogram role in one sample: `_sum` and `_count` summed over label sets (other than `le`),
/// and the cumulative buckets (upper bound, count) summed per bound, ascending, when kept.
struct HistogramReading {
    double sum = 0; ///< in the role's unit (seconds)
    double count = 0;
    std::vector<std::pair<double, double>> buckets; ///< (le, cumulative count); last is +Inf
    QString family;
};
std::optional<HistogramReading> readHistogram(
    const TelemetrySource& source, const TelemetrySample& sample, MetricRole role);

/// b − a bucket by bucket (cumulative counts), for a histogram over a window. nullopt when the
/// bounds differ or a count went down (the server restarted).
std::optional<HistogramReading> histogramDelta(const HistogramReading& a, const HistogramReading& b);
/// The q-quantile (0–1) of a histogram, interpolated linearly inside the bucket that holds it, as
/// Prometheus' histogram_quantile does. nullopt when the histogram is empty.
std::optional<double> histogramQuantile(const HistogramReading& h, double q);

/// What the dashboard's Server charts plot: the gauges of one sample, in Quantscope's units, per
/// endpoint. Computed where the sample is taken (the recorder's thread) or from a loaded file, so
/// the GUI never parses a page.
struct ServerPoint {
    int endpoint = 0;
    int source = 0; ///< index into Telemetry::sources
    double atMs = 0; ///< run-relative, as TelemetrySample::atMs
    QString error; ///< non-empty: a gap (the scrape failed)
    std::vector<std::pair<MetricRole, double>> values; ///< the gauge roles this sample has
    std::optional<double> value(MetricRole role) const;
};
/// The gauge roles of one sample (RequestsRunning, RequestsWaiting, KvCacheUsage, GpuMemoryUsed,
/// HostMemoryUsed, GpuPower, GpuUtilization, GpuTemperature).
ServerPoint serverPoint(const TelemetrySource& source, const TelemetrySample& sample);
/// Every sample of a run's telemetry as points, in time order.
std::vector<ServerPoint> serverPoints(const Telemetry& telemetry);

} // namespace qs
