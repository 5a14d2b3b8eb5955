// SPDX-License-Identifier: MIT
// The `resources` array of `summary --json`: the keys scripts rely on (docs/results-format.md),
// null where not measured, then the rest of what was derived and where each figure came from.
#include "model/core/Percentile.h"
#include "model/evaluate/Resources.h"

#include <cmath>

namespace qs {

namespace {

using json = nlohmann::json;

json number(const std::optional<double>& v)
{
    return v ? json(*v) : json(nullptr);
}

json number(const ResourceFigure& f)
{
    return number(f.value);
}

json strings(const QStringList& list)
{
    json out = json::array();
    for (const QString& s : list)
        out.push_back(s.toStdString());
    return out;
}

/// A figure's own uncertainty (Resources.h, FigureUncertainty), null where not estimated.
json uncertainty(const ResourceFigure& f)
{
    if (!f.value)
        return nullptr;
    const FigureUncertainty& u = f.uncertainty;
    return {{"relative_se", number(u.relativeSe)}, {"interval_low", number(u.low)},
        {"interval_high", number(u.high)}, {"interval_level", u.relativeSe ? json(0.95) : json(nullptr)},
        {"blocks", u.blocks}, {"coverage", number(u.coverage)}, {"scaled", u.scaled}};
}

/// The medians of the per-request breakdowns, and how many requests they rest on.
json breakdownSummary(const std::vector<TtftBreakdown>& items)
{
    if (items.empty())
        return nullptr;
    const auto medianOf = [&items](std::optional<double> TtftBreakdown::*part) {
        std::vector<double> values;
        for (const TtftBreakdown& b : items)
            if (const auto v = b.*part)
                values.push_back(*v);
        return number(percentile(values, 50));
    };
    std::vector<double> client;
    QStringList sources;
    for (const TtftBreakdown& b : items) {
        client.push_back(b.clientTtftMs);
        if (!sources.contains(b.source))
            sources << b.source;
    }
    return {{"requests", items.size()}, {"median_client_ttft_ms", number(percentile(client, 50))},
        {"median_queue_ms", medianOf(&TtftBreakdown::queueMs)},
        {"median_prefill_ms", medianOf(&TtftBreakdown::prefillMs)},
        {"median_first_decode_ms", medianOf(&TtftBreakdown::firstDecodeMs)},
        {"median_network_and_queue_ms", medianOf(&TtftBreakdown::networkAndQueueMs)},
        {"sources", strings(sources)}};
}

json toJson(const EndpointResources& e)
{
    json byConcurrency = json::object();
    for (const ConcurrencyResources& c : e.byConcurrency)
        byConcurrency[std::to_string(c.concurrency)] = {{"median_bytes", number(c.memoryMedian)},
            {"peak_bytes", number(c.memoryPeak)}, {"samples", c.memoryMedian.samples}};
    json latency = json::array();
    for (const ServerLatency& l : e.serverLatency)
        latency.push_back({{"metric", metricRoleId(l.role).toStdString()}, {"count", l.count},
            {"mean_ms", number(l.meanMs)}, {"p50_ms", number(l.p50Ms)}, {"p90_ms", number(l.p90Ms)},
            {"client_mean_ms", number(l.clientMeanMs)}, {"source", l.source.toStdString()}});
    // Where each figure came from ("FAMILY @ URL") and how many samples it rests on.
    json figures = json::object();
    const auto figure = [&figures](const char* key, const ResourceFigure& f) {
        if (f.value)
            figures[key] = {{"source", f.source.toStdString()}, {"samples", f.samples},
                {"whole_machine", f.wholeMachine}, {"series", f.series},
                {"selection", f.selection.isEmpty() ? json(nullptr) : json(f.selection.toStdString())}};
    };
    figure("memory_idle_bytes", e.memoryIdle);
    figure("memory_peak_bytes", e.memoryPeak);
    figure("memory_total_bytes", e.memoryTotal);
    figure("gpu_utilization_median", e.gpuUtilizationMedian);
    figure("power_median_w", e.powerMedian);
    figure("energy_per_token_j", e.energyPerToken);
    figure("kv_cache_peak", e.kvCachePeak);
    figure("waiting_peak", e.waitingPeak);
    json foreign = nullptr;
    if (e.foreignLoad.samples > 0)
        foreign = {{"samples", e.foreignLoad.samples}, {"at_ms", e.foreignLoad.atMs},
            {"running", e.foreignLoad.running}, {"waiting", e.foreignLoad.waiting},
            {"in_flight", e.foreignLoad.inFlight}, {"source", e.foreignLoad.source.toStdString()}};
    return {
        {"endpoint", e.label.toStdString()},
        {"endpoint_index", e.endpoint},
        {"sources", strings(e.sources)},
        {"memory_idle_bytes", number(e.memoryIdle)},
        {"memory_peak_bytes", number(e.memoryPeak)},
        {"memory_by_concurrency", byConcurrency},
        {"power_median_w", number(e.powerMedian)},
        {"energy_per_token_j", number(e.energyPerToken)},
        {"power_median_uncertainty", uncertainty(e.powerMedian)},
        {"energy_per_token_uncertainty", uncertainty(e.energyPerToken)},
        {"whole_machine", e.wholeMachine},
        {"server_generated_tokens", number(e.serverGeneratedTokens)},
        {"client_generated_tokens", number(e.clientGeneratedTokens)},
        {"server_prompt_tokens", number(e.serverPromptTokens)},
        {"client_prompt_tokens", number(e.clientPromptTokens)},
        {"memory_kind", e.memoryKind.isEmpty() ? json(nullptr) : json(e.memoryKind.toStdString())},
        {"memory_idle_before_bytes", number(e.memoryIdleBefore)},
        {"memory_idle_after_bytes", number(e.memoryIdleAfter)},
        {"memory_serving_median_bytes", number(e.memoryServingMedian)},
        {"memory_total_bytes", number(e.memoryTotal)},
        {"gpu_utilization_median", number(e.gpuUtilizationMedian)},
        {"kv_cache_peak", number(e.kvCachePeak)},
        {"waiting_peak", number(e.waitingPeak)},
        {"server_generated_per_second", number(e.serverGeneratedPerSecond)},
        {"client_generated_per_second", number(e.clientGeneratedPerSecond)},
        {"preemptions", number(e.preemptions)},
        {"server_latency", latency},
        {"ttft_breakdown", breakdownSummary(e.ttftBreakdown)},
        {"foreign_load", foreign},
        {"restarted", e.restarted},
        {"failed_scrapes", e.failedScrapes},
        {"figure_sources", figures},
        {"notes", strings(e.notes)},
    };
}

} // namespace

QString bytesText(double bytes)
{
    constexpr double MiB = 1048576.0;
    constexpr double GiB = 1073741824.0;
    if (std::abs(bytes) >= GiB)
        return QString::number(bytes / GiB, 'f', 1) + QStringLiteral(" GiB");
    return QString::number(std::llround(bytes / MiB)) + QStringLiteral(" MiB");
}

nlohmann::json toJson(const ResourceReport& report)
{
    json out = json::array();
    for (const EndpointResources& e : report.endpoints)
        out.push_back(toJson(e));
    return out;
}

} // namespace qs
