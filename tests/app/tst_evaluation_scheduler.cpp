// SPDX-License-Identifier: MIT
// EvaluationScheduler (app/dashboard/EvaluationScheduler): live evaluations rest twice as long as the last
// one took, so that on a run of hours they never keep a core busy beside the runner.
#include "app/dashboard/EvaluationScheduler.h"

#include <QElapsedTimer>
#include <QSignalSpy>
#include <QThread>
#include <QtTest>

using namespace qs;

class TestEvaluationScheduler : public QObject {
    Q_OBJECT
private slots:
    void aLiveEvaluationRestsTwiceAsLongAsItTook()
    {
        app::EvaluationScheduler scheduler([] { return true; });
        QVERIFY(scheduler.readyForLive());
        constexpr int tookMs = 300;
        QSignalSpy evaluated(&scheduler, &app::EvaluationScheduler::evaluated);
        QElapsedTimer clock;
        clock.start();
        scheduler.evaluate(app::SnapshotJob([] {
            QThread::msleep(tookMs); // an evaluation of a long run
            return std::make_shared<const RunResult>();
        }));
        QVERIFY(!scheduler.readyForLive()); // running
        QVERIFY(evaluated.wait(10000));
        const qint64 doneMs = clock.elapsed();
        QVERIFY(evaluated.first().first().value<DashboardData>().live);
        if (clock.elapsed() - doneMs < tookMs) // generous: only a stalled machine skips this check
            QVERIFY(!scheduler.readyForLive());
        QTRY_VERIFY_WITH_TIMEOUT(scheduler.readyForLive(), 10000);
        // Rested at least twice what it took, from when it finished.
        QVERIFY2(clock.elapsed() - doneMs >= 2 * tookMs - 20,
            qPrintable(QString::number(clock.elapsed() - doneMs)));
    }

    void aReviewedFileIsNotThrottled()
    {
        app::EvaluationScheduler scheduler([] { return false; });
        QSignalSpy evaluated(&scheduler, &app::EvaluationScheduler::evaluated);
        scheduler.evaluate(std::make_shared<const RunResult>(), false, false);
        QVERIFY(evaluated.wait(10000));
        QVERIFY(scheduler.readyForLive());
    }
};

QTEST_MAIN(TestEvaluationScheduler)
#include "tst_evaluation_scheduler.moc"
