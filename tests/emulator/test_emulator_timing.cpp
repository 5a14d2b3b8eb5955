// SPDX-License-Identifier: MIT
// Scripted timing as seen by a client, and the emulator's own punctuality.

#include "model/core/Clock.h"
#include "tests/emulator/EmulatorTestClient.h"

#include <QThread>
#include <algorithm>
#include <cmath>
#include <gtest/gtest.h>
#include <numeric>
#include <thread>

using namespace qs::emu;
using namespace qs::emu::test;

namespace {

struct Measured {
    RawResponse response;
    qint64 sentNs = 0;
};

Measured timedChat(EmulatorThread& emu, const QJsonObject& body)
{
    TestClient client(emu.server()->port());
    Measured m;
    m.sentNs = client.postJson("/v1/chat/completions", body);
    m.response = client.read();
    return m;
}

// Arrival stamps of the chunks that carry content tokens ("w<k> ").
std::vector<qint64> contentArrivals(const RawResponse& response)
{
    std::vector<qint64> out;
    for (std::size_t i = 0; i < response.chunks.size(); ++i) {
        if (response.chunks[i].contains("\"w"))
            out.push_back(response.chunkNs[i]);
    }
    return out;
}

struct Stats {
    double meanMs = 0;
    double p99Ms = 0;
    double maxMs = 0;
};

Stats stats(std::vector<double> values)
{
    Stats s;
    if (values.empty())
        return s;
    std::sort(values.begin(), values.end());
    s.meanMs = std::accumulate(values.begin(), values.end(), 0.0) / double(values.size());
    s.p99Ms = values[std::min(values.size() - 1, std::size_t(std::ceil(0.99 * double(values.size()))) - 1)];
    s.maxMs = values.back();
    return s;
}

} // namespace

TEST(EmulatorTiming, TtftAndRateAreHonouredForEveryDialect)
{
    for (const Dialect dialect : {Dialect::LlamaServer, Dialect::Vllm, Dialect::Sglang}) {
        ServerConfig config = baseConfig(dialect);
        config.script = simpleScript(10, 100, 50);
        EmulatorThread emu;
        ASSERT_TRUE(emu.start(config));
        const Measured m = timedChat(emu, chatBody(true));
        const std::vector<qint64> arrivals = contentArrivals(m.response);
        ASSERT_EQ(arrivals.size(), 10u) << int(dialect);
        EXPECT_NEAR(qs::msBetween(m.sentNs, arrivals.front()), 100.0, 25.0) << int(dialect);
        const double decodeMs = qs::msBetween(arrivals.front(), arrivals.back());
        EXPECT_NEAR(decodeMs / 9.0, 20.0, 3.0) << int(dialect);

        // Server side: every write near its absolute deadline (sub-ms when idle, see
        // docs/benchmarks.md; the bound leaves room for a 2-core machine under ASan and
        // parallel builds, where 9 ms of lateness was seen).
        const ServedRequest served = emu.server()->servedRequests().at(0);
        ASSERT_EQ(served.tokenWriteNs.size(), 10u);
        for (std::size_t k = 0; k < 10; ++k) {
            const double deadline = 100.0 + 20.0 * double(k);
            EXPECT_NEAR(qs::msBetween(served.receivedNs, served.tokenWriteNs[k]), deadline, 25.0) << k;
        }
        EXPECT_GE(served.endNs, served.tokenWriteNs.back());
        EXPECT_EQ(served.firstVisibleWriteNs, served.tokenWriteNs.front());
        EXPECT_EQ(served.completionTokens, 10);
    }
}

TEST(EmulatorTiming, PrefillGrowsWithPromptTokens)
{
    ServerConfig config = baseConfig(Dialect::Vllm);
    config.script = simpleScript(1, 20, 100);
    config.script.ttftPerPromptTokenMs = 1.0;
    EmulatorThread emu;
    ASSERT_TRUE(emu.start(config));
    QString text;
    for (int i = 0; i < 96; ++i)
        text += QStringLiteral("word ");
    const Measured m = timedChat(emu, chatBody(true, text)); // 100 prompt tokens
    const std::vector<qint64> arrivals = contentArrivals(m.response);
    ASSERT_EQ(arrivals.size(), 1u);
    EXPECT_NEAR(qs::msBetween(m.sentNs, arrivals.front()), 120.0, 25.0);
}

TEST(EmulatorTiming, NonStreamingAnswerArrivesAfterTheWholeGeneration)
{
    ServerConfig config = baseConfig(Dialect::LlamaServer);
    config.script = simpleScript(5, 50, 100);
    EmulatorThread emu;
    ASSERT_TRUE(emu.start(config));
    const Measured m = timedChat(emu, chatBody(false));
    // ttft + 4 intervals to the last token + the EOS step.
    EXPECT_NEAR(qs::msBetween(m.sentNs, m.response.headNs), 100.0, 25.0);
    const QJsonObject timings = m.response.json().value(QLatin1String("timings")).toObject();
    EXPECT_NEAR(timings.value(QLatin1String("prompt_ms")).toDouble(), 50.0, 0.5);
    EXPECT_EQ(timings.value(QLatin1String("predicted_n")).toInt(), 5);
}

TEST(EmulatorTiming, ConcurrentStreamsKeepTheirOwnDeadlines)
{
    ServerConfig config = baseConfig(Dialect::Sglang);
    config.script = simpleScript(20, 60, 100);
    EmulatorThread emu;
    ASSERT_TRUE(emu.start(config));
    std::vector<std::thread> clients;
    std::vector<Measured> results(4);
    for (std::size_t i = 0; i < results.size(); ++i) {
        clients.emplace_back([&emu, &results, i] {
            QThread::msleep(unsigned(7 * i)); // staggered, so deadlines interleave
            results[i] = timedChat(emu, chatBody(true));
        });
    }
    for (std::thread& t : clients)
        t.join();
    for (const Measured& m : results) {
        EXPECT_TRUE(m.response.complete);
        EXPECT_EQ(contentArrivals(m.response).size(), 20u);
    }
    const auto served = emu.server()->servedRequests();
    ASSERT_EQ(served.size(), 4u);
    // Each write near its own stream's deadline. Serving the streams one after another would put
    // the later ones 250 ms and more behind; 25 ms is the bound the single-stream test uses, since
    // CI runs three tests at once on two cores (8 ms failed there once).
    for (const ServedRequest& r : served) {
        for (std::size_t k = 0; k < r.tokenWriteNs.size(); ++k)
            EXPECT_NEAR(qs::msBetween(r.receivedNs, r.tokenWriteNs[k]), 60.0 + 10.0 * double(k), 25.0);
    }
}

// Measures how close each token write is to its absolute deadline (receivedNs + ttft + k/rate).
// Prints mean/p99/max; asserts only a loose bound because CI machines are shared.
TEST(EmulatorTiming, WritePunctuality)
{
    ServerConfig config = baseConfig(Dialect::Vllm);
    config.script = simpleScript(300, 30, 100);
    EmulatorThread emu;
    ASSERT_TRUE(emu.start(config));
    const Measured m = timedChat(emu, chatBody(true));
    ASSERT_TRUE(m.response.complete);
    const ServedRequest served = emu.server()->servedRequests().at(0);
    ASSERT_EQ(served.tokenWriteNs.size(), 300u);
    std::vector<double> lateness;
    for (std::size_t k = 0; k < served.tokenWriteNs.size(); ++k) {
        const double deadlineMs = 30.0 + 10.0 * double(k);
        lateness.push_back(qs::msBetween(served.receivedNs, served.tokenWriteNs[k]) - deadlineMs);
    }
    const Stats s = stats(lateness);
    const double earliest = *std::min_element(lateness.begin(), lateness.end());
    std::printf(
        "[ punctuality ] token write - deadline over %zu tokens: mean %.3f ms, p99 %.3f ms, max %.3f ms, "
        "min %.3f ms\n",
        lateness.size(), s.meanMs, s.p99Ms, s.maxMs, earliest);
    EXPECT_GE(earliest, 0.0); // never early
    EXPECT_LT(s.meanMs, 2.0);
    EXPECT_LT(s.p99Ms, 10.0);
}
