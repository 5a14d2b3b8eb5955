// SPDX-License-Identifier: MIT
// The dashboard's Export Report dialog, offscreen: preview, profile choice, saving.
#include "app/common/PagedTables.h"
#include "app/common/ReportWriter.h"
#include "app/dashboard/ReportDialog.h"
#include "model/store/ResultFile.h"

#include <QAbstractTextDocumentLayout>
#include <QBuffer>
#include <QFile>
#include <QPdfWriter>
#include <QTemporaryDir>
#include <QTextBlock>
#include <QTextBrowser>
#include <QtTest>
#include <memory>

class TestReportDialog : public QObject {
    Q_OBJECT

    static qs::DashboardData fixture()
    {
        qs::RunResult r = qs::loadResults(QStringLiteral(QS_TEST_DATA "/results/voice-sim.json"));
        qs::ensureGates(r);
        // A first-pass evaluation, as the dashboard shows it before the bootstrap finishes: the
        // dialog must complete it (the verdict needs the paired comparison).
        qs::DashboardData data = qs::prepareDashboard(std::make_shared<const qs::RunResult>(r), 0, false);
        data.sources = {QStringLiteral("voice-sim.json")};
        return data;
    }

    /// The page (from 0) the first block containing `text` is printed on; -1 when none does.
    static int pageOf(QTextDocument& document, const QString& text)
    {
        for (QTextBlock b = document.begin(); b.isValid(); b = b.next())
            if (b.text().contains(text))
                return int(
                    document.documentLayout()->blockBoundingRect(b).top() / document.pageSize().height());
        return -1;
    }

private slots:
    void previewShowsTheDocument()
    {
        qs::app::ReportDialog dialog(fixture());
        QVERIFY(!dialog.preview()->openLinks());
        const QString text = dialog.preview()->toPlainText();
        QVERIFY(text.contains(QStringLiteral("Endpoints compared")));
        QVERIFY(text.contains(QStringLiteral("Sample responses")));
        QVERIFY(text.contains(QStringLiteral("What would change this recommendation")));
        QCOMPARE(dialog.headlines().size(), 1);
        // The charts are resources of the preview's document.
        QVERIFY(!dialog.preview()
                     ->document()
                     ->resource(QTextDocument::ImageResource, QUrl(QStringLiteral("chart-decode-tps.png")))
                     .isNull());
    }

    void unknownProfileKeepsTheCurrentOne()
    {
        qs::app::ReportDialog dialog(fixture());
        const QStringList before = dialog.headlines();
        QVERIFY(!dialog.setProfile(QStringLiteral("/nonexistent/profile.json")).isEmpty());
        QCOMPARE(dialog.headlines(), before);
    }

    void savesEveryFormat()
    {
        QTemporaryDir dir;
        qs::app::ReportDialog dialog(fixture());
        dialog.setFormat(qs::app::ReportFormat::Html);
        QCOMPARE(dialog.saveTo(dir.filePath(QStringLiteral("r.html"))), QString());
        QFile html(dir.filePath(QStringLiteral("r.html")));
        QVERIFY(html.open(QIODevice::ReadOnly));
        QVERIFY(html.readAll().contains("data:image/png;base64,"));
        dialog.setFormat(qs::app::ReportFormat::Pdf);
        QCOMPARE(dialog.saveTo(dir.filePath(QStringLiteral("r.pdf"))), QString());
        QFile pdf(dir.filePath(QStringLiteral("r.pdf")));
        QVERIFY(pdf.open(QIODevice::ReadOnly));
        QVERIFY(pdf.read(4) == "%PDF");
        dialog.setFormat(qs::app::ReportFormat::Markdown);
        QCOMPARE(dialog.saveTo(dir.filePath(QStringLiteral("r.md"))), QString());
        QVERIFY(QFile::exists(dir.filePath(QStringLiteral("r-assets/ttft-turn.png"))));
    }

    /// Issue #26: the printed document leads with the answer and never leaves half a row on a page.
    void printedPagesLeadWithTheVerdictAndKeepRowsWhole()
    {
        qs::app::ReportDialog dialog(fixture());
        std::unique_ptr<QTextDocument> document(dialog.preview()->document()->clone());
        QBuffer sink;
        sink.open(QIODevice::WriteOnly);
        QPdfWriter pdf(&sink);
        qs::app::setUpA4(pdf);
        // Qt alone breaks the fixture's wrapped rows across pages: the check below can fail.
        qs::app::layOutForPrint(*document, pdf, false);
        const std::vector<qs::app::SplitRow> split = qs::app::splitTableRows(*document);
        QVERIFY2(!split.empty(), "the fixture no longer has a row Qt would split: the test proves nothing");
        const int pagesBefore = document->pageCount();

        qs::app::layOutForPrint(*document, pdf, true);
        for (const qs::app::SplitRow& row : qs::app::splitTableRows(*document))
            QFAIL(qPrintable(QStringLiteral("row %1 (\"%2\") crosses from page %3")
                                 .arg(row.row)
                                 .arg(row.text.left(60))
                                 .arg(row.page + 1)));
        // Whole rows move, nothing else: a page or two more at most.
        QVERIFY2(document->pageCount() <= pagesBefore + 2,
            qPrintable(QStringLiteral("%1 → %2 pages").arg(pagesBefore).arg(document->pageCount())));

        // Page 1: the verdict, the criteria that decided it, what would change it, the warnings.
        QCOMPARE(pageOf(*document, QStringLiteral("Recommendation: KEEP BASELINE")), 0);
        QCOMPARE(pageOf(*document, QStringLiteral("No thinking leaks")), 0);
        QCOMPARE(pageOf(*document, QStringLiteral("What would change it first")), 0);
        QCOMPARE(pageOf(*document, QStringLiteral("Methodology: 3 warnings: ")), 0);
        QVERIFY(pageOf(*document, QStringLiteral("What would change this recommendation")) > 0);
    }
};

QTEST_MAIN(TestReportDialog)
#include "tst_report_dialog.moc"
