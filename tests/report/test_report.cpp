// SPDX-License-Identifier: MIT
// The recommendation document (model/decide/Report.h): its sections, its numbers, and that model output
// quoted in it is escaped, never interpreted.
#include "model/core/Clock.h"
#include "model/decide/Report.h"
#include "model/evaluate/Evaluation.h"
#include "tests/report/ReportTestSupport.h"
#include "tests/stats/StatsTestSupport.h"
#include "tests/stats/TelemetryTestSupport.h"

#include <gtest/gtest.h>

using namespace qs;
using namespace qs::test;

namespace {

const QString Hostile = QStringLiteral("Sure! <script>alert(1)</script> **md** <img src=x> done.");

/// Two arms, six tests, 2 runs each: the baseline 300 ms TTFT and 40 tok/s, clean; the candidate
/// 90 ms and 20 tok/s, answering with markdown (and an attempt at HTML) that fails no_markdown.
RunResult makeTwoArmRun()
{
    RunResult run = qs::test::makeRun({QStringLiteral("q4km"), QStringLiteral("nvfp4")});
    run.host = QStringLiteral("testhost");
    run.settings.runs = 2;
    run.settings.warmup = 0;
    run.endpoints[0].endpoint.model = QStringLiteral("Qwen3.5-9B-Q4_K_M.gguf");
    run.endpoints[1].endpoint.model = QStringLiteral("Qwen3.5-9B-NVFP4");
    run.endpoints[0].probe
        = {{"runtime", "llama-server"}, {"server_version", "b9000"}, {"context_size", 32768}};
    run.endpoints[1].probe = {{"runtime", "vllm"}, {"server_version", "0.17.1"}, {"context_size", 262144}};
    // Six distinct prompts (the unit of evidence), two runs each: 12 pairs.
    for (const QString& test :
        {QStringLiteral("greeting"), QStringLiteral("factual"), QStringLiteral("weather"),
            QStringLiteral("timer"), QStringLiteral("joke"), QStringLiteral("news")})
        for (int i = 1; i <= 2; ++i)
            for (int e = 0; e < 2; ++e) {
                RunRecord r = record({.endpoint = e,
                    .test = test,
                    .iteration = i,
                    .ttftMs = e == 0 ? 300.0 : 90.0,
                    .decodeTps = e == 0 ? 40.0 : 20.0,
                    .completionTokens = 30});
                r.request.requestBody = {{"model", "m"}, {"stream", true}, {"max_tokens", 256}};
                const bool bad = e == 1;
                r.request.response.content = bad ? Hostile : QStringLiteral("Tokyo is the capital of Japan.");
                r.gates = {{"no_markdown", !bad}, {"non_empty", true}};
                const int begin = int(Hostile.indexOf(QStringLiteral("**md**")));
                r.gateDetails = {{"no_markdown",
                    {{"verdict", bad ? "fail" : "pass"}, {"reason", bad ? "bold \"**md**\"" : "plain text"},
                        {"failure_class", nullptr},
                        {"ranges",
                            bad ? nlohmann::json::array({{{"field", "content"}, {"begin", begin},
                                {"end", begin + 6}, {"what", "bold"}}})
                                : nlohmann::json::array()}}}};
                run.records.push_back(r);
            }
    return run;
}

DecisionProfile makeProfile()
{
    DecisionProfile p;
    p.id = QStringLiteral("voice-assistant");
    p.name = QStringLiteral("Voice assistant");
    p.source = QStringLiteral("builtin:voice-assistant");
    Criterion markdown;
    markdown.id = QStringLiteral("no_markdown");
    markdown.title = QStringLiteral("No markdown");
    markdown.kind = Criterion::Kind::GateMinPassRate;
    markdown.gate = QStringLiteral("no_markdown");
    markdown.threshold = 0.8;
    Criterion ttft;
    ttft.id = QStringLiteral("ttft");
    ttft.title = QStringLiteral("TTFT visible");
    ttft.kind = Criterion::Kind::MetricMax;
    ttft.threshold = 120;
    p.criteria = {markdown, ttft};
    p.raw = {{"id", "voice-assistant"}};
    return p;
}

Recommendation makeRecommendation(const DecisionProfile& profile)
{
    Recommendation r;
    r.baselineLabel = QStringLiteral("q4km");
    r.candidateLabel = QStringLiteral("nvfp4");
    r.decision = Recommendation::Decision::KeepBaseline;
    r.headline = QStringLiteral("Keep q4km: nvfp4 fails 1 of 2 criteria (No markdown)");
    CriterionResult md {profile.criteria[0], CriterionResult::Outcome::Fail, QStringLiteral("0/12 answers"),
        QStringLiteral("≥ 80 %"), QStringLiteral("Every answer used <b>markdown</b>.")};
    CriterionResult ttft {profile.criteria[1], CriterionResult::Outcome::Pass, QStringLiteral("p50 90.0 ms"),
        QStringLiteral("≤ 120 ms"), QString()};
    r.criteria = {md, ttft};
    r.whatWouldChange
        = {QStringLiteral("nvfp4 answering without markdown in at least 10 of 12 requests (now 0)")};
    return r;
}

struct Fixture {
    RunResult run = makeTwoArmRun();
    Evaluation ev;
    ReportInput input;
    Fixture()
    {
        ev = evaluate(run, 0);
        Guardrail critical;
        critical.id = QStringLiteral("models_differ");
        critical.severity = Guardrail::Severity::Critical;
        critical.title = QStringLiteral("The models differ in fine-tuning");
        critical.evidence = QStringLiteral("distilled vs base");
        critical.advice = QStringLiteral("compare the same fine-tune");
        ev.guardrails.insert(ev.guardrails.begin(), critical);
        input.result = &run;
        input.evaluation = &ev;
        input.profile = makeProfile();
        input.recommendations = {makeRecommendation(input.profile)};
        input.sources = {QStringLiteral("run.json")};
        input.generatedAt = utcDateTime(QDate(2026, 3, 15), QTime(12, 0));
        input.charts = reportCharts(run, ev);
        for (ReportChart& c : input.charts)
            c.source = QStringLiteral("run-assets/") + c.name + QStringLiteral(".png");
    }
    const MetricComparison& pooled(Metric metric) const
    {
        for (const MetricComparison& m : ev.comparison.arms.at(0).metrics)
            if (m.metric == metric && m.test.isEmpty())
                return m;
        throw std::logic_error("no pooled row");
    }
};

ResourceFigure fig(double value, const QString& source, int samples = 10)
{
    return {value, source, samples};
}

/// What a DCGM exporter told about both servers, as Evaluation::resources holds it. The baseline's
/// URL and a note carry markup: metric names and URLs are text, never interpreted.
ResourceReport scriptedResources()
{
    ResourceReport rep;
    rep.collected = true;
    const QString dcgm = QStringLiteral("http://10.0.0.5:9400/metrics");
    for (int e = 0; e < 2; ++e) {
        EndpointResources r;
        r.endpoint = e;
        r.label = e == 0 ? QStringLiteral("q4km") : QStringLiteral("nvfp4");
        const QString url = e == 0 ? QStringLiteral("http://h:9400/metrics?x=<b>&y=*z*") : dcgm;
        r.sources = {url};
        r.memoryKind = QStringLiteral("gpu");
        const QString fb = QStringLiteral("DCGM_FI_DEV_FB_USED @ ") + url;
        const double base = e == 0 ? 6.6e9 : 108e9;
        r.memoryIdle = fig(base - 1e9, fb, 4);
        r.memoryPeak = fig(base + 0.5e9, fb, 42);
        r.memoryServingMedian = fig(base, fb, 38);
        r.memoryTotal = fig(128e9, QStringLiteral("DCGM_FI_DEV_FB_TOTAL @ ") + url, 42);
        r.byConcurrency
            = {{1, fig(base - 0.2e9, fb), fig(base, fb)}, {5, fig(base + 0.3e9, fb), fig(base + 0.5e9, fb)}};
        r.gpuUtilizationMedian = fig(e == 0 ? 0.41 : 0.87, QStringLiteral("DCGM_FI_DEV_GPU_UTIL @ ") + url);
        r.powerMedian = fig(e == 0 ? 95 : 212.4, QStringLiteral("DCGM_FI_DEV_POWER_USAGE @ ") + url);
        r.energyPerToken
            = fig(e == 0 ? 0.8 : 0.842, QStringLiteral("DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION @ ") + url);
        r.serverGeneratedTokens = e == 0 ? 360 : 420;
        r.clientGeneratedTokens = 360;
        r.serverPromptTokens = 2400;
        r.clientPromptTokens = 2400;
        r.serverGeneratedPerSecond = 38.5;
        r.clientGeneratedPerSecond = 38.1;
        if (e == 1) {
            r.serverLatency.push_back({MetricRole::ServerTtft, 71.0, 65.0, 120.0, 12, 90.0,
                QStringLiteral("vllm:time_to_first_token_seconds @ http://10.0.0.5:8000/metrics")});
            for (int i = 0; i < 3; ++i)
                r.ttftBreakdown.push_back({1, QStringLiteral("greeting"), 1, i + 1, 90.0 + i, 2.0, 40.0 + i,
                    11.0, 37.0, QStringLiteral("vllm:request_prefill_time_seconds Δ between scrapes")});
        }
        r.notes = {e == 0 ? QStringLiteral("exporter <i>down</i> from 12.3 s to 15.0 s (gap)") : QString()};
        r.notes.removeAll(QString());
        r.failedScrapes = e == 0 ? 9 : 0;
        rep.endpoints.push_back(std::move(r));
    }
    return rep;
}

} // namespace

TEST(Report, MarkdownHasEverySection)
{
    Fixture f;
    const QString md = reportMarkdown(f.input);
    for (const char* heading :
        {"# nvfp4 vs q4km", "## Endpoints compared", "## Read this first: methodology warnings",
            "## Methodology", "### Metric definitions", "## Results", "### Time to first visible token",
            "### Decode rate", "### Total latency", "### Quality gates", "## Charts", "## Sample responses",
            "## Verdict", "#### What would change this recommendation", "## Appendix",
            "### A. Server properties", "### B. Request settings", "### C. Decision profile as loaded",
            "### D. Reproducing this document"})
        EXPECT_TRUE(md.contains(QString::fromUtf8(heading))) << heading;
    // The endpoints table: runtime, version and context from the probe; quantization from the name.
    EXPECT_TRUE(md.contains(QStringLiteral("| **Runtime** | llama-server | vllm |"))) << qPrintable(md);
    EXPECT_TRUE(md.contains(QStringLiteral("| **Context** | 32768 tokens | 262144 tokens |")));
    EXPECT_TRUE(md.contains(QStringLiteral("Q4\\_K\\_M (from the model name)")));
    EXPECT_TRUE(md.contains(QStringLiteral("NVFP4 (from the model name)")));
    // Critical warnings up front, in bold.
    EXPECT_TRUE(md.contains(
        QStringLiteral("> **NOT an apples-to-apples comparison: The models differ in fine-tuning**")))
        << qPrintable(md.left(3000));
    EXPECT_LT(md.indexOf(QStringLiteral("NOT an apples")), md.indexOf(QStringLiteral("## Methodology")));
    // The recommendation is stated at the top and in the verdict.
    EXPECT_EQ(md.count(QStringLiteral("**KEEP BASELINE**")), 2);
    EXPECT_TRUE(md.contains(QStringLiteral("| No markdown | ≥ 80 % | 0/12 answers | **FAIL** |")));
    EXPECT_TRUE(md.contains(QStringLiteral("| TTFT visible | ≤ 120 ms | p50 90.0 ms | **PASS** |")));
    EXPECT_TRUE(
        md.contains(QStringLiteral("- nvfp4 answering without markdown in at least 10 of 12 requests")));
    // Charts link to their images.
    EXPECT_TRUE(md.contains(QStringLiteral("![Decode rate per test](run-assets/decode-tps.png)")));
    EXPECT_TRUE(md.contains(QStringLiteral("![TTFT per test](run-assets/ttft-test.png)")));
    // Appendix: the request body as sent.
    EXPECT_TRUE(md.contains(QStringLiteral("\"max_tokens\": 256")));
}

TEST(Report, TablesCarryTheEvaluationsNumbers)
{
    Fixture f;
    const QString md = reportMarkdown(f.input);
    const MetricComparison& ttft = f.pooled(Metric::TtftVisible);
    ASSERT_EQ(ttft.pairs, 12);
    EXPECT_DOUBLE_EQ(ttft.baselineMedian, 300);
    EXPECT_DOUBLE_EQ(ttft.candidateMedian, 90);
    ASSERT_TRUE(ttft.ratio && ttft.ratioCi);
    EXPECT_EQ(ttft.winner, 1);
    // | Test | Pairs | base p50 | cand p50 | Ratio | 95 % CI | Winner |
    EXPECT_TRUE(
        md.contains(QStringLiteral("| **All tests** | 12 | 300 ms | 90.0 ms | %1× | %2 – %3 | **nvfp4** |")
                        .arg(*ttft.ratio, 0, 'f', 2)
                        .arg(ttft.ratioCi->lo, 0, 'f', 2)
                        .arg(ttft.ratioCi->hi, 0, 'f', 2)))
        << qPrintable(md);
    const MetricComparison& tps = f.pooled(Metric::DecodeTps);
    EXPECT_TRUE(md.contains(QStringLiteral("| **All tests** | 12 | %1 tok/s | %2 tok/s | %3× |")
                                .arg(tps.baselineMedian, 0, 'f', 1)
                                .arg(tps.candidateMedian, 0, 'f', 1)
                                .arg(*tps.ratio, 0, 'f', 2)));
    EXPECT_TRUE(md.contains(QStringLiteral("| 40.0 tok/s | 20.0 tok/s | 0.50× |")));
    // Per test: 2 pairs each (its repeats), and a verdict.
    EXPECT_TRUE(md.contains(QStringLiteral("| greeting | 2 | 300 ms | 90.0 ms | 0.30× |"))) << qPrintable(md);
    // Gates: counts summed over tests, and the paired difference.
    EXPECT_TRUE(md.contains(QStringLiteral("| No markdown | 12/12 (100 %) | **0/12 (0 %)** | -100 %")))
        << qPrintable(md);
    EXPECT_TRUE(md.contains(QStringLiteral("| Non-empty answer | 12/12 (100 %) | 12/12 (100 %) | 0 %")));
    // The total-latency table has the median paired difference.
    const MetricComparison& e2e = f.pooled(Metric::E2e);
    EXPECT_TRUE(md.contains(QStringLiteral("+%1 ms").arg(std::round(e2e.medianDifference), 0, 'f', 0)))
        << e2e.medianDifference;
}

TEST(Report, ModelOutputIsEscapedInHtml)
{
    Fixture f;
    for (const HtmlFlavor flavor : {HtmlFlavor::Browser, HtmlFlavor::RichText}) {
        const QString html = reportHtml(f.input, flavor);
        EXPECT_FALSE(html.contains(QStringLiteral("<script"))) << "raw script tag";
        EXPECT_FALSE(html.contains(QStringLiteral("<img src=x")));
        EXPECT_TRUE(html.contains(QStringLiteral("&lt;script&gt;alert(1)&lt;/script&gt;")));
        EXPECT_TRUE(html.contains(QStringLiteral("&lt;img src=x&gt;")));
        // The failing span is marked, after escaping, and the markdown stays literal.
        EXPECT_TRUE(html.contains(QStringLiteral("<b>«**md**»</b>"))) << qPrintable(html.right(8000));
        // Our own text with markup characters is escaped too (an explanation from the verdict).
        EXPECT_TRUE(html.contains(QStringLiteral("Every answer used &lt;b&gt;markdown&lt;/b&gt;.")));
        EXPECT_TRUE(
            html.contains(QStringLiteral("<b>NOT an apples-to-apples comparison: The models differ in "
                                         "fine-tuning</b>")));
        EXPECT_TRUE(html.contains(QStringLiteral("<img src=\"run-assets/ttft-test.png\"")));
    }
    const QString browser = reportHtml(f.input);
    EXPECT_TRUE(browser.startsWith(QStringLiteral("<!DOCTYPE html>")));
    EXPECT_TRUE(browser.contains(QStringLiteral("Content-Security-Policy")));
}

TEST(Report, ModelOutputIsQuotedVerbatimInMarkdown)
{
    Fixture f;
    const QString md = reportMarkdown(f.input);
    // Verbatim inside a fenced block, with the failing span marked.
    const QString quoted
        = QStringLiteral("```text\nSure! <script>alert(1)</script> «**md**» <img src=x> done.\n```");
    EXPECT_TRUE(md.contains(quoted)) << qPrintable(md);
    // Nowhere outside a code block can a raw tag or an unescaped ** from the model appear.
    const QString prose = outsideFences(md);
    EXPECT_FALSE(prose.contains(QStringLiteral("<script>")));
    EXPECT_FALSE(prose.contains(QStringLiteral("<img")));
    EXPECT_FALSE(prose.contains(QStringLiteral("<b>markdown</b>")));
    EXPECT_TRUE(prose.contains(QStringLiteral("\\<b\\>markdown\\</b\\>")));
    // The gate's reason quotes the model, escaped.
    EXPECT_TRUE(prose.contains(QStringLiteral("no\\_markdown: bold \"\\*\\*md\\*\\*\"")))
        << qPrintable(prose);
}

TEST(Report, FencesOutgrowBackticksInTheText)
{
    Fixture f;
    for (RunRecord& r : f.run.records)
        if (r.endpoint == 1)
            r.request.response.content = QStringLiteral("```\n# not a heading\n```");
    const QString md = reportMarkdown(f.input);
    EXPECT_TRUE(md.contains(QStringLiteral("````text\n```\n# not a heading\n```\n````"))) << qPrintable(md);
}

TEST(Report, SingleEndpointStillMakesADocument)
{
    RunResult run = makeTwoArmRun();
    run.endpoints.pop_back();
    run.records.erase(std::remove_if(run.records.begin(), run.records.end(),
                          [](const RunRecord& r) { return r.endpoint == 1; }),
        run.records.end());
    const Evaluation ev = evaluate(run, 0);
    ReportInput in;
    in.result = &run;
    in.evaluation = &ev;
    in.profile = makeProfile();
    const QString md = reportMarkdown(in);
    EXPECT_TRUE(md.contains(QStringLiteral("Only one endpoint")));
    EXPECT_TRUE(md.contains(QStringLiteral("Nothing to decide")));
    EXPECT_FALSE(md.contains(QStringLiteral("## Sample responses")));
    EXPECT_FALSE(reportHtml(in).isEmpty());
}

TEST(Report, ChartsFollowTheData)
{
    Fixture f;
    QStringList names;
    for (const ReportChart& c : reportCharts(f.run, f.ev))
        names << c.name;
    EXPECT_EQ(names, (QStringList {QStringLiteral("decode-tps"), QStringLiteral("ttft-test")}));
    // A multi-turn test adds TTFT vs turn and latency vs length.
    for (int turn = 2; turn <= 3; ++turn)
        for (int i = 1; i <= 6; ++i)
            for (int e = 0; e < 2; ++e)
                f.run.records.push_back(record({.endpoint = e,
                    .test = QStringLiteral("chat"),
                    .turn = turn,
                    .iteration = i,
                    .ttftMs = e == 0 ? 300.0 * turn : 90.0}));
    for (int i = 1; i <= 6; ++i)
        for (int e = 0; e < 2; ++e)
            f.run.records.push_back(record({.endpoint = e,
                .test = QStringLiteral("chat"),
                .turn = 1,
                .iteration = i,
                .ttftMs = e == 0 ? 300.0 : 90.0}));
    const Evaluation ev = evaluate(f.run, 0);
    names.clear();
    for (const ReportChart& c : reportCharts(f.run, ev))
        names << c.name;
    EXPECT_EQ(names,
        (QStringList {QStringLiteral("ttft-turn"), QStringLiteral("decode-tps"),
            QStringLiteral("latency-length"), QStringLiteral("ttft-test")}));
    f.input.evaluation = &ev;
    const QString md = reportMarkdown(f.input);
    EXPECT_TRUE(md.contains(QStringLiteral("#### chat: TTFT (visible) per turn")));
    EXPECT_TRUE(md.contains(QStringLiteral("| 3 | 6 | 900 ms | 90.0 ms | 0.10× |"))) << qPrintable(md);
}

TEST(Report, MarkdownEscape)
{
    EXPECT_EQ(markdownEscape(QStringLiteral("a*b_c`d")), QStringLiteral("a\\*b\\_c\\`d"));
    EXPECT_EQ(markdownEscape(QStringLiteral("<img src=x>")), QStringLiteral("\\<img src=x\\>"));
    EXPECT_EQ(markdownEscape(QStringLiteral("a | b")), QStringLiteral("a \\| b"));
    EXPECT_EQ(markdownEscape(QStringLiteral("[x](y)")), QStringLiteral("\\[x\\](y)"));
    EXPECT_EQ(markdownEscape(QStringLiteral("# h")), QStringLiteral("\\# h"));
    EXPECT_EQ(markdownEscape(QStringLiteral("12. item")), QStringLiteral("12\\. item"));
    EXPECT_EQ(markdownEscape(QStringLiteral("- item")), QStringLiteral("\\- item"));
    EXPECT_EQ(markdownEscape(QStringLiteral("pi is 3.14")), QStringLiteral("pi is 3.14"));
    EXPECT_EQ(markdownEscape(QStringLiteral("2026-03-15 v0.17.1")), QStringLiteral("2026-03-15 v0.17.1"));
    EXPECT_EQ(markdownEscape(QStringLiteral("  3) x")), QStringLiteral("  3\\) x"));
    EXPECT_EQ(markdownEscape(QStringLiteral("see http://x.org")), QStringLiteral("see http\\://x.org"));
    EXPECT_EQ(markdownEscape(QStringLiteral("a\nb")), QStringLiteral("a b"));
    EXPECT_EQ(markdownEscape(QStringLiteral("&amp;")), QStringLiteral("\\&amp;"));
}

TEST(Report, MarkRanges)
{
    const QString t = QStringLiteral("Hello **md** and ## x");
    EXPECT_EQ(markRanges(t, {{6, 12}}), QStringLiteral("Hello «**md**» and ## x"));
    EXPECT_EQ(markRanges(t, {{17, 19}, {6, 8}, {7, 12}}), QStringLiteral("Hello «**md**» and «##» x"));
    EXPECT_EQ(
        markRanges(t, {{6, 8}, {8, 12}}), QStringLiteral("Hello «**md**» and ## x")); // touching: one span
    EXPECT_EQ(markRanges(t, {{-5, 2}, {19, 99}}), QStringLiteral("«He»llo **md** and ##« x»"));
    EXPECT_EQ(markRanges(t, {{4, 4}}), t);
}

// ---- issue #11: the Resources section and the drop-in checklist ------------------------------

TEST(ReportResources, TablesCarryEveryFigureAndItsSource)
{
    Fixture f;
    f.ev.resources = scriptedResources();
    const QString md = reportMarkdown(f.input);
    // After the results tables, before the charts.
    const auto at = md.indexOf(QStringLiteral("## Resources"));
    ASSERT_GT(at, md.indexOf(QStringLiteral("## Results"))) << qPrintable(md);
    EXPECT_LT(at, md.indexOf(QStringLiteral("## Charts")));
    // The seeds' idle / 1 / N table.
    EXPECT_TRUE(md.contains(
        QStringLiteral("| Endpoint | Memory | Idle | 1 request | 5 concurrent | Peak | Total "
                       "|\n|---|---|---:|---:|---:|---:|---:|\n"
                       "| q4km | GPU (framebuffer) | 5.60 GB | 6.40 GB | 6.90 GB | 7.10 GB | 128 GB |\n"
                       "| nvfp4 | GPU (framebuffer) | 107 GB | 108 GB | 108 GB | 109 GB | 128 GB |")))
        << qPrintable(md.mid(at, 3000));
    EXPECT_TRUE(md.contains(QStringLiteral("| nvfp4 | 87 % | 212 W | 0.842 J/token |")))
        << qPrintable(md.mid(at, 3000));
    // Server vs client tokens, with the cross-check.
    EXPECT_TRUE(md.contains(QStringLiteral("| q4km | 360 | 360 | 2400 | 2400 |")));
    EXPECT_TRUE(md.contains(QStringLiteral("**✓ agree**")));
    EXPECT_TRUE(md.contains(QStringLiteral("server counted +60 (another client on the server")));
    // The server's histogram beside the client's, and the TTFT breakdown (medians).
    EXPECT_TRUE(
        md.contains(QStringLiteral("| nvfp4 | Server TTFT | 71.0 ms | 65.0 ms | 120 ms | 12 | 90.0 ms |")))
        << qPrintable(md.mid(at, 4000));
    EXPECT_TRUE(md.contains(
        QStringLiteral("| nvfp4 | greeting | 3 | 91.0 ms | 37.0 ms | 2.0 ms | 41.0 ms | 11.0 ms |")))
        << qPrintable(md.mid(md.indexOf(QStringLiteral("### Where the time")), 3000));
    // Sources in small print, escaped: names and URLs are text.
    EXPECT_TRUE(md.contains(
        QStringLiteral("DCGM\\_FI\\_DEV\\_FB\\_USED @ http\\://10.0.0.5:9400/metrics (42 samples)")))
        << qPrintable(md.mid(at, 6000));
    EXPECT_TRUE(md.contains(QStringLiteral("http\\://h:9400/metrics?x=\\<b\\>\\&y=\\*z\\*")));
    EXPECT_TRUE(md.contains(QStringLiteral("9 scrapes failed (gaps in the series)")));
    EXPECT_FALSE(md.contains(QStringLiteral("<b>&y")));

    const QString html = reportHtml(f.input);
    EXPECT_TRUE(html.contains(QStringLiteral("<h2>Resources</h2>")));
    EXPECT_TRUE(html.contains(QStringLiteral("metrics?x=&lt;b&gt;&amp;y=*z*")));
    EXPECT_TRUE(html.contains(QStringLiteral("exporter &lt;i&gt;down&lt;/i&gt; from 12.3 s")));
    EXPECT_FALSE(html.contains(QStringLiteral("<i>down</i>")));
    const QString rich = reportHtml(f.input, HtmlFlavor::RichText);
    EXPECT_TRUE(rich.contains(QStringLiteral("0.842\u00A0J/\u2060token")));
}

TEST(ReportResources, NotMeasuredWithoutTelemetrySaysHowToCollect)
{
    Fixture f;
    ASSERT_FALSE(f.ev.resources.collected);
    f.run.telemetry.notes = {QStringLiteral("scraping off (--no-server-metrics)")};
    const QString md = reportMarkdown(f.input);
    const auto at = md.indexOf(QStringLiteral("## Resources"));
    ASSERT_GE(at, 0);
    const QString section = md.mid(at, md.indexOf(QStringLiteral("## Charts")) - at);
    EXPECT_TRUE(section.contains(QStringLiteral(
        "**Not measured:** this run collected no server telemetry (scraping off (--no-server-metrics))")))
        << qPrintable(section);
    for (const char* hint : {"llama-server needs --metrics", "metrics=URL",
             "metrics=http\\://HOST:9400/metrics", "metrics=http\\://HOST:9100/metrics", "DGX Spark"})
        EXPECT_TRUE(section.contains(QString::fromUtf8(hint))) << hint << '\n' << qPrintable(section);
    EXPECT_FALSE(section.contains(QStringLiteral("| Endpoint |")));
    const QString html = reportHtml(f.input);
    EXPECT_TRUE(html.contains(QStringLiteral("<b>Not measured: </b>this run collected no server telemetry")));
}

TEST(ReportChecklist, EveryItemWithTheNumbersThatDecideIt)
{
    Fixture f;
    f.ev.resources = scriptedResources();
    Criterion budget;
    budget.id = QStringLiteral("memory_budget");
    budget.title = QStringLiteral("Peak memory within 110 GB");
    budget.kind = Criterion::Kind::ResourceMax;
    budget.resource = Criterion::Resource::PeakMemory;
    budget.threshold = 110e9;
    budget.unit = QStringLiteral("GB");
    f.input.recommendations[0].criteria.push_back({budget, CriterionResult::Outcome::Pass,
        QStringLiteral("109 GB (42 samples)"), QStringLiteral("≤ 110 GB"), {}});
    const QString md = reportMarkdown(f.input);
    const auto at = md.indexOf(QStringLiteral("## Drop-in replacement checklist"));
    ASSERT_GE(at, 0) << qPrintable(md);
    EXPECT_LT(at, md.indexOf(QStringLiteral("## Verdict")));
    const QString section = md.mid(at, md.indexOf(QStringLiteral("## Verdict")) - at);
    EXPECT_TRUE(
        section.contains(QStringLiteral("| OpenAI-compatible API (same endpoint format) | **✓ yes** | 12 "
                                        "of 12 measured requests answered with a parsed "
                                        "OpenAI stream |")))
        << qPrintable(section);
    // No tool test and no thinking-leak gate in this run: not measured, never a pass.
    EXPECT_TRUE(section.contains(
        QStringLiteral("| Tool calls work | *not measured* | no answer judged for tool\\_call")));
    EXPECT_TRUE(section.contains(QStringLiteral("| Reasoning / thinking controllable | *not measured* |")));
    EXPECT_TRUE(
        section.contains(QStringLiteral("| Memory fits the budget | **✓ yes** | Peak memory within 110 "
                                        "GB: 109 GB (42 samples) (required ≤ 110 GB) |")))
        << qPrintable(section);
    // No latency or quality criterion in this profile: the paired comparison decides.
    EXPECT_TRUE(section.contains(
        QStringLiteral("| Latency equal or better | **✓ yes** | ttft\\_visible\\_ms: 90.0 ms vs 300 ms")))
        << qPrintable(section);
    EXPECT_TRUE(section.contains(
        QStringLiteral("| Quality equivalent | **✗ no** | No markdown: difference -100 % (baseline better)")))
        << qPrintable(section);
    EXPECT_TRUE(
        section.contains(QStringLiteral("| Deployment (the start script launches the new server) | *check by "
                                        "hand* | llama-server → vllm: a different runtime")));

    // Without telemetry and without a budget criterion: memory is not measured.
    Fixture bare;
    const QString plain = reportMarkdown(bare.input);
    EXPECT_TRUE(plain.contains(
        QStringLiteral("| Memory fits the budget | *not measured* | no memory figure: give the endpoint "
                       "metrics=URL of a DCGM exporter")))
        << qPrintable(plain);
    // A budget in the profile that was not measured says so, and how to measure it.
    Criterion budget2 = budget;
    budget2.optional = true;
    bare.input.recommendations[0].criteria.push_back({budget2, CriterionResult::Outcome::NotMeasured,
        QStringLiteral("not measured on nvfp4"), QStringLiteral("≤ 110 GB"), {}});
    const QString unmeasured = reportMarkdown(bare.input);
    EXPECT_TRUE(
        unmeasured.contains(QStringLiteral("| Memory fits the budget | *not measured* | Peak memory within "
                                           "110 GB: not measured on nvfp4 (required ≤ 110 GB); "
                                           "give the endpoint metrics=URL")))
        << qPrintable(unmeasured);
    EXPECT_TRUE(unmeasured.contains(
        QStringLiteral("| Peak memory within 110 GB | ≤ 110 GB | not measured on nvfp4 | *not measured* |")))
        << qPrintable(unmeasured);
    const QString html = reportHtml(bare.input);
    EXPECT_TRUE(html.contains(QStringLiteral("<h2>Drop-in replacement checklist</h2>")));
    EXPECT_TRUE(html.contains(QStringLiteral("<i>not measured</i>")));
}

TEST(ReportResources, EndToEndFromTelemetry)
{
    // A node exporter on each server: 60 GiB idle, 62 GiB while a request is in flight. The
    // evaluation derives the figures; the report shows them with the exporter as their source.
    RunResult run = makeTwoArmRun();
    double t = 1000;
    for (RunRecord& r : run.records) {
        r.startOffsetMs = t;
        r.request.timing.t0Ns = 1'000'000'000;
        r.request.timing.endNs = r.request.timing.t0Ns + 400'000'000;
        t += 500;
    }
    TelemetryBuilder b(run.telemetry);
    using Phase = TelemetrySample::Phase;
    for (int e = 0; e < 2; ++e) {
        const int node = b.source(e, QStringLiteral("http://spark-%1:9100/metrics").arg(e));
        b.sample(node, 0, Phase::IdleBefore, hostMemory(60 * GiB, 128 * GiB));
        for (double at = 1100; at < t; at += 250)
            b.sample(node, at, Phase::Run, hostMemory(62 * GiB, 128 * GiB));
        b.sample(node, t + 500, Phase::IdleAfter, hostMemory(60 * GiB, 128 * GiB));
    }
    const Evaluation ev = evaluate(run, 0);
    ASSERT_TRUE(ev.resources.collected);
    ReportInput in;
    in.result = &run;
    in.evaluation = &ev;
    in.profile = makeProfile();
    in.recommendations = {makeRecommendation(in.profile)};
    const QString md = reportMarkdown(in);
    EXPECT_TRUE(md.contains(QStringLiteral("| q4km | host (unified) | 64.4 GB |"))) << qPrintable(md);
    EXPECT_TRUE(md.contains(QStringLiteral("| 66.6 GB | 137 GB |"))) << qPrintable(md);
    EXPECT_TRUE(md.contains(QStringLiteral("http\\://spark-1:9100/metrics")));
    QStringList charts;
    for (const ReportChart& c : reportCharts(run, ev))
        charts << c.name;
    EXPECT_TRUE(charts.contains(QStringLiteral("server")));
}
