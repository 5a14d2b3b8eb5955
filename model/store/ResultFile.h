// SPDX-License-Identifier: MIT
#pragma once

#include "model/core/RunRecord.h"

#include <QByteArrayView>
#include <QString>
#include <stdexcept>

namespace qs {

/// Results file format: {"format": "quantscope-results", "version": 4, …}; version 1 files (no
/// telemetry), version 2 files (no judging) and version 3 files (no logprobs, no reference
/// endpoint) still load. See docs/results-format.md.
inline constexpr const char* ResultsFormatName = "quantscope-results";
inline constexpr int ResultsFormatVersion = 4;

/// A results (or journal) file that cannot be used. what() names the file, says what is wrong
/// and what to do, e.g. "run.json: records[12].ttft_any_ms: expected a number or null, found a
/// string".
class ResultFileError : public std::runtime_error {
public:
    enum class Kind { Unreadable, TooLarge, NotJson, Truncated, NotResults, NewerVersion, BadField };
    ResultFileError(Kind kind, const std::string& message)
        : std::runtime_error(message)
        , m_kind(kind)
    {
    }
    Kind kind() const { return m_kind; }

private:
    Kind m_kind;
};

/// One record in its file form (the field names of docs/results-format.md). `endpoints` gives
/// the label for the `endpoint` field.
nlohmann::json recordToJson(const RunRecord& record, const std::vector<RunEndpoint>& endpoints);
/// Inverse of recordToJson. Throws ResultFileError(BadField) naming `where` + the field.
RunRecord recordFromJson(
    const nlohmann::json& json, const std::vector<RunEndpoint>& endpoints, const std::string& where);

/// Everything but the records, the telemetry's sources and samples and the judging's verdicts
/// (used as the journal's first line too). "judging" only when something was judged.
nlohmann::json headerToJson(const RunResult& result);
/// Inverse of headerToJson (records left empty); reads a whole "telemetry" member when it has
/// sources and samples, and a whole "judging" member with its verdicts. Throws ResultFileError.
RunResult headerFromJson(const nlohmann::json& json, const std::string& where);

QByteArray serializeResults(const RunResult& result);
/// Parses a whole results file. Throws ResultFileError.
RunResult parseResults(QByteArrayView bytes, const QString& sourceName);

/// Writes atomically (QSaveFile: the old file stays intact on any failure). Returns an error
/// message, or an empty string on success.
QString saveResults(const RunResult& result, const QString& path);
/// Throws ResultFileError.
RunResult loadResults(const QString& path);

/// Results and journal files larger than this (4 GiB) are refused before reading (TooLarge).
inline constexpr qint64 MaxResultsFileBytes = qint64(4) << 30;
/// Reads a whole results or journal file, refusing a missing or unreadable path, a directory, a
/// device, or more than MaxResultsFileBytes. Throws ResultFileError (Unreadable, TooLarge).
QByteArray readResultsFile(const QString& path);
/// Parses one JSON document (e.g. a journal line) with the loader's limits on nesting and size.
/// Throws ResultFileError (NotJson, Truncated, …) naming `where`.
nlohmann::json parseJsonDocument(QByteArrayView bytes, const std::string& where);

} // namespace qs
