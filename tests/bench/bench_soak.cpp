// SPDX-License-Identifier: MIT
// Benchmark (not a test): do long runs stay flat? Hours' worth of requests against three
// emulated endpoints with slow and faulty streams mixed in, the dashboard open on the live run;
// memory, descriptors, threads and GUI event-loop lateness sampled every second (SoakRun.h),
// their growth reported (SoakGrowth.h). tests/soak runs a two-minute version under ctest.
//
// Usage: bench_soak [--duration S (1800)] [--concurrency N (64)] [--every S (60)] [--csv FILE]
//                   [--warmup-run S (10)] [--keep FILE: a copy of the saved results file]
#include "tests/bench/SoakGrowth.h"
#include "tests/bench/SoakRun.h"

#include <QApplication>
#include <QFile>
#include <QTextStream>

using namespace qs;
using namespace qs::test;

namespace {

QString row(const SoakSample& s)
{
    return QStringLiteral("%1 %2 %3 %4 %5 %6 %7 %8 %9\n")
        .arg(s.atS, 7, 'f', 0)
        .arg(s.requests, 9)
        .arg(s.failed, 7)
        .arg(s.process.rssMiB, 9, 'f', 1)
        .arg(s.process.heapMiB, 9, 'f', 1)
        .arg(s.process.fds, 5)
        .arg(s.process.threads, 5)
        .arg(s.worstLatenessMs, 10, 'f', 1)
        .arg(s.worstBusyMs, 9, 'f', 1);
}

} // namespace

int main(int argc, char** argv)
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("quantscope-bench"));
    QApplication::setApplicationName(QStringLiteral("quantscope-bench"));
    SoakConfig config;
    int everyS = 60;
    QString csvPath;
    const QStringList args = app.arguments().mid(1);
    for (int i = 0; i < args.size(); ++i) {
        const QString a = args[i], v = args.value(i + 1);
        bool ok = true;
        if (a == u"--duration")
            config.durationS = v.toInt(&ok), ++i;
        else if (a == u"--concurrency")
            config.concurrency = v.toInt(&ok), ++i;
        else if (a == u"--every")
            everyS = v.toInt(&ok), ++i;
        else if (a == u"--warmup-run")
            config.warmupRunS = v.toInt(&ok), ++i;
        else if (a == u"--csv")
            csvPath = v, ++i;
        else if (a == u"--keep")
            config.keepPath = v, ++i;
        else
            ok = false;
        if (!ok) {
            QTextStream(stderr) << "bad argument " << a << ' ' << v
                                << "; usage: bench_soak [--duration S] [--concurrency 1..64] [--every S] "
                                   "[--csv FILE] [--warmup-run S] [--keep FILE]\n";
            return 2;
        }
    }
    if (config.durationS < 20 || config.concurrency < 1 || config.concurrency > 64 || everyS < 1) {
        QTextStream(stderr)
            << "need --duration >= 20, --concurrency 1..64 (the run panel's range), --every >= 1\n";
        return 2;
    }

    QTextStream out(stdout);
    out << "bench_soak: " << config.durationS << " s at concurrency " << config.concurrency
        << ", three emulated endpoints, GUI open (offscreen)\n";
    out << "      s  requests  failed   RSS MiB  heap MiB   fds  thr  late ms*  busy ms*\n";
    out.flush();
    int printed = -1;
    const SoakResult r = runSoak(config, [&](const SoakSample& s) {
        if (int(s.atS) / everyS > printed) {
            printed = int(s.atS) / everyS;
            out << row(s);
            out.flush();
        }
    });
    if (!r.error.isEmpty()) {
        out << "soak failed: " << r.error << '\n';
        return 1;
    }
    if (!r.samples.empty())
        out << row(r.samples.back());
    out << "(* worst over the last second)\n\n";
    const SoakGrowth g = measureGrowth(r);
    out << describeGrowth(r, g);
    const QStringList broken = clearGrowth(r, g);
    out << (broken.isEmpty()
            ? QStringLiteral("verdict: flat (every limit of tests/soak met)\n")
            : QStringLiteral("verdict: CLEAR GROWTH\n  ") + broken.join(QStringLiteral("\n  ")) + u'\n');

    if (!csvPath.isEmpty()) {
        QFile f(csvPath);
        if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate)) {
            out << "cannot write " << csvPath << ": " << f.errorString() << '\n';
            return 1;
        }
        QTextStream csv(&f);
        csv << "seconds,requests,failed,rss_mib,heap_mib,fds,threads,worst_lateness_ms,worst_gui_cpu_ms\n";
        for (const SoakSample& s : r.samples)
            csv << s.atS << ',' << s.requests << ',' << s.failed << ',' << s.process.rssMiB << ','
                << s.process.heapMiB << ',' << s.process.fds << ',' << s.process.threads << ','
                << s.worstLatenessMs << ',' << s.worstBusyMs << '\n';
    }
    return 0;
}
