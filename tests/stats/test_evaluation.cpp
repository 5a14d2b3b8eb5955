// SPDX-License-Identifier: MIT
// Evaluation (one call computing what summary, dashboard and report show), combining files for
// side-by-side review, and the throughput trace.
#include "StatsTestSupport.h"
#include "model/core/Suite.h"
#include "model/evaluate/Evaluation.h"
#include "model/evaluate/ThroughputTrace.h"

#include <gtest/gtest.h>

using namespace qs;
using qs::test::makeRun;
using qs::test::record;
using qs::test::Req;

namespace {

RunResult twoArmRun(double candidateTtft)
{
    RunResult run = makeRun({QStringLiteral("A"), QStringLiteral("B")});
    for (int i = 1; i <= 6; ++i) {
        run.records.push_back(record({.endpoint = 0, .iteration = i, .ttftMs = 100.0 + i}));
        run.records.push_back(record({.endpoint = 1, .iteration = i, .ttftMs = candidateTtft + i}));
    }
    return run;
}

} // namespace

TEST(Evaluation, ComputesEveryPartFromOneRun)
{
    const RunResult run = twoArmRun(50);
    const Evaluation e = evaluate(run);
    EXPECT_EQ(e.baseline, 0);
    EXPECT_TRUE(e.hasComparison);
    ASSERT_EQ(e.comparison.arms.size(), 1u);
    EXPECT_EQ(e.comparison.arms[0].candidate, 1);
    EXPECT_EQ(e.comparison.arms[0].pairedOk, 6);
    EXPECT_EQ(e.summary.records, 12);
    EXPECT_FALSE(e.cells.empty());
    // The same numbers the individual functions give.
    EXPECT_EQ(e.cells.size(), cellStatistics(run).size());
    EXPECT_EQ(e.guardrails.size(), checkGuardrails(run).size());
}

TEST(Evaluation, BaselineIsClampedAndTheBootstrapCanBeSkipped)
{
    const RunResult run = twoArmRun(50);
    const Evaluation e = evaluate(run, 7, {}, false);
    EXPECT_EQ(e.baseline, 1);
    EXPECT_FALSE(e.hasComparison);
    EXPECT_TRUE(e.comparison.arms.empty());
    EXPECT_EQ(evaluate(run, -3).baseline, 0);
    EXPECT_EQ(evaluate(RunResult {}).baseline, 0);
}

TEST(Evaluation, EnsureGatesJudgesRecordsWithoutVerdicts)
{
    RunResult run = makeRun({QStringLiteral("A")});
    run.suite = loadBuiltinSuite(QStringLiteral("quick-smoke")).raw;
    const Suite suite = parseSuite(run.suite, QStringLiteral("t"));
    RunRecord r = record({.test = suite.tests.front().id});
    r.request.response.content = QStringLiteral("**Hello** there.");
    run.records.push_back(r);
    const QString note = ensureGates(run);
    EXPECT_TRUE(note.contains(QStringLiteral("judged now"))) << note.toStdString();
    ASSERT_TRUE(run.records[0].gates->contains("no_markdown"));
    EXPECT_EQ((*run.records[0].gates)["no_markdown"], false);
    EXPECT_TRUE(ensureGates(run).isEmpty()); // nothing left to judge

    RunResult noSuite = makeRun({QStringLiteral("A")});
    noSuite.records.push_back(record({}));
    EXPECT_TRUE(ensureGates(noSuite).contains(QStringLiteral("no suite")));
}

TEST(Evaluation, CombinedFilesAreLabelledAndRenumbered)
{
    RunResult before = twoArmRun(50);
    before.suite = nlohmann::json {{"id", "voice-assistant"}};
    before.complete = true;
    RunResult after = twoArmRun(40);
    after.suite = nlohmann::json {{"id", "other"}};
    after.complete = false;
    const RunResult c
        = combineResults({{QStringLiteral("before"), before}, {QStringLiteral("after"), after}});
    ASSERT_EQ(c.endpoints.size(), 4u);
    EXPECT_EQ(c.endpoints[0].endpoint.label, QStringLiteral("before · A"));
    EXPECT_EQ(c.endpoints[3].endpoint.label, QStringLiteral("after · B"));
    ASSERT_EQ(c.records.size(), 24u);
    EXPECT_EQ(c.records[12].endpoint, 2);
    EXPECT_EQ(c.records[13].endpoint, 3);
    EXPECT_EQ(c.records[13].request.endpointLabel, QStringLiteral("after · B"));
    EXPECT_FALSE(c.complete);
    EXPECT_TRUE(c.note.contains(QStringLiteral("before, after")));
    EXPECT_TRUE(c.note.contains(QStringLiteral("different suite"))) << c.note.toStdString();
    // Pairs across files: the same test, turn and iteration.
    const Evaluation e = evaluate(c);
    ASSERT_EQ(e.comparison.arms.size(), 3u);
    EXPECT_EQ(e.comparison.arms[1].pairedOk, 6);

    // One file comes back unchanged.
    const RunResult one = combineResults({{QStringLiteral("x"), before}});
    EXPECT_EQ(one.endpoints[0].endpoint.label, QStringLiteral("A"));
    EXPECT_TRUE(combineResults({}).endpoints.empty());
}

TEST(ThroughputTrace, CountsEventsPerBucketAndEndpoint)
{
    ThroughputTrace t(500);
    t.add(0, 10);
    t.add(0, 499.9);
    t.add(0, 500);
    t.add(1, 1700, 3);
    t.add(1, -5); // before the run: ignored
    t.add(-1, 10); // no such endpoint: ignored
    EXPECT_EQ(t.endpoints(), 2);
    EXPECT_EQ(t.buckets(), 4);
    EXPECT_EQ(t.count(0, 0), 2);
    EXPECT_EQ(t.count(0, 1), 1);
    EXPECT_EQ(t.count(1, 3), 3);
    EXPECT_DOUBLE_EQ(t.rate(1, 3), 6.0); // 3 events in half a second
    EXPECT_EQ(t.count(5, 0), 0);
    const auto s = t.series(1, 2, 4);
    ASSERT_EQ(s.size(), 2u);
    EXPECT_DOUBLE_EQ(s[1].first, 1.5);
    EXPECT_DOUBLE_EQ(s[1].second, 6.0);
    t.ensureEndpoints(4);
    EXPECT_EQ(t.endpoints(), 4);
}

TEST(ThroughputTrace, BuiltFromRecordTimelinesOnTheRunClock)
{
    RunResult run = makeRun({QStringLiteral("A"), QStringLiteral("B"), QStringLiteral("silent")});
    RunRecord r = record({.endpoint = 1});
    r.startOffsetMs = 1000;
    r.request.timing.t0Ns = 5'000'000'000;
    for (int i = 0; i < 10; ++i) {
        TokenEvent e;
        e.stampNs = r.request.timing.t0Ns + qint64(100 + 50 * i) * 1'000'000; // 100…550 ms after t0
        r.request.response.tokenEvents.push_back(e);
    }
    run.records.push_back(r);
    const ThroughputTrace t = throughputTrace(run, 250);
    EXPECT_EQ(t.endpoints(), 3);
    // Run time 1100…1550 ms: buckets 4 (1000–1250: 1100,1150,1200), 5 (1250–1500: 5), 6 (1500, 1550).
    EXPECT_EQ(t.count(1, 4), 3);
    EXPECT_EQ(t.count(1, 5), 5);
    EXPECT_EQ(t.count(1, 6), 2);
    EXPECT_EQ(t.count(0, 4), 0);
}
