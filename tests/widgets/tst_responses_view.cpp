// SPDX-License-Identifier: MIT
// The side-by-side responses view on the fixture: the cell it opens on, the columns' metrics,
// gate badges and highlighted answers, the Raw / Rendered toggle, selection across tests, turns,
// runs and refreshes, the empty, live and failed states, and its screenshots.
#include "ResponsesTestSupport.h"
#include "WidgetTestSupport.h"
#include "model/gates/GateWords.h"
#include "model/gates/QualityGates.h"
#include "widgets/responses/ResponseColumn.h"
#include "widgets/responses/ResponseFormatting.h"
#include "widgets/responses/ResponsesView.h"
#include "widgets/responses/SafeTextView.h"

#include <QComboBox>
#include <QLabel>
#include <QSpinBox>
#include <QTest>
#include <QTextBlock>
#include <QTextDocument>
#include <QTextList>
#include <QToolButton>

using namespace qs;
using namespace qs::test;

class TestResponsesView : public QObject {
    Q_OBJECT
private:
    DashboardData m_data;

private Q_SLOTS:
    void initTestCase() { setUpResponsesTest(m_data); }

    // --- ResponsesView ------------------------------------------------------------------------

    void opensOnTheMostDifferentCell()
    {
        ResponsesView view;
        view.setData(m_data);
        // Recount independently: per cell, gates one endpoint failed and the other did not.
        const RunResult& r = *m_data.result;
        int bestScore = -1;
        QString bestTest;
        int bestIteration = 0;
        QStringList order;
        for (const RunRecord& rec : r.records)
            if (!rec.warmup && !order.contains(rec.test))
                order << rec.test;
        for (const QString& t : order)
            for (int turn = 1; turn <= 5; ++turn)
                for (int it = 1; it <= 3; ++it) {
                    const RunRecord* a = findRecord(r, 0, t, turn, it);
                    const RunRecord* b = findRecord(r, 1, t, turn, it);
                    if (!a || !b)
                        continue;
                    int score = 0;
                    // A gate newer than the fixture is absent: not judged.
                    for (const QString& g : gateNames())
                        score += (a->gates->value(g.toStdString(), nlohmann::json()) == false)
                            != (b->gates->value(g.toStdString(), nlohmann::json()) == false);
                    if (score > bestScore) {
                        bestScore = score;
                        bestTest = t;
                        bestIteration = it;
                    }
                }
        QCOMPARE(bestTest, QStringLiteral("factual"));
        QCOMPARE(view.currentTest(), bestTest);
        QCOMPARE(view.currentTurn(), 1);
        QCOMPARE(view.currentIteration(), bestIteration);
        QCOMPARE(view.currentPrompt(), QStringLiteral("What is the capital of Japan?"));

        // Tests in run order, as the evaluation's cells list them.
        auto* combo = view.findChild<QComboBox*>(QStringLiteral("test"));
        QVERIFY(combo);
        QStringList cellTests;
        for (const CellStatistics& cell : m_data.evaluation->cells)
            if (!cellTests.contains(cell.test))
                cellTests << cell.test;
        QCOMPARE(combo->count(), int(cellTests.size()));
        for (int i = 0; i < combo->count(); ++i)
            QCOMPARE(combo->itemData(i).toString(), cellTests[i]);
        QCOMPARE(combo->currentData().toString(), QStringLiteral("factual"));
        QCOMPARE(combo->currentText(), QStringLiteral("Factual question"));
    }

    void columnsShowMetricsAndGates()
    {
        ResponsesView view;
        view.setData(m_data);
        QVERIFY(view.select(QStringLiteral("factual"), 1, 1));
        QCOMPARE(view.columnCount(), 2);
        QVERIFY(!view.column(2));
        const RunResult& r = *m_data.result;
        for (int e = 0; e < 2; ++e) {
            ResponseColumn* col = view.column(e);
            QCOMPARE(col->title(), endpointTitle(r, e));
            const RunRecord* rec = findRecord(r, e, QStringLiteral("factual"), 1, 1);
            const RequestMetrics& m = rec->request.metrics;
            auto label = [col](const char* name) {
                auto* l = col->findChild<QLabel*>(QString::fromLatin1(name));
                return l ? l->text() : QString();
            };
            QVERIFY(label("ttftVisible").contains(QStringLiteral("%1 ms").arg(*m.ttftVisibleMs, 0, 'f', 0)));
            const QString any = *m.ttftAnyMs < 100 ? QStringLiteral("%1 ms").arg(*m.ttftAnyMs, 0, 'f', 1)
                                                   : QStringLiteral("%1 ms").arg(*m.ttftAnyMs, 0, 'f', 0);
            QVERIFY2(label("ttftAny").contains(any), qPrintable(label("ttftAny")));
            QVERIFY(label("tokens").contains(QString::number(*m.completionTokens.value)));
            QVERIFY(!label("tokens").contains(u"estimate")); // the server's usage
            QVERIFY(col->findChild<QLabel*>(QStringLiteral("tokens"))->toolTip().contains(u"usage"));
            QVERIFY(label("decode").contains(QStringLiteral("%1 tok/s").arg(*m.decodeTps, 0, 'f', 1)));

            // A badge per judged gate, coloured by verdict, with the reason as tooltip.
            for (const QString& g : gateNames()) {
                auto* b = col->findChild<QLabel*>(QStringLiteral("gate:") + g);
                const nlohmann::json v = rec->gates->value(g.toStdString(), nlohmann::json());
                if (v.is_null()) {
                    QVERIFY2(!b, qPrintable(g));
                    continue;
                }
                QVERIFY2(b, qPrintable(g));
                const bool pass = v.get<bool>();
                // Words, not the gate's id (issue #26): "✗ No markdown".
                QCOMPARE(
                    b->text(), (pass ? QStringLiteral("✓ ") : QStringLiteral("✗ ")) + gateWords(g)->title);
                const QColor bg = pass ? themeColors(Theme::Light).passBackground
                                       : themeColors(Theme::Light).failBackground;
                QVERIFY(b->styleSheet().contains(bg.name()));
                const QString reason = QString::fromStdString(
                    rec->gateDetails->at(g.toStdString()).at("reason").get<std::string>());
                QVERIFY2(b->toolTip().contains(reason.toHtmlEscaped()), qPrintable(b->toolTip()));
            }
            auto* na = col->findChild<QLabel*>(QStringLiteral("gates:not_applicable"));
            QVERIFY(na);
            QVERIFY(na->toolTip().contains(u"tool_call"));
        }
        // The nvfp4-like answer leaked thinking and wrote bullets.
        QCOMPARE(view.column(1)->findChild<QLabel*>(QStringLiteral("gate:no_markdown"))->text(),
            QStringLiteral("✗ No markdown"));
        QCOMPARE(view.column(0)->findChild<QLabel*>(QStringLiteral("gate:no_markdown"))->text(),
            QStringLiteral("✓ No markdown"));
        // Why, in words on the column, not only in a tooltip.
        auto* reasons = view.column(1)->findChild<QLabel*>(QStringLiteral("gateReasons"));
        QVERIFY(reasons && !reasons->isHidden());
        QVERIFY2(reasons->text().contains(QStringLiteral("✗ No markdown: ")), qPrintable(reasons->text()));
        QVERIFY(view.column(0)->findChild<QLabel*>(QStringLiteral("gateReasons"))->isHidden());
    }

    void rawAnswerIsHighlightedAtTheGatesRanges()
    {
        ResponsesView view;
        view.setData(m_data);
        QVERIFY(view.select(QStringLiteral("factual"), 1, 1));
        const RunRecord* rec = findRecord(*m_data.result, 1, QStringLiteral("factual"), 1, 1);
        const QString& content = rec->request.response.content;
        const int offset = rec->request.metrics.visibleContentOffset;
        QCOMPARE(offset, 96);
        ResponseColumn* col = view.column(1);
        QVERIFY(!view.rendered());

        // The answer: from the first character after the leaked block, exactly as sent.
        const QTextDocument* answer = col->answerView()->document();
        const int start = int(content.indexOf(u"Tokyo is the capital"));
        QCOMPARE(answer->toPlainText(), content.mid(start));
        QVERIFY(!answer->toPlainText().contains(u"<think>"));
        const ThemeColors& t = themeColors(Theme::Light);
        for (const Highlight& h :
            gateHighlights(rec->gateDetails, QStringLiteral("content"), int(content.size()))) {
            if (h.end <= start)
                continue;
            QCOMPARE(backgroundAt(answer, h.begin - start), spanColor(h.kind, Theme::Light));
            QCOMPARE(backgroundAt(answer, h.end - 1 - start), spanColor(h.kind, Theme::Light));
        }
        QCOMPARE(backgroundAt(answer, 0), t.answerSpan); // "Tokyo" at 98–103
        QCOMPARE(backgroundAt(answer, 130 - start), t.markdownSpan); // "- " of the first bullet
        QCOMPARE(backgroundAt(answer, 129 - start), QColor()); // the line break before it
        QCOMPARE(backgroundAt(answer, 5), QColor());

        // The leaked thinking: folded, apart, highlighted as thinking.
        QVERIFY(col->hasReasoning());
        QVERIFY(!col->reasoningExpanded());
        QVERIFY(!col->reasoningView()->isVisibleTo(col));
        QVERIFY(col->reasoningTitle().startsWith(QStringLiteral("Reasoning — 96 characters")));
        const QTextDocument* reasoning = col->reasoningView()->document();
        const int think = int(reasoning->toPlainText().indexOf(content.left(offset)));
        QVERIFY(think > 0);
        QCOMPARE(backgroundAt(reasoning, think), t.thinkingSpan);
        QCOMPARE(backgroundAt(reasoning, think + offset - 1), t.thinkingSpan);
        col->setReasoningExpanded(true);
        QVERIFY(col->reasoningView()->isVisibleTo(col));

        // The clean endpoint has nothing to fold and nothing highlighted but the answer.
        ResponseColumn* clean = view.column(0);
        QVERIFY(!clean->hasReasoning());
        QVERIFY(!clean->findChild<QToolButton*>(QStringLiteral("reasoningToggle"))->isVisibleTo(clean));
        QCOMPARE(clean->answerView()->document()->toPlainText(),
            findRecord(*m_data.result, 0, QStringLiteral("factual"), 1, 1)->request.response.content);

        // Dark theme: the same spans in the dark colours.
        view.setTheme(Theme::Dark);
        QCOMPARE(backgroundAt(col->answerView()->document(), 0), themeColors(Theme::Dark).answerSpan);
        QCOMPARE(
            backgroundAt(col->answerView()->document(), 130 - start), themeColors(Theme::Dark).markdownSpan);
    }

    void rawRenderedToggle()
    {
        ResponsesView view;
        view.setData(m_data);
        QVERIFY(view.select(QStringLiteral("factual"), 1, 1));
        const QString raw = view.column(1)->answerView()->document()->toPlainText();
        QVERIFY(raw.contains(u"\n- It's a wonderful city"));

        auto* rendered = view.findChild<QToolButton*>(QStringLiteral("rendered"));
        QVERIFY(rendered);
        rendered->click();
        QVERIFY(view.rendered());
        const QTextDocument* doc = view.column(1)->answerView()->document();
        // A chat UI shows a list: the "- " markers are gone, the items are in a QTextList.
        QVERIFY(!doc->toPlainText().contains(u"- It's"));
        QVERIFY(doc->toPlainText().contains(u"It's a wonderful city"));
        int listItems = 0;
        for (QTextBlock b = doc->begin(); b.isValid(); b = b.next())
            listItems += b.textList() ? 1 : 0;
        QCOMPARE(listItems, 4);
        QVERIFY(view.column(0)->rendered());

        view.findChild<QToolButton*>(QStringLiteral("raw"))->click();
        QVERIFY(!view.rendered());
        QCOMPARE(view.column(1)->answerView()->document()->toPlainText(), raw);
    }

    void turnAndIterationSelection()
    {
        ResponsesView view;
        view.setData(m_data);
        view.show();
        auto* turn = view.findChild<QSpinBox*>(QStringLiteral("turn"));
        auto* iteration = view.findChild<QSpinBox*>(QStringLiteral("iteration"));
        QVERIFY(view.select(QStringLiteral("multi-turn-5"), 5, 3));
        QVERIFY(turn->isVisible());
        QCOMPARE(turn->maximum(), 5);
        QCOMPARE(turn->value(), 5);
        // Measured runs per turn, as the evaluation counted them.
        int measured = 0;
        for (const CellStatistics& c : m_data.evaluation->cells)
            if (c.test == u"multi-turn-5" && c.turn == 5 && c.endpoint == 0)
                measured = c.measured;
        QCOMPARE(iteration->maximum(), measured);
        QCOMPARE(
            view.currentPrompt(), QStringLiteral("Thanks, that helps. By the way, do you remember my name?"));
        const RunRecord* rec = findRecord(*m_data.result, 1, QStringLiteral("multi-turn-5"), 5, 3);
        QVERIFY(view.column(1)->answerView()->document()->toPlainText().startsWith(
            rec->request.response.content.left(20)));

        turn->setValue(2);
        QCOMPARE(view.currentTurn(), 2);
        QCOMPARE(view.currentIteration(), 3);
        QVERIFY(view.column(0)->answerView()->document()->toPlainText().startsWith(
            findRecord(*m_data.result, 0, QStringLiteral("multi-turn-5"), 2, 3)
                ->request.response.content.left(20)));

        QVERIFY(view.select(QStringLiteral("greeting"), 1, 2));
        QVERIFY(!turn->isVisible());
        QCOMPARE(view.currentTurn(), 1);
        QVERIFY(!view.select(QStringLiteral("greeting"), 2, 1));
        QVERIFY(!view.select(QStringLiteral("greeting"), 1, 4));
        QVERIFY(!view.select(QStringLiteral("no-such-test"), 1, 1));
        QCOMPARE(view.currentTest(), QStringLiteral("greeting"));
        QCOMPARE(view.currentIteration(), 2);

        // Picking another test in the combo keeps the run.
        auto* combo = view.findChild<QComboBox*>(QStringLiteral("test"));
        combo->setCurrentIndex(combo->findData(QStringLiteral("tool-web")));
        QCOMPARE(view.currentTest(), QStringLiteral("tool-web"));
        QCOMPARE(view.currentIteration(), 2);
    }

    void setDataKeepsTheSelection()
    {
        ResponsesView view;
        view.setData(m_data);
        QVERIFY(view.select(QStringLiteral("conversational"), 1, 2));
        view.setRendered(true);
        view.column(1)->setReasoningExpanded(true);
        SafeTextView* answer = view.column(1)->answerView();
        const QTextDocument* docBefore = answer->document();
        const QString textBefore = docBefore->toPlainText();

        view.setData(m_data);
        view.setData(test::fixtureData()); // a fresh copy of the same run, as a live refresh gives
        QCOMPARE(view.currentTest(), QStringLiteral("conversational"));
        QCOMPARE(view.currentIteration(), 2);
        QVERIFY(view.rendered());
        QVERIFY(view.column(1)->reasoningExpanded());
        QCOMPARE(view.column(1)->answerView(), answer);
        QCOMPARE(answer->document()->toPlainText(), textBefore);

        // A live run that has not reached a cell yet: the column says so, and the selection holds.
        auto partial = std::make_shared<RunResult>(*m_data.result);
        const int idx = findIndex(*partial, 1, QStringLiteral("conversational"), 1, 2);
        partial->records.resize(std::size_t(idx));
        DashboardData live;
        live.result = partial;
        live.live = true;
        view.setData(live);
        QCOMPARE(view.currentTest(), QStringLiteral("conversational"));
        QCOMPARE(view.currentIteration(), 2);
        QVERIFY(view.column(0)->hasRecord());
        QVERIFY(!view.column(1)->hasRecord());
        view.setData(m_data);
        QVERIFY(view.column(1)->hasRecord());
        QCOMPARE(view.currentIteration(), 2);
    }

    void emptyState()
    {
        ResponsesView view;
        view.resize(900, 560);
        view.show();
        QCoreApplication::processEvents();
        QCOMPARE(view.columnCount(), 0);
        QCOMPARE(view.currentTest(), QString());
        auto* empty = view.findChild<QLabel*>(QStringLiteral("empty"));
        QVERIFY(empty->isVisible());
        QVERIFY(!view.findChild<QComboBox*>(QStringLiteral("test"))->isVisible());
        QVERIFY(!view.findChild<QWidget*>(QStringLiteral("legend"))->isVisible());
        view.selectMostDifferent(); // nothing to select: no crash
        QVERIFY(!view.select(QStringLiteral("factual"), 1, 1));
        shoot(view, QStringLiteral("responses-empty"));

        view.setData(m_data);
        QCOMPARE(view.columnCount(), 2);
        QVERIFY(!empty->isVisible());
        QVERIFY(view.findChild<QComboBox*>(QStringLiteral("test"))->isVisible());
        QCOMPARE(view.currentTest(), QStringLiteral("factual")); // opened on the most different
        view.setData(DashboardData {});
        QCOMPARE(view.columnCount(), 0);
        QVERIFY(empty->isVisible());
        QCOMPARE(view.currentTest(), QString());
        QCOMPARE(view.currentPrompt(), QString());

        // A live run before its first measured response: endpoints, no cells.
        auto warming = std::make_shared<RunResult>(*m_data.result);
        warming->records.erase(std::remove_if(warming->records.begin(), warming->records.end(),
                                   [](const RunRecord& r) { return !r.warmup; }),
            warming->records.end());
        DashboardData live;
        live.result = warming;
        live.live = true;
        view.setData(live);
        QVERIFY(empty->isVisible());
        QVERIFY(empty->text().contains(u"Waiting"));
        QCOMPARE(view.currentTest(), QString());
    }

    void toolCallsAreFormatted()
    {
        ResponsesView view;
        view.setData(m_data);
        QVERIFY(view.select(QStringLiteral("tool-web"), 1, 1));
        const RunRecord* rec = findRecord(*m_data.result, 0, QStringLiteral("tool-web"), 1, 1);
        QCOMPARE(int(rec->request.response.toolCalls.size()), 1);
        const ToolCall& call = rec->request.response.toolCalls[0];
        const QString text = view.column(0)->answerView()->document()->toPlainText();
        QVERIFY(text.contains(call.name + u'('));
        QVERIFY(text.contains(*prettyJson(call.arguments)));
        QVERIFY(text.contains(u"\n  \"query\": "));
        // The other endpoint wrote its call into the text: highlighted as such, no formatted call.
        const RunRecord* leaked = findRecord(*m_data.result, 1, QStringLiteral("tool-web"), 1, 1);
        QVERIFY(leaked->request.response.toolCalls.empty());
        const QTextDocument* doc = view.column(1)->answerView()->document();
        QCOMPARE(doc->toPlainText(), leaked->request.response.content);
        QCOMPARE(backgroundAt(doc, 0), themeColors(Theme::Light).toolTextSpan);
        QCOMPARE(view.column(1)->findChild<QLabel*>(QStringLiteral("gate:tool_call"))->text(),
            QStringLiteral("✗ Tool call"));
        QVERIFY(view.column(1)
                    ->findChild<QLabel*>(QStringLiteral("gate:tool_call"))
                    ->toolTip()
                    .contains(u"leaked_into_text"));
        view.setRendered(true);
        QVERIFY(view.column(0)->answerView()->document()->toPlainText().contains(u"\n  \"query\": "));
    }

    void failedRequestShowsKindAdviceAndPartialText()
    {
        auto r = std::make_shared<RunResult>(*test::loadFixture());
        const int idx = findIndex(*r, 1, QStringLiteral("factual"), 1, 2);
        RunRecord& rec = r->records[std::size_t(idx)];
        rec.request.failure
            = makeFailure(FailureKind::IdleTimeout, QStringLiteral("no data for 30 s after 12 tokens"),
                QStringLiteral("Raise the idle timeout, or check the server's log <b>now</b>."));
        rec.request.failure.serverMessage = QStringLiteral("<script>x</script>");
        rec.request.response.content = QStringLiteral("The capital of Japan is");
        rec.request.metrics.visibleContentOffset = 0;
        rec.request.metrics.completionTokens = {12, CountSource::Estimate};
        rec.gateDetails = nlohmann::json::object();
        for (const QString& g : gateNames())
            rec.gateDetails.edit()[g.toStdString()] = {{"verdict", "not_applicable"},
                {"reason", "failed request: not judged"}, {"ranges", nlohmann::json::array()}};
        DashboardData d;
        d.result = r;
        ResponsesView view;
        view.setData(d);
        QVERIFY(view.select(QStringLiteral("factual"), 1, 2));
        ResponseColumn* col = view.column(1);
        auto* failure = col->findChild<QLabel*>(QStringLiteral("failure"));
        QVERIFY(failure && !failure->isHidden());
        QVERIFY(failure->text().contains(u"idle_timeout"));
        QVERIFY(failure->text().contains(u"no data for 30 s after 12 tokens"));
        QVERIFY(failure->text().contains(u"&lt;b&gt;now&lt;/b&gt;")); // advice escaped, never markup
        QVERIFY(failure->text().contains(u"&lt;script&gt;"));
        QVERIFY(failure->text().contains(u"partial response"));
        QCOMPARE(col->answerView()->document()->toPlainText(), QStringLiteral("The capital of Japan is"));
        auto* tokens = col->findChild<QLabel*>(QStringLiteral("tokens"));
        QVERIFY(tokens->text().contains(u"estimate"));
        QVERIFY(tokens->toolTip().contains(u"one token-bearing event"));
        QCOMPARE(col->findChild<QLabel*>(QStringLiteral("gates:not_applicable"))->text(),
            QStringLiteral("not judged"));
        QVERIFY(!col->findChild<QLabel*>(QStringLiteral("gate:no_markdown")));
        QVERIFY(view.column(0)->findChild<QLabel*>(QStringLiteral("failure"))->isHidden());
        shoot(view, QStringLiteral("responses-failed"));
    }

    // --- Screenshots --------------------------------------------------------------------------

    void screenshots()
    {
        ResponsesView view;
        view.setData(m_data);
        view.selectMostDifferent();
        shoot(view, QStringLiteral("responses-raw"));
        view.column(1)->setReasoningExpanded(true);
        shoot(view, QStringLiteral("responses-reasoning"));
        view.column(1)->setReasoningExpanded(false);
        view.setRendered(true);
        shoot(view, QStringLiteral("responses-rendered"));
        view.setRendered(false);
        QVERIFY(view.select(QStringLiteral("multi-turn-5"), 5, 3));
        shoot(view, QStringLiteral("responses-multiturn"));
        QVERIFY(view.select(QStringLiteral("tool-memory"), 1, 1));
        shoot(view, QStringLiteral("responses-tools"));
    }
};

QTEST_MAIN(TestResponsesView)
#include "tst_responses_view.moc"
