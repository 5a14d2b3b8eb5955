// SPDX-License-Identifier: MIT
// The headless `quantscope screenshot` command on the fixture: every view the dashboard lists, at
// its size and scale, not blank; an unknown view, a missing file, a bad scale and an unknown
// baseline refused.
#include "app/common/DashboardViews.h"
#include "tests/app/CliSupport.h"
#include "tests/app/GuiTestSupport.h"

#include <QFile>
#include <QImage>
#include <QSettings>
#include <QTemporaryDir>
#include <QTest>

using namespace qs;
using qs::test::fixture;

namespace {

using Cli = qs::test::CliRun;

Cli runCli(const QStringList& args)
{
    return qs::test::runCli(args, 120000);
}

} // namespace

class TestGuiScreenshot : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void init() { QSettings().clear(); }
    void cleanup() { qs::test::closeMessageBoxes(); }

    void screenshotCommandRendersEveryView()
    {
        const Cli list = runCli({QStringLiteral("screenshot"), QStringLiteral("--list-views")});
        QCOMPARE(list.code, 0);
        // A line per view: its name, then what it shows.
        QStringList expected, names;
        for (const app::ViewInfo& v : app::dashboardViews()) {
            expected << v.name;
            QVERIFY(!v.description.isEmpty());
        }
        const QStringList lines = list.out.split(u'\n', Qt::SkipEmptyParts);
        for (const QString& line : lines) {
            names << line.section(u' ', 0, 0);
            QVERIFY2(line.size() > names.back().size() + 10, qPrintable(line));
        }
        QCOMPARE(names, expected);
        QVERIFY2(!list.err.contains(QStringLiteral("propagateSizeHints")), qPrintable(list.err));

        QTemporaryDir dir;
        for (const app::ViewInfo& v : app::dashboardViews()) {
            const int scale = v.name == u"window" ? 1 : 2;
            const QString out = dir.filePath(v.name + QStringLiteral(".png"));
            const Cli r = runCli({QStringLiteral("screenshot"), fixture(), QStringLiteral("--view"), v.name,
                QStringLiteral("--out"), out, QStringLiteral("--scale"), QString::number(scale),
                QStringLiteral("--theme"),
                v.name == u"quality" ? QStringLiteral("dark") : QStringLiteral("light")});
            QVERIFY2(r.code == 0, qPrintable(v.name + QStringLiteral(": ") + r.err));
            QVERIFY2(!r.err.contains(QStringLiteral("propagateSizeHints")), qPrintable(r.err));
            const QImage image(out);
            // The view's size, or taller where wrapped text needs it (never cut off).
            QCOMPARE(image.width(), v.size.width() * scale);
            QVERIFY2(image.height() >= v.size.height() * scale, qPrintable(v.name));
            // Not a blank canvas: a real picture has many colours.
            QVERIFY2(test::distinctColours(image, 7) > 8, qPrintable(v.name));
        }
        const Cli bad = runCli({QStringLiteral("screenshot"), fixture(), QStringLiteral("--view"),
            QStringLiteral("nope"), QStringLiteral("--out"), dir.filePath(QStringLiteral("x.png"))});
        QCOMPARE(bad.code, 2);
        QVERIFY(bad.err.contains(QStringLiteral("ttft-turn")));
        const Cli missing = runCli({QStringLiteral("screenshot"), dir.filePath(QStringLiteral("none.json")),
            QStringLiteral("--view"), QStringLiteral("quality"), QStringLiteral("--out"),
            dir.filePath(QStringLiteral("x.png"))});
        QCOMPARE(missing.code, 1);
        QVERIFY(missing.err.contains(QStringLiteral("none.json")));
        const Cli scale = runCli({QStringLiteral("screenshot"), fixture(), QStringLiteral("--view"),
            QStringLiteral("quality"), QStringLiteral("--out"), dir.filePath(QStringLiteral("x.png")),
            QStringLiteral("--scale"), QStringLiteral("5")});
        QCOMPARE(scale.code, 2);
        // The statistics as seen from the other endpoint; an unknown baseline is refused.
        const Cli flipped = runCli({QStringLiteral("screenshot"), fixture(), QStringLiteral("--view"),
            QStringLiteral("statistics"), QStringLiteral("--out"), dir.filePath(QStringLiteral("s.png")),
            QStringLiteral("--baseline"), QStringLiteral("1")});
        QVERIFY2(flipped.code == 0, qPrintable(flipped.err));
        QVERIFY(QImage(dir.filePath(QStringLiteral("s.png"))).width() > 0);
        const Cli noBaseline = runCli({QStringLiteral("screenshot"), fixture(), QStringLiteral("--view"),
            QStringLiteral("statistics"), QStringLiteral("--out"), dir.filePath(QStringLiteral("t.png")),
            QStringLiteral("--baseline"), QStringLiteral("9")});
        QCOMPARE(noBaseline.code, 2);
        QVERIFY2(noBaseline.err.contains(QStringLiteral("use one of: 0 \"")), qPrintable(noBaseline.err));
        QVERIFY(!QFile::exists(dir.filePath(QStringLiteral("t.png"))));
    }

    void checkSaysWhatAPersonWouldNotice()
    {
        // `--check` (issue #26): the warnings at their default size pass; squeezed, the statistics
        // tables scroll sideways — named, exit code 3, the image written all the same.
        QTemporaryDir dir;
        const Cli fine = runCli(
            {QStringLiteral("screenshot"), fixture(), QStringLiteral("--view"), QStringLiteral("guardrails"),
                QStringLiteral("--out"), dir.filePath(QStringLiteral("d.png")), QStringLiteral("--check")});
        QVERIFY2(fine.code == 0, qPrintable(fine.err));
        QVERIFY2(fine.err.contains(QStringLiteral("screen check: nothing cut off")), qPrintable(fine.err));
        const Cli squeezed = runCli({QStringLiteral("screenshot"), fixture(), QStringLiteral("--view"),
            QStringLiteral("statistics"), QStringLiteral("--size"), QStringLiteral("400x300"),
            QStringLiteral("--out"), dir.filePath(QStringLiteral("e.png")), QStringLiteral("--check")});
        QCOMPARE(squeezed.code, 3);
        QVERIFY2(squeezed.err.contains(QStringLiteral("screen check: horizontal_scrollbar")),
            qPrintable(squeezed.err));
        QVERIFY(QImage(dir.filePath(QStringLiteral("e.png"))).width() > 0);
    }
};

int main(int argc, char** argv)
{
    return qs::test::guiTestMain<TestGuiScreenshot>(argc, argv);
}

#include "tst_gui_screenshot.moc"
