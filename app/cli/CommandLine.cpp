// SPDX-License-Identifier: MIT
#include "app/cli/CommandLine.h"

#include "app/common/ReportWriter.h"
#include "model/core/RunRecord.h"
#include "model/evaluate/Evaluation.h"
#include "model/store/ResultFile.h"

#include <QFileInfo>
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

bool intOption(const QCommandLineParser& p, const char* name, int min, int max, int& target, QString& error)
{
    const QString n = QString::fromLatin1(name);
    if (!p.isSet(n))
        return true;
    bool ok = false;
    const int v = p.value(n).toInt(&ok);
    if (!ok || v < min || v > max) {
        error = QStringLiteral("--%1 must be a whole number from %2 to %3, not \"%4\"")
                    .arg(n)
                    .arg(min)
                    .arg(max)
                    .arg(p.value(n));
        return false;
    }
    target = v;
    return true;
}

QString outPathProblem(const QString& path)
{
    const QFileInfo info(path);
    if (info.isDir())
        return QStringLiteral("--out %1 is a directory; give a file name").arg(path);
    if (!QFileInfo(info.absolutePath()).isWritable())
        return QStringLiteral("cannot write to %1 (the directory does not exist or is not writable)")
            .arg(info.absolutePath());
    return {};
}

std::shared_ptr<const RunResult> loadResultsFor(const char* command, const QStringList& files)
{
    QTextStream err(stderr);
    try {
        QStringList notes;
        auto result = std::make_shared<const RunResult>(loadForReview(files, &notes));
        for (const QString& note : std::as_const(notes))
            err << "note: " << note << '\n';
        return result;
    } catch (const ResultFileError& e) {
        err << "quantscope " << command << ": " << QString::fromUtf8(e.what()) << '\n';
        return nullptr;
    }
}

std::optional<ReportFormat> documentFormatFrom(
    const QCommandLineParser& parser, const QString& outPath, QString& error)
{
    if (parser.isSet(QStringLiteral("format"))) {
        const auto format = reportFormatFromId(parser.value(QStringLiteral("format")));
        if (!format)
            error = QStringLiteral("unknown format \"%1\": use md, html or pdf")
                        .arg(parser.value(QStringLiteral("format")));
        return format;
    }
    const auto format = reportFormatForPath(outPath);
    if (!format)
        error
            = QStringLiteral("say which format to write: --format md|html|pdf (or give --out a .md, .html or "
                             ".pdf name)");
    return format;
}

QCommandLineOption baselineOption()
{
    return {QStringLiteral("baseline"),
        QStringLiteral(
            "The endpoint the others are compared with: an index or a label (default: the first)."),
        QStringLiteral("NAME|INDEX")};
}

std::optional<int> baselineFrom(const QCommandLineParser& parser, const RunResult& result, QString& error)
{
    const std::optional<int> index = endpointFrom(parser, "baseline", result, error);
    if (index && *index < 0)
        return 0;
    return index;
}

QCommandLineOption referenceOption(const QString& what)
{
    return {QStringLiteral("reference"), what, QStringLiteral("NAME|INDEX")};
}

std::optional<int> endpointFrom(
    const QCommandLineParser& parser, const char* option, const RunResult& result, QString& error)
{
    const QString name = QString::fromLatin1(option);
    if (!parser.isSet(name))
        return -1;
    const QString wanted = parser.value(name);
    if (const int index = findEndpoint(result, wanted); index >= 0)
        return index;
    QStringList labels;
    for (const RunEndpoint& e : result.endpoints)
        labels << QStringLiteral("%1 \"%2\"").arg(labels.size()).arg(e.endpoint.displayName());
    error = QStringLiteral("--%1 %2 is not one of the endpoints; use one of: %3")
                .arg(name, wanted, labels.join(QStringLiteral(", ")));
    return std::nullopt;
}

} // namespace qs::app
