// SPDX-License-Identifier: MIT
#include "model/core/MetricCatalog.h"

#include <QSet>
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

namespace qs {

namespace {

constexpr double MiB = 1048576.0;

struct RoleEntry {
    MetricRole role;
    const char* id;
    const char* title;
    const char* unit;
    std::vector<CatalogName> names;
};

const std::vector<RoleEntry>& roleTable()
{
    static const std::vector<RoleEntry> table {
        {MetricRole::RequestsRunning, "requests_running", "Requests running", "requests",
            {{QStringLiteral("llamacpp:requests_processing")}, {QStringLiteral("vllm:num_requests_running")},
                {QStringLiteral("sglang:num_running_reqs")}}},
        {MetricRole::RequestsWaiting, "requests_waiting", "Requests waiting", "requests",
            {{QStringLiteral("llamacpp:requests_deferred")}, {QStringLiteral("vllm:num_requests_waiting")},
                {QStringLiteral("sglang:num_queue_reqs")}}},
        {MetricRole::KvCacheUsage, "kv_cache_usage", "KV cache used", "ratio",
            {{QStringLiteral("vllm:kv_cache_usage_perc")}, {QStringLiteral("vllm:gpu_cache_usage_perc")},
                {QStringLiteral("sglang:token_usage")}, {QStringLiteral("llamacpp:kv_cache_usage_ratio")}}},
        {MetricRole::Preemptions, "preemptions", "Preemptions", "requests",
            {{QStringLiteral("vllm:num_preemptions_total")},
                {QStringLiteral("sglang:num_retracted_requests_total")}}},
        {MetricRole::GeneratedTokens, "generated_tokens", "Generated tokens", "tokens",
            {{QStringLiteral("llamacpp:tokens_predicted_total")},
                {QStringLiteral("vllm:generation_tokens_total")},
                {QStringLiteral("sglang:generation_tokens_total")}}},
        {MetricRole::PromptTokens, "prompt_tokens", "Prompt tokens", "tokens",
            {{QStringLiteral("llamacpp:prompt_tokens_total")}, {QStringLiteral("vllm:prompt_tokens_total")},
                {QStringLiteral("sglang:prompt_tokens_total")}}},
        {MetricRole::PromptTokensCached, "prompt_tokens_cached", "Prompt tokens from cache", "tokens",
            {{QStringLiteral("llamacpp:prompt_tokens_cached_total")},
                {QStringLiteral("vllm:prompt_tokens_cached_total")},
                {QStringLiteral("sglang:cached_tokens_total")}}},
        {MetricRole::PromptSeconds, "prompt_seconds", "Prefill time (summed per slot)", "s",
            {{QStringLiteral("llamacpp:prompt_seconds_total")}}},
        {MetricRole::PredictedSeconds, "predicted_seconds", "Generation time (summed per slot)", "s",
            {{QStringLiteral("llamacpp:tokens_predicted_seconds_total")}}},
        {MetricRole::ServerTtft, "server_ttft", "Server TTFT", "s",
            {{QStringLiteral("vllm:time_to_first_token_seconds")},
                {QStringLiteral("sglang:time_to_first_token_seconds")}}},
        {MetricRole::ServerItl, "server_itl", "Server inter-token latency", "s",
            {{QStringLiteral("vllm:inter_token_latency_seconds")},
                {QStringLiteral("vllm:time_per_output_token_seconds")},
                {QStringLiteral("sglang:inter_token_latency_seconds")},
                {QStringLiteral("sglang:time_per_output_token_seconds")}}},
        {MetricRole::ServerE2e, "server_e2e", "Server end-to-end latency", "s",
            {{QStringLiteral("vllm:e2e_request_latency_seconds")},
                {QStringLiteral("sglang:e2e_request_latency_seconds")}}},
        {MetricRole::ServerQueue, "server_queue", "Server queue time", "s",
            {{QStringLiteral("vllm:request_queue_time_seconds")},
                {QStringLiteral("sglang:queue_time_seconds")}}},
        {MetricRole::ServerPrefill, "server_prefill", "Server prefill time", "s",
            {{QStringLiteral("vllm:request_prefill_time_seconds")}}},
        {MetricRole::GpuMemoryUsed, "gpu_memory_used", "GPU memory used", "bytes",
            {{QStringLiteral("DCGM_FI_DEV_FB_USED"), MiB}}},
        {MetricRole::GpuMemoryTotal, "gpu_memory_total", "GPU memory total", "bytes",
            {{QStringLiteral("DCGM_FI_DEV_FB_CAPACITY_BYTES")},
                {QStringLiteral("DCGM_FI_DEV_FB_TOTAL"), MiB}}},
        {MetricRole::GpuUtilization, "gpu_utilization", "GPU utilisation", "ratio",
            {{QStringLiteral("DCGM_FI_DEV_GPU_UTIL_RATIO")}, {QStringLiteral("DCGM_FI_DEV_GPU_UTIL"), 0.01}}},
        {MetricRole::GpuPower, "gpu_power", "GPU power", "W",
            {{QStringLiteral("DCGM_FI_DEV_BOARD_POWER_WATTS")}, {QStringLiteral("DCGM_FI_DEV_POWER_USAGE")}}},
        {MetricRole::GpuEnergy, "gpu_energy", "GPU energy", "J",
            {{QStringLiteral("DCGM_FI_DEV_GPU_ENERGY_JOULES_TOTAL")},
                {QStringLiteral("DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION"), 0.001}}},
        {MetricRole::GpuTemperature, "gpu_temperature", "GPU temperature", "°C",
            {{QStringLiteral("DCGM_FI_DEV_GPU_TEMP_CELSIUS")}, {QStringLiteral("DCGM_FI_DEV_GPU_TEMP")}}},
        {MetricRole::HostMemoryUsed, "host_memory_used", "Host memory used", "bytes", {}},
        {MetricRole::HostMemoryTotal, "host_memory_total", "Host memory total", "bytes",
            {{QStringLiteral("node_memory_MemTotal_bytes")}, {QStringLiteral("node_memory_MemTotal"), 1024}}},
    };
    return table;
}

const RoleEntry& entry(MetricRole role)
{
    for (const RoleEntry& e : roleTable())
        if (e.role == role)
            return e;
    return roleTable().front();
}

// Node exporter before 0.16 named meminfo without `_bytes` and in kB.
const std::vector<CatalogName>& memAvailableNames()
{
    static const std::vector<CatalogName> names {{QStringLiteral("node_memory_MemAvailable_bytes")},
        {QStringLiteral("node_memory_MemAvailable"), 1024}};
    return names;
}

// Kept in the file because they explain the roles, though no figure is computed from them.
const QSet<QString>& extraKept()
{
    static const QSet<QString> names {
        QStringLiteral("llamacpp:n_busy_slots_per_decode"),
        QStringLiteral("llamacpp:n_decode_total"),
        QStringLiteral("llamacpp:kv_cache_tokens"),
        QStringLiteral("vllm:request_success_total"),
        QStringLiteral("vllm:prefix_cache_queries_total"),
        QStringLiteral("vllm:prefix_cache_hits_total"),
        QStringLiteral("sglang:gen_throughput"),
        QStringLiteral("sglang:num_used_tokens"),
        QStringLiteral("sglang:max_total_num_tokens"),
        QStringLiteral("sglang:num_requests_total"),
        QStringLiteral("sglang:realtime_tokens_total"),
        QStringLiteral("DCGM_FI_DEV_FB_FREE"),
        QStringLiteral("DCGM_FI_DEV_FB_RESERVED"),
        QStringLiteral("node_memory_MemAvailable_bytes"),
        QStringLiteral("node_memory_MemAvailable"),
        QStringLiteral("node_memory_Cached_bytes"),
        QStringLiteral("node_memory_MemFree_bytes"),
        QStringLiteral("node_memory_SwapTotal_bytes"),
        QStringLiteral("node_memory_SwapFree_bytes"),
        QStringLiteral("process_resident_memory_bytes"),
        QStringLiteral("process_start_time_seconds"),
    };
    return names;
}

// Ratios and temperatures of several GPUs or engines are averaged; amounts are added up.
bool averagedRole(MetricRole role)
{
    return role == MetricRole::KvCacheUsage || role == MetricRole::GpuUtilization
        || role == MetricRole::GpuTemperature;
}

struct Reading {
    double value = 0;
    int count = 0;
};

// Every series named `name` that `selection` keeps, as (index, raw value): sentinels and NaN as no
// value. In series-table order, since sample values are.
std::vector<SeriesReading> seriesNamed(const TelemetrySource& source, const TelemetrySample& sample,
    const QString& name, const SeriesSelection& selection)
{
    std::vector<SeriesReading> out;
    for (const auto& [index, value] : sample.values) {
        if (index < 0 || std::size_t(index) >= source.series.size())
            continue;
        const TelemetrySeries& series = source.series[std::size_t(index)];
        if (series.name != name || !selection.matches(series))
            continue;
        out.push_back(
            {index, std::isnan(value) || isDcgmSentinel(value) ? std::nullopt : std::optional(value)});
    }
    return out;
}

// The sum of the series named `name` in the sample (sentinels and NaN skipped).
Reading sumOf(const TelemetrySource& source, const TelemetrySample& sample, const QString& name,
    const SeriesSelection& selection)
{
    Reading r;
    for (const SeriesReading& s : seriesNamed(source, sample, name, selection)) {
        if (!s.value)
            continue;
        r.value += *s.value;
        ++r.count;
    }
    return r;
}

std::optional<double> readNames(const TelemetrySource& source, const TelemetrySample& sample,
    const std::vector<CatalogName>& names, bool average, QString* found, const SeriesSelection& selection)
{
    for (const CatalogName& n : names) {
        const Reading r = sumOf(source, sample, n.name, selection);
        if (r.count == 0)
            continue;
        if (found)
            *found = n.name;
        return (average ? r.value / r.count : r.value) * n.factor;
    }
    return std::nullopt;
}

double parseBound(const QString& le)
{
    const QString t = le.trimmed();
    if (t.compare(QStringLiteral("+Inf"), Qt::CaseInsensitive) == 0
        || t.compare(QStringLiteral("Inf"), Qt::CaseInsensitive) == 0)
        return std::numeric_limits<double>::infinity();
    bool ok = false;
    const double v = t.toDouble(&ok);
    return ok ? v : std::numeric_limits<double>::quiet_NaN();
}

} // namespace

QString metricRoleId(MetricRole role)
{
    return QString::fromLatin1(entry(role).id);
}

QString metricRoleTitle(MetricRole role)
{
    return QString::fromUtf8(entry(role).title);
}

QString metricRoleUnit(MetricRole role)
{
    return QString::fromUtf8(entry(role).unit);
}

std::vector<MetricRole> allMetricRoles()
{
    std::vector<MetricRole> roles;
    for (const RoleEntry& e : roleTable())
        roles.push_back(e.role);
    return roles;
}

bool isCounterRole(MetricRole role)
{
    switch (role) {
    case MetricRole::Preemptions:
    case MetricRole::GeneratedTokens:
    case MetricRole::PromptTokens:
    case MetricRole::PromptTokensCached:
    case MetricRole::PromptSeconds:
    case MetricRole::PredictedSeconds:
    case MetricRole::GpuEnergy:
        return true;
    default:
        return false;
    }
}

bool isHistogramRole(MetricRole role)
{
    switch (role) {
    case MetricRole::ServerTtft:
    case MetricRole::ServerItl:
    case MetricRole::ServerE2e:
    case MetricRole::ServerQueue:
    case MetricRole::ServerPrefill:
        return true;
    default:
        return false;
    }
}

const std::vector<CatalogName>& catalogNames(MetricRole role)
{
    return entry(role).names;
}

QStringList knownFamilies(const std::vector<TelemetryFamily>& families)
{
    QSet<QString> present;
    for (const TelemetryFamily& f : families) {
        present.insert(f.name);
        present.insert(f.name + QStringLiteral("_total")); // OpenMetrics names counters without it
    }
    QStringList out;
    const auto add = [&](const QString& name) {
        if (present.contains(name) && !out.contains(name))
            out.append(name);
    };
    for (const RoleEntry& e : roleTable())
        for (const CatalogName& n : e.names)
            add(n.name);
    for (const CatalogName& n : memAvailableNames())
        add(n.name);
    return out;
}

QString sourceFlavour(const std::vector<TelemetryFamily>& families)
{
    static const std::vector<std::pair<QString, QString>> prefixes {
        {QStringLiteral("llamacpp:"), QStringLiteral("llama-server")},
        {QStringLiteral("vllm:"), QStringLiteral("vllm")},
        {QStringLiteral("sglang:"), QStringLiteral("sglang")},
        {QStringLiteral("DCGM_FI_"), QStringLiteral("dcgm")},
        {QStringLiteral("node_memory_"), QStringLiteral("node")},
    };
    for (const auto& [prefix, flavour] : prefixes)
        for (const TelemetryFamily& f : families)
            if (f.name.startsWith(prefix))
                return flavour;
    return {};
}

bool keepSeries(const QString& sampleName)
{
    static const QSet<QString> kept = [] {
        QSet<QString> names = extraKept();
        for (const RoleEntry& e : roleTable())
            for (const CatalogName& n : e.names) {
                if (isHistogramRole(e.role)) {
                    names.insert(n.name + QStringLiteral("_sum"));
                    names.insert(n.name + QStringLiteral("_count"));
                    names.insert(n.name + QStringLiteral("_bucket"));
                } else {
                    names.insert(n.name);
                }
            }
        return names;
    }();
    return kept.contains(sampleName);
}

bool isDcgmSentinel(double value)
{
    // fp64 blank is 2^47; int64 blank is 0x7ffffffffffffff0, far above it as a double.
    return value >= 140737488355328.0;
}

std::optional<double> readRole(const TelemetrySource& source, const TelemetrySample& sample, MetricRole role,
    QString* found, const SeriesSelection& selection)
{
    if (!sample.ok())
        return std::nullopt;
    if (role == MetricRole::HostMemoryUsed) {
        QString totalName;
        QString availableName;
        const auto total = readNames(
            source, sample, catalogNames(MetricRole::HostMemoryTotal), false, &totalName, selection);
        const auto available
            = readNames(source, sample, memAvailableNames(), false, &availableName, selection);
        if (!total || !available)
            return std::nullopt;
        if (found)
            *found = totalName + QStringLiteral(" − ") + availableName;
        return *total - *available;
    }
    if (role == MetricRole::GpuMemoryTotal) {
        if (auto v = readNames(source, sample, catalogNames(role), false, found, selection))
            return v;
        // Not in DCGM's default CSV: used + free (+ reserved) is the framebuffer.
        const auto used
            = readNames(source, sample, catalogNames(MetricRole::GpuMemoryUsed), false, nullptr, selection);
        const auto free = readNames(
            source, sample, {{QStringLiteral("DCGM_FI_DEV_FB_FREE"), MiB}}, false, nullptr, selection);
        if (!used || !free)
            return std::nullopt;
        const auto reserved = readNames(
            source, sample, {{QStringLiteral("DCGM_FI_DEV_FB_RESERVED"), MiB}}, false, nullptr, selection);
        if (found)
            *found = reserved
                ? QStringLiteral("DCGM_FI_DEV_FB_USED + DCGM_FI_DEV_FB_FREE + DCGM_FI_DEV_FB_RESERVED")
                : QStringLiteral("DCGM_FI_DEV_FB_USED + DCGM_FI_DEV_FB_FREE");
        return *used + *free + reserved.value_or(0);
    }
    if (isHistogramRole(role)) {
        const auto h = readHistogram(source, sample, role);
        if (!h)
            return std::nullopt;
        if (found)
            *found = h->family;
        return h->sum;
    }
    return readNames(source, sample, catalogNames(role), averagedRole(role), found, selection);
}

std::vector<SeriesReading> readRoleSeries(const TelemetrySource& source, const TelemetrySample& sample,
    MetricRole role, const SeriesSelection& selection, QString* found)
{
    if (!sample.ok() || isHistogramRole(role))
        return {};
    for (const CatalogName& n : catalogNames(role)) {
        std::vector<SeriesReading> out = seriesNamed(source, sample, n.name, selection);
        if (out.empty())
            continue;
        for (SeriesReading& r : out)
            if (r.value)
                *r.value *= n.factor;
        if (found)
            *found = n.name;
        return out;
    }
    return {};
}

std::optional<HistogramReading> readHistogram(
    const TelemetrySource& source, const TelemetrySample& sample, MetricRole role)
{
    if (!sample.ok() || !isHistogramRole(role))
        return std::nullopt;
    for (const CatalogName& n : catalogNames(role)) {
        const QString sumName = n.name + QStringLiteral("_sum");
        const QString countName = n.name + QStringLiteral("_count");
        const QString bucketName = n.name + QStringLiteral("_bucket");
        HistogramReading h;
        h.family = n.name;
        bool any = false;
        std::map<double, double> buckets;
        for (const auto& [index, value] : sample.values) {
            if (index < 0 || std::size_t(index) >= source.series.size())
                continue;
            const TelemetrySeries& s = source.series[std::size_t(index)];
            if (s.name == sumName) {
                h.sum += value * n.factor;
                any = true;
            } else if (s.name == countName) {
                h.count += value;
                any = true;
            } else if (s.name == bucketName) {
                const double le = parseBound(s.label(QStringLiteral("le")));
                if (!std::isnan(le))
                    buckets[le] += value;
            }
        }
        if (!any)
            continue;
        for (const auto& [le, count] : buckets)
            h.buckets.emplace_back(le * n.factor, count);
        return h;
    }
    return std::nullopt;
}

std::optional<HistogramReading> histogramDelta(const HistogramReading& a, const HistogramReading& b)
{
    if (a.family != b.family || b.count < a.count || b.buckets.size() != a.buckets.size())
        return std::nullopt;
    HistogramReading d;
    d.family = b.family;
    d.sum = b.sum - a.sum;
    d.count = b.count - a.count;
    for (std::size_t i = 0; i < b.buckets.size(); ++i) {
        if (a.buckets[i].first != b.buckets[i].first || b.buckets[i].second < a.buckets[i].second)
            return std::nullopt;
        d.buckets.emplace_back(b.buckets[i].first, b.buckets[i].second - a.buckets[i].second);
    }
    return d;
}

std::optional<double> histogramQuantile(const HistogramReading& h, double q)
{
    if (h.buckets.empty() || q < 0 || q > 1)
        return std::nullopt;
    const double total = h.buckets.back().second;
    if (total <= 0)
        return std::nullopt;
    const double rank = q * total;
    double lowerBound = 0;
    double lowerCount = 0;
    for (std::size_t i = 0; i < h.buckets.size(); ++i) {
        const auto [le, count] = h.buckets[i];
        if (count >= rank) {
            if (std::isinf(le)) // the +Inf bucket: the highest finite bound is all one can say
                return i > 0 ? std::optional<double>(h.buckets[i - 1].first) : std::nullopt;
            if (i == 0 && le <= 0)
                return le;
            if (count == lowerCount)
                return le;
            return lowerBound + (le - lowerBound) * (rank - lowerCount) / (count - lowerCount);
        }
        lowerBound = le;
        lowerCount = count;
    }
    return std::nullopt;
}

std::optional<double> ServerPoint::value(MetricRole role) const
{
    for (const auto& [r, v] : values)
        if (r == role)
            return v;
    return std::nullopt;
}

ServerPoint serverPoint(const TelemetrySource& source, const TelemetrySample& sample)
{
    static const MetricRole gauges[] = {MetricRole::RequestsRunning, MetricRole::RequestsWaiting,
        MetricRole::KvCacheUsage, MetricRole::GpuMemoryUsed, MetricRole::HostMemoryUsed, MetricRole::GpuPower,
        MetricRole::GpuUtilization, MetricRole::GpuTemperature};
    ServerPoint p;
    p.endpoint = source.endpoint;
    p.source = sample.source;
    p.atMs = sample.atMs;
    p.error = sample.error;
    for (const MetricRole role : gauges)
        if (const auto v = readRole(source, sample, role))
            p.values.emplace_back(role, *v);
    return p;
}

std::vector<ServerPoint> serverPoints(const Telemetry& telemetry)
{
    std::vector<ServerPoint> points;
    points.reserve(telemetry.samples.size());
    for (const TelemetrySample& s : telemetry.samples)
        if (s.source >= 0 && std::size_t(s.source) < telemetry.sources.size())
            points.push_back(serverPoint(telemetry.sources[std::size_t(s.source)], s));
    return points;
}

} // namespace qs
