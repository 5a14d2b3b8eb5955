// SPDX-License-Identifier: MIT
// The recommendation document (model/decide/Report.h): its sections, its numbers, and that model output
// quoted in it is escaped, never interpreted.
#include "model/decide/Report.h"
#include "model/evaluate/Evaluation.h"
#include "tests/stats/StatsTestSupport.h"

#include <gtest/gtest.h>

using namespace qs;
using namespace qs::test;

namespace {

const QString Hostile = QStringLiteral("Sure! <script>alert(1)</script> **md** <img src=x> done.");

/// Two arms, two tests, 6 runs each: the baseline 300 ms TTFT and 40 tok/s, clean; the candidate
/// 90 ms and 20 tok/s, answering with markdown (and an attempt at HTML) that fails no_markdown.
RunResult makeTwoArmRun()
{
    RunResult run = qs::test::makeRun({QStringLiteral("q4km"), QStringLiteral("nvfp4")});
    run.host = QStringLiteral("testhost");
    run.settings.runs = 6;
    run.settings.warmup = 0;
    run.endpoints[0].endpoint.model = QStringLiteral("Qwen3.5-9B-Q4_K_M.gguf");
    run.endpoints[1].endpoint.model = QStringLiteral("Qwen3.5-9B-NVFP4");
    run.endpoints[0].probe
        = {{"runtime", "llama-server"}, {"server_version", "b9000"}, {"context_size", 32768}};
    run.endpoints[1].probe = {{"runtime", "vllm"}, {"server_version", "0.17.1"}, {"context_size", 262144}};
    for (const QString& test : {QStringLiteral("greeting"), QStringLiteral("factual")})
        for (int i = 1; i <= 6; ++i)
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
        input.generatedAt = QDateTime(QDate(2026, 3, 15), QTime(12, 0), Qt::UTC);
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

/// The Markdown outside fenced code blocks (where nothing is quoted verbatim).
QString outsideFences(const QString& markdown)
{
    QString out;
    bool inFence = false;
    for (const QString& l : markdown.split(u'\n')) {
        if (l.startsWith(QStringLiteral("```"))) {
            inFence = !inFence;
            continue;
        }
        if (!inFence)
            out += l + u'\n';
    }
    return out;
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
    // Per test: 6 pairs each, and a verdict.
    EXPECT_TRUE(md.contains(QStringLiteral("| greeting | 6 | 300 ms | 90.0 ms | 0.30× |")));
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
    std::erase_if(run.records, [](const RunRecord& r) { return r.endpoint == 1; });
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
