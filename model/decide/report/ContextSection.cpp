// SPDX-License-Identifier: MIT
// The "Prompt length and prefill" section: how TTFT grows with the tokens a server has to process
// (Evaluation::prefill) — ms per 1,000 uncached prompt tokens per endpoint with its interval over
// distinct prompts, the chart that shows it, whether the context sweep's fact was still found at
// each context length and depth, the memory at each length, and which prefix-cache mode the suite
// measured (a warm run does not measure prefill; a cold one does).
#include "model/decide/report/ReportText.h"
#include "model/decide/report/Sections.h"

#include <algorithm>
#include <cmath>
#include <set>

using namespace Qt::StringLiterals;

namespace qs::report {

namespace {

Line notMeasured()
{
    return {italic(u"not measured"_s)};
}

QString sourceWords(PrefillSource source)
{
    return source == PrefillSource::ContextSweep
        ? u"the context sweep (the tests with a generated context, and only those)"_s
        : u"the multi-turn conversations' growth (every turn of every conversation)"_s;
}

/// "right/graded (pct %)", or "—" when nothing was graded; marked when some answers were wrong
/// (a warning) or most of them (bad), so the misses stand out of a table of 100 %.
Line rightCell(int right, int graded)
{
    if (graded == 0)
        return line(u"—"_s);
    const QString count = u"%1/%2 (%3)"_s.arg(right).arg(graded).arg(fmtPercent(double(right) / graded));
    if (right == graded)
        return line(count);
    return {{right * 2 < graded ? Style::Bad : Style::Warn, count}};
}

/// The figure number chartsSection gives the TTFT-vs-prompt-tokens chart, or 0 when it is not shown.
int chartFigure(const Context& cx)
{
    int figure = 0;
    for (const ReportChart& c : cx.in.charts) {
        if (c.source.isEmpty())
            continue;
        ++figure;
        if (c.name == u"ttft-prompt-tokens")
            return figure;
    }
    return 0;
}

void slopeTable(Doc& d, const Context& cx)
{
    const PrefillScaling& p = cx.ev.prefill;
    Block t = table(
        {line(u"Endpoint"_s), line(u"ms per 1K tokens"_s), line(u"95 % interval"_s), line(u"Intercept"_s),
            line(u"r²"_s), line(u"Prompts"_s), line(u"Requests"_s), line(u"Uncached prompt tokens"_s)},
        {false, true, true, true, true, true, true, true});
    QStringList refused;
    for (const EndpointPrefill& e : p.endpoints) {
        const QString span = e.minTokens && e.maxTokens
            ? u"%1 – %2"_s.arg(std::llround(*e.minTokens)).arg(std::llround(*e.maxTokens))
            : u"—"_s;
        if (!e.msPer1kTokens) {
            t.rows.push_back({line(cx.label(e.endpoint)), {italic(u"no slope"_s)}, line(u"—"_s), line(u"—"_s),
                line(u"—"_s), line(QString::number(e.prompts)), line(QString::number(e.requests)),
                line(span)});
            refused << cx.label(e.endpoint) + u": "_s + e.reason;
            continue;
        }
        const QString interval = e.interval
            ? u"%1 – %2"_s.arg(msPer1kText(e.interval->lo), msPer1kText(e.interval->hi))
            : (p.withIntervals ? u"—"_s : u"not computed"_s);
        t.rows.push_back({line(cx.label(e.endpoint)), {bold(msPer1kText(*e.msPer1kTokens))}, line(interval),
            line(e.interceptMs ? fmtMetric(Metric::TtftAny, *e.interceptMs) : u"—"_s),
            line(e.r2 ? number(*e.r2, 3) : u"—"_s), line(QString::number(e.prompts)),
            line(QString::number(e.requests)), line(span)});
    }
    d.push_back(std::move(t));
    std::vector<Line> notes;
    for (const QString& r : refused)
        notes.push_back(line(r));
    for (const EndpointPrefill& e : p.endpoints)
        for (const QString& n : e.notes)
            notes.push_back(line(cx.label(e.endpoint) + u": "_s + n));
    bullets(d, std::move(notes));
}

void cacheModes(Doc& d, const Context& cx)
{
    const PrefillScaling& p = cx.ev.prefill;
    std::vector<Line> items;
    for (const SuiteCacheMode& m : p.cacheModes)
        items.push_back({plain(u"Suite "_s), code(m.suite.isEmpty() ? u"?"_s : m.suite),
            plain(u" measured the prefix cache "_s), bold(cacheModeText(m.mode)), plain(u"."_s)});
    for (const EndpointPrefill& e : p.endpoints) {
        const auto share = e.cachedShare();
        if (!share)
            continue;
        items.push_back(
            line(u"%1: %2 of the prompt tokens were served from the prefix cache, as the server "
                 "reported over %3 of its %4 requests."_s.arg(cx.label(e.endpoint), fmtPercent(*share))
                     .arg(e.requestsWithCachedCount)
                     .arg(e.requests)));
    }
    heading(d, 3, u"Prefix cache"_s);
    paragraph(d,
        line(u"Cold: every request starts with a unique salt (and llama-server is sent cache_prompt: false), "
             "so the whole prompt is processed and the slope measures prefill. Warm: the system prompt and "
             "briefing repeat, so a server serves them from its cache after the first request — production's "
             "pattern, whose TTFT follows only the new tokens."_s));
    bullets(d, std::move(items));
}

void correctnessTables(Doc& d, const Context& cx)
{
    const PrefillScaling& p = cx.ev.prefill;
    std::set<int> sizes;
    std::set<double> depths;
    for (const EndpointPrefill& e : p.endpoints) {
        for (const ContextRow& c : e.contexts)
            sizes.insert(c.contextTokens);
        for (const DepthRow& r : e.depths)
            depths.insert(r.depth);
    }
    if (sizes.empty())
        return;
    heading(d, 3, u"Correctness by context length"_s);
    paragraph(d,
        line(u"Answers the expected-answer gate judged right, of those it judged, per nominal context size "
             "(the whole prompt, about that many tokens): does the endpoint still find the fact in a long "
             "briefing?"_s));
    std::vector<Line> header {line(u"Endpoint"_s)};
    for (int s : sizes)
        header.push_back(line(contextSizeText(s)));
    Block t = table(header, std::vector<bool>(header.size(), true));
    t.numeric[0] = false;
    for (const EndpointPrefill& e : p.endpoints) {
        std::vector<Line> r {line(cx.label(e.endpoint))};
        for (int s : sizes) {
            const auto it = std::find_if(e.contexts.begin(), e.contexts.end(),
                [s](const ContextRow& c) { return c.contextTokens == s; });
            r.push_back(it == e.contexts.end() ? line(u"—"_s) : rightCell(it->right, it->graded));
        }
        t.rows.push_back(std::move(r));
    }
    d.push_back(std::move(t));
    if (depths.size() < 2)
        return;
    heading(d, 3, u"Correctness by depth of the fact"_s);
    paragraph(
        d, line(u"Where the fact sat in the briefing: 0 % at its start, 100 % at its end; all sizes."_s));
    std::vector<Line> dheader {line(u"Endpoint"_s)};
    for (double depth : depths)
        dheader.push_back(line(u"%1 %"_s.arg(std::lround(depth * 100))));
    Block dt = table(dheader, std::vector<bool>(dheader.size(), true));
    dt.numeric[0] = false;
    for (const EndpointPrefill& e : p.endpoints) {
        std::vector<Line> r {line(cx.label(e.endpoint))};
        for (double depth : depths) {
            const auto it = std::find_if(
                e.depths.begin(), e.depths.end(), [depth](const DepthRow& x) { return x.depth == depth; });
            r.push_back(it == e.depths.end() ? line(u"—"_s) : rightCell(it->right, it->graded));
        }
        dt.rows.push_back(std::move(r));
    }
    d.push_back(std::move(dt));
}

void perContextTable(Doc& d, const Context& cx)
{
    const PrefillScaling& p = cx.ev.prefill;
    bool any = false;
    bool memory = false;
    for (const EndpointPrefill& e : p.endpoints)
        for (const ContextRow& c : e.contexts) {
            any = true;
            memory = memory || c.memoryPeak.value.has_value();
        }
    if (!any)
        return;
    heading(d, 3, u"TTFT and memory by context length"_s);
    paragraph(d,
        line(memory
                ? u"Medians over the successful requests of each size; prompt tokens as the server counted "
                  "them. Memory: the highest sample of the server's memory while that size's requests "
                  "were in flight (the seeds' \"VRAM at 32K ctx\"); decimal units."_s
                : u"Medians over the successful requests of each size; prompt tokens as the server counted "
                  "them. Memory at each size was not measured: the run scraped no memory gauge (add a "
                  "DCGM or node exporter with metrics=URL)."_s));
    std::vector<Line> header {line(u"Context"_s), line(u"Endpoint"_s), line(u"Prompts"_s),
        line(u"Prompt tokens"_s), line(u"TTFT"_s)};
    if (memory)
        header.push_back(line(u"Memory (peak)"_s));
    std::vector<bool> numeric(header.size(), true);
    numeric[1] = false;
    Block t = table(header, numeric);
    std::set<int> sizes;
    for (const EndpointPrefill& e : p.endpoints)
        for (const ContextRow& c : e.contexts)
            sizes.insert(c.contextTokens);
    for (int s : sizes)
        for (const EndpointPrefill& e : p.endpoints)
            for (const ContextRow& c : e.contexts) {
                if (c.contextTokens != s)
                    continue;
                std::vector<Line> r {line(contextSizeText(s)), line(cx.label(e.endpoint)),
                    line(QString::number(c.prompts)),
                    line(
                        c.medianPromptTokens ? QString::number(std::llround(*c.medianPromptTokens)) : u"—"_s),
                    line(c.medianTtftMs ? fmtMetric(Metric::TtftAny, *c.medianTtftMs) : u"—"_s)};
                if (memory)
                    r.push_back(c.memoryPeak.value
                            ? line(resourceValueText(Criterion::Resource::PeakMemory, *c.memoryPeak.value))
                            : notMeasured());
                t.rows.push_back(std::move(r));
            }
    d.push_back(std::move(t));
}

} // namespace

void contextSection(Doc& d, const Context& cx)
{
    const PrefillScaling& p = cx.ev.prefill;
    if (p.empty() || p.endpoints.empty())
        return;
    heading(d, 2, u"Prompt length and prefill"_s);
    Line intro {plain(u"How the time to the first token grows with the prompt, from "_s
        + sourceWords(p.source)
        + u": an ordinary least-squares line of TTFT (any) on the prompt tokens the server had to process — "
          "the prompt tokens less those it said it served from its prefix cache — over measured, successful "
          "requests. The slope is in ms per 1,000 tokens; "_s)};
    intro.push_back(plain(p.withIntervals ? u"its 95 % interval comes from a bootstrap that resamples "
                                            u"distinct prompts whole (%1 resamples), "
                                            "so repeating a prompt narrows nothing. "_s.arg(p.resamples)
                                          : u"its interval was not computed. "_s));
    intro.push_back(
        plain(u"No slope is given over fewer than 3 distinct prompts or when their token counts span "
              "less than 2×."_s));
    paragraph(d, std::move(intro));
    slopeTable(d, cx);
    if (const int figure = chartFigure(cx))
        paragraph(d,
            {plain(u"Figure %1 (TTFT vs prompt tokens, under Charts) plots one dot per distinct prompt — the "
                   "median of its repeats — and each endpoint's line."_s.arg(figure))});
    cacheModes(d, cx);
    correctnessTables(d, cx);
    perContextTable(d, cx);
}

} // namespace qs::report
