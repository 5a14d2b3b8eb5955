// SPDX-License-Identifier: MIT
#pragma once

#include "model/core/RunRecord.h"

#include <QByteArrayView>
#include <QDateTime>
#include <QFile>
#include <QString>
#include <map>
#include <mutex>

namespace qs {

/// Where append() wrote a record's line: its first byte and its length (without the line end).
struct JournalSpan {
    qint64 offset = -1; ///< -1: not written
    qint64 length = 0;
    bool written() const { return offset >= 0; }
};

/// An append-only journal of a run in progress (`<out>.journal`, JSON Lines): the header as the
/// first line, then one line per finished request and one per telemetry scrape, each handed to
/// the kernel before append()/appendTelemetry() returns — so killing the process, even with
/// SIGKILL, loses only the requests in flight. Lives in the runner's thread; appendTelemetry()
/// may be called from another (every member is serialized by one mutex).
class RunJournal {
public:
    RunJournal() = default;
    ~RunJournal();
    RunJournal(const RunJournal&) = delete;
    RunJournal& operator=(const RunJournal&) = delete;

    static QString journalPathFor(const QString& resultsPath)
    {
        return resultsPath + QStringLiteral(".journal");
    }

    /// Creates (truncates) `path` and writes the header line (with `header.telemetry`'s period and
    /// notes: set them before). Returns an error message or "".
    QString open(const QString& path, const RunResult& header);
    /// Appends one record. Returns an error message or "". A failed line (disk full) leaves no
    /// trace but a count: the next line that can be written is preceded by a `{"journal_gap": …}`
    /// line saying how many records and samples are missing there, so recovery can say so.
    QString append(const RunRecord& record, JournalSpan* written = nullptr);
    /// The line append() wrote at `span`, read back from the journal — through a handle opened
    /// with it, so a journal deleted during the run still reads. How the runner gets back what it
    /// let go of (a long run's token timelines; they live here, not in memory). Thread-safe.
    /// nullopt when it cannot be read (the message in `error`).
    std::optional<QByteArray> readBack(JournalSpan span, QString* error = nullptr) const;
    /// The records at `spans`, read back and parsed as recovery would; nullopt for one that
    /// cannot be read or parsed, with a message in `errors`.
    std::vector<std::optional<RunRecord>> readBackRecords(
        const std::vector<JournalSpan>& spans, QStringList* errors = nullptr) const;
    /// Whether readBack() can work (the second handle opened with the journal).
    bool canReadBack() const;
    /// How many append() calls failed since open() (the runner warns on the first).
    int failedRecords() const;
    /// Appends one scrape of telemetry source `sourceIndex`: the sample, plus whatever `source`'s
    /// tables (series, families, notes) gained since that source's previous line, so recovery
    /// rebuilds them; the first line of a source also describes it (endpoint, url, kind, format,
    /// process start), and so does any line where that description changed. The line's `s` is
    /// `sourceIndex` (sample.source is not read). Thread-safe: the telemetry thread calls it while
    /// the runner appends records.
    /// Returns an error message or "".
    QString appendTelemetry(int sourceIndex, const TelemetrySource& source, const TelemetrySample& sample);
    /// Closes the file; `remove` deletes it (after the results file was saved).
    void close(bool remove);
    bool isOpen() const;
    QString path() const;

private:
    /// What the journal already wrote of one telemetry source.
    struct SourceWritten {
        bool described = false;
        TelemetrySource description; ///< as last written; its tables stay empty
        std::size_t series = 0, families = 0, notes = 0;
    };
    /// Writes one whole line (cut back off after a short write), after a gap line when earlier
    /// lines failed. Returns an error message or "".
    QString writeLine(const std::string& line, bool isRecord);

    mutable std::mutex m_mutex;
    QFile m_file;
    mutable QFile m_reader; ///< the same file, for readBack()
    std::vector<RunEndpoint> m_endpoints;
    std::map<int, SourceWritten> m_sources;
    int m_failedRecords = 0;
    /// Lines that failed since the last one written: the next gap line's counts and reason.
    int m_gapRecords = 0, m_gapSamples = 0;
    QString m_gapWhy;
};

/// Reads a journal back into a RunResult (complete = false, note says what happened). A last
/// line cut off by the kill is dropped and reported in the note. Throws ResultFileError.
RunResult recoverJournal(const QString& journalPath);

/// recoverJournal() on bytes already read: `journalPath` names the file in messages and notes,
/// `lastWritten` stands in for the end of a run whose header has none. Throws ResultFileError.
RunResult parseJournal(QByteArrayView bytes, const QString& journalPath, const QDateTime& lastWritten);

} // namespace qs
