// SPDX-License-Identifier: MIT
// The dashboard reviewing saved files, offscreen, with no endpoint reachable: one file, two side by
// side, a broken one, one dropped on the window, the baseline picked and remembered, a saved file
// judged with the Decision tab's verdict, and a 100,000-record file opened without freezing the
// event loop.
#include "app/dashboard/MainWindow.h"
#include "model/decide/Recommendation.h"
#include "model/store/ResultFile.h"
#include "tests/app/GuiTestSupport.h"
#include "tests/support/EventLoopProbe.h"
#include "widgets/campaign/CampaignView.h"
#include "widgets/decision/DecisionView.h"
#include "widgets/responses/ResponsesView.h"
#include "widgets/tables/GuardrailBanner.h"

#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QDialog>
#include <QFile>
#include <QMimeData>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

using namespace qs;
using namespace qs::test;
using qs::app::MainWindow;

class TestGuiReview : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void init() { QSettings().clear(); }
    void cleanup() { closeMessageBoxes(); }

    void reviewsASavedFileWithNoEndpointReachable()
    {
        MainWindow w;
        w.show();
        QSignalSpy loaded(&w, &MainWindow::loadFinished);
        w.openFiles({fixture()});
        QVERIFY(loaded.wait(30000));
        QCOMPARE(loaded.first().at(0).toBool(), true);
        QVERIFY(waitForEvaluated(w));
        const RunResult& r = *w.data().result;
        QCOMPARE(r.endpoints.size(), std::size_t(2));
        QCOMPARE(r.records.size(), std::size_t(88));
        QCOMPARE(w.currentFile(), QFileInfo(fixture()).absoluteFilePath());
        auto* responses = qobject_cast<ResponsesView*>(w.viewWidget(QStringLiteral("responses")));
        QCOMPARE(responses->columnCount(), 2);
        auto* banner = qobject_cast<GuardrailBanner*>(w.viewWidget(QStringLiteral("guardrails")));
        QCOMPARE(banner->warningCount(), int(w.data().evaluation->guardrails.size()));
        QVERIFY(banner->warningCount() >= 5);
        QVERIFY(QSettings()
                    .value(QStringLiteral("recentFiles"))
                    .toStringList()
                    .contains(QFileInfo(fixture()).absoluteFilePath()));
        QVERIFY(w.windowTitle().contains(QStringLiteral("voice-sim.json")));
    }

    void judgesTheFileShownAndTheDecisionTabShowsTheReportsVerdict()
    {
        QTemporaryDir dir;
        const QString copy = dir.filePath(QStringLiteral("judged.json"));
        QVERIFY(QFile::copy(fixture(), copy));
        MainWindow w;
        w.show();
        QSignalSpy loaded(&w, &MainWindow::loadFinished);
        w.openFiles({copy});
        QVERIFY(loaded.wait(30000));
        QVERIFY(waitForEvaluated(w));
        auto* decision = qobject_cast<DecisionView*>(w.viewWidget(QStringLiteral("decision")));
        QVERIFY(decision);
        QVERIFY(decision->selectProfile(QStringLiteral("voice-assistant")));

        // The dialog's defaults: the simulated judge, the voice-assistant rubric, pairwise against
        // the baseline. Accept it as a user would, with more judgements in flight.
        QTimer::singleShot(0, [] {
            for (QWidget* top : QApplication::topLevelWidgets())
                if (auto* dialog = qobject_cast<QDialog*>(top); dialog && dialog->isVisible()) {
                    dialog->findChild<QSpinBox*>()->setValue(8);
                    dialog->accept();
                }
        });
        QAction* judge = actionNamed(w, QStringLiteral("&Judge the answers…"));
        QVERIFY(judge && judge->isEnabled());
        QSignalSpy saved(&w, &MainWindow::saveFinished);
        judge->trigger();
        QVERIFY(QTest::qWaitFor([&] { return !actionNamed(w, QStringLiteral("&Run"))->isEnabled(); }, 10000));
        // Verdicts reach the views while the judge works, and the file at the end.
        QVERIFY(saved.wait(180000));
        QCOMPARE(saved.first().at(0).toBool(), true);
        QVERIFY(actionNamed(w, QStringLiteral("&Run"))->isEnabled());
        const RunResult onDisk = loadResults(copy);
        QVERIFY(onDisk.judging.complete);
        QCOMPARE(onDisk.judging.judge.model, QStringLiteral("sim-judge-heuristic"));
        QVERIFY(!onDisk.judging.pairVerdicts.empty());
        QCOMPARE(onDisk.records.size(), std::size_t(88));

        // The Decision tab says what `quantscope report` would: recommend() on the full evaluation.
        QVERIFY(QTest::qWaitFor(
            [&] {
                return w.data().result->judging.complete && w.data().evaluation
                    && w.data().evaluation->hasComparison;
            },
            60000));
        const Evaluation ev = evaluate(*w.data().result, w.baseline());
        const auto recs
            = recommend(*w.data().result, ev, loadBuiltinDecisionProfile(QStringLiteral("voice-assistant")));
        QVERIFY(!recs.empty());
        QVERIFY(decision->recommendation());
        QCOMPARE(decision->headline(), recs.front().headline);
        bool judgedCriterion = false;
        for (const CriterionResult& c : decision->recommendation()->criteria)
            if (c.criterion.id == u"judged_not_worse") {
                judgedCriterion = true;
                QVERIFY2(c.outcome != CriterionResult::Outcome::NotMeasured, qPrintable(c.explanation));
            }
        QVERIFY(judgedCriterion);
    }

    void comparesTwoFilesSideBySide()
    {
        QTemporaryDir dir;
        const QString before = dir.filePath(QStringLiteral("before.json"));
        const QString after = dir.filePath(QStringLiteral("after.json"));
        QVERIFY(QFile::copy(fixture(), before));
        QVERIFY(QFile::copy(fixture(), after));
        MainWindow w;
        w.show();
        w.openFiles({before, after});
        QVERIFY(waitForEvaluated(w));
        const RunResult& r = *w.data().result;
        QCOMPARE(r.endpoints.size(), std::size_t(4));
        QVERIFY(r.endpoints[0].endpoint.label.startsWith(QStringLiteral("before · ")));
        QVERIFY(r.endpoints[3].endpoint.label.startsWith(QStringLiteral("after · ")));
        QCOMPARE(w.data().evaluation->comparison.arms.size(), std::size_t(3));
        auto* responses = qobject_cast<ResponsesView*>(w.viewWidget(QStringLiteral("responses")));
        QCOMPARE(responses->columnCount(), 4);
        QVERIFY(w.currentFile().isEmpty()); // a combination is not one file: Save asks where
        // Issue #26: four answer columns once widened the window to 1800 px (and it was
        // remembered); at the default size everything fits the window as it is.
        const QSize size = w.size();
        w.revealView(QStringLiteral("responses"));
        QCoreApplication::processEvents();
        QCOMPARE(w.size(), size);
        QVERIFY2(
            w.minimumSizeHint().width() <= 1600, qPrintable(QString::number(w.minimumSizeHint().width())));
    }

    void theCampaignTabOpensAnAttempt()
    {
        // Two attempts a day apart, the second with a new quantization label.
        QTemporaryDir dir;
        RunResult first = loadResults(fixture());
        RunResult second = first;
        second.startedAt = first.startedAt.addDays(1);
        second.endpoints[1].endpoint.quantization = QStringLiteral("NVFP4-MLP");
        const QString a = dir.filePath(QStringLiteral("v1.json"));
        const QString b = dir.filePath(QStringLiteral("v2.json"));
        QVERIFY(saveResults(second, b).isEmpty());
        QVERIFY(saveResults(first, a).isEmpty());
        MainWindow w(false);
        w.show();
        QSignalSpy shown(&w, &MainWindow::campaignShown);
        w.openCampaign({dir.path()});
        QVERIFY(shown.wait(60000));
        QVERIFY2(shown.first().at(0).toBool(), qPrintable(shown.first().at(1).toString()));
        CampaignView* view = w.campaignView();
        QCOMPARE(view->table()->rowCount(), 2);
        QVERIFY(view->table()->item(0, 2)->text().endsWith(QStringLiteral("(v1.json)")));
        QVERIFY2(view->table()
                     ->item(1, view->table()->columnCount() - 1)
                     ->text()
                     .contains(QStringLiteral("quantization")),
            qPrintable(view->table()->item(1, view->table()->columnCount() - 1)->text()));

        // Open the second attempt: its file in the window, the Decision tab on its candidate.
        view->selectAttempt(1);
        auto* open = view->findChild<QPushButton*>(QStringLiteral("campaignOpen"));
        QVERIFY(open && open->isEnabled());
        QSignalSpy loaded(&w, &MainWindow::loadFinished);
        open->click();
        QVERIFY(loaded.wait(60000));
        QCOMPARE(w.currentFile(), QFileInfo(b).absoluteFilePath());
        auto* decision = qobject_cast<DecisionView*>(w.viewWidget(QStringLiteral("decision")));
        QTRY_VERIFY_WITH_TIMEOUT(decision->isVisible(), 60000);
        QCOMPARE(decision->currentCandidate(), 1);
        // The campaign stays where it was.
        QCOMPARE(view->table()->rowCount(), 2);
    }

    void theBaselinePickerReevaluatesAndIsRemembered()
    {
        QString secondLabel;
        {
            MainWindow w;
            w.show();
            auto* picker = w.findChild<QComboBox*>(QStringLiteral("baselinePicker"));
            QVERIFY(picker);
            QVERIFY(!picker->isEnabled()); // nothing to compare yet
            w.openFiles({fixture()});
            QVERIFY(waitForEvaluated(w));
            QVERIFY(picker->isEnabled());
            QCOMPARE(picker->count(), 2);
            QCOMPARE(picker->currentIndex(), 0);
            QCOMPARE(w.data().evaluation->baseline, 0);
            const auto first = w.data().evaluation;
            QCOMPARE(first->comparison.arms.front().baseline, 0);

            // What choosing the second entry in the toolbar does.
            secondLabel = w.data().result->endpoints[1].endpoint.displayName();
            Q_EMIT picker->activated(1);
            QVERIFY(QTest::qWaitFor(
                [&] {
                    return w.data().evaluation != first && w.data().evaluation->baseline == 1
                        && w.data().evaluation->hasComparison;
                },
                60000));
            QCOMPARE(w.baseline(), 1);
            QCOMPARE(picker->currentIndex(), 1);
            const PairedComparison& c = w.data().evaluation->comparison;
            QCOMPARE(c.arms.size(), std::size_t(1));
            QCOMPARE(c.arms.front().baseline, 1);
            QCOMPARE(c.arms.front().candidate, 0);
            // Out of range: nothing changes.
            w.setBaseline(7);
            QCOMPARE(w.baseline(), 1);
            w.close();
        }
        // Remembered by label: the same endpoint is the baseline of the next file that has it.
        QCOMPARE(QSettings().value(QStringLiteral("baseline")).toString(), secondLabel);
        MainWindow w;
        w.show();
        w.openFiles({fixture()});
        QVERIFY(waitForEvaluated(w));
        QCOMPARE(w.data().evaluation->baseline, 1);
        QCOMPARE(w.findChild<QComboBox*>(QStringLiteral("baselinePicker"))->currentIndex(), 1);
    }

    void aBrokenFileIsRefusedAndWhatIsShownStays()
    {
        QTemporaryDir dir;
        const QString junk = dir.filePath(QStringLiteral("junk.json"));
        QFile f(junk);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("{\"format\": \"quantscope-results\", \"version\": 1, \"records\": [");
        f.close();
        MainWindow w;
        w.show();
        w.openFiles({fixture()});
        QVERIFY(waitForEvaluated(w));
        const auto shown = w.data().result;
        QSignalSpy loaded(&w, &MainWindow::loadFinished);
        w.openFiles({junk});
        QVERIFY(loaded.wait(30000));
        QCOMPARE(loaded.first().at(0).toBool(), false);
        QVERIFY2(loaded.first().at(1).toString().contains(QStringLiteral("junk.json")),
            qPrintable(loaded.first().at(1).toString()));
        QCOMPARE(w.data().result, shown);
    }

    void dropsOpenFiles()
    {
        MainWindow w;
        w.show();
        QMimeData mime;
        mime.setUrls({QUrl::fromLocalFile(fixture())});
        QDragEnterEvent enter(QPoint(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(&w, &enter);
        QVERIFY(enter.isAccepted());
        QDropEvent drop(QPointF(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(&w, &drop);
        QVERIFY(waitForEvaluated(w));
        QCOMPARE(w.data().result->records.size(), std::size_t(88));
    }

    void aHundredThousandRecordsOpenWithoutFreezing()
    {
        // Build the file from the fixture: the same records, renumbered as more iterations.
        RunResult big = loadResults(fixture());
        const RecordList base = big.records;
        big.records.clear();
        big.records.reserve(100000);
        for (int copy = 0; big.records.size() < 100000; ++copy)
            for (const RunRecord& r : base) {
                if (big.records.size() == 100000)
                    break;
                RunRecord c = r;
                c.iteration += copy * 10;
                big.records.push_back(std::move(c));
            }
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("big.json"));
        QCOMPARE(saveResults(big, path), QString());
        big = {};

        MainWindow w;
        w.show();
        test::EventLoopProbe probe;
        probe.start();
        w.openFiles({path});
        // Medians first: every view has the file.
        QVERIFY(QTest::qWaitFor(
            [&] {
                return w.data().evaluation && w.data().result && w.data().result->records.size() == 100000;
            },
            600000));
        // The report needs the intervals: until they are there, Export Report waits (rather than
        // computing them on the GUI thread).
        QAction* report = actionNamed(w, QStringLiteral("Export &Report…"));
        if (!w.data().evaluation->hasComparison)
            QVERIFY(!report->isEnabled());
#if !defined(__SANITIZE_ADDRESS__)
        // Then the paired intervals (about 15 s of bootstrap on a worker thread here; minutes
        // under ASan, so that build stops at the medians).
        QVERIFY(waitForEvaluated(w, 600000));
        QVERIFY(report->isEnabled());
#endif
        probe.stop();
        QCOMPARE(w.data().result->records.size(), std::size_t(100000));
        qInfo("100,000 records opened and evaluated in %.1f s; longest piece of GUI-thread work %.0f ms; "
              "latest event-loop tick %.0f ms",
            double(probe.elapsedMs()) / 1000.0, probe.maxBusyMs(), probe.maxLatenessMs());
        // What the code controls: no piece of GUI-thread work as long as a linear pass over the
        // records would be (here about 30 ms is the most; all views at once would be several
        // times that). The wall-clock lateness also counts time this thread waited for a core
        // while other processes ran (CI runs three test processes on two cores, and saw 145 ms):
        // it only has to show that nothing froze.
#if defined(__SANITIZE_ADDRESS__)
        const double busyLimit = 1000, lateLimit = 5000; // ASan makes every pass several times slower
#elif !defined(__OPTIMIZE__)
        // A Debug build (the dev preset): unoptimised passes take a few times longer (Debian 13's
        // check saw 229 ms with another build running beside it).
        const double busyLimit = 500, lateLimit = 2500;
#else
        const double busyLimit = 100, lateLimit = 1000;
#endif
        QVERIFY2(probe.maxBusyMs() <= busyLimit,
            qPrintable(QStringLiteral("the GUI thread worked %1 ms without returning to the event loop")
                           .arg(probe.maxBusyMs(), 0, 'f', 0)));
        QVERIFY2(probe.maxLatenessMs() <= lateLimit,
            qPrintable(
                QStringLiteral("the event loop stalled for %1 ms").arg(probe.maxLatenessMs(), 0, 'f', 0)));
    }
};

int main(int argc, char** argv)
{
    return guiTestMain<TestGuiReview>(argc, argv);
}

#include "tst_gui_review.moc"
