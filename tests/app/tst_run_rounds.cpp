// SPDX-License-Identifier: MIT
// The dashboard's run until decided (RunSession, the path the Run panel's "until decided" takes)
// against scripted loopback servers: each round is judged on a worker with the Decision tab's
// profile, the live snapshots carry the looks (what the Decision tab draws narrowing), and the run
// stops when the verdict is made, or at its prompt limit on a close case — saved saying why.
#include "app/dashboard/RunSession.h"
#include "model/decide/DecisionProfile.h"
#include "model/decide/Sequential.h"
#include "model/store/ResultFile.h"
#include "tests/app/ScriptedServers.h"

#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QtTest>

using namespace qs;
using namespace qs::app;
using namespace qs::test;

namespace {

struct Outcome {
    std::shared_ptr<const RunResult> ended;
    QString savedTo;
    QStringList status;
    int liveLooks = 0; ///< the most looks a live snapshot carried
};

Outcome runRounds(const Arm& base, const Arm& cand, int prompts, int maxPrompts)
{
    QTemporaryDir dir;
    const auto b = serve(base);
    const auto c = serve(cand);
    std::vector<EndpointEntry> entries(2);
    entries[0].endpoint.label = QStringLiteral("Base");
    entries[0].endpoint.baseUrl = b->baseUrl();
    entries[1].endpoint.label = QStringLiteral("Cand");
    entries[1].endpoint.baseUrl = c->baseUrl();
    RunPanelSettings panel;
    panel.suite = writeSuite(dir, prompts);
    panel.settings.serverMetrics = false;
    panel.untilDecided = true;
    panel.maxPrompts = maxPrompts;
    const DecisionProfile profile = loadDecisionProfileFile(writeProfile(dir));

    RunSession session;
    Outcome out;
    QObject::connect(&session, &RunSession::statusText, [&](const QString& t) { out.status << t; });
    QObject::connect(&session, &RunSession::ended,
        [&](std::shared_ptr<const RunResult> result) { out.ended = std::move(result); });
    QSignalSpy saved(&session, &RunSession::saved);
    // The window's live refresh, as MainWindow does it: a snapshot made on a worker.
    QObject::connect(&session, &RunSession::refreshDue, [&] {
        if (SnapshotJob job = session.takeSnapshot())
            if (const auto snapshot = job(); snapshot)
                if (const auto rounds = untilDecidedOf(*snapshot))
                    out.liveLooks = std::max(out.liveLooks, int(rounds->looks.size()));
    });
    if (!session.start(entries, panel, &profile)) {
        out.status << QStringLiteral("did not start");
        return out;
    }
    if (!saved.wait(240000))
        out.status << QStringLiteral("not saved in time");
    if (!saved.isEmpty())
        out.savedTo = saved.first().at(1).toString();
    return out;
}

} // namespace

class TestRunRounds : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void theRunPanelAsksForRoundsAndSaysWhatTheyWillBe()
    {
        RunPanel panel;
        panel.setSuite(std::make_shared<const Suite>(loadSuite(QStringLiteral("voice-assistant"))));
        RunPanelSettings s = panel.settings();
        QVERIFY(!s.untilDecided);
        s.untilDecided = true;
        s.maxPrompts = 40;
        s.budgetMinutes = 30;
        s.settings.promptsPerCategory = 2; // the rounds draw the prompts: ignored
        panel.setSettings(s);
        const RunPanelSettings back = panel.settings();
        QVERIFY(back.untilDecided);
        QCOMPARE(back.maxPrompts, 40);
        QCOMPARE(back.budgetMinutes, 30);
        QCOMPARE(back.settings.promptsPerCategory, 0);
        QVERIFY2(panel.inForceText().startsWith(QStringLiteral(
                     "Until decided by the Decision tab's profile: looks after 12, 24, 36 distinct prompts")),
            qPrintable(panel.inForceText()));
        QVERIFY(panel.inForceText().contains(QStringLiteral("past 30 min")));
        auto* prompts = panel.findChild<QSpinBox*>(QStringLiteral("prompts"));
        QVERIFY(prompts);
        QVERIFY(!prompts->isEnabled()); // the rounds draw them
        s.untilDecided = false;
        panel.setSettings(s);
        QVERIFY(prompts->isEnabled());
    }

    void aClearCaseStopsAtTheFirstLook()
    {
        const Outcome o = runRounds({1, 0.05, 3}, {1.35, 0.05, 4}, 40, 0);
        QVERIFY2(o.ended, qPrintable(o.status.join(u'\n')));
        const auto rounds = untilDecidedOf(*o.ended);
        QVERIFY(rounds);
        QCOMPARE(rounds->stop, StopReason::Decided);
        QCOMPARE(rounds->looks.size(), std::size_t(1));
        QCOMPARE(rounds->looks[0].prompts, 12);
        QCOMPARE(rounds->looks[0].verdicts.at(0).decision, Recommendation::Decision::KeepBaseline);
        QVERIFY2(
            o.status.join(u'\n').contains(QStringLiteral("Until decided: decided after 12 distinct prompts")),
            qPrintable(o.status.join(u'\n')));
        // Saved as the runner ended it: the looks and why it stopped are in the file.
        QVERIFY2(!o.savedTo.isEmpty(), qPrintable(o.status.join(u'\n')));
        const RunResult reread = loadResults(o.savedTo);
        const auto savedRounds = untilDecidedOf(reread);
        QVERIFY(savedRounds);
        QCOMPARE(savedRounds->stop, StopReason::Decided);
        QCOMPARE(looksToAccountFor(reread), 1);
        QFile::remove(o.savedTo);
    }

    void aCloseCaseRunsToItsLimitAndTheLooksAreLive()
    {
        const Outcome o = runRounds({1, 0.15, 7}, {1.1, 0.15, 8}, 40, 20);
        QVERIFY2(o.ended, qPrintable(o.status.join(u'\n')));
        const auto rounds = untilDecidedOf(*o.ended);
        QVERIFY(rounds);
        QCOMPARE(rounds->stop, StopReason::MaxPrompts);
        QCOMPARE(rounds->looks.size(), std::size_t(2));
        QCOMPARE(rounds->looks[1].prompts, 18);
        QVERIFY2(o.status.join(u'\n').contains(QStringLiteral("Look 1 after 12 distinct prompts")),
            qPrintable(o.status.join(u'\n')));
        // The first look reached the views while the second round ran.
        QVERIFY(o.liveLooks >= 1);
        QFile::remove(o.savedTo);
    }
};

QTEST_MAIN(TestRunRounds)
#include "tst_run_rounds.moc"
