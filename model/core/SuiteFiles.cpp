// SPDX-License-Identifier: MIT
#include "model/core/Suite.h"
#include "model/core/SuiteReading.h"

namespace qs {

namespace {

using json = nlohmann::json;
using namespace json_text;
using namespace suite_parse;

constexpr qint64 maxSuiteFileBytes = 16 * 1024 * 1024;

json parseSuiteDocument(const QByteArray& data, const QString& source)
{
    return parseDocument(suiteContext(source), data, maxNestingDepth,
        QStringLiteral("the file is empty; a suite is a JSON object"));
}

const QStringList& builtinNames()
{
    static const QStringList names = {QStringLiteral("voice-assistant"), QStringLiteral("context-sweep"),
        QStringLiteral("quick-smoke"), QStringLiteral("throughput"), QStringLiteral("fidelity")};
    return names;
}

} // namespace

Suite loadSuiteFile(const QString& path)
{
    const QByteArray data
        = readFileLimited(suiteContext(path), path, maxSuiteFileBytes, QStringLiteral("suite"));
    return parseSuite(parseSuiteDocument(data, path), path);
}

QStringList builtinSuiteNames()
{
    return builtinNames();
}

Suite loadBuiltinSuite(const QString& name)
{
    const QString source = QStringLiteral("builtin:") + name;
    const QByteArray data = readBuiltin(
        suiteContext(source), QStringLiteral("suites"), name, builtinNames(), QStringLiteral("suite"));
    return parseSuite(parseSuiteDocument(data, source), source);
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
