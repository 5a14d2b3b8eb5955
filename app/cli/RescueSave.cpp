// SPDX-License-Identifier: MIT
#include "app/cli/RescueSave.h"

#include "model/store/ResultFile.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QFileInfo>
#include <QStandardPaths>

namespace qs::app {

QString rescuePathFor(const QString& outPath)
{
    QString dir = QStandardPaths::writableLocation(QStandardPaths::TempLocation);
    if (dir.isEmpty() || !QFileInfo(dir).isDir())
        dir = QDir::homePath();
    const QString stamp = QDateTime::currentDateTimeUtc().toString(QStringLiteral("yyyyMMdd-HHmmss"));
    return QDir(dir).filePath(QStringLiteral("quantscope-rescue-%1-%2-%3.json")
                                  .arg(QFileInfo(outPath).completeBaseName(), stamp)
                                  .arg(QCoreApplication::applicationPid()));
}

SaveOutcome saveOrRescue(const RunResult& result, const QString& outPath)
{
    SaveOutcome outcome;
    outcome.error = saveResults(result, outPath);
    if (outcome.error.isEmpty()) {
        outcome.savedTo = outPath;
        return outcome;
    }
    const QString rescue = rescuePathFor(outPath);
    outcome.rescueError = saveResults(result, rescue);
    if (outcome.rescueError.isEmpty())
        outcome.savedTo = rescue;
    return outcome;
}

} // namespace qs::app
