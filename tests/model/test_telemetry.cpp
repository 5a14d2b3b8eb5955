// SPDX-License-Identifier: MIT
// A clean run against the emulator with its /metrics on, in each dialect, plus the simulated
// DCGM and node exporters that follow its load: the server's generated-token counter moves by
// exactly the completion tokens the records carry, and none of the server guardrails fires.
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
