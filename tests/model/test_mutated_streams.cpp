// SPDX-License-Identifier: MIT
// Random byte mutations of real captured streams (llama-server, vLLM, SGLang and proxies, in
// tests/data/streams) served over loopback to the real client: it must never crash, never hang
// past its timeouts, classify every outcome, and never count a stream with a broken JSON event
// as a clean success (issue #14).
//
// Reproduce a failure: the message names the seed; QS_MUTATION_SEED=<base seed> reruns the set.
#include "ClientTestSupport.h"
#include "tests/support/HostileServer.h"

#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <deque>
#include <gtest/gtest.h>
#include <random>

using namespace qs;
using namespace qs::test;
using emu::HostileConnection;
using emu::HostileServer;

namespace {
constexpr int FirstByteMs = 500;
constexpr int IdleMs = 500;
constexpr qint64 Slack = 6000; // a busy 2-core machine, a dozen requests at once
constexpr int BodyMutantsPerCase = 5; // framing intact: the client sees exactly the mutated body
constexpr int WireMutantsPerCase = 4; // headers and framing mutated too
constexpr int Concurrent = 12;

struct Mutant {
    QString name; ///< file, framing, kind and seed: enough to reproduce it
    QByteArray wire; ///< what the server sends
    QByteArray body; ///< the mutated stream, for body mutants; empty for wire mutants
    bool bodyMutant = false;
    bool hang = false; ///< keep the connection open after sending (else close it)
};

quint32 baseSeed()
{
    const QByteArray env = qgetenv("QS_MUTATION_SEED");
    return env.isEmpty() ? 20261125u : env.toUInt();
}

// Flip, overwrite, insert, delete, duplicate a range, truncate: 1 to 4 of them. Structural bytes
// are favoured, so that line ends, quotes and braces get hit often.
QByteArray mutate(QByteArray bytes, std::mt19937& rng, QStringList& ops)
{
    const auto pick = [&](qsizetype n) {
        return qsizetype(std::uniform_int_distribution<qint64>(0, qMax<qint64>(0, n - 1))(rng));
    };
    static const char structural[] = "\n\r\"{}[]:, \\0";
    const auto randomByte
        = [&] { return rng() % 2 ? structural[pick(sizeof structural - 1)] : char(rng() % 256); };
    const int count = 1 + int(rng() % 4);
    for (int i = 0; i < count && !bytes.isEmpty(); ++i) {
        const qsizetype at = pick(bytes.size());
        switch (rng() % 6) {
        case 0:
            bytes[at] = char(bytes[at] ^ (1 << (rng() % 8)));
            ops << QStringLiteral("flip@%1").arg(at);
            break;
        case 1:
            bytes[at] = randomByte();
            ops << QStringLiteral("set@%1").arg(at);
            break;
        case 2: {
            QByteArray insert;
            for (int k = 0, n = 1 + int(rng() % 8); k < n; ++k)
                insert.append(randomByte());
            bytes.insert(at, insert);
            ops << QStringLiteral("insert@%1").arg(at);
            break;
        }
        case 3:
            bytes.remove(at, 1 + pick(16));
            ops << QStringLiteral("delete@%1").arg(at);
            break;
        case 4: {
            const QByteArray range = bytes.mid(at, 1 + pick(64));
            bytes.insert(pick(bytes.size()), range);
            ops << QStringLiteral("duplicate@%1").arg(at);
            break;
        }
        default:
            bytes.truncate(at);
            ops << QStringLiteral("truncate@%1").arg(at);
            break;
        }
    }
    return bytes;
}

QByteArray frame(const QByteArray& body, bool chunkedFraming)
{
    if (!chunkedFraming)
        return emu::httpResponse("200 OK", "text/event-stream", body);
    return emu::httpHead("200 OK", "Content-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n")
        + emu::chunked(body, 97);
}

// An independent reading of the event-stream rules (not the client's SseParser): the data
// payload of every event, the unterminated last one included.
QList<QByteArray> dataPayloads(QByteArray stream)
{
    if (stream.startsWith("\xEF\xBB\xBF"))
        stream.remove(0, 3);
    stream.replace("\r\n", "\n");
    stream.replace('\r', '\n');
    QList<QByteArray> out;
    QByteArray data;
    bool hasData = false;
    for (const QByteArray& line : stream.split('\n')) {
        if (line.isEmpty()) {
            if (hasData)
                out << data;
            data.clear();
            hasData = false;
            continue;
        }
        const qsizetype colon = line.indexOf(':');
        if ((colon < 0 ? line : line.left(colon)) != "data")
            continue;
        QByteArray value = colon < 0 ? QByteArray() : line.mid(colon + 1);
        if (value.startsWith(' '))
            value.remove(0, 1);
        data += (hasData ? "\n" : "") + value;
        hasData = true;
    }
    if (hasData)
        out << data;
    return out;
}

// True when some event's payload is neither [DONE] nor JSON (NaN and Infinity literals aside,
// which the client accepts on purpose).
bool hasBrokenEvent(const QByteArray& stream)
{
    for (const QByteArray& payload : dataPayloads(stream)) {
        const QByteArray t = payload.trimmed();
        if (t == "[DONE]" || t.contains("NaN") || t.contains("Infinity"))
            continue;
        if (nlohmann::json::parse(t.begin(), t.end(), nullptr, false).is_discarded())
            return true;
    }
    return false;
}

std::vector<Mutant> makeMutants(quint32 seed)
{
    std::vector<Mutant> out;
    const QDir dir(QStringLiteral(QS_TEST_DATA_DIR "/streams"));
    const QStringList files = dir.entryList({QStringLiteral("*.sse")}, QDir::Files, QDir::Name);
    std::mt19937 rng(seed);
    for (const QString& file : files) {
        QFile f(dir.filePath(file));
        if (!f.open(QIODevice::ReadOnly))
            continue;
        const QByteArray stream = f.readAll();
        for (const bool chunkedFraming : {false, true}) {
            for (int i = 0; i < BodyMutantsPerCase + WireMutantsPerCase; ++i) {
                Mutant m;
                m.bodyMutant = i < BodyMutantsPerCase;
                m.hang = rng() % 4 == 0;
                QStringList ops;
                if (m.bodyMutant) {
                    m.body = mutate(stream, rng, ops);
                    m.wire = frame(m.body, chunkedFraming);
                } else {
                    m.wire = mutate(frame(stream, chunkedFraming), rng, ops);
                }
                m.name
                    = QStringLiteral("%1 %2 %3 mutant #%4%5: %6")
                          .arg(file,
                              chunkedFraming ? QStringLiteral("chunked") : QStringLiteral("content-length"),
                              m.bodyMutant ? QStringLiteral("body") : QStringLiteral("wire"))
                          .arg(out.size())
                          .arg(m.hang ? QStringLiteral(" (then hangs)") : QString(), ops.join(u' '));
                out.push_back(std::move(m));
            }
        }
    }
    return out;
}
} // namespace

TEST(MutatedStreams, NeverCrashNeverHangAndNeverPassABrokenEventAsClean)
{
    const quint32 seed = baseSeed();
    const std::vector<Mutant> mutants = makeMutants(seed);
    ASSERT_GE(mutants.size(), 300u) << "the captured streams are missing from " QS_TEST_DATA_DIR;
    SCOPED_TRACE(QStringLiteral("QS_MUTATION_SEED=%1").arg(seed).toStdString());

    // The mutant's index is the first segment of the request path.
    HostileServer server([&mutants](HostileConnection& c, int) {
        const std::size_t index = c.path().mid(1).split('/').value(0).toULongLong();
        if (index >= mutants.size())
            return false;
        c.send(mutants[index].wire);
        if (mutants[index].hang)
            c.hang();
        return false;
    });
    ASSERT_TRUE(server.listening());

    // Each mutant gets a fresh client: a connection kept alive after a mutant that then hangs
    // would carry the next mutant's request to a server that no longer answers.
    struct Lane {
        StreamingClient* client = nullptr;
        QElapsedTimer timer;
        std::size_t index = 0;
    };
    std::vector<Lane> lanes(Concurrent);
    std::deque<std::size_t> queue;
    for (std::size_t i = 0; i < mutants.size(); ++i)
        queue.push_back(i);
    std::size_t done = 0;
    int ok = 0, malformed = 0;
    QMap<QString, int> kinds;
    qint64 slowestMs = 0;

    const auto check = [&](const Mutant& m, const RequestRecord& r, qint64 ms) {
        slowestMs = qMax(slowestMs, ms);
        ++done;
        kinds[failureKindId(r.failure.kind)] += 1;
        ok += r.ok() ? 1 : 0;
        malformed += r.failure.kind == FailureKind::MalformedStream ? 1 : 0;
        const std::string name = m.name.toStdString();
        EXPECT_LT(ms, FirstByteMs + IdleMs + Slack) << name;
        if (r.failure.isFailure()) {
            EXPECT_FALSE(r.failure.summary.isEmpty()) << name;
            EXPECT_FALSE(r.failure.advice.isEmpty()) << name;
        }
        if (m.bodyMutant && hasBrokenEvent(m.body)) {
            // The server's own error object, when the stream carries one, names the cause first.
            const FailureKind k = r.failure.kind;
            EXPECT_TRUE(k == FailureKind::MalformedStream || k == FailureKind::StreamError
                || k == FailureKind::ContextExceeded)
                << name << ": a broken event, yet " << failureKindId(k).toStdString() << " "
                << r.failure.text().toStdString();
        }
    };
    std::function<void(Lane&)> startNext = [&](Lane& lane) {
        if (lane.client)
            lane.client->deleteLater();
        lane.client = nullptr;
        if (queue.empty())
            return;
        lane.index = queue.front();
        queue.pop_front();
        lane.client = new StreamingClient;
        QObject::connect(
            lane.client, &StreamingClient::finished, lane.client, [&, l = &lane](const RequestRecord& r) {
                check(mutants[l->index], r, l->timer.elapsed());
                QMetaObject::invokeMethod(
                    l->client, [&, l] { startNext(*l); }, Qt::QueuedConnection);
            });
        Endpoint e;
        e.baseUrl = QUrl(server.baseUrl().toString() + QStringLiteral("/%1").arg(lane.index));
        e.model = QStringLiteral("m");
        e.timeouts.connectMs = 3000;
        e.timeouts.firstByteMs = FirstByteMs;
        e.timeouts.idleMs = IdleMs;
        lane.timer.start();
        lane.client->start(e, prompt());
    };
    QElapsedTimer total;
    total.start();
    for (Lane& lane : lanes)
        startNext(lane);
    while (done < mutants.size() && total.elapsed() < 150000)
        QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents, 50);
    ASSERT_EQ(done, mutants.size()) << "requests still running after 150 s: the client hung";

    QStringList summary;
    for (auto it = kinds.cbegin(); it != kinds.cend(); ++it)
        summary << QStringLiteral("%1=%2").arg(it.key()).arg(it.value());
    std::printf("%zu mutants in %lld ms (slowest request %lld ms): %s\n", mutants.size(),
        qint64(total.elapsed()), slowestMs, qPrintable(summary.join(u' ')));
    // The set exercises both sides: some mutants still pass, many are caught as malformed.
    EXPECT_GT(ok, 0);
    EXPECT_GT(malformed, 0);
}
