// SPDX-License-Identifier: MIT
#pragma once
// Helpers shared by the responses tests (the view, and the answer's text in it): the fixture's
// records by cell, the highlight colour under a character, and the view's screenshots.
#include "WidgetTestSupport.h"
#include "widgets/ScreenshotRenderer.h"
#include "widgets/Theme.h"
#include "widgets/responses/ResponsesView.h"

#include <QApplication>
#include <QColor>
#include <QDir>
#include <QImage>
#include <QStyleFactory>
#include <QTest>
#include <QTextBlock>
#include <QTextDocument>

namespace qs::test {

/// The measured record of `endpoint` in a cell, or nullptr.
inline const RunRecord* findRecord(
    const RunResult& r, int endpoint, const QString& test, int turn, int iteration)
{
    for (const RunRecord& rec : r.records)
        if (!rec.warmup && rec.endpoint == endpoint && rec.test == test && rec.turn == turn
            && rec.iteration == iteration)
            return &rec;
    return nullptr;
}

inline int findIndex(const RunResult& r, int endpoint, const QString& test, int turn, int iteration)
{
    const RunRecord* rec = findRecord(r, endpoint, test, turn, iteration);
    for (std::size_t i = 0; rec && i < r.records.size(); ++i)
        if (&r.records[i] == rec)
            return int(i);
    return -1;
}

/// The background of the character at `position` (none for a paragraph break).
inline QColor backgroundAt(const QTextDocument* doc, int position)
{
    const QTextBlock block = doc->findBlock(position);
    for (auto it = block.begin(); !it.atEnd(); ++it) {
        const QTextFragment f = it.fragment();
        if (f.position() <= position && position < f.position() + f.length()) {
            const QBrush b = f.charFormat().background();
            return b.style() == Qt::NoBrush ? QColor() : b.color();
        }
    }
    return {};
}

/// The Fusion style, and the fixture as the view receives it (checked not to be empty).
inline void setUpResponsesTest(DashboardData& data)
{
    QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
    data = fixtureData();
    QVERIFY(!data.isEmpty());
}

/// Renders the view at 2x into /tmp/shots-responses and checks it is not blank.
inline void shoot(ResponsesView& view, const QString& name)
{
    for (Theme theme : {Theme::Light, Theme::Dark}) {
        view.setTheme(theme);
        view.resize(900, 560);
        view.show();
        QCoreApplication::processEvents();
        const QImage image = renderWidget(&view, 2);
        QCOMPARE(image.size(), QSize(1800, 1120));
        QVERIFY2(distinctColours(image, 2) > 40, qPrintable(name));
        QDir().mkpath(QStringLiteral("/tmp/shots-responses"));
        QCOMPARE(savePng(image, QStringLiteral("/tmp/shots-responses/%1-%2.png").arg(name, themeId(theme))),
            QString());
    }
    view.setTheme(Theme::Light);
}

} // namespace qs::test
