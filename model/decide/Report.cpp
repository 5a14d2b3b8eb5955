// SPDX-License-Identifier: MIT
#include "model/decide/Report.h"

#include "model/core/Suite.h"
#include "model/gates/QualityGates.h"
#include "model/store/ResultFile.h"

#include <QRegularExpression>
#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <optional>
#include <set>

using namespace Qt::StringLiterals;

namespace qs {

/// markdownEscape(); `blockStart` = false for text in the middle of a line or in a table cell,
/// where "12." or "-" cannot open a list.
QString escapeMarkdown(const QString& text, bool blockStart);

namespace {

// ---------------------------------------------------------------------------------------------
// A tiny document model: the content is written once and rendered twice (Markdown, HTML), so the
// two formats can never disagree on a number. Every piece of text is stored raw and escaped by
// the renderer, which is what keeps model output from ever being interpreted.

enum class Style { Plain, Bold, Italic, Code, Good, Bad, Warn, Mark };
struct Inline {
    Style style = Style::Plain;
    QString text;
};
using Line = std::vector<Inline>;

Inline plain(const QString& t)
{
    return {Style::Plain, t};
}
Inline bold(const QString& t)
{
    return {Style::Bold, t};
}
Inline italic(const QString& t)
{
    return {Style::Italic, t};
}
Inline code(const QString& t)
{
    return {Style::Code, t};
}
Line line(const QString& t)
{
    return {plain(t)};
}

/// One side of a sample pair.
struct SampleSide {
    QString heading; ///< endpoint label
    QString where; ///< "turn 3, run 2"
    Line verdict; ///< "Failed: …" or "All gates passed"
    std::vector<std::pair<QString, bool>> segments; ///< answer text; true = a failing span
    QStringList toolCalls; ///< "name(arguments)"
    QStringList notes; ///< failed gates' reasons, truncation, reasoning field
};

struct Block {
    enum class Kind { Heading, Paragraph, Bullets, Table, Image, Code, Samples, Callout };
    Kind kind = Kind::Paragraph;
    int level = 2; ///< heading level; callout severity (0 info, 1 warning, 2 critical)
    Line text; ///< heading, paragraph, callout title, image caption
    std::vector<Line> items; ///< bullets; callout body
    std::vector<Line> header; ///< table
    std::vector<std::vector<Line>> rows;
    std::vector<bool> numeric; ///< right-aligned columns
    QString raw; ///< code block text; image source
    QString alt; ///< image alt text; code language
    int width = 0;
    int height = 0;
    SampleSide sides[2];
};
using Doc = std::vector<Block>;

void heading(Doc& d, int level, const QString& text)
{
    Block b;
    b.kind = Block::Kind::Heading;
    b.level = level;
    b.text = line(text);
    d.push_back(std::move(b));
}
void paragraph(Doc& d, Line text)
{
    Block b;
    b.kind = Block::Kind::Paragraph;
    b.text = std::move(text);
    d.push_back(std::move(b));
}
void bullets(Doc& d, std::vector<Line> items)
{
    if (items.empty())
        return;
    Block b;
    b.kind = Block::Kind::Bullets;
    b.items = std::move(items);
    d.push_back(std::move(b));
}
void codeBlock(Doc& d, const QString& text, const QString& language)
{
    Block b;
    b.kind = Block::Kind::Code;
    b.raw = text;
    b.alt = language;
    d.push_back(std::move(b));
}
Block table(std::vector<Line> header, std::vector<bool> numeric)
{
    Block b;
    b.kind = Block::Kind::Table;
    b.header = std::move(header);
    b.numeric = std::move(numeric);
    b.numeric.resize(b.header.size(), false);
    return b;
}

// ---------------------------------------------------------------------------------------------
// Numbers

QString number(double v, int decimals)
{
    return QString::number(v, 'f', decimals);
}

QString fmtMs(double v)
{
    return (std::abs(v) < 100 ? number(v, 1) : number(std::round(v), 0)) + u" ms"_s;
}

QString fmtMetric(Metric metric, double v)
{
    switch (metric) {
    case Metric::DecodeTps:
        return number(v, 1) + u" tok/s"_s;
    case Metric::CompletionTokens:
    case Metric::PromptTokens:
        return (v == std::floor(v) ? number(v, 0) : number(v, 1)) + u" tokens"_s;
    default:
        return fmtMs(v);
    }
}

QString fmtSigned(Metric metric, double v)
{
    const QString s = fmtMetric(metric, v);
    return v > 0 ? u"+"_s + s : s;
}

QString fmtRatioNumber(double r)
{
    return number(r, r >= 10 ? 1 : 2);
}
QString fmtRatio(double r)
{
    return fmtRatioNumber(r) + u"×"_s;
}

QString fmtPercent(double fraction)
{
    return number(100.0 * fraction, 0) + u" %"_s;
}

QString fmtP(double p)
{
    if (p < 0.001)
        return u"< 0.001"_s;
    return QString::number(p, 'g', 2);
}

QString fmtInterval(const std::optional<Interval>& ci, const std::function<QString(double)>& f)
{
    if (!ci)
        return QString();
    return u" ["_s + f(ci->lo) + u" – "_s + f(ci->hi) + u"]"_s;
}

/// "0.21–0.27", or "—" without an interval.
QString fmtRange(const std::optional<Interval>& ci, const std::function<QString(double)>& f)
{
    return ci ? f(ci->lo) + u" – "_s + f(ci->hi) : u"—"_s;
}

QString plural(int n, const QString& one, const QString& many)
{
    return QString::number(n) + u' ' + (n == 1 ? one : many);
}

QString jsonText(const nlohmann::json& j)
{
    return QString::fromStdString(j.dump(2));
}

/// A string field of a JSON object, or `fallback`.
QString field(const nlohmann::json& j, const char* key, const QString& fallback = QString())
{
    if (!j.is_object())
        return fallback;
    const auto it = j.find(key);
    return it != j.end() && it->is_string() ? QString::fromStdString(it->get<std::string>()) : fallback;
}

/// Long strings (a chat template, a system prompt) shortened so an appendix stays readable.
nlohmann::json shortened(const nlohmann::json& j, std::size_t limit)
{
    if (j.is_string()) {
        const std::string s = j.get<std::string>();
        if (s.size() <= limit)
            return j;
        const QString q = QString::fromStdString(s);
        const QString cut
            = q.left(int(limit)) + u"… ("_s + QString::number(q.size() - int(limit)) + u" more characters)"_s;
        return cut.toStdString();
    }
    if (j.is_object() || j.is_array()) {
        nlohmann::json out = j;
        for (auto it = out.begin(); it != out.end(); ++it)
            *it = shortened(*it, limit);
        return out;
    }
    return j;
}

// ---------------------------------------------------------------------------------------------
// What the document talks about

QString gateTitle(const QString& gate)
{
    static const std::map<QString, QString> titles {{u"non_empty"_s, u"Non-empty answer"_s},
        {u"expected_answer"_s, u"Expected answer"_s}, {u"tool_call"_s, u"Tool call"_s},
        {u"no_markdown"_s, u"No markdown"_s}, {u"no_thinking_leak"_s, u"No thinking leak"_s},
        {u"coherent"_s, u"Coherent text"_s}, {u"within_length"_s, u"Within length target"_s}};
    const auto it = titles.find(gate);
    return it == titles.end() ? gate : it->second;
}

QString decisionWord(Recommendation::Decision d)
{
    switch (d) {
    case Recommendation::Decision::Switch:
        return u"SWITCH"_s;
    case Recommendation::Decision::KeepBaseline:
        return u"KEEP BASELINE"_s;
    case Recommendation::Decision::Inconclusive:
        break;
    }
    return u"INCONCLUSIVE"_s;
}

QString decisionTitle(const Recommendation& r)
{
    switch (r.decision) {
    case Recommendation::Decision::Switch:
        return u"Switch to "_s + r.candidateLabel;
    case Recommendation::Decision::KeepBaseline:
        return u"Keep "_s + r.baselineLabel;
    case Recommendation::Decision::Inconclusive:
        break;
    }
    return u"Inconclusive"_s;
}

Style decisionStyle(Recommendation::Decision d)
{
    switch (d) {
    case Recommendation::Decision::Switch:
        return Style::Good;
    case Recommendation::Decision::KeepBaseline:
        return Style::Bad;
    case Recommendation::Decision::Inconclusive:
        break;
    }
    return Style::Warn;
}

/// "Recommendation: KEEP BASELINE — Keep Q4_K_M: NVFP4 fails 3 of 7 criteria (…)"
Line decisionLine(const Recommendation& r)
{
    return {bold(u"Recommendation: "_s), {decisionStyle(r.decision), decisionWord(r.decision)},
        plain(u" — "_s + (r.headline.isEmpty() ? decisionTitle(r) : r.headline))};
}

Inline outcomeCell(CriterionResult::Outcome o)
{
    switch (o) {
    case CriterionResult::Outcome::Pass:
        return {Style::Good, u"PASS"_s};
    case CriterionResult::Outcome::Fail:
        return {Style::Bad, u"FAIL"_s};
    case CriterionResult::Outcome::Inconclusive:
        break;
    }
    return {Style::Warn, u"INCONCLUSIVE"_s};
}

/// Quantization as the endpoint states it, else as the model's name shows it.
QString quantizationOf(const RunEndpoint& e)
{
    if (!e.endpoint.quantization.isEmpty())
        return e.endpoint.quantization;
    static const QRegularExpression pattern(
        u"(?<![a-z0-9])(iq[1-4]_[a-z0-9_]+|q[2-8]_k(_[sml])?|q[4-8]_[01]|nvfp4|mxfp4|fp8|fp4|int8|int4|"
        "awq|gptq|w4a16|w8a8|bf16|fp16|f16)(?![a-z0-9])"_s,
        QRegularExpression::CaseInsensitiveOption);
    const QString model = e.endpoint.model.isEmpty() ? field(e.probe, "model") : e.endpoint.model;
    for (const QString& name : {model, field(e.probe, "model_path")}) {
        const QRegularExpressionMatch m = pattern.match(name);
        if (m.hasMatch())
            return m.captured(1).toUpper() + u" (from the model name)"_s;
    }
    return u"not stated"_s;
}

QString probeString(const RunEndpoint& e, const char* key)
{
    return field(e.probe, key);
}

/// Everything derived once per document.
struct Context {
    const ReportInput& in;
    const RunResult& run;
    const Evaluation& ev;
    std::optional<Suite> suite;
    QStringList tests; ///< in the order they ran
    std::set<QString> multiTurn;

    explicit Context(const ReportInput& input)
        : in(input)
        , run(*input.result)
        , ev(*input.evaluation)
    {
        try {
            suite = parseSuite(run.suite, u"the results file's suite"_s);
        } catch (const std::exception&) {
            suite.reset(); // described from the raw JSON where needed
        }
        for (const CellStatistics& c : ev.cells) {
            if (!tests.contains(c.test))
                tests << c.test;
            if (c.turn > 0)
                multiTurn.insert(c.test);
        }
    }

    QString label(int endpoint) const
    {
        if (endpoint < 0 || endpoint >= int(run.endpoints.size()))
            return u"?"_s;
        return run.endpoints[std::size_t(endpoint)].endpoint.displayName();
    }

    const SuiteTest* test(const QString& id) const
    {
        if (!suite)
            return nullptr;
        for (const SuiteTest& t : suite->tests)
            if (t.id == id)
                return &t;
        return nullptr;
    }

    QString testName(const QString& id) const
    {
        if (id.isEmpty())
            return u"All tests"_s;
        const SuiteTest* t = test(id);
        return t && !t->name.isEmpty() ? t->name : id;
    }

    const CellStatistics* cell(int endpoint, const QString& testId, int turn = 0) const
    {
        for (const CellStatistics& c : ev.cells)
            if (c.endpoint == endpoint && c.test == testId && c.turn == turn)
                return &c;
        return nullptr;
    }

    /// passed/judged of `gate` over every test (all turns) of `endpoint`.
    std::pair<int, int> gateTotal(int endpoint, const QString& gate) const
    {
        std::pair<int, int> total {0, 0};
        for (const CellStatistics& c : ev.cells) {
            if (c.endpoint != endpoint || c.turn != 0)
                continue;
            const auto it = c.gates.find(gate);
            if (it != c.gates.end()) {
                total.first += it->second.first;
                total.second += it->second.second;
            }
        }
        return total;
    }
};

Line winnerCell(const Context& cx, Verdict verdict, int winner, int pairs, int minPairs)
{
    switch (verdict) {
    case Verdict::TooFewPairs:
        return {italic(
            u"too few pairs ("_s + QString::number(pairs) + u" of "_s + QString::number(minPairs) + u")"_s)};
    case Verdict::NoClearDifference:
        return {italic(u"no clear difference"_s)};
    case Verdict::CandidateMore:
        return {plain(u"candidate writes more"_s)};
    case Verdict::CandidateFewer:
        return {plain(u"candidate writes fewer"_s)};
    case Verdict::CandidateBetter:
    case Verdict::BaselineBetter:
        break;
    }
    return {bold(cx.label(winner))};
}

// ---------------------------------------------------------------------------------------------
// Sections

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

    // The answer first: a reader who stops here must not come away with more than the data says.
    for (const Recommendation& r : cx.in.recommendations)
        paragraph(d, decisionLine(r));
    if (cx.in.recommendations.empty())
        paragraph(
            d, line(u"No recommendation: a recommendation needs a baseline and at least one candidate."_s));
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
    const std::optional<bool> thinking = cx.suite ? cx.suite->defaults.thinking : std::optional<bool>();
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
                line(m->pairs ? fmtMs(m->baselineMedian) : u"—"_s),
                line(m->pairs ? fmtMs(m->candidateMedian) : u"—"_s),
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

// Sample responses -----------------------------------------------------------------------------

constexpr int MaxSampleChars = 1500;

/// `text` cut into plain and failing pieces; overlapping or touching ranges become one piece.
std::vector<std::pair<QString, bool>> segmentsOf(const QString& text, std::vector<std::pair<int, int>> ranges)
{
    const int size = int(text.size());
    for (auto& [b, e] : ranges) {
        b = std::clamp(b, 0, size);
        e = std::clamp(e, 0, size);
    }
    std::sort(ranges.begin(), ranges.end());
    std::vector<std::pair<QString, bool>> out;
    int pos = 0;
    for (std::size_t i = 0; i < ranges.size(); ++i) {
        int b = std::max(ranges[i].first, pos);
        int e = ranges[i].second;
        if (e <= b)
            continue;
        while (i + 1 < ranges.size() && ranges[i + 1].first <= e) {
            e = std::max(e, ranges[i + 1].second);
            ++i;
        }
        if (b > pos)
            out.emplace_back(text.mid(pos, b - pos), false);
        out.emplace_back(text.mid(b, e - b), true);
        pos = e;
    }
    if (pos < size)
        out.emplace_back(text.mid(pos), false);
    return out;
}

int failedGates(const RunRecord& r)
{
    int n = 0;
    if (r.gates.is_object())
        for (const auto& [name, v] : r.gates.items())
            n += v.is_boolean() && !v.get<bool>() ? 1 : 0;
    return n + (r.request.ok() ? 0 : 1);
}

SampleSide sampleSide(const Context& cx, const RunRecord& r)
{
    SampleSide s;
    s.heading = cx.label(r.endpoint);
    s.where = (cx.multiTurn.contains(r.test) ? u"turn "_s + QString::number(r.turn) + u", "_s : QString())
        + u"run "_s + QString::number(r.iteration);
    QStringList failed;
    std::vector<std::pair<int, int>> ranges;
    if (r.gateDetails.is_object()) {
        for (const QString& gate : gateNames()) {
            const auto it = r.gateDetails.find(gate.toStdString());
            if (it == r.gateDetails.end() || it->value("verdict", std::string()) != "fail")
                continue;
            failed << gate;
            s.notes << gate + u": "_s + QString::fromStdString(it->value("reason", std::string()));
            // A length target is about the whole answer: marking all of it would hide the spans that matter.
            if (gate == u"within_length")
                continue;
            if (const auto rs = it->find("ranges"); rs != it->end() && rs->is_array())
                for (const nlohmann::json& range : *rs)
                    if (range.value("field", std::string()) == "content")
                        ranges.emplace_back(range.value("begin", 0), range.value("end", 0));
        }
    }
    if (!r.request.ok())
        s.notes.prepend(u"the request failed: "_s + failureKindId(r.request.failure.kind));
    s.verdict = failed.isEmpty() ? Line {{Style::Good, u"All gates passed"_s}}
                                 : Line {{Style::Bad, u"Failed: "_s + failed.join(u", "_s)}};
    QString text = r.request.response.content;
    if (text.size() > MaxSampleChars) {
        s.notes << u"shortened: "_s + QString::number(text.size() - MaxSampleChars)
                + u" more characters in the results file"_s;
        text = text.left(MaxSampleChars) + u"…"_s;
    }
    // Split into plain and failing spans on the raw text; each renderer escapes the pieces.
    s.segments = segmentsOf(text, std::move(ranges));
    if (text.isEmpty())
        s.notes.prepend(u"no visible text"_s);
    for (const ToolCall& call : r.request.response.toolCalls)
        s.toolCalls << call.name + u"("_s + call.arguments + u")"_s;
    if (!r.request.response.reasoning.isEmpty())
        s.notes << QString::number(r.request.response.reasoning.size())
                + u" characters of thinking in the reasoning field (not shown)"_s;
    return s;
}

void samplesSection(Doc& d, const Context& cx)
{
    if (cx.ev.comparison.arms.empty() || cx.in.maxSamples <= 0)
        return;
    heading(d, 2, u"Sample responses"_s);
    paragraph(d,
        line(u"The tests where the arms differ most in the quality gates, one pair of answers each (the "
             "same prompt, turn and run on both arms; the pair with the most failed gates). Failing "
             "spans are marked «…»; the text is the model's, quoted verbatim and never interpreted."_s));
    for (const ArmComparison& arm : cx.ev.comparison.arms) {
        // Score every test by how differently the two arms pass its gates.
        std::vector<std::pair<int, QString>> scored;
        for (const QString& test : cx.tests) {
            const CellStatistics* b = cx.cell(arm.baseline, test);
            const CellStatistics* c = cx.cell(arm.candidate, test);
            if (!b || !c)
                continue;
            int score = 0;
            for (const QString& gate : gateNames()) {
                const auto fails = [&](const CellStatistics* x) {
                    const auto it = x->gates.find(gate);
                    return it == x->gates.end() ? 0 : it->second.second - it->second.first;
                };
                score += std::abs(fails(b) - fails(c));
            }
            score += std::abs(b->failed - c->failed);
            scored.emplace_back(score, test);
        }
        std::stable_sort(
            scored.begin(), scored.end(), [](const auto& x, const auto& y) { return x.first > y.first; });
        std::vector<QString> chosen;
        for (const auto& [score, test] : scored)
            if (score > 0 && int(chosen.size()) < cx.in.maxSamples)
                chosen.push_back(test);
        if (chosen.empty() && !scored.empty()) {
            paragraph(d, line(u"The arms pass the same gates on every test; a representative pair:"_s));
            chosen.push_back(scored.front().second);
        }
        for (const QString& test : chosen) {
            std::map<std::tuple<int, int>, const RunRecord*> base;
            for (const RunRecord& r : cx.run.records)
                if (!r.warmup && r.endpoint == arm.baseline && r.test == test)
                    base.try_emplace({r.turn, r.iteration}, &r);
            const RunRecord* bestB = nullptr;
            const RunRecord* bestC = nullptr;
            int best = -1;
            for (const RunRecord& r : cx.run.records) {
                if (r.warmup || r.endpoint != arm.candidate || r.test != test)
                    continue;
                const auto it = base.find({r.turn, r.iteration});
                if (it == base.end())
                    continue;
                const int score = failedGates(r) + failedGates(*it->second);
                if (score > best) {
                    best = score;
                    bestB = it->second;
                    bestC = &r;
                }
            }
            if (!bestB)
                continue;
            heading(d, 3, cx.testName(test));
            if (const SuiteTest* st = cx.test(test)) {
                const int turn = bestC->turn;
                const QString prompt
                    = turn >= 1 && turn <= st->turns.size() ? st->turns[turn - 1] : QString();
                if (!prompt.isEmpty())
                    paragraph(d,
                        {italic(u"Prompt"_s
                             + (cx.multiTurn.contains(test) ? u" (turn "_s + QString::number(turn) + u")"_s
                                                            : QString())
                             + u": "_s),
                            plain(prompt)});
            }
            Block b;
            b.kind = Block::Kind::Samples;
            b.sides[0] = sampleSide(cx, *bestB);
            b.sides[1] = sampleSide(cx, *bestC);
            d.push_back(std::move(b));
        }
    }
}

void verdictSection(Doc& d, const Context& cx)
{
    heading(d, 2, u"Verdict"_s);
    const DecisionProfile& p = cx.in.profile;
    paragraph(d,
        {bold(u"Decision profile: "_s), plain(p.name.isEmpty() ? p.id : p.name),
            plain(p.source.isEmpty() ? QString() : u" ("_s + p.source + u")"_s),
            plain(p.description.isEmpty() ? QString() : u". "_s + p.description)});
    if (cx.in.recommendations.empty()) {
        paragraph(d, line(u"Nothing to decide: the run has no candidate endpoint."_s));
        return;
    }
    for (const Recommendation& r : cx.in.recommendations) {
        if (cx.in.recommendations.size() > 1)
            heading(d, 3, r.candidateLabel + u" vs "_s + r.baselineLabel);
        paragraph(d, decisionLine(r));
        Block t = table({line(u"Criterion"_s), line(u"Required"_s), line(u"Measured"_s), line(u"Result"_s)},
            {false, false, false, false});
        std::vector<Line> why;
        for (const CriterionResult& c : r.criteria) {
            const QString title = c.criterion.title.isEmpty() ? c.criterion.id : c.criterion.title;
            Line name {plain(title)};
            if (!c.criterion.test.isEmpty())
                name.push_back(italic(u" ("_s + cx.testName(c.criterion.test) + u")"_s));
            t.rows.push_back({name, line(c.required), line(c.measured), {outcomeCell(c.outcome)}});
            if (c.outcome != CriterionResult::Outcome::Pass && !c.explanation.isEmpty()) {
                Line w {bold(title + u": "_s), plain(c.explanation)};
                if (!c.criterion.rationale.isEmpty())
                    w.push_back(italic(u" Why it matters: "_s + c.criterion.rationale));
                why.push_back(std::move(w));
            }
        }
        if (!t.rows.empty())
            d.push_back(std::move(t));
        if (!why.empty()) {
            heading(d, 4, u"Criteria not met"_s);
            bullets(d, why);
        }
        if (!r.caveats.isEmpty()) {
            heading(d, 4, u"Caveats"_s);
            std::vector<Line> items;
            for (const QString& c : r.caveats)
                items.push_back(line(c));
            bullets(d, items);
        }
        heading(d, 4, u"What would change this recommendation"_s);
        std::vector<Line> items;
        for (const QString& w : r.whatWouldChange)
            items.push_back(line(w));
        if (items.empty())
            items.push_back(line(r.decision == Recommendation::Decision::Switch
                    ? u"A failed criterion on real servers, or a methodology warning that makes the "
                      u"comparison "
                      "unfair, would turn this into keep or inconclusive."_s
                    : u"Nothing specific was derived; re-run after addressing the criteria above."_s));
        bullets(d, items);
    }
}

void appendixSection(Doc& d, const Context& cx)
{
    heading(d, 2, u"Appendix"_s);
    heading(d, 3, u"A. Server properties"_s);
    paragraph(d,
        line(u"What each endpoint's probe found before the run (health, models, runtime, context, "
             "the runtime's own properties). Long strings such as chat templates are shortened."_s));
    for (int e = 0; e < int(cx.run.endpoints.size()); ++e) {
        const RunEndpoint& ep = cx.run.endpoints[std::size_t(e)];
        heading(d, 4, cx.label(e));
        nlohmann::json j = shortened(ep.probe, 600);
        codeBlock(d, jsonText(j), u"json"_s);
    }

    heading(d, 3, u"B. Request settings"_s);
    paragraph(d, line(u"The run's settings (-1 = the suite's value per test):"_s));
    const nlohmann::json header = headerToJson(cx.run);
    codeBlock(d, jsonText(header.value("settings", nlohmann::json::object())), u"json"_s);
    if (cx.run.suite.is_object() && cx.run.suite.contains("defaults")) {
        paragraph(d, line(u"The suite's defaults:"_s));
        codeBlock(d, jsonText(cx.run.suite.at("defaults")), u"json"_s);
    }
    for (int e = 0; e < int(cx.run.endpoints.size()); ++e) {
        const RunRecord* example = nullptr;
        for (const RunRecord& r : cx.run.records)
            if (r.endpoint == e && !r.warmup && !r.request.requestBody.is_null()) {
                example = &r;
                break;
            }
        if (!example)
            continue;
        paragraph(d,
            {plain(u"An example request body sent to "_s + cx.label(e) + u" (test "_s), code(example->test),
                plain(u", turn "_s + QString::number(example->turn) + u"):"_s)});
        codeBlock(d, jsonText(shortened(example->request.requestBody, 400)), u"json"_s);
    }

    heading(d, 3, u"C. Decision profile as loaded"_s);
    codeBlock(
        d, jsonText(cx.in.profile.raw.is_null() ? nlohmann::json::object() : cx.in.profile.raw), u"json"_s);

    heading(d, 3, u"D. Reproducing this document"_s);
    QString cmd = u"quantscope run --suite "_s + field(cx.run.suite, "id", u"SUITE"_s);
    for (const RunEndpoint& ep : cx.run.endpoints)
        cmd += u" \\\n  --endpoint 'name="_s + ep.endpoint.displayName() + u",url="_s
            + (ep.spec.isEmpty() ? ep.endpoint.baseUrl.toString() : ep.spec)
            + (ep.endpoint.model.isEmpty() || ep.simulated ? QString() : u",model="_s + ep.endpoint.model)
            + u"'"_s;
    const RunSettings& s = cx.run.settings;
    if (s.warmup >= 0)
        cmd += u" --warmup "_s + QString::number(s.warmup);
    if (s.runs >= 0)
        cmd += u" --runs "_s + QString::number(s.runs);
    cmd += u" \\\n  --order "_s + runOrderId(s.order) + u" --seed "_s + QString::number(s.seed);
    if (s.concurrency != 1)
        cmd += u" --concurrency "_s + QString::number(s.concurrency);
    if (s.maxTokens)
        cmd += u" --max-tokens "_s + QString::number(*s.maxTokens);
    cmd += u" --out run.json\nquantscope report run.json --profile "_s
        + (cx.in.profile.id.isEmpty() ? u"PROFILE"_s : cx.in.profile.id)
        + u" --format pdf --out report.pdf\n"_s;
    codeBlock(d, cmd, u"sh"_s);
    paragraph(d,
        line(u"Results written by "_s + (cx.run.toolVersion.isEmpty() ? u"quantscope"_s : cx.run.toolVersion)
            + u"; run "_s + cx.run.startedAt.toUTC().toString(Qt::ISODate) + u" to "_s
            + (cx.run.endedAt.isValid() ? cx.run.endedAt.toUTC().toString(Qt::ISODate) : u"(not finished)"_s)
            + u"."_s));
    for (const QString& note : cx.ev.notes)
        paragraph(d, {italic(u"Note: "_s), plain(note)});
}

Doc buildDocument(const ReportInput& in)
{
    Doc d;
    const Context cx(in);
    titleSection(d, cx);
    endpointsSection(d, cx);
    warningsSection(d, cx);
    methodologySection(d, cx);
    resultsSection(d, cx);
    chartsSection(d, cx);
    samplesSection(d, cx);
    verdictSection(d, cx);
    appendixSection(d, cx);
    return d;
}

// ---------------------------------------------------------------------------------------------
// Markdown

QString backtickFence(const QString& text, int minimum)
{
    int longest = 0;
    int run = 0;
    for (const QChar c : text) {
        run = c == u'`' ? run + 1 : 0;
        longest = std::max(longest, run);
    }
    return QString(std::max(minimum, longest + 1), u'`');
}

QString mdCodeSpan(const QString& text, bool inTable)
{
    QString t = text;
    t.replace(u'\n', u' ');
    if (inTable)
        t.replace(u'|', u"\\|"_s);
    const QString fence = backtickFence(t, 1);
    // A span that begins or ends with a backtick needs a space inside the fence.
    const bool pad = t.startsWith(u'`') || t.endsWith(u'`');
    return fence + (pad ? u" "_s : QString()) + t + (pad ? u" "_s : QString()) + fence;
}

QString mdInline(const Line& l, bool inTable)
{
    QString out;
    // Only the start of a paragraph can open a list or heading; never a table cell.
    const auto escapeHere
        = [&](const QString& text) { return escapeMarkdown(text, !inTable && out.isEmpty()); };
    for (const Inline& i : l) {
        if (i.text.isEmpty())
            continue;
        switch (i.style) {
        case Style::Plain:
            out += escapeHere(i.text);
            break;
        case Style::Italic:
            out += u'*' + escapeHere(i.text.trimmed()) + u'*' + (i.text.endsWith(u' ') ? u" "_s : QString());
            break;
        case Style::Code:
            out += mdCodeSpan(i.text, inTable);
            break;
        case Style::Mark:
            out += u"**«"_s + escapeHere(i.text) + u"»**"_s;
            break;
        case Style::Bold:
        case Style::Good:
        case Style::Bad:
        case Style::Warn: {
            // CommonMark: ** must touch the text, so spaces go outside.
            const QString t = i.text.trimmed();
            const QString lead = i.text.startsWith(u' ') ? u" "_s : QString();
            const QString trail = i.text.endsWith(u' ') ? u" "_s : QString();
            out += lead + u"**"_s + escapeHere(t) + u"**"_s + trail;
            break;
        }
        }
    }
    return out;
}

QString mdFenced(const QString& text, const QString& language)
{
    // Tildes inside a backtick fence are inert, and the fence outgrows any backtick run in the text.
    const QString fence = backtickFence(text, 3);
    return fence + language + u'\n' + text + (text.endsWith(u'\n') ? QString() : u"\n"_s) + fence + u"\n\n"_s;
}

QString renderMarkdown(const Doc& d)
{
    QString out;
    for (const Block& b : d) {
        switch (b.kind) {
        case Block::Kind::Heading:
            out += QString(b.level, u'#') + u' ' + mdInline(b.text, false) + u"\n\n"_s;
            break;
        case Block::Kind::Paragraph:
            out += mdInline(b.text, false) + u"\n\n"_s;
            break;
        case Block::Kind::Bullets:
            for (const Line& item : b.items)
                out += u"- "_s + mdInline(item, false) + u'\n';
            out += u'\n';
            break;
        case Block::Kind::Callout:
            out += u"> "_s + mdInline(b.text, false) + u"\n"_s;
            for (const Line& item : b.items)
                out += u">\n> "_s + mdInline(item, false) + u'\n';
            out += u'\n';
            break;
        case Block::Kind::Table: {
            const auto row = [](const std::vector<Line>& cells) -> QString {
                QString r = u"|"_s;
                for (const Line& c : cells) {
                    const QString text = mdInline(c, true);
                    r += u' ' + (text.isEmpty() ? u" "_s : text) + u" |"_s;
                }
                return r + u'\n';
            };
            out += row(b.header);
            out += u"|"_s;
            for (std::size_t i = 0; i < b.header.size(); ++i)
                out += b.numeric[i] ? u"---:|"_s : u"---|"_s;
            out += u'\n';
            for (const auto& r : b.rows)
                out += row(r);
            out += u'\n';
            break;
        }
        case Block::Kind::Image:
            // The source is ours (a relative path); escape only what would end the link.
            out += u"!["_s + markdownEscape(b.alt) + u"]("_s + QString(b.raw).replace(u' ', u"%20"_s)
                + u")\n\n"_s + mdInline(b.text, false) + u"\n\n"_s;
            break;
        case Block::Kind::Code:
            out += mdFenced(b.raw, b.alt);
            break;
        case Block::Kind::Samples:
            for (const SampleSide& s : b.sides) {
                out += u"**"_s + markdownEscape(s.heading) + u"** — "_s + markdownEscape(s.where) + u" — "_s
                    + mdInline(s.verdict, false) + u"\n\n"_s;
                QString text;
                for (const auto& [segment, failing] : s.segments)
                    text += failing ? u"«"_s + segment + u"»"_s : segment;
                if (!text.isEmpty())
                    out += mdFenced(text, u"text"_s);
                for (const QString& call : s.toolCalls)
                    out += u"Tool call: "_s + mdCodeSpan(call, false) + u"\n\n"_s;
                for (const QString& note : s.notes)
                    out += u"- "_s + markdownEscape(note) + u'\n';
                if (!s.notes.isEmpty())
                    out += u'\n';
            }
            break;
        }
    }
    return out;
}

// ---------------------------------------------------------------------------------------------
// HTML

struct Palette {
    const char16_t* good = u"#1a7f37";
    const char16_t* bad = u"#b42318";
    const char16_t* warn = u"#9a6700";
    const char16_t* mark = u"#ffd8d6";
    const char16_t* criticalBg = u"#fde8e7";
    const char16_t* warningBg = u"#fff4d6";
    const char16_t* infoBg = u"#e8f1fb";
    const char16_t* headerBg = u"#eef1f4";
};

QString esc(const QString& text)
{
    return text.toHtmlEscaped();
}

QString htmlInline(const Line& l)
{
    const Palette p;
    QString out;
    for (const Inline& i : l) {
        const QString t = esc(i.text);
        switch (i.style) {
        case Style::Plain:
            out += t;
            break;
        case Style::Bold:
            out += u"<b>"_s + t + u"</b>"_s;
            break;
        case Style::Italic:
            out += u"<i>"_s + t + u"</i>"_s;
            break;
        case Style::Code:
            out += u"<code>"_s + t + u"</code>"_s;
            break;
        case Style::Good:
            out += u"<b style=\"color:"_s + QString::fromUtf16(p.good) + u"\">"_s + t + u"</b>"_s;
            break;
        case Style::Bad:
            out += u"<b style=\"color:"_s + QString::fromUtf16(p.bad) + u"\">"_s + t + u"</b>"_s;
            break;
        case Style::Warn:
            out += u"<b style=\"color:"_s + QString::fromUtf16(p.warn) + u"\">"_s + t + u"</b>"_s;
            break;
        case Style::Mark:
            out += u"<span style=\"background-color:"_s + QString::fromUtf16(p.mark) + u"\">«"_s + t
                + u"»</span>"_s;
            break;
        }
    }
    return out;
}

/// Escaped text with its line breaks kept (model output, code blocks).
QString htmlLines(const QString& text)
{
    return esc(text).replace(u"\n"_s, u"<br>"_s);
}

/// Qt's table layout ignores nowrap when it runs out of width: glue numbers and their intervals
/// together with no-break spaces and word joiners instead.
Line unbreakable(Line cell)
{
    for (Inline& i : cell)
        i.text.replace(u' ', QChar(0x00A0)).replace(u"–"_s, u"–\u2060"_s);
    // The document is laid out at screen resolution and printed at the printer's, whose font
    // metrics are slightly wider: leave slack so a column sized to its numbers still holds them.
    if (!cell.empty())
        cell.front().text.prepend(u"\u00A0\u00A0"_s);
    return cell;
}

QString renderHtml(const Doc& d, const QString& title, HtmlFlavor flavor)
{
    const Palette p;
    const bool rich = flavor == HtmlFlavor::RichText;
    // QTextDocument understands a subset of CSS; the table attributes carry borders and padding there.
    const QString tableAttrs = rich ? u" border=\"1\" cellspacing=\"0\" cellpadding=\"3\""_s : QString();
    QString out = u"<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"_s;
    if (!rich)
        // Defence in depth: even if escaping ever failed, nothing in this page could run or load.
        out += u"<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; img-src data:; "
               "style-src 'unsafe-inline'\">\n"
               "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"_s;
    out += u"<title>"_s + esc(title) + u"</title>\n<style>\n"_s;
    if (rich)
        out += u"body { font-family: 'DejaVu Sans', sans-serif; font-size: 9pt; color: #1f2328; }\n"
               "h1 { font-size: 17pt; } h2 { font-size: 13pt; color: #0b3d66; margin-top: 16px; }\n"
               "h3 { font-size: 11pt; margin-top: 10px; } h4 { font-size: 9.5pt; margin-top: 8px; }\n"
               "table { border-color: #c9ced6; border-style: solid; margin-top: 4px; margin-bottom: 6px; }\n"
               "th { background-color: #eef1f4; text-align: left; }\n"
               "code, pre { font-family: 'DejaVu Sans Mono', monospace; font-size: 8pt; }\n"
               "pre { white-space: pre-wrap; background-color: #f6f8fa; }\n"
               ".caption { color: #57606a; }\n"_s;
    else
        out += u"body { font-family: system-ui, -apple-system, 'Segoe UI', 'DejaVu Sans', sans-serif; "
               "color: #1f2328; max-width: 60em; margin: 2em auto; padding: 0 1em; line-height: 1.45; }\n"
               "h1 { font-size: 1.9em; margin-bottom: .2em; } h2 { border-bottom: 1px solid #d0d7de; "
               "padding-bottom: .2em; margin-top: 2em; color: #0b3d66; } h3 { margin-top: 1.5em; }\n"
               "table { border-collapse: collapse; margin: .6em 0 1em; font-size: .92em; }\n"
               "th, td { border: 1px solid #d0d7de; padding: .3em .6em; vertical-align: top; }\n"
               "th { background: #eef1f4; text-align: left; }\n"
               "td.num, th.num { text-align: right; } td.num { white-space: nowrap; }\n"
               ".wide { overflow-x: auto; }\n"
               "code, pre { font-family: ui-monospace, 'DejaVu Sans Mono', monospace; font-size: .88em; }\n"
               "pre { background: #f6f8fa; padding: .7em; white-space: pre-wrap; word-break: break-word; "
               "border-radius: 4px; }\n"
               ".callout { padding: .5em .9em; margin: .6em 0; border-left: 4px solid; }\n"
               ".critical { background: #fde8e7; border-color: #b42318; }\n"
               ".warning { background: #fff4d6; border-color: #9a6700; }\n"
               ".info { background: #e8f1fb; border-color: #0969da; }\n"
               ".callout p { margin: .3em 0; }\n"
               "figure { margin: 1em 0; } figure img { max-width: 100%; height: auto; border: 1px solid "
               "#d0d7de; }\n"
               ".caption { color: #57606a; }\n"
               "table.samples { width: 100%; table-layout: fixed; } table.samples td { width: 50%; }\n"
               ".answer { white-space: pre-wrap; font-family: ui-monospace, 'DejaVu Sans Mono', monospace; "
               "font-size: .88em; background: #f6f8fa; padding: .5em; word-break: break-word; }\n"
               "@media print { body { max-width: none; } h2 { page-break-after: avoid; } }\n"_s;
    out += u"</style>\n</head>\n<body>\n"_s;

    for (const Block& b : d) {
        switch (b.kind) {
        case Block::Kind::Heading: {
            const QString h = u"h"_s + QString::number(b.level);
            out += u'<' + h + u'>' + htmlInline(b.text) + u"</"_s + h + u">\n"_s;
            break;
        }
        case Block::Kind::Paragraph:
            out += u"<p>"_s + htmlInline(b.text) + u"</p>\n"_s;
            break;
        case Block::Kind::Bullets:
            out += u"<ul>\n"_s;
            for (const Line& item : b.items)
                out += u"<li>"_s + htmlInline(item) + u"</li>\n"_s;
            out += u"</ul>\n"_s;
            break;
        case Block::Kind::Callout: {
            const QString cls = b.level == 2 ? u"critical"_s : b.level == 1 ? u"warning"_s : u"info"_s;
            if (rich) {
                const QString bg = QString::fromUtf16(b.level == 2 ? p.criticalBg
                        : b.level == 1                             ? p.warningBg
                                                                   : p.infoBg);
                out += u"<table width=\"100%\" cellspacing=\"0\" cellpadding=\"6\" border=\"0\" "
                       "style=\"margin-top:4px; margin-bottom:4px\"><tr><td bgcolor=\""_s
                    + bg + u"\">"_s;
                out += u"<p>"_s + htmlInline(b.text) + u"</p>"_s;
                for (const Line& item : b.items)
                    out += u"<p>"_s + htmlInline(item) + u"</p>"_s;
                out += u"</td></tr></table>\n"_s;
            } else {
                out += u"<div class=\"callout "_s + cls + u"\">\n<p>"_s + htmlInline(b.text) + u"</p>\n"_s;
                for (const Line& item : b.items)
                    out += u"<p>"_s + htmlInline(item) + u"</p>\n"_s;
                out += u"</div>\n"_s;
            }
            break;
        }
        case Block::Kind::Table: {
            // In a browser a table wider than the page scrolls inside it instead of spilling over.
            if (!rich)
                out += u"<div class=\"wide\">"_s;
            out += u"<table class=\"data\""_s + tableAttrs + (rich ? u" width=\"100%\""_s : QString())
                + u">\n<thead><tr>"_s;
            for (std::size_t i = 0; i < b.header.size(); ++i)
                out += (rich ? u"<th bgcolor=\"#eef1f4\" align=\""_s + (b.numeric[i] ? u"right"_s : u"left"_s)
                                   + u"\">"_s
                             : (b.numeric[i] ? u"<th class=\"num\">"_s : u"<th>"_s))
                    + htmlInline(b.header[i]) + u"</th>"_s;
            out += u"</tr></thead>\n<tbody>\n"_s;
            for (const auto& r : b.rows) {
                out += u"<tr>"_s;
                for (std::size_t i = 0; i < r.size(); ++i)
                    out += (i < b.numeric.size() && b.numeric[i]
                                   // Numbers never wrap: Qt then sizes their columns to fit them.
                                   ? (rich ? u"<td align=\"right\" nowrap>"_s : u"<td class=\"num\">"_s)
                                   : u"<td>"_s)
                        + (rich && i < b.numeric.size() && b.numeric[i] ? htmlInline(unbreakable(r[i]))
                                                                        : htmlInline(r[i]))
                        + u"</td>"_s;
                out += u"</tr>\n"_s;
            }
            out += rich ? u"</tbody></table>\n"_s : u"</tbody></table></div>\n"_s;
            break;
        }
        case Block::Kind::Image: {
            // Rich text: a fixed width in CSS pixels that fits an A4 page between the margins.
            const int w = rich ? 620 : b.width;
            const int h = b.width > 0 ? int(std::lround(double(w) * b.height / b.width)) : b.height;
            out += u"<figure>\n<p align=\"center\"><img src=\""_s + esc(b.raw) + u"\" alt=\""_s + esc(b.alt)
                + u"\" width=\""_s + QString::number(w) + u"\" height=\""_s + QString::number(h)
                + u"\"></p>\n<p class=\"caption\">"_s + htmlInline(b.text) + u"</p>\n</figure>\n"_s;
            break;
        }
        case Block::Kind::Code:
            out += u"<pre>"_s + esc(b.raw) + u"</pre>\n"_s;
            break;
        case Block::Kind::Samples: {
            out += u"<table class=\"samples\""_s + tableAttrs + (rich ? u" width=\"100%\""_s : QString())
                + u">\n<tr>"_s;
            for (const SampleSide& s : b.sides)
                out += (rich ? u"<th bgcolor=\"#eef1f4\" align=\"left\" width=\"50%\">"_s : u"<th>"_s)
                    + esc(s.heading) + u" <span style=\"font-weight:normal\">— "_s + esc(s.where)
                    + u"</span></th>"_s;
            out += u"</tr>\n<tr>"_s;
            for (const SampleSide& s : b.sides) {
                out += rich ? u"<td width=\"50%\">"_s : u"<td>"_s;
                out += u"<p>"_s + htmlInline(s.verdict) + u"</p>"_s;
                if (!s.segments.empty()) {
                    QString text;
                    for (const auto& [segment, failing] : s.segments) {
                        const QString e = htmlLines(segment);
                        // In the PDF the span keeps the answer's monospace font.
                        text += failing ? u"<span style=\"background-color:"_s + QString::fromUtf16(p.mark)
                                + (rich ? u"; font-family:'DejaVu Sans Mono'"_s : QString()) + u"\"><b>«"_s
                                + e + u"»</b></span>"_s
                                        : e;
                    }
                    out += rich ? u"<p style=\"font-family:'DejaVu Sans Mono'; font-size:8pt; "
                                  "background-color:#f6f8fa\">"_s
                            + text + u"</p>"_s
                                : u"<div class=\"answer\">"_s + text + u"</div>"_s;
                }
                for (const QString& call : s.toolCalls)
                    out += u"<p>Tool call: <code>"_s + esc(call) + u"</code></p>"_s;
                if (!s.notes.isEmpty()) {
                    out += u"<ul>"_s;
                    for (const QString& n : s.notes)
                        out += u"<li>"_s + esc(n) + u"</li>"_s;
                    out += u"</ul>"_s;
                }
                out += u"</td>"_s;
            }
            out += u"</tr>\n</table>\n"_s;
            break;
        }
        }
    }
    out += u"</body>\n</html>\n"_s;
    return out;
}

} // namespace

std::vector<ReportChart> reportCharts(const RunResult& result, const Evaluation& evaluation)
{
    Q_UNUSED(result);
    std::vector<ReportChart> charts;
    const bool multiTurn = !evaluation.scaling.endpoints.empty();
    if (multiTurn)
        charts.push_back({u"ttft-turn"_s, u"TTFT vs turn"_s,
            u"Median time to the first visible token at each turn of the multi-turn test: how prompt "
            "processing grows with the conversation."_s,
            {}, 960, 600});
    charts.push_back({u"decode-tps"_s, u"Decode rate per test"_s,
        u"Median decode tok/s per test and endpoint (higher is better)."_s, {}, 960, 600});
    if (multiTurn)
        charts.push_back({u"latency-length"_s, u"Latency vs response length"_s,
            u"Predicted total latency e2e(N) = TTFT + 1000·N / decode rate for answers of N tokens; where "
            "the lines cross, the faster decoder overtakes the faster starter."_s,
            {}, 960, 600});
    charts.push_back({u"ttft-test"_s, u"TTFT per test"_s,
        u"Median time to the first visible token per test and endpoint (lower is better)."_s, {}, 960, 600});
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
    return renderMarkdown(buildDocument(input));
}

QString reportHtml(const ReportInput& input, HtmlFlavor flavor)
{
    Q_ASSERT(input.result && input.evaluation);
    return renderHtml(buildDocument(input), reportTitle(input), flavor);
}

QString markdownEscape(const QString& text)
{
    return escapeMarkdown(text, true);
}

QString escapeMarkdown(const QString& text, bool blockStart)
{
    QString out;
    out.reserve(text.size() + text.size() / 8);
    bool lineStart = blockStart; // only spaces so far on this line
    bool digitsOnly = false; // only digits since the line's spaces: "12." would open a list
    for (qsizetype i = 0; i < text.size(); ++i) {
        const QChar c = text[i];
        if (c == u'\n' || c == u'\r') {
            out += u' ';
            lineStart = true;
            digitsOnly = false;
            continue;
        }
        switch (c.unicode()) {
        case u'\\':
        case u'`':
        case u'*':
        case u'_':
        case u'[':
        case u']':
        case u'<':
        case u'>':
        case u'|':
        case u'&':
        case u'~':
        case u'#':
            out += u'\\';
            break;
        case u'+':
        case u'-':
        case u'=':
            if (lineStart)
                out += u'\\';
            break;
        case u'.':
        case u')':
            if (digitsOnly)
                out += u'\\';
            break;
        case u':':
            // GitHub links "http://…" by itself: break the scheme so model text stays text.
            if (text.mid(i, 3) == u"://")
                out += u'\\';
            break;
        default:
            break;
        }
        out += c;
        digitsOnly = c.isDigit() && (lineStart || digitsOnly);
        if (!c.isSpace())
            lineStart = false;
    }
    out.replace(u"www."_s, u"www\\."_s);
    return out;
}

QString markRanges(const QString& text, std::vector<std::pair<int, int>> ranges)
{
    QString out;
    for (const auto& [segment, failing] : segmentsOf(text, std::move(ranges)))
        out += failing ? u"«"_s + segment + u"»"_s : segment;
    return out;
}

} // namespace qs
