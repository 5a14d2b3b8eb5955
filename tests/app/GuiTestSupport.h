// SPDX-License-Identifier: MIT
#pragma once
// Helpers shared by the dashboard tests (MainWindow offscreen, and `quantscope screenshot`): the
// fixture, waiting for the window's evaluation, its actions by text, and a main() that keeps the
// tests away from the user's settings and data.
#include "app/dashboard/MainWindow.h"
#include "tests/widgets/WidgetTestSupport.h"

#include <QAction>
#include <QApplication>
#include <QKeySequence>
#include <QMessageBox>
#include <QTemporaryDir>
#include <QTest>

namespace qs::test {

inline QString fixture()
{
    return fixturePath();
}

/// Waits until the window shows data with the paired comparison computed (the last stage).
inline bool waitForEvaluated(app::MainWindow& w, int timeoutMs = 60000)
{
    return QTest::qWaitFor(
        [&] { return w.data().evaluation && w.data().evaluation->hasComparison && !w.data().live; },
        timeoutMs);
}

inline QAction* actionNamed(QWidget& w, const QString& text)
{
    for (QAction* a : w.findChildren<QAction*>())
        if (a->text() == text && a->shortcut() != QKeySequence()) // not the "&Run" menu's own action
            return a;
    return nullptr;
}

inline void closeMessageBoxes()
{
    for (QWidget* top : QApplication::topLevelWidgets())
        if (auto* box = qobject_cast<QMessageBox*>(top))
            box->close();
}

/// Runs the test case `T` in an application named as the dashboard's.
template <typename T> int guiTestMain(int argc, char** argv)
{
    // Never the user's settings or data: everything under a temporary home.
    QTemporaryDir home;
    qputenv("XDG_CONFIG_HOME", home.filePath(QStringLiteral("config")).toLocal8Bit());
    qputenv("XDG_DATA_HOME", home.filePath(QStringLiteral("data")).toLocal8Bit());
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("quantscope"));
    QApplication::setApplicationName(QStringLiteral("quantscope"));
    T test;
    return QTest::qExec(&test, argc, argv);
}

} // namespace qs::test
