// SPDX-License-Identifier: MIT
#include "model/decide/VerdictSummary.h"
#include "model/decide/report/ReportText.h"
#include "model/decide/report/Sections.h"

#include <algorithm>

using namespace Qt::StringLiterals;

namespace qs::report {

void titleSection(Doc& d, const Context& cx)
{
    heading(d, 1, reportTitle(cx.in));
    const QString suiteName = field(cx.run.suite, "name", field(cx.run.suite, "id", u"?"_s));
    Line meta {bold(u"Date: "_s),
        plain(cx.in.generatedAt.isValid() ? cx.in.generatedAt.toUTC().toString(u"yyyy-MM-dd HH:mm 'UTC'"_s)
                                          : u"unknown"_s),
        plain(u" · "_s), bold(u"Run: "_s),
        plain((cx.run.startedAt.isValid() ? cx.run.startedAt.toUTC().toString(u"yyyy-MM-dd HH:mm 'UTC'"_s)
                                          : u"date unknown"_s)
            + u" on "_s + (cx.run.host.isEmpty() ? u"an unnamed host"_s : cx.run.host)),
        plain(u" · "_s), bold(u"Suite: "_s), plain(suiteName), plain(u" · "_s), bold(u"Decision profile: "_s),
        plain(cx.in.profile.name.isEmpty() ? cx.in.profile.id : cx.in.profile.name)};
    paragraph(d, meta);
    if (!cx.in.sources.isEmpty())
        paragraph(d,
            {bold(u"Results: "_s), plain(cx.in.sources.join(u", "_s)), plain(u" · written by "_s),
                plain(cx.in.generator)});
    if (!cx.run.complete)
        paragraph(d,
            {bold(u"This run is INCOMPLETE"_s),
                plain(u" (cancelled or recovered from a journal): some tests have fewer runs than planned."_s
                    + (cx.run.note.isEmpty() ? QString() : u" "_s + cx.run.note))});
}

void summarySection(Doc& d, const Context& cx)
{
    // The answer first: a reader who stops at page 1 must not come away with more than the data
    // says, nor with less than the reasons.
    heading(d, 2, u"Summary"_s);
    if (cx.in.recommendations.empty()) {
        paragraph(
            d, line(u"No recommendation: a recommendation needs a baseline and at least one candidate."_s));
        return;
    }
    for (const Recommendation& r : cx.in.recommendations) {
        if (cx.in.recommendations.size() > 1)
            heading(d, 3, r.candidateLabel + u" vs "_s + r.baselineLabel);
        const VerdictSummary s = summarizeVerdict(r);
        Block verdict;
        verdict.kind = Block::Kind::Callout;
        verdict.level = r.decision == Recommendation::Decision::Switch ? 3
            : r.decision == Recommendation::Decision::KeepBaseline     ? 2
                                                                       : 1;
        verdict.text = {bold(u"Recommendation: "_s), {decisionStyle(r.decision), decisionWord(r.decision)},
            plain(u" — "_s + s.sentence)};
        verdict.items.push_back({italic(u"Criteria of the profile: "_s), plain(s.counts())});
        d.push_back(std::move(verdict));
        if (!s.deciding.empty()) {
            Block t
                = table({line(s.decidingTitle), line(u"Measured"_s), line(u"Required"_s), line(u"Result"_s)},
                    {false, false, false, false});
            for (int i : s.deciding) {
                const CriterionResult& c = r.criteria[std::size_t(i)];
                t.rows.push_back({line(c.criterion.title.isEmpty() ? c.criterion.id : c.criterion.title),
                    line(c.measured), line(c.required), {outcomeCell(c.outcome)}});
            }
            d.push_back(std::move(t));
            if (s.moreDeciding > 0)
                paragraph(d,
                    line(u"… and %1 more: every criterion is in the Verdict section."_s.arg(s.moreDeciding)));
        }
        if (!r.caveats.isEmpty())
            paragraph(d, {bold(u"Not a fair comparison: "_s), plain(r.caveats.join(u"; "_s))});
        if (!r.whatWouldChange.isEmpty())
            paragraph(d, {bold(u"What would change it first: "_s), plain(r.whatWouldChange.front())});
        paragraph(d, {italic(errorRateStatement(r))});
    }
    int warnings = 0;
    int critical = 0;
    for (const Guardrail& g : cx.ev.guardrails) {
        warnings += g.severity == Guardrail::Severity::Warning ? 1 : 0;
        critical += g.severity == Guardrail::Severity::Critical ? 1 : 0;
    }
    if (warnings + critical > 0) {
        QStringList titles;
        for (const Guardrail& g : cx.ev.guardrails)
            if (g.severity != Guardrail::Severity::Info)
                titles << g.title;
        QStringList counts;
        if (critical > 0)
            counts << u"%1 critical"_s.arg(critical);
        if (warnings > 0)
            counts << plural(warnings, u"warning"_s, u"warnings"_s);
        paragraph(d,
            {bold(u"Methodology: "_s + counts.join(u" and "_s) + u": "_s),
                plain(titles.join(u"; "_s) + u" (each with its evidence under \"Read this first\")."_s)});
    }
}

void endpointsSection(Doc& d, const Context& cx)
{
    heading(d, 2, u"Endpoints compared"_s);
    std::vector<Line> header {line(QString())};
    std::vector<int> order {cx.ev.baseline};
    for (int i = 0; i < int(cx.run.endpoints.size()); ++i)
        if (i != cx.ev.baseline)
            order.push_back(i);
    for (int i : order)
        header.push_back({bold(cx.label(i)),
            plain(i == cx.ev.baseline ? u" (baseline)"_s
                                      : (cx.run.endpoints.size() > 1 ? u" (candidate)"_s : QString()))});
    Block t = table(header, {});
    const auto row = [&](const QString& name, const std::function<QString(const RunEndpoint&)>& value) {
        std::vector<Line> r {{bold(name)}};
        for (int i : order) {
            const QString v = value(cx.run.endpoints[std::size_t(i)]);
            r.push_back(line(v.isEmpty() ? u"—"_s : v));
        }
        t.rows.push_back(std::move(r));
    };
    row(u"Model"_s, [](const RunEndpoint& e) -> QString {
        return e.endpoint.model.isEmpty() ? field(e.probe, "model") : e.endpoint.model;
    });
    row(u"Quantization"_s, quantizationOf);
    row(u"Runtime"_s, [](const RunEndpoint& e) -> QString {
        const QString probed = probeString(e, "runtime");
        return probed.isEmpty() ? runtimeName(e.endpoint.runtime) : probed;
    });
    row(u"Server version"_s, [](const RunEndpoint& e) { return probeString(e, "server_version"); });
    row(u"Context"_s, [](const RunEndpoint& e) -> QString {
        const auto it = e.probe.find("context_size");
        if (it == e.probe.end() || !it->is_number())
            return QString();
        return QString::number(it->get<qint64>()) + u" tokens"_s;
    });
    row(u"Model file"_s, [](const RunEndpoint& e) { return probeString(e, "model_path"); });
    row(u"Parsers"_s, [](const RunEndpoint& e) -> QString {
        QStringList p;
        if (const QString r = probeString(e, "reasoning_parser"); !r.isEmpty())
            p << u"reasoning: "_s + r;
        if (const QString tc = probeString(e, "tool_call_parser"); !tc.isEmpty())
            p << u"tools: "_s + tc;
        return p.join(u", "_s);
    });
    row(u"Endpoint"_s, [](const RunEndpoint& e) -> QString {
        return e.simulated ? e.spec + u" — SIMULATED, no model ran"_s : e.endpoint.baseUrl.toString();
    });
    d.push_back(std::move(t));
}

void warningsSection(Doc& d, const Context& cx)
{
    heading(d, 2, u"Read this first: methodology warnings"_s);
    if (cx.ev.guardrails.empty()) {
        paragraph(d,
            line(u"No methodology warnings: the arms ran the same model modulo quantization, on the same "
                 "runtime and settings, with warm-ups, enough runs and server token counts."_s));
        return;
    }
    paragraph(
        d, line(u"Each warning names a way this comparison could mislead, with the numbers that show it."_s));
    for (const Guardrail& g : cx.ev.guardrails) {
        Block b;
        b.kind = Block::Kind::Callout;
        switch (g.severity) {
        case Guardrail::Severity::Critical:
            b.level = 2;
            b.text = {bold(u"NOT an apples-to-apples comparison: "_s + g.title)};
            break;
        case Guardrail::Severity::Warning:
            b.level = 1;
            b.text = {bold(u"Warning: "_s), plain(g.title)};
            break;
        case Guardrail::Severity::Info:
            b.level = 0;
            b.text = {bold(u"Note: "_s), plain(g.title)};
            break;
        }
        if (!g.evidence.isEmpty())
            b.items.push_back({italic(u"Evidence: "_s), plain(g.evidence)});
        if (!g.advice.isEmpty())
            b.items.push_back({italic(u"What to do: "_s), plain(g.advice)});
        d.push_back(std::move(b));
    }
}

} // namespace qs::report
