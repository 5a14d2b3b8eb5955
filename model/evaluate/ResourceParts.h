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
    /// The endpoint's GPUs on this page, from the URL's `#gpu=…` (empty: every series).
    SeriesSelection selection = {};
    QString selectionError = {}; ///< the URL's `#…` could not be read as a selection
    /// Another endpoint of the run scrapes the same page and may see the same GPUs (no
    /// selection on one side, or the same one on both).
    bool shared = false;
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
/// A role's value in every good sample of `s` (its series that the source's selection keeps):
/// (sample, value), in time order; `family` gets the name used (the first found).
std::vector<std::pair<const TelemetrySample*, double>> roleSeries(
    const SourceSamples& s, MetricRole role, QString* family = nullptr);
/// The first of `view`'s sources that has `role` in any good sample (among the series its
/// selection keeps), or null.
const SourceSamples* sourceWith(const EndpointView& view, MetricRole role);

/// One role of one source with every selected series (GPU) apart: for each sample of the source
/// (failed ones included, in time order) each series' value, or nullopt when it was blank, missing
/// or the scrape failed. A counter is followed GPU by GPU through it.
struct RoleTable {
    QString family;
    std::vector<int> series; ///< index into the source's series table, of those that ever read
    std::vector<std::vector<std::optional<double>>> values; ///< [column][sample]
    int blanks = 0; ///< readings of a known series missing from a good scrape
};
RoleTable roleTable(const SourceSamples& s, MetricRole role);

/// A gauge role per sample: the sum of its series (the mean for utilisation and temperature),
/// only where every series that ever read has a value, so a GPU blank in one scrape makes a gap,
/// never a dip. Roles read whole (host memory) have gpus = 0.
struct Gauge {
    const SourceSamples* source = nullptr;
    QString family;
    std::vector<std::optional<double>> perSample; ///< aligned with SourceSamples::samples
    int gpus = 0;
    int blanks = 0;
    /// (sample, value) where there is one, in time order.
    std::vector<std::pair<const TelemetrySample*, double>> series() const;
};
Gauge gauge(const SourceSamples& s, MetricRole role);

/// Sets whose figure it is (ResourceFigure::wholeMachine, series, selection) for a figure read
/// over `gpus` series of `s` (0: read whole, as host memory is).
void scope(ResourceFigure& f, const SourceSamples& s, int gpus);
/// "URL: N readings of single GPUs were blank…", for a figure that read around them.
QString blankNote(const QString& where, int blanks);
/// The median spacing of a source's good samples: its scrape period as it happened.
double samplePeriod(const SourceSamples& s);
/// When each good sample of `s` was taken, ascending.
std::vector<double> goodTimes(const SourceSamples& s);
/// The median time a request of the endpoint was in flight.
double medianRequestMs(const EndpointView& view);

/// Memory (idle, peak, median, per level), utilisation, power and its uncertainty, energy per
/// token and its uncertainty, KV cache and waiting peaks, and what each covers (the endpoint's
/// GPUs or the whole machine) (ResourceMemory.cpp).
void computeGauges(const EndpointView& view, EndpointResources& out);
/// The server's latency histograms over the run and the per-request TTFT breakdown
/// (ServerLatency.cpp). Skipped by the caller when the server restarted.
void computeServerLatency(const EndpointView& view, EndpointResources& out);
void computeTtftBreakdown(const EndpointView& view, EndpointResources& out);

} // namespace qs::resources
