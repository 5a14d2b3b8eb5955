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

/// A hand-written document being read, and how its problems are reported: fail() throws
/// "SOURCE: PATH: PROBLEM" ("top level" for the empty path), failFile() "SOURCE: PROBLEM", both
/// through `raise`, which throws the caller's error type (SuiteError, ProfileError).
struct DocumentContext {
    QString source;
    void (*raise)(const QString& message) = nullptr; ///< throws; never returns

    [[noreturn]] void fail(const QString& path, const QString& problem) const;
    [[noreturn]] void failFile(const QString& problem) const;
};

/// Parses a file's bytes with parseStrict(); an empty file fails with `emptyProblem`.
nlohmann::json parseDocument(
    const DocumentContext& ctx, const QByteArray& data, int maxNestingDepth, const QString& emptyProblem);

// Typed readers: they check the type first and never call get<> on an unchecked value.

const nlohmann::json* member(const nlohmann::json& object, std::string_view key); ///< nullptr if absent
QString stringValue(
    const DocumentContext& ctx, const nlohmann::json& v, const QString& path, bool allowEmpty);
std::optional<QString> optionalString(const DocumentContext& ctx, const nlohmann::json& object,
    std::string_view key, const QString& parent, bool allowEmpty);
bool isIdentifier(const QString& id); ///< 1 to 128 letters, digits, '.', '_' or '-'
QString identifierValue(const DocumentContext& ctx, const nlohmann::json& v, const QString& path);
/// The object's "id", required and a valid identifier.
QString identifier(const DocumentContext& ctx, const nlohmann::json& object, const QString& parent);
/// A list of non-empty strings (or, with `allowSingle`, one string).
QStringList stringList(
    const DocumentContext& ctx, const nlohmann::json& v, const QString& path, bool allowSingle);

/// Typos must never be silently ignored: every key of `object` is one of `known`, or it is an
/// error at its path: "unknown key; did you mean \"KEY\"?" with the closest known key, else
/// "unknown key here; HINT" when `misplaced` says where the key belongs (it returns empty when it
/// does not know), else "unknown key; expected one of: …".
void checkKeys(const DocumentContext& ctx, const nlohmann::json& object, const QString& path,
    const std::vector<std::string_view>& known, QString (*misplaced)(std::string_view key) = nullptr);

/// Documents are stored in results files and sent to servers: fails unless `root` dump()s as valid
/// UTF-8.
void checkEncodable(const DocumentContext& ctx, const nlohmann::json& root);

/// A hand-written file's bytes, refused before reading when larger than `maxBytes`. Problems read
/// "PATH: cannot read the NOUN: …" and "PATH: the file is 2.5 MiB; NOUN files are limited to 1 MiB".
QByteArray readFileLimited(
    const DocumentContext& ctx, const QString& path, qint64 maxBytes, const QString& noun);

/// The bytes of the built-in document `name`, the Qt resource ":/FOLDER/NAME.json". A name not in
/// `builtins` fails through `ctx.raise` with "no built-in NOUN named \"NAME\"; did you mean …? the
/// built-in NOUNs are: …" followed by `unknownSuffix`; a resource missing from the build with
/// "SOURCE: the built-in NOUN is missing from this build (its resources are not linked)".
QByteArray readBuiltin(const DocumentContext& ctx, const QString& folder, const QString& name,
    const QStringList& builtins, const QString& noun, const QString& unknownSuffix = QString());

/// "did you mean \"NAME\"? " when `name` is close to one of `known`, else empty.
QString didYouMeanHint(const QString& name, const QStringList& known);
/// Which built-in `nameOrPath` names ("NAME" or "builtin:NAME"), or nothing when it is a file path.
/// A bare word that is neither a file nor a built-in counts as a mistyped built-in name, so
/// that loading it fails with the list of built-ins.
std::optional<QString> builtinNameOf(const QString& nameOrPath, const QStringList& builtins);

} // namespace qs::json_text
