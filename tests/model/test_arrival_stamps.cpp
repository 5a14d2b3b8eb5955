// SPDX-License-Identifier: MIT
// Reads are stamped with the kernel's arrival time (ArrivalStamps.h), so a reading thread that is
// busy elsewhere does not add its wait to the measurement (issue #24: 1,000 streams on 2 cores).
#include "ClientTestSupport.h"
#include "model/core/Clock.h"
#include "model/wire/ArrivalStamps.h"

#include <QCoreApplication>
#include <QEventLoop>
#include <arpa/inet.h>
#include <chrono>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

using namespace qs;
using namespace qs::test;

namespace {

/// A connected loopback TCP pair (plain POSIX: the test is about the kernel, not Qt).
struct LoopbackPair {
    int client = -1, server = -1;
    LoopbackPair()
    {
        const int listener = ::socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in a {};
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t len = sizeof a;
        if (::bind(listener, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(listener, 1) != 0
            || ::getsockname(listener, reinterpret_cast<sockaddr*>(&a), &len) != 0)
            return;
        client = ::socket(AF_INET, SOCK_STREAM, 0);
        if (::connect(client, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0)
            server = ::accept(listener, nullptr, nullptr);
        ::close(listener);
    }
    ~LoopbackPair()
    {
        for (int fd : {client, server})
            if (fd >= 0)
                ::close(fd);
    }
};

/// Whether this system stamps arrivals at all (Linux does; qemu-user, as scripts/check-arm64.sh
/// runs the tests, refuses SO_TIMESTAMPNS, so the client keeps read times there and says so).
bool kernelStampsArrivals()
{
    LoopbackPair pair;
    return pair.server >= 0 && arrival_stamps::enable(pair.client);
}

} // namespace

TEST(ArrivalStamps, TheKernelSaysWhenTheBytesArrivedNotWhenTheyWereRead)
{
    LoopbackPair pair;
    ASSERT_GE(pair.server, 0);
    if (!arrival_stamps::enable(pair.client))
        GTEST_SKIP() << "this system gives no receive stamps (not Linux, or under qemu-user)";
    char scratch[64];
    EXPECT_EQ(arrival_stamps::pendingArrivalNs(pair.client, scratch, sizeof scratch, 0), 0)
        << "nothing waiting: no stamp";
    // The kernel switches its stamping on in deferred work: a byte sent before that is not
    // stamped (its read keeps its own stamp). Wait until one is, as a connection's first answer
    // normally does while its request is served.
    bool stamping = false;
    for (int i = 0; i < 200 && !stamping; ++i) {
        ASSERT_EQ(::send(pair.server, "w", 1, 0), 1);
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
        stamping = arrival_stamps::pendingArrivalNs(pair.client, scratch, sizeof scratch, 0) > 0;
        char drop;
        ASSERT_EQ(::recv(pair.client, &drop, 1, 0), 1);
    }
    ASSERT_TRUE(stamping) << "no receive stamp within 200 tries";

    const qint64 writtenNs = monotonicNs();
    ASSERT_EQ(::send(pair.server, "first", 5, 0), 5);
    std::this_thread::sleep_for(std::chrono::milliseconds(40)); // the reader is busy elsewhere
    const qint64 arrived = arrival_stamps::pendingArrivalNs(pair.client, scratch, sizeof scratch, 0);
    const qint64 readNs = monotonicNs();
    ASSERT_GT(arrived, 0);
    // Loopback delivers within the sender's system call: the stamp is the write, give or take
    // scheduling (generous: a busy 2-core machine), and nowhere near the read 40 ms later.
    EXPECT_GE(arrived, writtenNs - 1000000);
    EXPECT_LT(msBetween(writtenNs, arrived), 10.0);
    EXPECT_GT(msBetween(arrived, readNs), 30.0);

    // A peek: the bytes are still there for the read that follows.
    EXPECT_EQ(QByteArray(scratch, 5), QByteArray("first"));
    // Bytes that arrive later move the stamp to the last of them (the read takes them all).
    const qint64 secondNs = monotonicNs();
    ASSERT_EQ(::send(pair.server, "second", 6, 0), 6);
    const qint64 both = arrival_stamps::pendingArrivalNs(pair.client, scratch, sizeof scratch, 0);
    EXPECT_GE(both, secondNs - 1000000);
    char got[64];
    ASSERT_EQ(::recv(pair.client, got, sizeof got, 0), 11);
    EXPECT_EQ(QByteArray(got, 11), QByteArray("firstsecond"));

    // A stamp before what the caller knows cannot be (its request was written later) is refused.
    ASSERT_EQ(::send(pair.server, "x", 1, 0), 1);
    EXPECT_EQ(
        arrival_stamps::pendingArrivalNs(pair.client, scratch, sizeof scratch, monotonicNs() + 1000000000),
        0);
}

// The client's own thread is held up for longer than a token's gap: the token that arrives
// meanwhile is still stamped when it arrived (the emulator's write), not when it was read.
TEST(ArrivalStamps, AStreamReadLateIsStampedWhenItArrived)
{
    if (!kernelStampsArrivals())
        GTEST_SKIP() << "this system gives no receive stamps (not Linux, or under qemu-user)";
    emu::Script s;
    s.content = tokens(4);
    s.ttftMs = 20;
    s.tokensPerSecond = 10; // 100 ms between tokens: each arrives alone
    Served server(config(emu::Dialect::Vllm, emu::Era::Current, s));
    StreamingClient client;
    std::vector<qint64> deliveredNs; // when each token reached the client's code
    bool done = false;
    RequestRecord record;
    client.onChunk = [&](const StreamChunk& chunk, qint64) {
        if (!chunk.carriesToken())
            return;
        deliveredNs.push_back(monotonicNs());
        if (deliveredNs.size() == 1) { // hold the thread past the second token's arrival
            const qint64 until = monotonicNs() + 160000000;
            while (monotonicNs() < until) { }
        }
    };
    QObject::connect(&client, &StreamingClient::finished, [&](const RequestRecord& r) {
        record = r;
        done = true;
    });
    client.start(server.endpoint, prompt());
    const qint64 until = monotonicNs() + qint64(10e9);
    while (!done && monotonicNs() < until)
        QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents, 50);
    ASSERT_TRUE(done);
    ASSERT_TRUE(record.ok()) << record.failure.text().toStdString();
    const std::vector<emu::ServedRequest> served = server.served();
    ASSERT_EQ(served.size(), 1u);
    ASSERT_EQ(served[0].tokenWriteNs.size(), 4u);
    ASSERT_EQ(record.response.tokenEvents.size(), 4u);
    ASSERT_EQ(deliveredNs.size(), 4u);
    const double lateByMs = msBetween(served[0].tokenWriteNs[1], deliveredNs[1]);
    ASSERT_GT(lateByMs, 30.0) << "the second token must have been read late for this test to mean anything";
    const double stampErrorMs = msBetween(served[0].tokenWriteNs[1], record.response.tokenEvents[1].stampNs);
    EXPECT_GE(stampErrorMs, -1.0);
    EXPECT_LT(stampErrorMs, 15.0) << "read " << lateByMs << " ms late; the stamp must not include that";
    // The record says how its reads were stamped: on arrival (at most the first, read while the
    // kernel may still be switching its stamping on, keeps its read time).
    EXPECT_GE(record.timing.arrivalStampedReads, 4);
    EXPECT_LE(record.timing.readTimeStampedReads, 1);
}
