// SPDX-License-Identifier: MIT
#pragma once

#include <QStringList>

// Each headless subcommand: takes its own arguments (after the subcommand name), prints to
// stdout/stderr, returns the process exit code: 0 success, 1 the endpoint or request failed,
// 2 the command line was wrong.
namespace qs::app {

int runProbe(const QStringList& args);
int runChat(const QStringList& args);
int runEmulate(const QStringList& args);
int runDemo(const QStringList& args);
int runRun(const QStringList& args);
int runSummary(const QStringList& args);
int runJudge(const QStringList& args);
int runRecover(const QStringList& args);
// These create their own QApplication (Qt Charts needs one), so they take argc/argv.
int runGui(int argc, char** argv, const QStringList& args);
int runScreenshot(int argc, char** argv, const QStringList& args);
int runReport(int argc, char** argv, const QStringList& args);
int runCampaign(int argc, char** argv, const QStringList& args);

} // namespace qs::app
