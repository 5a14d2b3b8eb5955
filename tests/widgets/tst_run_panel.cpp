// SPDX-License-Identifier: MIT
// Run panel: its settings and their round trip, the "settings in force" line against a suite's
// own numbers, the demo's defaults giving way to the user's, the progress text, the live answers
// streamed from the fixture's, and Run / Stop.
#include "PanelsTestSupport.h"
#include "WidgetTestSupport.h"
#include "model/core/Suite.h"
#include "widgets/panels/RunPanel.h"

#include <QApplication>
#include <QComboBox>
#include <QLabel>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStyleFactory>
#include <QTest>
#include <QTextBlock>

using namespace qs;
using namespace qs::test;

namespace {

/// A small suite with the shape of the voice-assistant one: categories of distinct prompts (one a
/// conversation), its own warm-up and timing repeats, the prefix cache warm.
std::shared_ptr<const Suite> smallSuite()
{
    const nlohmann::json j = {{"id", "small"}, {"prefix_cache", "warm"},
        {"defaults", {{"warmup", 1}, {"runs", 3}, {"max_tokens", 128}}},
        {"tests",
            {{{"id", "f1"}, {"category", "factual"}, {"prompt", "Capital of France?"}},
                {{"id", "f2"}, {"category", "factual"}, {"prompt", "Capital of Spain?"}},
                {{"id", "f3"}, {"category", "factual"}, {"prompt", "Capital of Italy?"}},
                {{"id", "g1"}, {"category", "greeting"}, {"prompt", "Hello!"}},
                {{"id", "m1"}, {"category", "multi-turn"}, {"turns", {"Hi", "Plan my day", "Thanks"}}}}}};
    return std::make_shared<const Suite>(parseSuite(j, QStringLiteral("small.json")));
}

} // namespace

class TestRunPanel : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion"))); }

    // --- Settings ------------------------------------------------------------------------------

    void runSettingsRoundTrip()
    {
        RunPanel panel;
        panel.setBuiltinSuites(
            {QStringLiteral("voice-assistant"), QStringLiteral("quick-smoke"), QStringLiteral("throughput")});
        QCOMPARE(panel.settings().suite, QStringLiteral("voice-assistant"));
        QCOMPARE(panel.settings().settings.warmup, -1);
        QCOMPARE(panel.settings().settings.runs, -1);
        QVERIFY(!panel.settings().settings.maxTokens);

        QSignalSpy changed(&panel, &RunPanel::settingsChanged);
        RunPanelSettings s;
        s.suite = test::fixturePath(); // any file will do: the panel does not parse suites
        s.settings.warmup = 0;
        s.settings.runs = 3;
        s.settings.maxTokens = 256;
        s.settings.order = RunOrder::Parallel;
        s.settings.concurrency = 4;
        s.settings.seed = 7;
        s.settings.requestTimeoutMs = 90000;
        s.note = QStringLiteral("v3: MLP-only calibration");
        panel.setSettings(s);
        QCOMPARE(changed.size(), 1);
        const RunPanelSettings back = panel.settings();
        QCOMPARE(back.suite, s.suite);
        QCOMPARE(back.settings.warmup, 0);
        QCOMPARE(back.settings.runs, 3);
        QCOMPARE(back.settings.maxTokens, std::optional<int>(256));
        QCOMPARE(back.settings.order, RunOrder::Parallel);
        QCOMPARE(back.settings.concurrency, 4);
        QCOMPARE(back.settings.seed, quint64(7));
        QCOMPARE(back.settings.requestTimeoutMs, 90000);
        QCOMPARE(back.note, s.note);

        // Built-ins, then the file, then "Open suite file…".
        auto* suite = child<QComboBox>(&panel, "suite");
        QCOMPARE(suite->itemText(0), QStringLiteral("voice-assistant"));
        QCOMPARE(suite->currentText(), QStringLiteral("voice-sim.json"));
        QCOMPARE(suite->itemText(suite->count() - 1), QStringLiteral("Open suite file…"));

        // Back to the suite's defaults; the file stays in the list.
        panel.setSettings(RunPanelSettings());
        QCOMPARE(panel.settings().suite, QStringLiteral("voice-assistant"));
        QCOMPARE(panel.settings().settings.warmup, -1);
        QCOMPARE(panel.settings().settings.runs, -1);
        QVERIFY(!panel.settings().settings.maxTokens);
        QVERIFY(suite->findData(s.suite) >= 0);
        panel.setSuiteDefaults(1, 5);
        QCOMPARE(child<QSpinBox>(&panel, "runs")->text(), QStringLiteral("suite default (5)"));

        // A user edit is announced; rebuilding the built-ins keeps the choice.
        suite->setCurrentIndex(1);
        QCOMPARE(panel.settings().suite, QStringLiteral("quick-smoke"));
        QVERIFY(changed.size() >= 3);
        panel.setBuiltinSuites({QStringLiteral("throughput"), QStringLiteral("quick-smoke")});
        QCOMPARE(panel.settings().suite, QStringLiteral("quick-smoke"));

        panel.setSuiteError(QStringLiteral("my.json: tests[2]: unknown field"));
        QVERIFY(child<QLabel>(&panel, "suiteError")->isVisibleTo(&panel));
        panel.setSuiteError(QString());
        QVERIFY(!child<QLabel>(&panel, "suiteError")->isVisibleTo(&panel));
    }

    void runPromptsSpinRoundTrips()
    {
        RunPanel panel;
        auto* prompts = child<QSpinBox>(&panel, "prompts");
        QCOMPARE(panel.settings().settings.promptsPerCategory, 0);
        QCOMPARE(prompts->text(), QStringLiteral("all"));
        QVERIFY(prompts->toolTip().contains(QStringLiteral("never on the repeats")));
        RunPanelSettings s;
        s.settings.promptsPerCategory = 2;
        panel.setSettings(s);
        QCOMPARE(panel.settings().settings.promptsPerCategory, 2);
        QCOMPARE(prompts->text(), QStringLiteral("2 per category"));
        prompts->setValue(0);
        QCOMPARE(panel.settings().settings.promptsPerCategory, 0);
        panel.setRunning(true);
        QVERIFY(!prompts->isEnabled());
    }

    void runInForceLineSaysWhatRunWillDo()
    {
        RunPanel panel;
        auto* line = child<QLabel>(&panel, "inForce");
        QVERIFY(!line->isVisibleTo(&panel)); // nothing to say before the window hands a suite over
        QCOMPARE(panel.inForceText(), QString());

        // The suite's own numbers: 5 prompts (the conversation counts once), 3 repeats each.
        panel.setSuite(smallSuite());
        QVERIFY(line->isVisibleTo(&panel));
        QCOMPARE(child<QSpinBox>(&panel, "runs")->text(), QStringLiteral("suite default (3)"));
        QString text = panel.inForceText();
        QVERIFY2(text.startsWith(
                     QStringLiteral("5 distinct prompts (factual 3, greeting 1, multi-turn 1); 3 timing "
                                    "repeats per prompt")),
            qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("Interleaved order")), qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("one request at a time per endpoint")), qPrintable(text));
        QVERIFY2(text.endsWith(QStringLiteral("The suite's own warm-ups and repeats, every prompt.")),
            qPrintable(text));
        QVERIFY(line->text().contains(QStringLiteral("Settings in force:")));
        QCOMPARE(text.count(u'\n'), 2); // what, how, whose: a line each in the narrow dock

        // Overridden here: the line follows every edit and names each override against the suite's.
        child<QSpinBox>(&panel, "runs")->setValue(2);
        child<QSpinBox>(&panel, "prompts")->setValue(1);
        text = panel.inForceText();
        QVERIFY2(text.startsWith(
                     QStringLiteral("3 distinct prompts (factual 1, greeting 1, multi-turn 1); 2 timing "
                                    "repeats per prompt")),
            qPrintable(text));
        QVERIFY2(
            text.contains(QStringLiteral(
                "Overridden here: 2 runs instead of the suite's 3, 1 prompt per category instead of every "
                "prompt.")),
            qPrintable(text));
        QVERIFY(line->text().contains(QStringLiteral("2 runs instead of the suite's 3")));

        // The demo's numbers say whose they are; a value equal to the suite's own is no override;
        // more prompts than a category holds draws them all.
        RunPanelSettings demo;
        demo.settings.warmup = 1;
        demo.settings.runs = 2;
        demo.settings.promptsPerCategory = 2;
        demo.settings.order = RunOrder::Parallel;
        demo.settings.concurrency = 4;
        demo.demoDefaults = true;
        panel.setSettings(demo);
        text = panel.inForceText();
        QVERIFY2(text.contains(
                     QStringLiteral("Parallel order (every endpoint at once: only for endpoints on separate "
                                    "machines), 4 conversations in flight per endpoint.")),
            qPrintable(text));
        QVERIFY2(
            text.contains(QStringLiteral("Overridden here for the demo's short run: 2 runs instead of the "
                                         "suite's 3, 2 prompts per category instead of every prompt.")),
            qPrintable(text));
        QVERIFY2(!text.contains(QStringLiteral("warm-up instead")), qPrintable(text));
        demo.settings.promptsPerCategory = 5;
        demo.settings.runs = 3;
        demo.settings.warmup = 0;
        panel.setSettings(demo);
        text = panel.inForceText();
        QVERIFY2(text.startsWith(QStringLiteral("5 distinct prompts")), qPrintable(text));
        QVERIFY2(text.endsWith(QStringLiteral("0 warm-ups instead of the suite's 1.")), qPrintable(text));
    }

    void runInForceLineOnASuiteThatCannotBeRead()
    {
        RunPanel panel;
        panel.setSuite(smallSuite());
        panel.setSuiteError(QStringLiteral("my.json: tests[2]: unknown field"));
        panel.setSuite(nullptr);
        auto* line = child<QLabel>(&panel, "inForce");
        QVERIFY(line->isVisibleTo(&panel));
        QVERIFY2(panel.inForceText().contains(QStringLiteral("the suite could not be read")),
            qPrintable(panel.inForceText()));
        // Its numbers are gone with it: no "suite default (3)" from the suite shown before.
        QCOMPARE(child<QSpinBox>(&panel, "runs")->text(), QStringLiteral("suite default"));
    }

    void runDemoDefaultsEndWithTheUsersNumbers()
    {
        RunPanel panel;
        panel.setSuite(smallSuite());
        QVERIFY(!panel.settings().demoDefaults);
        RunPanelSettings demo;
        demo.settings.warmup = 1;
        demo.settings.runs = 2;
        demo.settings.promptsPerCategory = 2;
        demo.demoDefaults = true;
        panel.setSettings(demo);
        QVERIFY(panel.settings().demoDefaults);
        // Order, concurrency and max tokens are not the demo's numbers: the flag stays.
        child<QComboBox>(&panel, "order")->setCurrentIndex(1);
        child<QSpinBox>(&panel, "concurrency")->setValue(2);
        QVERIFY(panel.settings().demoDefaults);
        // Any of warm-up, runs and prompts touched: the numbers are the user's.
        for (const char* name : {"warmup", "runs", "prompts"}) {
            panel.setSettings(demo);
            QVERIFY(panel.settings().demoDefaults);
            auto* spin = child<QSpinBox>(&panel, name);
            spin->setValue(spin->value() + 1);
            QVERIFY2(!panel.settings().demoDefaults, name);
            // The line already says whose numbers they are.
            QVERIFY2(panel.inForceText().contains(QStringLiteral("Overridden here: ")),
                qPrintable(panel.inForceText()));
        }
    }

    // --- A run in progress ---------------------------------------------------------------------

    void runProgressText()
    {
        RunPanel panel;
        RunPanelSettings s;
        s.settings.runs = 3;
        panel.setSettings(s);
        RunProgress p;
        p.done = 37;
        p.total = 96;
        p.endpoint = 0;
        p.endpointLabel = QStringLiteral("q4km-like");
        p.test = QStringLiteral("multi-turn-5");
        p.turn = 3;
        p.iteration = 2;
        p.etaMs = 65000;
        panel.setProgress(p);
        QCOMPARE(panel.progressText(),
            QStringLiteral("q4km-like · multi-turn-5 · turn 3 · run 2/3 · ETA 1 min 05 s"));
        auto* bar = panel.findChild<QProgressBar*>();
        QCOMPARE(bar->value(), 37);
        QCOMPARE(bar->maximum(), 96);
        QCOMPARE(bar->text(), QStringLiteral("37 / 96 requests"));

        p.warmup = true;
        p.iteration = 1;
        p.etaMs = 3723000;
        p.failed = 2;
        panel.setProgress(p);
        QCOMPARE(panel.progressText(),
            QStringLiteral("q4km-like · multi-turn-5 · turn 3 · warm-up 1 · 2 failed · ETA 1 h 02 min"));

        // Runs left to the suite: the suite's count when known, else none.
        panel.setSettings(RunPanelSettings());
        p.warmup = false;
        p.failed = 0;
        p.etaMs = 42400;
        panel.setProgress(p);
        QCOMPARE(
            panel.progressText(), QStringLiteral("q4km-like · multi-turn-5 · turn 3 · run 1 · ETA 42 s"));
        panel.setSuiteDefaults(1, 5);
        panel.setProgress(p);
        QVERIFY(panel.progressText().contains(u"run 1/5"));

        // Issue #26: a long label and test name wrap within the line's two rows; they once widened
        // the dock (and the window's layout) in the middle of a run.
        const int width = panel.minimumSizeHint().width();
        const int height = panel.minimumSizeHint().height();
        p.endpointLabel = QStringLiteral("NVFP4 on vLLM 0.17 with the MLP-only calibration (simulated)");
        p.test = QStringLiteral("a-very-long-test-name-from-a-suite-of-our-own");
        panel.setProgress(p);
        QCOMPARE(panel.minimumSizeHint().width(), width);
        QCOMPARE(panel.minimumSizeHint().height(), height);
    }

    void runLiveText()
    {
        const auto run = test::loadFixture();
        RunPanel panel;
        panel.beginLive({endpointTitle(*run, 0), endpointTitle(*run, 1)});
        // Stream the fixture's last measured answer of each endpoint in small pieces.
        QString expected[2];
        QList<LiveDelta> batch;
        int slot = 0;
        for (int e = 0; e < 2; ++e) {
            const RunRecord* last = nullptr;
            for (const RunRecord& r : run->records)
                if (r.endpoint == e && !r.warmup && !r.request.response.content.isEmpty())
                    last = &r;
            QVERIFY(last);
            const QString content = last->request.response.content;
            for (qsizetype at = 0; at < content.size(); at += 7) {
                LiveDelta d;
                d.slot = slot + e;
                d.endpoint = e;
                d.test = last->test;
                d.turn = last->turn;
                d.iteration = last->iteration;
                d.content = content.mid(at, 7);
                d.started = at == 0;
                batch.append(d);
            }
            expected[e] = content;
        }
        panel.addDeltas(batch.mid(0, batch.size() / 2));
        panel.addDeltas(batch.mid(batch.size() / 2));
        QCOMPARE(panel.liveText(0), expected[0]);
        QCOMPARE(panel.liveText(1), expected[1]);

        // Reasoning is appended in grey italics, after the content already there.
        LiveDelta thinking;
        thinking.endpoint = 1;
        thinking.slot = 1;
        thinking.reasoning = QStringLiteral("Let me think.");
        panel.addDeltas({thinking});
        QCOMPARE(panel.liveText(1), expected[1] + thinking.reasoning);
        const auto columns = panel.findChildren<QPlainTextEdit*>();
        QCOMPARE(columns.size(), 2);
        const QTextBlock block = columns[1]->document()->lastBlock();
        QTextCursor c(block);
        c.movePosition(QTextCursor::EndOfBlock);
        QVERIFY(c.charFormat().fontItalic());
        c.setPosition(block.position() + 1);
        QVERIFY(!c.charFormat().fontItalic());

        // Another slot of the same endpoint is ignored until it starts a request.
        LiveDelta other;
        other.endpoint = 0;
        other.slot = 9;
        other.content = QStringLiteral("stray");
        panel.addDeltas({other});
        QCOMPARE(panel.liveText(0), expected[0]);

        // A started delta clears only its endpoint's column, and the header says where it is.
        LiveDelta fresh;
        fresh.endpoint = 0;
        fresh.slot = 9;
        fresh.test = QStringLiteral("multi-turn-5");
        fresh.turn = 2;
        fresh.iteration = 1;
        fresh.warmup = true;
        fresh.started = true;
        fresh.content = QStringLiteral("Hello");
        panel.addDeltas({fresh});
        QCOMPARE(panel.liveText(0), QStringLiteral("Hello"));
        QCOMPARE(panel.liveText(1), expected[1] + thinking.reasoning);
        bool headerFound = false;
        for (QLabel* l : panel.findChildren<QLabel*>())
            headerFound = headerFound || l->text().contains(u"multi-turn-5 · turn 2 · warm-up 1");
        QVERIFY(headerFound);

        // The cap keeps the end of a long answer.
        QList<LiveDelta> flood;
        for (int i = 0; i < 400; ++i) {
            LiveDelta d;
            d.endpoint = 0;
            d.slot = 9;
            d.content = QStringLiteral("%1 ").arg(i, 4, 10, QLatin1Char('0')).repeated(20); // 100 chars
            flood.append(d);
        }
        panel.addDeltas(flood);
        const QString capped = panel.liveText(0);
        QVERIFY2(
            capped.size() <= RunPanel::liveCharacterCap * 6 / 5, qPrintable(QString::number(capped.size())));
        QVERIFY(capped.size() >= RunPanel::liveCharacterCap - 1);
        QVERIFY(capped.endsWith(QStringLiteral("0399 ")));
        QVERIFY(!capped.contains(u"Hello"));

        // Deltas for an endpoint without a column make one.
        LiveDelta third;
        third.endpoint = 2;
        third.slot = 3;
        third.started = true;
        third.content = QStringLiteral("third");
        panel.addDeltas({third});
        QCOMPARE(panel.liveText(2), QStringLiteral("third"));
        panel.beginLive({QStringLiteral("a")});
        QCOMPARE(panel.liveText(0), QString());
        QCOMPARE(panel.liveText(1), QString());
    }

    void runRunningToggles()
    {
        RunPanel panel;
        QSignalSpy run(&panel, &RunPanel::runRequested);
        QSignalSpy stop(&panel, &RunPanel::stopRequested);
        auto* runButton = buttonNamed(&panel, QStringLiteral("Run"));
        auto* stopButton = buttonNamed(&panel, QStringLiteral("Stop"));
        QVERIFY(!panel.running());
        QVERIFY(runButton->isEnabled());
        QVERIFY(!stopButton->isEnabled());
        runButton->click();
        QCOMPARE(run.size(), 1);
        panel.setRunning(true);
        QVERIFY(panel.running());
        QVERIFY(!runButton->isEnabled());
        QVERIFY(stopButton->isEnabled());
        QVERIFY(!child<QComboBox>(&panel, "suite")->isEnabled());
        QVERIFY(!child<QSpinBox>(&panel, "runs")->isEnabled());
        stopButton->click();
        QCOMPARE(stop.size(), 1);
        panel.setRunning(false);
        QVERIFY(runButton->isEnabled());
        QVERIFY(!stopButton->isEnabled());
        QVERIFY(child<QSpinBox>(&panel, "runs")->isEnabled());
        panel.setStatusText(QStringLiteral("Cancelled: 12 records kept"));
        QCOMPARE(child<QLabel>(&panel, "status")->text(), QStringLiteral("Cancelled: 12 records kept"));
    }
};

QTEST_MAIN(TestRunPanel)
#include "tst_run_panel.moc"
