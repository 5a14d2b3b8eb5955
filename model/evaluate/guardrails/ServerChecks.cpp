// SPDX-License-Identifier: MIT
// What the servers' own metrics reveal about the run: another client on the server, preempted
// requests, a full KV cache, memory that grew, a restart, failed scrapes. Every check reads
// Context::resources, which is empty when nothing was scraped, so none of them fires then.
#include "model/evaluate/guardrails/GuardrailCheck.h"

#include <QRegularExpression>
#include <algorithm>
#include <cmath>

namespace qs::guardrails {

namespace {

/// perArm over the arms that have resource figures.
template <typename Describe> Finding perServer(const Context& ctx, Describe describe)
{
    return perArm(ctx, [&](int e, QStringList&) {
        const EndpointResources* r = findResources(ctx.resources, e);
        return r ? describe(e, *r) : QString();
    });
}

QString count(double v)
{
    return QString::number(v, 'f', std::abs(v - std::round(v)) < 1e-9 ? 0 : 1);
}

/// The endpoints whose runtime `/metrics` is the same URL as `e`'s: the same server, whose counters
/// count all their requests.
std::vector<int> sameServer(const Context& ctx, int e)
{
    std::vector<int> out {e};
    const auto& sources = ctx.run.telemetry.sources;
    for (const TelemetrySource& a : sources) {
        if (a.endpoint != e || a.kind != TelemetrySource::Kind::Runtime)
            continue;
        for (const TelemetrySource& b : sources)
            if (b.kind == TelemetrySource::Kind::Runtime && b.url == a.url
                && std::find(out.begin(), out.end(), b.endpoint) == out.end())
                out.push_back(b.endpoint);
    }
    std::sort(out.begin(), out.end());
    return out;
}

struct ClientCount {
    double sum = 0;
    int missing = 0; ///< requests without a count (failed before usage arrived)
    int estimated = 0;
};

ClientCount clientCount(
    const Context& ctx, const std::vector<int>& endpoints, TokenCount RequestMetrics::*field)
{
    ClientCount c;
    for (int e : endpoints) {
        if (e < 0 || std::size_t(e) >= ctx.all.size())
            continue;
        for (const RunRecord* r : ctx.all[std::size_t(e)]) {
            const TokenCount& t = r->request.metrics.*field;
            if (!t.value)
                ++c.missing;
            else if (t.isEstimate())
                ++c.estimated;
            else
                c.sum += double(*t.value);
        }
    }
    return c;
}

/// One line when the server's Δ and the client's sum disagree beyond the counter's print quantum;
/// empty otherwise. Estimated client counts are not compared (estimated_tokens says why).
QString compareCounts(
    const QString& what, std::optional<double> server, const ClientCount& client, double quantum)
{
    if (!server || client.estimated > 0)
        return {};
    const double tolerance = std::max(0.5, quantum);
    const double diff = *server - client.sum;
    // Requests without a count (failed before their usage arrived, or a server that sends none)
    // were counted by the server, not by us: the client's sum is then only a lower bound.
    if (diff >= -tolerance && (client.missing > 0 || diff <= tolerance))
        return {};
    QString line = QStringLiteral("%1: server %2, client %3 (%4%5)")
                       .arg(what, count(*server), count(client.sum))
                       .arg(diff > 0 ? QStringLiteral("+") : QString())
                       .arg(count(diff));
    if (quantum > 0)
        line += QStringLiteral("; the counter is printed to ±%1").arg(count(quantum));
    if (client.missing > 0)
        line += QStringLiteral("; %1 requests carried no count").arg(client.missing);
    return line;
}

} // namespace

std::optional<Guardrail> checkServerTokens(const Context& ctx)
{
    Finding found = perServer(ctx, [&ctx](int e, const EndpointResources& r) {
        const std::vector<int> server = sameServer(ctx, e);
        QStringList parts;
        const QString generated = compareCounts(QStringLiteral("generated tokens"), r.serverGeneratedTokens,
            clientCount(ctx, server, &RequestMetrics::completionTokens), r.generatedTokensQuantum);
        const QString prompt = compareCounts(QStringLiteral("prompt tokens"), r.serverPromptTokens,
            clientCount(ctx, server, &RequestMetrics::promptTokens), r.promptTokensQuantum);
        if (!generated.isEmpty())
            parts << generated;
        if (!prompt.isEmpty())
            parts << prompt;
        if (parts.isEmpty())
            return QString();
        QString line = QStringLiteral("%1: %2").arg(ctx.name(e), parts.join(QStringLiteral("; ")));
        if (server.size() > 1)
            line += QStringLiteral(" (client sums over the %1 endpoints at this server's /metrics)")
                        .arg(server.size());
        return line;
    });
    return report(ctx, std::move(found), Severity::Warning,
        QStringLiteral("The server counted other tokens than the client recorded"),
        QStringLiteral(
            "Δ of the server's token counters between the idle baselines should equal the sum of the usage "
            "counts Quantscope recorded (warm-ups included). More on the server: a second client was using "
            "it during the run, so its latency figures include that load; stop other clients and re-run. "
            "Otherwise the usage counts are wrong (check the runtime version and the chat template)."));
}

std::optional<Guardrail> checkServerQueueing(const Context& ctx)
{
    Finding found = perServer(ctx, [&ctx](int e, const EndpointResources& r) {
        const ForeignLoad& f = r.foreignLoad;
        if (f.samples == 0)
            return QString();
        return QStringLiteral(
            "%1: at %2 s the server held %3 running + %4 waiting requests while Quantscope had "
            "%5 in flight (%6 samples like this; %7)")
            .arg(ctx.name(e))
            .arg(f.atMs / 1000.0, 0, 'f', 1)
            .arg(count(f.running), count(f.waiting))
            .arg(f.inFlight)
            .arg(f.samples)
            .arg(f.source);
    });
    return report(ctx, std::move(found), Severity::Warning,
        QStringLiteral("Someone else was using the server during the run"),
        QStringLiteral(
            "The server queued or ran requests Quantscope did not send, so these latencies include another "
            "client's load. Stop other clients (or give the benchmark its own server) and re-run."));
}

std::optional<Guardrail> checkServerPreemptions(const Context& ctx)
{
    Finding found = perServer(ctx, [&ctx](int e, const EndpointResources& r) {
        if (!r.preemptions || *r.preemptions <= 0)
            return QString();
        return QStringLiteral("%1: %2 requests preempted during the run")
            .arg(ctx.name(e), count(*r.preemptions));
    });
    return report(ctx, std::move(found), Severity::Warning,
        QStringLiteral("The server preempted requests (KV cache ran out)"),
        QStringLiteral("A preempted request is recomputed later, so its latency measures memory pressure, "
                       "not the model. "
                       "Lower the concurrency, shorten the context, or give the server more KV cache "
                       "(vLLM --gpu-memory-utilization, SGLang --mem-fraction-static)."));
}

std::optional<Guardrail> checkKvCacheFull(const Context& ctx)
{
    Finding found = perServer(ctx, [&ctx](int e, const EndpointResources& r) {
        if (!r.kvCachePeak.value || *r.kvCachePeak.value < kKvCacheFull)
            return QString();
        return QStringLiteral("%1: KV cache peaked at %2 (%3)")
            .arg(ctx.name(e), fmtPercent(*r.kvCachePeak.value), r.kvCachePeak.source);
    });
    return report(ctx, std::move(found), Severity::Warning, QStringLiteral("The KV cache was nearly full"),
        QStringLiteral("Near %1 the server queues or preempts requests, and latency measures the cache's "
                       "size. Lower the "
                       "concurrency or the context, or give the server more KV cache.")
            .arg(fmtPercent(kKvCacheFull)));
}

std::optional<Guardrail> checkMemoryGrew(const Context& ctx)
{
    Finding found = perServer(ctx, [&ctx](int e, const EndpointResources& r) {
        if (!r.memoryIdleBefore.value || !r.memoryIdleAfter.value)
            return QString();
        const double before = *r.memoryIdleBefore.value;
        const double growth = *r.memoryIdleAfter.value - before;
        const double base = r.memoryTotal.value.value_or(before);
        if (growth <= std::max(kMemoryGrowthBytes, kMemoryGrowthShare * base))
            return QString();
        return QStringLiteral("%1: %2 memory at idle %3 before the run, %4 after (+%5; %6)")
            .arg(ctx.name(e),
                r.memoryKind == QStringLiteral("gpu") ? QStringLiteral("GPU") : QStringLiteral("host"),
                bytesText(before), bytesText(*r.memoryIdleAfter.value), bytesText(growth),
                r.memoryIdleBefore.source);
    });
    return report(ctx, std::move(found), Severity::Warning,
        QStringLiteral("Memory at idle grew during the run"),
        QStringLiteral(
            "Another process's memory grew while the benchmark ran, or the server kept what it allocated "
            "(caches, CUDA graphs). Peak figures may then not be the server's alone, and a memory budget "
            "may be exceeded later in the day. Check what else runs on the machine and re-run from a fresh "
            "server; on unified memory (DGX Spark) page cache also counts."));
}

std::optional<Guardrail> checkServerRestarted(const Context& ctx)
{
    Finding found = perServer(ctx, [&ctx](int e, const EndpointResources& r) {
        if (!r.restarted)
            return QString();
        QStringList why;
        for (const QString& n : r.notes)
            if (n.contains(QStringLiteral("restarted")))
                why << n;
        return QStringLiteral("%1: %2").arg(ctx.name(e), why.join(QStringLiteral("; ")));
    });
    return report(ctx, std::move(found), Severity::Warning,
        QStringLiteral("A server restarted during the run"),
        QStringLiteral(
            "Requests before and after the restart may have met a cold server or other settings, and the "
            "server's counters over the run are not measured. Find out why it restarted (out of memory?) and "
            "re-run."));
}

std::optional<Guardrail> checkTelemetryGaps(const Context& ctx)
{
    Finding found = perServer(ctx, [&ctx](int e, const EndpointResources& r) {
        if (r.failedScrapes == 0)
            return QString();
        // The gap notes Resources writes: "URL failed once at …", "URL failed N times between …".
        static const QRegularExpression gap(QStringLiteral("^\\S+ failed (once at|\\d+ times between) "));
        QStringList gaps;
        for (const QString& n : r.notes)
            if (gap.match(n).hasMatch())
                gaps << n;
        return QStringLiteral("%1: %2 failed scrapes (%3)")
            .arg(ctx.name(e))
            .arg(r.failedScrapes)
            .arg(listed(gaps, 3));
    });
    return report(ctx, std::move(found), Severity::Info, QStringLiteral("Some metrics scrapes failed"),
        QStringLiteral("The resource figures have gaps there (nothing is interpolated across one); the "
                       "requests were not "
                       "affected. Check that the exporter stays up and answers within the scrape period "
                       "(--scrape-ms)."));
}

} // namespace qs::guardrails
