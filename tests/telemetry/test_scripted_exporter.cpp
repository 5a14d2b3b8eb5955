// SPDX-License-Identifier: MIT
// The scripted DCGM exporter the energy tests run against (tests/support/ExporterServer), read with
// Quantscope's own client and parser: with a refresh period its counter moves in steps, one
// period's energy each, as real exporters' do (dcgm-exporter -c); a GPU scripted blank is written
// as DCGM's sentinel, which reads as no value of that GPU alone.
#include "model/core/MetricCatalog.h"
#include "model/wire/PrometheusText.h"
#include "model/wire/ScrapeReduction.h"
#include "tests/support/ExporterServer.h"
#include "tests/telemetry/PageFetch.h"

#include <QElapsedTimer>
#include <QThread>
#include <gtest/gtest.h>

namespace qs {
namespace {

TEST(ScriptedExporter, ARefreshPeriodMakesTheCounterMoveInStepsAndABlankGpuIsDcgmsSentinel)
{
    emu::ExporterConfig c;
    c.gpus = 2;
    c.energyJoules = [](double elapsedMs) { return 0.1 * elapsedMs; }; // 100 W
    c.updateMs = 250;
    c.blank = [](int gpu, double) { return gpu == 1; };
    emu::ExporterThread exporter;
    ASSERT_TRUE(exporter.start(c));

    TelemetrySource source;
    source.url = exporter.metricsUrl().toString();
    std::vector<double> joules;
    QElapsedTimer elapsed;
    elapsed.start();
    while (elapsed.elapsed() < 1500) {
        const test::Fetched f = test::fetch(exporter.metricsUrl());
        ASSERT_EQ(f.status, 200) << f.failure.toStdString();
        PromError error;
        const auto page
            = parsePrometheusText(std::string_view(f.body.constData(), std::size_t(f.body.size())),
                promFormatFromContentType(f.contentType.toStdString()), &error);
        ASSERT_TRUE(page) << error.text();
        const TelemetrySample sample = reducePage(*page, source, 0, 0, 0, TelemetrySample::Phase::Run);
        const std::vector<SeriesReading> gpus = readRoleSeries(source, sample, MetricRole::GpuEnergy);
        ASSERT_EQ(gpus.size(), 2U);
        ASSERT_TRUE(gpus[0].value);
        EXPECT_FALSE(gpus[1].value) << "GPU 1 is blank";
        joules.push_back(*gpus[0].value);
        QThread::msleep(40);
    }
    // ~30 scrapes over 1.5 s, ~6 refreshes: most scrapes see no change, and each change is one
    // period's energy, 100 W × 250 ms.
    std::vector<double> steps;
    int unchanged = 0;
    for (std::size_t i = 1; i < joules.size(); ++i) {
        ASSERT_GE(joules[i], joules[i - 1]);
        if (joules[i] == joules[i - 1])
            ++unchanged;
        else
            steps.push_back(joules[i] - joules[i - 1]);
    }
    ASSERT_GE(steps.size(), 3U);
    EXPECT_GT(unchanged, int(steps.size()));
    std::sort(steps.begin(), steps.end());
    EXPECT_NEAR(steps[steps.size() / 2], 25.0, 5.0);
}

} // namespace
} // namespace qs
