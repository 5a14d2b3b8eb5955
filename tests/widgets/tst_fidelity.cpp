// SPDX-License-Identifier: MIT
// The Fidelity tab and the divergence mark in the responses, fed a fidelity built by hand on the
// fixture's records (the numbers are the view's business here, not how they are computed): every
// number where it belongs, "not comparable — why" for an arm whose tokens do not line up, never
// "nan" or "inf", the empty state that says how to measure, the charts' values, the per-prompt
// list and its jump to the responses; and the mark from the diverging character on.
#include "WidgetTestSupport.h"
#include "widgets/ScreenshotRenderer.h"
#include "widgets/fidelity/FidelityCharts.h"
#include "widgets/fidelity/FidelityText.h"
#include "widgets/fidelity/FidelityView.h"
#include "widgets/responses/ResponseColumn.h"
#include "widgets/responses/ResponseFormatting.h"
#include "widgets/responses/ResponsesView.h"
#include "widgets/responses/SafeTextView.h"

#include <QApplication>
#include <QDir>
#include <QLabel>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QStyleFactory>
#include <QTableWidget>
#include <QTest>
#include <QTextBlock>
#include <QTextDocument>
#include <cmath>
#include <limits>

using namespace qs;

namespace {

/// The measured record of `endpoint` for test, turn 1, iteration 1.
int recordOf(const RunResult& run, int endpoint, const char* test)
{
    for (std::size_t i = 0; i < run.records.size(); ++i) {
        const RunRecord& r = run.records[i];
        if (r.endpoint == endpoint && !r.warmup && r.test == QLatin1String(test) && r.turn == 1
            && r.iteration == 1)
            return int(i);
    }
    return -1;
}

FidelityPrompt prompt(const RunResult& run, const char* test, int endpoint)
{
    FidelityPrompt p;
    p.test = QString::fromLatin1(test);
    p.referenceRecord = recordOf(run, 0, test);
    p.candidateRecord = recordOf(run, endpoint, test);
    p.tokensComparable = true;
    p.referenceTokens = 24;
    p.candidateTokens = 24;
    return p;
}

/// Arm 1 (nvfp4-like) compared token by token; arm 2 (a third endpoint, another tokenizer) only
/// by characters, with a NaN and an inf where a broken computation could leave them.
Fidelity handBuilt(const RunResult& run, bool marked)
{
    Fidelity f;
    f.reference = 0;
    f.referenceMarked = marked;
    f.referenceLabel = QStringLiteral("q4km-like");

    FidelityArm a;
    a.endpoint = 1;
    a.endpointLabel = QStringLiteral("nvfp4-like");
    a.referenceLabel = f.referenceLabel;
    FidelityPrompt same = prompt(run, "greeting", 1);
    same.identical = true;
    same.sharedPrefixTokens = 24;
    same.kl = 0.0004;
    FidelityPrompt near = prompt(run, "reasoning", 1);
    near.firstDivergence = 3;
    near.firstDivergenceChar = 12;
    near.sharedPrefixTokens = 3;
    near.sharedPrefixChars = 12;
    near.referenceTokenRank = 2;
    near.referenceTokenProb = 0.31;
    near.candidateTokenProb = 0.52;
    near.listedCandidates = 20;
    near.kl = 0.012;
    near.gradeChanged = false;
    FidelityPrompt confident = prompt(run, "conversational", 1);
    confident.firstDivergence = 0;
    confident.firstDivergenceChar = 0;
    confident.listedCandidates = 20;
    confident.kl = 0.2;
    confident.gradeChanged = true;
    FidelityPrompt late = prompt(run, "long-response", 1);
    late.firstDivergence = 20;
    late.firstDivergenceChar = 80;
    late.sharedPrefixTokens = 20;
    late.referenceTokenRank = 2;
    late.referenceTokenProb = 0.45;
    late.listedCandidates = 20;
    late.kl = 0.03;
    a.prompts = {same, near, confident, late};
    a.identical = 1;
    a.flipRate = 0.75;
    a.flipRateCi = Interval {0.194, 0.994};
    a.klMean = 0.0423;
    a.klCi = Interval {0.011, 0.093};
    a.klP99 = 0.61;
    a.klComparable = true;
    a.comparablePrompts = 4;
    a.meanAbsLogprobDelta = 0.0031;
    a.medianSharedPrefixTokens = 11.5;
    a.meanSharedPrefixFraction = 0.42;
    a.gradedPrompts = 2;
    a.gradeFlips = 1;
    a.nearTies = 2;
    a.confidentFlips = 1;

    FidelityArm b;
    b.endpoint = 2;
    b.endpointLabel = QStringLiteral("other-tokenizer");
    b.referenceLabel = f.referenceLabel;
    FidelityPrompt early = prompt(run, "greeting", 2); // no records: the view needs none
    early.tokensComparable = false;
    early.firstDivergence = 5;
    early.firstDivergenceChar = 19;
    early.note = QStringLiteral("tokenizers differ");
    FidelityPrompt end = early;
    end.test = QStringLiteral("factual");
    end.firstDivergence = 70;
    b.prompts = {early, end};
    b.flipRate = 0.5;
    b.flipRateCi = Interval {0.013, 0.987};
    b.klMean = std::numeric_limits<double>::quiet_NaN();
    b.klP99 = std::numeric_limits<double>::infinity();
    b.meanAbsLogprobDelta = -std::numeric_limits<double>::infinity();
    b.medianSharedPrefixTokens = 4;
    b.meanSharedPrefixFraction = std::numeric_limits<double>::quiet_NaN();
    f.arms = {a, b};
    f.notes = {QStringLiteral(
        "The reference and other-tokenizer serve different tokenizers: KL is not comparable.")};
    return f;
}

/// The fixture with a third endpoint and the hand-built fidelity in its evaluation.
DashboardData fidelityData(bool marked = true)
{
    const DashboardData base = test::fixtureData();
    auto run = std::make_shared<RunResult>(*base.result);
    RunEndpoint third = run->endpoints[1];
    third.endpoint.label = QStringLiteral("other-tokenizer");
    run->endpoints.push_back(third);
    run->endpoints[0].reference = marked;
    auto evaluation = std::make_shared<Evaluation>(*base.evaluation);
    evaluation->fidelity = handBuilt(*run, marked);
    DashboardData d = base;
    d.result = run;
    d.evaluation = evaluation;
    return d;
}

QString cell(const QTableWidget* table, int row, int column)
{
    const QTableWidgetItem* item = table->item(row, column);
    return item ? item->text() : QString();
}

/// Every cell and tooltip of a table: no "nan", no "inf" (as words, any case).
void verifyFinite(const QTableWidget* table)
{
    static const QRegularExpression bad(
        QStringLiteral("\\b(nan|inf|infinity)\\b"), QRegularExpression::CaseInsensitiveOption);
    for (int r = 0; r < table->rowCount(); ++r)
        for (int c = 0; c < table->columnCount(); ++c) {
            const QTableWidgetItem* item = table->item(r, c);
            QVERIFY2(item, qPrintable(QStringLiteral("row %1 column %2 is empty").arg(r).arg(c)));
            QVERIFY2(!bad.match(item->text()).hasMatch(), qPrintable(item->text()));
            QVERIFY2(!bad.match(item->toolTip()).hasMatch(), qPrintable(item->toolTip()));
        }
}

/// The document position of the first character with a wavy underline; -1 when none.
int firstWavy(const QTextDocument* doc)
{
    for (QTextBlock block = doc->begin(); block.isValid(); block = block.next())
        for (auto it = block.begin(); !it.atEnd(); ++it) {
            const QTextFragment fragment = it.fragment();
            if (fragment.charFormat().underlineStyle() == QTextCharFormat::WaveUnderline)
                return fragment.position();
        }
    return -1;
}

} // namespace

class TestFidelity : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion"))); }

    void words()
    {
        QCOMPARE(divergenceBucket(0), 0);
        QCOMPARE(divergenceBucket(1), 1);
        QCOMPARE(divergenceBucket(3), 1);
        QCOMPARE(divergenceBucket(4), 2);
        QCOMPARE(divergenceBucket(15), 3);
        QCOMPARE(divergenceBucket(16), 4);
        QCOMPARE(divergenceBucket(63), 5);
        QCOMPARE(divergenceBucket(64), 6);
        QCOMPARE(divergenceBucket(100000), 6);
        QCOMPARE(divergenceBuckets().size(), 7);
        QCOMPARE(klNumber(0), QStringLiteral("0"));
        QCOMPARE(klNumber(0.0123456), QStringLiteral("0.0123"));
        QCOMPARE(klNumber(std::numeric_limits<double>::quiet_NaN()), QStringLiteral("—"));
        QCOMPARE(fidelityPercent(std::numeric_limits<double>::infinity()), QStringLiteral("—"));
        QCOMPARE(probabilityText(std::nullopt), QStringLiteral("—"));
    }

    void showsTheNumbers()
    {
        FidelityView view;
        view.setData(fidelityData());
        QVERIFY(view.statusText().isEmpty());
        QCOMPARE(
            view.referenceText(), QStringLiteral("Reference: q4km-like — marked as the fidelity reference"));
        const QTableWidget* arms = view.armsTable();
        QCOMPARE(arms->rowCount(), 2);
        QCOMPARE(cell(arms, 0, FidelityView::ArmName), QStringLiteral("nvfp4-like (simulated)"));
        QCOMPARE(cell(arms, 0, FidelityView::ArmPrompts), QStringLiteral("4"));
        QCOMPARE(cell(arms, 0, FidelityView::ArmIdentical), QStringLiteral("1"));
        QCOMPARE(cell(arms, 0, FidelityView::ArmFlipRate), QStringLiteral("75.0 % [19.4 – 99.4 %]"));
        QCOMPARE(cell(arms, 0, FidelityView::ArmKlMean), QStringLiteral("0.0423 nats [0.011 – 0.093]"));
        QCOMPARE(cell(arms, 0, FidelityView::ArmKlP99), QStringLiteral("0.61"));
        QCOMPARE(cell(arms, 0, FidelityView::ArmSharedPrefix), QStringLiteral("11.5 tokens (mean 42.0 %)"));
        QCOMPARE(cell(arms, 0, FidelityView::ArmLogprobDelta), QStringLiteral("0.0031 nats"));
        QCOMPARE(cell(arms, 0, FidelityView::ArmGradeFlips), QStringLiteral("1 of 2 graded"));
        QCOMPARE(
            cell(arms, 0, FidelityView::ArmDivergenceKinds), QStringLiteral("2 near-ties / 1 confident"));

        // The arm whose tokens do not line up: why, and never a NaN or inf on screen.
        QCOMPARE(cell(arms, 1, FidelityView::ArmName), QStringLiteral("other-tokenizer (simulated)"));
        QCOMPARE(
            cell(arms, 1, FidelityView::ArmKlMean), QStringLiteral("not comparable — tokenizers differ"));
        QCOMPARE(cell(arms, 1, FidelityView::ArmKlP99), QStringLiteral("—"));
        QCOMPARE(cell(arms, 1, FidelityView::ArmLogprobDelta), QStringLiteral("—"));
        QCOMPARE(cell(arms, 1, FidelityView::ArmSharedPrefix), QStringLiteral("4 tokens (mean —)"));
        QCOMPARE(cell(arms, 1, FidelityView::ArmGradeFlips), QStringLiteral("— (no graded prompts)"));
        verifyFinite(arms);
        QVERIFY(view.findChild<QLabel*>(QStringLiteral("fidelityNotes"))->text().contains(u"not comparable"));
    }

    void referenceIsTheBaselineWhenNoneIsMarked()
    {
        FidelityView view;
        view.setData(fidelityData(false));
        QCOMPARE(view.referenceText(),
            QStringLiteral("Reference: q4km-like — the baseline (no endpoint is marked as the reference)"));
    }

    void listsThePromptsOfTheSelectedArm()
    {
        FidelityView view;
        view.setData(fidelityData());
        QCOMPARE(view.currentArm(), 1);
        const QTableWidget* prompts = view.promptsTable();
        QCOMPARE(prompts->rowCount(), 4);
        QCOMPARE(cell(prompts, 0, FidelityView::PromptTest), QStringLiteral("greeting"));
        QCOMPARE(cell(prompts, 0, FidelityView::PromptFirstDivergence), QStringLiteral("identical"));
        QCOMPARE(cell(prompts, 0, FidelityView::PromptRank), QStringLiteral("—"));
        QCOMPARE(cell(prompts, 1, FidelityView::PromptRun), QStringLiteral("1"));
        QCOMPARE(cell(prompts, 1, FidelityView::PromptFirstDivergence), QStringLiteral("token 3"));
        QCOMPARE(cell(prompts, 1, FidelityView::PromptSharedPrefix), QStringLiteral("3 of 24 tokens"));
        QCOMPARE(cell(prompts, 1, FidelityView::PromptRank), QStringLiteral("2"));
        QCOMPARE(cell(prompts, 1, FidelityView::PromptProb), QStringLiteral("0.310"));
        QCOMPARE(cell(prompts, 1, FidelityView::PromptKl), QStringLiteral("0.012"));
        QCOMPARE(cell(prompts, 1, FidelityView::PromptGrade), QStringLiteral("same"));
        QCOMPARE(cell(prompts, 2, FidelityView::PromptRank), QStringLiteral("unlisted (> 20)"));
        QCOMPARE(cell(prompts, 2, FidelityView::PromptGrade), QStringLiteral("changed"));
        verifyFinite(prompts);

        // Double-clicking a prompt asks for its answers.
        QSignalSpy activated(&view, &FidelityView::promptActivated);
        Q_EMIT view.promptsTable()->cellDoubleClicked(1, 0);
        QCOMPARE(activated.count(), 1);
        QCOMPARE(activated[0][0].toString(), QStringLiteral("reasoning"));
        QCOMPARE(activated[0][1].toInt(), 1);
        QCOMPARE(activated[0][2].toInt(), 1);

        QVERIFY(view.selectArm(2));
        QCOMPARE(view.armsTable()->currentRow(), 1);
        QCOMPARE(prompts->rowCount(), 2);
        QCOMPARE(
            cell(prompts, 0, FidelityView::PromptFirstDivergence), QStringLiteral("token 5 (by characters)"));
        QCOMPARE(cell(prompts, 0, FidelityView::PromptKl), QStringLiteral("not comparable"));
        QCOMPARE(cell(prompts, 0, FidelityView::PromptNote), QStringLiteral("tokenizers differ"));
        verifyFinite(prompts);
        QVERIFY(!view.selectArm(0)); // the reference is not an arm

        // A live refresh keeps the chosen arm.
        view.setData(fidelityData());
        QCOMPARE(view.currentArm(), 2);
    }

    void chartsPlotEveryArm()
    {
        FidelityView view;
        view.setData(fidelityData());
        const auto kl = view.klChart()->values();
        QCOMPARE(int(kl.size()), 2);
        QCOMPARE(*kl[0], 0.0423);
        QVERIFY(!kl[1]); // not comparable: no bar
        QVERIFY(view.klChart()->subtitle().contains(u"Not comparable (no bar): other-tokenizer"));
        const auto flips = view.flipChart()->values();
        QCOMPARE(*flips[0], 75.0);
        QCOMPARE(*flips[1], 50.0);
        const auto counts = view.divergenceChart()->counts();
        QCOMPARE(counts.size(), std::size_t(2));
        QCOMPARE(counts[0], (std::vector<int> {1, 1, 0, 0, 1, 0, 0}));
        QCOMPARE(counts[1], (std::vector<int> {0, 0, 1, 0, 0, 0, 1}));
    }

    void emptyStateSaysHowToMeasure()
    {
        const QString how = QStringLiteral("quantscope run --suite fidelity --reference NAME");
        FidelityView view;
        QVERIFY(view.statusText().contains(how));
        QCOMPARE(view.armsTable()->rowCount(), 0);

        view.setData(test::fixtureData()); // a run without fidelity tests
        QVERIFY(view.statusText().startsWith(u"No fidelity measured in this run."));
        QVERIFY(view.statusText().contains(how));
        QVERIFY(view.statusText().contains(u"\"fidelity\": true"));
        QCOMPARE(view.armsTable()->rowCount(), 0);
        QCOMPARE(view.promptsTable()->rowCount(), 0);
        QCOMPARE(view.currentArm(), -1);
        QVERIFY(view.referenceText().isEmpty());
        QVERIFY(view.klChart()->subtitle().contains(u"No fidelity measured"));

        // From measured to not: nothing of the old run is left.
        view.setData(fidelityData());
        QCOMPARE(view.armsTable()->rowCount(), 2);
        view.setData(test::fixtureData());
        QCOMPARE(view.armsTable()->rowCount(), 0);
    }

    void responsesMarkTheDivergence()
    {
        const DashboardData data = fidelityData();
        ResponsesView view;
        view.setData(data);
        QVERIFY(view.select(QStringLiteral("reasoning"), 1, 1));
        ResponseColumn* reference = view.column(0);
        ResponseColumn* candidate = view.column(1);
        QVERIFY(reference->fidelityText().contains(u"The fidelity reference"));
        QVERIFY(!reference->divergenceChar());
        QCOMPARE(candidate->fidelityText(),
            QStringLiteral("Diverges from the reference at token 3 (the reference's token: rank 2 here, p = "
                           "0.310, its own choice p = 0.520)"));
        QCOMPARE(candidate->divergenceChar(), std::optional<int>(12));

        // Raw: underlined exactly from the diverging character on (the answer starts at 0 here).
        const RunRecord& record = data.result->records[std::size_t(recordOf(*data.result, 1, "reasoning"))];
        QCOMPARE(answerStart(record.request), 0);
        QVERIFY(record.request.response.content.size() > 12);
        QTextDocument* doc = candidate->answerView()->document();
        QCOMPARE(doc->toPlainText().left(20), record.request.response.content.left(20));
        QCOMPARE(firstWavy(doc), 12);
        QCOMPARE(firstWavy(reference->answerView()->document()), -1);

        // Rendered: no positions to mark, the line says where to look.
        view.setRendered(true);
        QCOMPARE(firstWavy(candidate->answerView()->document()), -1);
        QVERIFY(candidate->fidelityText().endsWith(u"Switch to Raw to see where."));
        view.setRendered(false);
        QCOMPARE(firstWavy(candidate->answerView()->document()), 12);

        // An identical answer: said, nothing marked.
        QVERIFY(view.select(QStringLiteral("greeting"), 1, 1));
        QVERIFY(candidate->fidelityText().startsWith(u"Identical to the reference's answer"));
        QVERIFY(!candidate->divergenceChar());
        QCOMPARE(firstWavy(candidate->answerView()->document()), -1);

        // Not measured: no line, no mark.
        QVERIFY(view.select(QStringLiteral("tool-web"), 1, 1));
        QVERIFY(candidate->fidelityText().isEmpty());
        QVERIFY(reference->fidelityText().isEmpty());
        view.setData(test::fixtureData());
        QVERIFY(view.select(QStringLiteral("factual"), 1, 1));
        QVERIFY(view.column(1)->fidelityText().isEmpty());
        QCOMPARE(firstWavy(view.column(1)->answerView()->document()), -1);
    }

    void divergenceCountsTheReasoningFirst()
    {
        // The comparison reads reasoning then content: 10 characters of reasoning move the mark
        // 10 characters back into the content; a divergence inside the reasoning marks it all.
        DashboardData data = fidelityData();
        auto run = std::make_shared<RunResult>(*data.result);
        const int index = recordOf(*run, 1, "reasoning");
        run->records[std::size_t(index)].request.response.reasoning = QStringLiteral("0123456789");
        auto evaluation = std::make_shared<Evaluation>(*data.evaluation);
        FidelityPrompt& p = evaluation->fidelity.arms[0].prompts[1];
        QCOMPARE(p.candidateRecord, index);
        p.firstDivergenceChar = 22;
        data.result = run;
        data.evaluation = evaluation;
        ResponsesView view;
        view.setData(data);
        QVERIFY(view.select(QStringLiteral("reasoning"), 1, 1));
        QCOMPARE(view.column(1)->divergenceChar(), std::optional<int>(12));
        QCOMPARE(firstWavy(view.column(1)->answerView()->document()), 12);

        p.firstDivergenceChar = 4;
        view.setData(data);
        QCOMPARE(view.column(1)->divergenceChar(), std::optional<int>(0));
        QCOMPARE(firstWavy(view.column(1)->answerView()->document()), 0);
    }

    void rendersInBothThemes()
    {
        FidelityView view;
        view.setData(fidelityData());
        for (Theme theme : {Theme::Light, Theme::Dark}) {
            view.setTheme(theme);
            view.resize(1400, 900);
            view.show();
            QCoreApplication::processEvents();
            const QImage image = renderWidget(&view, 1);
            QCOMPARE(image.size(), QSize(1400, 900));
            QVERIFY(test::distinctColours(image, 2) > 40);
            const QString dir = qEnvironmentVariable("QS_SHOTS_DIR");
            if (!dir.isEmpty()) {
                QDir().mkpath(dir);
                QCOMPARE(
                    savePng(image, dir + QStringLiteral("/fidelity-%1.png").arg(themeId(theme))), QString());
            }
        }
        // The responses with the divergence mark, for a look.
        const QString dir = qEnvironmentVariable("QS_SHOTS_DIR");
        if (!dir.isEmpty()) {
            ResponsesView responses;
            responses.setData(fidelityData());
            QVERIFY(responses.select(QStringLiteral("reasoning"), 1, 1));
            responses.resize(1400, 760);
            responses.show();
            QCoreApplication::processEvents();
            QCOMPARE(savePng(renderWidget(&responses, 1), dir + QStringLiteral("/fidelity-responses.png")),
                QString());
        }
    }
};

QTEST_MAIN(TestFidelity)
#include "tst_fidelity.moc"
