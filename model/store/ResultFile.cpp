// SPDX-License-Identifier: MIT
// Reading results and journal files from disk, with the loader's limits.
#include "model/store/ResultFile.h"

#include "model/store/ResultFormat.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>

namespace qs {

using namespace results;

std::unique_ptr<QFile> results::openResultsFile(const QString& path)
{
    const std::string name = QDir::toNativeSeparators(path).toStdString();
    const QFileInfo info(path);
    if (!info.exists())
        throw ResultFileError(Kind::Unreadable, name + ": no such file");
    if (info.isDir())
        throw ResultFileError(Kind::Unreadable, name + ": is a directory, not a file");
    if (!info.isFile())
        throw ResultFileError(Kind::Unreadable, name + ": not a regular file");
    if (info.size() > MaxResultsFileBytes)
        throw ResultFileError(Kind::TooLarge,
            name + ": " + std::to_string(info.size() >> 20) + " MiB is more than a results file may be ("
                + std::to_string(MaxResultsFileBytes >> 20) + " MiB): not a results file, or split the run");
    auto file = std::make_unique<QFile>(path);
    if (!file->open(QIODevice::ReadOnly))
        throw ResultFileError(
            Kind::Unreadable, name + ": cannot read it: " + file->errorString().toStdString());
    return file;
}

QByteArray readResultsFile(const QString& path)
{
    const std::string name = QDir::toNativeSeparators(path).toStdString();
    const std::unique_ptr<QFile> file = openResultsFile(path);
    QByteArray bytes;
    try {
        bytes = file->readAll();
    } catch (const std::bad_alloc&) {
        throw ResultFileError(Kind::TooLarge, name + ": not enough memory to read it");
    }
    if (file->error() != QFileDevice::NoError)
        throw ResultFileError(
            Kind::Unreadable, name + ": cannot read it: " + file->errorString().toStdString());
    return bytes;
}

nlohmann::json parseJsonDocument(QByteArrayView bytes, const std::string& where)
{
    Limits limits {where};
    try {
        return nlohmann::json::parse(bytes.data(), bytes.data() + bytes.size(),
            [&](int depth, nlohmann::json::parse_event_t, nlohmann::json&) {
                limits.check(depth);
                return true;
            });
    } catch (const nlohmann::json::parse_error& e) {
        throw syntaxError(where, bytes, e);
    } catch (const nlohmann::json::exception& e) {
        throw jsonError(where, e);
    } catch (const std::bad_alloc&) {
        throw ResultFileError(Kind::TooLarge, where + ": not enough memory to read it");
    }
}

RunResult loadResults(const QString& path)
{
    const std::string source = QDir::toNativeSeparators(path).toStdString();
    {
        // Most files are as saveResults() wrote them: read those a piece at a time, quickly.
        const std::unique_ptr<QFile> file = openResultsFile(path);
        try {
            if (std::optional<RunResult> result = loadWriterLayout(*file, source))
                return std::move(*result);
        } catch (const std::bad_alloc&) {
            throw ResultFileError(Kind::TooLarge, source + ": not enough memory to load this file");
        }
    }
    // Anything else (hand-edited, older, or wrong somewhere): read whole, strictly, for the message.
    const QByteArray bytes = readResultsFile(path);
    try {
        return parseStrictly(bytes, source);
    } catch (const ResultFileError& e) {
        const QString journal = path + QStringLiteral(".journal");
        if (e.kind() != Kind::Truncated || !QFileInfo(journal).isFile())
            throw;
        throw ResultFileError(Kind::Truncated,
            std::string(e.what()) + ". The run's journal is beside it: recover every finished request with "
                + "`quantscope recover " + QDir::toNativeSeparators(journal).toStdString() + " --out FILE`");
    }
}

} // namespace qs
