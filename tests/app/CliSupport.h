// SPDX-License-Identifier: MIT
#pragma once

// Running the real quantscope binary (QS_BINARY) from a Qt Test, with its data and settings in a
// temporary home so a test never touches the user's.
#include <QProcess>
#include <QString>
#include <QStringList>
#include <QTemporaryDir>

namespace qs::test {

struct CliRun {
    int code = -1; ///< exit code; -2 when it crashed
    QString out;
    QString err;
};

inline CliRun runCli(const QStringList& args, int timeoutMs = 60000)
{
    static QTemporaryDir home;
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("XDG_DATA_HOME"), home.path());
    env.insert(QStringLiteral("XDG_CONFIG_HOME"), home.path());
    p.setProcessEnvironment(env);
    p.start(QStringLiteral(QS_BINARY), args);
    CliRun r;
    if (!p.waitForFinished(timeoutMs)) {
        p.kill();
        p.waitForFinished();
        r.err = QStringLiteral("timed out");
        return r;
    }
    r.code = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -2;
    r.out = QString::fromUtf8(p.readAllStandardOutput());
    r.err = QString::fromUtf8(p.readAllStandardError());
    return r;
}

} // namespace qs::test
