// SPDX-License-Identifier: MIT
#pragma once

#include "model/core/MetricCatalog.h"
#include "model/core/RunRecord.h"

#include <QString>
#include <QStringList>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

namespace qs {

// What each endpoint's server spent, derived from the run's telemetry (RunResult::telemetry) and
// its records. Pure: no I/O, no clock. Every figure says where it came from (which metric at which
// URL), and is nullopt — "not measured", never 0 — when the samples cannot support it.

/// How far a figure that a decision compares can be trusted: set for energy per token and median
/// power, left empty (nullopt, 0) for the others.
///
/// Where it comes from. The serving time is cut into 3–10 consecutive blocks of equal serving
/// time, each at least four times as long as the slowest of the scrape period, the median request
/// and (for energy) the counter's update period, with every cut on a scrape. The figure is
/// computed per block (energy per token as each block's joules ÷ its tokens, a request's tokens
/// spread over its time; power as each block's median), and the spread between blocks gives its
/// standard error (batch means: the blocks are long enough to be nearly independent, and hold
/// different prompts, so prompt-to-prompt variation widens it). Energy per token adds, in
/// quadrature: which side of an edge of serving a counter's step belongs to (±0.29 of a typical
/// step per edge, when the counter moves in steps or no idle power is known), and, when part of
/// the serving was not covered by samples and the joules were scaled up for it, the uncovered
/// share × the spread of the blocks' power. Checked by simulation in tests/telemetry/
/// test_energy.cpp: the 95 % intervals cover the truth about 93 % of the time, and the stated
/// standard error is within a few percent of the actual spread.
///
/// Contract for a decision ("not worse than the baseline by more than a margin m, and more than
/// the figures' own uncertainty"): for candidate value c and baseline value b, ln(c/b) has standard
/// error √(relativeSe_c² + relativeSe_b²) (two runs, or two endpoints' own exporters, err
/// independently). With z ≈ 1.96 (or the larger Student t of the fewer blocks), c/b · e^{±z·se} is
/// the ratio's interval: pass when its upper end is within 1 + m, fail when its lower end is above,
/// inconclusive otherwise. When `relativeSe` is nullopt but the value is not, the run was too short
/// for the figure to measure its own uncertainty: treat it as unable to settle a close call. A low
/// `coverage` (below 0.9) or `scaled` says the figure rests on part of the serving time; whole-
/// machine figures (ResourceFigure::wholeMachine) may include other servers' work.
struct FigureUncertainty {
    /// Standard error ÷ value (0.03 = ±3 %); nullopt when not estimated (fewer than 3 blocks).
    std::optional<double> relativeSe;
    /// ≈ 95 % interval in the figure's unit: value · e^{∓t·relativeSe}, t the Student quantile for
    /// blocks − 1 degrees of freedom (so a 3-block figure's interval is wide). nullopt with relativeSe.
    std::optional<double> low;
    std::optional<double> high;
    int blocks = 0; ///< blocks the spread was measured over (≥ 3 when relativeSe is set)
    /// Share 0–1 of the serving time the samples covered (between two good readings of every
    /// series, no failed scrape or blank in between for a gauge); nullopt when not measured.
    std::optional<double> coverage;
    /// Energy: the joules were scaled by serving ÷ covered time, i.e. the uncovered time was
    /// assumed to draw the covered time's power.
    bool scaled = false;
};

/// A number and its provenance, e.g. {63.2e9, "node_memory_MemTotal_bytes − node_memory_MemAvailable_bytes
/// @ http://10.0.0.5:9100/metrics", 42 samples}.
struct ResourceFigure {
    std::optional<double> value;
    QString source; ///< "FAMILY @ URL" (or a formula of families); empty when not measured
    int samples = 0; ///< how many samples it rests on
    FigureUncertainty uncertainty = {}; ///< energy per token and median power only
    /// The figure is the whole machine's, not only this endpoint's: host memory (a node exporter
    /// reports the machine), or GPU figures summed over every GPU of an exporter that reports
    /// more than one (or is scraped for another endpoint too) when the URL names none of them
    /// (`…/metrics#gpu=0;1`). Other processes' work on those GPUs is in it.
    bool wholeMachine = false;
    int series = 0; ///< GPU series summed or averaged (one per GPU); 0 for host and runtime figures
    QString selection = {}; ///< the URL's GPU selection applied, e.g. "gpu=0;1"; empty when none
};

/// Memory while `concurrency` requests of this endpoint were in flight (the seeds' idle / 1 / 5
/// table): samples taken while the endpoint had requests of that level in flight.
struct ConcurrencyResources {
    int concurrency = 1;
    ResourceFigure memoryMedian; ///< bytes
    ResourceFigure memoryPeak; ///< bytes
};

/// The server's own latency histograms over the run (Δ between the idle baselines), beside the
/// client's figure for the same requests.
struct ServerLatency {
    MetricRole role = MetricRole::ServerTtft;
    std::optional<double> meanMs; ///< Δsum / Δcount
    std::optional<double> p50Ms; ///< from the bucket deltas (only as fine as the buckets)
    std::optional<double> p90Ms;
    double count = 0; ///< Δcount (ITL on SGLang counts tokens, not steps)
    std::optional<double> clientMeanMs; ///< the client's mean of the matching metric, measured requests
    QString source; ///< "FAMILY @ URL"
};

/// Where one request's time to first token went, as far as the server says. Parts the server does
/// not report stay nullopt; `networkAndQueueMs` is what remains of the client's TTFT.
struct TtftBreakdown {
    int endpoint = 0;
    QString test;
    int turn = 1;
    int iteration = 1;
    double clientTtftMs = 0; ///< ttft_any as the client measured it
    std::optional<double> queueMs; ///< the server's queue time (vLLM/SGLang histogram Δ, one request)
    std::optional<double> prefillMs; ///< llama-server timings.prompt_ms, or the histogram Δ
    /// One decode step (llama-server predicted_per_token_ms), for scale beside the prefill. Not
    /// part of the TTFT: the first token is sampled from the prefill's logits.
    std::optional<double> firstDecodeMs;
    std::optional<double> networkAndQueueMs; ///< client TTFT − the server's parts (≥ 0)
    QString source; ///< "timings.prompt_ms (llama-server)", "vllm:… Δ between scrapes", …
};

/// Samples in which the server held more requests (running + waiting) than Quantscope had in
/// flight to it, counting every endpoint of the run scraped at the same URL: another client was
/// using the server.
struct ForeignLoad {
    int samples = 0; ///< how many samples showed it; 0 = none
    double atMs = 0; ///< the sample with the largest excess
    double running = 0; ///< the server's running requests in that sample
    double waiting = 0; ///< the server's waiting requests in that sample
    int inFlight = 0; ///< Quantscope's requests in flight around that moment
    QString source; ///< "FAMILY @ URL"
};

/// Everything measured about one endpoint's server.
struct EndpointResources {
    int endpoint = 0;
    QString label;
    QStringList sources; ///< the URLs scraped for it
    QString memoryKind; ///< "gpu" (DCGM framebuffer) or "host" (node exporter, unified memory); "" when none
    ResourceFigure memoryIdle; ///< bytes: median of the idle baselines (before and after)
    ResourceFigure memoryIdleBefore; ///< bytes: median of the baseline before the first request
    ResourceFigure memoryIdleAfter; ///< bytes: median of the baseline after the last request
    ResourceFigure memoryPeak; ///< bytes: highest sample while serving
    ResourceFigure memoryServingMedian; ///< bytes: median of the samples while serving
    ResourceFigure memoryTotal; ///< bytes: the budget's denominator, when exposed
    std::vector<ConcurrencyResources> byConcurrency; ///< ascending concurrency
    ResourceFigure gpuUtilizationMedian; ///< ratio 0–1, while serving
    ResourceFigure powerMedian; ///< W, while serving; with its uncertainty
    /// J per generated token while serving, ÷ the completion tokens it recorded (docs/methodology.md
    /// §10): the energy counter's Δ per GPU over the scrape intervals that touched serving (or, for
    /// a counter that moves in steps, the update period after it), less the idle power over their
    /// idle part; or the power gauge integrated over serving. Scaled by serving ÷ covered time when
    /// samples missed part of it. With its uncertainty.
    ResourceFigure energyPerToken;
    ResourceFigure kvCachePeak; ///< ratio 0–1
    ResourceFigure waitingPeak; ///< requests queued on the server, highest sample
    std::optional<double> serverGeneratedTokens; ///< Δ of the server's counter between the baselines
    std::optional<double> clientGeneratedTokens; ///< Σ completion tokens the client recorded (all requests)
    std::optional<double> serverPromptTokens; ///< Δ computed + Δ cached (where the server splits them)
    std::optional<double> clientPromptTokens;
    /// How finely the server printed its token counters (llama-server writes 6 significant
    /// digits): a Δ is exact only to this. 0 when not measured.
    double generatedTokensQuantum = 0;
    double promptTokensQuantum = 0;
    std::optional<double> serverGeneratedPerSecond; ///< Δ generated tokens ÷ serving time
    std::optional<double> clientGeneratedPerSecond; ///< Σ completion tokens ÷ the same serving time
    std::optional<double> preemptions; ///< Δ over the run
    std::vector<ServerLatency> serverLatency;
    std::vector<TtftBreakdown> ttftBreakdown; ///< measured requests where the server says enough
    ForeignLoad foreignLoad;
    bool restarted = false; ///< a counter went down or the process start time changed
    /// Any memory, power or energy figure is the whole machine's (ResourceFigure::wholeMachine).
    bool wholeMachine = false;
    int failedScrapes = 0;
    QStringList notes; ///< e.g. "exporter http://…:9400 down from 12.3 s to 15.0 s (gap)"
};

struct ResourceReport {
    std::vector<EndpointResources> endpoints; ///< one per endpoint of the run, in order
    bool collected = false; ///< any telemetry at all
};

ResourceReport computeResources(const RunResult& result);
/// One endpoint's figures, or null when the run has no such endpoint.
const EndpointResources* findResources(const ResourceReport& report, int endpoint);

/// Bytes as a reader wants them: "61.3 GiB", "512 MiB" (binary units, as nvidia-smi and DCGM
/// count; 1 decimal in GiB).
QString bytesText(double bytes);

/// The `resources` array of `summary --json`: one entry per endpoint,
/// {"endpoint", "sources", "memory_idle_bytes", "memory_peak_bytes", "memory_by_concurrency":
///  {"<c>": {"median_bytes", "peak_bytes"}}, "power_median_w", "energy_per_token_j",
///  "server_generated_tokens", "client_generated_tokens", "server_prompt_tokens",
///  "client_prompt_tokens", …} with null where not measured, plus each figure's source. The
/// figures a decision compares carry their FigureUncertainty as "power_median_uncertainty" and
/// "energy_per_token_uncertainty": {"relative_se", "interval_low", "interval_high",
/// "interval_level" (0.95), "blocks", "coverage", "scaled"} (null where not estimated);
/// "whole_machine" is EndpointResources::wholeMachine, and each "figure_sources" entry says its own
/// "whole_machine", "series" and "selection".
nlohmann::json toJson(const ResourceReport& report);

} // namespace qs
