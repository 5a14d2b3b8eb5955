// SPDX-License-Identifier: MIT
#pragma once

#include <QCommandLineParser>
#include <QStringList>

namespace qs::app {

/// Parses a subcommand's arguments (with its --help). Returns -1 to go on, or the exit code to
/// return at once: 0 after printing the help, 2 after explaining what was wrong.
int parseSubcommand(QCommandLineParser& parser, const char* command, const QStringList& args);

} // namespace qs::app
