// SPDX-License-Identifier: MIT
// The report's "Prompt length and prefill" section (report/ContextSection.cpp): the slope per
// endpoint with its interval and source, the chart's figure, correctness by context length and
// depth, TTFT and memory at each length, the prefix-cache mode the suite measured and the share of
// prompt tokens served from cache; absent when the run has no prompts of different lengths.
#include "model/core/Clock.h"
#include "model/decide/Report.h"
#include "model/evaluate/Evaluation.h"
#include "tests/report/ReportTestSupport.h"
#include "tests/stats/StatsTestSupport.h"
#include "tests/stats/TelemetryTestSupport.h"

#include <cstdio>
#include <gtest/gtest.h>

using namespace qs;
using namespace qs::test;
using json = nlohmann::json;

namespace {

const int sizes[] = {1024, 2048, 4096, 8192, 16384, 30000};

/// q4km (300 ms per 1K tokens) and nvfp4 (40 ms per 1K, misses the deep fact from 16K on), a
/// context sweep of 6 sizes × 2 depths, 3 runs each, requests 1 s apart.
RunResult sweepRun(const char* cacheMode, bool reportCached = false)
{
    RunResult run = makeRun({QStringLiteral("q4km"), QStringLiteral("nvfp4")});
    json tests = json::array();
    double at = 1000;
    for (int size : sizes)
        for (double depth : {0.25, 0.75}) {
            const QString id = QStringLiteral("ctx-%1-%2").arg(size).arg(depth < 0.5 ? u"a" : u"b");
            tests.push_back({{"id", id.toStdString()}, {"prompt", "When is the dentist?"},
                {"expect", json::array({"Thursday"})},
                {"context", {{"tokens", size}, {"fact", "The dentist is on Thursday."}, {"depth", depth}}}});
            for (int i = 1; i <= 3; ++i)
                for (int e = 0; e < 2; ++e) {
                    const qint64 prompt = size + 5 * i;
                    RunRecord r = record({.endpoint = e,
                        .test = id,
                        .iteration = i,
                        .ttftMs
                        = e == 0 ? 60 + 0.3 * double(prompt) + 7 * i : 80 + 0.04 * double(prompt) + 3 * i,
                        .promptTokens = prompt});
                    if (reportCached)
                        r.request.metrics.cachedPromptTokens = {prompt / 4, CountSource::ServerTimings};
                    r.gates = {{"expected_answer", !(e == 1 && size >= 16000 && depth > 0.5)}};
                    r.startOffsetMs = at;
                    r.request.metrics.streamEndMs = 500;
                    at += 1000;
                    run.records.push_back(r);
                }
        }
    run.suite = {{"id", "context-sweep"}, {"tests", tests}};
    if (cacheMode)
        run.suite["prefix_cache"] = cacheMode;
    return run;
}

/// Host memory that follows the context of the request in flight: 20 GiB + 1 GiB per 1K tokens.
void addMemory(RunResult& run)
{
    TelemetryBuilder tb(run.telemetry);
    for (int e = 0; e < 2; ++e) {
        const int node = tb.source(e, QStringLiteral("http://spark-%1:9100/metrics").arg(e));
        tb.sample(node, 0, TelemetrySample::Phase::IdleBefore, hostMemory(18 * GiB, 128 * GiB));
        for (const RunRecord& r : run.records) {
            if (r.endpoint != e)
                continue;
            const double size = double(r.request.metrics.promptTokens.value.value_or(0));
            tb.sample(node, r.startOffsetMs + 250, TelemetrySample::Phase::Run,
                hostMemory((20 + size / 1024.0) * GiB, 128 * GiB));
        }
        tb.sample(node, 1e9, TelemetrySample::Phase::IdleAfter, hostMemory(18 * GiB, 128 * GiB));
    }
}

struct Fixture {
    RunResult run;
    Evaluation ev;
    ReportInput input;
    explicit Fixture(RunResult r)
        : run(std::move(r))
    {
        ev = evaluate(run, 0);
        input.result = &run;
        input.evaluation = &ev;
        input.profile.id = QStringLiteral("voice-assistant");
        input.generatedAt = utcDateTime(QDate(2026, 3, 15), QTime(12, 0));
        input.charts = reportCharts(run, ev);
        for (ReportChart& c : input.charts)
            c.source = QStringLiteral("run-assets/") + c.name + QStringLiteral(".png");
    }
};

QString sectionOf(const QString& md, const QString& title)
{
    const auto at = md.indexOf(title);
    if (at < 0)
        return {};
    return md.mid(at, md.indexOf(QStringLiteral("\n## "), at + 3) - at);
}

QString printed(const QString& md)
{
    if (qEnvironmentVariableIsSet("QS_PRINT_REPORT"))
        std::printf("%s\n", qPrintable(md));
    return md;
}

} // namespace

TEST(ReportContext, SlopesCorrectnessAndCacheMode)
{
    Fixture f(sweepRun("cold"));
    const PrefillScaling& p = f.ev.prefill;
    ASSERT_EQ(p.source, PrefillSource::ContextSweep);
    ASSERT_TRUE(p.endpoints[0].msPer1kTokens && p.endpoints[0].interval);
    const QString md = printed(reportMarkdown(f.input));
    const QString s = sectionOf(md, QStringLiteral("## Prompt length and prefill"));
    ASSERT_FALSE(s.isEmpty()) << qPrintable(md);
    // After the results tables, before the resources.
    EXPECT_GT(
        md.indexOf(QStringLiteral("## Prompt length and prefill")), md.indexOf(QStringLiteral("## Results")));
    EXPECT_LT(md.indexOf(QStringLiteral("## Prompt length and prefill")),
        md.indexOf(QStringLiteral("## Resources")));

    // The method and the source, in words.
    EXPECT_TRUE(s.contains(QStringLiteral("the context sweep"))) << qPrintable(s);
    EXPECT_TRUE(s.contains(QStringLiteral("resamples distinct prompts whole (2000 resamples)")))
        << qPrintable(s);
    // One row per endpoint: the slope and its interval, the evaluation's numbers.
    for (const EndpointPrefill& e : p.endpoints) {
        const QString row = QStringLiteral("| %1 | **%2** | %3 – %4 |")
                                .arg(e.label, msPer1kText(*e.msPer1kTokens), msPer1kText(e.interval->lo),
                                    msPer1kText(e.interval->hi));
        EXPECT_TRUE(s.contains(row)) << qPrintable(row) << '\n' << qPrintable(s);
    }
    // The chart, by its figure number under Charts.
    int figure = 0;
    for (const ReportChart& c : f.input.charts) {
        ++figure;
        if (c.name == u"ttft-prompt-tokens")
            break;
    }
    EXPECT_TRUE(s.contains(QStringLiteral("Figure %1 (TTFT vs prompt tokens").arg(figure))) << qPrintable(s);
    EXPECT_TRUE(md.contains(QStringLiteral("![TTFT vs prompt tokens](run-assets/ttft-prompt-tokens.png)")));

    // The cache mode the suite measured.
    EXPECT_TRUE(s.contains(QStringLiteral("**cold: prefill measured, nothing served from cache**")))
        << qPrintable(s);
    // Correctness by context length and by depth.
    EXPECT_TRUE(s.contains(QStringLiteral("### Correctness by context length")));
    EXPECT_TRUE(s.contains(QStringLiteral("| Endpoint | 1K | 2K | 4K | 8K | 16K | 30K |"))) << qPrintable(s);
    EXPECT_TRUE(s.contains(QStringLiteral("| q4km | 6/6 (100 %) | 6/6 (100 %) | 6/6 (100 %) | 6/6 (100 %) | "
                                          "6/6 (100 %) | 6/6 (100 %) |")))
        << qPrintable(s);
    EXPECT_TRUE(s.contains(QStringLiteral("| nvfp4 | 6/6 (100 %) | 6/6 (100 %) | 6/6 (100 %) | 6/6 (100 %) | "
                                          "**3/6 (50 %)** | **3/6 (50 %)** |")))
        << qPrintable(s);
    EXPECT_TRUE(s.contains(QStringLiteral("### Correctness by depth of the fact")));
    EXPECT_TRUE(s.contains(QStringLiteral("| nvfp4 | 18/18 (100 %) | **12/18 (67 %)** |"))) << qPrintable(s);
    // Without telemetry, memory is said to be unmeasured, not shown as 0.
    EXPECT_TRUE(s.contains(QStringLiteral("Memory at each size was not measured")));
    EXPECT_FALSE(s.contains(QStringLiteral("Memory (peak)")));

    const QString html = reportHtml(f.input);
    EXPECT_TRUE(html.contains(QStringLiteral("<h2>Prompt length and prefill</h2>")));
    EXPECT_TRUE(html.contains(QStringLiteral("cold: prefill measured, nothing served from cache")));
}

TEST(ReportContext, MemoryAtEachContextAndTheCachedShare)
{
    RunResult run = sweepRun("warm", true);
    addMemory(run);
    Fixture f(std::move(run));
    const QString s
        = sectionOf(printed(reportMarkdown(f.input)), QStringLiteral("## Prompt length and prefill"));
    ASSERT_FALSE(s.isEmpty());
    EXPECT_TRUE(s.contains(QStringLiteral("**warm: production's pattern**"))) << qPrintable(s);
    // A quarter of every prompt came from the cache, as the server said.
    EXPECT_TRUE(
        s.contains(QStringLiteral("q4km: 25 % of the prompt tokens were served from the prefix cache, as "
                                  "the server reported over 36 of its 36 requests.")))
        << qPrintable(s);
    EXPECT_TRUE(s.contains(QStringLiteral("| Memory (peak) |"))) << qPrintable(s);
    // 30K on q4km: 20 GiB + 30,015/1024 GiB = 52.9 GB, decimal.
    const ContextRow& row = f.ev.prefill.endpoints[0].contexts.back();
    ASSERT_TRUE(row.memoryPeak.value);
    EXPECT_DOUBLE_EQ(*row.memoryPeak.value, (20 + 30015 / 1024.0) * GiB);
    EXPECT_TRUE(s.contains(QStringLiteral("| 30K | q4km | 2 |"))) << qPrintable(s);
    EXPECT_TRUE(s.contains(QStringLiteral("52.9 GB"))) << qPrintable(s);
}

TEST(ReportContext, NotStatedAndMultiTurnWithoutASlope)
{
    // One conversation of five turns: the multi-turn source, no slope, and why; no chart for it.
    RunResult run = makeRun({QStringLiteral("q4km"), QStringLiteral("nvfp4")});
    run.suite = {{"id", "voice-assistant"}, {"tests", json::array()}};
    for (int turn = 1; turn <= 5; ++turn)
        for (int i = 1; i <= 3; ++i)
            for (int e = 0; e < 2; ++e)
                run.records.push_back(record({.endpoint = e,
                    .test = QStringLiteral("chat"),
                    .turn = turn,
                    .iteration = i,
                    .ttftMs = e == 0 ? 300.0 * turn : 90.0 + turn,
                    .promptTokens = 300 * turn}));
    Fixture f(std::move(run));
    const QString s
        = sectionOf(printed(reportMarkdown(f.input)), QStringLiteral("## Prompt length and prefill"));
    ASSERT_FALSE(s.isEmpty());
    EXPECT_TRUE(s.contains(QStringLiteral("multi-turn conversations")));
    EXPECT_TRUE(s.contains(QStringLiteral("| q4km | *no slope* |"))) << qPrintable(s);
    EXPECT_TRUE(s.contains(QStringLiteral("q4km: only 1 distinct prompt: a slope needs at least 3")))
        << qPrintable(s);
    EXPECT_TRUE(s.contains(QStringLiteral("**not stated**"))) << qPrintable(s);
    EXPECT_FALSE(s.contains(QStringLiteral("Correctness by context length")));
    for (const ReportChart& c : f.input.charts)
        EXPECT_NE(c.name, QStringLiteral("ttft-prompt-tokens"));
}

TEST(ReportContext, AbsentWithoutPromptsOfDifferentLengths)
{
    RunResult run = makeRun({QStringLiteral("q4km"), QStringLiteral("nvfp4")});
    for (int i = 1; i <= 3; ++i)
        for (int e = 0; e < 2; ++e)
            run.records.push_back(
                record({.endpoint = e, .test = QStringLiteral("greeting"), .iteration = i}));
    Fixture f(std::move(run));
    EXPECT_FALSE(reportMarkdown(f.input).contains(QStringLiteral("Prompt length and prefill")));
    EXPECT_FALSE(reportHtml(f.input).contains(QStringLiteral("Prompt length and prefill")));
}
