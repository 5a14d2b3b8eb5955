// SPDX-License-Identifier: MIT
// The dashboard's runs, driven as a user would, offscreen: the embedded default, probes off the
// GUI thread, a full run against the simulated endpoints and a stopped one, a judge chosen before
// a run, and the endpoints and run settings kept between sessions (the demo's short run giving way
// to a real endpoint's suite numbers).
#include "app/common/DashboardViews.h"
#include "app/dashboard/MainWindow.h"
#include "app/dashboard/RunSession.h"
#include "model/core/Suite.h"
#include "model/run/SuiteComposition.h"
#include "model/store/ResultFile.h"
#include "tests/app/GuiTestSupport.h"
#include "widgets/ScreenshotRenderer.h"
#include "widgets/charts/LiveThroughputChart.h"
#include "widgets/charts/ServerCharts.h"
#include "widgets/panels/EndpointsPanel.h"
#include "widgets/panels/RunPanel.h"

#include <QAction>
#include <QApplication>
#include <QDialog>
#include <QLabel>
#include <QScreen>
#include <QSet>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTest>
#include <QTimer>

using namespace qs;
using namespace qs::test;
using qs::app::MainWindow;

namespace {

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

} // namespace

class TestGuiRun : public QObject {
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
#if QT_VERSION >= QT_VERSION_CHECK(6, 8, 0)
        // Qt 6.8 fits a restored geometry to its screen, and the offscreen one is 800×800
        // (Debian 13 gave 798×774 back): restored, not the default, within the screen.
        const QSize screen = w.screen()->availableGeometry().size();
        QVERIFY(w.size() != QSize(1600, 1000));
        QVERIFY2(w.width() <= screen.width() && w.height() <= screen.height(),
            qPrintable(QStringLiteral("%1×%2").arg(w.width()).arg(w.height())));
#else
        QCOMPARE(w.size(), QSize(1234, 777));
#endif
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
        s.note = QStringLiteral("v3: MLP-only calibration"); // saved in the file, for a campaign
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
        QCOMPARE(reloaded.userNote, QStringLiteral("v3: MLP-only calibration"));
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
};

int main(int argc, char** argv)
{
    return guiTestMain<TestGuiRun>(argc, argv);
}

#include "tst_gui_run.moc"
