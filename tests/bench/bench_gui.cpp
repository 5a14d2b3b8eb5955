// SPDX-License-Identifier: MIT
// Benchmark (not a test): does the dashboard's GUI thread stay responsive during a run?
//
// Opens the real MainWindow (offscreen), runs a suite against the simulated endpoints with
// N concurrent streams per endpoint, and measures event-loop latency with a precise 5 ms timer on
// the GUI thread (tests/support/EventLoopProbe.h): every tick records how late it fired (a stall
// of the event loop shows up as one late tick) and the GUI thread's CPU time since the last one. Also reports
// how long the views took to take each refresh (MainWindow::dataShown bursts) and how many live refreshes
// happened.
//
// Usage: bench_gui [--suite NAME] [--concurrency N] [--runs N] [--warmup N] [--order ORDER]
//        [--open FILE]   (instead of a run: open a results file and measure while it loads)
#include "app/dashboard/MainWindow.h"
#include "tests/bench/ProcessSample.h"
#include "tests/support/EventLoopProbe.h"
#include "widgets/panels/RunPanel.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QTextStream>
#include <algorithm>
#include <cstdio>
#include <sys/resource.h>
#include <unistd.h>

using namespace qs;
using qs::test::peakRssMiB;
using qs::test::sampleProcess;

namespace {

double percentileOf(std::vector<double> v, double p)
{
    if (v.empty())
        return 0;
    std::sort(v.begin(), v.end());
    const double pos = p * double(v.size() - 1);
    const auto i = std::size_t(pos);
    const double f = pos - double(i);
    return i + 1 < v.size() ? v[i] * (1 - f) + v[i + 1] * f : v[i];
}

} // namespace

int main(int argc, char** argv)
{
    QTemporaryDir home;
    qputenv("XDG_CONFIG_HOME", home.filePath(QStringLiteral("config")).toLocal8Bit());
    qputenv("XDG_DATA_HOME", home.filePath(QStringLiteral("data")).toLocal8Bit());
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("quantscope-bench"));
    QApplication::setApplicationName(QStringLiteral("quantscope-bench"));
    QCommandLineParser p;
    p.addOption({QStringLiteral("suite"), QStringLiteral("Suite"), QStringLiteral("NAME"),
        QStringLiteral("voice-assistant")});
    p.addOption({QStringLiteral("concurrency"), QStringLiteral("Streams per endpoint"), QStringLiteral("N"),
        QStringLiteral("4")});
    p.addOption(
        {QStringLiteral("runs"), QStringLiteral("Measured runs"), QStringLiteral("N"), QStringLiteral("4")});
    p.addOption(
        {QStringLiteral("warmup"), QStringLiteral("Warm-up runs"), QStringLiteral("N"), QStringLiteral("0")});
    p.addOption({QStringLiteral("order"), QStringLiteral("Order"), QStringLiteral("ORDER"),
        QStringLiteral("parallel")});
    p.addOption({QStringLiteral("open"), QStringLiteral("Open this results file instead of running"),
        QStringLiteral("FILE")});
    p.process(app);

    app::MainWindow window(false);
    window.show();

    test::EventLoopProbe probe;
    int refreshes = 0;
    QObject::connect(&window, &app::MainWindow::dataShown, [&] { ++refreshes; });

    probe.start();
    QTextStream out(stdout);
    if (p.isSet(QStringLiteral("open"))) {
        // "Shown": the first refresh that hands the views the file's records (medians, gates,
        // warnings); "compared": the paired comparison with its bootstrap intervals too.
        qint64 shownMs = -1;
        QObject::connect(&window, &app::MainWindow::dataShown, [&] {
            if (shownMs < 0 && window.data().result && !window.data().result->records.empty())
                shownMs = probe.elapsedMs();
        });
        window.openFiles({p.value(QStringLiteral("open"))});
        const bool done = QTest::qWaitFor(
            [&] { return window.data().evaluation && window.data().evaluation->hasComparison; }, 900000);
        if (!done) {
            out << "did not finish\n";
            return 1;
        }
        out << "opened " << p.value(QStringLiteral("open")) << " (" << window.data().result->records.size()
            << " records): shown in " << QString::number(double(shownMs) / 1000.0, 'f', 2)
            << " s, compared in " << QString::number(double(probe.elapsedMs()) / 1000.0, 'f', 2)
            << " s; resident " << QString::number(sampleProcess().rssMiB, 'f', 0) << " MiB, peak "
            << QString::number(peakRssMiB(), 'f', 0) << " MiB\n";
    } else {
        RunPanelSettings s = window.runPanel()->settings();
        s.suite = p.value(QStringLiteral("suite"));
        s.settings.concurrency = p.value(QStringLiteral("concurrency")).toInt();
        s.settings.runs = p.value(QStringLiteral("runs")).toInt();
        s.settings.warmup = p.value(QStringLiteral("warmup")).toInt();
        s.settings.order = runOrderFromId(p.value(QStringLiteral("order"))).value_or(RunOrder::Parallel);
        window.runPanel()->setSettings(s);
        QSignalSpy finished(&window, &app::MainWindow::runFinished);
        window.startRun();
        if (!finished.wait(1800000)) {
            out << "run did not finish\n";
            return 1;
        }
        [[maybe_unused]] const bool evaluated = QTest::qWaitFor(
            [&] {
                return window.data().evaluation && window.data().evaluation->hasComparison
                    && !window.data().live;
            },
            60000);
        out << "run: suite " << s.suite << ", " << s.settings.concurrency
            << " streams per endpoint × 2 endpoints (" << runOrderId(s.settings.order) << "), "
            << window.data().result->records.size() << " requests in "
            << QString::number(double(probe.elapsedMs()) / 1000.0, 'f', 1) << " s\n";
    }
    probe.stop();
    const std::vector<double>& lateness = probe.lateness();
    const auto stalls = std::count_if(lateness.begin(), lateness.end(), [](double l) { return l > 50; });
    out << "event-loop lateness of a 5 ms timer over " << lateness.size() << " ticks: p50 "
        << QString::number(percentileOf(lateness, 0.5), 'f', 2) << " ms, p99 "
        << QString::number(percentileOf(lateness, 0.99), 'f', 2) << " ms, p99.9 "
        << QString::number(percentileOf(lateness, 0.999), 'f', 2) << " ms, max "
        << QString::number(probe.maxLatenessMs(), 'f', 2) << " ms; ticks later than 50 ms: " << stalls
        << "; longest piece of GUI-thread work (thread CPU time between two ticks): "
        << QString::number(probe.maxBusyMs(), 'f', 1) << " ms; view refreshes: " << refreshes << '\n';
    return 0;
}
