// SPDX-License-Identifier: MIT
#pragma once

#include <QCommandLineParser>
#include <QStringList>
#include <memory>
#include <optional>

namespace qs {
struct RunResult;
}

namespace qs::app {

enum class ReportFormat; // app/common/ReportWriter.h

/// Parses a subcommand's arguments (with its --help). Returns -1 to go on, or the exit code to
/// return at once: 0 after printing the help, 2 after explaining what was wrong.
int parseSubcommand(QCommandLineParser& parser, const char* command, const QStringList& args);

/// The results files of a command that reviews them (one, or several combined as in the
/// dashboard), with loadForReview()'s notes printed to stderr. Null after printing
/// "quantscope COMMAND: <why>" when they cannot be read.
std::shared_ptr<const RunResult> loadResultsFor(const char* command, const QStringList& files);

/// `--NAME N` as a whole number from `min` to `max` into `target`; true when absent (target is
/// left as it was). False with `error` saying what to type when the value is not such a number.
bool intOption(
    const QCommandLineParser& parser, const char* name, int min, int max, int& target, QString& error);

/// Why `--out PATH` cannot be written (a directory; a folder that does not exist or is not
/// writable); empty when it can.
QString outPathProblem(const QString& path);

/// The document format `--format md|html|pdf` names, else the one `outPath`'s suffix implies;
/// nullopt with `error` saying what to type when neither does.
std::optional<ReportFormat> documentFormatFrom(
    const QCommandLineParser& parser, const QString& outPath, QString& error);

/// `--baseline NAME|INDEX`, the same for every command that compares endpoints.
QCommandLineOption baselineOption();
/// The endpoint `--baseline` names in `result`; 0 (the first) when the option is not given.
/// nullopt when it names none, with `error` listing the endpoints there are.
std::optional<int> baselineFrom(const QCommandLineParser& parser, const RunResult& result, QString& error);

/// `--reference NAME|INDEX`: the endpoint whose answers the fidelity tests compare every other
/// arm's with (docs/methodology.md, "Fidelity"); `what` says what it does in this command.
QCommandLineOption referenceOption(const QString& what);
/// The endpoint `--OPTION` names in `result` (an index or a label, as findEndpoint), -1 when the
/// option is not given; nullopt when it names none, with `error` listing the endpoints there are.
std::optional<int> endpointFrom(
    const QCommandLineParser& parser, const char* option, const RunResult& result, QString& error);

} // namespace qs::app
