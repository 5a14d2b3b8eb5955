// SPDX-License-Identifier: MIT
// GoogleTest main with a QCoreApplication: the replay tests pump its event loop while
// RunController's runner thread and the emulators' threads do the work.
#include <QCoreApplication>
#include <QStandardPaths>
#include <gtest/gtest.h>

int main(int argc, char** argv)
{
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication app(argc, argv);
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}
