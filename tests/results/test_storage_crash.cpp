// SPDX-License-Identifier: MIT
// A process killed while it saves or journals, at chosen bytes and at random moments, and files
// cut at every record boundary: the previous results file is never damaged, the journal gives
// back every line that was completely written, and each case says what happened
// (docs/results-format.md, "What a crash can and cannot do to your results").
#include "CrashChild.h"
#include "ResultsTestSupport.h"

#include <QDir>
#include <QFileInfo>
#include <QTemporaryDir>
#include <algorithm>
#include <csignal>
#include <random>
#include <set>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace qs;
using namespace qs::test;
using Kind = ResultFileError::Kind;

namespace {

struct ChildOutcome {
    bool signaled = false;
    int signal = 0;
    int exitCode = -1;
    QByteArray out; ///< its stdout
};

std::string describe(const ChildOutcome& o)
{
    return (o.signaled ? "killed by signal " + std::to_string(o.signal)
                       : "exited " + std::to_string(o.exitCode))
        + ", said: " + o.out.toStdString();
}

/// Starts storage_crash_child with `args`; its stdout goes to the returned pipe.
pid_t startChild(const std::vector<std::string>& args, int& stdoutFd)
{
    int fds[2];
    if (::pipe(fds) != 0)
        return -1;
    std::vector<char*> argv = crashChildCommand();
    for (const std::string& a : args)
        argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    const pid_t pid = ::fork();
    if (pid == 0) {
        ::dup2(fds[1], STDOUT_FILENO);
        ::close(fds[0]);
        ::close(fds[1]);
        ::execv(argv[0], argv.data());
        ::_exit(127);
    }
    ::close(fds[1]);
    stdoutFd = fds[0];
    return pid;
}

ChildOutcome waitChild(pid_t pid, int stdoutFd)
{
    ChildOutcome o;
    char buffer[4096];
    for (ssize_t n; (n = ::read(stdoutFd, buffer, sizeof buffer)) > 0;)
        o.out.append(buffer, n);
    ::close(stdoutFd);
    int status = 0;
    ::waitpid(pid, &status, 0);
    o.signaled = WIFSIGNALED(status);
    o.signal = o.signaled ? WTERMSIG(status) : 0;
    o.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return o;
}

ChildOutcome runChild(const std::vector<std::string>& args)
{
    int fd = -1;
    const pid_t pid = startChild(args, fd);
    if (pid < 0)
        return {};
    return waitChild(pid, fd);
}

/// Offsets just past each '\n' in `bytes` (where the next line starts).
std::vector<qsizetype> lineEnds(const QByteArray& bytes)
{
    std::vector<qsizetype> ends;
    for (qsizetype i = 0; i < bytes.size(); ++i)
        if (bytes[i] == '\n')
            ends.push_back(i + 1);
    return ends;
}

/// Every line boundary, one byte either side of it, and `spread` evenly spaced points in between.
std::vector<qsizetype> cutPoints(const QByteArray& bytes, std::size_t everyNthLine, int spread)
{
    std::set<qsizetype> cuts;
    const std::vector<qsizetype> ends = lineEnds(bytes);
    for (std::size_t i = 0; i < ends.size(); i += everyNthLine)
        for (qsizetype d : {-1, 0, 1})
            cuts.insert(ends[i] + d);
    for (int k = 1; k <= spread; ++k)
        cuts.insert(bytes.size() * k / (spread + 1));
    std::erase_if(cuts, [&](qsizetype n) { return n < 1 || n > bytes.size(); });
    return {cuts.begin(), cuts.end()};
}

/// Files in `dir` besides `keep`.
QStringList othersIn(const QString& dir, const QString& keep)
{
    QStringList files = QDir(dir).entryList(QDir::Files | QDir::Hidden);
    files.removeAll(keep);
    return files;
}

} // namespace

// --- killed while saving -----------------------------------------------------------------------

TEST(StorageCrash, KilledAtAnyByteOfASaveKeepsThePreviousFile)
{
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("run.json"));
    const QByteArray previous = serializeResults(makeResultWith(7));
    const QByteArray next = serializeResults(makeResultWith(40));
    ASSERT_EQ(saveResults(makeResultWith(7), path), QString());

    const std::vector<qsizetype> cuts = cutPoints(next, 3, 12);
    ASSERT_GE(cuts.size(), 40u);
    for (qsizetype n : cuts) {
        SCOPED_TRACE("file size limit " + std::to_string(n) + " of " + std::to_string(next.size()));
        const ChildOutcome o = runChild({"save", "kill", std::to_string(n), "40", path.toStdString()});
        if (n >= next.size()) { // the whole file fits: this save must succeed
            ASSERT_FALSE(o.signaled) << describe(o);
            ASSERT_EQ(readFile(path), next);
            ASSERT_EQ(saveResults(makeResultWith(7), path), QString());
            continue;
        }
        ASSERT_TRUE(o.signaled && o.signal == SIGXFSZ) << describe(o);
        // The previous file, byte for byte, and it still loads.
        ASSERT_EQ(readFile(path), previous);
        EXPECT_EQ(loadResults(path).records.size(), 7u);
        // Whatever the kill left behind is neither a results file nor a journal by name, so
        // nothing picks it up as one (File ▸ Recover looks for *.journal).
        for (const QString& f : othersIn(dir.path(), QStringLiteral("run.json"))) {
            EXPECT_FALSE(f.endsWith(QStringLiteral(".json")) || f.endsWith(QStringLiteral(".journal")))
                << f.toStdString();
            QFile::remove(dir.filePath(f));
        }
    }
}

TEST(StorageCrash, SigkillDuringSavesLeavesOneWholeFile)
{
    // Time-based: a child saves two different results over the same path again and again; the
    // parent kills it with SIGKILL after a random delay. The file is always one of the two,
    // whole — never a mix, never a prefix, never missing.
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("run.json"));
    const QByteArray a = serializeResults(makeResultWith(400));
    const QByteArray b = serializeResults(makeResultWith(401));
    std::mt19937 random(20260301);
    for (int round = 0; round < 12; ++round) {
        SCOPED_TRACE("round " + std::to_string(round));
        int fd = -1;
        const pid_t pid = startChild({"saveloop", path.toStdString()}, fd);
        ASSERT_GT(pid, 0);
        // Wait for the first save (so there is a previous file), then kill at a random moment.
        char c = 0;
        while (::read(fd, &c, 1) == 1 && c != '\n') { }
        std::this_thread::sleep_for(std::chrono::microseconds(random() % 60000));
        ASSERT_EQ(::kill(pid, SIGKILL), 0);
        const ChildOutcome o = waitChild(pid, fd);
        ASSERT_TRUE(o.signaled) << describe(o);
        const QByteArray now = readFile(path);
        ASSERT_TRUE(now == a || now == b) << "the file is " << now.size() << " bytes, neither save";
        for (const QString& f : othersIn(dir.path(), QStringLiteral("run.json")))
            QFile::remove(dir.filePath(f));
    }
}

// --- killed while journaling -------------------------------------------------------------------

TEST(StorageCrash, KilledAtAnyByteOfTheJournalRecoversEveryWholeLine)
{
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    constexpr int kRecords = 24;
    const std::string records = std::to_string(kRecords);
    // The journal as an uninterrupted run writes it.
    const QString reference = dir.filePath(QStringLiteral("reference.json.journal"));
    const ChildOutcome uncut = runChild({"journal", "kill", "0", records, reference.toStdString()});
    ASSERT_EQ(uncut.exitCode, 0) << describe(uncut);
    const QByteArray full = readFile(reference);
    const std::vector<qsizetype> ends = lineEnds(full);
    ASSERT_EQ(ends.size(), std::size_t(kRecords + 1));

    const QString path = dir.filePath(QStringLiteral("run.json.journal"));
    const std::vector<qsizetype> cuts = cutPoints(full, 1, 20);
    for (qsizetype n : cuts) {
        SCOPED_TRACE("file size limit " + std::to_string(n) + " of " + std::to_string(full.size()));
        const ChildOutcome o = runChild({"journal", "kill", std::to_string(n), records, path.toStdString()});
        const QByteArray left = readFile(path);
        if (n >= full.size()) {
            ASSERT_EQ(o.exitCode, 0) << describe(o);
            ASSERT_EQ(left, full);
            continue;
        }
        ASSERT_TRUE(o.signaled && o.signal == SIGXFSZ) << describe(o);
        // The kernel stopped it at byte n: the journal is exactly the first n bytes.
        ASSERT_EQ(left, full.left(n));
        // Lines whose '\n' was written, and whether the cut one has all but its '\n'.
        const auto whole = std::count_if(ends.begin(), ends.end(), [&](qsizetype e) { return e <= n; });
        const bool onlyNewlineMissing = std::find(ends.begin(), ends.end(), n + 1) != ends.end();
        if (whole == 0) { // the header itself is cut: nothing to recover, and it says so
            expectError([&] { recoverJournal(path); }, Kind::Truncated, {"first line", "nothing to recover"});
            continue;
        }
        const RunResult back = recoverJournal(path);
        const std::size_t expected
            = std::size_t(std::max<qsizetype>(whole - 1, 0)) + (onlyNewlineMissing ? 1 : 0);
        ASSERT_EQ(back.records.size(), expected) << back.note.toStdString();
        for (std::size_t k = 0; k < back.records.size(); ++k)
            ASSERT_EQ(back.records[k].iteration, int(k) + 1);
        // Every append the child saw succeed is there.
        const qsizetype acknowledged = o.out.count("\nok ") + (o.out.startsWith("ok ") ? 1 : 0);
        EXPECT_LE(std::size_t(acknowledged), back.records.size()) << o.out.toStdString();
        EXPECT_FALSE(back.complete);
        EXPECT_TRUE(back.note.contains(QStringLiteral("%1 finished requests").arg(expected)))
            << back.note.toStdString();
        const bool cutMidLine = whole > 0 && n != ends[std::size_t(whole - 1)] && !onlyNewlineMissing;
        EXPECT_EQ(back.note.contains(QStringLiteral("was cut off when the run stopped and was dropped")),
            cutMidLine)
            << back.note.toStdString();
        if (onlyNewlineMissing) {
            EXPECT_TRUE(back.note.contains(QStringLiteral("no line end but was complete")))
                << back.note.toStdString();
        }
    }
}

// --- files cut at every record boundary --------------------------------------------------------

TEST(StorageCrash, AResultsFileCutAtAnyLineIsRefusedAsCutOff)
{
    RunResult r = makeResultWith(30);
    r.telemetry = makeTelemetry();
    r.judging = makeJudging();
    const QByteArray bytes = serializeResults(r);
    ASSERT_EQ(bytes.right(2), QByteArray("}\n"));
    std::vector<qsizetype> cuts = cutPoints(bytes, 1, 60);
    std::erase_if(cuts, [&](qsizetype n) { return n >= bytes.size() - 1; }); // "}" alone is whole
    ASSERT_GE(cuts.size(), 100u);
    for (qsizetype n : cuts) {
        SCOPED_TRACE("cut at " + std::to_string(n) + " of " + std::to_string(bytes.size()));
        expectError([&] { parseResults(bytes.left(n), QStringLiteral("run.json")); }, Kind::Truncated,
            {"run.json", "cut off", "did not finish"});
    }
    // Only the final newline missing: the file is whole.
    EXPECT_EQ(parseResults(bytes.left(bytes.size() - 1), QStringLiteral("run.json")).records.size(), 30u);
}

TEST(StorageCrash, AJournalCutAnywhereGivesBackExactlyItsWholeLines)
{
    // In memory, at every byte of the records' lines: cheaper than a process per cut, and it
    // covers the cuts the kill test above does not reach.
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const RunResult r = makeResultWith(12);
    const QString path = dir.filePath(QStringLiteral("run.json.journal"));
    {
        RunResult header = r;
        header.records.clear();
        RunJournal journal;
        ASSERT_EQ(journal.open(path, header), QString());
        for (const RunRecord& record : r.records)
            ASSERT_EQ(journal.append(record), QString());
    }
    const QByteArray full = readFile(path);
    const std::vector<qsizetype> ends = lineEnds(full);
    const QDateTime when = QDateTime::currentDateTimeUtc();
    int checked = 0;
    for (qsizetype n = ends.front(); n <= full.size(); n += (n % 7 == 0 ? 1 : 37)) {
        const auto whole = std::count_if(ends.begin(), ends.end(), [&](qsizetype e) { return e <= n; });
        const bool onlyNewlineMissing = std::find(ends.begin(), ends.end(), n + 1) != ends.end();
        const RunResult back = parseJournal(QByteArrayView(full).first(n), path, when);
        ASSERT_EQ(back.records.size(), std::size_t(whole - 1 + (onlyNewlineMissing ? 1 : 0)))
            << "cut at " << n;
        ++checked;
    }
    for (qsizetype e : ends) { // and exactly at every boundary
        const auto whole = std::count_if(ends.begin(), ends.end(), [&](qsizetype x) { return x <= e; });
        const RunResult back = parseJournal(QByteArrayView(full).first(e), path, when);
        ASSERT_EQ(back.records.size(), std::size_t(whole - 1)) << "cut at " << e;
        EXPECT_FALSE(back.note.contains(QStringLiteral("dropped"))) << back.note.toStdString();
    }
    EXPECT_GT(checked, 100);
}
