// SPDX-License-Identifier: MIT
#include "ClientTestSupport.h"
#include "model/wire/EndpointProbe.h"

#include <gtest/gtest.h>

using namespace qs;
using namespace qs::test;
using emu::Dialect;
using emu::Era;

TEST(EndpointProbe, LlamaServer)
{
    emu::ServerConfig c = config(Dialect::LlamaServer, Era::Current, emu::simpleScript(2, 5, 100));
    c.modelId = QStringLiteral("qwen3.5-9b-q4_k_m");
    c.contextSize = 32768;
    Served server(c);
    const ProbeResult r = probeBlocking(server.endpoint, 5);
    ASSERT_TRUE(r.usable()) << r.failure.text().toStdString();
    EXPECT_EQ(r.runtime, Runtime::LlamaServer);
    EXPECT_TRUE(r.runtimeEvidence.contains(QStringLiteral("/props")));
    EXPECT_EQ(r.model, QStringLiteral("qwen3.5-9b-q4_k_m"));
    EXPECT_EQ(r.endpoint.model, r.model); // discovered, because it was left blank
    EXPECT_EQ(r.contextSize.value_or(0), 32768);
    EXPECT_TRUE(r.healthy);
    EXPECT_FALSE(r.chatTemplate.isEmpty());
    EXPECT_FALSE(r.serverVersion.isEmpty());
    EXPECT_EQ(r.rttSamplesMs.size(), 5u);
    ASSERT_TRUE(r.rttMedianMs.has_value());
    EXPECT_LT(*r.rttMedianMs, 50); // loopback
}

TEST(EndpointProbe, Vllm)
{
    emu::ServerConfig c = config(Dialect::Vllm, Era::Current, emu::simpleScript(2, 5, 100));
    c.modelId = QStringLiteral("nvfp4-model");
    c.contextSize = 8192;
    c.version = QStringLiteral("0.17.1");
    Served server(c);
    const ProbeResult r = probeBlocking(server.endpoint, 3);
    ASSERT_TRUE(r.usable()) << r.failure.text().toStdString();
    EXPECT_EQ(r.runtime, Runtime::Vllm);
    EXPECT_EQ(r.serverVersion, QStringLiteral("0.17.1"));
    EXPECT_EQ(r.contextSize.value_or(0), 8192);
    EXPECT_EQ(r.model, QStringLiteral("nvfp4-model"));
}

TEST(EndpointProbe, Sglang)
{
    emu::ServerConfig c = config(Dialect::Sglang, Era::Current, emu::simpleScript(2, 5, 100));
    c.contextSize = 16384;
    c.toolParser = false;
    Served server(c);
    const ProbeResult r = probeBlocking(server.endpoint, 3);
    ASSERT_TRUE(r.usable()) << r.failure.text().toStdString();
    EXPECT_EQ(r.runtime, Runtime::Sglang);
    EXPECT_EQ(r.contextSize.value_or(0), 16384);
    EXPECT_TRUE(r.toolCallParser.isEmpty()); // started without --tool-call-parser
}

TEST(EndpointProbe, VllmConfiguredModelNotServed)
{
    Served server(config(Dialect::Vllm, Era::Current, emu::simpleScript(2, 5, 100)));
    server.endpoint.model = QStringLiteral("wrong");
    const ProbeResult r = probeBlocking(server.endpoint, 1);
    EXPECT_EQ(r.failure.kind, FailureKind::ModelNotFound);
    EXPECT_FALSE(r.modelListed);
}

TEST(EndpointProbe, ApiKeyRequired)
{
    emu::ServerConfig c = config(Dialect::Vllm, Era::Current, emu::simpleScript(2, 5, 100));
    c.apiKey = QStringLiteral("k");
    Served server(c);
    const ProbeResult r = probeBlocking(server.endpoint, 1);
    EXPECT_EQ(r.failure.kind, FailureKind::Unauthorized);
    EXPECT_TRUE(r.reachable);
}

TEST(EndpointProbe, RefusedAndNotOpenAi)
{
    Endpoint e;
    e.baseUrl = QUrl(QStringLiteral("http://127.0.0.1:%1").arg(closedPort()));
    ProbeResult r = probeBlocking(e, 1);
    EXPECT_FALSE(r.reachable);
    EXPECT_EQ(r.failure.kind, FailureKind::ConnectionRefused);

    CannedServer web(
        "HTTP/1.1 404 Not Found\r\nContent-Type: text/html\r\nContent-Length: 9\r\n\r\n<h1>x</h1", false);
    e.baseUrl = web.url();
    r = probeBlocking(e, 1);
    EXPECT_TRUE(r.reachable);
    EXPECT_EQ(r.failure.kind, FailureKind::NotOpenAiCompatible) << r.failure.text().toStdString();
}
