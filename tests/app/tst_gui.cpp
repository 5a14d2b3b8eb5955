// SPDX-License-Identifier: MIT
// The dashboard driven as a user would, offscreen: the embedded default, a full run against the
// simulated endpoints, review of saved files (one, two side by side, a broken one, a 100,000-record
// one without freezing the event loop), settings between sessions, drag and drop, and the headless
// `quantscope screenshot` command.
#include "app/DashboardViews.h"
#include "app/MainWindow.h"
#include "app/RunSession.h"
#include "model/core/Suite.h"
#include "model/decide/Recommendation.h"
#include "model/run/SuiteComposition.h"
#include "model/store/ResultFile.h"
#include "tests/app/CliSupport.h"
#include "tests/support/EventLoopProbe.h"
#include "tests/widgets/WidgetTestSupport.h"
#include "widgets/ScreenshotRenderer.h"
#include "widgets/charts/LiveThroughputChart.h"
#include "widgets/charts/ServerCharts.h"
#include "widgets/decision/DecisionView.h"
#include "widgets/panels/EndpointsPanel.h"
#include "widgets/panels/RunPanel.h"
#include "widgets/responses/ResponsesView.h"
#include "widgets/tables/GuardrailBanner.h"

#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QDialog>
#include <QFile>
#include <QLabel>
#include <QMessageBox>
#include <QMimeData>
#include <QProcess>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

using namespace qs;
using qs::app::MainWindow;

namespace {

QString fixture()
{
    return test::fixturePath();
}

/// Waits until the window shows data with the paired comparison computed (the last stage).
bool waitForEvaluated(MainWindow& w, int timeoutMs = 60000)
{
    return QTest::qWaitFor(
        [&] { return w.data().evaluation && w.data().evaluation->hasComparison && !w.data().live; },
        timeoutMs);
}

QAction* actionNamed(QWidget& w, const QString& text)
{
    for (QAction* a : w.findChildren<QAction*>())
        if (a->text() == text && a->shortcut() != QKeySequence()) // not the "&Run" menu's own action
            return a;
    return nullptr;
}

void closeMessageBoxes()
{
    for (QWidget* top : QApplication::topLevelWidgets())
        if (auto* box = qobject_cast<QMessageBox*>(top))
            box->close();
}

using Cli = qs::test::CliRun;

QString panelStatus(MainWindow& w)
{
    return w.runPanel()->findChild<QLabel*>(QStringLiteral("status"))->text();
}

/// A real endpoint, as the user adds one (nothing needs to listen: no run starts).
EndpointEntry realEntry(const QString& label = QStringLiteral("NVFP4 on the Spark"))
{
    EndpointEntry real;
    real.endpoint.label = label;
    real.endpoint.baseUrl = QUrl(QStringLiteral("http://10.0.0.5:8000"));
    return real;
}

Cli runCli(const QStringList& args)
{
    return qs::test::runCli(args, 120000);
}

} // namespace

class TestGui : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void init() { QSettings().clear(); }
    void cleanup() { closeMessageBoxes(); }

    void opensOnTheEmbeddedDefault()
    {
        MainWindow w;
        w.show();
        const std::vector<EndpointEntry> entries = w.endpointsPanel()->entries();
        QCOMPARE(entries.size(), std::size_t(2));
        QCOMPARE(entries[0].simulatedProfile, QStringLiteral("q4km-like"));
        QCOMPARE(entries[1].simulatedProfile, QStringLiteral("nvfp4-like"));
        QCOMPARE(w.runPanel()->settings().suite, QStringLiteral("voice-assistant"));
        // The demo's short run, for the simulated endpoints only, and the panel says so.
        const RunPanelSettings run = w.runPanel()->settings();
        QVERIFY(run.demoDefaults);
        QCOMPARE(run.settings.warmup, 1);
        QCOMPARE(run.settings.runs, 2);
        QCOMPARE(run.settings.promptsPerCategory, 1);
        QCOMPARE(run.settings.order, RunOrder::Parallel);
        QVERIFY2(
            w.runPanel()->inForceText().contains(QStringLiteral("Overridden here for the demo's short run")),
            qPrintable(w.runPanel()->inForceText()));
        // The shortcuts desktop users expect.
        const std::pair<const char*, QKeySequence> shortcuts[]
            = {{"&Open…", QKeySequence::Open}, {"&Save", QKeySequence::Save},
                {"&Run", QKeySequence(Qt::CTRL | Qt::Key_R)}, {"&Quit", QKeySequence(Qt::CTRL | Qt::Key_Q)},
                {"Save &As…", QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_S)}};
        for (const auto& [text, keys] : shortcuts) {
            QAction* a = actionNamed(w, QString::fromUtf8(text));
            QVERIFY2(a, text);
            QCOMPARE(a->shortcut(), QKeySequence(keys));
        }
        QVERIFY(actionNamed(w, QStringLiteral("Export Scree&nshot…")));
        QVERIFY(actionNamed(w, QStringLiteral("Export &Report…")));
        QVERIFY(!actionNamed(w, QStringLiteral("&Stop"))->isEnabled());
        QVERIFY(w.data().isEmpty());
        for (const app::ViewInfo& v : app::dashboardViews())
            QVERIFY2(w.viewWidget(v.name), qPrintable(v.name));
    }

    void probesOffTheGuiThread()
    {
        MainWindow w;
        w.show();
        EndpointsPanel* panel = w.endpointsPanel();
        EndpointEntry dead;
        dead.endpoint.label = QStringLiteral("nobody home");
        dead.endpoint.baseUrl = QUrl(QStringLiteral("http://127.0.0.1:1"));
        panel->addEntry(dead);
        const std::vector<EndpointEntry> entries = panel->entries();
        QCOMPARE(entries.size(), std::size_t(3));
        for (const EndpointEntry& e : entries)
            Q_EMIT panel->probeRequested(e.id, e); // what Probe all does
        // The simulated endpoint answers; the dead one is refused and says so.
        QTRY_VERIFY_WITH_TIMEOUT(
            panel->probeState(entries[0].id) == EndpointsPanel::ProbeState::Usable, 30000);
        QTRY_VERIFY_WITH_TIMEOUT(
            panel->probeState(entries[2].id) == EndpointsPanel::ProbeState::Unusable, 30000);
        QTRY_VERIFY_WITH_TIMEOUT(
            panel->probeState(entries[1].id) != EndpointsPanel::ProbeState::Probing, 30000);
        // Probing again reuses the simulator rather than starting another one.
        Q_EMIT panel->probeRequested(entries[0].id, entries[0]);
        QTRY_VERIFY_WITH_TIMEOUT(
            panel->probeState(entries[0].id) == EndpointsPanel::ProbeState::Usable, 30000);
    }

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

    void judgesARunWhenItEndsWithTheJudgeChosenBeforehand()
    {
        MainWindow w;
        w.show();
        RunPanelSettings s = w.runPanel()->settings();
        s.suite = QStringLiteral("quick-smoke");
        s.settings.warmup = 0;
        s.settings.runs = 2;
        s.judgeAfterRun = true;
        w.runPanel()->setSettings(s);
        // Cancelling the judge's dialog does not start the run.
        QTimer::singleShot(0, [] {
            for (QWidget* top : QApplication::topLevelWidgets())
                if (auto* dialog = qobject_cast<QDialog*>(top); dialog && dialog->isVisible())
                    dialog->reject();
        });
        actionNamed(w, QStringLiteral("&Run"))->trigger();
        QVERIFY(!w.running());
        QTimer::singleShot(0, [] {
            for (QWidget* top : QApplication::topLevelWidgets())
                if (auto* dialog = qobject_cast<QDialog*>(top); dialog && dialog->isVisible())
                    dialog->accept(); // the simulated judge, voice-assistant, pairwise
        });
        QSignalSpy finished(&w, &MainWindow::runFinished);
        actionNamed(w, QStringLiteral("&Run"))->trigger();
        QVERIFY(w.running());
        QVERIFY(finished.wait(240000));
        const QString path = finished.first().at(1).toString();
        QVERIFY(!path.isEmpty());
        // The judge starts once the run is saved, and its verdicts go into that file.
        QVERIFY(QTest::qWaitFor(
            [&] {
                try {
                    return loadResults(path).judging.complete;
                } catch (const ResultFileError&) {
                    return false;
                }
            },
            120000));
        const RunResult judged = loadResults(path);
        QCOMPARE(judged.judging.judge.model, QStringLiteral("sim-judge-heuristic"));
        QCOMPARE(judged.judging.pairVerdicts.size(), std::size_t(8)); // 2 tests × 2 runs, both orders
        QVERIFY(!judged.judging.rubricVerdicts.empty());
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

    void remembersEndpointsSettingsAndLayout()
    {
        {
            MainWindow w;
            w.show();
            EndpointEntry real;
            real.endpoint.label = QStringLiteral("NVFP4 on the Spark");
            real.endpoint.baseUrl = QUrl(QStringLiteral("http://10.0.0.5:8000"));
            real.endpoint.apiKeyEnv = QStringLiteral("SPARK_KEY");
            real.endpoint.timeouts.idleMs = 12345;
            w.endpointsPanel()->addEntry(real);
            RunPanelSettings s = w.runPanel()->settings();
            s.suite = QStringLiteral("quick-smoke");
            s.settings.runs = 7;
            s.settings.concurrency = 3;
            w.runPanel()->setSettings(s);
            w.resize(1234, 777);
            w.close();
        }
        MainWindow w;
        const std::vector<EndpointEntry> entries = w.endpointsPanel()->entries();
        QCOMPARE(entries.size(), std::size_t(3));
        QCOMPARE(entries[2].endpoint.label, QStringLiteral("NVFP4 on the Spark"));
        QCOMPARE(entries[2].endpoint.apiKeyEnv, QStringLiteral("SPARK_KEY"));
        QCOMPARE(entries[2].endpoint.timeouts.idleMs, 12345);
        QCOMPARE(w.runPanel()->settings().suite, QStringLiteral("quick-smoke"));
        QCOMPARE(w.runPanel()->settings().settings.runs, 7);
        QCOMPARE(w.runPanel()->settings().settings.concurrency, 3);
        QCOMPARE(w.size(), QSize(1234, 777));
    }

    void aRealEndpointGetsTheSuitesOwnNumbers()
    {
        MainWindow w;
        w.show();
        QVERIFY(w.runPanel()->settings().demoDefaults);
        const Suite suite = loadSuite(QStringLiteral("voice-assistant"));
        w.endpointsPanel()->addEntry(realEntry());
        RunPanelSettings run = w.runPanel()->settings();
        QVERIFY(!run.demoDefaults);
        QCOMPARE(run.settings.warmup, -1);
        QCOMPARE(run.settings.runs, -1);
        QCOMPARE(run.settings.promptsPerCategory, 0);
        QCOMPARE(run.settings.order, RunOrder::Interleaved);
        QCOMPARE(run.suite, QStringLiteral("voice-assistant"));
        QVERIFY2(panelStatus(w).startsWith(QStringLiteral(
                     "Real endpoints: running the suite's own warm-ups and repeats, every prompt")),
            qPrintable(panelStatus(w)));
        // The in-force line now counts the whole suite at its own repeats.
        const QString inForce = w.runPanel()->inForceText();
        QVERIFY2(
            inForce.startsWith(compositionText(suiteComposition(suite, run.settings))), qPrintable(inForce));
        QVERIFY2(inForce.endsWith(QStringLiteral("The suite's own warm-ups and repeats, every prompt.")),
            qPrintable(inForce));

        // Back to only simulated endpoints: the demo's numbers are not imposed again.
        const std::vector<EndpointEntry> entries = w.endpointsPanel()->entries();
        w.endpointsPanel()->removeEntry(entries.back().id);
        QCOMPARE(w.endpointsPanel()->entries().size(), std::size_t(2));
        QCOMPARE(w.runPanel()->settings().settings.runs, -1);
        QCOMPARE(w.runPanel()->settings().settings.promptsPerCategory, 0);
        QVERIFY(!w.runPanel()->settings().demoDefaults);
    }

    void aRunsValueTheUserChoseSurvivesARealEndpoint()
    {
        MainWindow w;
        w.show();
        QVERIFY(w.runPanel()->settings().demoDefaults);
        // Typed into the spin, as a user would: the numbers are now the user's.
        const int chosen = loadSuite(QStringLiteral("voice-assistant")).defaults.runs + 1;
        auto* runs = w.runPanel()->findChild<QSpinBox*>(QStringLiteral("runs"));
        runs->setValue(chosen);
        QVERIFY(!w.runPanel()->settings().demoDefaults);
        w.endpointsPanel()->addEntry(realEntry());
        const RunPanelSettings run = w.runPanel()->settings();
        QCOMPARE(run.settings.runs, chosen);
        QCOMPARE(run.settings.warmup, 1);
        QCOMPARE(run.settings.promptsPerCategory, 1);
        QCOMPARE(run.settings.order, RunOrder::Parallel);
        QVERIFY(!panelStatus(w).contains(QStringLiteral("Real endpoints")));
        QVERIFY2(w.runPanel()->inForceText().contains(
                     QStringLiteral("Overridden here: %1 runs instead of the suite's").arg(chosen)),
            qPrintable(w.runPanel()->inForceText()));
    }

    void theDemoFlagIsRemembered()
    {
        {
            MainWindow w; // the first run: the demo's numbers, flagged as such
            w.show();
            w.close();
        }
        QCOMPARE(QSettings().value(QStringLiteral("run/demoDefaults")).toBool(), true);
        QCOMPARE(QSettings().value(QStringLiteral("run/promptsPerCategory")).toInt(), 1);
        {
            MainWindow w;
            w.show();
            QVERIFY(w.runPanel()->settings().demoDefaults);
            QCOMPARE(w.runPanel()->settings().settings.promptsPerCategory, 1);
            // Settings edited outside (another session added a real endpoint): the demo's numbers
            // give way when the window opens.
            w.endpointsPanel()->addEntry(realEntry());
            w.runPanel()->setSettings([&] {
                RunPanelSettings demo = w.runPanel()->settings();
                demo.settings.runs = 2;
                demo.demoDefaults = true;
                return demo;
            }());
            w.close();
        }
        {
            MainWindow w;
            QCOMPARE(w.runPanel()->settings().settings.runs, -1);
            QVERIFY(!w.runPanel()->settings().demoDefaults);
            QVERIFY(panelStatus(w).startsWith(QStringLiteral("Real endpoints")));
        }
        // Settings saved before the flag existed: 1 warm-up, 2 runs, parallel, never edited, were
        // the demo's; with a real endpoint listed they give way too.
        QSettings().remove(QStringLiteral("run/demoDefaults"));
        QSettings().remove(QStringLiteral("run/promptsPerCategory"));
        QSettings().setValue(QStringLiteral("run/warmup"), 1);
        QSettings().setValue(QStringLiteral("run/runs"), 2);
        QSettings().setValue(QStringLiteral("run/order"), QStringLiteral("parallel"));
        QSettings().setValue(QStringLiteral("run/concurrency"), 1);
        QSettings().setValue(QStringLiteral("run/maxTokens"), -1);
        {
            MainWindow w;
            QCOMPARE(w.runPanel()->settings().settings.runs, -1);
            QCOMPARE(w.runPanel()->settings().settings.order, RunOrder::Interleaved);
        }
        QSettings().setValue(QStringLiteral("run/runs"), 3); // a choice: kept
        QSettings().remove(QStringLiteral("run/demoDefaults"));
        QSettings().remove(QStringLiteral("run/promptsPerCategory"));
        {
            MainWindow w;
            QCOMPARE(w.runPanel()->settings().settings.runs, 3);
            QVERIFY(!w.runPanel()->settings().demoDefaults);
        }
    }

    void runsAgainstTheSimulatedEndpointsThroughTheGui()
    {
        MainWindow w;
        w.show();
        RunPanelSettings s = w.runPanel()->settings();
        s.suite = QStringLiteral("voice-assistant");
        s.settings.warmup = 0;
        s.settings.runs = 1;
        // One prompt of each category: every kind of request the suite sends (conversation, tool
        // calls, long answers) goes through the window, however many prompts the suite grows to.
        s.settings.promptsPerCategory = 1;
        // Short answers: what is checked here is the window's part (live views, saving, reopening),
        // and the simulated vLLM's 20 tok/s would otherwise make this the slowest test.
        s.settings.maxTokens = 64;
        s.settings.order = RunOrder::Parallel;
        w.runPanel()->setSettings(s);
        const Suite suite = loadSuite(s.suite);
        const Suite drawn = drawPrompts(suite, 1, s.settings.seed);
        const int perEndpoint = suiteComposition(drawn, s.settings).requestsPerEndpoint;
        QVERIFY(perEndpoint > 0);
        QSignalSpy finished(&w, &MainWindow::runFinished);
        int liveRefreshes = 0;
        std::size_t liveRecords = 0;
        connect(&w, &MainWindow::dataShown, this, [&] {
            if (w.data().live && w.data().evaluation) {
                ++liveRefreshes;
                liveRecords = std::max(liveRecords, w.data().result->records.size());
            }
        });
        actionNamed(w, QStringLiteral("&Run"))->trigger();
        QVERIFY(w.running());
        QVERIFY(actionNamed(w, QStringLiteral("&Stop"))->isEnabled());
        // Server points reach the Server tab live through the window's wiring (the simulated
        // endpoints may or may not serve /metrics: these are sent as the runner would).
        auto* server = qobject_cast<ServerCharts*>(w.viewWidget(QStringLiteral("server")));
        QVERIFY(server);
        auto* session = w.findChild<app::RunSession*>();
        QVERIFY(session);
        for (int i = 0; i < 3; ++i) {
            ServerPoint p;
            p.endpoint = 1;
            p.source = 99;
            p.atMs = 100.0 * i;
            p.values = {{MetricRole::GpuPower, 150.0 + i}};
            Q_EMIT session->serverPoint(p);
        }
        QVERIFY(QTest::qWaitFor(
            [&] { return server->timeline().series(1, MetricRole::GpuPower).size() >= 3; }, 5000));
        QVERIFY(QTest::qWaitFor([&] { return server->message().isEmpty(); }, 5000));
        QVERIFY(finished.wait(240000));
        QCOMPARE(finished.first().at(0).toBool(), true);
        const QString saved = finished.first().at(1).toString();
        QVERIFY(QFileInfo::exists(saved));
        QVERIFY(!QFileInfo::exists(saved + QStringLiteral(".journal")));
        QVERIFY2(liveRefreshes >= 2, "the views were refreshed while the run went on");
        QVERIFY(liveRecords > 0);
        QVERIFY(waitForEvaluated(w));
        // The drawn prompts (a conversation's every turn), once each, on two endpoints.
        QCOMPARE(w.data().result->records.size(), std::size_t(2 * perEndpoint));
        QCOMPARE(w.currentFile(), saved);
        const RunResult reloaded = loadResults(saved);
        QCOMPARE(reloaded.records.size(), std::size_t(2 * perEndpoint));
        QVERIFY(reloaded.complete);
        QCOMPARE(reloaded.settings.promptsPerCategory, 1);
        // Every category of the suite was asked.
        QSet<QString> categories, asked;
        for (const SuiteTest& t : suite.tests)
            categories.insert(t.category);
        for (const RunRecord& r : reloaded.records)
            for (const SuiteTest& t : suite.tests)
                if (t.id == r.test)
                    asked.insert(t.category);
        QCOMPARE(asked, categories);
        // The live trace saw the streams.
        auto* live = qobject_cast<LiveThroughputChart*>(w.viewWidget(QStringLiteral("live-tps")));
        QVERIFY(live->trace().buckets() > 0);
        // The Server tab now shows the saved run: its telemetry if the endpoints served any, else
        // how to get some; the requests lane either way.
        QVERIFY(QTest::qWaitFor(
            [&] { return server->timeline().requests(0).size() == std::size_t(perEndpoint); }, 10000));
        if (reloaded.telemetry.empty())
            QVERIFY2(server->message().contains(noServerMetricsText()), qPrintable(server->message()));
        else
            QCOMPARE(server->timeline().scrapes(), int(reloaded.telemetry.samples.size()));
        // A screenshot of the whole window at 2x.
        const QImage shot = renderWidget(&w, 2);
        QCOMPARE(shot.size(), w.size() * 2);
        // And it can be reopened for review.
        w.openFiles({saved});
        QVERIFY(QTest::qWaitFor(
            [&] {
                return w.data().result && w.data().result->records.size() == std::size_t(2 * perEndpoint)
                    && w.data().sources == QStringList {saved};
            },
            30000));
    }

    void stopKeepsEveryFinishedRequest()
    {
        MainWindow w;
        w.show();
        QSignalSpy finished(&w, &MainWindow::runFinished);
        w.startRun();
        QVERIFY(
            QTest::qWaitFor([&] { return w.data().result && w.data().result->records.size() >= 2; }, 120000));
        w.stopRun();
        QVERIFY(finished.wait(60000));
        QCOMPARE(finished.first().at(0).toBool(), false);
        const RunResult saved = loadResults(finished.first().at(1).toString());
        QVERIFY(!saved.complete);
        QVERIFY(saved.records.size() >= 2);
    }

    void aHundredThousandRecordsOpenWithoutFreezing()
    {
        // Build the file from the fixture: the same records, renumbered as more iterations.
        RunResult big = loadResults(fixture());
        const std::vector<RunRecord> base = big.records;
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
        // while other processes ran (CI runs two test processes on two cores, and saw 145 ms):
        // it only has to show that nothing froze.
#if defined(__SANITIZE_ADDRESS__)
        const double busyLimit = 1000, lateLimit = 5000; // ASan makes every pass several times slower
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

    void screenshotCommandRendersEveryView()
    {
        const Cli list = runCli({QStringLiteral("screenshot"), QStringLiteral("--list-views")});
        QCOMPARE(list.code, 0);
        QStringList expected;
        for (const app::ViewInfo& v : app::dashboardViews())
            expected << v.name;
        QCOMPARE(list.out.split(u'\n', Qt::SkipEmptyParts), expected);

        QTemporaryDir dir;
        for (const app::ViewInfo& v : app::dashboardViews()) {
            const int scale = v.name == u"window" ? 1 : 2;
            const QString out = dir.filePath(v.name + QStringLiteral(".png"));
            const Cli r = runCli({QStringLiteral("screenshot"), fixture(), QStringLiteral("--view"), v.name,
                QStringLiteral("--out"), out, QStringLiteral("--scale"), QString::number(scale),
                QStringLiteral("--theme"),
                v.name == u"quality" ? QStringLiteral("dark") : QStringLiteral("light")});
            QVERIFY2(r.code == 0, qPrintable(v.name + QStringLiteral(": ") + r.err));
            const QImage image(out);
            QCOMPARE(image.size(), v.size * scale);
            // Not a blank canvas: a real picture has many colours.
            QVERIFY2(test::distinctColours(image, 7) > 8, qPrintable(v.name));
        }
        const Cli bad = runCli({QStringLiteral("screenshot"), fixture(), QStringLiteral("--view"),
            QStringLiteral("nope"), QStringLiteral("--out"), dir.filePath(QStringLiteral("x.png"))});
        QCOMPARE(bad.code, 2);
        QVERIFY(bad.err.contains(QStringLiteral("ttft-turn")));
        const Cli missing = runCli({QStringLiteral("screenshot"), dir.filePath(QStringLiteral("none.json")),
            QStringLiteral("--view"), QStringLiteral("quality"), QStringLiteral("--out"),
            dir.filePath(QStringLiteral("x.png"))});
        QCOMPARE(missing.code, 1);
        QVERIFY(missing.err.contains(QStringLiteral("none.json")));
        const Cli scale = runCli({QStringLiteral("screenshot"), fixture(), QStringLiteral("--view"),
            QStringLiteral("quality"), QStringLiteral("--out"), dir.filePath(QStringLiteral("x.png")),
            QStringLiteral("--scale"), QStringLiteral("5")});
        QCOMPARE(scale.code, 2);
        // The statistics as seen from the other endpoint; an unknown baseline is refused.
        const Cli flipped = runCli({QStringLiteral("screenshot"), fixture(), QStringLiteral("--view"),
            QStringLiteral("statistics"), QStringLiteral("--out"), dir.filePath(QStringLiteral("s.png")),
            QStringLiteral("--baseline"), QStringLiteral("1")});
        QVERIFY2(flipped.code == 0, qPrintable(flipped.err));
        QVERIFY(QImage(dir.filePath(QStringLiteral("s.png"))).width() > 0);
        const Cli noBaseline = runCli({QStringLiteral("screenshot"), fixture(), QStringLiteral("--view"),
            QStringLiteral("statistics"), QStringLiteral("--out"), dir.filePath(QStringLiteral("t.png")),
            QStringLiteral("--baseline"), QStringLiteral("9")});
        QCOMPARE(noBaseline.code, 2);
        QVERIFY2(noBaseline.err.contains(QStringLiteral("use one of: 0 \"")), qPrintable(noBaseline.err));
        QVERIFY(!QFile::exists(dir.filePath(QStringLiteral("t.png"))));
    }
};

int main(int argc, char** argv)
{
    // Never the user's settings or data: everything under a temporary home.
    QTemporaryDir home;
    qputenv("XDG_CONFIG_HOME", home.filePath(QStringLiteral("config")).toLocal8Bit());
    qputenv("XDG_DATA_HOME", home.filePath(QStringLiteral("data")).toLocal8Bit());
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("quantscope"));
    QApplication::setApplicationName(QStringLiteral("quantscope"));
    TestGui test;
    return QTest::qExec(&test, argc, argv);
}

#include "tst_gui.moc"
