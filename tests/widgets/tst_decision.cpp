// SPDX-License-Identifier: MIT
// The Decision view: the same verdict as recommend() (and so as `quantscope report`) for every
// fixture and built-in profile; each outcome and decision shown and coloured; criteria that need
// the paired comparison "open" before it exists; a live run provisional; the profile and
// candidate pickers; no file opened by the view.
#include "WidgetTestSupport.h"
#include "model/decide/Recommendation.h"
#include "model/decide/VerdictSummary.h"
#include "widgets/ScreenshotRenderer.h"
#include "widgets/decision/DecisionView.h"
#include "widgets/decision/VerdictBanner.h"
#include "widgets/responses/SafeTextView.h"

#include <QApplication>
#include <QComboBox>
#include <QDir>
#include <QLabel>
#include <QPushButton>
#include <QScrollBar>
#include <QSignalSpy>
#include <QStyleFactory>
#include <QTableWidget>
#include <QTest>

using namespace qs;

namespace {

const QStringList kFixtures {QStringLiteral("voice-sim.json"), QStringLiteral("scenario-fair-switch.json"),
    QStringLiteral("scenario-broken-manners.json"), QStringLiteral("scenario-base-garbled.json")};

/// A profile from its file form, as the app would load it (loadDecisionProfileFile).
DecisionProfile profileOf(const char* id, nlohmann::json criteria)
{
    return parseDecisionProfile(nlohmann::json {{"id", id}, {"name", id}, {"criteria", std::move(criteria)}},
        QString::fromLatin1(id) + QStringLiteral(".json"));
}

nlohmann::json metricMax(const char* id, double max)
{
    return {{"id", id}, {"title", id}, {"metric", "ttft_visible_ms"}, {"max", max}};
}

QString outcomeCell(const DecisionView& view, int row)
{
    return view.criteriaTable()->item(row, DecisionView::OutcomeColumn)->text();
}

} // namespace

class TestDecision : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion"))); }

    void sameVerdictAsRecommend_data()
    {
        QTest::addColumn<QString>("fixture");
        QTest::addColumn<QString>("profile");
        for (const QString& f : kFixtures)
            for (const QString& p : builtinDecisionProfileNames())
                QTest::newRow(qPrintable(f + u' ' + p)) << f << p;
    }

    void sameVerdictAsRecommend()
    {
        // What `quantscope report FILE --profile P` does: evaluate with the comparison, recommend.
        QFETCH(QString, fixture);
        QFETCH(QString, profile);
        const auto result = test::loadFixture(fixture);
        const DecisionProfile p = loadDecisionProfile(profile);
        const Evaluation evaluation = evaluate(*result, 0);
        const std::vector<Recommendation> expected = recommend(*result, evaluation, p);
        QCOMPARE(int(expected.size()), 1);

        DecisionView view;
        view.setData(prepareDashboard(result, 0));
        QVERIFY(view.selectProfile(profile));
        const Recommendation* shown = view.recommendation();
        QVERIFY(shown);
        QCOMPARE(shown->decision, expected[0].decision);
        QCOMPARE(view.headline(), expected[0].headline);
        QCOMPARE(view.decisionLabel(), decisionTitle(expected[0].decision));
        QCOMPARE(shown->whatWouldChange, expected[0].whatWouldChange);
        QVERIFY(!view.isProvisional());
        QCOMPARE(view.criteriaTable()->rowCount(), int(expected[0].criteria.size()));
        for (int i = 0; i < int(expected[0].criteria.size()); ++i) {
            const CriterionResult& c = expected[0].criteria[std::size_t(i)];
            // With the comparison there is nothing "open": the row reads recommend()'s outcome.
            QCOMPARE(outcomeCell(view, i).replace(u' ', u'_'), outcomeId(c.outcome));
            QCOMPARE(view.criteriaTable()->item(i, DecisionView::CriterionColumn)->text(), c.criterion.title);
            QCOMPARE(view.criteriaTable()->item(i, DecisionView::RequiredColumn)->text(), c.required);
            QCOMPARE(view.criteriaTable()->item(i, DecisionView::MeasuredColumn)->text(), c.measured);
            QCOMPARE(view.criteriaTable()->item(i, DecisionView::WhyColumn)->text(), c.explanation);
        }
    }

    void judgedCriteriaReadTheJudge()
    {
        // Without a judge the voice-assistant profile's judge criteria read "not measured"…
        auto result = std::make_shared<RunResult>(*test::loadFixture());
        DecisionView view;
        view.setData(prepareDashboard(result, 0));
        int pairwiseRow = -1;
        const Recommendation* rec = view.recommendation();
        for (int i = 0; i < int(rec->criteria.size()); ++i)
            if (rec->criteria[std::size_t(i)].criterion.kind == Criterion::Kind::JudgePairwiseNotWorse)
                pairwiseRow = i;
        QVERIFY(pairwiseRow >= 0);
        QCOMPARE(outcomeCell(view, pairwiseRow), QStringLiteral("not measured"));

        // …and with one that preferred the candidate in both orders of every pair, a pass: the
        // same as recommend() on evaluate(), which fills Evaluation::judged.
        for (const RunRecord& r : result->records) {
            if (r.warmup || r.endpoint != 1 || r.request.failure.isFailure())
                continue;
            for (bool candidateFirst : {true, false}) {
                PairVerdict v;
                v.candidate = 1;
                v.baseline = 0;
                v.test = r.test;
                v.turn = r.turn;
                v.iteration = r.iteration;
                v.candidateFirst = candidateFirst;
                v.pick = candidateFirst ? PairPick::First : PairPick::Second;
                v.reason = QStringLiteral("warmer");
                result->judging.pairVerdicts.push_back(v);
            }
        }
        const DecisionProfile profile = loadDecisionProfile(QStringLiteral("voice-assistant"));
        const std::vector<Recommendation> expected = recommend(*result, evaluate(*result, 0), profile);
        view.setData(prepareDashboard(result, 0));
        QCOMPARE(outcomeCell(view, pairwiseRow), QStringLiteral("pass"));
        QCOMPARE(view.headline(), expected[0].headline);
        for (int i = 0; i < int(expected[0].criteria.size()); ++i)
            QCOMPARE(outcomeCell(view, i).replace(u' ', u'_'),
                outcomeId(expected[0].criteria[std::size_t(i)].outcome));
    }

    void defaultProfileFollowsTheSuiteLikeTheReport()
    {
        DecisionView view;
        view.setData(test::fixtureData());
        QVERIFY(view.currentProfile());
        QCOMPARE(view.currentProfile()->source, QStringLiteral("builtin:voice-assistant"));
        QCOMPARE(view.profileBox()->count(), int(builtinDecisionProfileNames().size()));
        // One candidate: nothing to pick, the headline names it.
        QVERIFY(view.candidateBox()->isHidden());
        QCOMPARE(view.currentCandidate(), 1);
    }

    void eachDecisionAndOutcomeIsShown()
    {
        const DashboardData data = test::fixtureData();
        DecisionView view;
        view.setData(data);
        const ThemeColors& c = themeColors(Theme::Light);

        // Every criterion met → Switch.
        view.addProfile(profileOf("easy", nlohmann::json::array({metricMax("fast", 1e9)})));
        QCOMPARE(view.currentProfile()->id, QStringLiteral("easy"));
        QCOMPARE(view.decisionLabel(), QStringLiteral("Switch"));
        QCOMPARE(outcomeCell(view, 0), QStringLiteral("pass"));
        QCOMPARE(view.criteriaTable()->item(0, DecisionView::OutcomeColumn)->background().color(),
            c.passBackground);

        // One failed → Keep baseline.
        view.addProfile(
            profileOf("hard", nlohmann::json::array({metricMax("fast", 1e9), metricMax("instant", 0.001)})));
        QCOMPARE(view.decisionLabel(), QStringLiteral("Keep baseline"));
        QCOMPARE(view.recommendation()->decision, Recommendation::Decision::KeepBaseline);
        QCOMPARE(outcomeCell(view, 1), QStringLiteral("fail"));
        QCOMPARE(view.criteriaTable()->item(1, DecisionView::OutcomeColumn)->background().color(),
            c.failBackground);
        QVERIFY(view.findChild<SafeTextView*>(QStringLiteral("whatWouldChange"))
                    ->toPlainText()
                    .startsWith(u"• "));

        // Three pairs per test are too few to compare → inconclusive.
        view.addProfile(profileOf("few",
            nlohmann::json::array({metricMax("fast", 1e9),
                {{"id", "not_worse"}, {"title", "not worse"}, {"metric", "ttft_visible_ms"},
                    {"not_worse_than_baseline", true}, {"test", "factual"}}})));
        QCOMPARE(view.decisionLabel(), QStringLiteral("Inconclusive"));
        QCOMPARE(outcomeCell(view, 1), QStringLiteral("inconclusive"));

        // No telemetry in the fixture: an optional resource budget is "not measured", never a pass.
        view.addProfile(profileOf("memory",
            nlohmann::json::array({metricMax("fast", 1e9),
                {{"id", "mem"}, {"title", "memory"}, {"resource", "peak_memory"}, {"max", 100},
                    {"unit", "GB"}, {"optional", true}}})));
        QCOMPARE(outcomeCell(view, 1), QStringLiteral("not measured"));
        QCOMPARE(view.shownOutcomes()[1], ShownOutcome::NotMeasured);
        QVERIFY(view.headline().contains(u"not measured"));
        QCOMPARE(view.profileBox()->count(), int(builtinDecisionProfileNames().size()) + 4);

        // Adding a profile from the same source replaces it.
        view.addProfile(profileOf("memory", nlohmann::json::array({metricMax("fast", 1e9)})));
        QCOMPARE(view.profileBox()->count(), int(builtinDecisionProfileNames().size()) + 4);
        QCOMPARE(view.criteriaTable()->rowCount(), 1);
    }

    void comparisonCriteriaAreOpenUntilTheComparisonExists()
    {
        // The first, fast pass: medians without the bootstrap.
        DashboardData fast = prepareDashboard(test::loadFixture(), 0, false);
        QVERIFY(!fast.evaluation->hasComparison);
        DecisionView view;
        view.setData(fast);
        QVERIFY(view.selectProfile(QStringLiteral("voice-assistant")));
        const Recommendation* rec = view.recommendation();
        QVERIFY(rec);
        QVERIFY(view.isProvisional());
        QVERIFY(view.provisionalText().contains(u"computing the paired comparison"));
        int open = 0;
        for (int i = 0; i < int(rec->criteria.size()); ++i) {
            const Criterion& c = rec->criteria[std::size_t(i)].criterion;
            const bool paired
                = c.kind == Criterion::Kind::MetricNotWorse || c.kind == Criterion::Kind::GateNotWorse;
            if (paired) {
                QCOMPARE(outcomeCell(view, i), QStringLiteral("open"));
                QVERIFY(view.criteriaTable()->item(i, DecisionView::WhyColumn)->text().startsWith(u"Open"));
                ++open;
            } else {
                QCOMPARE(outcomeCell(view, i).replace(u' ', u'_'),
                    outcomeId(rec->criteria[std::size_t(i)].outcome));
            }
        }
        QVERIFY(open >= 2);

        // The second pass brings the comparison: nothing open, nothing provisional.
        view.setData(test::fixtureData());
        QVERIFY(!view.isProvisional());
        for (ShownOutcome o : view.shownOutcomes())
            QVERIFY(o != ShownOutcome::Open);
    }

    void liveRunIsProvisional()
    {
        DashboardData live = test::fixtureData();
        live.live = true;
        DecisionView view;
        view.setData(live);
        QVERIFY(view.recommendation());
        QVERIFY(view.isProvisional());
        QVERIFY(view.provisionalText().contains(u"run in progress"));
        const QLabel* label = view.findChild<QLabel*>(QStringLiteral("provisional"));
        QVERIFY(label && !label->isHidden());

        // A refresh ahead of its evaluation keeps the verdict shown.
        DashboardData unevaluated = live;
        unevaluated.evaluation.reset();
        unevaluated.result = std::make_shared<const RunResult>(*live.result);
        view.setData(unevaluated);
        QVERIFY(view.recommendation());
        QVERIFY(view.isProvisional());

        // The run ends: the same data, final.
        live.live = false;
        view.setData(live);
        QVERIFY(!view.isProvisional());

        // An empty live run says it waits.
        DashboardData empty;
        empty.live = true;
        view.setData(empty);
        QVERIFY(!view.recommendation());
        QVERIFY(view.statusText().contains(u"Waiting"));
    }

    void refreshKeepsProfileAndCandidate()
    {
        // Two files combined: four endpoints, three candidates against the baseline.
        RunResult combined = combineResults({{QStringLiteral("a"), *test::loadFixture()},
            {QStringLiteral("b"), *test::loadFixture(QStringLiteral("scenario-fair-switch.json"))}});
        auto result = std::make_shared<const RunResult>(std::move(combined));
        DecisionView view;
        view.setData(prepareDashboard(result, 0));
        QVERIFY(!view.candidateBox()->isHidden());
        QCOMPARE(view.candidateBox()->count(), 3);
        QVERIFY(view.selectProfile(QStringLiteral("throughput")));
        QVERIFY(view.selectCandidate(3));
        QVERIFY(!view.selectCandidate(0)); // the baseline is no candidate
        const std::vector<Recommendation> expected
            = recommend(*result, evaluate(*result, 0), loadDecisionProfile(QStringLiteral("throughput")));
        QCOMPARE(view.currentCandidate(), 3);
        QCOMPARE(view.headline(), expected[2].headline);

        view.setData(prepareDashboard(result, 0)); // a refresh
        QCOMPARE(view.currentCandidate(), 3);
        QCOMPARE(view.currentProfile()->id, QStringLiteral("throughput"));

        // Another baseline: endpoint 0 becomes a candidate, 3 stays selected.
        view.setData(prepareDashboard(result, 1));
        QCOMPARE(view.currentCandidate(), 3);
        QCOMPARE(view.recommendation()->baseline, 1);
    }

    void openProfileIsTheAppsJob()
    {
        DecisionView view;
        QSignalSpy open(&view, &DecisionView::openProfileRequested);
        QSignalSpy changed(&view, &DecisionView::profileChanged);
        view.findChild<QPushButton*>(QStringLiteral("openProfile"))->click();
        QCOMPARE(open.count(), 1);
        QCOMPARE(changed.count(), 0);

        // setProfiles replaces the app's profiles; a vanished selection falls back to the default.
        view.setData(test::fixtureData());
        view.setProfiles({profileOf("one", nlohmann::json::array({metricMax("a", 1)})),
            profileOf("two", nlohmann::json::array({metricMax("b", 1)}))});
        QCOMPARE(view.profileCount(), int(builtinDecisionProfileNames().size()) + 2);
        view.profileBox()->setCurrentIndex(view.profileCount() - 1);
        QCOMPARE(view.currentProfile()->id, QStringLiteral("two"));
        QCOMPARE(changed.count(), 1);
        view.setProfiles({});
        QCOMPARE(view.currentProfile()->id, QStringLiteral("voice-assistant"));
    }

    void emptyAndSingleEndpoint()
    {
        DecisionView view;
        QVERIFY(!view.recommendation());
        QVERIFY(view.statusText().contains(u"No run loaded"));
        QCOMPARE(view.decisionLabel(), QString());

        auto one = std::make_shared<RunResult>(*test::loadFixture());
        one->endpoints.resize(1);
        one->records.erase(std::remove_if(one->records.begin(), one->records.end(),
                               [](const RunRecord& r) { return r.endpoint != 0; }),
            one->records.end());
        view.setData(prepareDashboard(one, 0));
        QVERIFY(!view.recommendation());
        QVERIFY(view.statusText().contains(u"two endpoints"));
    }

    void rendersInBothThemes()
    {
        DecisionView view;
        view.setData(test::fixtureData());
        for (Theme theme : {Theme::Light, Theme::Dark}) {
            view.setTheme(theme);
            view.resize(1100, 700);
            view.show();
            QCoreApplication::processEvents();
            const QImage image = renderWidget(&view, 2);
            QCOMPARE(image.size(), QSize(2200, 1400));
            QVERIFY(test::distinctColours(image, 2) > 40);
            QDir().mkpath(QStringLiteral("/tmp/shots-decision"));
            QCOMPARE(
                savePng(image, QStringLiteral("/tmp/shots-decision/decision-%1.png").arg(themeId(theme))),
                QString());
        }
    }

    /// Issue #26: the verdict in one line with the criteria that decided it, and every column of
    /// every criterion on screen and whole at the size the tab has in the default window.
    void verdictFirstEveryFigureOnScreen()
    {
        const auto data = test::fixtureData();
        DecisionView view;
        view.setData(data);
        QVERIFY(view.selectProfile(QStringLiteral("voice-assistant")));
        const Recommendation* rec = view.recommendation();
        QVERIFY(rec);
        const VerdictSummary summary = summarizeVerdict(*rec);
        QCOMPARE(view.verdictSentence(), summary.sentence);
        QVERIFY(view.verdictSentence().size() < 100); // one line, not the 70-word headline
        QVERIFY(!summary.deciding.empty());
        for (int i : summary.deciding) {
            const CriterionResult& c = rec->criteria[std::size_t(i)];
            QVERIFY2(view.decidingText().contains(c.criterion.title + QStringLiteral(" — ") + c.measured),
                qPrintable(view.decidingText()));
        }
        QCOMPARE(view.banner()->toolTip().contains(QStringLiteral("nvfp4-like")), true); // the full headline

        // The Decision tab in the 1600×1000 window: about 1030 × 760.
        view.resize(1030, 760);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QCoreApplication::processEvents();
        CriteriaTable* table = view.criteriaTable();
        const int viewport = table->viewport()->width();
        QVERIFY(!table->horizontalScrollBar()->isVisible());
        for (int c = 0; c < CriteriaTable::ColumnCount; ++c)
            QVERIFY2(table->columnViewportPosition(c) + table->columnWidth(c) <= viewport,
                qPrintable(QStringLiteral("column %1 ends at %2 of %3")
                               .arg(c)
                               .arg(table->columnViewportPosition(c) + table->columnWidth(c))
                               .arg(viewport)));
        // No cell's wrapped text is cut: each row is as tall as its tallest cell needs.
        const QFontMetrics fm(table->font());
        // The item delegate's text margin on each side (QCommonStyle: focus-frame margin + 1).
        const int margins
            = 2 * (table->style()->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, table) + 1);
        for (int row = 0; row < table->rowCount(); ++row)
            for (int c = 0; c < CriteriaTable::ColumnCount; ++c) {
                const QString text = table->item(row, c)->text();
                const int needed = fm.boundingRect(QRect(0, 0, table->columnWidth(c) - margins, 100000),
                                         Qt::TextWordWrap, text)
                                       .height();
                QVERIFY2(needed <= table->rowHeight(row),
                    qPrintable(QStringLiteral("row %1 column %2 needs %3 px, has %4: %5")
                                   .arg(row)
                                   .arg(c)
                                   .arg(needed)
                                   .arg(table->rowHeight(row))
                                   .arg(text)));
            }
    }

    /// Issue #26: judging re-evaluates the file once a second without the paired comparison; the
    /// criteria already decided must not flash back to "open" in between.
    void reEvaluationWithoutComparisonKeepsTheVerdict()
    {
        DashboardData full = test::fixtureData();
        full.sources = {QStringLiteral("voice-sim.json")};
        DecisionView view;
        view.setData(full);
        const std::vector<ShownOutcome> before = view.shownOutcomes();
        QVERIFY(!view.isProvisional());

        // The same file, its results re-read (a new RunResult, as judging makes one), first pass.
        auto again = std::make_shared<RunResult>(*full.result);
        DashboardData firstPass = prepareDashboard(again, 0, false);
        firstPass.sources = full.sources;
        QVERIFY(!firstPass.evaluation->hasComparison);
        view.setData(firstPass);
        QCOMPARE(view.shownOutcomes(), before);
        QVERIFY(view.isProvisional());
        QVERIFY(view.provisionalText().startsWith(QStringLiteral("Updating")));

        // The comparison arrives: final again.
        DashboardData second = prepareDashboard(again, 0, true);
        second.sources = full.sources;
        view.setData(second);
        QVERIFY(!view.isProvisional());
        QCOMPARE(view.shownOutcomes(), before);

        // Another file is another verdict: its first pass shows "open" as before.
        DashboardData other = prepareDashboard(again, 0, false);
        other.sources = {QStringLiteral("other.json")};
        view.setData(other);
        const auto open = [](const std::vector<ShownOutcome>& v) {
            return std::count(v.begin(), v.end(), ShownOutcome::Open);
        };
        QVERIFY(open(view.shownOutcomes()) > open(before));
    }
};

QTEST_MAIN(TestDecision)
#include "tst_decision.moc"
