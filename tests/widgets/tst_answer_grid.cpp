// SPDX-License-Identifier: MIT
// The Answers tab (issue #26): every test × endpoint with the gates' verdicts in words, the rows
// where the endpoints differ, a whole conversation at once, and a row that opens side by side.
#include "ResponsesTestSupport.h"
#include "model/gates/GateWords.h"
#include "widgets/responses/AnswerGrid.h"
#include "widgets/responses/ResponseFormatting.h"
#include "widgets/responses/SafeTextView.h"

#include <QCheckBox>
#include <QHeaderView>
#include <QRegularExpression>
#include <QScrollBar>
#include <QSignalSpy>
#include <QTableWidget>

using namespace qs;

class TestAnswerGrid : public QObject {
    Q_OBJECT

    DashboardData m_data = test::fixtureData();

    /// The fixture's own count of failed runs of (test, endpoint): any measured record of a run
    /// with a false gate or a failed request fails the run.
    int failedRuns(const QString& test, int endpoint) const
    {
        std::map<int, bool> runs;
        for (const RunRecord& r : m_data.result->records) {
            if (r.warmup || r.test != test || r.endpoint != endpoint)
                continue;
            bool failed = r.request.failure.isFailure();
            for (const auto& [gate, verdict] : r.gates->items())
                failed = failed || (verdict.is_boolean() && !verdict.get<bool>());
            runs[r.iteration] = runs[r.iteration] || failed;
        }
        return int(std::count_if(runs.begin(), runs.end(), [](const auto& p) { return p.second; }));
    }

private Q_SLOTS:
    void initTestCase() { QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion"))); }

    void everyTestEveryEndpointInWords()
    {
        const std::vector<AnswerRow> rows = answerRows(m_data);
        QCOMPARE(int(rows.size()), 8); // the voice suite's eight tests, one row per conversation
        QCOMPARE(rows.back().test, QStringLiteral("multi-turn-5"));
        QCOMPARE(rows.back().turns, 5);
        const QRegularExpression snake(QStringLiteral("\\b[a-z]+_[a-z_]+\\b"));
        for (const AnswerRow& row : rows) {
            QCOMPARE(int(row.cells.size()), 2);
            for (int e = 0; e < 2; ++e) {
                const AnswerCell& cell = row.cells[std::size_t(e)];
                QCOMPARE(cell.runs, 3);
                QCOMPARE(cell.failedRuns, failedRuns(row.test, e));
                const QString text = cell.verdictText();
                QVERIFY2(!snake.match(text).hasMatch(), qPrintable(text)); // words, never gate ids
                if (cell.passed())
                    QCOMPARE(text, QStringLiteral("✓ passed every check · 3 runs"));
                for (const auto& [gate, n] : cell.gateFailures)
                    QVERIFY2(text.contains(QStringLiteral("%1 %2/3").arg(gateWords(gate)->title).arg(n)),
                        qPrintable(text));
                QVERIFY(!cell.excerpt.isEmpty());
            }
        }
        // The fixture's story: the candidate writes markdown in the greeting, the baseline does not.
        QVERIFY(rows.front().cells[0].passed());
        QVERIFY(rows.front().cells[1].gateFailures.count(QStringLiteral("no_markdown")));
        QVERIFY(rows.front().differs());
    }

    void theGridShowsItAndFiltersToWhatDiffers()
    {
        AnswerGrid grid;
        grid.setData(m_data);
        QTableWidget* t = grid.table();
        QCOMPARE(t->rowCount(), 8);
        QCOMPARE(t->columnCount(), 3);
        QCOMPARE(t->horizontalHeaderItem(1)->text(), endpointTitle(*m_data.result, 0));
        const AnswerCell& greeting = grid.rows().front().cells[1];
        QVERIFY(t->item(0, 2)->text().startsWith(greeting.verdictText() + u'\n' + greeting.excerpt));
        QCOMPARE(t->item(0, 2)->background().color(), themeColors(Theme::Light).failBackground);
        QCOMPARE(t->item(0, 1)->background().color(), themeColors(Theme::Light).passBackground);

        const auto differing = std::count_if(
            grid.rows().begin(), grid.rows().end(), [](const AnswerRow& r) { return r.differs(); });
        QVERIFY(differing > 0 && differing < 8);
        grid.findChild<QCheckBox*>(QStringLiteral("onlyDiffering"))->setChecked(true);
        QCOMPARE(t->rowCount(), int(differing));
        for (int row = 0; row < t->rowCount(); ++row) {
            const QString test = t->item(row, 0)->data(Qt::UserRole).toString();
            QVERIFY(std::find_if(grid.rows().begin(), grid.rows().end(), [&](const AnswerRow& r) {
                return r.test == test && r.differs();
            }) != grid.rows().end());
        }
    }

    void aWholeConversationAtOnce()
    {
        AnswerGrid grid;
        grid.setData(m_data);
        QVERIFY(grid.selectTest(QStringLiteral("multi-turn-5")));
        grid.setRun(2);
        for (int e = 0; e < 2; ++e) {
            const QString text = grid.conversationText(e);
            for (int turn = 1; turn <= 5; ++turn) {
                QVERIFY2(text.contains(QStringLiteral("Turn %1 · user").arg(turn)), qPrintable(text));
                const RunRecord* r
                    = test::findRecord(*m_data.result, e, QStringLiteral("multi-turn-5"), turn, 2);
                QVERIFY(r);
                QVERIFY(text.contains(lastUserMessage(*r->request.requestBody)));
                const QString answer = r->request.response.content.mid(answerStart(r->request)).trimmed();
                QVERIFY2(text.contains(answer.left(40)), qPrintable(answer.left(40)));
            }
        }
        // A failed gate is said in words under its answer.
        QVERIFY(grid.conversationText(1).contains(QStringLiteral("✗ No markdown: ")));

        // A live refresh that brings nothing new for this conversation leaves it (and where the
        // reader scrolled to) alone; another run rebuilds it.
        auto* view = grid.findChild<SafeTextView*>(QStringLiteral("conversation0"));
        QVERIFY(view);
        const QTextDocument* before = view->document();
        const int revision = before->revision();
        grid.setData(m_data);
        QCOMPARE(view->document()->revision(), revision);
        grid.setRun(1);
        QVERIFY(view->document()->revision() != revision);
    }

    void aRowOpensSideBySide()
    {
        AnswerGrid grid;
        grid.setData(m_data);
        grid.resize(1200, 900);
        grid.show();
        QVERIFY(QTest::qWaitForWindowExposed(&grid));
        QSignalSpy open(&grid, &AnswerGrid::openRequested);
        QTableWidget* t = grid.table();
        const QRect cell = t->visualRect(t->model()->index(3, 1));
        QTest::mouseClick(t->viewport(), Qt::LeftButton, {}, cell.center());
        QTest::mouseDClick(t->viewport(), Qt::LeftButton, {}, cell.center());
        QCOMPARE(open.count(), 1);
        QCOMPARE(open.front().at(0).toString(), grid.rows()[3].test);
        QCOMPARE(open.front().at(1).toInt(), 1);
        QCOMPARE(grid.currentTest(), grid.rows()[3].test);
        // Every column on screen: the grid never scrolls sideways.
        QVERIFY(!t->horizontalScrollBar()->isVisible());
        QVERIFY(t->columnViewportPosition(2) + t->columnWidth(2) <= t->viewport()->width());
    }
};

QTEST_MAIN(TestAnswerGrid)
#include "tst_answer_grid.moc"
