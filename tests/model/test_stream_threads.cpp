// SPDX-License-Identifier: MIT
// StreamingClient's threaded mode (StreamThreads.h): the socket work on stream threads, the
// facade's chunks and finished() in the owner's thread, in order; the same record as the plain
// client; cancel() as synchronous as there; facades gone with streams in flight drop what is queued.
#include "ClientTestSupport.h"
#include "model/core/Clock.h"
#include "model/wire/StreamThreads.h"

#include <QCoreApplication>
#include <QEventLoop>
#include <QThread>
#include <QTimer>
#include <gtest/gtest.h>

using namespace qs;
using namespace qs::test;
using emu::Dialect;
using emu::Era;

namespace {

template <typename Done> bool waitFor(Done done, double seconds = 10)
{
    const qint64 until = monotonicNs() + qint64(seconds * 1e9);
    while (!done() && monotonicNs() < until)
        QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents, 50);
    return done();
}

} // namespace

TEST(StreamThreads, ThreadedRecordIsThePlainOnesInTheOwnersThread)
{
    emu::Script s;
    s.reasoning = tokens(3, QStringLiteral("think"));
    s.content = tokens(12);
    s.ttftMs = 30;
    s.tokensPerSecond = 200;
    Served server(config(Dialect::Vllm, Era::Current, s));
    const auto threads = StreamThreads::create(2);
    StreamingClient client(threads);
    std::vector<qint64> chunkStamps;
    int chunksWithText = 0;
    bool chunksInOwnerThread = true, chunkAfterFinish = false;
    RequestRecord record;
    bool done = false;
    client.onChunk = [&](const StreamChunk& chunk, qint64 stampNs) {
        chunksInOwnerThread = chunksInOwnerThread && QThread::currentThread() == client.thread();
        chunkAfterFinish = chunkAfterFinish || done;
        chunkStamps.push_back(stampNs);
        chunksWithText += chunk.carriesToken() ? 1 : 0;
    };
    QObject::connect(&client, &StreamingClient::finished, [&](const RequestRecord& r) {
        EXPECT_EQ(QThread::currentThread(), client.thread());
        record = r;
        done = true;
    });
    client.start(server.endpoint, prompt());
    EXPECT_TRUE(client.busy());
    ASSERT_TRUE(waitFor([&] { return done; }));
    EXPECT_FALSE(client.busy());
    ASSERT_TRUE(record.ok()) << record.failure.text().toStdString();
    EXPECT_TRUE(chunksInOwnerThread);
    EXPECT_FALSE(chunkAfterFinish) << "finished() must come after the request's last chunk";
    EXPECT_EQ(record.response.content, tokens(12).join(QString()));
    EXPECT_EQ(record.response.reasoning, tokens(3, QStringLiteral("think")).join(QString()));
    EXPECT_EQ(chunksWithText, 15);
    ASSERT_EQ(record.response.tokenEvents.size(), 15u);
    // The stamps the chunks carried are the record's, taken on the stream's thread at each read.
    std::size_t k = 0;
    for (std::size_t i = 0; i < chunkStamps.size() && k < record.response.tokenEvents.size(); ++i)
        if (chunkStamps[i] == record.response.tokenEvents[k].stampNs)
            ++k;
    EXPECT_EQ(k, record.response.tokenEvents.size());
    const std::vector<emu::ServedRequest> served = server.served();
    ASSERT_EQ(served.size(), 1u);
    for (std::size_t i = 0; i < served[0].tokenWriteNs.size(); ++i)
        EXPECT_LT(
            std::abs(msBetween(served[0].tokenWriteNs[i], record.response.tokenEvents[i].stampNs)), 50.0);
}

TEST(StreamThreads, CancelHandsTheRecordOverBeforeItReturns)
{
    Served server(config(Dialect::LlamaServer, Era::Current, emu::simpleScript(100, 10, 50)));
    const auto threads = StreamThreads::create(1);
    StreamingClient client(threads);
    RequestRecord result;
    int finished = 0;
    QObject::connect(&client, &StreamingClient::finished, [&](const RequestRecord& r) {
        result = r;
        ++finished;
    });
    client.start(server.endpoint, prompt());
    QTimer::singleShot(250, &client, [&] {
        client.cancel();
        EXPECT_EQ(finished, 1) << "cancel() returns with finished() emitted";
    });
    ASSERT_TRUE(waitFor([&] { return finished > 0; }));
    EXPECT_EQ(result.failure.kind, FailureKind::Cancelled);
    EXPECT_GT(result.metrics.tokenEvents, 2);
    EXPECT_LT(result.metrics.tokenEvents, 100);
    client.cancel(); // idle: nothing happens
    QCoreApplication::processEvents();
    EXPECT_EQ(finished, 1);
}

TEST(StreamThreads, ManyStreamsOverTwoThreadsEachInOrder)
{
    Served server(config(Dialect::Sglang, Era::Current, emu::simpleScript(20, 20, 200)));
    const auto threads = StreamThreads::create(2);
    std::vector<std::unique_ptr<StreamingClient>> clients;
    std::vector<RequestRecord> records;
    std::vector<int> chunksSeen(40, 0), chunksAtFinish(40, -1);
    for (int i = 0; i < 40; ++i) {
        clients.push_back(std::make_unique<StreamingClient>(threads));
        clients.back()->onChunk = [&, i](const StreamChunk& chunk, qint64) {
            chunksSeen[std::size_t(i)] += chunk.carriesToken() ? 1 : 0;
        };
        QObject::connect(clients.back().get(), &StreamingClient::finished, [&, i](const RequestRecord& r) {
            chunksAtFinish[std::size_t(i)] = chunksSeen[std::size_t(i)];
            records.push_back(r);
        });
        clients.back()->start(server.endpoint, prompt());
    }
    ASSERT_TRUE(waitFor([&] { return records.size() == 40; }, 20));
    for (const RequestRecord& r : records) {
        ASSERT_TRUE(r.ok()) << r.failure.text().toStdString();
        EXPECT_EQ(r.response.content, tokens(20).join(QString()));
    }
    for (int i = 0; i < 40; ++i)
        EXPECT_EQ(chunksAtFinish[std::size_t(i)], 20) << "stream " << i;
    EXPECT_GT(threads->cpuMs(), 0.0);
}

TEST(StreamThreads, AFacadeGoneMidStreamDropsWhatIsQueued)
{
    Served server(config(Dialect::Vllm, Era::Current, emu::simpleScript(50, 5, 100)));
    const auto threads = StreamThreads::create(1);
    int calls = 0;
    {
        StreamingClient client(threads);
        client.onChunk = [&](const StreamChunk&, qint64) { ++calls; };
        QObject::connect(&client, &StreamingClient::finished, [&](const RequestRecord&) { ++calls; });
        client.start(server.endpoint, prompt());
        waitFor([&] { return calls > 3; });
    }
    const int before = calls;
    waitFor([] { return false; }, 0.3); // the stream goes on in its thread meanwhile
    EXPECT_EQ(calls, before) << "nothing reaches a facade that is gone";
}
