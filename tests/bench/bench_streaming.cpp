// SPDX-License-Identifier: MIT
// Benchmark (not a test): how exactly does StreamingClient measure a stream?
//
// An emulator on its own thread streams with a scripted TTFT and rate and records, on the same
// monotonic clock, when it wrote each token. The client runs on the main thread. We report:
//   stamp error  = client read stamp − emulator write stamp, for every token event (the client's
//                  own measurement error: socket → kernel → event loop → stamp)
//   ttft error   = client ttft_any − (emulator first write − client t0)
//   vs script    = client ttft_any − scripted TTFT (adds the emulator's own scheduling jitter)
//   decode error = client decode_tps − rate from the emulator's write stamps
//   CPU/token    = client-thread CPU time (CLOCK_THREAD_CPUTIME_ID) / tokens streamed
//
// With --scrape-ms N, a TelemetryRecorder on its own thread (as in a run) scrapes the emulator's
// /metrics (in the dialect's format) and a simulated DCGM exporter every N ms while the client streams:
// compare the stamp error with and without it (scraping must not change what the requests measure).
//
// With --parallel P the client keeps P streams in flight (all on the one thread, as the runner
// does); with --curl each round of the client is followed by curl on the same streams (same
// emulator, body, count and parallelism: CurlPass.h), and both CPU costs per token are reported
// side by side. --rounds K alternates K such pairs, so a drifting machine load hits both alike.
//
// With --threads T the clients run threaded (StreamThreads.h): the sockets, stamps and decoding on
// T threads of their own, the records handed back to this thread. The CPU reported is then this
// thread's plus the stream threads'.
//
// Usage: bench_streaming [--requests N] [--tokens N] [--ttft-ms X] [--tps X]
//                        [--dialect llama-server|vllm|sglang] [--scrape-ms N] [--json]
//                        [--parallel P] [--curl] [--rounds K] [--threads T]
#include "model/core/Clock.h"
#include "model/core/Percentile.h"
#include "model/run/TelemetryRecorder.h"
#include "model/wire/StreamThreads.h"
#include "model/wire/StreamingClient.h"
#include "tests/bench/CurlPass.h"
#include "tests/bench/StampCheck.h"
#include "tests/support/Emulator.h"
#include "tests/support/ExporterServer.h"

#include <QCoreApplication>
#include <QTemporaryDir>
#include <QTextStream>
#include <QThread>
#include <cmath>
#include <ctime>
#include <memory>
#include <unordered_map>

using namespace qs;

namespace {
double threadCpuMs()
{
    timespec ts {};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) / 1e6;
}

struct Summary {
    double mean = 0, p50 = 0, p99 = 0, max = 0, min = 0;
};

Summary summarize(const std::vector<double>& v)
{
    Summary s;
    if (v.empty())
        return s;
    double sum = 0;
    for (double x : v)
        sum += x;
    s.mean = sum / double(v.size());
    s.p50 = *percentile(v, 50);
    s.p99 = *percentile(v, 99);
    s.max = *std::max_element(v.begin(), v.end());
    s.min = *std::min_element(v.begin(), v.end());
    return s;
}

QString line(const char* name, const Summary& s, const char* unit)
{
    return QStringLiteral("  %1 mean %2  p50 %3  p99 %4  min %5  max %6 %7\n")
        .arg(QString::fromUtf8(name), -34)
        .arg(s.mean, 8, 'f', 3)
        .arg(s.p50, 8, 'f', 3)
        .arg(s.p99, 8, 'f', 3)
        .arg(s.min, 8, 'f', 3)
        .arg(s.max, 8, 'f', 3)
        .arg(QString::fromLatin1(unit));
}
// `requests` requests, `parallel` at once, every client on this thread (threaded on `threads` when
// given). Returns the records in the order they finished; `cpuMs` is this thread's CPU time for
// all of it, and the stream threads'.
std::vector<RequestRecord> runClients(const Endpoint& endpoint, const ChatRequest& request, int requests,
    int parallel, const std::shared_ptr<StreamThreads>& threads, double& cpuMs)
{
    std::vector<RequestRecord> records;
    records.reserve(std::size_t(requests));
    std::vector<std::unique_ptr<StreamingClient>> clients;
    int started = 0;
    for (int i = 0; i < parallel && i < requests; ++i) {
        StreamingClient* c = clients
                                 .emplace_back(threads ? std::make_unique<StreamingClient>(threads)
                                                       : std::make_unique<StreamingClient>())
                                 .get();
        QObject::connect(c, &StreamingClient::finished, c, [&, c](const RequestRecord& r) {
            records.push_back(r);
            if (started < requests) {
                ++started;
                // Next pass of the event loop, as the runner does: not inside the client's signal.
                QMetaObject::invokeMethod(
                    c, [&, c] { c->start(endpoint, request); }, Qt::QueuedConnection);
            }
        });
    }
    const auto allCpuMs = [&] { return threadCpuMs() + (threads ? threads->cpuMs() : 0.0); };
    const double cpuStart = allCpuMs();
    for (auto& client : clients) {
        ++started;
        client->start(endpoint, request);
    }
    while (records.size() < std::size_t(requests))
        QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents);
    cpuMs = allCpuMs() - cpuStart;
    return records;
}

qint64 tokensWritten(const std::vector<emu::ServedRequest>& served)
{
    qint64 n = 0;
    for (const emu::ServedRequest& s : served)
        n += qint64(s.tokenWriteNs.size());
    return n;
}
} // namespace

int main(int argc, char** argv)
{
    QCoreApplication app(argc, argv);
    QStringList args = app.arguments().mid(1);
    int requests = 200, tokens = 32, scrapeMs = 0, parallel = 1, rounds = 1, threadCount = 0;
    double ttftMs = 50, tps = 200;
    bool json = false, curl = false;
    emu::Dialect dialect = emu::Dialect::LlamaServer;
    QString dialectName = QStringLiteral("llama-server");
    for (int i = 0; i < args.size(); ++i) {
        const QString a = args[i];
        const QString v = args.value(i + 1);
        if (a == u"--requests")
            requests = v.toInt(), ++i;
        else if (a == u"--tokens")
            tokens = v.toInt(), ++i;
        else if (a == u"--ttft-ms")
            ttftMs = v.toDouble(), ++i;
        else if (a == u"--tps")
            tps = v.toDouble(), ++i;
        else if (a == u"--scrape-ms")
            scrapeMs = v.toInt(), ++i;
        else if (a == u"--parallel")
            parallel = v.toInt(), ++i;
        else if (a == u"--threads")
            threadCount = v.toInt(), ++i;
        else if (a == u"--rounds")
            rounds = v.toInt(), ++i;
        else if (a == u"--curl")
            curl = true;
        else if (a == u"--json")
            json = true;
        else if (a == u"--dialect") {
            dialectName = v;
            dialect = v == u"vllm" ? emu::Dialect::Vllm
                : v == u"sglang"   ? emu::Dialect::Sglang
                                   : emu::Dialect::LlamaServer;
            ++i;
        } else {
            QTextStream(stderr) << "unknown argument " << a << "\n";
            return 2;
        }
    }
    if (requests < 1 || tokens < 2 || tps <= 0 || ttftMs < 0 || scrapeMs < 0 || parallel < 1 || rounds < 1
        || threadCount < 0) {
        QTextStream(stderr)
            << "need --requests >= 1, --tokens >= 2, --tps > 0, --ttft-ms >= 0, --scrape-ms >= 0, "
               "--parallel >= 1, --rounds >= 1, --threads >= 0\n";
        return 2;
    }

    emu::ServerConfig config;
    config.dialect = dialect;
    config.script = emu::simpleScript(tokens, ttftMs, tps);
    config.metricsEnabled = true; // the dialect's real /metrics page, moving with the load
    emu::EmulatorThread emulator;
    if (!emulator.start(config)) {
        QTextStream(stderr) << "emulator failed to listen\n";
        return 1;
    }
    // A DCGM exporter beside it (GB10-like, power following the emulator's load): a second page
    // parsed on every tick, as on a real Spark.
    emu::ExporterThread dcgm;
    emu::EmulatorServer* server = emulator.server();
    if (scrapeMs > 0
        && !dcgm.start(emu::ExporterConfig::simulated(
            emu::ExporterKind::Dcgm, QStringLiteral("q4km-like"), [server] { return server->load(); }))) {
        QTextStream(stderr) << "exporter failed to listen\n";
        return 1;
    }
    Endpoint endpoint;
    endpoint.baseUrl = emulator.baseUrl();
    ChatRequest request = ChatRequest::fromPrompt(QStringLiteral("benchmark"));
    request.maxTokens = tokens + 10;

    // Scraping on: the recorder in its own thread, as BenchmarkRunner runs it.
    QThread telemetryThread;
    auto* recorder = new TelemetryRecorder;
    recorder->moveToThread(&telemetryThread);
    QObject::connect(&telemetryThread, &QThread::finished, recorder, &QObject::deleteLater);
    telemetryThread.start();
    Telemetry telemetry;
    if (scrapeMs > 0) {
        std::vector<TelemetryTarget> targets(2);
        targets[0].url = endpoint.url(QStringLiteral("/metrics"));
        targets[0].kind = TelemetrySource::Kind::Runtime;
        targets[1].url = dcgm.metricsUrl();
        targets[1].kind = TelemetrySource::Kind::Exporter;
        QMetaObject::invokeMethod(
            recorder, [&] { recorder->start(targets, scrapeMs, monotonicNs(), nullptr); },
            Qt::BlockingQueuedConnection);
    }

    QTemporaryDir curlDir;
    const std::shared_ptr<StreamThreads> threads
        = threadCount > 0 ? StreamThreads::create(threadCount) : nullptr;
    const QByteArray body = QByteArray::fromStdString(buildChatBody(endpoint, request).dump());
    const QUrl chatUrl = endpoint.url(QStringLiteral("/v1/chat/completions"));
    std::vector<RequestRecord> records;
    std::vector<emu::ServedRequest> served;
    double cpuMs = 0, wallMs = 0, curlCpuMs = 0;
    qint64 curlTokens = 0;
    int curlFailures = 0;
    QString curlError;
    for (int round = 0; round < rounds; ++round) {
        server->clearServedRequests();
        double roundCpuMs = 0;
        const qint64 wallStart = monotonicNs();
        std::vector<RequestRecord> roundRecords
            = runClients(endpoint, request, requests, parallel, threads, roundCpuMs);
        wallMs += msBetween(wallStart, monotonicNs());
        cpuMs += roundCpuMs;
        std::move(roundRecords.begin(), roundRecords.end(), std::back_inserter(records));
        for (emu::ServedRequest& s : server->servedRequests())
            served.push_back(std::move(s));
        if (!curl)
            continue;
        server->clearServedRequests();
        const bench::CurlPass pass = bench::runCurl(chatUrl, body, requests, parallel, curlDir.path());
        const std::vector<emu::ServedRequest> curlServed = server->servedRequests();
        curlCpuMs += pass.cpuMs;
        curlTokens += tokensWritten(curlServed);
        curlFailures += requests - pass.ok;
        for (const emu::ServedRequest& s : curlServed)
            curlFailures += s.httpStatus == 200 && s.tokenWriteNs.size() == std::size_t(tokens) ? 0 : 1;
        if (!pass.error.isEmpty())
            curlError = pass.error;
    }
    QMetaObject::invokeMethod(
        recorder, [&] { telemetry = recorder->stop(); }, Qt::BlockingQueuedConnection);
    telemetryThread.quit();
    telemetryThread.wait();
    int scrapes = 0, scrapeErrors = 0;
    qint64 scrapedValues = 0; // values parsed and kept: proof the pages were really read
    for (const TelemetrySample& t : telemetry.samples) {
        ++scrapes;
        scrapeErrors += t.ok() ? 0 : 1;
        scrapedValues += qint64(t.values.size());
    }

    // Matched by response id, so any order of finishing works.
    std::vector<const RequestRecord*> recordPtrs;
    for (const RequestRecord& r : records)
        recordPtrs.push_back(&r);
    const bench::StampCheck check = bench::checkStamps(recordPtrs, served, false);
    std::unordered_map<QString, const emu::ServedRequest*> servedById;
    for (const emu::ServedRequest& s : served)
        servedById.emplace(QString::fromLatin1(s.completionId), &s);
    std::vector<double> ttftErr, ttftVsScript, decodeErr, decodeVsScript, sendLatency;
    const int failures = check.failedRecords + check.unmatchedRecords;
    const qint64 mismatched = check.lostEvents + check.receivedEvents - qint64(check.stampErrorMs.size());
    const qint64 streamedTokens = qint64(check.stampErrorMs.size());
    for (const RequestRecord& r : records) {
        const auto it = servedById.find(r.response.responseId);
        if (!r.ok() || it == servedById.end()
            || r.response.tokenEvents.size() != it->second->tokenWriteNs.size())
            continue;
        const emu::ServedRequest& s = *it->second;
        const double trueTtft = msBetween(r.timing.t0Ns, s.tokenWriteNs.front());
        ttftErr.push_back(*r.metrics.ttftAnyMs - trueTtft);
        ttftVsScript.push_back(*r.metrics.ttftAnyMs - ttftMs);
        const double trueRate = double(s.tokenWriteNs.size() - 1)
            / (msBetween(s.tokenWriteNs.front(), s.tokenWriteNs.back()) / 1000.0);
        decodeErr.push_back(*r.metrics.decodeTps - trueRate);
        decodeVsScript.push_back(*r.metrics.decodeTps - tps);
        sendLatency.push_back(msBetween(r.timing.t0Ns, s.receivedNs));
    }

    QTextStream out(stdout);
    const Summary stamp = summarize(check.stampErrorMs), ttft = summarize(ttftErr);
    const double cpuPerTokenUs = streamedTokens ? cpuMs * 1000.0 / double(streamedTokens) : 0;
    const double curlPerTokenUs = curlTokens ? curlCpuMs * 1000.0 / double(curlTokens) : 0;
    const bool bad = failures || mismatched || (curl && (curlFailures || !curlError.isEmpty()));
    if (json) {
        out << QStringLiteral(
            "{\"dialect\":\"%1\",\"requests\":%2,\"tokens_per_request\":%3,\"ttft_ms\":%4,\"tps\":%5,"
            "\"failures\":%6,\"mismatched\":%7,\"stamp_err_mean_ms\":%8,\"stamp_err_p99_ms\":%9,"
            "\"ttft_err_mean_ms\":%10,\"ttft_err_p99_ms\":%11,\"cpu_us_per_token\":%12,\"scrape_ms\":%13,"
            "\"scrapes\":%14,\"scrape_errors\":%15,\"scrape_sources\":%16,\"scraped_values\":%17,"
            "\"parallel\":%18,\"rounds\":%19")
                   .arg(dialectName)
                   .arg(requests)
                   .arg(tokens)
                   .arg(ttftMs)
                   .arg(tps)
                   .arg(failures)
                   .arg(mismatched)
                   .arg(stamp.mean, 0, 'f', 4)
                   .arg(stamp.p99, 0, 'f', 4)
                   .arg(ttft.mean, 0, 'f', 4)
                   .arg(ttft.p99, 0, 'f', 4)
                   .arg(cpuPerTokenUs, 0, 'f', 2)
                   .arg(scrapeMs)
                   .arg(scrapes)
                   .arg(scrapeErrors)
                   .arg(telemetry.sources.size())
                   .arg(scrapedValues)
                   .arg(parallel)
                   .arg(rounds);
        out << QStringLiteral(",\"threads\":%1").arg(threadCount);
        if (curl)
            out << QStringLiteral(",\"curl_cpu_us_per_token\":%1,\"curl_failures\":%2")
                       .arg(curlPerTokenUs, 0, 'f', 2)
                       .arg(curlFailures);
        out << "}\n";
        return bad ? 1 : 0;
    }
    out << QStringLiteral("bench_streaming: %1 requests × %2 tokens, %3 dialect, scripted TTFT %4 ms at %5 "
                          "tok/s, %6 at once%7\n")
               .arg(requests)
               .arg(tokens)
               .arg(dialectName)
               .arg(ttftMs)
               .arg(tps)
               .arg(parallel)
               .arg((rounds > 1 ? QStringLiteral(", %1 rounds").arg(rounds) : QString())
                   + (threadCount > 0 ? QStringLiteral(", threaded on %1 stream threads").arg(threadCount)
                                      : QString()));
    out << QStringLiteral("  failures %1, token-count mismatches %2, wall %3 s\n")
               .arg(failures)
               .arg(mismatched)
               .arg(wallMs / 1000.0, 0, 'f', 1);
    out << (scrapeMs > 0 ? QStringLiteral("  scraping on: every %1 ms, %2 scrapes of %3 pages (%4 failed, %5 "
                                          "values kept) in the recorder's thread\n")
                               .arg(scrapeMs)
                               .arg(scrapes)
                               .arg(telemetry.sources.size())
                               .arg(scrapeErrors)
                               .arg(scrapedValues)
                         : QStringLiteral("  scraping off\n"));
    out << line("stamp error, every token (ms)", stamp, "ms");
    out << line("ttft_any error vs emulator (ms)", ttft, "ms");
    out << line("ttft_any − scripted TTFT (ms)", summarize(ttftVsScript), "ms");
    out << line("decode_tps error vs emulator", summarize(decodeErr), "tok/s");
    out << line("decode_tps − scripted rate", summarize(decodeVsScript), "tok/s");
    out << line("request send → emulator read (ms)", summarize(sendLatency), "ms");
    out << QString::fromUtf8(threadCount > 0
            ? "  client CPU (this thread + stream threads): %1 ms for %2 tokens = %3 µs per streamed token\n"
            : "  client-thread CPU: %1 ms for %2 tokens = %3 µs per streamed token\n")
               .arg(cpuMs, 0, 'f', 1)
               .arg(streamedTokens)
               .arg(cpuPerTokenUs, 0, 'f', 2);
    if (curl) {
        out << QStringLiteral(
            "  curl (one process, %1 transfers at once): %2 ms CPU for %3 tokens = %4 µs per token%5\n")
                   .arg(parallel)
                   .arg(curlCpuMs, 0, 'f', 1)
                   .arg(curlTokens)
                   .arg(curlPerTokenUs, 0, 'f', 2)
                   .arg(curlError.isEmpty() && !curlFailures
                           ? QString()
                           : QStringLiteral(" — %1 failed transfers %2").arg(curlFailures).arg(curlError));
        out << QStringLiteral("  client / curl CPU per token: %1\n")
                   .arg(curlPerTokenUs > 0 ? cpuPerTokenUs / curlPerTokenUs : 0, 0, 'f', 2);
    }
    out << QStringLiteral("  goal: p99 stamp error < 1 ms on loopback → %1\n")
               .arg(stamp.p99 < 1.0 && ttft.p99 < 1.0 ? QStringLiteral("MET") : QStringLiteral("NOT MET"));
    return bad ? 1 : 0;
}
