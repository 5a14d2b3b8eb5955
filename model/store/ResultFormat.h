// SPDX-License-Identifier: MIT
#pragma once

// What the results-file reader, writer and loader share: the file's conventions (synthetic
// stamps, limits, enum ids), the format check and the parser's errors. Internal to model/store.

#include "model/store/ResultFile.h"

#include <QFile>
#include <QFileDevice>
#include <cmath>
#include <memory>
#include <optional>
#include <string>

namespace qs::results {

using json = nlohmann::json;
using Kind = ResultFileError::Kind;

/// Loaded records get synthetic monotonic stamps: t0 = 10^15 ns, every other stamp
/// t0 + ms·10^6. Far from 0 (which means "did not happen") even for a stamp hours before t0.
constexpr qint64 kBaseNs = 1'000'000'000'000'000;
/// Stamps further than this from t0 (ms, ≈ 27.8 h) cannot come from one request and would
/// leave the synthetic clock's range.
constexpr double kMaxStampMs = 1e8;
/// Nesting and size limits of the loader: a results file never nests deeper than a request
/// body's JSON schema, and one record holds a few thousand values. Junk that passes the JSON
/// syntax check (`[[[[…`, `[1,1,1,…`) must not exhaust memory building a DOM first.
constexpr int kMaxDepth = 512;
constexpr std::size_t kMaxValuesPerItem = 2'000'000;

/// The UTF-8 bytes of a string.
inline std::string u8(const QString& s)
{
    return s.toStdString();
}

/// Milliseconds are stored with microsecond resolution: more digits would be noise.
inline double roundUs(double ms)
{
    return std::round(ms * 1000.0) / 1000.0;
}

/// An ISO 8601 UTC time with milliseconds, or null for an invalid one ("not yet").
inline json isoTime(const QDateTime& t)
{
    return t.isValid() ? json(u8(t.toUTC().toString(Qt::ISODateWithMs))) : json(nullptr);
}

inline json stringListToJson(const QStringList& list)
{
    json a = json::array();
    for (const QString& s : list)
        a.push_back(u8(s));
    return a;
}

/// Compact, and never throwing on a stray invalid UTF-8 byte in an opaque request body.
inline std::string dumpCompact(const json& j)
{
    return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

// ---- ids of enums in the file ----------------------------------------------------------------

const char* reasoningFieldId(ReasoningField f);
std::optional<ReasoningField> reasoningFieldFromId(const QString& id);
std::optional<CountSource> countSourceFromId(const QString& id);
std::optional<FailureKind> failureKindFromId(const QString& id);
/// "expected <choices>, found \"<id>\"" for an id that names none of them.
std::string unknownId(const char* choices, const QString& id);

// ---- format and version ----------------------------------------------------------------------

/// "format" and "version" of a header; throws NotResults / NewerVersion / BadField.
void checkFormat(const json& j, const std::string& where, bool looksLikeSuite);

// ---- parsing with limits ---------------------------------------------------------------------

/// Printable ASCII only: parser messages may quote raw junk bytes.
std::string printable(std::string s, std::size_t max = 200);
bool onlyWhitespace(QByteArrayView bytes);
/// "<where>: the file is empty (N bytes)" (Truncated).
ResultFileError emptyFileError(const std::string& where, QByteArrayView bytes);
/// A parse error as a ResultFileError: Truncated when the input ended before the JSON did
/// (nlohmann reports the error past the last byte), NotJson otherwise.
ResultFileError syntaxError(const std::string& where, QByteArrayView bytes, const json::parse_error& e);
/// Any other exception of the JSON parser (NotJson).
ResultFileError jsonError(const std::string& where, const json::exception& e);

/// Why a write to `file` came up short, given errno as it was right after the write. Qt sets no
/// error when a write() writes part of the bytes and the next one fails (a full disk), so its
/// errorString() would say "Unknown error".
QString writeFailure(const QFileDevice& file, int savedErrno);

/// Guards a DOM parse: refuses absurd nesting and runaway sizes before they cost memory.
struct Limits {
    std::string where;
    std::size_t values = 0;
    /// Called for every value the parser meets: inline, it is the loader's hot path.
    void check(int depth)
    {
        if (depth > kMaxDepth)
            throw ResultFileError(Kind::NotResults,
                where + ": not a Quantscope results file (JSON nested deeper than "
                    + std::to_string(kMaxDepth) + " levels)");
        if (++values > kMaxValuesPerItem)
            throw ResultFileError(Kind::TooLarge,
                where + ": holds more than " + std::to_string(kMaxValuesPerItem)
                    + " JSON values in one item: not a plausible results file");
    }
};

/// recordFromJson(); with `steal` (== &j, a DOM about to be dropped) the opaque members are
/// moved out instead of copied.
RunRecord readRecord(
    const json& j, const std::vector<RunEndpoint>& endpoints, const std::string& where, json* steal);

/// The whole-file reader: every member checked, every problem named with its path. Slow on big
/// files (an nlohmann tree per record); parseResults() tries readWriterLayout() first.
RunResult readStrictly(QByteArrayView bytes, const std::string& source);
/// A file as saveResults() lays it out (header members, then `"records": [` and one record per
/// line), read the quick way: the header by readStrictly(), each record by FastRecordReader.
/// nullopt when the bytes are laid out otherwise or anything in them is wrong: readStrictly() then
/// reads the file again and names the problem. Gives exactly what readStrictly() gives.
/// `declined`, when given, counts the records FastRecordReader left to recordFromJson.
std::optional<RunResult> readWriterLayout(
    QByteArrayView bytes, const std::string& source, std::size_t* declined = nullptr);
/// The same, read from `file` (open, at its start) a few MiB at a time, so that the file is never
/// in memory whole. nullopt as above; the file's position is then anywhere.
std::optional<RunResult> loadWriterLayout(
    QFile& file, const std::string& source, std::size_t* declined = nullptr);
/// The results or journal file at `path`, open for reading: refuses a missing or unreadable path,
/// a directory, a device, or more than MaxResultsFileBytes. Throws ResultFileError (Unreadable, TooLarge).
std::unique_ptr<QFile> openResultsFile(const QString& path);
/// parseResults() without trying readWriterLayout() first (it failed already).
RunResult parseStrictly(QByteArrayView bytes, const std::string& source);

} // namespace qs::results
