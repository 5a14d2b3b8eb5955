// SPDX-License-Identifier: MIT
#include "model/decide/Report.h"

#include "model/decide/report/Renderers.h"
#include "model/decide/report/Sections.h"

#include <algorithm>

using namespace Qt::StringLiterals;

namespace qs {

namespace {

report::Doc buildDocument(const ReportInput& in)
{
    using namespace report;
    Doc d;
    const Context cx(in);
    titleSection(d, cx);
    summarySection(d, cx);
    endpointsSection(d, cx);
    warningsSection(d, cx);
    methodologySection(d, cx);
    resultsSection(d, cx);
    contextSection(d, cx);
    resourcesSection(d, cx);
    judgedQualitySection(d, cx);
    fidelitySection(d, cx);
    chartsSection(d, cx);
    samplesSection(d, cx);
    checklistSection(d, cx);
    verdictSection(d, cx);
    appendixSection(d, cx);
    return d;
}

/// A chart at the default size, its source left to the caller.
ReportChart chart(const QString& name, const QString& title, const QString& caption)
{
    ReportChart c;
    c.name = name;
    c.title = title;
    c.caption = caption;
    return c;
}

} // namespace

std::vector<ReportChart> reportCharts(const RunResult& result, const Evaluation& evaluation)
{
    std::vector<ReportChart> charts;
    const bool multiTurn = !evaluation.scaling.endpoints.empty();
    if (multiTurn)
        charts.push_back(chart(u"ttft-turn"_s, u"TTFT vs turn"_s,
            u"Median time to the first visible token at each turn of the multi-turn test: how prompt "
            "processing grows with the conversation."_s));
    charts.push_back(chart(u"decode-tps"_s, u"Decode rate per test"_s,
        u"Median decode tok/s per test and endpoint (higher is better)."_s));
    if (multiTurn)
        charts.push_back(chart(u"latency-length"_s, u"Latency vs response length"_s,
            u"Predicted total latency e2e(N) = TTFT + 1000·N / decode rate for answers of N tokens; where "
            "the lines cross, the faster decoder overtakes the faster starter."_s));
    charts.push_back(chart(u"ttft-test"_s, u"TTFT per test"_s,
        u"Median time to the first visible token per test and endpoint (lower is better)."_s));
    // The context sweep always; multi-turn growth when it gave some endpoint a slope (one
    // conversation does not: TTFT vs turn shows it better).
    const PrefillScaling& prefill = evaluation.prefill;
    const bool anySlope = std::any_of(prefill.endpoints.begin(), prefill.endpoints.end(),
        [](const EndpointPrefill& e) { return e.msPer1kTokens.has_value(); });
    if (prefill.source == PrefillSource::ContextSweep
        || (prefill.source == PrefillSource::MultiTurn && anySlope))
        charts.push_back(chart(u"ttft-prompt-tokens"_s, u"TTFT vs prompt tokens"_s,
            u"Time to the first token against the prompt tokens the server processed, one dot per distinct "
            "prompt (the median of its repeats) and a fitted line per endpoint; the legend gives each "
            "endpoint's ms per 1,000 tokens with its 95 % interval."_s));
    if (!result.telemetry.empty())
        charts.push_back(chart(u"server"_s, u"Server gauges"_s,
            u"What the servers reported while the run went on, on its time axis, one line per endpoint: "
            "requests running and waiting, KV-cache use, memory and power (gaps where a scrape failed)."_s));
    return charts;
}

QString reportTitle(const ReportInput& input)
{
    if (!input.result || input.result->endpoints.empty())
        return u"Quantscope report"_s;
    const RunResult& r = *input.result;
    const int base = input.evaluation ? input.evaluation->baseline : 0;
    QStringList candidates;
    for (int i = 0; i < int(r.endpoints.size()); ++i)
        if (i != base)
            candidates << r.endpoints[std::size_t(i)].endpoint.displayName();
    const QString baseline
        = r.endpoints[std::size_t(std::clamp(base, 0, int(r.endpoints.size()) - 1))].endpoint.displayName();
    if (candidates.isEmpty())
        return baseline + u": benchmark report"_s;
    return candidates.join(u", "_s) + u" vs "_s + baseline;
}

QString reportMarkdown(const ReportInput& input)
{
    Q_ASSERT(input.result && input.evaluation);
    return report::renderMarkdown(buildDocument(input));
}

QString reportHtml(const ReportInput& input, HtmlFlavor flavor)
{
    Q_ASSERT(input.result && input.evaluation);
    return report::renderHtml(buildDocument(input), reportTitle(input), flavor);
}

QString markRanges(const QString& text, std::vector<std::pair<int, int>> ranges)
{
    QString out;
    for (const auto& [segment, failing] : report::segmentsOf(text, std::move(ranges)))
        out += failing ? u"«"_s + segment + u"»"_s : segment;
    return out;
}

} // namespace qs
