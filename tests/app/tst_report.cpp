// SPDX-License-Identifier: MIT
// `quantscope report` end to end: the real binary writes Markdown, HTML and PDF from the fixture
// results file, and explains the mistakes a user can make.
#include "tests/app/CliSupport.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

class TestReport : public QObject {
    Q_OBJECT

    using Run = qs::test::CliRun;
    static Run run(const QStringList& args)
    {
        return qs::test::runCli(QStringList {QStringLiteral("report")} + args, 120000);
    }

    static QString fixture() { return QStringLiteral(QS_TEST_DATA "/results/voice-sim.json"); }

    static QByteArray read(const QString& path)
    {
        QFile f(path);
        return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
    }

    QTemporaryDir m_dir;

private slots:
    void markdownWithImagesBesideIt()
    {
        const QString path = m_dir.filePath(QStringLiteral("voice.md"));
        const Run r = run(
            {fixture(), QStringLiteral("--format"), QStringLiteral("md"), QStringLiteral("--out"), path});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const QString md = QString::fromUtf8(read(path));
        QVERIFY(md.startsWith(QStringLiteral("# nvfp4-like (simulated) vs q4km-like (simulated)")));
        // The fixture's story: the candidate leaks thinking, writes markdown and breaks tool calls.
        QVERIFY(md.contains(QStringLiteral("KEEP BASELINE")));
        QVERIFY(md.contains(QStringLiteral("## Sample responses")));
        QVERIFY(md.contains(QStringLiteral("#### What would change this recommendation")));
        // Issue #11: a run without telemetry says so, and how to collect it; the checklist is there.
        QVERIFY(md.contains(
            QStringLiteral("## Resources\n\n**Not measured:** this run collected no server telemetry")));
        QVERIFY(md.contains(QStringLiteral("## Drop-in replacement checklist")));
        QVERIFY(md.contains(
            QStringLiteral("| Deployment (the start script launches the new server) | *check by hand* |")));
        // Every image link resolves to a PNG written beside the document.
        const QRegularExpression link(QStringLiteral("!\\[[^\\]]*\\]\\(([^)]+)\\)"));
        int images = 0;
        for (auto it = link.globalMatch(md); it.hasNext();) {
            const QString target = it.next().captured(1);
            QVERIFY2(target.startsWith(QStringLiteral("voice-assets/")), qPrintable(target));
            const QByteArray png = read(m_dir.filePath(target));
            QVERIFY2(png.startsWith("\x89PNG"), qPrintable(target));
            ++images;
        }
        QCOMPARE(images, 4); // TTFT vs turn, decode rate, latency vs length, TTFT per test
        QVERIFY(r.out.contains(QStringLiteral("4 images")));
    }

    void htmlIsSelfContained()
    {
        const QString path = m_dir.filePath(QStringLiteral("voice.html"));
        const Run r = run(
            {fixture(), QStringLiteral("--format"), QStringLiteral("html"), QStringLiteral("--out"), path});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const QString html = QString::fromUtf8(read(path));
        QVERIFY(html.startsWith(QStringLiteral("<!DOCTYPE html>")));
        QCOMPARE(html.count(QStringLiteral("src=\"data:image/png;base64,")), 4);
        // Nothing is loaded from elsewhere: every src is a data: URI, no stylesheet or script links.
        const QRegularExpression src(QStringLiteral("src=\"([^\"]*)\""));
        for (auto it = src.globalMatch(html); it.hasNext();)
            QVERIFY(it.next().captured(1).startsWith(QStringLiteral("data:image/png;base64,")));
        QVERIFY(!html.contains(QStringLiteral("<link")));
        QVERIFY(!html.contains(QStringLiteral("<script")));
        QVERIFY(html.contains(QStringLiteral("NOT an apples-to-apples"))
            || html.contains(QStringLiteral("Warning:")));
    }

    void pdfThroughQtPrinting()
    {
        const QString path = m_dir.filePath(QStringLiteral("voice.pdf"));
        // The format also follows from the name.
        const Run r = run({fixture(), QStringLiteral("--out"), path});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const QByteArray pdf = read(path);
        QVERIFY(pdf.startsWith("%PDF"));
        QVERIFY2(pdf.size() > 10 * 1024, qPrintable(QString::number(pdf.size())));
    }

    void baselineAndProfileChoices()
    {
        const QString path = m_dir.filePath(QStringLiteral("swapped.md"));
        const Run r = run({fixture(), QStringLiteral("--baseline"), QStringLiteral("1"),
            QStringLiteral("--profile"), QStringLiteral("voice-assistant"), QStringLiteral("--out"), path});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const QString md = QString::fromUtf8(read(path));
        QVERIFY(md.startsWith(QStringLiteral("# q4km-like (simulated) vs nvfp4-like (simulated)")));
    }

    void mistakesExplainThemselves()
    {
        const QString out = m_dir.filePath(QStringLiteral("x.pdf"));
        Run r = run(
            {fixture(), QStringLiteral("--format"), QStringLiteral("docx"), QStringLiteral("--out"), out});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains(QStringLiteral("md, html or pdf")), qPrintable(r.err));

        r = run({fixture(), QStringLiteral("--out"), m_dir.filePath(QStringLiteral("x.docx"))});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains(QStringLiteral("--format")), qPrintable(r.err));

        r = run({fixture(), QStringLiteral("--format"), QStringLiteral("pdf")});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains(QStringLiteral("--out")), qPrintable(r.err));

        r = run({m_dir.filePath(QStringLiteral("missing.json")), QStringLiteral("--out"), out});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains(QStringLiteral("missing.json")), qPrintable(r.err));

        r = run({fixture(), QStringLiteral("--profile"), QStringLiteral("no-such-profile"),
            QStringLiteral("--out"), out});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains(QStringLiteral("no-such-profile"))
                && r.err.contains(QStringLiteral("voice-assistant")),
            qPrintable(r.err));

        r = run(
            {fixture(), QStringLiteral("--baseline"), QStringLiteral("nope"), QStringLiteral("--out"), out});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains(QStringLiteral("q4km-like (simulated)")), qPrintable(r.err));

        QVERIFY(!QFile::exists(out)); // nothing half-written
    }

    void listedInTheHelp()
    {
        QProcess p;
        p.start(QStringLiteral(QS_BINARY), {QStringLiteral("--help")});
        QVERIFY(p.waitForFinished(30000));
        QVERIFY(QString::fromUtf8(p.readAllStandardOutput()).contains(QStringLiteral("report FILE")));
    }
};

QTEST_GUILESS_MAIN(TestReport)
#include "tst_report.moc"
