// SPDX-License-Identifier: MIT
// The LLM judge in the responses view: each answer's rubric scores (compact, colour-coded, in
// rubric order) and the judge's reason as plain text, "judge failed" with the raw reply kept, and
// the blind pairwise verdict of the shown pair with both orders translated to the arms.
#include "WidgetTestSupport.h"
#include "widgets/ScreenshotRenderer.h"
#include "widgets/responses/PairwiseVerdictPanel.h"
#include "widgets/responses/ResponseColumn.h"
#include "widgets/responses/ResponsesView.h"
#include "widgets/responses/RubricVerdictBox.h"

#include <QApplication>
#include <QDir>
#include <QFrame>
#include <QLabel>
#include <QStyleFactory>
#include <QTest>

using namespace qs;

namespace {

const QString kFactual = QStringLiteral("factual");
const QString kHostileReason = QStringLiteral("<b>Friendly</b> but <img src=\"file:///etc/passwd\"> generic");

Rubric testRubric()
{
    Rubric r;
    r.id = QStringLiteral("voice");
    for (const char* id : {"answers_question", "correct", "warm_personal"}) {
        RubricCriterion c;
        c.id = QString::fromLatin1(id);
        c.title = QStringLiteral("Title of ") + c.id;
        r.criteria.push_back(c);
    }
    return r;
}

RubricVerdict graded(int endpoint, std::map<QString, int> scores, const QString& reason)
{
    RubricVerdict v;
    v.answer = {endpoint, kFactual, 1, 1};
    v.scores = std::move(scores);
    v.reason = reason;
    return v;
}

PairVerdict pair(bool candidateFirst, PairPick pick, const QString& reason, int iteration = 1)
{
    PairVerdict v;
    v.candidate = 1;
    v.baseline = 0;
    v.test = kFactual;
    v.iteration = iteration;
    v.candidateFirst = candidateFirst;
    v.pick = pick;
    v.reason = reason;
    if (pick == PairPick::Failed)
        v.exchange.error = QStringLiteral("timed out after 120 s");
    return v;
}

/// The fixture with a judging on test "factual": run 1 graded and pair-judged in both orders.
DashboardData judgedData(std::vector<PairVerdict> pairs)
{
    auto r = std::make_shared<RunResult>(*test::loadFixture());
    r->judging.rubric = testRubric();
    // Out of rubric order, plus a score the rubric does not name: listed last.
    r->judging.rubricVerdicts.push_back(graded(0,
        {{QStringLiteral("warm_personal"), 2}, {QStringLiteral("correct"), 5},
            {QStringLiteral("answers_question"), 4}},
        kHostileReason));
    RubricVerdict failed = graded(1, {}, QString());
    failed.exchange.error = QStringLiteral("the reply is not JSON: expected {\"scores\": …}");
    failed.exchange.reply = QStringLiteral("Sure! Here are my <scores>: 5, 5, 5");
    r->judging.rubricVerdicts.push_back(failed);
    r->judging.pairVerdicts = std::move(pairs);
    DashboardData d;
    d.result = r;
    return d;
}

QString label(const RunResult& r, int e)
{
    return endpointTitle(r, e);
}

} // namespace

class TestJudgedResponses : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion"))); }

    void rubricScoresAndReasonArePlainText()
    {
        ResponsesView view;
        view.setData(judgedData({}));
        QVERIFY(view.select(kFactual, 1, 1));
        RubricVerdictBox* box = view.column(0)->rubricBox();
        QVERIFY(!box->isHidden());
        QVERIFY(box->hasVerdict());
        QCOMPARE(box->scoresText(), QStringLiteral("answers_question 4 · correct 5 · warm_personal 2"));
        // The judge's words exactly, never read as markup.
        QCOMPARE(box->reasonText(), kHostileReason);
        auto* reason = box->findChild<QLabel*>(QStringLiteral("judgeReason"));
        QCOMPARE(reason->textFormat(), Qt::PlainText);
        // Colour-coded: 4–5 good, 2 poor; the criteria's titles as tooltip.
        auto* scores = box->findChild<QLabel*>(QStringLiteral("rubricScores"));
        const ThemeColors& c = themeColors(Theme::Light);
        QVERIFY(scores->text().contains(c.passBackground.name()));
        QVERIFY(scores->text().contains(c.failBackground.name()));
        QVERIFY(scores->toolTip().contains(QStringLiteral("Title of warm_personal: 2 of 5")));

        // The other arm: the judge failed, its raw reply kept (escaped) in the tooltip.
        RubricVerdictBox* failed = view.column(1)->rubricBox();
        QVERIFY(failed->failed());
        QVERIFY(failed->reasonText().startsWith(QStringLiteral("judge failed: the reply is not JSON")));
        QCOMPARE(failed->scoresText(), QString());
        auto* failedReason = failed->findChild<QLabel*>(QStringLiteral("judgeReason"));
        QVERIFY(failedReason->toolTip().contains(QStringLiteral("&lt;scores&gt;")));

        // Another run of the same test: the rubric ran, this answer has no verdict yet.
        QVERIFY(view.select(kFactual, 1, 2));
        QVERIFY(!view.column(0)->rubricBox()->isHidden());
        QVERIFY(!view.column(0)->rubricBox()->hasVerdict());
        QCOMPARE(view.column(0)->rubricBox()->reasonText(), QStringLiteral("Not graded by the judge."));
    }

    void unknownScoresComeLast()
    {
        RubricVerdictBox box;
        const Rubric rubric = testRubric();
        const RubricVerdict v
            = graded(0, {{QStringLiteral("aaa_extra"), 3}, {QStringLiteral("correct"), 1}}, QString());
        box.setVerdict(&v, &rubric, true);
        QCOMPARE(box.scoresText(), QStringLiteral("correct 1 · aaa_extra 3"));
        QCOMPARE(box.reasonText(), QStringLiteral("(the judge gave no reason)"));
    }

    void noJudgingShowsNothing()
    {
        ResponsesView view;
        view.setData(test::fixtureData());
        QVERIFY(view.select(kFactual, 1, 1));
        for (int e = 0; e < view.columnCount(); ++e)
            QVERIFY(view.column(e)->rubricBox()->isHidden());
        QVERIFY(view.pairwisePanel()->isHidden());
        QVERIFY(view.pairwisePanel()->outcomes().empty());
    }

    void consistentPairNamesTheArms()
    {
        ResponsesView view;
        const DashboardData data = judgedData({pair(true, PairPick::First, QStringLiteral("shorter, warmer")),
            pair(false, PairPick::Second, QStringLiteral("the second is warmer"))});
        view.setData(data);
        QVERIFY(view.select(kFactual, 1, 1));
        PairwiseVerdictPanel* panel = view.pairwisePanel();
        QVERIFY(!panel->isHidden());
        QCOMPARE(int(panel->outcomes().size()), 1);
        const PairOutcome& o = panel->outcomes()[0];
        const QString cand = label(*data.result, 1);
        const QString base = label(*data.result, 0);
        QCOMPARE(o.kind, PairOutcome::Kind::CandidateBetter);
        QVERIFY(o.summary.contains(cand + QStringLiteral(" vs ") + base + QStringLiteral(" (baseline)")));
        QVERIFY(o.summary.contains(cand + QStringLiteral(" better: both orders agree (consistent)")));
        QCOMPARE(o.orders.size(), 2);
        QCOMPARE(
            o.orders[0], QStringLiteral("%1 shown first, %2 second: picked %1 (answer 1)").arg(cand, base));
        QCOMPARE(
            o.orders[1], QStringLiteral("%2 shown first, %1 second: picked %1 (answer 2)").arg(cand, base));
        QCOMPARE(o.reasons,
            QStringList({QStringLiteral("shorter, warmer"), QStringLiteral("the second is warmer")}));
        QVERIFY(panel->text().contains(QStringLiteral("the second is warmer")));
        for (QLabel* l : panel->findChildren<QLabel*>())
            QCOMPARE(l->textFormat(), Qt::PlainText);

        // A live refresh with the same verdicts keeps the widgets.
        const QFrame* row = panel->findChild<QFrame*>(QStringLiteral("pairRow"));
        QVERIFY(row);
        view.setData(judgedData({pair(true, PairPick::First, QStringLiteral("shorter, warmer")),
            pair(false, PairPick::Second, QStringLiteral("the second is warmer"))}));
        QCOMPARE(panel->findChild<QFrame*>(QStringLiteral("pairRow")), row);

        // Another cell without pair verdicts: the panel goes.
        QVERIFY(view.select(kFactual, 1, 2));
        QVERIFY(panel->isHidden());
    }

    void pairOutcomes()
    {
        const QString c = QStringLiteral("NVFP4");
        const QString b = QStringLiteral("Q4_K_M");
        auto outcome = [&](std::vector<PairVerdict> v) {
            std::vector<const PairVerdict*> p;
            for (const PairVerdict& x : v)
                p.push_back(&x);
            return pairOutcome(p, c, b);
        };
        // Always the first position: candidate in one order, baseline in the other.
        PairOutcome o = outcome({pair(true, PairPick::First, {}), pair(false, PairPick::First, {})});
        QCOMPARE(o.kind, PairOutcome::Kind::Inconsistent);
        QVERIFY(o.summary.contains(u"counted as a tie"));
        QCOMPARE(o.orders[1], QStringLiteral("Q4_K_M shown first, NVFP4 second: picked Q4_K_M (answer 1)"));

        o = outcome({pair(true, PairPick::Second, {}), pair(false, PairPick::First, {})});
        QCOMPARE(o.kind, PairOutcome::Kind::BaselineBetter);
        QVERIFY(o.summary.startsWith(u"Q4_K_M better"));

        o = outcome({pair(true, PairPick::Tie, {}), pair(false, PairPick::Tie, {})});
        QCOMPARE(o.kind, PairOutcome::Kind::Tie);
        QVERIFY(o.orders[0].endsWith(u"said tie"));

        o = outcome({pair(true, PairPick::First, {}), pair(false, PairPick::Failed, {})});
        QCOMPARE(o.kind, PairOutcome::Kind::Failed);
        QVERIFY(o.orders[1].endsWith(QStringLiteral("judge failed: timed out after 120 s")));

        o = outcome({pair(false, PairPick::Second, {})});
        QCOMPARE(o.kind, PairOutcome::Kind::OneOrder);
        QCOMPARE(o.orders.size(), 1);

        // A resumed judging repeated an order: the later judgement counts.
        o = outcome({pair(true, PairPick::Failed, {}), pair(false, PairPick::Second, {}),
            pair(true, PairPick::First, {})});
        QCOMPARE(o.kind, PairOutcome::Kind::CandidateBetter);
    }

    void rendersWithJudging()
    {
        ResponsesView view;
        view.setData(judgedData({pair(true, PairPick::First, QStringLiteral("shorter")),
            pair(false, PairPick::First, QStringLiteral("the first one"))}));
        QVERIFY(view.select(kFactual, 1, 1));
        for (Theme theme : {Theme::Light, Theme::Dark}) {
            view.setTheme(theme);
            view.resize(1100, 760);
            view.show();
            QCoreApplication::processEvents();
            const QImage image = renderWidget(&view, 1);
            QVERIFY(test::distinctColours(image, 2) > 40);
            QDir().mkpath(QStringLiteral("/tmp/shots-responses"));
            QCOMPARE(savePng(image, QStringLiteral("/tmp/shots-responses/judged-%1.png").arg(themeId(theme))),
                QString());
        }
    }
};

QTEST_MAIN(TestJudgedResponses)
#include "tst_judged_responses.moc"
