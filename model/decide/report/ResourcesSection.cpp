// SPDX-License-Identifier: MIT
// The Resources section: what each server spent while it answered (Evaluation::resources) — the
// seeds' idle / 1 / N memory table, power and energy per token, the server's own token counts and
// latency histograms beside the client's, and where the time to first token went. Every figure
// names its source; a figure that was not measured says so, with how to collect it.
#include "model/decide/report/ReportText.h"
#include "model/decide/report/Sections.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

using namespace Qt::StringLiterals;

namespace qs::report {

namespace {

using Resource = Criterion::Resource;

Line notMeasured()
{
    return {italic(u"not measured"_s)};
}

Line figureCell(const ResourceFigure& f, Resource unitOf)
{
    if (!f.value || !std::isfinite(*f.value))
        return notMeasured();
    return line(resourceValueText(unitOf, *f.value));
}

Line ratioCell(const ResourceFigure& f)
{
    return f.value ? line(fmtPercent(*f.value)) : notMeasured();
}

Line countCell(const std::optional<double>& v)
{
    return v ? line(QString::number(std::llround(*v))) : notMeasured();
}

QString memoryKindText(const EndpointResources& e)
{
    if (e.memoryKind == u"gpu")
        return u"GPU (framebuffer)"_s;
    if (e.memoryKind == u"host")
        return u"host (unified)"_s;
    return e.memoryKind;
}

void howToCollect(Doc& d)
{
    bullets(d,
        {line(u"The runtime's own /metrics is scraped at the endpoint's base URL during every run: "
              "llama-server needs --metrics, vLLM always serves it, SGLang needs --enable-metrics."_s),
            line(u"Memory, GPU power and energy come from exporters: add metrics=URL to the endpoint "
                 "(several separated by |), a DCGM exporter for GPU memory, power and energy "
                 "(metrics=http://HOST:9400/metrics) and a node exporter for host memory, which is what "
                 "unified-memory machines such as the DGX Spark's GB10 report instead of VRAM "
                 "(metrics=http://HOST:9100/metrics)."_s),
            line(u"Scraping is on by default (--scrape-ms N sets the period); --no-server-metrics turns it "
                 "off."_s)});
}

void memoryTable(Doc& d, const Context& cx)
{
    std::set<int> levels;
    for (const EndpointResources& e : cx.ev.resources.endpoints)
        for (const ConcurrencyResources& c : e.byConcurrency)
            levels.insert(c.concurrency);
    std::vector<Line> header {line(u"Endpoint"_s), line(u"Memory"_s), line(u"Idle"_s)};
    for (int l : levels)
        // The seeds' words: "VRAM at idle, 1 request, 5 concurrent".
        header.push_back(line(l == 1 ? u"1 request"_s : u"%1 concurrent"_s.arg(l)));
    header.push_back(line(u"Peak"_s));
    header.push_back(line(u"Total"_s));
    std::vector<bool> numeric(header.size(), true);
    numeric[0] = numeric[1] = false;
    Block t = table(header, numeric);
    for (const EndpointResources& e : cx.ev.resources.endpoints) {
        std::vector<Line> r {line(cx.label(e.endpoint)),
            e.memoryKind.isEmpty() ? notMeasured() : line(memoryKindText(e)),
            figureCell(e.memoryIdle, Resource::PeakMemory)};
        for (int l : levels) {
            const auto at = std::find_if(e.byConcurrency.begin(), e.byConcurrency.end(),
                [l](const ConcurrencyResources& c) { return c.concurrency == l; });
            r.push_back(at == e.byConcurrency.end() ? notMeasured()
                                                    : figureCell(at->memoryMedian, Resource::PeakMemory));
        }
        r.push_back(figureCell(e.memoryPeak, Resource::PeakMemory));
        r.push_back(figureCell(e.memoryTotal, Resource::PeakMemory));
        t.rows.push_back(std::move(r));
    }
    heading(d, 3, u"Memory"_s);
    paragraph(d,
        line(u"Idle: the median of the baselines before the first request and after the last. Each "
             "concurrency column: the median of the samples taken while that many of the endpoint's "
             "requests were in flight. Peak: the highest sample while serving. Decimal units: 1 GB = 10^9 "
             "bytes."_s));
    d.push_back(std::move(t));
}

void powerTable(Doc& d, const Context& cx)
{
    Block t = table({line(u"Endpoint"_s), line(u"GPU utilisation (median)"_s), line(u"Power (median)"_s),
                        line(u"Energy per token"_s), line(u"KV cache (peak)"_s), line(u"Queued (peak)"_s),
                        line(u"Preemptions"_s)},
        {false, true, true, true, true, true, true});
    for (const EndpointResources& e : cx.ev.resources.endpoints)
        t.rows.push_back({line(cx.label(e.endpoint)), ratioCell(e.gpuUtilizationMedian),
            figureCell(e.powerMedian, Resource::PowerMedian),
            figureCell(e.energyPerToken, Resource::EnergyPerToken), ratioCell(e.kvCachePeak),
            e.waitingPeak.value ? line(QString::number(*e.waitingPeak.value)) : notMeasured(),
            countCell(e.preemptions)});
    heading(d, 3, u"Power and energy"_s);
    paragraph(d,
        line(u"While serving. Energy per token: the energy counter's increase (or power integrated over "
             "time) while the endpoint had requests in flight, divided by the completion tokens it "
             "returned. Queued: requests waiting on the server — above 0 at concurrency 1 means someone "
             "else was using it."_s));
    d.push_back(std::move(t));
}

// "✓ agree", or how far apart the server's count and the client's are.
Line crossCheck(const std::optional<double>& server, const std::optional<double>& client)
{
    if (!server || !client)
        return notMeasured();
    const double diff = *server - *client;
    if (std::fabs(diff) <= std::max(1.0, 0.01 * std::fabs(*client)))
        return {{Style::Good, u"✓ agree"_s}};
    return {{Style::Bad, u"✗ "_s},
        plain(u"server counted %1%2 (another client on the server, or wrong usage counts)"_s.arg(
            diff > 0 ? u"+"_s : QString(), QString::number(std::llround(diff))))};
}

void tokenTable(Doc& d, const Context& cx)
{
    Block t = table({line(u"Endpoint"_s), line(u"Generated (server)"_s), line(u"Generated (client)"_s),
                        line(u"Prompt (server)"_s), line(u"Prompt (client)"_s), line(u"tok/s (server)"_s),
                        line(u"tok/s (client)"_s), line(u"Cross-check"_s)},
        {false, true, true, true, true, true, true, false});
    const auto rate = [](const std::optional<double>& v) {
        return v ? line(fmtMetric(Metric::DecodeTps, *v)) : notMeasured();
    };
    for (const EndpointResources& e : cx.ev.resources.endpoints)
        t.rows.push_back({line(cx.label(e.endpoint)), countCell(e.serverGeneratedTokens),
            countCell(e.clientGeneratedTokens), countCell(e.serverPromptTokens),
            countCell(e.clientPromptTokens), rate(e.serverGeneratedPerSecond),
            rate(e.clientGeneratedPerSecond), crossCheck(e.serverGeneratedTokens, e.clientGeneratedTokens)});
    heading(d, 3, u"Token counts: server vs client"_s);
    paragraph(d,
        line(u"The increase of the server's own token counters between the idle baselines, beside the sum "
             "of the usage counts the client recorded for every request of the run (warm-ups included). "
             "tok/s: generated tokens over the time the endpoint had requests in flight."_s));
    d.push_back(std::move(t));
}

void latencyTable(Doc& d, const Context& cx)
{
    Block t = table({line(u"Endpoint"_s), line(u"Histogram"_s), line(u"Server mean"_s), line(u"Server p50"_s),
                        line(u"Server p90"_s), line(u"Count"_s), line(u"Client mean"_s)},
        {false, false, true, true, true, true, true});
    const auto ms = [](const std::optional<double>& v) {
        return v ? line(fmtMetric(Metric::TtftAny, *v)) : line(u"—"_s);
    };
    for (const EndpointResources& e : cx.ev.resources.endpoints)
        for (const ServerLatency& l : e.serverLatency)
            t.rows.push_back({line(cx.label(e.endpoint)), line(metricRoleTitle(l.role)), ms(l.meanMs),
                ms(l.p50Ms), ms(l.p90Ms), line(QString::number(std::llround(l.count))), ms(l.clientMeanMs)});
    if (t.rows.empty())
        return;
    heading(d, 3, u"The server's latency histograms"_s);
    paragraph(d,
        line(u"The server's own histograms over the run (the increase between the idle baselines), beside "
             "the client's mean of the same measured requests. Percentiles are interpolated inside the "
             "buckets, so they are only as fine as the buckets."_s));
    d.push_back(std::move(t));
}

std::optional<double> medianOf(
    const std::vector<const TtftBreakdown*>& rows, std::optional<double> TtftBreakdown::*part)
{
    std::vector<double> v;
    for (const TtftBreakdown* r : rows)
        if (r->*part)
            v.push_back(*(r->*part));
    return median(std::move(v));
}

void ttftBreakdownTable(Doc& d, const Context& cx)
{
    Block t = table({line(u"Endpoint"_s), line(u"Test"_s), line(u"Requests"_s), line(u"Client TTFT"_s),
                        line(u"Network + queueing"_s), line(u"Server queue"_s), line(u"Prefill"_s),
                        line(u"One decode step (not in TTFT)"_s)},
        {false, false, true, true, true, true, true, true});
    QStringList sources;
    for (const EndpointResources& e : cx.ev.resources.endpoints) {
        std::map<QString, std::vector<const TtftBreakdown*>> byTest;
        for (const TtftBreakdown& b : e.ttftBreakdown) {
            byTest[b.test].push_back(&b);
            if (!b.source.isEmpty() && !sources.contains(b.source))
                sources << b.source;
        }
        // In the order the tests ran.
        QStringList order = cx.tests;
        for (const auto& [test, rows] : byTest)
            if (!order.contains(test))
                order << test;
        bool first = true; // the endpoint once per group: a column of repeated labels is noise
        for (const QString& test : order) {
            const auto it = byTest.find(test);
            if (it == byTest.end())
                continue;
            const auto& rows = it->second;
            std::vector<double> client;
            for (const TtftBreakdown* r : rows)
                client.push_back(r->clientTtftMs);
            const auto ms = [](const std::optional<double>& v) {
                return v ? line(fmtMetric(Metric::TtftAny, *v)) : line(u"—"_s);
            };
            t.rows.push_back({line(first ? cx.label(e.endpoint) : QString()), line(cx.testName(test)),
                line(QString::number(rows.size())), ms(median(client)),
                ms(medianOf(rows, &TtftBreakdown::networkAndQueueMs)),
                ms(medianOf(rows, &TtftBreakdown::queueMs)), ms(medianOf(rows, &TtftBreakdown::prefillMs)),
                ms(medianOf(rows, &TtftBreakdown::firstDecodeMs))});
            first = false;
        }
    }
    heading(d, 3, u"Where the time to first token went"_s);
    if (t.rows.empty()) {
        paragraph(d,
            {italic(u"Not measured: "_s),
                plain(u"no server reported enough to split a request's TTFT (llama-server's timings, or "
                      "vLLM/SGLang queue and prefill histograms that moved between two scrapes)."_s)});
        return;
    }
    paragraph(d,
        line(u"Medians per test over the measured requests where the server says enough. Network + "
             "queueing is what remains of the client's TTFT after the server's own parts: a large share "
             "there points at the network or a busy server, a large prefill at the runtime and the model "
             "(is it the runtime or the model?)."_s));
    d.push_back(std::move(t));
    if (!sources.isEmpty())
        paragraph(d, {italic(u"From: "_s + sources.join(u"; "_s) + u"."_s)});
}

// Small print: where every figure came from, and what went wrong while scraping.
void sourcesAndNotes(Doc& d, const Context& cx)
{
    std::vector<Line> items;
    for (const EndpointResources& e : cx.ev.resources.endpoints) {
        QStringList from;
        const auto add = [&](const QString& what, const ResourceFigure& f) {
            if (!f.source.isEmpty())
                from << what + u": "_s + f.source
                        + (f.samples > 0 ? u" ("_s + plural(f.samples, u"sample"_s, u"samples"_s) + u")"_s
                                         : QString());
        };
        add(u"idle memory"_s, e.memoryIdle);
        add(u"peak memory"_s, e.memoryPeak);
        add(u"memory total"_s, e.memoryTotal);
        add(u"GPU utilisation"_s, e.gpuUtilizationMedian);
        add(u"power"_s, e.powerMedian);
        add(u"energy per token"_s, e.energyPerToken);
        add(u"KV cache"_s, e.kvCachePeak);
        add(u"queued"_s, e.waitingPeak);
        for (const ServerLatency& l : e.serverLatency)
            if (!l.source.isEmpty())
                from << metricRoleTitle(l.role) + u": "_s + l.source;
        Line item {italic(cx.label(e.endpoint) + u" — scraped: "_s
            + (e.sources.isEmpty() ? u"nothing"_s : e.sources.join(u", "_s)) + u". "_s
            + (from.isEmpty() ? QString() : from.join(u"; "_s) + u"."_s))};
        items.push_back(std::move(item));
        QStringList notes = e.notes;
        if (e.restarted)
            notes.prepend(
                u"the server restarted during the run (a counter went down or its start time changed): "
                "its counters' increases are not comparable across the restart"_s);
        if (e.failedScrapes > 0)
            notes.prepend(
                plural(e.failedScrapes, u"scrape"_s, u"scrapes"_s) + u" failed (gaps in the series)"_s);
        for (const QString& n : notes)
            items.push_back({italic(cx.label(e.endpoint) + u": "_s + n)});
    }
    for (const QString& n : cx.run.telemetry.notes)
        items.push_back({italic(n)});
    heading(d, 4, u"Sources and notes"_s);
    bullets(d, items);
}

} // namespace

void resourcesSection(Doc& d, const Context& cx)
{
    heading(d, 2, u"Resources"_s);
    const ResourceReport& res = cx.ev.resources;
    if (!res.collected || res.endpoints.empty()) {
        QString why = u"this run collected no server telemetry"_s;
        if (!cx.run.telemetry.notes.isEmpty())
            why += u" ("_s + cx.run.telemetry.notes.join(u"; "_s) + u")"_s;
        paragraph(d,
            {bold(u"Not measured: "_s),
                plain(why
                    + u", so memory (idle, per concurrency, peak), GPU power, energy per token, the server's "
                      u"own "
                      "token counts and latency histograms, and the TTFT breakdown are unknown. To collect "
                      "them:"_s)});
        howToCollect(d);
        return;
    }
    const int period = cx.run.telemetry.periodMs;
    paragraph(d,
        line(u"What each server spent while it answered, from its Prometheus pages"_s
            + (period > 0 ? u" scraped every %1 ms"_s.arg(period) : QString())
            + u" on the requests' clock. Metric names and URLs are shown as the servers wrote them."_s));
    memoryTable(d, cx);
    powerTable(d, cx);
    tokenTable(d, cx);
    latencyTable(d, cx);
    ttftBreakdownTable(d, cx);
    sourcesAndNotes(d, cx);
    bool anyMemory = false;
    for (const EndpointResources& e : res.endpoints)
        anyMemory |= e.memoryPeak.value.has_value();
    if (!anyMemory) {
        paragraph(
            d, {bold(u"Memory not measured: "_s), plain(u"no source reported memory. To collect it:"_s)});
        howToCollect(d);
    }
}

} // namespace qs::report
