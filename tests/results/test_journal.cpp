// SPDX-License-Identifier: MIT
// The run journal: what a killed run leaves behind, and recovering it into a results file.
#include "ResultsTestSupport.h"

#include <QDir>
#include <QFileInfo>
#include <QTemporaryDir>
#include <csignal>
#include <sys/wait.h>
#include <unistd.h>

using namespace qs;
using namespace qs::test;
using Kind = ResultFileError::Kind;

namespace {

RunRecord numbered(const RunResult& r, int i)
{
    RunRecord record = r.records[std::size_t(i) % r.records.size()];
    record.iteration = i + 1;
    return record;
}

/// A journal with the header and `n` records; returns its path.
QString writeJournal(const QTemporaryDir& dir, const RunResult& r, int n)
{
    const QString path = RunJournal::journalPathFor(dir.filePath(QStringLiteral("run.json")));
    RunJournal journal;
    EXPECT_EQ(journal.open(path, r), QString());
    EXPECT_TRUE(journal.isOpen());
    for (int i = 0; i < n; ++i)
        EXPECT_EQ(journal.append(numbered(r, i)), QString());
    journal.close(false);
    return path;
}

std::string expectRecoverError(const QString& path, Kind kind, std::initializer_list<const char*> needles)
{
    try {
        recoverJournal(path);
    } catch (const ResultFileError& e) {
        EXPECT_EQ(int(e.kind()), int(kind)) << e.what();
        for (const char* n : needles)
            EXPECT_NE(std::string(e.what()).find(n), std::string::npos)
                << "missing \"" << n << "\" in: " << e.what();
        return e.what();
    }
    ADD_FAILURE() << "recoverJournal did not throw";
    return {};
}

} // namespace

TEST(RunJournal, PathBesideTheResultsFile)
{
    EXPECT_EQ(
        RunJournal::journalPathFor(QStringLiteral("/tmp/run.json")), QStringLiteral("/tmp/run.json.journal"));
}

TEST(RunJournal, HeaderLineThenOneLinePerRecord)
{
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const RunResult r = makeResult();
    const QString path = writeJournal(dir, r, 3);
    const QList<QByteArray> lines = readFile(path).split('\n');
    ASSERT_EQ(lines.size(), 5); // header, 3 records, "" after the last newline
    EXPECT_TRUE(lines[4].isEmpty());
    const json header = json::parse(lines[0].toStdString());
    EXPECT_EQ(header["journal"], true);
    EXPECT_EQ(header["format"], "quantscope-results");
    EXPECT_FALSE(header.contains("records"));
    EXPECT_EQ(json::parse(lines[1].toStdString()), recordToJson(numbered(r, 0), r.endpoints));
}

TEST(RunJournal, RecoversEveryRecord)
{
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const RunResult r = makeResult();
    const QString path = writeJournal(dir, r, 10);
    const RunResult back = recoverJournal(path);
    EXPECT_FALSE(back.complete);
    EXPECT_TRUE(back.note.contains(QStringLiteral("recovered from run.json.journal: 10 finished requests")))
        << back.note.toStdString();
    EXPECT_TRUE(back.note.startsWith(r.note)); // the run's own note is kept
    EXPECT_TRUE(back.endedAt.isValid());
    EXPECT_EQ(back.host, r.host);
    EXPECT_EQ(back.suite, r.suite);
    ASSERT_EQ(back.records.size(), 10u);
    for (int i = 0; i < 10; ++i)
        EXPECT_EQ(recordToJson(back.records[std::size_t(i)], back.endpoints),
            recordToJson(numbered(r, i), r.endpoints))
            << i;

    // The recovered run saves and loads as a normal results file.
    const QString out = dir.filePath(QStringLiteral("recovered.json"));
    EXPECT_EQ(saveResults(back, out), QString());
    EXPECT_EQ(loadResults(out).records.size(), 10u);
}

TEST(RunJournal, KilledMidLineDropsOnlyThatLine)
{
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const RunResult r = makeResult();
    const int n = 8;
    const QString path = writeJournal(dir, r, n);
    const QByteArray full = readFile(path);
    const qsizetype lastStart = full.lastIndexOf('\n', full.size() - 2) + 1;
    const qsizetype lastLength = full.size() - lastStart; // including its '\n'
    for (qsizetype keep : {qsizetype(1), qsizetype(2), lastLength / 3, lastLength / 2, lastLength - 2}) {
        SCOPED_TRACE("kept " + std::to_string(keep) + " bytes of the last line");
        writeFile(path, full.left(lastStart + keep));
        const RunResult back = recoverJournal(path);
        ASSERT_EQ(back.records.size(), std::size_t(n - 1));
        EXPECT_EQ(back.records.back().iteration, n - 1);
        EXPECT_TRUE(back.note.contains(QStringLiteral("the last line (line %1").arg(n + 1)))
            << back.note.toStdString();
        EXPECT_TRUE(back.note.contains(QStringLiteral("cut off"))) << back.note.toStdString();
        EXPECT_FALSE(back.complete);
    }
    // Only the newline missing: the record is whole and kept.
    writeFile(path, full.left(full.size() - 1));
    const RunResult whole = recoverJournal(path);
    EXPECT_EQ(whole.records.size(), std::size_t(n));
    EXPECT_TRUE(whole.note.contains(QStringLiteral("no line end"))) << whole.note.toStdString();
}

TEST(RunJournal, GarbageInTheMiddleNamesTheLine)
{
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const RunResult r = makeResult();
    const QString path = writeJournal(dir, r, 5);
    QList<QByteArray> lines = readFile(path).split('\n');
    lines[3] = "{\"endpoint\": \"NVFP4 vLLM\", \"test\": tru"; // line 4: a record cut and then written over
    writeFile(path, lines.join('\n'));
    expectRecoverError(
        path, Kind::NotJson, {"run.json.journal: line 4", "not valid JSON", "fix or delete line 4"});

    // A parseable line with a bad field is reported with its line and field.
    lines = readFile(path).split('\n');
    json bad = recordToJson(numbered(r, 1), r.endpoints);
    bad["ttft_any_ms"] = "soon";
    lines[3] = QByteArray::fromStdString(bad.dump());
    writeFile(path, lines.join('\n'));
    expectRecoverError(path, Kind::BadField,
        {"run.json.journal: line 4: ttft_any_ms: expected a number or null, found a string"});
}

TEST(RunJournal, HeaderOnlyEmptyAndCutHeader)
{
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const RunResult r = makeResult();
    const QString path = writeJournal(dir, r, 0);
    const RunResult back = recoverJournal(path);
    EXPECT_TRUE(back.records.empty());
    EXPECT_TRUE(back.note.contains(QStringLiteral("0 finished requests")));

    const QByteArray header = readFile(path);
    writeFile(path, header.left(header.size() / 2));
    expectRecoverError(path, Kind::Truncated, {"first line", "cut off", "nothing to recover"});
    writeFile(path, "");
    expectRecoverError(path, Kind::Truncated, {"empty"});
    writeFile(path, "hello\n");
    expectRecoverError(path, Kind::NotJson, {"line 1"});
    writeFile(path, "{\"format\": \"something-else\"}\n");
    expectRecoverError(path, Kind::NotResults, {"not a Quantscope run journal"});
    expectRecoverError(dir.filePath(QStringLiteral("missing.journal")), Kind::Unreadable, {"no such file"});
}

TEST(RunJournal, UnwritableLocationGivesAnError)
{
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    RunJournal journal;
    // A regular file where the folder should be: fails even for root.
    writeFile(dir.filePath(QStringLiteral("plain")), "x");
    QString error = journal.open(dir.filePath(QStringLiteral("plain/run.json.journal")), makeResult());
    EXPECT_TRUE(error.contains(QStringLiteral("cannot create the run journal"))) << error.toStdString();
    EXPECT_FALSE(journal.isOpen());
    EXPECT_FALSE(journal.append(makeResult().records[0]).isEmpty());

    if (::geteuid() != 0) {
        const QString ro = dir.filePath(QStringLiteral("ro"));
        ASSERT_TRUE(QDir().mkpath(ro));
        QFile::setPermissions(ro, QFileDevice::ReadOwner | QFileDevice::ExeOwner);
        error = journal.open(ro + QStringLiteral("/run.json.journal"), makeResult());
        QFile::setPermissions(ro, QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
        EXPECT_TRUE(error.contains(QStringLiteral("not writable"))) << error.toStdString();
    }
}

TEST(RunJournal, CloseRemovesOnlyWhenAsked)
{
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("a.journal"));
    RunJournal journal;
    ASSERT_EQ(journal.open(path, makeResult()), QString());
    EXPECT_EQ(journal.path(), path);
    journal.close(true);
    EXPECT_FALSE(QFileInfo::exists(path));
    ASSERT_EQ(journal.open(path, makeResult()), QString());
    journal.close(false);
    EXPECT_TRUE(QFileInfo::exists(path));
}

TEST(RunJournal, SigkillLosesNoFinishedRecord)
{
    // A child appends records and reports each finished append() through a pipe; the parent
    // kills it with SIGKILL at a random moment mid-run. Every acknowledged record must be there.
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const RunResult r = makeResult();
    const QString path = dir.filePath(QStringLiteral("killed.json.journal"));
    int fds[2];
    ASSERT_EQ(::pipe(fds), 0);
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        ::close(fds[0]);
        RunJournal journal;
        if (!journal.open(path, r).isEmpty())
            ::_exit(2);
        for (int i = 0;; ++i) {
            if (!journal.append(numbered(r, i)).isEmpty())
                ::_exit(3);
            if (::write(fds[1], &i, sizeof i) != sizeof i)
                ::_exit(4);
        }
    }
    ::close(fds[1]);
    int acknowledged = -1;
    int i = 0;
    while (acknowledged < 300 && ::read(fds[0], &i, sizeof i) == sizeof i)
        acknowledged = i;
    ASSERT_EQ(::kill(child, SIGKILL), 0);
    int status = 0;
    ::waitpid(child, &status, 0);
    ::close(fds[0]);
    ASSERT_TRUE(WIFSIGNALED(status)) << "child exited with " << WEXITSTATUS(status);
    ASSERT_GE(acknowledged, 300);

    const RunResult back = recoverJournal(path);
    ASSERT_GE(back.records.size(), std::size_t(acknowledged + 1));
    for (std::size_t k = 0; k < back.records.size(); ++k)
        ASSERT_EQ(back.records[k].iteration, int(k) + 1);
}
