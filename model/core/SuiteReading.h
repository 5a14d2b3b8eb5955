// SPDX-License-Identifier: MIT
#pragma once

#include "model/core/JsonText.h"
#include "model/core/Suite.h"

#include <QString>
#include <QStringList>
#include <nlohmann/json.hpp>
#include <optional>
#include <string_view>
#include <vector>

// Internal to model/core: what the pieces of the suite parser (SuiteParse.cpp, SuiteTests.cpp,
// SuiteWarmup.cpp, SuiteFiles.cpp) share: the error context, the typed readers and the limits.

namespace qs::suite_parse {

using json_text::checkEncodable;
using json_text::DocumentContext;
using json_text::identifier;
using json_text::member;
using json_text::optionalString;
using json_text::stringList;
using json_text::stringValue;

// Deeper than any sensible tool schema; bounds memory and the recursion of json::dump().
inline constexpr int maxNestingDepth = 100;
inline constexpr int maxTokensLimit = 10'000'000;
inline constexpr int maxRuns = 100'000;
inline constexpr int maxWarmup = 10'000;

[[noreturn]] void throwError(const QString& message); ///< throws SuiteError
/// The error context for a suite read from `source`: its problems throw SuiteError.
DocumentContext suiteContext(const QString& source);

// json_text::checkKeys, saying where a key misplaced in a suite belongs.
void checkSuiteKeys(const DocumentContext& ctx, const nlohmann::json& object, const QString& path,
    const std::vector<std::string_view>& known);

std::optional<bool> optionalBool(
    const DocumentContext& ctx, const nlohmann::json& object, std::string_view key, const QString& parent);
qint64 integerValue(
    const DocumentContext& ctx, const nlohmann::json& v, const QString& path, qint64 min, qint64 max);
std::optional<int> optionalInt(const DocumentContext& ctx, const nlohmann::json& object, std::string_view key,
    const QString& parent, int min, int max);
std::optional<qint64> optionalSeed(
    const DocumentContext& ctx, const nlohmann::json& object, const QString& parent);
double temperatureValue(const DocumentContext& ctx, const nlohmann::json& v, const QString& path);
nlohmann::json objectValue(
    const DocumentContext& ctx, const nlohmann::json& object, std::string_view key, const QString& parent);

void checkDepth(const DocumentContext& ctx, const nlohmann::json& root); ///< at most maxNestingDepth

/// What the tests are checked against.
struct SuiteInfo {
    QStringList toolNames;
    const SuiteDefaults* defaults = nullptr; ///< the suite's, parsed before its tests
};

std::vector<SuiteTest> parseTests(
    const DocumentContext& ctx, const nlohmann::json& suite, const SuiteInfo& info);
QStringList parseWarmupPrompts(
    const DocumentContext& ctx, const nlohmann::json& suite, const std::vector<SuiteTest>& tests);

} // namespace qs::suite_parse
