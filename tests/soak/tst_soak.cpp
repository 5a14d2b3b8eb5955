// SPDX-License-Identifier: MIT
// Long runs stay flat: the two-minute version of bench_soak. The dashboard open on a live run at
// concurrency 64 against three emulated endpoints with slow and faulty streams mixed in; fails on
// clear growth (tests/bench/SoakGrowth.h: heap not released, live growth far beyond the records
// held, descriptors or threads leaking, GUI-thread work that never returns to the event loop).
#include "tests/bench/SoakGrowth.h"
#include "tests/bench/SoakRun.h"

#include <QTest>

using namespace qs::test;

class TestSoak : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void aLiveRunStaysFlat()
    {
        SoakConfig config;
        config.durationS = qEnvironmentVariableIntValue("QS_SOAK_SECONDS") > 0
            ? qEnvironmentVariableIntValue("QS_SOAK_SECONDS")
            : 90;
        config.concurrency = 64;
        config.warmupRunS = 8;
        const SoakResult r = runSoak(config);
        QVERIFY2(r.error.isEmpty(), qPrintable(r.error));
        const SoakGrowth g = measureGrowth(r);
        qInfo().noquote() << QStringLiteral("\n") + describeGrowth(r, g);
        // Every kind of stream of the mix was seen, so the failure paths were soaked too.
        for (const char* kind :
            {"malformed_stream", "disconnected", "stream_error", "server_error", "idle_timeout"})
            QVERIFY2(r.failuresByKind.count(QString::fromLatin1(kind)), kind);
        const QStringList broken = clearGrowth(r, g);
        QVERIFY2(broken.isEmpty(), qPrintable(broken.join(u'\n')));
    }
};

QTEST_MAIN(TestSoak)
#include "tst_soak.moc"
