// SPDX-License-Identifier: MIT
#include "model/decide/report/ReportText.h"
#include "model/decide/report/Sections.h"

using namespace Qt::StringLiterals;

namespace qs::report {

namespace {

QString expectationText(const SuiteTest& t)
{
    QStringList parts;
    if (!t.expect.answerPatterns.isEmpty())
        parts << u"answer contains "_s + t.expect.answerPatterns.join(u" or "_s);
    if (t.expect.tool)
        parts << u"calls "_s + t.expect.tool->name + u"("_s + t.expect.tool->requiredArguments.join(u", "_s)
                + u")"_s;
    if (t.expect.noTool)
        parts << u"calls no tool"_s;
    if (t.expect.maxWords)
        parts << u"≤ "_s + QString::number(*t.expect.maxWords) + u" words"_s;
    if (t.expect.maxSentences)
        parts << u"≤ "_s + QString::number(*t.expect.maxSentences) + u" sentences"_s;
    return parts.join(u"; "_s);
}

QString thinkingText(std::optional<bool> thinking)
{
    if (!thinking)
        return u"not set (the server's default)"_s;
    return *thinking ? u"on (chat_template_kwargs.enable_thinking = true)"_s
                     : u"off (chat_template_kwargs.enable_thinking = false)"_s;
}

} // namespace

void methodologySection(Doc& d, const Context& cx)
{
    heading(d, 2, u"Methodology"_s);
    const RunSettings& s = cx.run.settings;
    if (cx.suite) {
        const Suite& suite = *cx.suite;
        paragraph(d,
            {bold(u"Suite. "_s), plain(suite.name + u" ("_s), code(suite.id), plain(u"): "_s),
                plain(suite.description)});
        Block t = table({line(u"Test"_s), line(u"Category"_s), line(u"Turns"_s), line(u"A good answer"_s),
                            line(u"Warm-up"_s), line(u"Runs"_s)},
            {false, false, true, false, true, true});
        for (const SuiteTest& test : suite.tests) {
            const int warm = s.warmup >= 0 ? s.warmup : test.warmup.value_or(suite.defaults.warmup);
            const int runs = s.runs >= 0 ? s.runs : test.runs.value_or(suite.defaults.runs);
            t.rows.push_back({line(test.name), line(test.category), line(QString::number(test.turnCount())),
                line(expectationText(test)), line(QString::number(warm)), line(QString::number(runs))});
        }
        d.push_back(std::move(t));
    }
    const ResultSummary& sum = cx.ev.summary;
    std::vector<Line> items;
    items.push_back({bold(u"Runs. "_s),
        plain(plural(sum.records, u"request"_s, u"requests"_s) + u" in the file: "_s
            + plural(sum.warmups, u"warm-up"_s, u"warm-ups"_s)
            + u" (their own prompts, never measured; they absorb cold starts) and "_s
            + QString::number(sum.records - sum.warmups) + u" measured, of which "_s
            + plural(sum.failures, u"failed"_s, u"failed"_s) + u". Warm-up runs per test: "_s
            + (s.warmup >= 0 ? QString::number(s.warmup) + u" (set for this run)"_s : u"the suite's"_s)
            + u"; measured runs per test: "_s
            + (s.runs >= 0 ? QString::number(s.runs) + u" (set for this run)"_s : u"the suite's"_s)
            + u"."_s)});
    std::optional<bool> thinking;
    if (cx.suite)
        thinking = cx.suite->defaults.thinking;
    items.push_back({bold(u"Thinking. "_s), plain(thinkingText(thinking) + u"."_s)});
    items.push_back({bold(u"Order. "_s), code(runOrderId(s.order)),
        plain(s.order == RunOrder::Interleaved
                ? u": per test, the arms alternate A B, B A, … so drift hits every arm alike (seed "_s
                    + QString::number(s.seed) + u")."_s
                : s.order == RunOrder::Sequential
                ? u": all of one arm, then all of the next (drift over time can favour one arm)."_s
                : u": every arm at once, each in its own lane (fair only for arms on separate machines)."_s)});
    items.push_back({bold(u"Load. "_s),
        plain(u"Concurrency "_s + QString::number(s.concurrency)
            + (s.maxTokens ? u"; max_tokens "_s + QString::number(*s.maxTokens) + u" for every request"_s
                           : u"; max_tokens from the suite ("_s
                        + (cx.suite ? QString::number(cx.suite->defaults.maxTokens) : u"?"_s)
                        + u" by default)"_s)
            + (cx.suite && cx.suite->defaults.temperature
                    ? u"; temperature "_s + QString::number(*cx.suite->defaults.temperature)
                    : QString())
            + u"."_s)});
    // Token counts: where each arm's completion_tokens came from, counted, not assumed.
    QStringList sources;
    for (int e = 0; e < int(cx.run.endpoints.size()); ++e) {
        std::map<QString, int> n;
        for (const RunRecord& r : cx.run.records)
            if (r.endpoint == e && !r.warmup && r.request.ok())
                ++n[countSourceId(r.request.metrics.completionTokens.source)];
        QStringList parts;
        for (const auto& [src, count] : n)
            parts << QString::number(count) + u" from "_s + src;
        sources << cx.label(e) + u": "_s + (parts.isEmpty() ? u"none"_s : parts.join(u", "_s));
    }
    items.push_back({bold(u"Token counts. "_s),
        plain(u"completion_tokens from the server's usage object when it sends one (llama-server timings "
              "next), else an estimate from the number of token-bearing events, flagged as such — never "
              "len(text)/4. "_s
            + sources.join(u"; "_s) + u"."_s)});
    const BootstrapOptions& bo = cx.ev.comparison.options.bootstrap;
    items.push_back({bold(u"Statistics. "_s),
        plain(u"Medians are type-7 percentiles over successful measured requests. Arms are compared in "
              "pairs (the same test, turn and run on both); intervals are 95 % percentile bootstrap over "_s
            + QString::number(bo.resamples)
            + u" resamples within each test and turn (fixed seed, so the same data gives the same interval). "
              "A winner is named only when the interval excludes no difference and there are at least "_s
            + QString::number(cx.ev.comparison.options.minPairs)
            + u" pairs; Wilcoxon signed-rank p-values are reported beside it. Gates: McNemar exact test and "
              "Newcombe's interval for the paired difference of pass rates."_s)});
    bullets(d, items);

    heading(d, 3, u"Metric definitions"_s);
    Block t = table({line(u"Metric"_s), line(u"Formula"_s), line(u"What it means"_s)}, {});
    const auto def = [&](const QString& name, const QString& formula, const QString& meaning) {
        t.rows.push_back({{code(name)}, {code(formula)}, line(meaning)});
    };
    def(u"ttft_visible_ms"_s, u"t(first visible content or tool-call event) − t0"_s,
        u"What a listener waits for. Leaked thinking and whitespace are not visible."_s);
    def(u"ttft_any_ms"_s, u"t(first token-bearing event) − t0"_s,
        u"First token of any kind, thinking included; role-only chunks never count."_s);
    def(u"first_sentence_ms"_s, u"t(event completing the first sentence) − t0"_s,
        u"When text-to-speech can start speaking."_s);
    def(u"e2e_ms"_s, u"t(last token-bearing event) − t0"_s, u"Total latency of the answer."_s);
    def(u"decode_tps"_s, u"(completion_tokens − 1) / ((e2e_ms − ttft_any_ms) / 1000)"_s,
        u"Decode rate after the first token, reasoning tokens included."_s);
    def(u"ratio"_s, u"median(c) / median(b); median(cᵢ / bᵢ) in pooled rows"_s,
        u"Candidate over baseline: below 1 the candidate is lower (faster for latencies)."_s);
    def(u"crossover"_s, u"N* = (TTFT_b − TTFT_a) / (1000/r_a − 1000/r_b)"_s,
        u"Answer length in tokens at which the faster decoder overtakes the faster starter."_s);
    if (!cx.ev.summary.throughput.empty())
        def(u"throughput"_s, u"Σ completion_tokens / (last token − first t0)"_s,
            u"Aggregate output tokens per second of one concurrency level."_s);
    d.push_back(std::move(t));
    paragraph(d,
        {plain(u"Times are milliseconds from t0, the moment the request bytes were written to the "
               "socket, on a monotonic clock. Full definitions: "_s),
            code(u"docs/methodology.md"_s), plain(u"."_s)});
}

} // namespace qs::report
