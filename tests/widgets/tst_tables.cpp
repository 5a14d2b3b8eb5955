// SPDX-License-Identifier: MIT
// Quality matrix, statistics tables and guardrail banner, populated from the simulated fixture.
#include "WidgetTestSupport.h"
#include "model/gates/QualityGates.h"
#include "widgets/ScreenshotRenderer.h"
#include "widgets/tables/CellStatisticsModel.h"
#include "widgets/tables/ComparisonModel.h"
#include "widgets/tables/FrozenTableView.h"
#include "widgets/tables/GuardrailBanner.h"
#include "widgets/tables/QualityMatrixView.h"
#include "widgets/tables/StatisticsView.h"
#include "widgets/tables/TableText.h"

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QFrame>
#include <QHeaderView>
#include <QImage>
#include <QLabel>
#include <QScrollArea>
#include <QScrollBar>
#include <QSet>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTableWidget>
#include <QTest>
#include <QToolButton>
#include <QVBoxLayout>

using namespace qs;

namespace {

const DashboardData& fixture()
{
    static const DashboardData data = test::fixtureData();
    return data;
}

int rowOf(QTableWidget* table, const QString& label)
{
    for (int row = 0; row < table->rowCount(); ++row)
        if (table->verticalHeaderItem(row) && table->verticalHeaderItem(row)->text() == label)
            return row;
    return -1;
}

const CellStatistics* findCell(int endpoint, const QString& test, int turn = 0)
{
    for (const CellStatistics& c : fixture().evaluation->cells)
        if (c.endpoint == endpoint && c.test == test && c.turn == turn)
            return &c;
    return nullptr;
}

std::pair<int, int> allGates(const std::map<QString, std::pair<int, int>>& gates)
{
    std::pair<int, int> sum {0, 0};
    for (const auto& [gate, count] : gates) {
        sum.first += count.first;
        sum.second += count.second;
    }
    return sum;
}

/// Renders at 2× into /tmp/shots-tables and checks the picture is not blank.
void shoot(QWidget* widget, QSize size, const QString& name)
{
    widget->resize(size);
    widget->show();
    QCoreApplication::processEvents();
    const QImage image = renderWidget(widget, 2);
    QCOMPARE(image.size(), size * 2);
    QVERIFY2(test::distinctColours(image) > 12, qPrintable(name));
    QDir().mkpath(QStringLiteral("/tmp/shots-tables"));
    QCOMPARE(savePng(image, QStringLiteral("/tmp/shots-tables/") + name + QStringLiteral(".png")), QString());
}

QLabel* labelNamed(QWidget* parent, const QString& name)
{
    return parent->findChild<QLabel*>(name);
}

} // namespace

class TestTables : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        QApplication::setStyle(QStringLiteral("Fusion"));
        QVERIFY(fixture().evaluation && fixture().evaluation->hasComparison);
    }

    // ---- formats -------------------------------------------------------------------------

    void selectedRowsAndTextAreReadableInBothThemes()
    {
        // WCAG AA (4.5:1) for the palette every table uses; the dark selection gave white text
        // 2.6:1 before it was deepened.
        for (const Theme theme : {Theme::Light, Theme::Dark}) {
            const QPalette p = themePalette(theme);
            const double selected
                = contrastRatio(p.color(QPalette::Highlight), p.color(QPalette::HighlightedText));
            QVERIFY2(selected >= 4.5,
                qPrintable(QStringLiteral("%1: selection %2:1").arg(themeId(theme)).arg(selected)));
            QVERIFY(contrastRatio(p.color(QPalette::Base), p.color(QPalette::Text)) >= 4.5);
            QVERIFY(contrastRatio(p.color(QPalette::Window), p.color(QPalette::WindowText)) >= 4.5);
        }
        QCOMPARE(contrastRatio(Qt::black, Qt::white), 21.0);
        QCOMPARE(contrastRatio(Qt::white, Qt::white), 1.0);
    }

    void numbersAreFormattedForTheirUnit()
    {
        QCOMPARE(formatMetricValue(312.46, Metric::TtftAny), QStringLiteral("312"));
        QCOMPARE(formatMetricValue(95.26, Metric::TtftAny), QStringLiteral("95.3"));
        QCOMPARE(formatMetricValue(-12.34, Metric::E2e), QStringLiteral("−12.3"));
        QCOMPARE(formatMetricValue(38.04, Metric::DecodeTps), QStringLiteral("38.0"));
        QCOMPARE(formatMetricValue(41, Metric::CompletionTokens), QStringLiteral("41"));
        QCOMPARE(formatMetricValue(41.5, Metric::CompletionTokens), QStringLiteral("41.5"));
        QCOMPARE(formatPValue(0.0625), QStringLiteral("0.063"));
        QCOMPARE(formatPValue(0.00031), QStringLiteral("0.00031"));
        QCOMPARE(formatPValue(1e-7), QStringLiteral("< 0.0001"));
        QCOMPARE(formatPValue(1), QStringLiteral("1"));
        QCOMPARE(gateTitle(QStringLiteral("no_thinking_leak")), QStringLiteral("No thinking leak"));
        QCOMPARE(verdictText(Verdict::BaselineBetter), QStringLiteral("Candidate worse"));
    }

    // ---- quality matrix ------------------------------------------------------------------

    void qualityMatrixCountsEveryCell()
    {
        QualityMatrixView view;
        view.setData(fixture());
        QTableWidget* t = view.table();
        const RunResult& run = *fixture().result;
        QCOMPARE(t->columnCount(), 2);
        QCOMPARE(t->horizontalHeaderItem(0)->text(), endpointTitle(run, 0));
        QCOMPARE(t->horizontalHeaderItem(1)->text(), endpointTitle(run, 1));
        QCOMPARE(t->rowCount(), 9); // "All tests" + 8 tests
        QCOMPARE(t->verticalHeaderItem(0)->text(), QStringLiteral("All tests"));

        // All gates together: every all-turns cell reads its gates' sum, and "All tests" the total.
        std::pair<int, int> total[2] = {{0, 0}, {0, 0}};
        int checked = 0;
        for (const CellStatistics& c : fixture().evaluation->cells) {
            if (c.turn != 0)
                continue;
            const int row = rowOf(t, c.test);
            QVERIFY(row > 0);
            QCOMPARE(t->item(row, c.endpoint)->text(), gateCount(allGates(c.gates)));
            total[c.endpoint].first += allGates(c.gates).first;
            total[c.endpoint].second += allGates(c.gates).second;
            ++checked;
        }
        QCOMPARE(checked, 16);
        QCOMPARE(t->item(0, 0)->text(), gateCount(total[0]));
        QCOMPARE(t->item(0, 1)->text(), gateCount(total[1]));
        QVERIFY(total[1].first < total[1].second); // nvfp4-like fails some gates

        // One gate: each cell equals the Evaluation's gateCount.
        view.setGate(QStringLiteral("no_markdown"));
        QCOMPARE(view.gate(), QStringLiteral("no_markdown"));
        for (const CellStatistics& c : fixture().evaluation->cells)
            if (c.turn == 0 && c.gates.count(QStringLiteral("no_markdown")))
                QCOMPARE(t->item(rowOf(t, c.test), c.endpoint)->text(),
                    gateCount(c.gates.at(QStringLiteral("no_markdown"))));
    }

    void qualityMatrixColoursByPassRate()
    {
        QualityMatrixView view;
        view.setData(fixture());
        view.setGate(QStringLiteral("no_markdown"));
        QTableWidget* t = view.table();
        const ThemeColors& c = themeColors(Theme::Light);
        const int greeting = rowOf(t, QStringLiteral("greeting"));
        QCOMPARE(gateCount(findCell(1, QStringLiteral("greeting"))->gates.at(QStringLiteral("no_markdown"))),
            QStringLiteral("0/3"));
        QCOMPARE(t->item(greeting, 1)->text(), QStringLiteral("0/3"));
        QCOMPARE(t->item(greeting, 1)->background().color(), c.failBackground);
        QCOMPARE(t->item(greeting, 0)->text(), QStringLiteral("3/3"));
        QCOMPARE(t->item(greeting, 0)->background().color(), c.passBackground);
        const int multi = rowOf(t, QStringLiteral("multi-turn-5"));
        QCOMPARE(t->item(multi, 1)->text(), QStringLiteral("6/15"));
        QCOMPARE(t->item(multi, 1)->background().color(), c.partialBackground);
        // tool-web has no visible text on q4km-like (a tool call): nothing to judge for markdown.
        const int tool = rowOf(t, QStringLiteral("tool-web"));
        QCOMPARE(t->item(tool, 0)->text(), QStringLiteral("0/0"));
        QCOMPARE(t->item(tool, 0)->background().color(), c.notApplicable);

        view.setTheme(Theme::Dark);
        QCOMPARE(t->item(greeting, 1)->background().color(), themeColors(Theme::Dark).failBackground);
    }

    void qualityMatrixToolTipExplainsFailures()
    {
        QualityMatrixView view;
        view.setData(fixture());
        QTableWidget* t = view.table();
        const QString tip = t->item(rowOf(t, QStringLiteral("greeting")), 1)->toolTip();
        // Every gate with its count, the most common failure kind (2 bold, 1 heading) and an example.
        for (const QString& gate : gateNames())
            QVERIFY2(tip.contains(gateTitle(gate)), qPrintable(gate));
        QVERIFY(tip.contains(QStringLiteral("most often bold (2 of 3): bold")));
        QVERIFY(tip.contains(QStringLiteral("No markdown&nbsp;&nbsp;</td><td align='right'><b>0/3</b>")));
        QVERIFY(tip.contains(QStringLiteral("words, target")));
        // The pooled row pools the reasons of every test: 19 markdown failures, 6 of them bold.
        const QString all = t->item(0, 1)->toolTip();
        QVERIFY(all.contains(QStringLiteral("all tests")));
        QVERIFY2(all.contains(QStringLiteral("most often bold (6 of 19)")),
            qPrintable(all)); // a 6–6 tie with heading
        QVERIFY(all.contains(QStringLiteral("most often leaked into text (3 of 4)")));
        // A clean endpoint's cell names no failure.
        QVERIFY(!t->item(rowOf(t, QStringLiteral("greeting")), 0)
                     ->toolTip()
                     .contains(QStringLiteral("most often")));
    }

    void qualityMatrixGatePickerHasReadableNames()
    {
        QualityMatrixView view;
        auto* box = view.findChild<QComboBox*>(QStringLiteral("gatePicker"));
        QVERIFY(box);
        QCOMPARE(box->count(), int(gateNames().size()) + 1);
        QCOMPARE(box->itemText(0), QStringLiteral("All gates"));
        QStringList names;
        for (int i = 1; i < box->count(); ++i)
            names << box->itemText(i);
        QVERIFY(names.contains(QStringLiteral("No markdown")));
        QVERIFY(names.contains(QStringLiteral("No thinking leak")));
        QVERIFY(names.contains(QStringLiteral("Tool call")));
        box->setCurrentIndex(box->findData(QStringLiteral("tool_call")));
        QCOMPARE(view.gate(), QStringLiteral("tool_call"));
        QVERIFY(labelNamed(&view, QStringLiteral("gateDescription"))->text().contains(u"tool channel"));
    }

    void qualityMatrixKeepsSelectionAndGate()
    {
        QualityMatrixView view;
        view.setData(fixture());
        view.setGate(QStringLiteral("no_thinking_leak"));
        view.table()->setCurrentCell(3, 1);
        const QString before = view.table()->item(3, 1)->text();
        view.setData(test::fixtureData()); // a refresh: new evaluation, same cells
        QCOMPARE(view.table()->currentRow(), 3);
        QCOMPARE(view.table()->currentColumn(), 1);
        QCOMPARE(view.gate(), QStringLiteral("no_thinking_leak"));
        QCOMPARE(view.table()->item(3, 1)->text(), before);
    }

    void qualityMatrixEmpty()
    {
        QualityMatrixView view;
        view.setData(fixture());
        view.setData(DashboardData {});
        QCOMPARE(view.table()->rowCount(), 0);
        QCOMPARE(view.table()->columnCount(), 0);
        view.setGate(QStringLiteral("coherent")); // no crash without data
    }

    // ---- statistics ----------------------------------------------------------------------

    void cellTableShowsEvaluationDistributions()
    {
        StatisticsView view;
        QCOMPARE(view.shownMetric(), Metric::TtftVisible); // not TTFT (any token): it counts thinking
        view.setData(fixture());
        auto* model = qobject_cast<CellStatisticsModel*>(
            qobject_cast<QSortFilterProxyModel*>(view.cellTable()->model())->sourceModel());
        QVERIFY(model);
        const auto& cells = fixture().evaluation->cells;
        QCOMPARE(model->rowCount(), int(cells.size()));
        for (Metric metric : {Metric::TtftAny, Metric::DecodeTps}) {
            view.setMetric(metric);
            QCOMPARE(view.shownMetric(), metric);
            QVERIFY(model->headerData(CellStatisticsModel::P50, Qt::Horizontal)
                        .toString()
                        .endsWith(metricUnit(metric)));
            for (int row = 0; row < model->rowCount(); ++row) {
                const Distribution& d = cells[std::size_t(row)].metrics.at(metricId(metric));
                QCOMPARE(model->index(row, CellStatisticsModel::P50)
                             .data(CellStatisticsModel::SortRole)
                             .toDouble(),
                    d.p50);
                QCOMPARE(model->index(row, CellStatisticsModel::P50).data().toString(),
                    formatMetricValue(d.p50, metric));
                QCOMPARE(model->index(row, CellStatisticsModel::P99)
                             .data(CellStatisticsModel::SortRole)
                             .toDouble(),
                    d.p99);
                QCOMPARE(model->index(row, CellStatisticsModel::N).data().toInt(), d.n);
            }
        }
        // The numbers the fixture is known for: q4km-like decodes at ~38 tok/s, nvfp4-like at ~20.
        const CellStatistics* q4 = findCell(0, QStringLiteral("greeting"));
        const CellStatistics* nv = findCell(1, QStringLiteral("greeting"));
        QVERIFY(qAbs(q4->metrics.at(QStringLiteral("decode_tps")).p50 - 38) < 6);
        QVERIFY(qAbs(nv->metrics.at(QStringLiteral("decode_tps")).p50 - 20) < 5);
        // Turns of the multi-turn test are their own rows; the all-turns row says "all".
        int turnRows = 0;
        for (int row = 0; row < model->rowCount(); ++row)
            if (model->index(row, CellStatisticsModel::Test).data().toString() == u"multi-turn-5") {
                const QString turn = model->index(row, CellStatisticsModel::Turn).data().toString();
                QVERIFY(turn == u"all" || turn.toInt() >= 1);
                ++turnRows;
            }
        QCOMPARE(turnRows, 2 * 6);
    }

    void cellTableIsSortable()
    {
        StatisticsView view;
        view.setData(fixture());
        QTableView* table = view.cellTable();
        QVERIFY(table->isSortingEnabled());
        table->sortByColumn(CellStatisticsModel::P50, Qt::DescendingOrder);
        double previous = 1e300;
        for (int row = 0; row < table->model()->rowCount(); ++row) {
            const double v = table->model()
                                 ->index(row, CellStatisticsModel::P50)
                                 .data(CellStatisticsModel::SortRole)
                                 .toDouble();
            QVERIFY(v <= previous);
            previous = v;
        }
        // The slowest TTFT is q4km-like's late turn of the conversation (~1.4 s).
        QCOMPARE(table->model()->index(0, CellStatisticsModel::Endpoint).data().toString(),
            endpointTitle(*fixture().result, 0));
        QVERIFY(previous < 200); // and the fastest is nvfp4-like's flat ~95 ms
    }

    void comparisonTableListsEveryRow()
    {
        StatisticsView view;
        view.setData(fixture());
        auto* proxy = qobject_cast<QSortFilterProxyModel*>(view.comparisonTable()->model());
        auto* model = qobject_cast<ComparisonModel*>(proxy->sourceModel());
        QVERIFY(model);
        const auto& arms = fixture().evaluation->comparison.arms;
        QCOMPARE(int(arms.size()), 1);
        const ArmComparison& arm = arms.front();
        QCOMPARE(model->rowCount(), int(arm.metrics.size() + arm.gates.size()));
        QCOMPARE(model->metricRowCount(), int(arm.metrics.size()));

        // The view shows the chosen metric's rows, then the gate rows; the toggle hides the gates.
        int ttftRows = 0;
        for (const MetricComparison& m : arm.metrics)
            ttftRows += m.metric == Metric::TtftAny ? 1 : 0;
        QCOMPARE(proxy->rowCount(), ttftRows + int(arm.gates.size()));
        auto* gates = view.findChild<QCheckBox*>(QStringLiteral("gatesToggle"));
        gates->setChecked(false);
        QCOMPARE(proxy->rowCount(), ttftRows);
        view.setMetric(Metric::E2e);
        int e2eRows = 0;
        for (const MetricComparison& m : arm.metrics)
            e2eRows += m.metric == Metric::E2e ? 1 : 0;
        QCOMPARE(proxy->rowCount(), e2eRows);
        view.setGatesShown(true);
        QCOMPARE(proxy->rowCount(), e2eRows + int(arm.gates.size()));

        // Every metric row carries the Evaluation's numbers, words and colours.
        const ThemeColors& c = themeColors(Theme::Light);
        int better = 0, worse = 0;
        for (int row = 0; row < model->metricRowCount(); ++row) {
            const MetricComparison& m = arm.metrics[std::size_t(row)];
            QCOMPARE(model->metricRow(row), &m);
            auto cell = [&](int column, int role = Qt::DisplayRole) {
                return model->index(row, column).data(role);
            };
            QCOMPARE(cell(ComparisonModel::Test).toString(),
                m.test.isEmpty() ? QStringLiteral("all tests") : m.test);
            QCOMPARE(cell(ComparisonModel::Pairs).toInt(), m.pairs);
            QCOMPARE(cell(ComparisonModel::Baseline, ComparisonModel::SortRole).toDouble(), m.baselineMedian);
            QCOMPARE(cell(ComparisonModel::Candidate).toString(),
                formatMetricWithUnit(m.candidateMedian, m.metric));
            QCOMPARE(cell(ComparisonModel::VerdictColumn).toString(), verdictText(m.verdict));
            QCOMPARE(cell(ComparisonModel::Measure, Qt::ToolTipRole).toString(), m.sentence);
            const QColor background
                = cell(ComparisonModel::VerdictColumn, Qt::BackgroundRole).value<QColor>();
            if (m.verdict == Verdict::CandidateBetter) {
                QCOMPARE(background, c.passBackground);
                ++better;
            } else if (m.verdict == Verdict::BaselineBetter) {
                QCOMPARE(background, c.failBackground);
                ++worse;
            } else {
                QCOMPARE(background, c.notApplicable);
            }
            if (m.ratio && m.ratioCi) {
                const QString ratio = cell(ComparisonModel::Ratio).toString();
                QVERIFY2(ratio.contains(QLatin1Char('[')) && ratio.contains(u"×"), qPrintable(ratio));
            }
            QCOMPARE(cell(ComparisonModel::Winner).toString(),
                m.winner >= 0 ? endpointTitle(*fixture().result, m.winner) : QStringLiteral("—"));
        }
        // nvfp4-like starts faster (TTFT) and decodes slower: both colours occur.
        QVERIFY(better > 0);
        QVERIFY(worse > 0);

        // Gate rows: rates, McNemar p, the verdict.
        for (int i = 0; i < int(arm.gates.size()); ++i) {
            const int row = model->metricRowCount() + i;
            const GateComparison& g = arm.gates[std::size_t(i)];
            QCOMPARE(model->gateRow(row), &g);
            QCOMPARE(model->index(row, ComparisonModel::Measure).data().toString(),
                QStringLiteral("Gate: ") + gateTitle(g.gate));
            QCOMPARE(model->index(row, ComparisonModel::PValue).data().toString(), formatPValue(g.mcnemarP));
            QCOMPARE(
                model->index(row, ComparisonModel::VerdictColumn).data().toString(), verdictText(g.verdict));
            QCOMPARE(model->index(row, ComparisonModel::Measure).data(ComparisonModel::KindRole).toString(),
                QStringLiteral("gate"));
        }
        // One arm: its names are in the title, not in a column.
        QVERIFY(view.comparisonTable()->isColumnHidden(ComparisonModel::Arms));
        QVERIFY(labelNamed(&view, QStringLiteral("comparisonStatus"))->isHidden());
    }

    void comparisonWaitsForIntervals()
    {
        StatisticsView view;
        view.setData(prepareDashboard(test::loadFixture(), 0, false));
        QCOMPARE(labelNamed(&view, QStringLiteral("comparisonStatus"))->text(),
            QStringLiteral("Computing paired intervals…"));
        QVERIFY(!labelNamed(&view, QStringLiteral("comparisonStatus"))->isHidden());
        QVERIFY(view.comparisonTable()->isHidden());
        QCOMPARE(view.comparisonTable()->model()->rowCount(), 0);
        QVERIFY(view.cellTable()->model()->rowCount() > 0); // medians come first
        view.setData(fixture());
        QVERIFY(!view.comparisonTable()->isHidden());
        QVERIFY(labelNamed(&view, QStringLiteral("comparisonStatus"))->isHidden());
    }

    void statisticsKeepsSelectionSortAndMetric()
    {
        StatisticsView view;
        view.setData(fixture());
        view.setMetric(Metric::FirstSentence);
        QTableView* cells = view.cellTable();
        cells->sortByColumn(CellStatisticsModel::P90, Qt::AscendingOrder);
        cells->selectRow(4);
        const QString endpoint = cells->model()->index(4, CellStatisticsModel::Endpoint).data().toString();
        const QString testId = cells->model()->index(4, CellStatisticsModel::Test).data().toString();
        const QString turn = cells->model()->index(4, CellStatisticsModel::Turn).data().toString();
        QTableView* comparison = view.comparisonTable();
        comparison->selectRow(2);
        const QString comparisonTest = comparison->model()->index(2, ComparisonModel::Test).data().toString();

        view.setData(test::fixtureData()); // a refresh with a freshly computed evaluation
        QCOMPARE(view.shownMetric(), Metric::FirstSentence);
        QCOMPARE(cells->horizontalHeader()->sortIndicatorSection(), int(CellStatisticsModel::P90));
        QCOMPARE(cells->currentIndex().row(), 4);
        QCOMPARE(cells->model()->index(4, CellStatisticsModel::Endpoint).data().toString(), endpoint);
        QCOMPARE(cells->model()->index(4, CellStatisticsModel::Test).data().toString(), testId);
        QCOMPARE(cells->model()->index(4, CellStatisticsModel::Turn).data().toString(), turn);
        QCOMPARE(cells->selectionModel()->selectedRows().size(), 1);
        QCOMPARE(comparison->currentIndex().row(), 2);
        QCOMPARE(comparison->model()->index(2, ComparisonModel::Test).data().toString(), comparisonTest);

        // Through a reset (intervals recomputed) the selection follows its row.
        view.setData(prepareDashboard(test::loadFixture(), 0, false));
        QCOMPARE(
            cells->model()->index(cells->currentIndex().row(), CellStatisticsModel::Test).data().toString(),
            testId);
    }

    void statisticsKeepsItsKeysInViewWhenScrolledSideways()
    {
        // Issue #26: scrolling the wide tables right lost the metric and test names.
        StatisticsView view;
        view.setData(fixture());
        view.resize(700, 800);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QCoreApplication::processEvents();
        for (QTableView* table : {view.cellTable(), view.comparisonTable()}) {
            auto* frozenTable = qobject_cast<FrozenTableView*>(table);
            QVERIFY(frozenTable && frozenTable->frozenColumns() >= 3);
            QTableView* frozen = frozenTable->frozenView();
            QVERIFY(frozen->isVisible());
            table->horizontalScrollBar()->setValue(table->horizontalScrollBar()->maximum());
            QCoreApplication::processEvents();
            QVERIFY(table->horizontalScrollBar()->maximum() > 0); // it does scroll at 700 px
            // The keys stay at the left edge, row for row beside the figures scrolled into view.
            QCOMPARE(frozen->x(), table->frameWidth());
            for (int c = 0; c < frozenTable->frozenColumns(); ++c)
                QCOMPARE(frozen->isColumnHidden(c), table->isColumnHidden(c)); // one candidate: no column
            QVERIFY(frozen->isColumnHidden(frozenTable->frozenColumns()));
            QCOMPARE(frozen->model(), table->model());
            QCOMPARE(frozen->verticalScrollBar()->value(), table->verticalScrollBar()->value());
            table->verticalScrollBar()->setValue(table->verticalScrollBar()->maximum());
            QCoreApplication::processEvents();
            QCOMPARE(frozen->verticalScrollBar()->value(), table->verticalScrollBar()->value());
            QCOMPARE(frozen->rowAt(1), table->rowAt(1));
        }
        // "X vs <the baseline>" on every row hid the candidate: the baseline is in the title.
        const QString candidate = view.comparisonTable()->model()->index(0, 0).data().toString();
        QVERIFY2(!candidate.contains(QStringLiteral(" vs ")), qPrintable(candidate));
    }

    void statisticsEmpty()
    {
        StatisticsView view;
        view.setData(fixture());
        view.setData(DashboardData {});
        QCOMPARE(view.cellTable()->model()->rowCount(), 0);
        QCOMPARE(view.comparisonTable()->model()->rowCount(), 0);
        QCOMPARE(labelNamed(&view, QStringLiteral("cellStatus"))->text(), QStringLiteral("No run loaded."));
        QVERIFY(!labelNamed(&view, QStringLiteral("cellStatus"))->isHidden());
        QVERIFY(view.comparisonTable()->isHidden());
    }

    // ---- guardrail banner ----------------------------------------------------------------

    void bannerShowsTheFixtureGuardrails()
    {
        GuardrailBanner banner;
        QVERIFY(banner.isHidden());
        banner.setData(fixture());
        QVERIFY(!banner.isHidden());
        const auto& guardrails = fixture().evaluation->guardrails;
        QCOMPARE(banner.warningCount(), int(guardrails.size()));

        QStringList ids;
        const auto rows = banner.findChildren<QFrame*>(QStringLiteral("guardrailRow"));
        for (QFrame* row : rows)
            ids << row->property("guardrailId").toString();
        QStringList expected {QStringLiteral("runtimes_differ"), QStringLiteral("thinking_differs"),
            QStringLiteral("reasoning_in_ttft"), QStringLiteral("few_runs"),
            QStringLiteral("simulated_endpoints")};
        // Not parallel_same_host: the simulated arms share no GPU (the demo must not warn about itself).
        QStringList sortedIds = ids;
        sortedIds.sort();
        expected.sort();
        QCOMPARE(sortedIds, expected);

        // Rows in the Evaluation's order (critical first), each with its chip and title.
        int warnings = 0, critical = 0, info = 0;
        for (int i = 0; i < rows.size(); ++i) {
            const Guardrail& g = guardrails[std::size_t(i)];
            QCOMPARE(ids[i], g.id);
            QCOMPARE(rows[i]->findChild<QLabel*>(QStringLiteral("guardrailTitle"))->text(), g.title);
            QCOMPARE(rows[i]->findChild<QLabel*>(QStringLiteral("severityChip"))->text(),
                severityId(g.severity).toUpper());
            warnings += g.severity == Guardrail::Severity::Warning;
            critical += g.severity == Guardrail::Severity::Critical;
            info += g.severity == Guardrail::Severity::Info;
            QVERIFY(rows[i]->styleSheet().contains((g.severity == Guardrail::Severity::Info
                    ? themeColors(Theme::Light).infoAccent
                    : g.severity == Guardrail::Severity::Warning ? themeColors(Theme::Light).warningAccent
                                                                 : themeColors(Theme::Light).criticalAccent)
                                                       .name()));
        }
        QCOMPARE(info, 2); // few_runs is a note (§9.7), and the simulator's
        QVERIFY(banner.headline().contains(QString::number(warnings) + QStringLiteral(" warning")));
        if (critical)
            QVERIFY(banner.headline().contains(QString::number(critical) + QStringLiteral(" critical")));
        QVERIFY(banner.headline().contains(QStringLiteral("2 notes")));
    }

    void bannerDetailsToggle()
    {
        GuardrailBanner banner;
        banner.setData(fixture());
        auto* toggle = banner.findChild<QToolButton*>(QStringLiteral("guardrailDetailsToggle"));
        QCOMPARE(toggle->text(), QStringLiteral("Show details"));
        const Guardrail& first = fixture().evaluation->guardrails.front();
        auto evidenceLabel = [&]() -> QLabel* {
            for (QLabel* l : banner.findChildren<QLabel*>())
                if (l->text().contains(QStringLiteral("Evidence:"))
                    && l->text().contains(first.evidence.left(20).toHtmlEscaped()))
                    return l;
            return nullptr;
        };
        QVERIFY(evidenceLabel());
        QVERIFY(evidenceLabel()->isHidden());
        toggle->click();
        QVERIFY(banner.isExpanded());
        QCOMPARE(toggle->text(), QStringLiteral("Hide details"));
        QVERIFY(!evidenceLabel()->isHidden());
        QVERIFY(evidenceLabel()->wordWrap());
        // A refresh keeps it open; collapsing hides the evidence again.
        banner.setData(test::fixtureData());
        QVERIFY(!evidenceLabel()->isHidden());
        banner.setExpanded(false);
        QVERIFY(evidenceLabel()->isHidden());
        QCOMPARE(toggle->text(), QStringLiteral("Show details"));
    }

    void bannerNeverCutsALine()
    {
        // In a window as the dashboard holds it: above a tab that wants every pixel. Expanded,
        // each label gets the height its wrapped text needs (the rows scroll instead); it used to
        // be squeezed, cutting "What to do" mid-line.
        QWidget window;
        auto* layout = new QVBoxLayout(&window);
        auto* banner = new GuardrailBanner;
        auto* below = new QWidget;
        below->setMinimumHeight(300);
        below->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
        layout->addWidget(banner);
        layout->addWidget(below, 1);
        window.resize(1000, 700);
        banner->setData(fixture());
        banner->setExpanded(true);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QApplication::processEvents();
        int labels = 0;
        for (QLabel* l : banner->findChildren<QLabel*>()) {
            if (!l->isVisible() || !l->wordWrap() || l->text().isEmpty())
                continue;
            ++labels;
            QVERIFY2(l->height() >= l->heightForWidth(l->width()),
                qPrintable(QStringLiteral("%1: %2 px high, needs %3")
                               .arg(l->text().left(40))
                               .arg(l->height())
                               .arg(l->heightForWidth(l->width()))));
        }
        QVERIFY(labels > 10);
        // At most two fifths of the window; the rest of the rows scroll.
        QVERIFY2(banner->height() <= 700 * 2 / 5 + 80, qPrintable(QString::number(banner->height())));
        auto* rows = banner->findChild<QScrollArea*>(QStringLiteral("guardrailRows"));
        QVERIFY(rows && rows->verticalScrollBar()->maximum() > 0);
    }

    void bannerHiddenWhenEmpty()
    {
        GuardrailBanner banner;
        banner.setData(fixture());
        QVERIFY(!banner.isHidden());
        DashboardData evaluating = fixture(); // a live refresh before its evaluation is ready
        evaluating.evaluation.reset();
        banner.setData(evaluating);
        QCOMPARE(banner.warningCount(), int(fixture().evaluation->guardrails.size()));
        banner.setData(DashboardData {});
        QVERIFY(banner.isHidden());
        QCOMPARE(banner.warningCount(), 0);
        QVERIFY(banner.findChildren<QFrame*>(QStringLiteral("guardrailRow")).isEmpty());
    }

    void bannerKeepsItsHeightDuringARun()
    {
        // Issue #26: warnings arriving one by one during a run used to grow the banner each time
        // and push the tabs down under the reader. Live, the collapsed banner keeps the room of
        // its rows from the start.
        QWidget window;
        auto* layout = new QVBoxLayout(&window);
        auto* banner = new GuardrailBanner;
        auto* below = new QWidget;
        below->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
        layout->addWidget(banner);
        layout->addWidget(below, 1);
        window.resize(1000, 700);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        const std::vector<Guardrail>& all = fixture().evaluation->guardrails;
        QVERIFY(all.size() >= 3);
        QList<int> tops;
        for (std::size_t n = 0; n <= 3; ++n) {
            DashboardData live = fixture();
            live.live = true;
            auto evaluation = std::make_shared<Evaluation>(*fixture().evaluation);
            evaluation->guardrails.assign(all.begin(), all.begin() + std::ptrdiff_t(n));
            live.evaluation = evaluation;
            banner->setData(live);
            QApplication::processEvents();
            QVERIFY(banner->isVisible());
            tops << below->y();
        }
        QVERIFY2(tops.count(tops.front()) == tops.size(),
            qPrintable(QStringLiteral("the tab below moved: %1")
                           .arg(QString::number(tops[0]) + u',' + QString::number(tops[1]) + u','
                               + QString::number(tops[2]) + u',' + QString::number(tops[3]))));
        QVERIFY(
            banner->headline().startsWith(QStringLiteral("3 warnings")) || banner->headline().contains(u':'));

        // The run ends: the banner is as tall as its rows again, and hidden without any.
        DashboardData done = fixture();
        auto none = std::make_shared<Evaluation>(*fixture().evaluation);
        none->guardrails.clear();
        done.evaluation = none;
        banner->setData(done);
        QVERIFY(banner->isHidden());
    }

    // ---- screenshots -----------------------------------------------------------------------

    void rendersInBothThemes_data()
    {
        QTest::addColumn<Theme>("theme");
        QTest::newRow("light") << Theme::Light;
        QTest::newRow("dark") << Theme::Dark;
    }
    void rendersInBothThemes()
    {
        QFETCH(Theme, theme);
        const QString suffix = QLatin1Char('-') + themeId(theme);
        {
            QualityMatrixView view;
            view.setTheme(theme);
            view.setData(fixture());
            shoot(&view, {900, 460}, QStringLiteral("quality-matrix") + suffix);
            view.setGate(QStringLiteral("no_markdown"));
            shoot(&view, {900, 460}, QStringLiteral("quality-matrix-no-markdown") + suffix);
        }
        {
            StatisticsView view;
            view.setTheme(theme);
            view.setData(fixture());
            shoot(&view, {1280, 760}, QStringLiteral("statistics") + suffix);
            view.setMetric(Metric::DecodeTps);
            view.comparisonTable()->scrollToBottom();
            shoot(&view, {1280, 760}, QStringLiteral("statistics-decode-gates") + suffix);
        }
        {
            GuardrailBanner banner;
            banner.setTheme(theme);
            banner.setData(fixture());
            shoot(&banner, {900, banner.sizeHint().height()}, QStringLiteral("guardrails") + suffix);
            banner.setExpanded(true);
            banner.resize(900,
                banner.heightForWidth(900) > 0 ? banner.heightForWidth(900) : banner.sizeHint().height());
            shoot(&banner, {900, banner.height()}, QStringLiteral("guardrails-expanded") + suffix);
        }
    }
};

QTEST_MAIN(TestTables)
#include "tst_tables.moc"
