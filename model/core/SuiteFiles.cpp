// SPDX-License-Identifier: MIT
#include "model/core/Suite.h"
#include "model/core/SuiteReading.h"

#include <QFile>
#include <QFileInfo>

namespace qs {

namespace {

using json = nlohmann::json;
using namespace json_text;
using namespace suite_parse;

constexpr qint64 maxSuiteFileBytes = 16 * 1024 * 1024;

[[noreturn]] void throwAt(const QString& source, const QString& problem)
{
    throwError(source + QStringLiteral(": ") + problem);
}

json parseSuiteDocument(const QByteArray& data, const QString& source)
{
    return parseDocument(suiteContext(source), data, maxNestingDepth,
        QStringLiteral("the file is empty; a suite is a JSON object"));
}

// `size` is unknown (0) for devices and pipes that were read past the limit.
[[noreturn]] void throwTooBig(const QString& source, qint64 size)
{
    const QString what = size > 0
        ? QStringLiteral("the file is %1 MiB").arg(double(size) / (1024.0 * 1024.0), 0, 'f', 1)
        : QStringLiteral("the file is larger than 16 MiB");
    throwAt(source, what + QStringLiteral("; suite files are limited to 16 MiB"));
}

QByteArray readLimited(const QString& path)
{
    const QFileInfo info(path);
    if (!info.exists())
        throwAt(path, QStringLiteral("cannot read the suite: no such file"));
    if (info.isDir())
        throwAt(path, QStringLiteral("cannot read the suite: it is a directory"));
    // Refuse before reading: a huge file must not cost its size in memory.
    if (info.size() > maxSuiteFileBytes)
        throwTooBig(path, info.size());
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        throwAt(path, QStringLiteral("cannot read the suite: ") + file.errorString());
    // Read one byte past the limit: files that grow, pipes and devices report no honest size.
    QByteArray data = file.read(maxSuiteFileBytes + 1);
    if (data.size() > maxSuiteFileBytes)
        throwTooBig(path, 0);
    if (file.error() != QFileDevice::NoError)
        throwAt(path, QStringLiteral("cannot read the suite: ") + file.errorString());
    return data;
}

const QStringList& builtinNames()
{
    static const QStringList names
        = {QStringLiteral("voice-assistant"), QStringLiteral("quick-smoke"), QStringLiteral("throughput")};
    return names;
}

} // namespace

Suite loadSuiteFile(const QString& path)
{
    const QByteArray data = readLimited(path);
    return parseSuite(parseSuiteDocument(data, path), path);
}

QStringList builtinSuiteNames()
{
    return builtinNames();
}

Suite loadBuiltinSuite(const QString& name)
{
    const QString source = QStringLiteral("builtin:") + name;
    if (!builtinNames().contains(name)) {
        const QString hint = didYouMeanHint(name, builtinNames());
        throwError(QStringLiteral("no built-in suite named ") + quote(name) + QStringLiteral("; ") + hint
            + QStringLiteral("the built-in suites are: ") + builtinNames().join(QStringLiteral(", ")));
    }
    QFile file(QStringLiteral(":/suites/") + name + QStringLiteral(".json"));
    if (!file.open(QIODevice::ReadOnly))
        throwAt(source,
            QStringLiteral("the built-in suite is missing from this build (its resources are not linked)"));
    return parseSuite(parseSuiteDocument(file.readAll(), source), source);
}

Suite loadSuite(const QString& nameOrPath)
{
    // A bare word that is neither a file nor a built-in was most likely a mistyped suite name:
    // loading it throws with the list of built-in names.
    if (const auto name = builtinNameOf(nameOrPath, builtinNames()))
        return loadBuiltinSuite(*name);
    return loadSuiteFile(nameOrPath);
}

} // namespace qs
