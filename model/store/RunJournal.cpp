// SPDX-License-Identifier: MIT
#include "model/store/RunJournal.h"

#include "model/store/ResultFile.h"

#include <QDir>
#include <QFileInfo>

namespace qs {

namespace {

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

} // namespace

RunJournal::~RunJournal()
{
    close(false);
}

QString RunJournal::open(const QString& path, const RunResult& header)
{
    close(false);
    m_endpoints = header.endpoints;
    m_file.setFileName(path);
    // Unbuffered: every write() goes straight to the kernel, so nothing finished waits in a
    // user-space buffer that a SIGKILL would throw away.
    if (!m_file.open(QIODevice::WriteOnly | QIODevice::Truncate | QIODevice::Unbuffered)) {
        const QString why = m_file.errorString();
        const QFileInfo dir(QFileInfo(path).absolutePath());
        if (dir.isDir() && !dir.isWritable())
            return QStringLiteral("cannot create the run journal %1: the folder %2 is not writable (%3)")
                .arg(nativePath(path), nativePath(dir.filePath()), why);
        return QStringLiteral("cannot create the run journal %1: %2").arg(nativePath(path), why);
    }
    nlohmann::json first = headerToJson(header);
    first["journal"] = true;
    const std::string line = lineOf(first);
    if (m_file.write(line.data(), qint64(line.size())) != qint64(line.size())) {
        const QString why = m_file.errorString();
        m_file.close();
        QFile::remove(path);
        return QStringLiteral("cannot write the run journal %1: %2").arg(nativePath(path), why);
    }
    return {};
}

QString RunJournal::append(const RunRecord& record)
{
    if (!m_file.isOpen())
        return QStringLiteral("the run journal is not open");
    std::string line;
    try {
        line = lineOf(recordToJson(record, m_endpoints));
    } catch (const std::exception& e) {
        return QStringLiteral("cannot journal a request: %1").arg(QString::fromUtf8(e.what()));
    }
    // One write() of the whole line. A short write (disk full) is cut back off, so the journal
    // never holds half a line followed by more records.
    const qint64 before = m_file.pos();
    if (m_file.write(line.data(), qint64(line.size())) != qint64(line.size())) {
        const QString why = m_file.errorString();
        m_file.resize(before);
        m_file.seek(before);
        return QStringLiteral("cannot write to the run journal %1: %2 (is the disk full?)")
            .arg(nativePath(path()), why);
    }
    // The file is unbuffered, so this is a no-op kept as a guard should that ever change. There
    // is deliberately no fdatasync() here: see docs/results-format.md, "The journal".
    m_file.flush();
    return {};
}

void RunJournal::close(bool remove)
{
    if (!m_file.isOpen())
        return;
    const QString name = m_file.fileName();
    m_file.close();
    if (remove)
        QFile::remove(name);
}

RunResult recoverJournal(const QString& journalPath)
{
    using Kind = ResultFileError::Kind;
    const std::string name = nativePath(journalPath).toStdString();
    const QByteArray bytes = readResultsFile(journalPath);
    const char* const begin = bytes.constData();
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

    // Then one record per line. Only the last line can be cut off by a kill (each line is
    // written by one write()); a bad line anywhere else means the file was damaged or edited.
    QString dropped;
    bool lastWithoutNewline = false;
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
        const std::string where = name + ": line " + std::to_string(lineNo);
        try {
            const nlohmann::json j = parseJsonDocument(text, where);
            result.records.push_back(recordFromJson(j, result.endpoints, where));
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

    result.complete = false;
    if (!result.endedAt.isValid()) // the journal was last written when the last request finished
        result.endedAt = QFileInfo(journalPath).lastModified().toUTC();
    QString note
        = QStringLiteral("recovered from %1: %2 finished requests; requests in flight when the run stopped "
                         "are not included")
              .arg(QFileInfo(journalPath).fileName())
              .arg(result.records.size());
    if (!dropped.isEmpty())
        note += QStringLiteral("; ") + dropped;
    else if (lastWithoutNewline)
        note += QStringLiteral("; the last line had no line end but was complete and was kept");
    result.note = result.note.isEmpty() ? note : result.note + QStringLiteral("; ") + note;
    return result;
}

} // namespace qs
