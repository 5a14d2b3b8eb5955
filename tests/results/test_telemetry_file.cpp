// SPDX-License-Identifier: MIT
// Telemetry in results files (format version 2): round trips with NaN and infinities, gaps,
// streaming past the per-item limits, clear errors, and version-1 files still loading.
#include "ResultsTestSupport.h"

#include <QTemporaryDir>

using namespace qs;
using namespace qs::test;
using Kind = ResultFileError::Kind;

namespace {

RunResult withTelemetry()
{
    RunResult r = makeResult();
    r.telemetry = makeTelemetry();
    return r;
}

std::string expectParseError(const json& j, Kind kind, std::initializer_list<const char*> needles)
{
    return expectError([&] { parseResults(bytesOf(j), QStringLiteral("run.json")); }, kind, needles);
}

} // namespace

TEST(TelemetryFile, RoundTripsWithNanInfinitiesAndGaps)
{
    const RunResult r = withTelemetry();
    const QByteArray bytes = serializeResults(r);
    const RunResult back = parseResults(bytes, QStringLiteral("run.json"));
    expectSameTelemetry(back.telemetry, r.telemetry);
    EXPECT_FALSE(back.telemetry.samples[3].ok()); // the gap stays a gap
    EXPECT_TRUE(back.telemetry.samples[3].values.empty());
    EXPECT_EQ(serializeResults(back), bytes); // and saving it again gives the same bytes
    EXPECT_EQ(back.records.size(), r.records.size());
}

TEST(TelemetryFile, SavedAndLoadedThroughTheFileSystem)
{
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const RunResult r = withTelemetry();
    const QString path = dir.filePath(QStringLiteral("run.json"));
    ASSERT_EQ(saveResults(r, path), QString());
    expectSameTelemetry(loadResults(path).telemetry, r.telemetry);
}

TEST(TelemetryFile, FileForm)
{
    const RunResult r = withTelemetry();
    const QList<QByteArray> lines = serializeResults(r).split('\n');
    // The telemetry's own line, then one line per source and per sample, before the records.
    const auto at = std::find_if(lines.begin(), lines.end(), [](const QByteArray& l) {
        return l.startsWith(R"( "telemetry": {"notes":["scrape period 333 ms"],"period_ms":333,)");
    });
    ASSERT_NE(at, lines.end());
    const auto records = std::find_if(
        lines.begin(), lines.end(), [](const QByteArray& l) { return l.startsWith(R"( "records": [)"); });
    ASSERT_GT(records, at);
    EXPECT_EQ(std::count_if(at, records, [](const QByteArray& l) { return l.startsWith("   {"); }),
        qsizetype(r.telemetry.sources.size() + r.telemetry.samples.size()));

    const json t = fileJson(r)["telemetry"];
    EXPECT_EQ(t["period_ms"], 333);
    const json& s0 = t["sources"][0];
    EXPECT_EQ(s0["endpoint"], 0);
    EXPECT_EQ(s0["url"], "http://127.0.0.1:8000/metrics");
    EXPECT_EQ(s0["kind"], "runtime");
    EXPECT_EQ(s0["format"], "prometheus-0.0.4");
    EXPECT_EQ(s0["process_start_unix"], 1772360400.25);
    EXPECT_EQ(t["sources"][1]["kind"], "exporter");
    EXPECT_TRUE(t["sources"][1]["process_start_unix"].is_null());
    EXPECT_EQ(s0["families"][0], json({{"name", "vllm:time_to_first_token_seconds"}, {"type", "histogram"}}));
    // Labels in wire order, as [name, value] pairs.
    EXPECT_EQ(s0["series"][4]["labels"],
        json::parse(R"([["model_name","qwen \"3.5\" ünï\\x"],["engine","1"],["le","+Inf"]])"));
    EXPECT_EQ(s0["series"][4]["name"], "vllm:time_to_first_token_seconds_bucket");
    EXPECT_EQ(s0["series"][4]["family"], "vllm:time_to_first_token_seconds");
    EXPECT_EQ(s0["series"][4]["type"], "histogram");
    EXPECT_EQ(s0["notes"][0], "1.2 s: connection refused (exporter down?)");

    const json& run = t["samples"][2];
    EXPECT_EQ(run["s"], 0);
    EXPECT_EQ(run["t"], 320.001);
    EXPECT_EQ(run["d"], 1.234);
    EXPECT_EQ(run["phase"], "run");
    EXPECT_EQ(run["v"], json::parse(R"([[0,"NaN"],[1,"+Inf"],[2,"-Inf"],[3,0.30000000000000004],[5,4.0]])"));
    EXPECT_EQ(t["samples"][0]["phase"], "idle_before");
    EXPECT_EQ(t["samples"][5]["phase"], "idle_after");
    const json& gap = t["samples"][3];
    EXPECT_EQ(gap["error"], "timed out after 2000 ms (exporter slow?)");
    EXPECT_FALSE(gap.contains("v"));
    // The exact doubles the servers sent, shortest form.
    const QByteArray bytes = serializeResults(r);
    EXPECT_TRUE(bytes.contains("[0,123456789012.34567]")) << "large values keep every digit";
    EXPECT_TRUE(bytes.contains("[1,1e-300]"));
    EXPECT_TRUE(bytes.contains("[2,-0.0]"));
    EXPECT_TRUE(bytes.contains("[2,9.007199254740992e+15]")); // 2^53+1 is not a double
}

TEST(TelemetryFile, TimesAreStoredToTheMicrosecond)
{
    RunResult r = withTelemetry();
    r.telemetry.samples[0].atMs = 12.3456789;
    r.telemetry.samples[0].durationMs = 0.0004;
    const RunResult back = parseResults(serializeResults(r), QStringLiteral("run.json"));
    EXPECT_DOUBLE_EQ(back.telemetry.samples[0].atMs, 12.346);
    EXPECT_EQ(back.telemetry.samples[0].durationMs, 0.0);
}

TEST(TelemetryFile, EmptyTelemetryIsWrittenAndReadBack)
{
    RunResult r = makeResult();
    r.telemetry.notes = {QStringLiteral("scraping off (--no-server-metrics)")};
    r.settings.serverMetrics = false;
    r.settings.scrapeMs = 500;
    const QByteArray bytes = serializeResults(r);
    EXPECT_TRUE(bytes.contains(
        "\n \"telemetry\": {\"notes\":[\"scraping off (--no-server-metrics)\"],\"period_ms\":0,\n"
        "  \"sources\": [],\n  \"samples\": []},\n \"records\": [\n"))
        << bytes.left(3000).toStdString();
    const RunResult back = parseResults(bytes, QStringLiteral("run.json"));
    EXPECT_TRUE(back.telemetry.empty());
    EXPECT_EQ(back.telemetry.notes, r.telemetry.notes);
    EXPECT_FALSE(back.settings.serverMetrics);
    EXPECT_EQ(back.settings.scrapeMs, 500);
    EXPECT_EQ(serializeResults(back), bytes);
}

TEST(TelemetryFile, SamplesBeforeSourcesAndTelemetryAfterRecordsStillLoad)
{
    // json::dump sorts keys: "records" before "telemetry", "samples" before "sources".
    const RunResult r = withTelemetry();
    const RunResult back = parseResults(bytesOf(fileJson(r)), QStringLiteral("run.json"));
    expectSameTelemetry(back.telemetry, r.telemetry);
    EXPECT_EQ(back.records.size(), r.records.size());
}

TEST(TelemetryFile, VersionOneFilesLoadWithEmptyTelemetry)
{
    json j = fileJson(makeResult());
    j["version"] = 1;
    j.erase("telemetry");
    j["settings"].erase("server_metrics");
    j["settings"].erase("scrape_ms");
    const RunResult back = parseResults(bytesOf(j), QStringLiteral("old.json"));
    EXPECT_TRUE(back.telemetry.empty());
    EXPECT_TRUE(back.telemetry.samples.empty());
    EXPECT_EQ(back.telemetry.periodMs, 0);
    EXPECT_EQ(back.records.size(), makeResult().records.size());
    // Saved again it becomes a current (version 4) file.
    EXPECT_TRUE(serializeResults(back).startsWith(R"({"format": "quantscope-results", "version": 4,)"));
}

TEST(TelemetryFile, ManySamplesStreamPastThePerItemLimit)
{
    // 30,000 samples of 80 values: 2.4 million values in "telemetry", more than one item may hold
    // (2,000,000), fine because each sample is read and dropped on its own.
    RunResult r = makeResult();
    r.records.clear();
    r.telemetry.periodMs = 333;
    r.telemetry.sources.push_back(
        makeSource(0, QStringLiteral("http://127.0.0.1:8000/metrics"), TelemetrySource::Kind::Runtime, 80));
    TelemetrySample s;
    for (int i = 0; i < 80; ++i)
        s.values.emplace_back(i, i * 0.5);
    r.telemetry.samples.assign(30'000, s);
    for (std::size_t i = 0; i < r.telemetry.samples.size(); ++i)
        r.telemetry.samples[i].atMs = double(i) * 333;
    const RunResult back = parseResults(serializeResults(r), QStringLiteral("run.json"));
    ASSERT_EQ(back.telemetry.samples.size(), 30'000u);
    EXPECT_EQ(back.telemetry.samples.back().values, s.values);
    EXPECT_EQ(back.telemetry.samples.back().atMs, 29'999.0 * 333);
}

TEST(TelemetryFile, BadReferencesNameThePath)
{
    const json good = fileJson(withTelemetry());
    json j = good;
    for (int i = 0; i < 10; ++i)
        j["telemetry"]["samples"].push_back(good["telemetry"]["samples"][0]);
    j["telemetry"]["samples"][12]["s"] = 5;
    expectParseError(j, Kind::BadField,
        {"run.json: telemetry.samples[12].s: source 5 does not exist (the file lists 2 telemetry sources)"});

    j = good;
    j["telemetry"]["samples"][2]["v"].push_back({812, 1.0});
    expectParseError(j, Kind::BadField,
        {"run.json: telemetry.samples[2].v[5][0]: series 812 does not exist (source 0 lists 6 series)"});

    j = good;
    j["telemetry"]["sources"][1]["endpoint"] = 7;
    expectParseError(
        j, Kind::BadField, {"telemetry.sources[1].endpoint: 7 is out of range: the file lists 2 endpoints"});

    j = good;
    j["telemetry"]["samples"][2]["v"][1][0] = 0;
    expectParseError(j, Kind::BadField,
        {"telemetry.samples[2].v[1][0]: series index 0 after 0: the indexes of a sample must ascend"});
    j["telemetry"]["samples"][2]["v"][1][0] = -1;
    expectParseError(j, Kind::BadField, {"telemetry.samples[2].v[1][0]: -1 is out of range"});
}

TEST(TelemetryFile, WrongTypesNameThePath)
{
    const json good = fileJson(withTelemetry());
    struct Case {
        const char* pointer;
        json value;
        const char* message;
    };
    const Case cases[] = {
        {"/telemetry", 5, "run.json: telemetry: expected an object or null, found a number"},
        {"/telemetry/period_ms", "fast", "telemetry.period_ms: expected a whole number, found a string"},
        {"/telemetry/period_ms", -1, "telemetry.period_ms: -1 is out of range"},
        {"/telemetry/notes", json::array({1}), "telemetry.notes[0]: expected a string, found a number"},
        {"/telemetry/sources", json::object(), "telemetry.sources: expected a list or null, found an object"},
        {"/telemetry/samples", 3, "telemetry.samples: expected a list or null, found a number"},
        {"/telemetry/samples/1", json::array(), "telemetry.samples[1]: expected an object, found a list"},
        {"/telemetry/samples/1", "x", "telemetry.samples[1]: expected an object, found a string"},
        {"/telemetry/sources/0/url", nullptr, "telemetry.sources[0].url: missing"},
        {"/telemetry/sources/0/endpoint", nullptr, "telemetry.sources[0].endpoint: missing"},
        {"/telemetry/sources/0/kind", "scraper",
            "telemetry.sources[0].kind: expected runtime or exporter, found \"scraper\""},
        {"/telemetry/sources/0/process_start_unix", "yesterday",
            "telemetry.sources[0].process_start_unix: expected a number or null, found a string"},
        {"/telemetry/sources/0/families/1/type", "gauge2",
            "telemetry.sources[0].families[1].type: expected counter, gauge, histogram"},
        {"/telemetry/sources/0/series/2/name", nullptr, "telemetry.sources[0].series[2].name: missing"},
        {"/telemetry/sources/0/series/2/labels/1", json::array({"a"}),
            "telemetry.sources[0].series[2].labels[1]: expected a [\"name\", \"value\"] pair of strings, "
            "found [\"a\"]"},
        {"/telemetry/sources/0/series/2/labels/0", json::array({"a", 1}),
            "telemetry.sources[0].series[2].labels[0]: expected a [\"name\", \"value\"] pair of strings"},
        {"/telemetry/samples/2/s", nullptr, "telemetry.samples[2].s: missing"},
        {"/telemetry/samples/2/t", nullptr, "telemetry.samples[2].t: missing"},
        {"/telemetry/samples/2/t", "now",
            "telemetry.samples[2].t: expected a number or null, found a string"},
        {"/telemetry/samples/2/phase", "warmup",
            "telemetry.samples[2].phase: expected idle_before, run or idle_after, found \"warmup\""},
        {"/telemetry/samples/2/error", 404, "telemetry.samples[2].error: expected a string, found a number"},
        {"/telemetry/samples/2/v", "1,2", "telemetry.samples[2].v: expected a list or null, found a string"},
        {"/telemetry/samples/2/v/0", json::array({0}),
            "telemetry.samples[2].v[0]: expected an [index, value] pair, found [0]"},
        {"/telemetry/samples/2/v/0/1", "Infinity",
            "telemetry.samples[2].v[0][1]: expected a number, \"NaN\", \"+Inf\" or \"-Inf\", found "
            "\"Infinity\""},
        {"/telemetry/samples/2/v/0/1", nullptr,
            "telemetry.samples[2].v[0][1]: expected a number, \"NaN\", \"+Inf\" or \"-Inf\", found null"},
        {"/telemetry/samples/2/v/0/0", 0.5,
            "telemetry.samples[2].v[0][0]: expected a whole number, found 0.5"},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(c.pointer);
        json j = good;
        j[json::json_pointer(c.pointer)] = c.value;
        expectParseError(j, Kind::BadField, {c.message});
    }
}

TEST(TelemetryFile, HandWrittenMinimalTelemetryLoads)
{
    json j = fileJson(makeResult());
    j["telemetry"] = json::parse(R"({"sources": [{"endpoint": 1, "url": "http://h:9100/metrics",
        "series": [{"name": "node_memory_MemAvailable_bytes"}]}],
        "samples": [{"s": 0, "t": 5, "v": [[0, 1024]]}, {"s": 0, "t": 338, "error": "connection refused"}]})");
    const RunResult back = parseResults(bytesOf(j), QStringLiteral("run.json"));
    ASSERT_EQ(back.telemetry.sources.size(), 1u);
    const TelemetrySource& s = back.telemetry.sources[0];
    EXPECT_EQ(s.endpoint, 1);
    EXPECT_EQ(s.kind, TelemetrySource::Kind::Exporter);
    EXPECT_EQ(s.series[0].type, MetricType::Untyped);
    ASSERT_EQ(back.telemetry.samples.size(), 2u);
    EXPECT_EQ(back.telemetry.samples[0].value(0), 1024.0);
    EXPECT_EQ(back.telemetry.samples[0].phase, TelemetrySample::Phase::Run);
    EXPECT_FALSE(back.telemetry.samples[1].ok());
}
