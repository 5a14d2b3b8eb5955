// SPDX-License-Identifier: MIT
#include "app/CommandLine.h"

#include <QTextStream>

namespace qs::app {

int parseSubcommand(QCommandLineParser& parser, const char* command, const QStringList& args)
{
    const QString name = QStringLiteral("quantscope ") + QString::fromLatin1(command);
    if (!parser.parse(QStringList {name} + args)) {
        QTextStream(stderr) << name << ": " << parser.errorText() << "\nRun '" << name
                            << " --help' for the options.\n";
        return 2;
    }
    if (parser.isSet(QStringLiteral("help"))) {
        QTextStream(stdout) << parser.helpText();
        return 0;
    }
    return -1;
}

} // namespace qs::app
