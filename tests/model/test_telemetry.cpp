// SPDX-License-Identifier: MIT
// A clean run against the emulator with its /metrics on, in each dialect, plus the simulated
// DCGM and node exporters that follow its load: the server's generated-token counter moves by
// exactly the completion tokens the records carry, and none of the server guardrails fires. Then
// scripted DCGM exporters whose energy counters step by exactly 1 J per generated token when each
// request ends: energy per token must read 1.00 J, interleaved with another endpoint, per GPU, with
// a GPU blank in some scrapes, and only on the GPUs the URL names.
#include "ClientTestSupport.h"
#include "RunTestSupport.h"
#include "SuiteFixtures.h"
#include "model/core/Clock.h"
#include "model/evaluate/Guardrails.h"
#include "model/evaluate/Resources.h"
#include "tests/support/ExporterServer.h"

#include <QCoreApplication>
#include <gtest/gtest.h>

using namespace qs;
using namespace qs::test;

namespace {

class CleanRun : public ::testing::TestWithParam<emu::Dialect> { };

} // namespace

TEST_P(CleanRun, ServerCountsTheTokensTheRecordsCarryAndNoServerGuardrailFires)
{
    // Replies of a few dozen tokens, two in flight at once, warm-ups included: the server's
    // counters count every request, so the client's sums must too.
    emu::ServerConfig c;
    c.dialect = GetParam();
    c.metricsEnabled = true;
    c.script = emu::simpleScript(24, 10, 400);
    Served served(c);
    const emu::EmulatorServer* server = served.thread->server();
    const auto load = [server] { return server->load(); };
    emu::ExporterThread dcgm, node;
    ASSERT_TRUE(dcgm.start(
        emu::ExporterConfig::simulated(emu::ExporterKind::Dcgm, QStringLiteral("q4km-like"), load)));
    ASSERT_TRUE(node.start(
        emu::ExporterConfig::simulated(emu::ExporterKind::Node, QStringLiteral("q4km-like"), load)));

    RunRequest request;
    request.suite = smallSuite(1, 3);
    RunEndpoint e;
    e.endpoint = served.endpoint;
    e.endpoint.label = QStringLiteral("E");
    e.endpoint.metricsUrls = {dcgm.metricsUrl().toString(), node.metricsUrl().toString()};
    e.spec = e.endpoint.baseUrl.toString();
    request.endpoints = {e};
    request.settings.scrapeMs = 50;
    request.settings.concurrency = 2;
    const Outcome outcome = run(request);
    ASSERT_TRUE(outcome.result) << outcome.failed.toStdString();
    const std::optional<RunResult>& result = outcome.result;

    double completion = 0;
    for (const RunRecord& r : result->records) {
        ASSERT_TRUE(r.request.ok()) << r.request.failure.text().toStdString();
        ASSERT_TRUE(r.request.metrics.completionTokens.value);
        completion += double(*r.request.metrics.completionTokens.value);
    }
    ASSERT_GT(completion, 0);

    const ResourceReport report = computeResources(*result);
    ASSERT_EQ(report.endpoints.size(), 1u);
    const EndpointResources& res = report.endpoints[0];
    ASSERT_TRUE(res.serverGeneratedTokens) << res.notes.join(u'\n').toStdString();
    ASSERT_TRUE(res.clientGeneratedTokens);
    EXPECT_DOUBLE_EQ(*res.clientGeneratedTokens, completion);
    EXPECT_DOUBLE_EQ(*res.serverGeneratedTokens, *res.clientGeneratedTokens);
    // vLLM and SGLang count prompt tokens too (llama-server's counter is not read as one).
    if (GetParam() != emu::Dialect::LlamaServer) {
        ASSERT_TRUE(res.serverPromptTokens);
        ASSERT_TRUE(res.clientPromptTokens);
        EXPECT_DOUBLE_EQ(*res.serverPromptTokens, *res.clientPromptTokens);
    }
    // The exporters were read too: unified memory, power and energy.
    EXPECT_EQ(res.memoryKind, QStringLiteral("host"));
    EXPECT_TRUE(res.memoryIdle.value);
    EXPECT_TRUE(res.memoryPeak.value);
    EXPECT_TRUE(res.powerMedian.value);
    EXPECT_TRUE(res.energyPerToken.value);
    EXPECT_EQ(res.failedScrapes, 0);

    const QStringList serverIds = {QStringLiteral("server_token_mismatch"), QStringLiteral("server_queueing"),
        QStringLiteral("server_preemptions"), QStringLiteral("kv_cache_near_full"),
        QStringLiteral("memory_grew"), QStringLiteral("server_restarted"), QStringLiteral("telemetry_gaps")};
    for (const Guardrail& g : checkGuardrails(*result)) {
        if (!serverIds.contains(g.id))
            continue;
        EXPECT_EQ(g.severity, Guardrail::Severity::Info)
            << g.id.toStdString() << ": " << g.evidence.toStdString();
    }
}

namespace {

/// A scripted DCGM exporter beside `server` whose energy counter steps by exactly 1 J per
/// generated token at the moment each request ends on the server (endNs), and moves at no other
/// time: the true energy per token is 1.00 J, and the steps land at the edges of serving, where a
/// counter that updates in steps puts them.
emu::ExporterConfig steppingExporter(const emu::EmulatorServer* server, int gpus)
{
    emu::ExporterConfig c;
    c.kind = emu::ExporterKind::Dcgm;
    c.gpus = gpus;
    c.energyJoules = [server](double) {
        double joules = 0;
        for (const emu::ServedRequest& r : server->servedRequests())
            if (r.endNs > 0)
                joules += r.completionTokens;
        return joules;
    };
    return c;
}

/// Two endpoints, each with its own stepping exporter, run interleaved (A's request, then B's) at
/// the default scrape period: each endpoint's serving is cut by the other's requests, so every one
/// of its steps lands after its serving ended and before its next request started.
RunRequest steppingRun(const std::vector<std::pair<Endpoint, QUrl>>& arms)
{
    RunRequest request;
    request.suite = smallSuite(1, 2);
    for (const auto& [endpoint, exporter] : arms) {
        RunEndpoint e;
        e.endpoint = endpoint;
        e.endpoint.label = QString(QChar(u'A' + int(request.endpoints.size())));
        e.endpoint.metricsUrls = {exporter.toString()};
        e.spec = e.endpoint.baseUrl.toString();
        request.endpoints.push_back(e);
    }
    request.settings.scrapeMs = DefaultScrapeMs;
    request.settings.concurrency = 1;
    request.settings.order = RunOrder::Interleaved;
    return request;
}

} // namespace

TEST(SteppedEnergy, ACounterThatStepsWhenEachRequestEndsReadsOneJoulePerToken)
{
    emu::ServerConfig c;
    c.script = emu::simpleScript(30, 20, 100); // ~320 ms a request
    Served a(c), b(c);
    emu::ExporterThread dcgmA, dcgmB;
    ASSERT_TRUE(dcgmA.start(steppingExporter(a.thread->server(), 1)));
    ASSERT_TRUE(dcgmB.start(steppingExporter(b.thread->server(), 1)));
    const Outcome outcome
        = run(steppingRun({{a.endpoint, dcgmA.metricsUrl()}, {b.endpoint, dcgmB.metricsUrl()}}));
    ASSERT_TRUE(outcome.result) << outcome.failed.toStdString();
    for (const RunRecord& r : outcome.result->records)
        ASSERT_TRUE(r.request.ok()) << r.request.failure.text().toStdString();

    for (const EndpointResources& res : computeResources(*outcome.result).endpoints) {
        ASSERT_TRUE(res.energyPerToken.value) << res.notes.join(u'\n').toStdString();
        std::printf(
            "stepped counter, %s: %.4f J per token\n", qPrintable(res.label), *res.energyPerToken.value);
        EXPECT_NEAR(*res.energyPerToken.value, 1.0, 0.01) << res.energyPerToken.source.toStdString();
    }
}

TEST(SteppedEnergy, EveryGpuOfTheMachineUnlessTheUrlNamesSomeAndABlankGpuIsAGap)
{
    // Two GPUs whose counters both step by 1 J a token; GPU 1 is blank (DCGM's sentinel) in the
    // scrapes taken while 3 or 4 requests had ended.
    emu::ServerConfig c;
    c.script = emu::simpleScript(30, 20, 100);
    Served a(c);
    const emu::EmulatorServer* server = a.thread->server();
    emu::ExporterConfig x = steppingExporter(server, 2);
    x.blank = [server](int gpu, double) {
        int ended = 0;
        for (const emu::ServedRequest& r : server->servedRequests())
            ended += r.endNs > 0 && r.completionTokens > 0 ? 1 : 0;
        return gpu == 1 && (ended == 3 || ended == 4);
    };
    emu::ExporterThread dcgm;
    ASSERT_TRUE(dcgm.start(x));
    const Outcome outcome = run(steppingRun({{a.endpoint, dcgm.metricsUrl()}}));
    ASSERT_TRUE(outcome.result) << outcome.failed.toStdString();
    RunResult result = *outcome.result;
    int blanks = 0;
    for (const TelemetrySample& sample : result.telemetry.samples)
        for (const auto& [index, value] : sample.values)
            blanks += isDcgmSentinel(value) ? 1 : 0;
    ASSERT_GT(blanks, 0) << "the exporter never wrote a blank reading: the scenario did not happen";

    const auto energy = [&result](const QString& selection) {
        for (TelemetrySource& s : result.telemetry.sources)
            if (s.kind == TelemetrySource::Kind::Exporter)
                s.url = scrapedUrl(s.url) + selection;
        return computeResources(result).endpoints.at(0);
    };
    const EndpointResources machine = energy(QString());
    ASSERT_TRUE(machine.energyPerToken.value) << machine.notes.join(u'\n').toStdString();
    EXPECT_NEAR(*machine.energyPerToken.value, 2.0, 0.02) << machine.energyPerToken.source.toStdString();
    EXPECT_TRUE(machine.energyPerToken.wholeMachine);
    EXPECT_EQ(machine.energyPerToken.series, 2);
    for (const QString& selection : {QStringLiteral("#gpu=0"), QStringLiteral("#gpu=1")}) {
        const EndpointResources one = energy(selection);
        ASSERT_TRUE(one.energyPerToken.value) << one.notes.join(u'\n').toStdString();
        EXPECT_NEAR(*one.energyPerToken.value, 1.0, 0.01)
            << selection.toStdString() << ": " << one.energyPerToken.source.toStdString();
        EXPECT_FALSE(one.energyPerToken.wholeMachine);
        EXPECT_EQ(one.energyPerToken.series, 1);
    }
}

INSTANTIATE_TEST_SUITE_P(Dialects, CleanRun,
    ::testing::Values(emu::Dialect::LlamaServer, emu::Dialect::Vllm, emu::Dialect::Sglang),
    [](const ::testing::TestParamInfo<emu::Dialect>& p) {
        switch (p.param) {
        case emu::Dialect::LlamaServer:
            return std::string("LlamaServer");
        case emu::Dialect::Vllm:
            return std::string("Vllm");
        case emu::Dialect::Sglang:
            return std::string("Sglang");
        }
        return std::string("Unknown");
    });
