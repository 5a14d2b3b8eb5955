// SPDX-License-Identifier: MIT
#include "model/decide/report/ReportText.h"
#include "model/decide/report/Sections.h"
#include "model/gates/QualityGates.h"

#include <algorithm>

using namespace Qt::StringLiterals;

namespace qs::report {

namespace {

/// The row of `arm` for one metric and test (turn 0 = all turns), if compared.
const MetricComparison* findRow(const ArmComparison& arm, Metric metric, const QString& test, int turn = 0)
{
    for (const MetricComparison& m : arm.metrics)
        if (m.metric == metric && m.test == test && m.turn == turn)
            return &m;
    return nullptr;
}

/// A table of one metric: one row per test, then all tests pooled.
void metricTable(Doc& d, const Context& cx, const ArmComparison& arm, Metric metric, bool withDifference)
{
    const auto f = [metric](double v) { return fmtMetric(metric, v); };
    std::vector<Line> header {line(u"Test"_s), line(u"Pairs"_s), line(arm.baselineLabel + u" p50"_s),
        line(arm.candidateLabel + u" p50"_s), line(u"Ratio"_s), line(u"95 % CI"_s)};
    std::vector<bool> numeric {false, true, true, true, true, true};
    if (withDifference) {
        header.push_back(line(u"Δ median"_s));
        numeric.push_back(true);
    }
    header.push_back(line(u"Winner"_s));
    Block t = table(header, numeric);
    QStringList rowTests = cx.tests;
    rowTests << QString(); // pooled last, as a total
    for (const QString& test : rowTests) {
        const MetricComparison* m = findRow(arm, metric, test);
        if (!m)
            continue;
        std::vector<Line> r;
        r.push_back(test.isEmpty() ? Line {bold(u"All tests"_s)} : line(cx.testName(test)));
        r.push_back(line(QString::number(m->pairs)));
        r.push_back(line(m->pairs > 0 ? f(m->baselineMedian) : u"—"_s));
        r.push_back(line(m->pairs > 0 ? f(m->candidateMedian) : u"—"_s));
        r.push_back(line(m->ratio ? fmtRatio(*m->ratio) : u"—"_s));
        r.push_back(line(fmtRange(m->ratioCi, fmtRatioNumber)));
        if (withDifference)
            r.push_back(line(m->pairs > 0 ? fmtSigned(metric, m->medianDifference) : u"—"_s));
        r.push_back(winnerCell(cx, m->verdict, m->winner, m->pairs, cx.ev.comparison.options.minPairs));
        t.rows.push_back(std::move(r));
    }
    if (t.rows.empty()) {
        paragraph(d, line(u"No pairs measured this metric."_s));
        return;
    }
    d.push_back(std::move(t));
}

/// True when thinking makes TTFT (any) and TTFT (visible) tell different stories.
bool ttftDiffers(const ArmComparison& arm)
{
    for (const MetricComparison& any : arm.metrics) {
        if (any.metric != Metric::TtftAny || any.pairs == 0)
            continue;
        for (const MetricComparison& vis : arm.metrics)
            if (vis.metric == Metric::TtftVisible && vis.test == any.test && vis.turn == any.turn
                && vis.pairs > 0) {
                const auto differs
                    = [](double a, double b) { return std::abs(a - b) > 0.02 * std::max(a, b); };
                if (differs(any.baselineMedian, vis.baselineMedian)
                    || differs(any.candidateMedian, vis.candidateMedian))
                    return true;
            }
    }
    return false;
}

void gatesTables(Doc& d, const Context& cx, const ArmComparison& arm)
{
    Block t = table({line(u"Gate"_s), line(arm.baselineLabel), line(arm.candidateLabel),
                        line(u"Difference"_s), line(u"95 % CI"_s), line(u"McNemar p"_s), line(u"Winner"_s)},
        {false, true, true, true, true, true, false});
    for (const QString& gate : gateNames()) {
        const auto b = cx.gateTotal(arm.baseline, gate);
        const auto c = cx.gateTotal(arm.candidate, gate);
        if (b.second == 0 && c.second == 0)
            continue;
        const GateComparison* g = nullptr;
        for (const GateComparison& x : arm.gates)
            if (x.gate == gate && x.test.isEmpty())
                g = &x;
        if (!g) // one test only judged it: its own row is the total
            for (const GateComparison& x : arm.gates)
                if (x.gate == gate)
                    g = &x;
        const auto count = [](std::pair<int, int> pa) -> QString {
            return pa.second == 0
                ? u"—"_s
                : gateCount(pa) + u" ("_s + fmtPercent(double(pa.first) / pa.second) + u")"_s;
        };
        const auto countLine = [&](std::pair<int, int> pa) {
            Line l;
            l.push_back({pa.second > 0 && pa.first < pa.second ? Style::Bold : Style::Plain, count(pa)});
            return l;
        };
        const auto pct = [](double v) -> QString { return (v > 0 ? u"+"_s : QString()) + fmtPercent(v); };
        std::vector<Line> r {line(gateTitle(gate)), countLine(b), countLine(c)};
        if (g && g->pairs > 0) {
            r.push_back(line(pct(g->difference)));
            r.push_back(line(fmtRange(g->differenceCi, pct)));
            r.push_back(line(fmtP(g->mcnemarP)));
            r.push_back(winnerCell(cx, g->verdict, g->winner, g->pairs, cx.ev.comparison.options.minPairs));
        } else {
            r.push_back(line(u"—"_s));
            r.push_back(line(u"—"_s));
            r.push_back(line(u"—"_s));
            r.push_back({italic(u"not compared"_s)});
        }
        t.rows.push_back(std::move(r));
    }
    if (t.rows.empty()) {
        paragraph(d, line(u"No quality gate was judged."_s));
        return;
    }
    paragraph(d,
        line(u"Passed / judged over every measured request of every test (a gate that does not apply to "
             "a test is not counted). Difference = candidate pass rate − baseline pass rate."_s));
    d.push_back(std::move(t));

    // Where and why: the failures per test, with the reasons they share.
    Block w = table({line(u"Test"_s), line(u"Gate"_s), line(arm.baselineLabel), line(arm.candidateLabel),
                        line(u"Why they failed"_s)},
        {false, false, true, true, false});
    for (const QString& test : cx.tests) {
        const CellStatistics* cb = cx.cell(arm.baseline, test);
        const CellStatistics* cc = cx.cell(arm.candidate, test);
        for (const QString& gate : gateNames()) {
            const auto get = [&](const CellStatistics* c) {
                if (!c)
                    return std::pair<int, int> {0, 0};
                const auto it = c->gates.find(gate);
                return it == c->gates.end() ? std::pair<int, int> {0, 0} : it->second;
            };
            const auto pb = get(cb);
            const auto pc = get(cc);
            if (pb.first == pb.second && pc.first == pc.second)
                continue;
            QStringList why;
            for (int e : {arm.baseline, arm.candidate}) {
                const auto it = cx.ev.gateFailures.find({e, test, gate});
                if (it == cx.ev.gateFailures.end())
                    continue;
                QStringList kinds;
                for (const auto& [kind, countExample] : it->second.reasons)
                    kinds << kind + u" ×"_s + QString::number(countExample.first);
                why << cx.label(e) + u": "_s + kinds.join(u", "_s);
            }
            w.rows.push_back(
                {line(cx.testName(test)), line(gateTitle(gate)), line(pb.second ? gateCount(pb) : u"—"_s),
                    line(pc.second ? gateCount(pc) : u"—"_s), line(why.join(u"; "_s))});
        }
    }
    if (!w.rows.empty()) {
        heading(d, 4, u"Where the gates failed"_s);
        d.push_back(std::move(w));
    }
}

void turnsTables(Doc& d, const Context& cx, const ArmComparison& arm)
{
    for (const QString& test : cx.tests) {
        if (!cx.multiTurn.contains(test))
            continue;
        heading(d, 4, cx.testName(test) + u": TTFT (visible) per turn"_s);
        Block t = table({line(u"Turn"_s), line(u"Pairs"_s), line(arm.baselineLabel + u" p50"_s),
                            line(arm.candidateLabel + u" p50"_s), line(u"Ratio"_s), line(u"95 % CI"_s),
                            line(u"Winner"_s)},
            {true, true, true, true, true, true, false});
        for (int turn = 1; turn < 100; ++turn) {
            const MetricComparison* m = findRow(arm, Metric::TtftVisible, test, turn);
            if (!m)
                continue;
            t.rows.push_back({line(QString::number(turn)), line(QString::number(m->pairs)),
                line(m->pairs ? fmtMetric(Metric::TtftVisible, m->baselineMedian) : u"—"_s),
                line(m->pairs ? fmtMetric(Metric::TtftVisible, m->candidateMedian) : u"—"_s),
                line(m->ratio ? fmtRatio(*m->ratio) : u"—"_s), line(fmtRange(m->ratioCi, fmtRatioNumber)),
                winnerCell(cx, m->verdict, m->winner, m->pairs, cx.ev.comparison.options.minPairs)});
        }
        if (!t.rows.empty())
            d.push_back(std::move(t));
        std::vector<Line> notes;
        for (const EndpointScaling& s : cx.ev.scaling.endpoints)
            if (s.test == test && (s.endpoint == arm.baseline || s.endpoint == arm.candidate)
                && !s.sentence.isEmpty())
                notes.push_back(line(s.sentence));
        for (const PairCrossover& p : cx.ev.scaling.pairs) {
            if (p.test != test
                || !((p.first == arm.baseline && p.second == arm.candidate)
                    || (p.first == arm.candidate && p.second == arm.baseline)))
                continue;
            if (!p.sentence.isEmpty())
                notes.push_back(line(p.sentence));
            for (const LengthOutlook& l : p.lengths)
                if (!l.typical && !l.sentence.isEmpty())
                    notes.push_back(line(l.sentence));
        }
        bullets(d, notes);
    }
}

void throughputTable(Doc& d, const Context& cx)
{
    const std::vector<ThroughputRow>& rows = cx.ev.summary.throughput;
    if (rows.empty())
        return;
    heading(d, 3, u"Throughput by concurrency"_s);
    const int n = int(cx.run.endpoints.size());
    std::vector<Line> header {line(u"Test"_s), line(u"Concurrency"_s)};
    for (int e = 0; e < n; ++e)
        header.push_back(line(cx.label(e) + u" tok/s"_s));
    for (int e = 0; e < n; ++e)
        if (e != cx.ev.baseline)
            header.push_back(line(u"Ratio "_s + cx.label(e)));
    header.push_back(line(u"Highest"_s));
    Block t = table(header, std::vector<bool>(header.size(), true));
    t.numeric[0] = false;
    t.numeric.back() = false;
    std::map<std::pair<QString, int>, std::map<int, double>> grid;
    std::vector<std::pair<QString, int>> keys;
    for (const ThroughputRow& r : rows) {
        const std::pair<QString, int> key {r.test, r.concurrency};
        if (!grid.count(key))
            keys.push_back(key);
        grid[key][r.endpoint] = r.outputTokensPerSecond;
    }
    for (const auto& key : keys) {
        const auto& values = grid[key];
        std::vector<Line> r {line(cx.testName(key.first)), line(QString::number(key.second))};
        int best = -1;
        for (int e = 0; e < n; ++e) {
            const auto it = values.find(e);
            r.push_back(line(it == values.end() ? u"—"_s : number(it->second, 1)));
            if (it != values.end() && (best < 0 || it->second > values.at(best)))
                best = e;
        }
        const auto base = values.find(cx.ev.baseline);
        for (int e = 0; e < n; ++e) {
            if (e == cx.ev.baseline)
                continue;
            const auto it = values.find(e);
            r.push_back(line(it != values.end() && base != values.end() && base->second > 0
                    ? fmtRatio(it->second / base->second)
                    : u"—"_s));
        }
        r.push_back(best >= 0 ? Line {bold(cx.label(best))} : line(u"—"_s));
        t.rows.push_back(std::move(r));
    }
    d.push_back(std::move(t));
    paragraph(
        d, line(u"Aggregate output tokens per second of each level; one run per level, so no interval."_s));
}

} // namespace

void resultsSection(Doc& d, const Context& cx)
{
    heading(d, 2, u"Results"_s);
    if (cx.ev.comparison.arms.empty()) {
        paragraph(d,
            line(cx.ev.hasComparison || cx.run.endpoints.size() < 2
                    ? u"Only one endpoint: there is nothing to compare."_s
                    : u"The paired comparison was not computed."_s));
    }
    paragraph(d,
        line(u"Medians over measured runs. Ratio = candidate / baseline with its 95 % bootstrap "
             "interval; a winner is named only where the interval excludes no difference."_s));
    for (const ArmComparison& arm : cx.ev.comparison.arms) {
        if (cx.ev.comparison.arms.size() > 1)
            heading(d, 3, arm.candidateLabel + u" vs "_s + arm.baselineLabel);
        const int n = arm.matched;
        paragraph(d,
            line(plural(n, u"request was"_s, u"requests were"_s) + u" measured on both arms; "_s
                + QString::number(arm.pairedOk) + u" succeeded on both"_s
                + (arm.failedPairs ? u", "_s + QString::number(arm.failedPairs) + u" failed on at least one"_s
                                   : QString())
                + u"."_s));
        const bool any = ttftDiffers(arm);
        heading(d, 3, u"Time to first visible token"_s);
        metricTable(d, cx, arm, Metric::TtftVisible, false);
        if (any) {
            heading(d, 3, u"Time to first token of any kind (thinking included)"_s);
            paragraph(d,
                line(u"Shown because thinking makes it differ from the visible TTFT: do not compare "
                     "these across arms as if they were answer latencies."_s));
            metricTable(d, cx, arm, Metric::TtftAny, false);
        }
        heading(d, 3, u"Decode rate"_s);
        metricTable(d, cx, arm, Metric::DecodeTps, false);
        heading(d, 3, u"Total latency"_s);
        metricTable(d, cx, arm, Metric::E2e, true);
        const MetricComparison* tokens = findRow(arm, Metric::CompletionTokens, QString());
        if (tokens && tokens->pairs > 0)
            paragraph(d,
                line(u"Answer length drives total latency: median "_s
                    + fmtMetric(Metric::CompletionTokens, tokens->candidateMedian) + u" for "_s
                    + arm.candidateLabel + u" against "_s
                    + fmtMetric(Metric::CompletionTokens, tokens->baselineMedian) + u" for "_s
                    + arm.baselineLabel + u" (paired ratio "_s
                    + (tokens->ratio ? fmtRatio(*tokens->ratio) + fmtInterval(tokens->ratioCi, fmtRatioNumber)
                                     : u"—"_s)
                    + u")."_s));
        if (!cx.multiTurn.empty()) {
            heading(d, 3, u"Multi-turn TTFT"_s);
            turnsTables(d, cx, arm);
        }
        heading(d, 3, u"Quality gates"_s);
        gatesTables(d, cx, arm);
    }
    throughputTable(d, cx);
}

void chartsSection(Doc& d, const Context& cx)
{
    int n = 0;
    for (const ReportChart& c : cx.in.charts)
        n += c.source.isEmpty() ? 0 : 1;
    if (n == 0)
        return;
    heading(d, 2, u"Charts"_s);
    int figure = 0;
    for (const ReportChart& c : cx.in.charts) {
        if (c.source.isEmpty())
            continue;
        Block b;
        b.kind = Block::Kind::Image;
        b.raw = c.source;
        b.alt = c.title;
        b.width = c.width;
        b.height = c.height;
        b.text = {bold(u"Figure "_s + QString::number(++figure) + u". "_s + c.title + u"."_s),
            plain(c.caption.isEmpty() ? QString() : u" "_s + c.caption)};
        d.push_back(std::move(b));
    }
}

} // namespace qs::report
