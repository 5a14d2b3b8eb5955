// SPDX-License-Identifier: MIT
// The Decision view of an until-decided run: the line under the banner says when and why it
// stopped, and the looks chart draws each criterion's interval at each look for the candidate
// shown; both follow a live run look by look, and an ordinary run shows neither.
//
// QS_LOOKS_SHOTS=DIR also writes the rendered views there as PNGs, and the run as a results
// file (`quantscope screenshot DIR/looks-run.json --view decision`), to look at.
#include "WidgetTestSupport.h"
#include "model/decide/Sequential.h"
#include "widgets/ScreenshotRenderer.h"
#include "widgets/decision/DecisionView.h"
#include "widgets/decision/LooksChart.h"

#include <QApplication>
#include <QDir>
#include <QLabel>
#include <QScrollArea>
#include <QStyleFactory>
#include <QTest>

using namespace qs;
using Outcome = CriterionResult::Outcome;

namespace {

LookCriterion mark(const char* id, Outcome outcome, std::optional<double> estimate = std::nullopt,
    std::optional<Interval> interval = std::nullopt, std::optional<double> limit = std::nullopt,
    bool worseAbove = true)
{
    return {QString::fromLatin1(id), outcome, estimate, interval, limit, worseAbove};
}

/// Look `k` (1-based) of three, 12 distinct prompts a round: the intervals narrow until every
/// criterion passes at the third.
DecisionLook look(int k)
{
    DecisionLook l;
    l.look = k;
    l.prompts = 12 * k;
    l.perCategory = k;
    l.elapsedMs = 60000.0 * k;
    l.share = lookShare(k);
    LookVerdict v;
    v.candidate = 1;
    v.candidateLabel = QStringLiteral("nvfp4-like (simulated)");
    v.decision = k == 3 ? Recommendation::Decision::Switch : Recommendation::Decision::Inconclusive;
    const Outcome inc = Outcome::Inconclusive, pass = Outcome::Pass;
    const Interval tools[] {{0.35, 0.98}, {0.52, 0.93}, {0.63, 0.91}};
    const Interval ttft[] {{80, 135}, {84, 118}, {86, 110}};
    const Interval ratio[] {{0.85, 1.25}, {0.9, 1.12}, {0.93, 1.06}};
    const std::size_t i = std::size_t(k - 1);
    v.criteria = {mark("thinking_leaks", pass), // a count: no interval to draw
        mark("tool_calls", k == 3 ? pass : inc, 0.8, tools[i], 0.6, false),
        mark("ttft_visible", k == 1 ? inc : pass, 95, ttft[i], 120),
        mark("ttft_not_worse", k == 3 ? pass : inc, 0.99, ratio[i], 1.1),
        mark("memory_budget", Outcome::NotMeasured)};
    l.verdicts.push_back(v);
    return l;
}

UntilDecided untilDecided(int looks, StopReason stop, const QString& stopText)
{
    UntilDecided run;
    run.profile = QStringLiteral("voice-assistant");
    run.schedule = {1, 2, 3, 5};
    run.stop = stop;
    run.stopText = stopText;
    for (int k = 1; k <= looks; ++k)
        run.looks.push_back(look(k));
    return run;
}

/// The fixture run, as if it had been made with --until-decided and recorded `run`.
std::shared_ptr<const RunResult> withLooks(const UntilDecided& run)
{
    auto result = std::make_shared<RunResult>(*test::loadFixture());
    result->untilDecided = toJson(run);
    return result;
}

const QString kDecided = QStringLiteral("decided after 36 distinct prompts (look 3)");

} // namespace

class TestDecisionLooks : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion"))); }

    void decidedRunShowsItsLooks()
    {
        DecisionView view;
        view.setData(prepareDashboard(withLooks(untilDecided(3, StopReason::Decided, kDecided)), 0));
        QVERIFY(view.recommendation());
        QCOMPARE(view.looksText(),
            QStringLiteral("Decided after 36 distinct prompts (look 3 of an until-decided run; intervals "
                           "read at 99.58 %)"));
        // recommend() read the same three looks: the verdict under the line is read at that level.
        QCOMPARE(view.recommendation()->looks, 3);
        QCOMPARE(view.recommendation()->errorShare, lookShare(3));

        const LooksChart* chart = view.looksChart();
        QVERIFY(!view.findChild<QScrollArea*>(QStringLiteral("looksArea"))->isHidden());
        QCOMPARE(chart->lookCount(), 3);
        QCOMPARE(chart->lookPrompts(), (std::vector<int> {12, 24, 36}));
        // Those with an interval, in profile order; the count and the unmeasured one are not drawn.
        QCOMPARE(chart->criterionIds(),
            (QStringList {QStringLiteral("tool_calls"), QStringLiteral("ttft_visible"),
                QStringLiteral("ttft_not_worse")}));
        QCOMPARE(chart->undrawnCount(), 2);
        // Under the profile's titles, as the table names them.
        view.resize(1600, 1000);
        view.show();
        QCoreApplication::processEvents();
        const DecisionProfile* profile = view.currentProfile();
        QStringList titles;
        for (const QString& id : chart->criterionIds())
            for (const Criterion& c : profile->criteria)
                if (c.id == id)
                    titles << c.title;
        QCOMPARE(chart->drawnTitles(), titles);
        QVERIFY(chart->readout(QPoint(chart->width() / 6, chart->heightForWidth(chart->width()) - 30))
                    .contains(u"look 3"));

        // The run's own profile is the one shown: nothing to add. Another one names both.
        QVERIFY(!chart->legendTexts().join(u' ').contains(u"judged with"));
        QVERIFY(view.selectProfile(QStringLiteral("throughput")));
        QVERIFY(chart->legendTexts().contains(
            QStringLiteral("the looks were judged with profile voice-assistant, the table with throughput")));
    }

    void undecidedRunsSayWhy()
    {
        DecisionView view;
        view.setData(prepareDashboard(withLooks(untilDecided(3, StopReason::MaxPrompts,
                                          QStringLiteral("undecided after 36 distinct prompts: the "
                                                         "next round would pass --max-prompts 40"))),
            0));
        QCOMPARE(view.looksText(),
            QStringLiteral(
                "Undecided after 36 distinct prompts: the next round would pass --max-prompts 40"));
        QCOMPARE(view.looksChart()->lookCount(), 3);

        // The stop texts' own beginning is not said twice.
        UntilDecided run = untilDecided(3, StopReason::Budget,
            QStringLiteral("undecided after 36 distinct prompts in 3.0 min: the next round (60 prompts in "
                           "all) would end at about 5.0 min, past the --budget-minutes 4"));
        QCOMPARE(untilDecidedLine(run, false),
            QStringLiteral("Undecided after 36 distinct prompts in 3.0 min: the next round (60 prompts in "
                           "all) would end at about 5.0 min, past the --budget-minutes 4"));
        run.stop = StopReason::PoolExhausted;
        run.stopText = QStringLiteral("undecided after all 36 distinct prompts of the suite");
        QCOMPARE(untilDecidedLine(run, false),
            QStringLiteral("Undecided after all 36 distinct prompts of the suite"));
        run.stop = StopReason::Cancelled;
        run.stopText = QStringLiteral("stopped by hand after 3 look(s)");
        QCOMPARE(untilDecidedLine(run, false),
            QStringLiteral("Undecided after 36 distinct prompts: stopped by hand after 3 look(s)"));
        run.stopText.clear();
        QCOMPARE(
            untilDecidedLine(run, false), QStringLiteral("Undecided after 36 distinct prompts: cancelled"));
    }

    void liveRunGainsALookEachRound()
    {
        DecisionView view;
        DashboardData live = prepareDashboard(withLooks(untilDecided(0, StopReason::Running, {})), 0);
        live.live = true;
        view.setData(live);
        QVERIFY(view.looksText().startsWith(u"Until decided: no look yet — running"));
        QVERIFY(view.findChild<QScrollArea*>(QStringLiteral("looksArea"))->isHidden());

        live.result = withLooks(untilDecided(2, StopReason::Running, {}));
        live = prepareDashboard(live.result, 0);
        live.live = true;
        view.setData(live);
        QCOMPARE(
            view.looksText(), QStringLiteral("Until decided: look 2 after 24 distinct prompts — running"));
        QCOMPARE(view.looksChart()->lookCount(), 2);
        QVERIFY(!view.findChild<QScrollArea*>(QStringLiteral("looksArea"))->isHidden());
        // The records so far will be judged at the third look: the provisional verdict reads them so.
        QVERIFY(view.recommendation());
        QCOMPARE(view.recommendation()->looks, 3);

        // The next round lands before its evaluation: the verdict stays, the new look shows at once.
        DashboardData unevaluated;
        unevaluated.result = withLooks(untilDecided(3, StopReason::Decided, kDecided));
        unevaluated.live = true;
        view.setData(unevaluated);
        QVERIFY(view.recommendation());
        QCOMPARE(view.looksChart()->lookCount(), 3);
        QVERIFY(view.looksText().startsWith(u"Decided after 36 distinct prompts"));

        // A journal recovered mid-run: not running any more, and not said why it stopped.
        DashboardData recovered = prepareDashboard(withLooks(untilDecided(2, StopReason::Running, {})), 0);
        view.setData(recovered);
        QCOMPARE(view.recommendation()->looks, 4); // every look its schedule allowed
        QVERIFY(
            view.looksText().startsWith(u"Until decided: look 2 after 24 distinct prompts — the run ended"));
    }

    void anotherBaselineHasNoLooksToShow()
    {
        // The looks judged the run's first endpoint as the baseline; with the other one picked,
        // drawing them under its verdict would mislead.
        DecisionView view;
        view.setData(prepareDashboard(withLooks(untilDecided(3, StopReason::Decided, kDecided)), 1));
        QVERIFY(view.looksChart()->isEmpty());
        QVERIFY(view.findChild<QScrollArea*>(QStringLiteral("looksArea"))->isHidden());
        QVERIFY2(view.looksText().contains(QStringLiteral("its looks were judged against")),
            qPrintable(view.looksText()));
    }

    void ordinaryRunShowsNeither()
    {
        DecisionView view;
        view.setData(prepareDashboard(withLooks(untilDecided(3, StopReason::Decided, kDecided)), 0));
        QVERIFY(!view.looksText().isEmpty());
        view.setData(test::fixtureData()); // the same run, of a fixed size
        QCOMPARE(view.looksText(), QString());
        QVERIFY(view.findChild<QLabel*>(QStringLiteral("looksLine"))->isHidden());
        QVERIFY(view.findChild<QScrollArea*>(QStringLiteral("looksArea"))->isHidden());
        QVERIFY(view.looksChart()->isEmpty());
        QCOMPARE(view.recommendation()->looks, 0);
    }

    void titlesFitAndTheViewRenders()
    {
        const auto result = withLooks(untilDecided(3, StopReason::Decided, kDecided));
        const QString shots = qEnvironmentVariable("QS_LOOKS_SHOTS");
        if (!shots.isEmpty()) {
            QDir().mkpath(shots);
            saveResults(*result, shots + QStringLiteral("/looks-run.json"));
        }
        DecisionView view;
        view.setData(prepareDashboard(result, 0));
        for (const QSize size : {QSize(1600, 1000), QSize(1100, 700)})
            for (Theme theme : {Theme::Light, Theme::Dark}) {
                view.setTheme(theme);
                view.resize(size);
                view.show();
                QCoreApplication::processEvents();
                const QImage image = renderWidget(&view, 1);
                QCOMPARE(image.size(), size);
                QVERIFY(test::distinctColours(image, 2) > 40);
                LooksChart* chart = view.looksChart();
                QVERIFY(chart->isVisible());
                QVERIFY(chart->height() >= chart->heightForWidth(chart->width()));
                const QImage plot = chart->grab().toImage();
                QVERIFY(test::distinctColours(plot, 1) > 20);
                for (const QString& title : chart->drawnTitles())
                    QVERIFY2(!title.endsWith(u'…'), qPrintable(title));
                if (!shots.isEmpty())
                    QCOMPARE(savePng(renderWidget(&view, 2),
                                 shots
                                     + QStringLiteral("/looks-%1-%2.png")
                                           .arg(QString::number(size.width()), themeId(theme))),
                        QString());
            }
    }
};

QTEST_MAIN(TestDecisionLooks)
#include "tst_decision_looks.moc"
