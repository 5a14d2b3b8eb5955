// SPDX-License-Identifier: MIT
// Energy per token and median power over hand-built telemetry: every GPU apart (a blank reading is
// a gap, not a drop and a jump), only the GPUs the URL names, gaps scaled instead of lost, a
// counter that moves in steps, idle power taken out of the scrape intervals at the edges of
// serving, and the figures' own uncertainty checked against the truth over many simulated runs.
// Every expected figure is worked out from the script, not by the code under test.
#include "model/evaluate/Resources.h"
#include "tests/stats/StatsTestSupport.h"
#include "tests/stats/TelemetryTestSupport.h"

#include <algorithm>
#include <cmath>
#include <gtest/gtest.h>

using namespace qs;
using namespace qs::test;
using Phase = TelemetrySample::Phase;

namespace {

constexpr double Blank = 9223372036854775792.0; // DCGM's int64 blank, as an exporter prints it

RunRecord served(double startMs, double durationMs, qint64 tokens)
{
    Req q;
    q.completionTokens = tokens;
    RunRecord r = record(q);
    r.startOffsetMs = startMs;
    r.request.timing.t0Ns = 1'000'000'000;
    r.request.timing.endNs = r.request.timing.t0Ns + qint64(durationMs * 1e6);
    return r;
}

std::vector<std::pair<QString, QString>> gpuLabels(int gpu)
{
    return {{QStringLiteral("gpu"), QString::number(gpu)},
        {QStringLiteral("UUID"), QStringLiteral("GPU-%1").arg(gpu)},
        {QStringLiteral("Hostname"), QStringLiteral("box")}};
}

/// Power that follows the requests: `busyW` while any is in flight, `idleW` otherwise, and the
/// energy it adds up to, exactly, at any moment.
struct Load {
    std::vector<std::pair<double, double>> busy; ///< [start, end] ms, sorted, not overlapping
    double idleW = 20;
    std::vector<double> busyW; ///< per busy stretch; empty: `flatBusyW` for all
    double flatBusyW = 200;

    double powerAt(double t) const
    {
        for (std::size_t i = 0; i < busy.size(); ++i)
            if (t >= busy[i].first && t < busy[i].second)
                return busyW.empty() ? flatBusyW : busyW[i];
        return idleW;
    }
    double joulesUntil(double t) const
    {
        double j = idleW * t / 1000;
        for (std::size_t i = 0; i < busy.size(); ++i) {
            const double w = (busyW.empty() ? flatBusyW : busyW[i]) - idleW;
            j += w * std::max(0.0, std::min(t, busy[i].second) - busy[i].first) / 1000;
        }
        return j;
    }
};

Phase phaseAt(double t, double lastMs)
{
    return t <= 0 ? Phase::IdleBefore : t >= lastMs ? Phase::IdleAfter : Phase::Run;
}

/// Scrapes every `periodMs` from 0 through `untilMs`: the first is the idle baseline before, the
/// last the one after.
std::vector<std::pair<double, Phase>> scrapes(double untilMs, double periodMs)
{
    std::vector<std::pair<double, Phase>> out;
    for (int k = 0; k * periodMs <= untilMs; ++k)
        out.emplace_back(k * periodMs, k == 0 ? Phase::IdleBefore : Phase::Run);
    out.back().second = Phase::IdleAfter;
    return out;
}

/// Three requests [1, 4], [6, 9], [11, 14] s of 300 tokens each on a two-GPU DCGM exporter
/// (GPU 0: 200 W busy, GPU 1: 100 W; both 20 W idle; lifetime counters of 4 and 9 MJ), scraped
/// every 500 ms from 0 to 15.5 s, off the requests' edges. GPU 1 is blank at 7.5 s.
RunResult twoGpuRun(const QString& url)
{
    RunResult run = makeRun({QStringLiteral("E")});
    run.records = {served(1000, 3000, 300), served(6000, 3000, 300), served(11000, 3000, 300)};
    Load gpu0 {{{1000, 4000}, {6000, 9000}, {11000, 14000}}, 20, {}, 200};
    Load gpu1 = gpu0;
    gpu1.flatBusyW = 100;
    TelemetryBuilder b(run.telemetry);
    const int dcgm = b.source(0, url);
    for (double t = 0; t <= 15500; t += 500) {
        const double at = t == 0 ? 0 : t - 250;
        const bool blank = at == 7250;
        b.sample(dcgm, at, phaseAt(at, 15250),
            {{QStringLiteral("DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION"), 4e9 + 1000 * gpu0.joulesUntil(at),
                 gpuLabels(0)},
                {QStringLiteral("DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION"),
                    blank ? Blank : 9e9 + 1000 * gpu1.joulesUntil(at), gpuLabels(1)},
                {QStringLiteral("DCGM_FI_DEV_POWER_USAGE"), gpu0.powerAt(at), gpuLabels(0)},
                {QStringLiteral("DCGM_FI_DEV_POWER_USAGE"), blank ? Blank : gpu1.powerAt(at), gpuLabels(1)}});
    }
    return run;
}

EndpointResources resourcesOf(const RunResult& run)
{
    return computeResources(run).endpoints.at(0);
}

QString notesOf(const EndpointResources& r)
{
    return r.notes.join(u'\n');
}

} // namespace

TEST(Energy, ABlankGpuInOneScrapeIsAGapInItsOwnSeriesNotAJump)
{
    const EndpointResources r = resourcesOf(twoGpuRun(QStringLiteral("http://box:9400/metrics")));
    // 9 s of serving at 200 + 100 W over 900 tokens: 3 J a token. Summed, GPU 1's blank would have
    // dropped the counter (read as a reset) and then added its whole 9 MJ lifetime.
    ASSERT_TRUE(r.energyPerToken.value) << notesOf(r).toStdString();
    EXPECT_NEAR(*r.energyPerToken.value, 2700.0 / 900.0, 1e-9) << r.energyPerToken.source.toStdString();
    EXPECT_TRUE(r.energyPerToken.source.contains(QStringLiteral("idle power 40.0 W")))
        << r.energyPerToken.source.toStdString();
    EXPECT_EQ(r.energyPerToken.uncertainty.coverage, 1.0);
    EXPECT_FALSE(r.energyPerToken.uncertainty.scaled);
    // The blank scrape is a gap in the summed power, not a 200 W dip: 18 samples while serving, 17
    // of them whole, every one 300 W.
    ASSERT_TRUE(r.powerMedian.value);
    EXPECT_DOUBLE_EQ(*r.powerMedian.value, 300);
    EXPECT_EQ(r.powerMedian.samples, 17);
    EXPECT_TRUE(notesOf(r).contains(QStringLiteral("were blank or missing (DCGM's sentinel)")))
        << notesOf(r).toStdString();
    EXPECT_FALSE(notesOf(r).contains(QStringLiteral("counter reset")));
}

TEST(Energy, OnlyTheGpusTheUrlNamesAreCountedElseTheFigureIsTheWholeMachines)
{
    const EndpointResources all = resourcesOf(twoGpuRun(QStringLiteral("http://box:9400/metrics")));
    EXPECT_TRUE(all.wholeMachine);
    EXPECT_TRUE(all.energyPerToken.wholeMachine);
    EXPECT_EQ(all.energyPerToken.series, 2);
    EXPECT_TRUE(all.powerMedian.wholeMachine);
    EXPECT_TRUE(notesOf(all).contains(
        QStringLiteral("http://box:9400/metrics reports 2 GPUs and its URL names none of them")))
        << notesOf(all).toStdString();

    const EndpointResources first = resourcesOf(twoGpuRun(QStringLiteral("http://box:9400/metrics#gpu=0")));
    ASSERT_TRUE(first.energyPerToken.value);
    EXPECT_NEAR(*first.energyPerToken.value, 1800.0 / 900.0, 1e-9);
    EXPECT_DOUBLE_EQ(*first.powerMedian.value, 200);
    EXPECT_FALSE(first.wholeMachine);
    EXPECT_FALSE(first.energyPerToken.wholeMachine);
    EXPECT_EQ(first.energyPerToken.series, 1);
    EXPECT_EQ(first.energyPerToken.selection, QStringLiteral("gpu=0"));
    EXPECT_FALSE(notesOf(first).contains(QStringLiteral("names none")));

    // By UUID, and the GPU that went blank: its own counter bridges the blank scrape.
    const EndpointResources second
        = resourcesOf(twoGpuRun(QStringLiteral("http://box:9400/metrics#UUID=GPU-1")));
    ASSERT_TRUE(second.energyPerToken.value);
    EXPECT_NEAR(*second.energyPerToken.value, 900.0 / 900.0, 1e-9);
    EXPECT_DOUBLE_EQ(*second.powerMedian.value, 100);

    const EndpointResources none = resourcesOf(twoGpuRun(QStringLiteral("http://box:9400/metrics#gpu=7")));
    EXPECT_FALSE(none.energyPerToken.value);
    EXPECT_FALSE(none.powerMedian.value);
    EXPECT_TRUE(
        notesOf(none).contains(QStringLiteral("the selection #gpu=7 matches none of the page's GPUs (it "
                                              "has gpu=0, gpu=1)")))
        << notesOf(none).toStdString();

    const EndpointResources bad = resourcesOf(twoGpuRun(QStringLiteral("http://box:9400/metrics#gpu")));
    EXPECT_TRUE(bad.energyPerToken.wholeMachine);
    EXPECT_TRUE(notesOf(bad).contains(QStringLiteral("is not a GPU selection")))
        << notesOf(bad).toStdString();
}

TEST(Energy, TwoEndpointsOnTheirOwnGpusOfOneExporterAreNotTheMachine)
{
    RunResult run = makeRun({QStringLiteral("A"), QStringLiteral("B")});
    run.records = {served(1000, 2000, 100), served(4000, 2000, 100)};
    run.records[1].endpoint = 1;
    TelemetryBuilder b(run.telemetry);
    const int a = b.source(0, QStringLiteral("http://box:9400/metrics#gpu=0"));
    const int c = b.source(1, QStringLiteral("http://box:9400/metrics#gpu=1"));
    for (int src : {a, c})
        for (double t = 0; t <= 7000; t += 500)
            b.sample(src, t, phaseAt(t, 7000),
                {{QStringLiteral("DCGM_FI_DEV_POWER_USAGE"), 100, gpuLabels(0)},
                    {QStringLiteral("DCGM_FI_DEV_POWER_USAGE"), 50, gpuLabels(1)}});
    const ResourceReport report = computeResources(run);
    EXPECT_DOUBLE_EQ(*report.endpoints[0].powerMedian.value, 100);
    EXPECT_DOUBLE_EQ(*report.endpoints[1].powerMedian.value, 50);
    for (const EndpointResources& e : report.endpoints) {
        EXPECT_FALSE(e.wholeMachine);
        EXPECT_FALSE(notesOf(e).contains(QStringLiteral("also scraped for")));
    }
}

TEST(Energy, AGapInThePowerGaugeIsScaledByServingOverCoveredTimeNotLost)
{
    // The review's case: 100 s of serving at 300 W and 3,000 tokens is 10 J a token; 31 s of it
    // uncovered (failed scrapes) used to read 6.9.
    RunResult run = makeRun({QStringLiteral("E")});
    run.records = {served(1000, 100000, 3000)};
    TelemetryBuilder b(run.telemetry);
    const int dcgm = b.source(0, QStringLiteral("http://gpu:9400/metrics"));
    for (int k = 0; k <= 102; ++k) {
        const double t = k * 1000.0;
        if (k >= 41 && k <= 70)
            b.failed(dcgm, t, QStringLiteral("connection refused"));
        else
            b.sample(dcgm, t, phaseAt(t, 102000), {{QStringLiteral("DCGM_FI_DEV_POWER_USAGE"), 300}});
    }
    const EndpointResources r = resourcesOf(run);
    ASSERT_TRUE(r.energyPerToken.value);
    EXPECT_NEAR(*r.energyPerToken.value, 10.0, 1e-9);
    EXPECT_NEAR(*r.energyPerToken.uncertainty.coverage, 69.0 / 100.0, 1e-9);
    EXPECT_TRUE(r.energyPerToken.uncertainty.scaled);
    EXPECT_TRUE(
        r.energyPerToken.source.contains(QStringLiteral("over the 69.0 s of serving the samples covered, "
                                                        "scaled to all 100.0 s")))
        << r.energyPerToken.source.toStdString();
    EXPECT_TRUE(notesOf(r).contains(QStringLiteral("energy per token rests on 69 % of the serving time")));
    EXPECT_TRUE(notesOf(r).contains(QStringLiteral("scaled by serving ÷ covered time")));
}

TEST(Energy, IdlePowerIsTakenOutOfTheScrapeIntervalsThatStraddleServing)
{
    // 20 W idle, 200 W serving, scrapes every 400 ms that never fall on an edge: proration by time
    // would give each straddling interval's mix of both its serving share.
    RunResult run = makeRun({QStringLiteral("E")});
    run.records = {served(1100, 2000, 100), served(4700, 1500, 100), served(8300, 2400, 100)};
    const Load load {{{1100, 3100}, {4700, 6200}, {8300, 10700}}, 20, {}, 200};
    TelemetryBuilder b(run.telemetry);
    const int dcgm = b.source(0, QStringLiteral("http://gpu:9400/metrics"));
    for (double t = 0; t <= 13200; t += 400)
        b.sample(dcgm, t, phaseAt(t, 13200),
            {{QStringLiteral("DCGM_FI_DEV_GPU_ENERGY_JOULES_TOTAL"), 5e5 + load.joulesUntil(t)}});
    const EndpointResources r = resourcesOf(run);
    ASSERT_TRUE(r.energyPerToken.value);
    EXPECT_NEAR(*r.energyPerToken.value, 200.0 * 5.9 / 300.0, 1e-9) << r.energyPerToken.source.toStdString();
    EXPECT_FALSE(r.wholeMachine) << "one GPU, one endpoint";
}

namespace {

/// Requests of endpoint 0 every `everyMs` (another endpoint's requests in between), and a counter
/// that steps by exactly 1 J per token once each request ended (`lagMs` later, or at the
/// exporter's next refresh when `updateMs` is set): the scrapes every 333 ms see each step after
/// the request that caused it.
struct Stepping {
    int requests = 10;
    double everyMs = 2000;
    double requestMs = 700;
    qint64 tokens = 35;
    double lagMs = 50;
    double updateMs = 0;
};

RunResult steppingRun(const Stepping& p)
{
    RunResult run = makeRun({QStringLiteral("E")});
    std::vector<double> stepsAt;
    for (int k = 0; k < p.requests; ++k) {
        const double start = 1000 + p.everyMs * k;
        run.records.push_back(served(start, p.requestMs, p.tokens));
        const double landed = start + p.requestMs + p.lagMs;
        stepsAt.push_back(p.updateMs > 0 ? std::ceil(landed / p.updateMs) * p.updateMs : landed);
    }
    TelemetryBuilder b(run.telemetry);
    const int dcgm = b.source(0, QStringLiteral("http://gpu:9400/metrics"));
    for (const auto& [t, phase] : scrapes(stepsAt.back() + 2300, 333)) {
        const double joules = double(p.tokens)
            * double(std::count_if(stepsAt.begin(), stepsAt.end(), [at = t](double s) { return s <= at; }));
        b.sample(
            dcgm, t, phase, {{QStringLiteral("DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION"), 2e9 + 1000 * joules}});
    }
    return run;
}

} // namespace

TEST(Energy, ACounterThatMovesInStepsGivesEachStepToTheServingItMeasured)
{
    // Steps every 2 s, seen 50 ms after each request or at the exporter's next whole second.
    for (const double updateMs : {0.0, 1000.0}) {
        Stepping p;
        p.updateMs = updateMs;
        const EndpointResources r = resourcesOf(steppingRun(p));
        ASSERT_TRUE(r.energyPerToken.value) << notesOf(r).toStdString();
        EXPECT_NEAR(*r.energyPerToken.value, 1.0, 1e-9)
            << updateMs << ": " << r.energyPerToken.source.toStdString();
        EXPECT_TRUE(notesOf(r).contains(QStringLiteral("moves in steps (about every 2.0 s)")))
            << notesOf(r).toStdString();
    }
    // 100 ms requests every 200 ms: nearly every scrape interval holds a step, so the counter
    // looks live, and each interval also holds the other endpoint's time. Sharing the steps out by
    // time would read about half.
    Stepping quick;
    quick.requests = 40;
    quick.everyMs = 200;
    quick.requestMs = 100;
    quick.tokens = 5;
    quick.lagMs = 5;
    const EndpointResources r = resourcesOf(steppingRun(quick));
    ASSERT_TRUE(r.energyPerToken.value) << notesOf(r).toStdString();
    EXPECT_NEAR(*r.energyPerToken.value, 1.0, 1e-9) << r.energyPerToken.source.toStdString();
}

TEST(EnergyUncertainty, EnergyExactlyProportionalToTokensHasATightInterval)
{
    RunResult run = makeRun({QStringLiteral("E")});
    Load load;
    for (int k = 0; k < 40; ++k) {
        const double start = 1000 + 2500.0 * k;
        const double duration = 1000 + 250.0 * (k % 5);
        run.records.push_back(served(start, duration, qint64(duration / 10)));
        load.busy.emplace_back(start, start + duration);
    }
    TelemetryBuilder b(run.telemetry);
    const int dcgm = b.source(0, QStringLiteral("http://gpu:9400/metrics"));
    for (const auto& [t, phase] : scrapes(102000, 333))
        b.sample(dcgm, t, phase,
            {{QStringLiteral("DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION"), 1e9 + 1000 * load.joulesUntil(t)},
                {QStringLiteral("DCGM_FI_DEV_POWER_USAGE"), load.powerAt(t)}});
    const EndpointResources r = resourcesOf(run);
    // 200 W at 100 tokens a second.
    ASSERT_TRUE(r.energyPerToken.value);
    EXPECT_NEAR(*r.energyPerToken.value, 2.0, 1e-9);
    const FigureUncertainty& u = r.energyPerToken.uncertainty;
    ASSERT_TRUE(u.relativeSe) << notesOf(r).toStdString();
    EXPECT_GE(u.blocks, 3);
    EXPECT_LT(*u.relativeSe, 0.01);
    EXPECT_LE(*u.low, 2.0);
    EXPECT_GE(*u.high, 2.0);
    EXPECT_EQ(u.coverage, 1.0);
    ASSERT_TRUE(r.powerMedian.uncertainty.relativeSe);
    EXPECT_EQ(*r.powerMedian.uncertainty.relativeSe, 0) << "every sample while serving is 200 W";
}

namespace {

/// A simulated run: 60 sequential requests of 1–3 s with 0.2–0.8 s between them, 50 tokens a
/// second, each drawing its own power (200 W × lognormal, σ = 0.2) over a 30 W idle, on a live
/// energy counter and a power gauge scraped every 333 ms. Over all such runs, energy per token is
/// E[power] / 50 = 4 · e^{0.02} J and the median power while serving is 200 W.
RunResult simulatedRun(std::uint64_t seed)
{
    Rng rng(seed);
    RunResult run = makeRun({QStringLiteral("E")});
    Load load;
    load.idleW = 30;
    double t = 1000;
    for (int k = 0; k < 60; ++k) {
        const double duration = 20.0 * double(50 + int(rng.uniform() * 101));
        run.records.push_back(served(t, duration, qint64(duration / 20)));
        load.busy.emplace_back(t, t + duration);
        load.busyW.push_back(200 * std::exp(0.2 * rng.normal()));
        t += duration + 200 + 600 * rng.uniform();
    }
    TelemetryBuilder b(run.telemetry);
    const int dcgm = b.source(0, QStringLiteral("http://gpu:9400/metrics"));
    for (const auto& [at, phase] : scrapes(t + 1000, 333))
        b.sample(dcgm, at, phase,
            {{QStringLiteral("DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION"), 1e9 + 1000 * load.joulesUntil(at)},
                {QStringLiteral("DCGM_FI_DEV_POWER_USAGE"), load.powerAt(at)}});
    return run;
}

} // namespace

TEST(EnergyUncertainty, StatedIntervalsCoverTheTruthAsOftenAsTheyClaim)
{
    const double trueEnergy = 4.0 * std::exp(0.02);
    constexpr int Runs = 300;
    int energyCovered = 0;
    int powerCovered = 0;
    double statedSe = 0;
    std::vector<double> estimates;
    for (int seed = 1; seed <= Runs; ++seed) {
        const EndpointResources r = resourcesOf(simulatedRun(std::uint64_t(seed)));
        ASSERT_TRUE(r.energyPerToken.value && r.energyPerToken.uncertainty.relativeSe) << seed;
        ASSERT_TRUE(r.powerMedian.value && r.powerMedian.uncertainty.relativeSe) << seed;
        const FigureUncertainty& e = r.energyPerToken.uncertainty;
        energyCovered += *e.low <= trueEnergy && trueEnergy <= *e.high ? 1 : 0;
        statedSe += *e.relativeSe / Runs;
        estimates.push_back(*r.energyPerToken.value);
        const FigureUncertainty& p = r.powerMedian.uncertainty;
        powerCovered += *p.low <= 200 && 200 <= *p.high ? 1 : 0;
    }
    double mean = 0;
    for (const double x : estimates)
        mean += x / Runs;
    double ss = 0;
    for (const double x : estimates)
        ss += (x - mean) * (x - mean);
    const double actualSe = std::sqrt(ss / (Runs - 1)) / mean;
    std::printf("energy: 95 %% intervals covered the truth in %d of %d runs; stated relative SE %.4f, actual "
                "%.4f; power: %d of %d\n",
        energyCovered, Runs, statedSe, actualSe, powerCovered, Runs);
    EXPECT_NEAR(mean, trueEnergy, 0.01 * trueEnergy) << "the estimate is unbiased";
    EXPECT_GE(energyCovered, int(0.88 * Runs));
    EXPECT_LE(energyCovered, int(0.995 * Runs)) << "not so wide that it says nothing";
    EXPECT_GT(statedSe, 0.7 * actualSe);
    EXPECT_LT(statedSe, 1.5 * actualSe);
    EXPECT_GE(powerCovered, int(0.85 * Runs));
}

TEST(EnergyUncertainty, JsonCarriesTheUncertaintyAndTheScope)
{
    const nlohmann::json j
        = toJson(computeResources(twoGpuRun(QStringLiteral("http://box:9400/metrics#gpu=0"))));
    const nlohmann::json& e = j.at(0);
    EXPECT_EQ(e["whole_machine"], false);
    const nlohmann::json& u = e["energy_per_token_uncertainty"];
    for (const char* key :
        {"relative_se", "interval_low", "interval_high", "interval_level", "blocks", "coverage", "scaled"})
        EXPECT_TRUE(u.contains(key)) << key;
    EXPECT_TRUE(u["relative_se"].is_null()) << "9 s of serving is too short to measure it";
    EXPECT_EQ(u["coverage"], 1.0);
    EXPECT_EQ(u["scaled"], false);
    EXPECT_TRUE(e["power_median_uncertainty"].is_object());
    const nlohmann::json& source = e["figure_sources"]["energy_per_token_j"];
    EXPECT_EQ(source["whole_machine"], false);
    EXPECT_EQ(source["series"], 1);
    EXPECT_EQ(source["selection"], "gpu=0");
    // A long run has them all.
    const nlohmann::json long_ = toJson(computeResources(simulatedRun(7))).at(0);
    EXPECT_TRUE(long_["energy_per_token_uncertainty"]["relative_se"].is_number());
    EXPECT_DOUBLE_EQ(long_["energy_per_token_uncertainty"]["interval_level"].get<double>(), 0.95);
    EXPECT_LT(long_["energy_per_token_uncertainty"]["interval_low"].get<double>(),
        long_["energy_per_token_j"].get<double>());
}
