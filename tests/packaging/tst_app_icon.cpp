// SPDX-License-Identifier: MIT
// The window icon the dashboard sets (app/dashboard/GuiCommand.cpp) comes from Qt resources compiled into
// qs_app (resources/CMakeLists.txt). A missing or mis-sized entry would only show as a generic
// icon in the task bar, so check every size here.
#include <QImage>
#include <QTest>

class TestAppIcon : public QObject {
    Q_OBJECT

private slots:
    void everySizeIsInTheResource_data()
    {
        QTest::addColumn<int>("size");
        for (const int size : {16, 32, 48, 64, 128, 256})
            QTest::addRow("%dpx", size) << size;
    }

    void everySizeIsInTheResource()
    {
        QFETCH(int, size);
        const QImage image(QStringLiteral(":/icons/quantscope-%1.png").arg(size));
        QVERIFY2(!image.isNull(), "the icon is missing from the qs_app resources");
        QCOMPARE(image.size(), QSize(size, size));
        // Transparent corners (the rounded square), opaque middle: the drawing is there.
        QCOMPARE(qAlpha(image.pixel(0, 0)), 0);
        QCOMPARE(qAlpha(image.pixel(size / 2, size / 2)), 255);
    }

    void resourceMatchesThePackagedIcon()
    {
        // One picture: the resource is built from the PNG the package installs.
        QFile packaged(QStringLiteral(QS_PACKAGING_ICONS "/quantscope-256.png"));
        QFile resource(QStringLiteral(":/icons/quantscope-256.png"));
        QVERIFY(packaged.open(QIODevice::ReadOnly));
        QVERIFY(resource.open(QIODevice::ReadOnly));
        QCOMPARE(resource.readAll(), packaged.readAll());
    }
};

QTEST_GUILESS_MAIN(TestAppIcon)
#include "tst_app_icon.moc"
