// SPDX-License-Identifier: MIT
#pragma once

#include <QByteArray>
#include <QString>
#include <QStringList>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace qs::json_text {

// The pieces of a good error message about a hand-written JSON file (suites, decision
// profiles): values described without dumping them, paths, and "did you mean".

QString fromStd(std::string_view s);
/// User text for a message: newlines escaped, at most `limit` characters.
QString shortened(const QString& text, int limit = 40);
QString quote(const QString& text); ///< "\"text\"", shortened
QString quote(std::string_view text);
/// "a number (3)", "a string ("abc")", "a list", … — never dump()s a string (invalid UTF-8 throws).
QString describe(const nlohmann::json& v);
QString keyPath(const QString& parent, std::string_view key); ///< "tests[2].expect"
QString indexPath(const QString& parent, std::size_t index); ///< "tests[2]"

/// Optimal string alignment distance: a transposition ("requried") counts as one edit.
int editDistance(const std::string& a, const std::string& b);
/// "maxTokens", "Max-Tokens" and "max_tokens" are the same key to a human.
std::string normalizedKey(const std::string& key);
/// The known word `key` was most likely meant to be, if it is close enough (1 edit for up to 4
/// characters, 2 up to 8, 3 beyond); nothing for keys over 64 characters.
std::optional<std::string> closestKey(const std::string& key, const std::vector<std::string_view>& known);
std::optional<QString> closestKey(const QString& key, const QStringList& known);

/// What parseStrict() found wrong, with where: "line 3, column 5: not valid JSON: …" or
/// "tests[2]: key given twice in the same object (…)".
struct ParseProblem {
    QString message;
};

/// Parses a hand-written JSON document strictly: a key given twice in one object (JSON would keep
/// only the last, silently) and nesting deeper than `maxNestingDepth` are errors too. Throws
/// ParseProblem.
nlohmann::json parseStrict(const QByteArray& data, int maxNestingDepth);

/// An nlohmann::json exception's text for a user: "[json.exception.parse_error.101] parse error
/// at line 1, column 2: syntax error …" → "syntax error …".
QString exceptionText(const char* what);

} // namespace qs::json_text
