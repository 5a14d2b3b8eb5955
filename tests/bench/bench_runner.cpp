// SPDX-License-Identifier: MIT
// Benchmark (not a test): the runner's own overhead at high concurrency.
//
// One emulator on its own thread; the runner (RunController → BenchmarkRunner on its thread)
// keeps N streams in flight. Reports requests/s, token events/s, and the runner thread's CPU
// time per streamed token (clients, HTTP/SSE parsing, JSON decoding, metrics, journal writes)
// — the emulator's CPU is on another thread and not counted.
//
// --scrape-ms N turns server telemetry on (the emulator's /metrics and a DCGM exporter, scraped
// in the recorder's own thread): the runner thread's CPU and the TTFTs should not move.
//
// Every token event's read stamp is checked against the emulator's write stamp of the same token
// (StampCheck.h): the stamp error, and events lost or misattributed — the emulator numbers its
// tokens ("r<request>t<place> "), so an event that reached the wrong request shows in its text.
// --emulator URL measures against an emulator in another process instead of one on a thread here
// (so it takes none of this process's CPU), started with its served log and numbered tokens:
//   quantscope emulate --dialect vllm --port 8011 --tokens 64 --tps 20 --ttft-ms 20 --numbered --served-log
// --tokens, --tps and --ttft-ms then only size the requests (max_tokens) and label the report.
//
// Usage: bench_runner [--concurrency 64] [--requests 640] [--tokens 64] [--tps 100] [--ttft-ms 20]
//                     [--journal] [--scrape-ms N] [--emulator URL] [--stream-threads N]
// --stream-threads N: read the streams on N threads of their own (RunRequest::streamThreads;
// default 0, every stream on the runner's thread).
#include "model/core/Clock.h"
#include "model/core/Percentile.h"
#include "model/run/RunController.h"
#include "tests/bench/StampCheck.h"
#include "tests/support/Emulator.h"
#include "tests/support/ExporterServer.h"

#include <QCoreApplication>
#include <QTemporaryDir>
#include <QTextStream>
#include <algorithm>
#include <sys/resource.h>

using namespace qs;

namespace {
double processCpuMs()
{
    rusage u {};
    getrusage(RUSAGE_SELF, &u);
    return (double(u.ru_utime.tv_sec) + double(u.ru_stime.tv_sec)) * 1e3
        + (double(u.ru_utime.tv_usec) + double(u.ru_stime.tv_usec)) / 1e3;
}
} // namespace

int main(int argc, char** argv)
{
    QCoreApplication app(argc, argv);
    int concurrency = 64, requests = 640, tokens = 64, scrapeMs = 0;
    int streamThreads = 0;
    double tps = 100, ttftMs = 20;
    bool journal = false;
    QUrl external;
    const QStringList args = app.arguments().mid(1);
    for (int i = 0; i < args.size(); ++i) {
        const QString a = args[i], v = args.value(i + 1);
        if (a == u"--concurrency")
            concurrency = v.toInt(), ++i;
        else if (a == u"--requests")
            requests = v.toInt(), ++i;
        else if (a == u"--tokens")
            tokens = v.toInt(), ++i;
        else if (a == u"--tps")
            tps = v.toDouble(), ++i;
        else if (a == u"--ttft-ms")
            ttftMs = v.toDouble(), ++i;
        else if (a == u"--scrape-ms")
            scrapeMs = v.toInt(), ++i;
        else if (a == u"--stream-threads")
            streamThreads = v.toInt(), ++i;
        else if (a == u"--journal")
            journal = true;
        else if (a == u"--emulator")
            external = QUrl(v), ++i;
        else {
            QTextStream(stderr) << "unknown argument " << a << '\n';
            return 2;
        }
    }
    if (concurrency < 1 || requests < concurrency || tokens < 2 || tps <= 0) {
        QTextStream(stderr)
            << "need --concurrency >= 1, --requests >= concurrency, --tokens >= 2, --tps > 0\n";
        return 2;
    }

    emu::ServerConfig config;
    config.dialect = emu::Dialect::Vllm;
    config.script = emu::simpleScript(tokens, ttftMs, tps);
    config.metricsEnabled = true; // vLLM's real /metrics page, moving with the load
    config.numberTokens = true;
    emu::EmulatorThread emulator;
    if (external.isEmpty() && !emulator.start(config))
        return 1;
    if (!external.isEmpty() && !external.isValid()) {
        QTextStream(stderr) << "--emulator needs a URL like http://127.0.0.1:8011\n";
        return 2;
    }
    const QUrl baseUrl = external.isEmpty() ? emulator.baseUrl() : external;
    // A DCGM exporter beside it (GB10-like, power following the emulator's load), as on a Spark.
    emu::ExporterThread dcgm;
    const emu::EmulatorServer* server = emulator.server();
    if (scrapeMs > 0
        && !dcgm.start(emu::ExporterConfig::simulated(emu::ExporterKind::Dcgm, QStringLiteral("nvfp4-like"),
            [server] { return server ? server->load() : emu::EmulatorLoad(); })))
        return 1;
    std::vector<emu::ServedRequest> servedBefore; // an external emulator may have served others already
    if (!external.isEmpty()) {
        QString error;
        servedBefore = bench::parseServedLog(bench::fetchServedLog(external, &error), &error);
        if (!error.isEmpty()) {
            QTextStream(stderr) << "emulator at " << external.toString() << ": " << error << '\n';
            return 1;
        }
    }

    RunRequest request;
    Suite& s = request.suite;
    s.id = QStringLiteral("bench");
    s.defaults.warmup = 0;
    s.defaults.runs = requests;
    s.defaults.maxTokens = tokens + 8;
    SuiteTest t;
    t.id = QStringLiteral("load");
    t.turns = {QStringLiteral("Say something.")};
    s.tests = {t};
    RunEndpoint e;
    e.endpoint.label = QStringLiteral("emulator");
    e.endpoint.baseUrl = baseUrl;
    e.spec = e.endpoint.baseUrl.toString();
    if (scrapeMs > 0)
        e.endpoint.metricsUrls = {dcgm.metricsUrl().toString()};
    request.endpoints = {e};
    request.settings.concurrency = concurrency;
    request.probe = false;
    request.streamThreads = streamThreads;
    request.settings.serverMetrics = scrapeMs > 0; // not probed: the emulator's /metrics is tried
    request.settings.scrapeMs = scrapeMs;
    QTemporaryDir dir;
    if (journal)
        request.journalPath = dir.filePath(QStringLiteral("bench.journal"));

    RunController controller;
    RunResult result;
    RunStats stats;
    bool done = false;
    QObject::connect(&controller, &RunController::finished,
        [&](const std::shared_ptr<const RunResult>& r, const RunStats& st) {
            result = *r;
            stats = st;
            done = true;
        });
    QObject::connect(&controller, &RunController::failed, [&](const QString& m) {
        QTextStream(stderr) << "failed: " << m << '\n';
        done = true;
    });
    const double processCpuStart = processCpuMs();
    controller.start(request);
    while (!done)
        QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents);

    const double processCpu = processCpuMs() - processCpuStart;
    std::vector<emu::ServedRequest> served;
    if (external.isEmpty()) {
        served = emulator.server()->servedRequests();
    } else {
        QString error;
        served = bench::parseServedLog(bench::fetchServedLog(external, &error), &error);
        if (!error.isEmpty()) {
            QTextStream(stderr) << "emulator at " << external.toString() << ": " << error << '\n';
            return 1;
        }
        // Only what this run asked: the log goes on from before it.
        const quint64 last = servedBefore.empty() ? 0 : servedBefore.back().serial;
        std::erase_if(served, [last](const emu::ServedRequest& r) { return r.serial <= last; });
    }
    std::vector<const RequestRecord*> requestRecords;
    for (const RunRecord& r : result.records)
        requestRecords.push_back(&r.request);
    const bench::StampCheck check = bench::checkStamps(requestRecords, served, true);

    int failed = 0;
    std::vector<double> ttft;
    for (const RunRecord& r : result.records) {
        failed += r.request.ok() ? 0 : 1;
        if (r.request.metrics.ttftAnyMs)
            ttft.push_back(*r.request.metrics.ttftAnyMs);
    }
    std::sort(ttft.begin(), ttft.end());
    int failedScrapes = 0;
    qint64 scrapedValues = 0; // values parsed and kept: proof the pages were really read
    for (const TelemetrySample& sample : result.telemetry.samples) {
        failedScrapes += sample.ok() ? 0 : 1;
        scrapedValues += qint64(sample.values.size());
    }
    QTextStream out(stdout);
    out << QStringLiteral(
               "bench_runner: %1 requests, %2 in flight, %3 tokens each at %4 tok/s, TTFT %5 ms, %6%7")
                .arg(requests)
                .arg(concurrency)
                .arg(tokens)
                .arg(tps)
                .arg(ttftMs)
                .arg(external.isEmpty() ? QStringLiteral("emulator on a thread")
                                        : QStringLiteral("emulator at %1").arg(external.toString()))
                .arg(journal ? QStringLiteral(", journal on") : QString())
            + (scrapeMs > 0 ? QStringLiteral(", scraping every %1 ms: %2 samples from %3 sources (%4 failed, "
                                             "%5 values kept)\n")
                                  .arg(scrapeMs)
                                  .arg(result.telemetry.samples.size())
                                  .arg(result.telemetry.sources.size())
                                  .arg(failedScrapes)
                                  .arg(scrapedValues)
                            : QStringLiteral(", scraping off\n"));
    out << QStringLiteral("  records %1, failed %2, wall %3 s\n")
               .arg(result.records.size())
               .arg(failed)
               .arg(stats.wallMs / 1000.0, 0, 'f', 2);
    out << QStringLiteral("  throughput: %1 requests/s, %2 token events/s\n")
               .arg(stats.requests / (stats.wallMs / 1000.0), 0, 'f', 1)
               .arg(double(stats.tokenEvents) / (stats.wallMs / 1000.0), 0, 'f', 0);
    out << QStringLiteral("  runner thread CPU: %1 ms = %2 µs per streamed token (%3 % of one core)\n")
               .arg(stats.runnerCpuMs, 0, 'f', 1)
               .arg(stats.tokenEvents ? stats.runnerCpuMs * 1000.0 / double(stats.tokenEvents) : 0, 0, 'f', 2)
               .arg(stats.runnerCpuMs / stats.wallMs * 100.0, 0, 'f', 1);
    if (stats.streamThreads > 0)
        out << QStringLiteral("  %1 stream threads' CPU: %2 ms = %3 µs per streamed token\n")
                   .arg(stats.streamThreads)
                   .arg(stats.streamThreadsCpuMs, 0, 'f', 1)
                   .arg(stats.tokenEvents ? stats.streamThreadsCpuMs * 1000.0 / double(stats.tokenEvents) : 0,
                       0, 'f', 2);
    if (!external.isEmpty())
        out << QStringLiteral(
            "  whole process CPU (the emulator is elsewhere): %1 ms = %2 µs per streamed token\n")
                   .arg(processCpu, 0, 'f', 1)
                   .arg(stats.tokenEvents ? processCpu * 1000.0 / double(stats.tokenEvents) : 0, 0, 'f', 2);
    if (!check.stampErrorMs.empty()) {
        std::vector<double> err = check.stampErrorMs;
        double sum = 0;
        for (double x : err)
            sum += x;
        out << QStringLiteral(
            "  stamp error (read − write), %1 token events: mean %2  p50 %3  p99 %4  p99.9 %5  "
            "max %6 ms\n")
                   .arg(err.size())
                   .arg(sum / double(err.size()), 0, 'f', 3)
                   .arg(*percentile(err, 50), 0, 'f', 3)
                   .arg(*percentile(err, 99), 0, 'f', 3)
                   .arg(*percentile(err, 99.9), 0, 'f', 3)
                   .arg(*std::max_element(err.begin(), err.end()), 0, 'f', 3);
    }
    out << QStringLiteral(
        "  events: %1 written, %2 recorded, %3 lost, %4 misattributed; records unmatched %5, "
        "served without a record %6\n")
               .arg(check.writtenEvents)
               .arg(check.receivedEvents)
               .arg(check.lostEvents)
               .arg(check.misattributedEvents)
               .arg(check.unmatchedRecords)
               .arg(check.unansweredServed);
    if (!ttft.empty())
        out << QStringLiteral(
            "  ttft_any: p50 %1 ms, p99 %2 ms (scripted %3 ms; the excess is queueing in the emulator)\n")
                   .arg(ttft[ttft.size() / 2], 0, 'f', 2)
                   .arg(ttft[std::min(ttft.size() - 1, std::size_t(double(ttft.size()) * 0.99))], 0, 'f', 2)
                   .arg(ttftMs);
    return failed || !check.clean() ? 1 : 0;
}
