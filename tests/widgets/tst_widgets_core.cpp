// SPDX-License-Identifier: MIT
// Theme, dashboard data and the screenshot renderer.
#include "WidgetTestSupport.h"
#include "widgets/ScreenshotRenderer.h"
#include "widgets/Theme.h"
#include "widgets/ViewParts.h"

#include <QIcon>
#include <QImage>
#include <QLabel>
#include <QTemporaryDir>
#include <QTest>
#include <cmath>

using namespace qs;

class TestWidgetsCore : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void runAndStopIconsShowOnBothThemes()
    {
        // The style's media icons were black: invisible on the dark toolbar. Drawn in the theme's
        // accents, each icon's strongest pixel stands out from the window behind it.
        const auto luminance
            = [](const QColor& c) { return 0.2126 * c.redF() + 0.7152 * c.greenF() + 0.0722 * c.blueF(); };
        for (Theme theme : {Theme::Light, Theme::Dark}) {
            const ThemeColors& c = themeColors(theme);
            for (const QIcon& icon : {playIcon(c.pass), stopIcon(c.criticalAccent)}) {
                const QImage image = icon.pixmap(16, 16).toImage();
                QColor ink;
                for (int y = 0; y < image.height(); ++y)
                    for (int x = 0; x < image.width(); ++x)
                        if (image.pixelColor(x, y).alpha() == 255)
                            ink = image.pixelColor(x, y);
                QVERIFY2(ink.isValid(), "the icon draws something opaque");
                QVERIFY2(std::abs(luminance(ink) - luminance(c.window)) > 0.2,
                    qPrintable(QStringLiteral("%1 on %2").arg(ink.name(), c.window.name())));
            }
        }
    }

    void fixtureIsEvaluated()
    {
        const DashboardData d = test::fixtureData();
        QVERIFY(!d.isEmpty());
        QVERIFY(d.evaluation);
        QVERIFY(d.evaluation->hasComparison);
        QCOMPARE(d.result->endpoints.size(), std::size_t(2));
        QVERIFY(!d.evaluation->cells.empty());
        QVERIFY(!d.evaluation->guardrails.empty());
        QVERIFY(d.trace);
        QCOMPARE(d.trace->endpoints(), 2);
        // Every token event of the file lands in the trace.
        qint64 events = 0;
        for (const RunRecord& r : d.result->records)
            events += qint64(r.request.response.tokenEvents.size());
        qint64 counted = 0;
        for (int e = 0; e < 2; ++e)
            for (int b = 0; b < d.trace->buckets(); ++b)
                counted += d.trace->count(e, b);
        QCOMPARE(counted, events);
        QVERIFY(events > 1000);
    }

    void withoutComparisonSkipsTheBootstrap()
    {
        const DashboardData d = prepareDashboard(test::loadFixture(), 1, false);
        QVERIFY(!d.evaluation->hasComparison);
        QVERIFY(d.evaluation->comparison.arms.empty());
        QCOMPARE(d.evaluation->baseline, 1);
        QVERIFY(!d.evaluation->cells.empty());
    }

    void endpointTitlesSaySimulated()
    {
        const auto r = test::loadFixture();
        QVERIFY(endpointTitle(*r, 0).contains(QStringLiteral("simulated")));
        QCOMPARE(endpointTitle(*r, 7), QStringLiteral("endpoint 7"));
    }

    void themesAreDistinctAndRoundTrip()
    {
        QCOMPARE(themeFromId(QStringLiteral("Light")), Theme::Light);
        QCOMPARE(themeFromId(QStringLiteral("dark")), Theme::Dark);
        QVERIFY(!themeFromId(QStringLiteral("sepia")));
        QVERIFY(themeColors(Theme::Light).base != themeColors(Theme::Dark).base);
        QVERIFY(endpointColor(0, Theme::Light) != endpointColor(1, Theme::Light));
        QCOMPARE(endpointColor(8, Theme::Dark), endpointColor(0, Theme::Dark));
    }

    void renderWidgetHonoursScale_data()
    {
        QTest::addColumn<qreal>("scale");
        QTest::newRow("1x") << 1.0;
        QTest::newRow("2x") << 2.0;
        QTest::newRow("3x") << 3.0;
    }
    void renderWidgetHonoursScale()
    {
        QFETCH(qreal, scale);
        QLabel label(QStringLiteral("Quantscope"));
        label.resize(320, 200);
        const QImage image = renderWidget(&label, scale);
        QCOMPARE(image.width(), int(320 * scale));
        QCOMPARE(image.height(), int(200 * scale));
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("shot.png"));
        QCOMPARE(savePng(image, path), QString());
        QImage back(path);
        QCOMPARE(back.size(), image.size());
        QVERIFY(
            savePng(image, dir.filePath(QStringLiteral("missing/dir/shot.png"))).contains(u"cannot write"));
        QVERIFY(!savePng(QImage(), path).isEmpty());
    }
};

QTEST_MAIN(TestWidgetsCore)
#include "tst_widgets_core.moc"
