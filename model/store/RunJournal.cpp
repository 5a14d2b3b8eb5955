// SPDX-License-Identifier: MIT
#include "model/store/RunJournal.h"

#include "model/core/Platform.h"
#include "model/store/FastRecordReader.h"
#include "model/store/ResultFile.h"
#include "model/store/ResultFormat.h"
#include "model/store/TelemetryFields.h"

#include <QDir>
#include <QFileInfo>
#include <algorithm>
#include <cerrno>
#include <unordered_map>

namespace qs {

namespace {

using results::json;
using results::Loc;

std::string lineOf(const nlohmann::json& j)
{
    std::string line = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    line += '\n';
    return line;
}

QString nativePath(const QString& path)
{
    return QDir::toNativeSeparators(path);
}

void closeFile(QFile& file, bool remove)
{
    if (!file.isOpen())
        return;
    const QString name = file.fileName();
    file.close();
    if (remove)
        QFile::remove(name);
}

/// One count of a `journal_gap` line; anything but a non-negative integer counts as 0.
qint64 gapCount(const json& gap, const char* key)
{
    const auto it = gap.find(key);
    return it != gap.end() && it->is_number_unsigned()
        ? qint64(std::min<std::uint64_t>(it->get<std::uint64_t>(), 1u << 30))
        : 0;
}

/// A source's description without its tables (what the journal compares to see a change).
TelemetrySource descriptionOf(const TelemetrySource& s)
{
    TelemetrySource d;
    d.endpoint = s.endpoint;
    d.url = s.url;
    d.kind = s.kind;
    d.format = s.format;
    d.processStartUnix = s.processStartUnix;
    return d;
}

/// Rebuilds RunResult::telemetry from the journal's telemetry lines. Sources are numbered in the
/// order they first appear (the runner's numbering, unless a source's first scrape finished
/// after a later source's).
class TelemetryLines {
public:
    TelemetryLines(Telemetry& telemetry, std::size_t endpointCount)
        : m_t(telemetry)
        , m_endpointCount(endpointCount)
    {
    }

    static bool isTelemetryLine(const json& j) { return j.is_object() && j.contains("telemetry"); }

    /// Reads one line; changes nothing when it throws (a bad last line is dropped whole).
    void read(const json& j, const std::string& where)
    {
        const Loc root = Loc::root(where);
        const results::Fields f(j, root);
        const Loc at = root.member("telemetry");
        const json* sampleJson = f.object("telemetry");
        if (!sampleJson)
            f.missing("telemetry");
        TelemetrySample sample = results::readSample(*sampleJson, at);
        const auto known = m_index.find(sample.source);
        const bool first = known == m_index.end();
        const json* sourceJson = f.object("source");
        if (first && !sourceJson)
            results::badField(at.member("s"),
                "source " + std::to_string(sample.source)
                    + " is not described: its first line must carry \"source\"");
        const std::size_t index = first ? m_t.sources.size() : known->second;
        std::size_t seriesCount = first ? 0 : m_t.sources[index].series.size();
        // What the line adds, read aside and merged only once the whole line checked out.
        TelemetrySource added = first ? TelemetrySource {} : descriptionOf(m_t.sources[index]);
        if (sourceJson) {
            results::readSource(added, *sourceJson, root.member("source"), m_endpointCount, first);
            seriesCount += added.series.size();
        }
        results::checkSeries(sample, seriesCount, at);

        if (first) {
            m_index.emplace(sample.source, index);
            m_t.sources.push_back(std::move(added));
        } else if (sourceJson) {
            TelemetrySource& s = m_t.sources[index];
            s.endpoint = added.endpoint;
            s.url = added.url;
            s.kind = added.kind;
            s.format = added.format;
            s.processStartUnix = added.processStartUnix;
            s.series.insert(s.series.end(), std::make_move_iterator(added.series.begin()),
                std::make_move_iterator(added.series.end()));
            s.families.insert(s.families.end(), std::make_move_iterator(added.families.begin()),
                std::make_move_iterator(added.families.end()));
            s.notes += added.notes;
        }
        sample.source = int(index);
        m_t.samples.push_back(std::move(sample));
    }

    /// Lines from different threads interleave slightly out of time order.
    void finish()
    {
        std::stable_sort(m_t.samples.begin(), m_t.samples.end(),
            [](const TelemetrySample& a, const TelemetrySample& b) { return a.atMs < b.atMs; });
    }

private:
    Telemetry& m_t;
    std::size_t m_endpointCount;
    std::unordered_map<int, std::size_t> m_index; ///< the journal's source index → ours
};

} // namespace

RunJournal::~RunJournal()
{
    close(false);
}

bool RunJournal::isOpen() const
{
    const std::lock_guard lock(m_mutex);
    return m_file.isOpen();
}

QString RunJournal::path() const
{
    const std::lock_guard lock(m_mutex);
    return m_file.fileName();
}

QString RunJournal::open(const QString& path, const RunResult& header)
{
    const std::lock_guard lock(m_mutex);
    m_reader.close();
    closeFile(m_file, false);
    m_endpoints = header.endpoints;
    m_sources.clear();
    m_failedRecords = m_gapRecords = m_gapSamples = 0;
    m_file.setFileName(path);
    // Unbuffered: every write() goes straight to the kernel, so nothing finished waits in a
    // user-space buffer that a SIGKILL would throw away.
    // Opened without truncating, locked, then emptied: a second run given the same --out must
    // not wipe the journal of one still writing it.
    if (!m_file.open(QIODevice::WriteOnly | QIODevice::Append | QIODevice::Unbuffered)) {
        const QString why = m_file.errorString();
        const QFileInfo dir(QFileInfo(path).absolutePath());
        if (dir.isDir() && !dir.isWritable())
            return QStringLiteral("cannot create the run journal %1: the folder %2 is not writable (%3)")
                .arg(nativePath(path), nativePath(dir.filePath()), why);
        return QStringLiteral("cannot create the run journal %1: %2").arg(nativePath(path), why);
    }
    // Held until the file is closed (the lock belongs to this open file, so it also keeps out a
    // second journal in the same process); released by the kernel if the process dies.
    if (platform::lockExclusively(m_file.handle()) == platform::FileLock::Busy) {
        m_file.close();
        return QStringLiteral("cannot create the run journal %1: another run is writing it now; give "
                              "this run a different results file")
            .arg(nativePath(path));
    }
    if (!m_file.resize(0)) {
        const QString why = m_file.errorString();
        m_file.close();
        return QStringLiteral("cannot create the run journal %1: %2").arg(nativePath(path), why);
    }
    nlohmann::json first = headerToJson(header);
    first["journal"] = true;
    const std::string line = lineOf(first);
    errno = 0;
    if (m_file.write(line.data(), qint64(line.size())) != qint64(line.size())) {
        const QString why = results::writeFailure(m_file, errno);
        m_file.close();
        QFile::remove(path);
        return QStringLiteral("cannot write the run journal %1: %2").arg(nativePath(path), why);
    }
    // A second handle for readBack(): it keeps the file's data reachable even if its name goes.
    // Without it the run still journals; only what the runner let go of stays in the journal.
    m_reader.setFileName(path);
    if (!m_reader.open(QIODevice::ReadOnly))
        m_reader.setFileName(QString());
    return {};
}

QString RunJournal::writeLine(const std::string& line, bool isRecord)
{
    // After failed lines, say what is missing where it is missing, in the same write().
    std::string lines;
    if (m_gapRecords || m_gapSamples) {
        lines = lineOf({{"journal_gap",
            {{"records", m_gapRecords}, {"samples", m_gapSamples}, {"error", m_gapWhy.toStdString()}}}});
    }
    lines += line;
    // One write() of the whole line. A short write (disk full) is cut back off, so the journal
    // never holds half a line followed by more lines.
    const qint64 before = m_file.pos();
    errno = 0;
    if (m_file.write(lines.data(), qint64(lines.size())) != qint64(lines.size())) {
        const QString why = results::writeFailure(m_file, errno);
        m_file.resize(before);
        m_file.seek(before);
        ++(isRecord ? m_gapRecords : m_gapSamples);
        m_gapWhy = why;
        return QStringLiteral("cannot write to the run journal %1: %2 (is the disk full?)")
            .arg(nativePath(m_file.fileName()), why);
    }
    m_gapRecords = m_gapSamples = 0;
    // The file is unbuffered, so this is a no-op kept as a guard should that ever change. There
    // is deliberately no fdatasync() here: see docs/results-format.md, "The journal".
    m_file.flush();
    return {};
}

QString RunJournal::append(const RunRecord& record, JournalSpan* written)
{
    // Serialized outside the lock: the telemetry thread never waits for a record's JSON.
    std::string line;
    try {
        line = lineOf(recordToJson(record, m_endpoints));
    } catch (const std::exception& e) {
        return QStringLiteral("cannot journal a request: %1").arg(QString::fromUtf8(e.what()));
    }
    const std::lock_guard lock(m_mutex);
    if (!m_file.isOpen())
        return QStringLiteral("the run journal is not open");
    QString error = writeLine(line, true);
    if (!error.isEmpty())
        ++m_failedRecords;
    else if (written) // after a gap line, when one went first
        *written = {m_file.size() - qint64(line.size()), qint64(line.size()) - 1};
    return error;
}

bool RunJournal::canReadBack() const
{
    const std::lock_guard lock(m_mutex);
    return m_reader.isOpen();
}

std::vector<std::optional<RunRecord>> RunJournal::readBackRecords(
    const std::vector<JournalSpan>& spans, QStringList* errors) const
{
    std::vector<std::optional<RunRecord>> out;
    out.reserve(spans.size());
    std::vector<RunEndpoint> endpoints;
    {
        const std::lock_guard lock(m_mutex);
        endpoints = m_endpoints;
    }
    results::FastRecordReader quick(endpoints);
    for (const JournalSpan& span : spans) {
        QString error;
        const std::optional<QByteArray> line = readBack(span, &error);
        if (line) {
            const std::string_view text(line->constData(), std::size_t(line->size()));
            out.push_back(quick.read(text));
            if (!out.back()) {
                try {
                    out.back() = recordFromJson(parseJsonDocument(*line, "journal"), endpoints,
                        "journal at byte " + std::to_string(span.offset));
                } catch (const std::exception& e) {
                    error = QString::fromUtf8(e.what());
                }
            }
        } else
            out.emplace_back();
        if (!out.back() && errors)
            *errors << error;
    }
    return out;
}

std::optional<QByteArray> RunJournal::readBack(JournalSpan span, QString* error) const
{
    const std::lock_guard lock(m_mutex);
    QString why;
    if (!span.written() || span.length <= 0)
        why = QStringLiteral("nothing was written there");
    else if (!m_reader.isOpen())
        why = QStringLiteral("the journal is not open");
    else if (!m_reader.seek(span.offset))
        why = m_reader.errorString();
    else {
        QByteArray line = m_reader.read(span.length);
        if (line.size() == span.length)
            return line;
        why = QStringLiteral("%1 of %2 bytes read (was the journal cut short?)")
                  .arg(line.size())
                  .arg(span.length);
    }
    if (error)
        *error = QStringLiteral("cannot read back the run journal %1 at byte %2: %3")
                     .arg(nativePath(m_file.fileName()))
                     .arg(span.offset)
                     .arg(why);
    return std::nullopt;
}

int RunJournal::failedRecords() const
{
    const std::lock_guard lock(m_mutex);
    return m_failedRecords;
}

QString RunJournal::appendTelemetry(
    int sourceIndex, const TelemetrySource& source, const TelemetrySample& sample)
{
    if (sourceIndex < 0)
        return QStringLiteral("cannot journal a telemetry sample: source index %1").arg(sourceIndex);
    const std::lock_guard lock(m_mutex);
    if (!m_file.isOpen())
        return QStringLiteral("the run journal is not open");
    SourceWritten& w = m_sources[sourceIndex];
    const bool describe = !w.described || !results::sameDescription(w.description, source);
    // A table never shrinks during a run; should one, only entries past what was written count.
    const results::SourceTablesWritten from {w.series, w.families, w.notes};
    std::string line;
    try {
        json j = {{"telemetry", results::sampleToJson(sample)}};
        j["telemetry"]["s"] = sourceIndex;
        json added = results::sourceToJson(source, describe, from);
        if (!added.empty())
            j["source"] = std::move(added);
        line = lineOf(j);
    } catch (const std::exception& e) {
        return QStringLiteral("cannot journal a telemetry sample: %1").arg(QString::fromUtf8(e.what()));
    }
    if (QString error = writeLine(line, false); !error.isEmpty())
        return error;
    if (describe) {
        w.described = true;
        w.description = descriptionOf(source);
    }
    w.series = std::max(w.series, source.series.size());
    w.families = std::max(w.families, source.families.size());
    w.notes = std::max(w.notes, std::size_t(source.notes.size()));
    return {};
}

void RunJournal::close(bool remove)
{
    const std::lock_guard lock(m_mutex);
    m_reader.close();
    closeFile(m_file, remove);
}

RunResult recoverJournal(const QString& journalPath)
{
    const QByteArray bytes = readResultsFile(journalPath);
    return parseJournal(bytes, journalPath, QFileInfo(journalPath).lastModified().toUTC());
}

RunResult parseJournal(QByteArrayView bytes, const QString& journalPath, const QDateTime& lastWritten)
{
    using Kind = ResultFileError::Kind;
    const std::string name = nativePath(journalPath).toStdString();
    const char* const begin = bytes.data();
    const char* const end = begin + bytes.size();

    // Line 1: the header. Without a whole one there is nothing to recover into.
    const char* newline = std::find(begin, end, '\n');
    if (newline == end) {
        throw ResultFileError(Kind::Truncated,
            name
                + (bytes.isEmpty() ? ": the journal is empty"
                                   : ": the journal's first line (the run's header) is cut off")
                + ": the run was stopped before its first request finished; there is nothing to recover");
    }
    RunResult result;
    try {
        const nlohmann::json header
            = parseJsonDocument(QByteArrayView(begin, newline - begin), name + ": line 1");
        result = headerFromJson(header, name + ": line 1");
    } catch (const ResultFileError& e) {
        if (e.kind() == Kind::NotResults)
            throw ResultFileError(
                Kind::NotResults, name + ": not a Quantscope run journal (" + e.what() + ")");
        throw;
    }

    // Then one record or telemetry sample per line. Only the last line can be cut off by a kill (each line is
    // written by one write()); a bad line anywhere else means the file was damaged or edited.
    TelemetryLines telemetry(result.telemetry, result.endpoints.size());
    QString dropped;
    bool lastWithoutNewline = false;
    qint64 missingRecords = 0, missingSamples = 0; // lines the run could not write (journal_gap)
    JsonInterner sharedJson; // the journal's distinct request bodies and verdicts, held once
    results::FastRecordReader quick(result.endpoints); // record lines, without an nlohmann tree
    QString missingWhy;
    int lineNo = 1;
    for (const char* line = newline + 1; line < end; line = newline + 1) {
        ++lineNo;
        newline = std::find(line, end, '\n');
        const bool isLast = newline == end || newline + 1 == end;
        const QByteArrayView text(line, newline - line);
        if (text.trimmed().isEmpty()) {
            if (newline == end)
                break;
            continue;
        }
        // A record line the quick way; anything it declines (telemetry, gaps, a bad line) below.
        if (std::optional<RunRecord> record = quick.read(
                std::string_view(text.data(), std::size_t(text.size())), std::size_t(end - newline))) {
            result.records.push_back(std::move(*record));
            lastWithoutNewline = newline == end;
            if (newline == end)
                break;
            continue;
        }
        const std::string where = name + ": line " + std::to_string(lineNo);
        try {
            const nlohmann::json j = parseJsonDocument(text, where);
            // A gap line with junk in it still only marks a gap (find() on a non-object finds nothing).
            if (const auto gap = j.is_object() ? j.find("journal_gap") : j.end(); gap != j.end()) {
                missingRecords += gapCount(*gap, "records");
                missingSamples += gapCount(*gap, "samples");
                if (const auto why = gap->find("error"); why != gap->end() && why->is_string())
                    missingWhy = QString::fromStdString(why->get<std::string>());
            } else if (TelemetryLines::isTelemetryLine(j))
                telemetry.read(j, where);
            else {
                result.records.push_back(recordFromJson(j, result.endpoints, where));
                internJson(result.records.back(), sharedJson);
            }
            lastWithoutNewline = newline == end;
        } catch (const ResultFileError& e) {
            if (!isLast) {
                const std::string fix
                    = " — only the last line of a journal can be cut off; fix or delete line "
                    + std::to_string(lineNo) + " and recover again";
                if (e.kind() == Kind::Truncated) // a line, not the file, ends early
                    throw ResultFileError(Kind::NotJson,
                        where + ": not valid JSON (the line ends in the middle of a record)" + fix);
                throw ResultFileError(e.kind(), e.what() + fix);
            }
            dropped = QStringLiteral(
                "the last line (line %1, %2 bytes) was cut off when the run stopped and was dropped")
                          .arg(lineNo)
                          .arg(text.size());
        }
        if (newline == end)
            break;
    }

    telemetry.finish();
    result.complete = false;
    if (!result.endedAt.isValid()) // the journal was last written when the last request finished
        result.endedAt = lastWritten;
    QString note = QStringLiteral("recovered from %1: %2 finished requests")
                       .arg(QFileInfo(journalPath).fileName())
                       .arg(result.records.size());
    if (!result.telemetry.samples.empty())
        note += QStringLiteral(" and %1 server metrics samples").arg(result.telemetry.samples.size());
    note += QStringLiteral("; requests in flight when the run stopped are not included");
    if (missingRecords || missingSamples)
        note += QStringLiteral("; %1 finished requests and %2 server metrics samples could not be written to "
                               "the journal during the run (%3) and are missing")
                    .arg(missingRecords)
                    .arg(missingSamples)
                    .arg(missingWhy);
    if (!dropped.isEmpty())
        note += QStringLiteral("; ") + dropped;
    else if (lastWithoutNewline)
        note += QStringLiteral("; the last line had no line end but was complete and was kept");
    result.note = result.note.isEmpty() ? note : result.note + QStringLiteral("; ") + note;
    return result;
}

} // namespace qs
