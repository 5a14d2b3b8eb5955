// SPDX-License-Identifier: MIT
#include "PromFixtures.h"
#include "model/core/MetricCatalog.h"
#include "model/wire/PrometheusText.h"
#include "model/wire/ScrapeReduction.h"

#include <chrono>
#include <cmath>
#include <gtest/gtest.h>
#include <random>

using namespace qs;

namespace {

PromPage parseOk(std::string_view text, PromFormat format = PromFormat::Text004)
{
    PromError error;
    auto page = parsePrometheusText(text, format, &error);
    EXPECT_TRUE(page.has_value()) << error.text();
    return page ? *page : PromPage {};
}

PromError parseBad(
    std::string_view text, PromFormat format = PromFormat::Text004, std::size_t maxSeries = 200000)
{
    PromError error;
    const auto page = parsePrometheusText(text, format, &error, maxSeries);
    EXPECT_FALSE(page.has_value()) << "parsed: " << text.substr(0, 80);
    return error;
}

const PromSample& onlySample(const PromPage& page, std::string_view family)
{
    const PromFamily* f = page.family(family);
    EXPECT_NE(f, nullptr) << family;
    static const PromSample none;
    if (!f || f->samples.empty())
        return none;
    return f->samples.front();
}

std::string label(const PromSample& s, std::string_view name)
{
    for (const auto& [n, v] : s.labels)
        if (n == name)
            return v;
    return {};
}

} // namespace

TEST(PrometheusText, LlamaServerPage)
{
    const PromPage page = parseOk(fixtures::LlamaPage);
    EXPECT_TRUE(page.warnings.empty());
    ASSERT_EQ(page.families.size(), 10u);
    const PromFamily* prompt = page.family("llamacpp:prompt_tokens_total");
    ASSERT_NE(prompt, nullptr);
    EXPECT_EQ(prompt->type, MetricType::Counter);
    EXPECT_EQ(prompt->help, "Number of prompt tokens processed.");
    ASSERT_EQ(prompt->samples.size(), 1u);
    EXPECT_DOUBLE_EQ(prompt->samples[0].value, 1234570.0); // six significant digits
    EXPECT_TRUE(prompt->samples[0].labels.empty());
    EXPECT_FALSE(prompt->samples[0].timestampMs);
    EXPECT_DOUBLE_EQ(onlySample(page, "llamacpp:requests_deferred").value, 1);
    EXPECT_EQ(page.family("llamacpp:requests_processing")->type, MetricType::Gauge);
}

TEST(PrometheusText, VllmText004GroupsCreatedFamiliesSeparately)
{
    const PromPage page = parseOk(fixtures::VllmPage004);
    EXPECT_TRUE(page.warnings.empty()) << page.warnings.front();
    const PromFamily* prompt = page.family("vllm:prompt_tokens_total");
    ASSERT_NE(prompt, nullptr);
    EXPECT_EQ(prompt->type, MetricType::Counter);
    ASSERT_EQ(prompt->samples.size(), 1u);
    EXPECT_DOUBLE_EQ(prompt->samples[0].value, 1234567.0);
    EXPECT_EQ(label(prompt->samples[0], "model_name"), "Qwen/Qwen3-8B");
    EXPECT_EQ(label(prompt->samples[0], "engine"), "0");
    const PromFamily* created = page.family("vllm:prompt_tokens_created");
    ASSERT_NE(created, nullptr);
    EXPECT_EQ(created->type, MetricType::Gauge);

    const PromFamily* ttft = page.family("vllm:time_to_first_token_seconds");
    ASSERT_NE(ttft, nullptr);
    EXPECT_EQ(ttft->type, MetricType::Histogram);
    EXPECT_EQ(ttft->samples.size(), 15u); // 13 buckets, _count, _sum: _created is its own family
    EXPECT_EQ(ttft->samples[12].name, "vllm:time_to_first_token_seconds_bucket");
    EXPECT_EQ(label(ttft->samples[12], "le"), "+Inf");
    EXPECT_EQ(page.family("vllm:time_to_first_token_seconds_created")->samples.size(), 1u);
    // A histogram whose name ends in _total keeps its buckets.
    EXPECT_EQ(page.family("vllm:iteration_tokens_total")->samples.size(), 4u);
    EXPECT_EQ(page.family("vllm:request_success_total")->samples.size(), 3u);
}

TEST(PrometheusText, VllmOpenMetrics)
{
    const PromPage page = parseOk(fixtures::VllmPageOpenMetrics, PromFormat::OpenMetrics);
    EXPECT_TRUE(page.sawEof);
    const PromFamily* prompt = page.family("vllm:prompt_tokens");
    ASSERT_NE(prompt, nullptr);
    EXPECT_EQ(prompt->type, MetricType::Counter);
    ASSERT_EQ(prompt->samples.size(), 2u);
    EXPECT_EQ(prompt->samples[0].name, "vllm:prompt_tokens_total");
    EXPECT_EQ(prompt->samples[1].name, "vllm:prompt_tokens_created");
    EXPECT_EQ(page.family("vllm:prompt_tokens_total"), nullptr);
    const PromFamily* e2e = page.family("vllm:e2e_request_latency_seconds");
    ASSERT_NE(e2e, nullptr);
    EXPECT_EQ(e2e->samples.size(), 6u); // the exemplar is read and dropped; _created belongs here
    EXPECT_DOUBLE_EQ(e2e->samples[1].value, 2.0);
    EXPECT_EQ(page.families.size(), 5u);
}

TEST(PrometheusText, SglangPidLabel)
{
    const PromPage page = parseOk(fixtures::SglangPage);
    const PromSample& retracted = onlySample(page, "sglang:num_retracted_reqs");
    EXPECT_EQ(label(retracted, "pid"), "4242");
    EXPECT_EQ(retracted.labels.size(), 6u);
    EXPECT_EQ(retracted.labels.front().first, "engine_type"); // wire order kept
    EXPECT_DOUBLE_EQ(onlySample(page, "sglang:token_usage").value, 0.12);
    EXPECT_EQ(page.family("sglang:queue_time_seconds")->samples.size(), 5u);
}

TEST(PrometheusText, DcgmCounterWithoutTotal)
{
    const PromPage page = parseOk(fixtures::DcgmPage);
    const PromFamily* energy = page.family("DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION");
    ASSERT_NE(energy, nullptr);
    EXPECT_EQ(energy->type, MetricType::Counter);
    ASSERT_EQ(energy->samples.size(), 2u);
    EXPECT_EQ(energy->samples[0].name, "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION");
    EXPECT_EQ(label(energy->samples[0], "UUID"), "GPU-5fd4e6b0-1b0c-4b5e-9c5a-1f0c2d3e4f50");
    EXPECT_EQ(label(energy->samples[0], "modelName"), "NVIDIA H100 80GB HBM3");
    EXPECT_EQ(label(energy->samples[1], "DCGM_FI_DRIVER_VERSION"), "535.129.03");
    EXPECT_DOUBLE_EQ(energy->samples[1].value, 9223372036854775794.0);
    EXPECT_DOUBLE_EQ(page.family("DCGM_FI_DEV_POWER_USAGE")->samples[0].value, 312.456);
}

TEST(PrometheusText, NodeExporterMeminfo)
{
    const PromPage page = parseOk(fixtures::NodePage);
    EXPECT_DOUBLE_EQ(onlySample(page, "node_memory_MemTotal_bytes").value, 128849018880.0);
    EXPECT_DOUBLE_EQ(onlySample(page, "node_memory_HugePages_Total").value, 0);
}

TEST(PrometheusText, LabelEscapesTrailingCommaAndEmptyBraces)
{
    const PromPage page = parseOk("# TYPE a gauge\n"
                                  "a{path=\"C:\\\\dir\\\\x\",quote=\"say \\\"hi\\\"\",nl=\"one\\ntwo\",} 1\n"
                                  "a{} 2\n"
                                  "a { x = \"y\" } 3\n"
                                  "a{odd=\"\\t stays\"} 4\n");
    const PromFamily* a = page.family("a");
    ASSERT_NE(a, nullptr);
    ASSERT_EQ(a->samples.size(), 4u);
    EXPECT_EQ(label(a->samples[0], "path"), "C:\\dir\\x");
    EXPECT_EQ(label(a->samples[0], "quote"), "say \"hi\"");
    EXPECT_EQ(label(a->samples[0], "nl"), "one\ntwo");
    EXPECT_TRUE(a->samples[1].labels.empty());
    EXPECT_EQ(label(a->samples[2], "x"), "y");
    EXPECT_EQ(label(a->samples[3], "odd"), "\\t stays");
}

TEST(PrometheusText, HelpEscapesAndUnit)
{
    const PromPage page = parseOk("# HELP x_seconds A \\\\ and a\\nnewline\n# TYPE x_seconds gauge\n"
                                  "# UNIT x_seconds seconds\nx_seconds 1\n# EOF\n",
        PromFormat::OpenMetrics);
    const PromFamily* x = page.family("x_seconds");
    ASSERT_NE(x, nullptr);
    EXPECT_EQ(x->help, "A \\ and a\nnewline");
    EXPECT_EQ(x->unit, "seconds");
}

TEST(PrometheusText, GoFloats)
{
    EXPECT_DOUBLE_EQ(*parsePromValue("1.23457e+06"), 1234570.0);
    EXPECT_DOUBLE_EQ(*parsePromValue("-0.5"), -0.5);
    EXPECT_DOUBLE_EQ(*parsePromValue("+3"), 3);
    EXPECT_DOUBLE_EQ(*parsePromValue(".5"), 0.5);
    EXPECT_DOUBLE_EQ(*parsePromValue("5."), 5);
    EXPECT_DOUBLE_EQ(*parsePromValue("1E3"), 1000);
    EXPECT_TRUE(std::isnan(*parsePromValue("NaN")));
    EXPECT_TRUE(std::isnan(*parsePromValue("nan")));
    EXPECT_EQ(*parsePromValue("+Inf"), INFINITY);
    EXPECT_EQ(*parsePromValue("inf"), INFINITY);
    EXPECT_EQ(*parsePromValue("-INF"), -INFINITY);
    EXPECT_EQ(*parsePromValue("Infinity"), INFINITY);
    for (const char* bad :
        {"", "abc", "1e", "0x10", "1,5", "--1", "+", ".", "nan(1)", "1_000", "1e999", " 1"})
        EXPECT_FALSE(parsePromValue(bad)) << bad;

    const PromPage page = parseOk("a NaN\nb +Inf\nc -inf\n");
    EXPECT_TRUE(std::isnan(onlySample(page, "a").value));
    EXPECT_EQ(onlySample(page, "b").value, INFINITY);
    EXPECT_EQ(onlySample(page, "c").value, -INFINITY);
}

TEST(PrometheusText, Timestamps)
{
    const PromPage text = parseOk("# TYPE a gauge\na 1 1700000000123\n");
    EXPECT_DOUBLE_EQ(*onlySample(text, "a").timestampMs, 1700000000123.0);
    const PromPage om = parseOk("# TYPE a gauge\na 1 1700000000.5\n# EOF\n", PromFormat::OpenMetrics);
    EXPECT_DOUBLE_EQ(*onlySample(om, "a").timestampMs, 1700000000500.0);
    const PromError e = parseBad("a 1 1700000000.5\n");
    EXPECT_EQ(e.line, 1);
    EXPECT_NE(e.message.find("integer milliseconds"), std::string::npos) << e.message;
}

TEST(PrometheusText, ExemplarsOnCountersAndBuckets)
{
    const PromPage page = parseOk("# TYPE r counter\nr_total 5 # {trace_id=\"a b\"} 1\n"
                                  "# TYPE h histogram\nh_bucket{le=\"1\"} 3 # {id=\"x\"} 0.4 1700000000.1\n"
                                  "h_bucket{le=\"+Inf\"} 3\nh_count 3\nh_sum 1.2\n# EOF\n",
        PromFormat::OpenMetrics);
    EXPECT_DOUBLE_EQ(onlySample(page, "r").value, 5);
    EXPECT_EQ(page.family("h")->samples.size(), 4u);
    const PromError e = parseBad("r_total 5 # trace\n");
    EXPECT_NE(e.message.find("exemplar"), std::string::npos) << e.message;
}

TEST(PrometheusText, SummaryAndGaugeHistogramAndInfo)
{
    const PromPage page = parseOk("# TYPE s summary\ns{quantile=\"0.5\"} 0.2\ns_sum 4\ns_count 10\n"
                                  "# TYPE g gaugehistogram\ng_bucket{le=\"+Inf\"} 2\ng_gsum 3\ng_gcount 2\n"
                                  "# TYPE build info\nbuild_info{version=\"1.2\"} 1\n"
                                  "# TYPE state stateset\nstate{state=\"a\"} 1\n# EOF\n",
        PromFormat::OpenMetrics);
    EXPECT_EQ(page.family("s")->samples.size(), 3u);
    EXPECT_EQ(page.family("g")->samples.size(), 3u);
    EXPECT_EQ(page.family("build")->samples.size(), 1u);
    EXPECT_EQ(page.family("build")->type, MetricType::Info);
    EXPECT_EQ(page.family("state")->type, MetricType::StateSet);
    EXPECT_TRUE(page.warnings.empty());
}

TEST(PrometheusText, UntypedSamplesWarn)
{
    const PromPage page = parseOk("# a comment\nfoo 1\nfoo{x=\"1\"} 2\n#no space is a comment too\n");
    const PromFamily* foo = page.family("foo");
    ASSERT_NE(foo, nullptr);
    EXPECT_EQ(foo->type, MetricType::Untyped);
    EXPECT_EQ(foo->samples.size(), 2u);
    ASSERT_EQ(page.warnings.size(), 1u);
    EXPECT_EQ(page.warnings[0], "line 2: sample foo has no TYPE line (untyped)");
    // A HELP line alone does not type a family.
    const PromPage helped = parseOk("# HELP bar Bar.\nbar 1\n");
    ASSERT_EQ(helped.warnings.size(), 1u);
    EXPECT_EQ(helped.family("bar")->help, "Bar.");
}

TEST(PrometheusText, CrlfAndBlankLinesAndNoFinalNewline)
{
    const PromPage page = parseOk("# TYPE a gauge\r\n\r\na{x=\"y\"} 1\r\n\nb 2");
    EXPECT_DOUBLE_EQ(onlySample(page, "a").value, 1);
    EXPECT_EQ(label(onlySample(page, "a"), "x"), "y");
    EXPECT_DOUBLE_EQ(onlySample(page, "b").value, 2);
    EXPECT_TRUE(parseOk("").families.empty());
}

TEST(PrometheusText, ErrorBadValue)
{
    const PromError e = parseBad("# TYPE a gauge\na 1\na{x=\"1\"} abc\n");
    EXPECT_EQ(e.line, 3);
    EXPECT_NE(e.message.find("expected a number"), std::string::npos) << e.message;
    EXPECT_NE(e.message.find("found 'abc'"), std::string::npos) << e.message;
    EXPECT_EQ(e.text().rfind("line 3: ", 0), 0u);
    EXPECT_NE(parseBad("a\n").message.find("expected a value"), std::string::npos);
}

TEST(PrometheusText, ErrorUnterminatedLabel)
{
    const PromError e = parseBad("a{x=\"open 1\n");
    EXPECT_EQ(e.line, 1);
    EXPECT_NE(e.message.find("unterminated"), std::string::npos) << e.message;
    EXPECT_NE(parseBad("a{x=\"1\" 2\n").message.find("expected ',' or '}'"), std::string::npos);
    EXPECT_NE(parseBad("a{x} 2\n").message.find("expected '='"), std::string::npos);
    EXPECT_NE(parseBad("a{x=1} 2\n").message.find("to open the value"), std::string::npos);
    EXPECT_NE(parseBad("a{x=\"1\",x=\"2\"} 2\n").message.find("twice"), std::string::npos);
    EXPECT_NE(parseBad("a{").message.find("end of the line"), std::string::npos);
    EXPECT_NE(parseBad("a{x=\"\\").message.find("unterminated"), std::string::npos);
}

TEST(PrometheusText, ErrorDuplicateType)
{
    const PromError e = parseBad("# TYPE a gauge\n# TYPE a counter\na 1\n");
    EXPECT_EQ(e.line, 2);
    EXPECT_NE(e.message.find("second TYPE"), std::string::npos) << e.message;
    EXPECT_NE(parseBad("a 1\n# TYPE a gauge\n").message.find("after its samples"), std::string::npos);
    EXPECT_NE(parseBad("# TYPE a bogus\n").message.find("found 'bogus'"), std::string::npos);
    EXPECT_NE(parseBad("# TYPE 9a gauge\n").message.find("expected a metric name"), std::string::npos);
    EXPECT_NE(parseBad("# HELP a x\n# HELP a y\n").message.find("second HELP"), std::string::npos);
}

TEST(PrometheusText, ErrorHtmlAndGarbage)
{
    const PromError html = parseBad("<!DOCTYPE html>\n<html><body>Welcome to nginx!</body></html>\n");
    EXPECT_EQ(html.line, 1);
    EXPECT_NE(html.message.find("HTML"), std::string::npos) << html.message;
    EXPECT_NE(html.message.find("'<!DOCTYPE html>'"), std::string::npos) << html.message;

    const PromError json
        = parseBad("{\"error\":{\"code\":501,\"message\":\"This server does not support metrics\"}}");
    EXPECT_NE(json.message.find("quoted (UTF-8) metric names"), std::string::npos) << json.message;

    const std::string garbage("\x01\x02\xff\xfe binary \x00 stuff", 20);
    const PromError g = parseBad(garbage);
    EXPECT_EQ(g.line, 1);
    EXPECT_NE(g.message.find("expected a metric name, found '??"), std::string::npos) << g.message;

    // Long lines are quoted short.
    const PromError longLine = parseBad("a " + std::string(500, 'x') + "\n");
    EXPECT_LT(longLine.message.size(), 150u) << longLine.message;
    EXPECT_NE(longLine.message.find("…'"), std::string::npos);
}

TEST(PrometheusText, ErrorUtf8QuotedNames)
{
    EXPECT_NE(parseBad("{\"my.metric\",x=\"1\"} 1\n").message.find("quoted (UTF-8)"), std::string::npos);
    EXPECT_NE(parseBad("a{\"x.y\"=\"1\"} 1\n").message.find("quoted (UTF-8)"), std::string::npos);
}

TEST(PrometheusText, ErrorTruncatedOpenMetrics)
{
    std::string page = fixtures::VllmPageOpenMetrics;
    page.resize(page.find("# EOF"));
    const PromError e = parseBad(page, PromFormat::OpenMetrics);
    EXPECT_EQ(e.line, 0);
    EXPECT_EQ(e.message, "OpenMetrics page without # EOF: the scrape was cut off");
    EXPECT_EQ(e.text(), e.message);
    EXPECT_FALSE(parsePrometheusText("", PromFormat::OpenMetrics));
    // Cut mid-line: the label is unterminated, reported as such.
    EXPECT_EQ(parseBad("# TYPE a gauge\na{x=\"ab", PromFormat::OpenMetrics).line, 2);
    // Anything after # EOF.
    const PromError after = parseBad("a 1\n# EOF\nb 2\n", PromFormat::OpenMetrics);
    EXPECT_EQ(after.line, 3);
    EXPECT_NE(after.message.find("after # EOF"), std::string::npos);
    // 0.0.4 pages never need # EOF, and tolerate one.
    EXPECT_TRUE(parseOk("a 1\n# EOF\n").sawEof);
}

TEST(PrometheusText, ErrorTooManySeries)
{
    std::string page = "# TYPE a gauge\n";
    for (int i = 0; i < 11; ++i)
        page += "a{i=\"" + std::to_string(i) + "\"} 1\n";
    EXPECT_TRUE(parsePrometheusText(page, PromFormat::Text004, nullptr, 11));
    const PromError e = parseBad(page, PromFormat::Text004, 10);
    EXPECT_EQ(e.line, 12);
    EXPECT_NE(e.message.find("more than 10 series"), std::string::npos) << e.message;
}

TEST(PrometheusText, ErrorLineTooLong)
{
    const std::string page = "a{x=\"" + std::string(70000, 'x') + "\"} 1\n";
    const PromError e = parseBad(page);
    EXPECT_EQ(e.line, 1);
    EXPECT_NE(e.message.find("64 KiB"), std::string::npos) << e.message;
}

TEST(PrometheusText, ContentTypes)
{
    EXPECT_EQ(promFormatFromContentType("application/openmetrics-text; version=1.0.0; charset=utf-8"),
        PromFormat::OpenMetrics);
    EXPECT_EQ(promFormatFromContentType(" Application/OpenMetrics-Text"), PromFormat::OpenMetrics);
    EXPECT_EQ(promFormatFromContentType("text/plain; version=0.0.4; charset=utf-8"), PromFormat::Text004);
    EXPECT_EQ(promFormatFromContentType(""), PromFormat::Text004);
    EXPECT_EQ(promFormatId(PromFormat::OpenMetrics), QStringLiteral("openmetrics-1.0.0"));
    EXPECT_EQ(promFormatId(PromFormat::Text004), QStringLiteral("prometheus-0.0.4"));
}

TEST(PrometheusText, FamiliesOf)
{
    const auto families = familiesOf(parseOk(fixtures::LlamaPage));
    ASSERT_EQ(families.size(), 10u);
    EXPECT_EQ(families[0].name, QStringLiteral("llamacpp:prompt_tokens_total"));
    EXPECT_EQ(families[0].type, MetricType::Counter);
}

// A vLLM-like page of about 100 KB parses in well under a few ms (the recorder scrapes three
// times a second per source).
TEST(PrometheusText, FastOnALargePage)
{
    std::string page;
    const char* buckets[]
        = {"0.001", "0.005", "0.01", "0.02", "0.04", "0.06", "0.08", "0.1", "0.25", "0.5", "0.75", "1.0",
            "2.5", "5.0", "7.5", "10.0", "20.0", "40.0", "80.0", "160.0", "640.0", "2560.0", "+Inf"};
    for (int h = 0; page.size() < 100000; ++h) {
        const std::string name = "vllm:histogram_" + std::to_string(h) + "_seconds";
        page += "# HELP " + name + " Histogram number " + std::to_string(h) + ".\n# TYPE " + name
            + " histogram\n";
        for (const char* le : buckets)
            page += name + "_bucket{engine=\"0\",le=\"" + le + "\",model_name=\"Qwen/Qwen3-8B\"} 1234.0\n";
        page += name + "_count{engine=\"0\",model_name=\"Qwen/Qwen3-8B\"} 1234.0\n";
        page += name + "_sum{engine=\"0\",model_name=\"Qwen/Qwen3-8B\"} 56.789\n";
    }
    const auto start = std::chrono::steady_clock::now();
    constexpr int rounds = 20;
    std::size_t samples = 0;
    for (int i = 0; i < rounds; ++i) {
        const auto parsed = parsePrometheusText(page, PromFormat::Text004);
        ASSERT_TRUE(parsed);
        samples = 0;
        for (const PromFamily& f : parsed->families)
            samples += f.samples.size();
    }
    const double ms
        = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count()
        / rounds;
    EXPECT_GT(samples, 800u);
#if defined(__SANITIZE_ADDRESS__)
    const double limit = 50; // ASan makes every pass several times slower (measured 10.1 ms beside other tests)
#else
    const double limit = 10;
#endif
    EXPECT_LT(ms, limit) << ms << " ms per " << page.size() << " bytes";
    RecordProperty("parse_ms", std::to_string(ms));
}

// Random bytes and mutated real pages: an answer or an error, never a crash (ASan/UBSan builds
// make this meaningful; a fuzzer does the rest).
TEST(PrometheusText, NeverCrashesOnMutations)
{
    std::mt19937 rng(11);
    const std::string seeds[] = {fixtures::LlamaPage, fixtures::VllmPage004, fixtures::VllmPageOpenMetrics,
        fixtures::DcgmPage, fixtures::SglangPage};
    const char alphabet[] = "{}\"\\=,# \n\r\t.eE+-0123456789_:aINFn";
    for (int round = 0; round < 3000; ++round) {
        std::string page = seeds[round % 5];
        const int edits = 1 + int(rng() % 8);
        for (int e = 0; e < edits && !page.empty(); ++e) {
            const std::size_t at = rng() % page.size();
            switch (rng() % 3) {
            case 0:
                page[at] = alphabet[rng() % (sizeof(alphabet) - 1)];
                break;
            case 1:
                page.erase(at, 1 + rng() % 20);
                break;
            default:
                page.insert(at, 1, char(rng() % 256));
            }
        }
        PromError error;
        for (const PromFormat format : {PromFormat::Text004, PromFormat::OpenMetrics}) {
            const auto parsed = parsePrometheusText(page, format, &error);
            if (!parsed) {
                EXPECT_FALSE(error.message.empty());
            }
        }
    }
    for (int round = 0; round < 300; ++round) {
        std::string bytes(rng() % 400, '\0');
        for (char& c : bytes)
            c = char(rng() % 256);
        parsePrometheusText(bytes, PromFormat::OpenMetrics);
    }
}

TEST(ScrapeReduction, KeepsCataloguedSeriesAndGrowsTheSource)
{
    TelemetrySource source;
    const PromPage page = parseOk(fixtures::VllmPage004);
    const TelemetrySample first = reducePage(page, source, 3, 100, 4, TelemetrySample::Phase::IdleBefore);
    EXPECT_EQ(first.source, 3);
    EXPECT_DOUBLE_EQ(first.atMs, 100);
    EXPECT_DOUBLE_EQ(first.durationMs, 4);
    EXPECT_EQ(first.phase, TelemetrySample::Phase::IdleBefore);
    EXPECT_TRUE(first.ok());
    EXPECT_EQ(source.format, QStringLiteral("prometheus-0.0.4"));
    // Every family, known or not.
    EXPECT_EQ(source.families.size(), page.families.size());
    EXPECT_EQ(source.families[0].name, QStringLiteral("python_gc_objects_collected_total"));
    // Only kept series: no python_gc, no _created; the TTFT histogram's 15 series are.
    for (const TelemetrySeries& s : source.series) {
        EXPECT_TRUE(keepSeries(s.name)) << s.name.toStdString();
        EXPECT_FALSE(s.name.endsWith(QStringLiteral("_created")));
    }
    const auto ttftBuckets
        = std::count_if(source.series.begin(), source.series.end(), [](const TelemetrySeries& s) {
              return s.name == QStringLiteral("vllm:time_to_first_token_seconds_bucket");
          });
    EXPECT_EQ(ttftBuckets, 13);
    ASSERT_EQ(first.values.size(), source.series.size());
    for (std::size_t i = 0; i < first.values.size(); ++i)
        EXPECT_EQ(first.values[i].first, int(i));
    const TelemetrySeries& running = source.series[0];
    EXPECT_EQ(running.name, QStringLiteral("process_resident_memory_bytes"));

    // The same page again: no new series, same indexes; a new label set appends.
    const std::size_t seriesBefore = source.series.size();
    const TelemetrySample second = reducePage(page, source, 3, 433, 4, TelemetrySample::Phase::Run);
    EXPECT_EQ(source.series.size(), seriesBefore);
    EXPECT_EQ(second.values, first.values);
    const PromPage more = parseOk("# TYPE vllm:num_requests_running gauge\n"
                                  "vllm:num_requests_running{engine=\"1\",model_name=\"Qwen/Qwen3-8B\"} 7\n"
                                  "vllm:num_requests_running{engine=\"0\",model_name=\"Qwen/Qwen3-8B\"} 2\n");
    const TelemetrySample third = reducePage(more, source, 3, 766, 4, TelemetrySample::Phase::Run);
    EXPECT_EQ(source.series.size(), seriesBefore + 1);
    ASSERT_EQ(third.values.size(), 2u);
    EXPECT_LT(third.values[0].first, third.values[1].first);
    EXPECT_EQ(source.series[std::size_t(third.values[1].first)].label(QStringLiteral("engine")),
        QStringLiteral("1"));
    EXPECT_EQ(*third.value(third.values[1].first), 7);
    EXPECT_EQ(source.families.size(), page.families.size()); // nothing new by name
}

TEST(ScrapeReduction, OpenMetricsFormatAndSeriesFamily)
{
    TelemetrySource source;
    const TelemetrySample s = reducePage(parseOk(fixtures::VllmPageOpenMetrics, PromFormat::OpenMetrics),
        source, 0, 0, 1, TelemetrySample::Phase::Run);
    EXPECT_EQ(source.format, QStringLiteral("openmetrics-1.0.0"));
    const auto it = std::find_if(source.series.begin(), source.series.end(),
        [](const TelemetrySeries& t) { return t.name == QStringLiteral("vllm:prompt_tokens_total"); });
    ASSERT_NE(it, source.series.end());
    EXPECT_EQ(it->family, QStringLiteral("vllm:prompt_tokens"));
    EXPECT_EQ(it->type, MetricType::Counter);
    EXPECT_EQ(
        it->key(), QStringLiteral("vllm:prompt_tokens_total{engine=\"0\",model_name=\"Qwen/Qwen3-8B\"}"));
    EXPECT_FALSE(s.values.empty());
}

TEST(ScrapeReduction, DuplicateSeriesKeepsTheFirstValue)
{
    TelemetrySource source;
    const TelemetrySample s
        = reducePage(parseOk("llamacpp:requests_processing 1\nllamacpp:requests_processing 2\n"), source, 0,
            0, 1, TelemetrySample::Phase::Run);
    ASSERT_EQ(s.values.size(), 1u);
    EXPECT_EQ(s.values[0].second, 1);
}

TEST(ScrapeReduction, FailedSample)
{
    const TelemetrySample s
        = failedSample(2, 50, 1000, TelemetrySample::Phase::IdleAfter, QStringLiteral("connection refused"));
    EXPECT_FALSE(s.ok());
    EXPECT_EQ(s.error, QStringLiteral("connection refused"));
    EXPECT_EQ(s.source, 2);
    EXPECT_TRUE(s.values.empty());
    EXPECT_FALSE(failedSample(0, 0, 0, TelemetrySample::Phase::Run, {}).ok());
}
