// SPDX-License-Identifier: MIT
// What the server says about its own latency: its histograms over the whole run beside the
// client's means, and, per measured request, where the time to first token went (queue,
// prefill, first decode step, and what remains: network and the client's side).
#include "model/evaluate/ResourceParts.h"

#include <algorithm>

namespace qs::resources {

namespace {

/// The client's mean of the figure a server histogram measures, over measured successful requests.
std::optional<double> clientMean(const EndpointView& view, MetricRole role)
{
    double sum = 0;
    double n = 0;
    for (const RunRecord* r : view.records) {
        if (r->warmup || !r->request.ok())
            continue;
        const RequestMetrics& m = r->request.metrics;
        if (role == MetricRole::ServerTtft && m.ttftAnyMs) {
            sum += *m.ttftAnyMs;
            n += 1;
        } else if (role == MetricRole::ServerE2e && m.e2eMs) {
            sum += *m.e2eMs;
            n += 1;
        } else if (role == MetricRole::ServerItl && m.e2eMs && m.ttftAnyMs && m.tokenEvents >= 2) {
            // Per gap between token-bearing events, weighted as the server's histogram is.
            sum += *m.e2eMs - *m.ttftAnyMs;
            n += m.tokenEvents - 1;
        }
    }
    return n > 0 ? std::optional<double>(sum / n) : std::nullopt;
}

/// Δ of a histogram role between two samples of a source.
std::optional<HistogramReading> deltaBetween(
    const SourceSamples& s, const TelemetrySample& a, const TelemetrySample& b, MetricRole role)
{
    const auto ha = readHistogram(*s.source, a, role);
    const auto hb = readHistogram(*s.source, b, role);
    if (!ha || !hb)
        return std::nullopt;
    return histogramDelta(*ha, *hb);
}

const MetricRole kLatencyRoles[] = {MetricRole::ServerTtft, MetricRole::ServerItl, MetricRole::ServerE2e,
    MetricRole::ServerQueue, MetricRole::ServerPrefill};

/// The window around one request: the last good sample at or before its t0 and the first good
/// one at or after its end.
std::pair<const TelemetrySample*, const TelemetrySample*> window(const SourceSamples& s, const Interval& i)
{
    const TelemetrySample* before = nullptr;
    const TelemetrySample* after = nullptr;
    for (const TelemetrySample* x : s.samples) {
        if (!x->ok())
            continue;
        if (x->atMs <= i.startMs)
            before = x;
        else if (x->atMs >= i.endMs) {
            after = x;
            break;
        }
    }
    return {before, after};
}

/// One request's breakdown from llama-server's own timings, when it sent them.
std::optional<TtftBreakdown> fromTimings(const RunRecord& r)
{
    const auto& t = r.request.response.timings;
    if (!t || !t->promptMs)
        return std::nullopt;
    TtftBreakdown b;
    b.prefillMs = t->promptMs;
    b.firstDecodeMs = t->predictedPerTokenMs;
    b.source = b.firstDecodeMs
        ? QStringLiteral("timings.prompt_ms, timings.predicted_per_token_ms (llama-server)")
        : QStringLiteral("timings.prompt_ms (llama-server)");
    return b;
}

/// One request's breakdown from the histograms' Δ around it, when exactly one observation of a
/// histogram happened in that window (so its Δsum is this request's).
std::optional<TtftBreakdown> fromHistograms(const EndpointView& view, const RunRecord& r)
{
    const Interval interval = requestInterval(r);
    for (const SourceSamples& s : view.sources) {
        const auto [before, after] = window(s, interval);
        if (!before || !after)
            continue;
        // Captured by name: clang 14 (the fuzz build) cannot capture a structured binding.
        const auto one
            = [&, &first = before, &last = after](MetricRole role, QString* family) -> std::optional<double> {
            const auto d = deltaBetween(s, *first, *last, role);
            if (!d || d->count != 1)
                return std::nullopt;
            if (family)
                *family = d->family;
            return d->sum * 1000.0;
        };
        QString queueFamily, prefillFamily, ttftFamily;
        const auto queue = one(MetricRole::ServerQueue, &queueFamily);
        auto prefill = one(MetricRole::ServerPrefill, &prefillFamily);
        const auto ttft = one(MetricRole::ServerTtft, &ttftFamily);
        QStringList used;
        if (queue)
            used << queueFamily;
        if (prefill) {
            used << prefillFamily;
        } else if (ttft && queue) {
            // SGLang has no prefill histogram: its TTFT after the queue is prefill and the first step.
            prefill = std::max(0.0, *ttft - *queue);
            used << ttftFamily + QStringLiteral(" − ") + queueFamily;
        }
        if (!queue && !prefill)
            continue;
        TtftBreakdown b;
        b.queueMs = queue;
        b.prefillMs = prefill;
        b.source = used.join(QStringLiteral(", ")) + QStringLiteral(" Δ between scrapes @ ") + s.source->url;
        return b;
    }
    return std::nullopt;
}

} // namespace

void computeServerLatency(const EndpointView& view, EndpointResources& out)
{
    for (const MetricRole role : kLatencyRoles) {
        for (const SourceSamples& s : view.sources) {
            if (!s.baselineBefore)
                continue;
            const auto d = deltaBetween(s, *s.baselineBefore, *s.baselineAfter, role);
            if (!d || d->count <= 0)
                continue;
            ServerLatency l;
            l.role = role;
            l.count = d->count;
            l.meanMs = d->sum / d->count * 1000.0;
            if (const auto q = histogramQuantile(*d, 0.5))
                l.p50Ms = *q * 1000.0;
            if (const auto q = histogramQuantile(*d, 0.9))
                l.p90Ms = *q * 1000.0;
            l.clientMeanMs = clientMean(view, role);
            l.source = figureSource(d->family, s.source->url);
            out.serverLatency.push_back(std::move(l));
            break;
        }
    }
}

void computeTtftBreakdown(const EndpointView& view, EndpointResources& out)
{
    for (const RunRecord* r : view.records) {
        if (r->warmup || !r->request.ok() || !r->request.metrics.ttftAnyMs)
            continue;
        std::optional<TtftBreakdown> b = fromTimings(*r);
        if (!b && !view.sources.empty())
            b = fromHistograms(view, *r);
        if (!b)
            continue;
        b->endpoint = r->endpoint;
        b->test = r->test;
        b->turn = r->turn;
        b->iteration = r->iteration;
        b->clientTtftMs = *r->request.metrics.ttftAnyMs;
        // The first token is sampled from the prefill's own logits (llama.cpp, and vLLM's prefill
        // step emits it): a decode step is not part of the TTFT, so it is shown, not subtracted.
        const double server = b->queueMs.value_or(0) + b->prefillMs.value_or(0);
        b->networkAndQueueMs = std::max(0.0, b->clientTtftMs - server);
        out.ttftBreakdown.push_back(std::move(*b));
    }
}

} // namespace qs::resources
