// SPDX-License-Identifier: MIT
// The runner end to end: real threads (RunController's runner thread, emulator threads), real
// sockets, a real journal on disk.
#include "ClientTestSupport.h"
#include "RunTestSupport.h"
#include "SuiteFixtures.h"
#include "model/core/Clock.h"
#include "model/evaluate/Evaluation.h"
#include "model/store/ResultFile.h"

#include <QCoreApplication>
#include <QFile>
#include <QJsonArray>
#include <QMap>
#include <QSet>
#include <QTemporaryDir>
#include <algorithm>
#include <gtest/gtest.h>

using namespace qs;
using namespace qs::test;

namespace {
// The journal's complete header and record lines; telemetry lines ({"telemetry": …}) are not counted.
qsizetype journalLines(const QString& path)
{
    QFile journal(path);
    if (!journal.open(QIODevice::ReadOnly))
        return -1;
    QList<QByteArray> lines = journal.readAll().split('\n');
    lines.removeLast(); // after the last line end
    if (lines.isEmpty())
        return 0;
    // The header (first line) carries a "telemetry" member of its own: the period and notes.
    return 1 + std::count_if(lines.begin() + 1, lines.end(), [](const QByteArray& line) {
        const auto j = nlohmann::json::parse(line.toStdString(), nullptr, false);
        return !(j.is_object() && j.contains("telemetry"));
    });
}

// The reply names how many messages the request had, so a test can see which reply went where.
emu::ServerConfig echoServer(emu::Dialect dialect, double ttftMs = 5, double tps = 400)
{
    emu::ServerConfig c;
    c.dialect = dialect;
    c.scriptFor = [ttftMs, tps](const emu::RequestInfo& info) {
        emu::Script s;
        s.content = {QStringLiteral("reply "),
            QString::number(info.body.value(QStringLiteral("messages")).toArray().size())};
        s.ttftMs = ttftMs;
        s.tokensPerSecond = tps;
        return s;
    };
    return c;
}

RunEndpoint runEndpoint(const Served& served, const QString& label)
{
    RunEndpoint e;
    e.endpoint = served.endpoint;
    e.endpoint.label = label;
    e.spec = served.endpoint.baseUrl.toString();
    return e;
}

/// The small suite (one test of each kind, 2 runs) against endpoints A and B, journaled in `dir`.
RunRequest smallRun(const Served& a, const Served& b, const QTemporaryDir& dir)
{
    RunRequest request;
    request.suite = smallSuite(1, 2);
    request.endpoints = {runEndpoint(a, QStringLiteral("A")), runEndpoint(b, QStringLiteral("B"))};
    request.journalPath = dir.filePath(QStringLiteral("run.json.journal"));
    return request;
}

} // namespace

TEST(Runner, RunsThePlanJournalsEveryRecordAndGrowsConversations)
{
    Served llama(echoServer(emu::Dialect::LlamaServer));
    Served vllm(echoServer(emu::Dialect::Vllm));
    QTemporaryDir dir;
    RunRequest request = smallRun(llama, vllm, dir);
    const Outcome o = run(request);
    ASSERT_TRUE(o.failed.isEmpty()) << o.failed.toStdString();
    ASSERT_TRUE(o.result);
    const RunResult& r = *o.result;
    // Per endpoint: 3 warm-ups + 2 runs × (1 + 1 + 3 turns).
    EXPECT_EQ(r.records.size(), 2u * (3 + 2 * 5));
    EXPECT_TRUE(r.complete);
    EXPECT_EQ(o.lastProgress.done, o.lastProgress.total);
    EXPECT_GT(o.liveDeltas, 0);
    int warmups = 0;
    for (const RunRecord& rec : r.records) {
        EXPECT_TRUE(rec.request.ok()) << rec.request.failure.text().toStdString();
        warmups += rec.warmup ? 1 : 0;
    }
    EXPECT_EQ(warmups, 6);
    // The probe filled in the model and runtime.
    EXPECT_EQ(r.endpoints[1].endpoint.runtime, Runtime::Vllm);
    EXPECT_FALSE(r.endpoints[1].endpoint.model.isEmpty());
    EXPECT_EQ(r.endpoints[1].endpoint.label, QStringLiteral("B"));

    // The journal holds the header and every record, one line each (and telemetry lines beside
    // them: the emulator serves /metrics).
    EXPECT_EQ(journalLines(request.journalPath), qsizetype(1 + r.records.size()));

    // Turn 3 of the conversation carries the endpoint's own replies to turns 1 and 2.
    int checked = 0;
    for (const emu::ServedRequest& s : vllm.served()) {
        const QJsonArray messages = s.request.body.value(QStringLiteral("messages")).toArray();
        if (messages.size() != 6)
            continue;
        EXPECT_EQ(
            messages[2].toObject().value(QStringLiteral("content")).toString(), QStringLiteral("reply 2"));
        EXPECT_EQ(
            messages[4].toObject().value(QStringLiteral("content")).toString(), QStringLiteral("reply 4"));
        EXPECT_EQ(messages[5].toObject().value(QStringLiteral("content")).toString(),
            QStringLiteral("What's my name?"));
        ++checked;
    }
    EXPECT_EQ(checked, 2); // two measured runs of the conversation

    // Both measured runs of a turn sent the same body and got the same verdicts: the run holds
    // each once (JsonInterner). Bodies are shared exactly when they are the same text.
    int shared = 0;
    for (const RunRecord& a : r.records)
        for (const RunRecord& b : r.records) {
            if (&a == &b || a.warmup || b.warmup || a.test != b.test || a.turn != b.turn)
                continue;
            EXPECT_EQ(b.request.requestBody.sharesWith(a.request.requestBody),
                b.request.requestBody->dump() == a.request.requestBody->dump());
            if (a.endpoint == b.endpoint) {
                EXPECT_TRUE(b.request.requestBody.sharesWith(a.request.requestBody)) << a.test.toStdString();
                EXPECT_TRUE(b.gateDetails.sharesWith(a.gateDetails)) << a.test.toStdString();
                ++shared;
            }
        }
    EXPECT_EQ(shared, 2 * 5 * 2); // per endpoint, 5 requests per iteration, each seen from both sides
}

// With RunRequest::streamThreads the sockets are read on stream threads (issue #24: 1,000
// streams): the same plan, the same records, conversations still growing from their own replies.
TEST(Runner, StreamsReadOnStreamThreadsGiveTheSameRecords)
{
    Served llama(echoServer(emu::Dialect::LlamaServer));
    Served vllm(echoServer(emu::Dialect::Vllm));
    for (const int threads : {2, 0}) {
        SCOPED_TRACE(threads);
        QTemporaryDir dir;
        RunRequest request = smallRun(llama, vllm, dir);
        request.settings.concurrency = 3; // up to 3 in flight per endpoint
        request.streamThreads = threads;
        const Outcome o = run(request);
        ASSERT_TRUE(o.failed.isEmpty()) << o.failed.toStdString();
        ASSERT_TRUE(o.result);
        if (threads == 2) {
            EXPECT_EQ(o.stats.streamThreads, 2);
            EXPECT_GT(o.stats.streamThreadsCpuMs, 0.0);
        } else {
            EXPECT_EQ(o.stats.streamThreads, 0);
        }
        const RunResult& r = *o.result;
        EXPECT_TRUE(r.complete);
        EXPECT_EQ(o.lastProgress.done, o.lastProgress.total);
        EXPECT_GT(o.liveDeltas, 0);
        EXPECT_EQ(r.records.size(), o.records.size());
        EXPECT_EQ(journalLines(request.journalPath), qsizetype(1 + r.records.size()));
        int turnThree = 0;
        for (const RunRecord& rec : r.records) {
            ASSERT_TRUE(rec.request.ok()) << rec.request.failure.text().toStdString();
            EXPECT_FALSE(rec.request.response.tokenEvents.empty());
            // The reply names the messages sent: turn 3 of the conversation carried 6.
            if (!rec.warmup && rec.turn == 3) {
                EXPECT_EQ(rec.request.response.content, QStringLiteral("reply 6"));
                ++turnThree;
            }
        }
        EXPECT_EQ(turnThree, 2 * 2); // 2 endpoints × 2 runs
    }
}

// A long run keeps its records in its journal, not in memory (issue #24): the runner lets go of
// each one once journaled, the records the live views get have no token timeline (their metrics
// are computed), and the finished result reads every record back whole — each saving to exactly
// the line the journal got when it finished.
TEST(Runner, RecordsWaitInTheJournalAndComeBackWhole)
{
    Served llama(echoServer(emu::Dialect::LlamaServer));
    Served vllm(echoServer(emu::Dialect::Vllm));
    QTemporaryDir dir;
    RunRequest request = smallRun(llama, vllm, dir);
    const Outcome o = run(request);
    ASSERT_TRUE(o.failed.isEmpty()) << o.failed.toStdString();
    ASSERT_TRUE(o.result);
    const RunResult& r = *o.result;
    ASSERT_EQ(o.records.size(), r.records.size());
    for (const RunRecord& live : o.records) {
        ASSERT_TRUE(live.request.ok());
        EXPECT_GT(live.request.metrics.tokenEvents, 0);
        EXPECT_TRUE(live.request.response.tokenEvents.empty());
    }
    for (const SharedRecord& live : o.shared) // nobody but the receiver held on to them
        EXPECT_EQ(live.use_count(), 1);
    QFile journal(request.journalPath);
    ASSERT_TRUE(journal.open(QIODevice::ReadOnly));
    QList<QByteArray> lines = journal.readAll().split('\n');
    std::size_t next = 0;
    for (qsizetype i = 1; i < lines.size(); ++i) {
        const auto j = nlohmann::json::parse(lines[i].toStdString(), nullptr, false);
        if (!j.is_object() || j.contains("telemetry"))
            continue;
        ASSERT_LT(next, r.records.size());
        const RunRecord& rec = r.records[next++];
        EXPECT_EQ(qsizetype(rec.request.response.tokenEvents.size()), rec.request.metrics.tokenEvents);
        EXPECT_EQ(recordToJson(rec, r.endpoints).dump(), j.dump()) << "record " << next - 1;
    }
    EXPECT_EQ(next, r.records.size());
    // The stamps are the client's, on the run's clock: the first token after t0, within the request.
    for (const RunRecord& rec : r.records) {
        const RequestTiming& t = rec.request.timing;
        ASSERT_FALSE(rec.request.response.tokenEvents.empty());
        EXPECT_GE(rec.request.response.tokenEvents.front().stampNs, t.t0Ns);
        EXPECT_LE(rec.request.response.tokenEvents.back().stampNs, t.endNs);
    }

    // Without a journal nothing is let go of: the result holds the very records handed out.
    request.journalPath.clear();
    const Outcome plain = run(request);
    ASSERT_TRUE(plain.result);
    for (const RunRecord& live : plain.records)
        EXPECT_EQ(qsizetype(live.request.response.tokenEvents.size()), live.request.metrics.tokenEvents);
    ASSERT_EQ(plain.shared.size(), plain.result->records.size());
    for (std::size_t i = 0; i < plain.shared.size(); ++i)
        EXPECT_EQ(plain.shared[i].get(), &plain.result->records[i]);
}

TEST(Runner, DeadEndpointIsSkippedAndNoneReachableFails)
{
    Served good(echoServer(emu::Dialect::Sglang));
    RunEndpoint dead;
    dead.endpoint.label = QStringLiteral("dead");
    dead.endpoint.baseUrl = QUrl(QStringLiteral("http://127.0.0.1:%1").arg(closedPort()));
    RunRequest request;
    request.suite = smallSuite(0, 1);
    request.endpoints = {runEndpoint(good, QStringLiteral("good")), dead};
    Outcome o = run(request);
    ASSERT_TRUE(o.result);
    EXPECT_TRUE(o.warnings.join(u'\n').contains(QStringLiteral("dead")));
    for (const RunRecord& r : o.result->records)
        EXPECT_EQ(r.endpoint, 0);
    EXPECT_EQ(o.result->records.size(), 5u);

    request.endpoints = {dead};
    o = run(request);
    EXPECT_FALSE(o.result);
    EXPECT_TRUE(o.failed.contains(QStringLiteral("no endpoint is reachable"))) << o.failed.toStdString();
}

TEST(Runner, CancelKeepsEveryCompletedRecord)
{
    Served slow(echoServer(emu::Dialect::LlamaServer, 60, 50));
    QTemporaryDir dir;
    RunRequest request;
    request.suite = smallSuite(0, 20);
    request.endpoints = {runEndpoint(slow, QStringLiteral("slow"))};
    request.journalPath = dir.filePath(QStringLiteral("r.journal"));
    const Outcome o = run(request, [](RunController& c, const Outcome& so) {
        if (so.records.size() == 3)
            c.cancel();
    });
    ASSERT_TRUE(o.result);
    EXPECT_FALSE(o.result->complete);
    EXPECT_GE(o.result->records.size(), 3u);
    EXPECT_LT(o.result->records.size(), 20u);
    EXPECT_EQ(o.result->records.size(), o.records.size());
    EXPECT_EQ(journalLines(request.journalPath), qsizetype(1 + o.result->records.size()));
    // A request Stop cut short is "stopped", never "failed": the server did nothing wrong.
    const auto cut = std::count_if(o.result->records.begin(), o.result->records.end(),
        [](const RunRecord& r) { return r.request.failure.kind == FailureKind::Cancelled; });
    EXPECT_EQ(o.lastProgress.stopped, int(cut));
    EXPECT_EQ(o.lastProgress.failed, 0);
}

// Parallel lanes at different paces: once the fast endpoint is done, the time left is the slow
// one's requests at the slow one's pace — not every request at the average pace, which promised
// a third of the time actually left.
TEST(Runner, TheEtaFollowsTheSlowestLane)
{
    Served fast(echoServer(emu::Dialect::Vllm, 2, 4000));
    Served slow(echoServer(emu::Dialect::LlamaServer, 80, 400));
    RunRequest request;
    request.suite = smallSuite(0, 4);
    request.settings.order = RunOrder::Parallel;
    request.endpoints
        = {runEndpoint(fast, QStringLiteral("fast")), runEndpoint(slow, QStringLiteral("slow"))};
    RunController controller;
    int done[2] = {0, 0};
    struct Seen {
        int fastDone, slowDone, total;
        std::optional<double> eta;
    };
    std::vector<Seen> seen;
    bool ended = false;
    QObject::connect(
        &controller, &RunController::recordFinished, [&](const SharedRecord& r) { ++done[r->endpoint]; });
    QObject::connect(&controller, &RunController::progress, [&](const RunProgress& p) {
        seen.push_back({done[0], done[1], p.total, p.etaMs});
    });
    QObject::connect(&controller, &RunController::finished, [&](auto&&...) { ended = true; });
    QObject::connect(&controller, &RunController::failed, [&](const QString&) { ended = true; });
    controller.start(std::move(request));
    const qint64 until = monotonicNs() + qint64(90e9);
    while (!ended && monotonicNs() < until)
        QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents, 50);
    ASSERT_TRUE(ended);
    ASSERT_GT(done[1], 6);
    const int perEndpoint = done[1];
    int checked = 0;
    for (const Seen& s : seen) {
        const int slowLeft = perEndpoint - s.slowDone;
        if (s.fastDone < perEndpoint || slowLeft < 3 || s.slowDone < 2)
            continue;
        ASSERT_TRUE(s.eta);
        // The slow server takes ~85 ms a request: at least half that for each one left.
        EXPECT_GE(*s.eta, 42.0 * slowLeft) << s.slowDone << " of " << perEndpoint << " done on the slow lane";
        ++checked;
    }
    EXPECT_GT(checked, 0) << "the fast lane never finished first";
}

TEST(Runner, AFailedTurnEndsItsConversation)
{
    emu::ServerConfig c = echoServer(emu::Dialect::Vllm);
    c.scriptFor = [](const emu::RequestInfo& info) {
        emu::Script s = emu::simpleScript(3, 5, 400);
        if (info.body.value(QStringLiteral("messages")).toArray().size() == 4) { // turn 2 of the chat
            s.fault = emu::Fault::HttpError;
            s.httpError = emu::HttpErrorKind::ServerError;
        }
        return s;
    };
    Served server(c);
    RunRequest request;
    request.suite = smallSuite(0, 1);
    request.suite.tests.erase(request.suite.tests.begin(), request.suite.tests.begin() + 2); // the chat only
    request.endpoints = {runEndpoint(server, QStringLiteral("x"))};
    const Outcome o = run(request);
    ASSERT_TRUE(o.result);
    ASSERT_EQ(o.result->records.size(), 2u); // turn 1 ok, turn 2 failed, turn 3 never sent
    EXPECT_TRUE(o.result->records[0].request.ok());
    EXPECT_EQ(o.result->records[1].turn, 2);
    EXPECT_EQ(o.result->records[1].request.failure.kind, FailureKind::ServerError);
    EXPECT_EQ(o.lastProgress.done, o.lastProgress.total);
}

namespace {
int samplesOf(const Telemetry& t, int source, std::optional<TelemetrySample::Phase> phase, bool failed)
{
    return int(std::count_if(t.samples.begin(), t.samples.end(), [&](const TelemetrySample& s) {
        return s.source == source && (!phase || s.phase == *phase) && s.ok() != failed;
    }));
}
} // namespace

TEST(Runner, ScrapesAnExporterAroundAndDuringTheRunAndGoesOnWithoutMetricsTheServerDoesNotServe)
{
    // The emulated llama-server serves no /metrics (as without --metrics): the probe says which
    // flag turns it on, and the run scrapes only the exporter.
    emu::ServerConfig withoutMetrics = echoServer(emu::Dialect::LlamaServer, 20, 200);
    withoutMetrics.metricsEnabled = false;
    Served llama(withoutMetrics);
    CannedServer exporter(dcgmPageReply(4096), false);
    QTemporaryDir dir;
    RunRequest request;
    request.suite = smallSuite(0, 2);
    RunEndpoint e = runEndpoint(llama, QStringLiteral("A"));
    e.endpoint.metricsUrls = {exporter.url().toString() + QStringLiteral("/metrics")};
    request.endpoints = {e};
    request.settings.scrapeMs = 50;
    request.journalPath = dir.filePath(QStringLiteral("run.json.journal"));
    const Outcome o = run(request);
    ASSERT_TRUE(o.result) << o.failed.toStdString();
    const RunResult& r = *o.result;
    const auto& metrics = r.endpoints[0].probe["metrics"];
    EXPECT_FALSE(metrics["answered"].get<bool>());
    EXPECT_NE(metrics["error"].get<std::string>().find("--metrics"), std::string::npos);
    EXPECT_TRUE(metrics["extra"][0]["answered"].get<bool>());
    EXPECT_EQ(metrics["extra"][0]["flavour"].get<std::string>(), "dcgm");
    EXPECT_TRUE(o.warnings.join(u'\n').contains(QStringLiteral("start llama-server with --metrics")));

    const Telemetry& t = r.telemetry;
    EXPECT_EQ(t.periodMs, 50);
    ASSERT_EQ(t.sources.size(), 1u);
    EXPECT_EQ(t.sources[0].kind, TelemetrySource::Kind::Exporter);
    EXPECT_EQ(samplesOf(t, 0, TelemetrySample::Phase::IdleBefore, false), 1);
    EXPECT_GE(samplesOf(t, 0, TelemetrySample::Phase::Run, false), 3);
    EXPECT_EQ(samplesOf(t, 0, TelemetrySample::Phase::IdleAfter, false), 1);
    // On the records' clock: the baseline before the first request, idle_after after the last.
    double firstStart = 1e18, lastStart = 0;
    for (const RunRecord& rec : r.records) {
        EXPECT_TRUE(rec.request.ok());
        firstStart = std::min(firstStart, rec.startOffsetMs);
        lastStart = std::max(lastStart, rec.startOffsetMs);
    }
    for (const TelemetrySample& s : t.samples) {
        if (s.phase == TelemetrySample::Phase::IdleBefore) {
            EXPECT_LT(s.atMs + s.durationMs, firstStart);
        }
        if (s.phase == TelemetrySample::Phase::IdleAfter) {
            EXPECT_GT(s.atMs, lastStart);
        }
    }
    // The journal kept every sample beside the records.
    QFile journal(request.journalPath);
    ASSERT_TRUE(journal.open(QIODevice::ReadOnly));
    EXPECT_EQ(journal.readAll().count('\n'), qsizetype(1 + r.records.size() + t.samples.size()));
}

TEST(Runner, AnExporterKilledMidRunLeavesAGapAndANoteAndNoFailedRequest)
{
    Served vllm(echoServer(emu::Dialect::Vllm, 40, 100));
    auto exporter = std::make_unique<CannedServer>(dcgmPageReply(1024), false);
    RunRequest request;
    request.suite = smallSuite(0, 3);
    RunEndpoint e = runEndpoint(vllm, QStringLiteral("B"));
    e.endpoint.metricsUrls = {exporter->url().toString() + QStringLiteral("/metrics")};
    request.endpoints = {e};
    request.settings.scrapeMs = 50;
    const Outcome o = run(request, [&](RunController&, const Outcome& so) {
        if (so.records.size() == 4)
            exporter.reset(); // the exporter dies: its port refuses from now on
    });
    ASSERT_TRUE(o.result);
    for (const RunRecord& rec : o.result->records)
        EXPECT_TRUE(rec.request.ok()) << rec.request.failure.text().toStdString();
    const Telemetry& t = o.result->telemetry;
    ASSERT_EQ(t.sources.size(), 2u); // vLLM's own /metrics and the exporter
    const auto exporterSource = std::find_if(t.sources.begin(), t.sources.end(),
        [](const TelemetrySource& s) { return s.kind == TelemetrySource::Kind::Exporter; });
    ASSERT_NE(exporterSource, t.sources.end());
    const int x = int(exporterSource - t.sources.begin());
    EXPECT_GE(samplesOf(t, x, TelemetrySample::Phase::Run, false), 2); // before it died
    EXPECT_GE(samplesOf(t, x, std::nullopt, true), 2); // the gap
    EXPECT_EQ(samplesOf(t, x, TelemetrySample::Phase::IdleAfter, true), 1);
    EXPECT_EQ(samplesOf(t, 1 - x, std::nullopt, true), 0) << "the runtime's page never failed";
    ASSERT_FALSE(exporterSource->notes.isEmpty());
    EXPECT_TRUE(exporterSource->notes.front().contains(QStringLiteral("down")))
        << exporterSource->notes.front().toStdString();
}

TEST(Runner, NoServerMetricsScrapesNothingAndSaysSo)
{
    Served sglang(echoServer(emu::Dialect::Sglang));
    CannedServer exporter(dcgmPageReply(1), false);
    RunRequest request;
    request.suite = smallSuite(0, 1);
    RunEndpoint e = runEndpoint(sglang, QStringLiteral("C"));
    e.endpoint.metricsUrls = {exporter.url().toString() + QStringLiteral("/metrics")};
    request.endpoints = {e};
    request.settings.serverMetrics = false;
    const Outcome o = run(request);
    ASSERT_TRUE(o.result);
    EXPECT_TRUE(o.result->telemetry.empty());
    EXPECT_EQ(o.result->telemetry.periodMs, 0);
    EXPECT_TRUE(o.result->telemetry.notes.contains(QStringLiteral("scraping off (--no-server-metrics)")));
}

TEST(Runner, FidelityTestsAskEveryArmGreedilyForLogprobs)
{
    // vLLM gets OpenAI's logprobs/top_logprobs; llama-server, whose runtime the probe finds (the
    // endpoint says Unknown), gets its native n_probs where a tool test streams (a 400 otherwise).
    Served vllm(echoServer(emu::Dialect::Vllm));
    Served llama(echoServer(emu::Dialect::LlamaServer));
    Suite suite = smallSuite(0, 1);
    suite.defaults.temperature = std::nullopt; // the suite leaves it to the server
    suite.defaults.topLogprobs = 20;
    suite.tests[0].fidelity = true; // factual
    suite.tests[1].fidelity = true; // weather, with tools
    suite.tests[1].seed = 42;
    RunRequest request;
    request.suite = suite;
    request.endpoints = {runEndpoint(vllm, QStringLiteral("A")), runEndpoint(llama, QStringLiteral("B"))};
    ASSERT_EQ(request.endpoints[1].endpoint.runtime, Runtime::Unknown);
    request.settings.serverMetrics = false;
    const Outcome o = run(request);
    ASSERT_TRUE(o.failed.isEmpty()) << o.failed.toStdString();
    ASSERT_TRUE(o.result);
    EXPECT_EQ(o.result->endpoints[1].endpoint.runtime, Runtime::LlamaServer);

    // The first user message names the test: its body, as each server received it.
    const auto bodyOf = [](const Served& served, const QString& prompt) {
        for (const emu::ServedRequest& s : served.served()) {
            const QJsonArray messages = s.request.body.value(QStringLiteral("messages")).toArray();
            for (const auto& m : messages)
                if (m.toObject().value(QStringLiteral("content")).toString() == prompt)
                    return s.request.body;
        }
        ADD_FAILURE() << "no request asked " << prompt.toStdString();
        return QJsonObject();
    };
    const QString factual = suite.tests[0].turns[0];
    const QString weather = suite.tests[1].turns[0];
    const QString chat = suite.tests[2].turns[0];
    for (const Served* served : {&vllm, &llama}) {
        SCOPED_TRACE(served == &vllm ? "vllm" : "llama-server");
        const QJsonObject f = bodyOf(*served, factual);
        EXPECT_EQ(f.value(QStringLiteral("logprobs")), QJsonValue(true));
        EXPECT_EQ(f.value(QStringLiteral("top_logprobs")), QJsonValue(20));
        EXPECT_EQ(f.value(QStringLiteral("temperature")), QJsonValue(0));
        EXPECT_EQ(f.value(QStringLiteral("seed")), QJsonValue(1));
        EXPECT_EQ(f.value(QStringLiteral("max_tokens")), QJsonValue(64));
        const QJsonObject w = bodyOf(*served, weather);
        EXPECT_EQ(w.value(QStringLiteral("seed")), QJsonValue(42));
        EXPECT_EQ(w.value(QStringLiteral("temperature")), QJsonValue(0));
        EXPECT_EQ(w.value(QStringLiteral("max_tokens")), QJsonValue(64));
        if (served == &llama) {
            EXPECT_EQ(w.value(QStringLiteral("n_probs")), QJsonValue(20));
            EXPECT_FALSE(w.contains(QStringLiteral("logprobs")));
        } else {
            EXPECT_EQ(w.value(QStringLiteral("logprobs")), QJsonValue(true));
            EXPECT_EQ(w.value(QStringLiteral("top_logprobs")), QJsonValue(20));
        }
        // Not a fidelity test: no logprobs, no temperature (the suite's null), no seed.
        const QJsonObject c = bodyOf(*served, chat);
        for (const char* key : {"logprobs", "top_logprobs", "n_probs", "temperature", "seed"})
            EXPECT_FALSE(c.contains(QLatin1String(key))) << key;
        EXPECT_EQ(c.value(QStringLiteral("max_tokens")), QJsonValue(64));
    }
}

TEST(Runner, CorruptedStreamsFailAreWarnedSavedAndLeftOutOfTheStatistics)
{
    Served clean(echoServer(emu::Dialect::Vllm));
    emu::ServerConfig corruptConfig = echoServer(emu::Dialect::Sglang);
    corruptConfig.scriptFor = [inner = corruptConfig.scriptFor](const emu::RequestInfo& info) {
        emu::Script s = inner(info);
        s.fault = emu::Fault::MalformedChunk; // a data line cut inside its JSON, then the stream goes on
        s.faultAfterTokens = 1;
        return s;
    };
    Served corrupt(corruptConfig);
    QTemporaryDir dir;
    RunRequest request;
    request.suite = smallSuite(1, 3);
    request.endpoints
        = {runEndpoint(clean, QStringLiteral("clean")), runEndpoint(corrupt, QStringLiteral("corrupt"))};
    const Outcome o = run(request);
    ASSERT_TRUE(o.result) << o.failed.toStdString();

    // The run's warnings say how many, and where.
    const QString warnings = o.warnings.join(u'\n');
    EXPECT_TRUE(warnings.contains(QStringLiteral("corrupt: "))) << warnings.toStdString();
    EXPECT_TRUE(warnings.contains(QStringLiteral("had corrupted streams"))) << warnings.toStdString();
    EXPECT_FALSE(warnings.contains(QStringLiteral("clean: "))) << warnings.toStdString();

    int corrupted = 0;
    for (const RunRecord& r : o.result->records) {
        if (r.endpoint == 0) {
            EXPECT_TRUE(r.request.ok()) << r.request.failure.text().toStdString();
            continue;
        }
        ++corrupted;
        EXPECT_EQ(r.request.failure.kind, FailureKind::MalformedStream);
        EXPECT_TRUE(r.request.response.content.startsWith(QStringLiteral("reply "))); // kept
    }
    ASSERT_GT(corrupted, 0);
    EXPECT_TRUE(warnings.contains(QStringLiteral("%1 of %1 requests").arg(corrupted)))
        << warnings.toStdString();

    // The results file keeps the kind and the quoted bytes.
    const QString path = dir.filePath(QStringLiteral("run.json"));
    ASSERT_TRUE(saveResults(*o.result, path).isEmpty());
    const RunResult loaded = loadResults(path);
    ASSERT_EQ(loaded.records.size(), o.result->records.size());
    for (std::size_t i = 0; i < loaded.records.size(); ++i) {
        EXPECT_EQ(loaded.records[i].request.failure.kind, o.result->records[i].request.failure.kind);
        EXPECT_EQ(loaded.records[i].request.failure.summary, o.result->records[i].request.failure.summary);
        EXPECT_EQ(loaded.records[i].request.response.content, o.result->records[i].request.response.content);
    }

    // The evaluation counts them as failed: no latency, no gate verdict, and a guardrail.
    const Evaluation ev = evaluate(loaded, 0, {}, false);
    int cells = 0;
    for (const CellStatistics& c : ev.cells) {
        if (c.endpoint != 1)
            continue;
        ++cells;
        EXPECT_EQ(c.ok, 0);
        EXPECT_EQ(c.failed, c.measured);
        const auto ttft = c.metrics.find(QStringLiteral("ttft_any_ms"));
        EXPECT_TRUE(ttft == c.metrics.end() || ttft->second.n == 0);
        for (const auto& [gate, counts] : c.gates)
            EXPECT_EQ(counts.second, 0) << gate.toStdString();
    }
    EXPECT_GT(cells, 0);
    const auto g = std::find_if(ev.guardrails.begin(), ev.guardrails.end(),
        [](const Guardrail& x) { return x.id == u"malformed_streams"; });
    ASSERT_NE(g, ev.guardrails.end());
    EXPECT_TRUE(g->evidence.contains(QStringLiteral("\"corrupt\""))) << g->evidence.toStdString();
    EXPECT_EQ(g->endpoints, std::vector<int> {1});
}

TEST(Runner, AColdContextTestSendsItsBriefingSaltedAndLlamaServerIsToldNotToCache)
{
    Served llama(echoServer(emu::Dialect::LlamaServer));
    Served vllm(echoServer(emu::Dialect::Vllm));
    Suite suite = smallSuite(1, 2);
    suite.prefixCache = PrefixCacheMode::Cold;
    suite.tests.resize(1);
    suite.tests[0].context
        = ContextSpec {2000, QStringLiteral("the spare key is under the heron statue."), 0.5};
    RunRequest request;
    request.suite = suite;
    request.endpoints = {runEndpoint(llama, QStringLiteral("A")), runEndpoint(vllm, QStringLiteral("B"))};
    request.settings.serverMetrics = false;
    const Outcome o = run(request);
    ASSERT_TRUE(o.failed.isEmpty()) << o.failed.toStdString();
    ASSERT_TRUE(o.result);
    for (const Served* served : {&llama, &vllm}) {
        SCOPED_TRACE(served == &llama ? "llama-server" : "vllm");
        QSet<QString> systems;
        for (const emu::ServedRequest& s : served->served()) {
            if (s.request.path != "/v1/chat/completions")
                continue;
            const QString system = s.request.body.value(QStringLiteral("messages"))
                                       .toArray()
                                       .at(0)
                                       .toObject()
                                       .value(QStringLiteral("content"))
                                       .toString();
            EXPECT_TRUE(system.startsWith(QStringLiteral("[request "))) << system.left(80).toStdString();
            EXPECT_TRUE(system.contains(QStringLiteral("the spare key is under the heron statue.")));
            // The emulator counts words (+4 a message): about the 2,000 asked for.
            EXPECT_GT(s.request.promptTokens, 1600);
            EXPECT_LT(s.request.promptTokens, 2100);
            systems.insert(system);
            EXPECT_EQ(s.request.body.contains(QStringLiteral("cache_prompt")), served == &llama);
            if (served == &llama) {
                EXPECT_EQ(s.request.body.value(QStringLiteral("cache_prompt")), QJsonValue(false));
            }
        }
        EXPECT_EQ(systems.size(), 3); // a warm-up and two measured runs, each salted apart
    }
    // llama-server's cache_prompt: false is the cold suite's own doing, not a difference between
    // the arms.
    RunResult result = *o.result;
    result.suite["prefix_cache"] = "cold"; // as the built-in suite's raw JSON says
    for (const Guardrail& g : evaluate(result).guardrails)
        EXPECT_NE(g.id, QStringLiteral("settings_differ")) << g.evidence.toStdString();
}

TEST(Runner, ASuiteThatNeedsMoreContextThanAServerHasIsRefusedBeforeAnythingIsSent)
{
    emu::ServerConfig config = echoServer(emu::Dialect::LlamaServer);
    config.contextSize = 4096;
    Served small(config);
    Served big(echoServer(emu::Dialect::Sglang));
    Suite suite = smallSuite(0, 1);
    suite.tests[0].context = ContextSpec {8000, QString(), 0.5};
    RunRequest request;
    request.suite = suite;
    request.endpoints = {runEndpoint(small, QStringLiteral("Q4")), runEndpoint(big, QStringLiteral("FP4"))};
    request.settings.serverMetrics = false;
    const Outcome o = run(request);
    EXPECT_FALSE(o.result);
    EXPECT_TRUE(o.failed.contains(QStringLiteral("Q4 serves 4096 tokens of context")))
        << o.failed.toStdString();
    EXPECT_TRUE(o.failed.contains(QStringLiteral("--ctx-size"))) << o.failed.toStdString();
    for (const Served* served : {&small, &big})
        for (const emu::ServedRequest& s : served->served())
            EXPECT_NE(s.request.path, QByteArray("/v1/chat/completions"));
}

// Issue 22's yardstick, read on the server side (what went over the wire, not what the suite file
// says): the built-in voice-assistant suite sends at least 40 distinct user prompts, at least one
// request of a ~2K-token prompt, and the same prompt with thinking on and with thinking off.
TEST(Runner, TheVoiceSuiteSendsTheAssistantsRealWorkload)
{
    Served server(echoServer(emu::Dialect::Vllm, 1, 2000));
    RunRequest request;
    request.suite = loadBuiltinSuite(QStringLiteral("voice-assistant"));
    request.endpoints = {runEndpoint(server, QStringLiteral("A"))};
    request.settings.serverMetrics = false;
    request.settings.runs = 1;
    request.settings.warmup = 0;
    const Outcome o = run(request);
    ASSERT_TRUE(o.failed.isEmpty()) << o.failed.toStdString();
    ASSERT_TRUE(o.result);

    QSet<QString> userPrompts;
    QMap<QString, QSet<bool>> thinkingOf; // last user prompt → the enable_thinking values it was sent with
    int longest = 0;
    for (const emu::ServedRequest& s : server.served()) {
        const QJsonArray messages = s.request.body.value(QStringLiteral("messages")).toArray();
        QString lastUser;
        for (const auto& m : messages)
            if (m.toObject().value(QStringLiteral("role")).toString() == u"user")
                lastUser = m.toObject().value(QStringLiteral("content")).toString();
        if (lastUser.isEmpty())
            continue;
        if (messages.size() <= 2) // a conversation's first turn, or a one-turn test
            userPrompts.insert(lastUser);
        longest = std::max(longest, s.request.promptTokens);
        const QJsonValue thinking = s.request.body.value(QStringLiteral("chat_template_kwargs"))
                                        .toObject()
                                        .value(QStringLiteral("enable_thinking"));
        if (thinking.isBool())
            thinkingOf[lastUser].insert(thinking.toBool());
    }
    EXPECT_GE(userPrompts.size(), 40);
    // The emulator counts words + 4 a message; words run below a tokenizer's count, so ~1,400
    // words is a ~2K-token prompt.
    EXPECT_GE(longest, 1400);
    int bothWays = 0;
    for (auto it = thinkingOf.cbegin(); it != thinkingOf.cend(); ++it)
        bothWays += it.value().size() == 2 ? 1 : 0;
    EXPECT_GE(bothWays, 1);
    // Every request of the suite went out and came back.
    for (const RunRecord& r : o.result->records)
        EXPECT_TRUE(r.request.ok()) << r.test.toStdString() << ": " << r.request.failure.text().toStdString();
}

// Issue 22's yardstick for the sweep: the built-in context-sweep, run against servers whose
// prefill cost per prompt token is scripted, spans at least 16× in prompt size up to about 30K
// tokens, and `prefill_scaling` reads the script back within 15 %.
TEST(Runner, TheContextSweepReadsAScriptedPrefillCostBack)
{
    constexpr double msPerToken = 0.02; // 20 ms per 1K tokens
    const auto scripted = [](emu::Dialect dialect) {
        emu::ServerConfig c = echoServer(dialect, 5, 2000);
        c.contextSize = 32768;
        const auto reply = c.scriptFor;
        c.scriptFor = [reply](const emu::RequestInfo& info) {
            emu::Script s = reply(info);
            s.ttftPerPromptTokenMs = msPerToken;
            return s;
        };
        return c;
    };
    Served llama(scripted(emu::Dialect::LlamaServer));
    Served vllm(scripted(emu::Dialect::Vllm));
    RunRequest request;
    request.suite = loadBuiltinSuite(QStringLiteral("context-sweep"));
    request.endpoints = {runEndpoint(llama, QStringLiteral("Q4")), runEndpoint(vllm, QStringLiteral("FP4"))};
    request.settings.serverMetrics = false;
    request.settings.warmup = 0;
    request.settings.runs = 1;
    const Outcome o = run(request);
    ASSERT_TRUE(o.failed.isEmpty()) << o.failed.toStdString();
    ASSERT_TRUE(o.result);
    const Evaluation ev = evaluate(*o.result);
    ASSERT_EQ(ev.prefill.endpoints.size(), 2u);
    for (const EndpointPrefill& e : ev.prefill.endpoints) {
        SCOPED_TRACE(e.label.toStdString());
        EXPECT_EQ(e.source, PrefillSource::ContextSweep);
        EXPECT_EQ(e.prompts, 18);
        ASSERT_TRUE(e.minTokens && e.maxTokens);
        EXPECT_GE(*e.maxTokens / *e.minTokens, 16.0);
        EXPECT_GE(*e.maxTokens, 26000.0);
        EXPECT_LE(*e.maxTokens, 32768.0);
        ASSERT_TRUE(e.msPer1kTokens) << e.reason.toStdString();
        EXPECT_NEAR(*e.msPer1kTokens, 1000 * msPerToken, 0.15 * 1000 * msPerToken);
        ASSERT_TRUE(e.interval);
        EXPECT_LE(e.interval->lo, *e.msPer1kTokens);
        EXPECT_GE(e.interval->hi, *e.msPer1kTokens);
        // Graded like any test: every answer has an expected_answer verdict.
        for (const RunRecord& r : o.result->records) {
            if (r.endpoint == e.endpoint && !r.warmup) {
                EXPECT_TRUE(r.gates->contains("expected_answer")) << r.test.toStdString();
            }
        }
    }
}
