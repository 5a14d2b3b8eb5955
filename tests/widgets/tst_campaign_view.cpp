// SPDX-License-Identifier: MIT
// The Campaign tab (widgets/campaign/CampaignView): attempts as rows with each criterion's outcome
// and figure, the best marked, the baseline's drift called out, each criterion's figure across
// attempts drawn with its interval, and a row that opens its attempt.
#include "model/core/Clock.h"
#include "widgets/campaign/CampaignView.h"
#include "widgets/decision/DecisionText.h"
#include "widgets/decision/LooksChart.h"

#include <QHeaderView>
#include <QSignalSpy>
#include <QTableWidget>
#include <QtTest>

using namespace qs;
using Outcome = CriterionResult::Outcome;

namespace {

CriterionResult counted(Outcome o, const QString& measured)
{
    CriterionResult r;
    r.criterion.id = QStringLiteral("thinking_leaks");
    r.criterion.title = QStringLiteral("No thinking leaks");
    r.outcome = o;
    r.measured = measured;
    return r;
}

CriterionResult interval(Outcome o, double estimate, double lo, double hi)
{
    CriterionResult r;
    r.criterion.id = QStringLiteral("ttft");
    r.criterion.title = QStringLiteral("TTFT not worse than the baseline");
    r.outcome = o;
    r.estimate = estimate;
    r.interval = Interval {lo, hi};
    r.limit = 1.1;
    r.measured = QStringLiteral("ratio %1").arg(estimate);
    return r;
}

std::shared_ptr<const Campaign> threeAttempts()
{
    auto c = std::make_shared<Campaign>();
    c->profileId = QStringLiteral("voice-assistant");
    c->baselineLabel = QStringLiteral("Q4_K_M");
    c->files.resize(3);
    c->baselineOf = {0, 0, 0};
    const Recommendation::Decision decisions[] = {Recommendation::Decision::KeepBaseline,
        Recommendation::Decision::KeepBaseline, Recommendation::Decision::Switch};
    for (int i = 0; i < 3; ++i) {
        CampaignAttempt a;
        a.file = QStringLiteral("/runs/attempt%1.json").arg(i + 1);
        a.fileIndex = i;
        a.candidate = 1;
        a.candidateLabel = QStringLiteral("NVFP4 vLLM");
        a.startedAt = utcDateTime(QDate(2026, 11, 20 + i), QTime(9, 0));
        a.recommendation.decision = decisions[i];
        a.recommendation.headline = QStringLiteral("headline %1").arg(i + 1);
        a.recommendation.criteria = {counted(i == 0 ? Outcome::Fail : Outcome::Pass,
                                         i == 0 ? QStringLiteral("9 of 32 answers leaked thinking")
                                                : QStringLiteral("0 of 32 answers leaked thinking")),
            interval(Outcome::Pass, 0.9 - 0.2 * i, 0.85 - 0.2 * i, 0.95 - 0.2 * i)};
        if (i == 2)
            a.changes
                = {{QStringLiteral("quantization"), QStringLiteral("NVFP4"), QStringLiteral("NVFP4-MLP")}};
        a.notes = {QStringLiteral("v%1").arg(i + 1)};
        c->attempts.push_back(a);
    }
    c->standings
        = {{QStringLiteral("thinking_leaks"), QStringLiteral("No thinking leaks"), -1, {1, 2}, QString()},
            {QStringLiteral("ttft"), QStringLiteral("TTFT not worse than the baseline"), 2, {2}, QString()}};
    c->best = 2;
    c->bestSentence = QStringLiteral("the only switch");
    c->bestSoFar = {0, 1, 2};
    CampaignDrift moved;
    moved.metric = QStringLiteral("ttft_visible_ms");
    moved.fromFile = 1;
    moved.toFile = 2;
    moved.significant = true;
    moved.sentence = QStringLiteral("Q4_K_M's TTFT was 1.41× slower");
    CampaignDrift still = moved;
    still.metric = QStringLiteral("decode_tps");
    still.significant = false;
    c->drift = {moved, still};
    return c;
}

} // namespace

class TestCampaignView : public QObject {
    Q_OBJECT

private slots:
    void rowsColumnsAndColours()
    {
        CampaignView view;
        view.resize(1600, 1000);
        view.setCampaign(threeAttempts());
        QTableWidget* t = view.table();
        QCOMPARE(t->rowCount(), 3);
        QCOMPARE(t->columnCount(), 4 + 2 + 1);
        QCOMPARE(t->horizontalHeaderItem(4)->text(), QStringLiteral("thinking_leaks"));
        QVERIFY(t->horizontalHeaderItem(4)->toolTip().contains(QStringLiteral("No thinking leaks")));
        QVERIFY(t->item(2, 0)->text().contains(QStringLiteral("★"))); // the best
        QVERIFY(!t->item(0, 0)->text().contains(QStringLiteral("★")));
        QCOMPARE(t->item(0, 3)->text(), decisionTitle(Recommendation::Decision::KeepBaseline));
        QCOMPARE(t->item(2, 3)->background().color(),
            decisionColors(Recommendation::Decision::Switch, Theme::Light).background);
        QVERIFY2(
            t->item(0, 4)->text().startsWith(QStringLiteral("✗ 9 of 32")), qPrintable(t->item(0, 4)->text()));
        QVERIFY2(t->item(2, 5)->text().contains(QStringLiteral("0.50 [0.45–0.55]")),
            qPrintable(t->item(2, 5)->text()));
        QCOMPARE(t->item(2, 6)->text(), QStringLiteral("quantization"));
        QVERIFY(t->item(2, 6)->toolTip().contains(QStringLiteral("NVFP4 → NVFP4-MLP")));

        QVERIFY2(view.headlineText().contains(QStringLiteral("Best so far: NVFP4 vLLM (attempt3.json)")),
            qPrintable(view.headlineText()));
        QVERIFY2(view.headlineText().contains(QStringLiteral("The baseline moved")),
            qPrintable(view.headlineText()));
        QVERIFY2(view.driftText().contains(QStringLiteral("1.41× slower")), qPrintable(view.driftText()));
        QVERIFY2(view.driftText().contains(QStringLiteral("1 other measure did not move")),
            qPrintable(view.driftText()));

        // The trend: the interval criterion drawn over the three attempts; the count one counted.
        QCOMPARE(view.trendChart()->criterionIds(), QStringList {QStringLiteral("ttft")});
        QCOMPARE(view.trendChart()->lookCount(), 3);
        QCOMPARE(view.trendChart()->undrawnCount(), 1);
        QVERIFY(view.trendChart()->legendTexts().contains(QStringLiteral("x: attempts in time order")));

        // Each column wide enough for its header at the default size: nothing is off-screen.
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        int width = 0;
        for (int col = 0; col < t->columnCount(); ++col)
            width += t->columnWidth(col);
        QVERIFY2(width <= t->viewport()->width(), qPrintable(QString::number(width)));
    }

    void theBestIsSelectedAndARowOpensItsAttempt()
    {
        CampaignView view;
        view.resize(1600, 1000);
        view.setCampaign(threeAttempts());
        QCOMPARE(view.selectedAttempt(), 2);
        QVERIFY2(view.detailsText().contains(QStringLiteral("Changed: quantization: NVFP4 → NVFP4-MLP")),
            qPrintable(view.detailsText()));
        view.selectAttempt(0);
        QVERIFY2(
            view.detailsText().contains(QStringLiteral("No thinking leaks: 9 of 32 answers leaked thinking")),
            qPrintable(view.detailsText()));
        QVERIFY(view.detailsText().contains(QStringLiteral("First attempt.")));

        QSignalSpy spy(&view, &CampaignView::attemptActivated);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QTableWidget* t = view.table();
        const QRect cell = t->visualRect(t->model()->index(1, 2));
        // A double-click as a mouse makes it: press, release, press, double-click, release.
        QTest::mouseClick(t->viewport(), Qt::LeftButton, {}, cell.center());
        QTest::mouseDClick(t->viewport(), Qt::LeftButton, {}, cell.center());
        QCOMPARE(spy.count(), 1);
        QCOMPARE(spy.at(0).at(0).toInt(), 1);
        QCOMPARE(spy.at(0).at(1).toString(), QStringLiteral("/runs/attempt2.json"));
        QCOMPARE(spy.at(0).at(2).toInt(), 1);
    }

    void emptyAndDark()
    {
        CampaignView view;
        QCOMPARE(view.table()->rowCount(), 0);
        QVERIFY(view.headlineText().contains(QStringLiteral("Open Campaign")));
        view.setCampaign(threeAttempts());
        view.setTheme(Theme::Dark);
        QCOMPARE(view.table()->item(2, 3)->background().color(),
            decisionColors(Recommendation::Decision::Switch, Theme::Dark).background);
        view.setCampaign(nullptr);
        QCOMPARE(view.table()->rowCount(), 0);
    }
};

QTEST_MAIN(TestCampaignView)
#include "tst_campaign_view.moc"
