// SPDX-License-Identifier: MIT
// The gauges of one endpoint's server: memory at idle and while serving (overall and per
// concurrency level), GPU utilisation and power while serving, energy per generated token, and
// the KV-cache and waiting peaks.
#include "model/core/Percentile.h"
#include "model/evaluate/ResourceParts.h"

#include <algorithm>

namespace qs::resources {

namespace {

using Series = std::vector<std::pair<const TelemetrySample*, double>>;

ResourceFigure medianFigure(const std::vector<double>& values, const QString& source)
{
    if (values.empty())
        return {};
    return {percentile(values, 50), source, int(values.size())};
}

ResourceFigure peakFigure(const std::vector<double>& values, const QString& source)
{
    if (values.empty())
        return {};
    return {*std::max_element(values.begin(), values.end()), source, int(values.size())};
}

template <typename Keep> std::vector<double> valuesWhere(const Series& series, Keep keep)
{
    std::vector<double> out;
    for (const auto& [sample, value] : series)
        if (keep(*sample))
            out.push_back(value);
    return out;
}

bool idle(const TelemetrySample& s)
{
    return s.phase != TelemetrySample::Phase::Run;
}

void computeMemory(const EndpointView& view, EndpointResources& out)
{
    // DCGM's framebuffer when there is one; unified-memory machines (GB10) report none, and the
    // host's memory is the figure that matters there.
    MetricRole role = MetricRole::GpuMemoryUsed;
    MetricRole totalRole = MetricRole::GpuMemoryTotal;
    const SourceSamples* source = sourceWith(view, role);
    out.memoryKind = QStringLiteral("gpu");
    if (!source) {
        role = MetricRole::HostMemoryUsed;
        totalRole = MetricRole::HostMemoryTotal;
        source = sourceWith(view, role);
        out.memoryKind = QStringLiteral("host");
    }
    if (!source) {
        out.memoryKind.clear();
        return;
    }
    QString family;
    const Series series = roleSeries(*source, role, &family);
    const QString where = figureSource(family, source->source->url);
    const auto serving = [&view](const TelemetrySample& s) { return inside(view.serving, s.atMs); };
    out.memoryIdle = medianFigure(valuesWhere(series, idle), where);
    out.memoryIdleBefore = medianFigure(
        valuesWhere(
            series, [](const TelemetrySample& s) { return s.phase == TelemetrySample::Phase::IdleBefore; }),
        where);
    out.memoryIdleAfter = medianFigure(
        valuesWhere(
            series, [](const TelemetrySample& s) { return s.phase == TelemetrySample::Phase::IdleAfter; }),
        where);
    const std::vector<double> whileServing = valuesWhere(series, serving);
    out.memoryPeak = peakFigure(whileServing, where);
    out.memoryServingMedian = medianFigure(whileServing, where);
    for (const auto& [level, intervals] : view.byLevel) {
        // Captured by name: clang 14 (the fuzz build) cannot capture a structured binding.
        const std::vector<double> values = valuesWhere(
            series, [&within = intervals](const TelemetrySample& s) { return inside(within, s.atMs); });
        if (values.empty())
            continue;
        out.byConcurrency.push_back({level, medianFigure(values, where), peakFigure(values, where)});
    }
    QString totalFamily;
    const Series total = roleSeries(*source, totalRole, &totalFamily);
    if (!total.empty())
        out.memoryTotal
            = {total.back().second, figureSource(totalFamily, source->source->url), int(total.size())};
}

/// The median of a gauge role over the samples taken while serving.
ResourceFigure servingMedian(const EndpointView& view, MetricRole role)
{
    const SourceSamples* source = sourceWith(view, role);
    if (!source)
        return {};
    QString family;
    const Series series = roleSeries(*source, role, &family);
    return medianFigure(
        valuesWhere(series, [&view](const TelemetrySample& s) { return inside(view.serving, s.atMs); }),
        figureSource(family, source->source->url));
}

/// The highest value of a gauge role over every good sample.
ResourceFigure peakOver(const EndpointView& view, MetricRole role)
{
    const SourceSamples* source = sourceWith(view, role);
    if (!source)
        return {};
    QString family;
    const Series series = roleSeries(*source, role, &family);
    return peakFigure(valuesWhere(series, [](const TelemetrySample&) { return true; }),
        figureSource(family, source->source->url));
}

bool failedBetween(const SourceSamples& s, double a, double b)
{
    return std::any_of(s.samples.begin(), s.samples.end(),
        [a, b](const TelemetrySample* x) { return !x->ok() && x->atMs > a && x->atMs < b; });
}

/// Joules spent while this endpoint was serving: each pair of consecutive samples contributes its
/// energy (the counter's Δ, or the trapezoid of power × time) times the share of the pair's
/// interval during which the endpoint had a request in flight.
void computeEnergy(const EndpointView& view, EndpointResources& out)
{
    double tokens = 0;
    for (const RunRecord* r : view.records)
        tokens += double(r->request.metrics.completionTokens.value.value_or(0));
    const double servingMs = totalMs(view.serving);
    if (tokens <= 0 || servingMs <= 0)
        return;
    bool counter = true;
    const SourceSamples* source = sourceWith(view, MetricRole::GpuEnergy);
    if (!source) {
        counter = false;
        source = sourceWith(view, MetricRole::GpuPower);
    }
    if (!source)
        return;
    QString family;
    const Series series
        = roleSeries(*source, counter ? MetricRole::GpuEnergy : MetricRole::GpuPower, &family);
    double joules = 0;
    double coveredMs = 0;
    int pairs = 0;
    int resets = 0;
    double gapMs = 0;
    for (std::size_t i = 1; i < series.size(); ++i) {
        const double a = series[i - 1].first->atMs;
        const double b = series[i].first->atMs;
        if (b <= a)
            continue;
        const double overlap = overlapMs(view.serving, a, b);
        if (overlap <= 0)
            continue;
        double spent = 0;
        if (counter) {
            spent = series[i].second - series[i - 1].second;
            if (spent < 0) { // the counter was reset (driver reload): this pair says nothing
                ++resets;
                continue;
            }
        } else {
            // A power gauge is not interpolated across a failed scrape.
            if (failedBetween(*source, a, b)) {
                gapMs += overlap;
                continue;
            }
            spent = (series[i - 1].second + series[i].second) / 2 * (b - a) / 1000.0;
        }
        joules += spent * overlap / (b - a);
        coveredMs += overlap;
        ++pairs;
    }
    if (pairs == 0)
        return;
    const QString where = figureSource(family, source->source->url);
    out.energyPerToken = {joules / tokens,
        (counter ? QStringLiteral("%1: Δ of the energy counter")
                 : QStringLiteral("%1 integrated over time "
                                  "(trapezoids; no energy counter)"))
                .arg(where)
            + QStringLiteral(" over the %1 s this endpoint was serving ÷ %2 completion tokens (warm-ups "
                             "included: they spent energy too)")
                  .arg(coveredMs / 1000.0, 0, 'f', 1)
                  .arg(tokens, 0, 'f', 0),
        pairs};
    if (resets > 0)
        out.notes << QStringLiteral(
            "%1 went down %2 times (counter reset): those intervals are left out of the "
            "energy per token")
                         .arg(where)
                         .arg(resets);
    if (gapMs > 0)
        out.notes << QStringLiteral(
            "%1 had failed scrapes while serving: %2 s of serving left out of the energy "
            "per token")
                         .arg(where)
                         .arg(gapMs / 1000.0, 0, 'f', 1);
    if (coveredMs < 0.9 * servingMs)
        out.notes << QStringLiteral(
            "energy per token rests on %1 % of the serving time (samples did not cover the "
            "rest): the figure may be off")
                         .arg(std::llround(100 * coveredMs / servingMs));
}

} // namespace

void computeGauges(const EndpointView& view, EndpointResources& out)
{
    computeMemory(view, out);
    out.gpuUtilizationMedian = servingMedian(view, MetricRole::GpuUtilization);
    out.powerMedian = servingMedian(view, MetricRole::GpuPower);
    computeEnergy(view, out);
    out.kvCachePeak = peakOver(view, MetricRole::KvCacheUsage);
    out.waitingPeak = peakOver(view, MetricRole::RequestsWaiting);
}

} // namespace qs::resources
