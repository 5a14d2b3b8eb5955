// SPDX-License-Identifier: MIT
// The dashboard's Export Report dialog, offscreen: preview, profile choice, saving.
#include "app/dashboard/ReportDialog.h"
#include "model/store/ResultFile.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTextBrowser>
#include <QtTest>

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
};

QTEST_MAIN(TestReportDialog)
#include "tst_report_dialog.moc"
