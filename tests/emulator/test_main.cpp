// SPDX-License-Identifier: MIT
#include <QCoreApplication>
#include <gtest/gtest.h>

int main(int argc, char** argv)
{
    // The emulators run in threads of their own; the tests' blocking sockets need an app object.
    QCoreApplication app(argc, argv);
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}
