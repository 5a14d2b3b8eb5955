// SPDX-License-Identifier: MIT
#pragma once

// What the parts of computeResources share: one endpoint's requests as time intervals, its
// telemetry sources and their samples in time order, and the pieces that fill EndpointResources.
// Internal to model/evaluate (Resources.cpp, ResourceMemory.cpp, ServerLatency.cpp).

#include "model/evaluate/Resources.h"

#include <utility>
#include <vector>

namespace qs::resources {

/// [startMs, endMs] on the clock of RunRecord::startOffsetMs.
struct Interval {
    double startMs = 0;
    double endMs = 0;
};

/// When a request was in flight: its t0 (startOffsetMs) to the end of its response.
Interval requestInterval(const RunRecord& r);
/// The union of `intervals`, sorted and merged.
std::vector<Interval> merged(std::vector<Interval> intervals);
/// Whether `atMs` falls inside one of the merged `intervals`.
bool inside(const std::vector<Interval>& intervals, double atMs);
/// How many ms of [a, b] the merged `intervals` cover.
double overlapMs(const std::vector<Interval>& intervals, double a, double b);
double totalMs(const std::vector<Interval>& intervals);

/// One source's ok or failed samples, in time order.
struct SourceSamples {
    int index = 0; ///< into Telemetry::sources
    const TelemetrySource* source = nullptr;
    std::vector<const TelemetrySample*> samples;
    /// The earliest good IdleBefore and the latest good IdleAfter sample, when both exist.
    const TelemetrySample* baselineBefore = nullptr;
    const TelemetrySample* baselineAfter = nullptr;
};

/// One endpoint, indexed once.
struct EndpointView {
    const RunResult& run;
    int endpoint = 0;
    std::vector<const RunRecord*> records; ///< warm-ups and failures included
    std::vector<Interval> serving; ///< merged: ≥ 1 request of this endpoint in flight
    std::vector<std::pair<int, std::vector<Interval>>> byLevel; ///< concurrency → merged intervals
    std::vector<SourceSamples> sources; ///< this endpoint's sources, in file order

    EndpointView(const RunResult& r, int e);
};

/// "FAMILY @ URL".
QString figureSource(const QString& family, const QString& url);
/// A role's value in every good sample of `s`: (sample, value), in time order; `family` gets the
/// name used (the first found).
std::vector<std::pair<const TelemetrySample*, double>> roleSeries(
    const SourceSamples& s, MetricRole role, QString* family = nullptr);
/// The first of `view`'s sources that has `role` in any good sample, or null.
const SourceSamples* sourceWith(const EndpointView& view, MetricRole role);

/// Memory (idle, peak, median, per level), utilisation, power, energy per token, KV cache and
/// waiting peaks (ResourceMemory.cpp).
void computeGauges(const EndpointView& view, EndpointResources& out);
/// The server's latency histograms over the run and the per-request TTFT breakdown
/// (ServerLatency.cpp). Skipped by the caller when the server restarted.
void computeServerLatency(const EndpointView& view, EndpointResources& out);
void computeTtftBreakdown(const EndpointView& view, EndpointResources& out);

} // namespace qs::resources
