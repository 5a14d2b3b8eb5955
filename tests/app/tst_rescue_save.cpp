// SPDX-License-Identifier: MIT
// `quantscope run` saving a results file it cannot write: the rescue copy (app/cli/RescueSave).
#include "app/cli/RescueSave.h"
#include "model/store/ResultFile.h"

#include <QDir>
#include <QTemporaryDir>
#include <QtTest>

using namespace qs;

class TestRescueSave : public QObject {
    Q_OBJECT

    static RunResult threeRecords()
    {
        RunResult r;
        r.toolVersion = QStringLiteral("test");
        r.startedAt = QDateTime::currentDateTimeUtc();
        RunEndpoint e;
        e.endpoint.label = QStringLiteral("A");
        e.endpoint.baseUrl = QUrl(QStringLiteral("http://127.0.0.1:1"));
        r.endpoints.push_back(e);
        for (int i = 1; i <= 3; ++i) {
            RunRecord rec;
            rec.test = QStringLiteral("t");
            rec.iteration = i;
            rec.request.response.content = QStringLiteral("answer %1").arg(i);
            r.records.push_back(rec);
        }
        return r;
    }

private slots:
    void savesWhereAskedWhenItCan()
    {
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("run.json"));
        const app::SaveOutcome o = app::saveOrRescue(threeRecords(), out);
        QVERIFY(o.error.isEmpty());
        QCOMPARE(o.savedTo, out);
        QCOMPARE(loadResults(out).records.size(), std::size_t(3));
    }

    void aFailedSaveGoesToTheTemporaryFolder()
    {
        QTemporaryDir tmp;
        const QByteArray oldTmp = qgetenv("TMPDIR");
        qputenv("TMPDIR", tmp.path().toLocal8Bit());
        const QString out = tmp.filePath(QStringLiteral("gone/run.json")); // a folder that is not there
        const app::SaveOutcome o = app::saveOrRescue(threeRecords(), out);
        qputenv("TMPDIR", oldTmp);
        QVERIFY2(o.error.contains(QStringLiteral("does not exist")), qPrintable(o.error));
        QVERIFY2(o.rescueError.isEmpty(), qPrintable(o.rescueError));
        QCOMPARE(QFileInfo(o.savedTo).absolutePath(), QFileInfo(tmp.path()).absoluteFilePath());
        QVERIFY(QFileInfo(o.savedTo).fileName().startsWith(QStringLiteral("quantscope-rescue-run-")));
        const RunResult back = loadResults(o.savedTo);
        QCOMPARE(back.records.size(), std::size_t(3));
        QCOMPARE(back.records[2].request.response.content, QStringLiteral("answer 3"));
    }

    void bothFailingSaysSo()
    {
        QTemporaryDir tmp;
        const QByteArray oldTmp = qgetenv("TMPDIR"), oldHome = qgetenv("HOME");
        qputenv("TMPDIR", tmp.filePath(QStringLiteral("no-tmp")).toLocal8Bit());
        qputenv("HOME", tmp.filePath(QStringLiteral("no-home")).toLocal8Bit());
        const app::SaveOutcome o
            = app::saveOrRescue(threeRecords(), tmp.filePath(QStringLiteral("gone/run.json")));
        qputenv("TMPDIR", oldTmp);
        qputenv("HOME", oldHome);
        QVERIFY(!o.error.isEmpty());
        QVERIFY(o.savedTo.isEmpty());
        QVERIFY2(o.rescueError.contains(QStringLiteral("quantscope-rescue-run-")), qPrintable(o.rescueError));
    }
};

QTEST_GUILESS_MAIN(TestRescueSave)
#include "tst_rescue_save.moc"
