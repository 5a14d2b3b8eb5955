// SPDX-License-Identifier: MIT
// Storage at its limits: a full disk (a file-size limit, and a small tmpfs that really runs out
// of space) and a folder made read-only in the middle of a run. The previous results file stays,
// the journal holds every line it said it wrote and no half line, and each failure says what
// happened and what to do (docs/results-format.md, "What a crash can and cannot do to your results").
#include "CrashChild.h"
#include "ResultsTestSupport.h"

#include <QDir>
#include <QFileInfo>
#include <QTemporaryDir>
#include <cstring>
#include <fcntl.h>
#include <functional>
#include <linux/fs.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace qs;
using namespace qs::test;

namespace {

/// What a journaling process said about each append: "ok 3" or "fail 4: why".
struct Appends {
    std::vector<int> ok;
    std::vector<std::pair<int, QString>> failed;
    int failedBeforeLastOk = 0; ///< failures the journal had to mark with a gap line
};

Appends parseAppends(const QByteArray& out)
{
    Appends a;
    for (const QByteArray& line : out.split('\n')) {
        if (line.startsWith("ok "))
            a.ok.push_back(line.mid(3).toInt());
        else if (line.startsWith("fail ") && !line.startsWith("fail open"))
            a.failed.emplace_back(line.mid(5, line.indexOf(':') - 5).toInt(), QString::fromUtf8(line));
    }
    if (!a.ok.empty())
        for (const auto& [i, why] : a.failed)
            a.failedBeforeLastOk += i < a.ok.back() ? 1 : 0;
    return a;
}

/// The journal after a run whose appends went as `appends` said: no half line, every
/// acknowledged record recovered in order and nothing else, and the missing ones named.
void expectJournalMatches(const QString& journal, const Appends& appends)
{
    const QByteArray bytes = readFile(journal);
    ASSERT_FALSE(bytes.isEmpty());
    EXPECT_TRUE(bytes.endsWith('\n')) << "a half line was left at the end";
    const RunResult back = recoverJournal(journal);
    std::vector<int> iterations;
    for (const RunRecord& r : back.records)
        iterations.push_back(r.iteration);
    EXPECT_EQ(iterations, appends.ok);
    EXPECT_FALSE(back.note.contains(QStringLiteral("dropped"))) << back.note.toStdString();
    if (appends.failedBeforeLastOk > 0) {
        EXPECT_TRUE(
            back.note.contains(QStringLiteral("%1 finished requests and 0 server metrics samples could "
                                              "not be written to the journal during the run")
                                   .arg(appends.failedBeforeLastOk)))
            << back.note.toStdString();
    } else {
        EXPECT_FALSE(back.note.contains(QStringLiteral("could not be written"))) << back.note.toStdString();
    }
}

QByteArray runChild(const QStringList& args, int* exitCode)
{
    int fds[2];
    if (::pipe(fds) != 0)
        return {};
    const pid_t pid = ::fork();
    if (pid == 0) {
        ::dup2(fds[1], STDOUT_FILENO);
        ::close(fds[0]);
        std::vector<QByteArray> keep;
        std::vector<char*> argv = crashChildCommand();
        for (const QString& a : args)
            keep.push_back(a.toLocal8Bit());
        for (QByteArray& a : keep)
            argv.push_back(a.data());
        argv.push_back(nullptr);
        ::execv(argv[0], argv.data());
        ::_exit(127);
    }
    ::close(fds[1]);
    QByteArray out;
    char buffer[4096];
    for (ssize_t n; (n = ::read(fds[0], buffer, sizeof buffer)) > 0;)
        out.append(buffer, n);
    ::close(fds[0]);
    int status = 0;
    ::waitpid(pid, &status, 0);
    *exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return out;
}

} // namespace

// --- a full disk -------------------------------------------------------------------------------

TEST(StorageLimits, FullDiskJournalAppendsFailClearlyAndLeaveNoHalfLine)
{
    // RLIMIT_FSIZE with SIGXFSZ ignored: write() fails with EFBIG at the limit, for root too.
    // The records differ in size, so after a failure a smaller one may fit again: the journal
    // then marks the gap.
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("run.json.journal"));
    int failedRuns = 0;
    for (int limit = 9000; limit < 46000; limit += 1500) {
        SCOPED_TRACE("file size limit " + std::to_string(limit));
        int code = -1;
        const QByteArray out = runChild({QStringLiteral("journal"), QStringLiteral("ignore"),
                                            QString::number(limit), QStringLiteral("30"), path},
            &code);
        ASSERT_EQ(code, 0) << out.toStdString();
        const Appends appends = parseAppends(out);
        ASSERT_FALSE(appends.failed.empty()) << out.toStdString();
        for (const auto& [i, why] : appends.failed) {
            EXPECT_TRUE(why.contains(QStringLiteral("cannot write to the run journal ") + path))
                << why.toStdString();
            EXPECT_TRUE(why.contains(QStringLiteral(": File too large (is the disk full?)")))
                << why.toStdString();
        }
        EXPECT_LE(QFileInfo(path).size(), limit);
        expectJournalMatches(path, appends);
        failedRuns += appends.failedBeforeLastOk > 0 ? 1 : 0;
    }
    EXPECT_GT(failedRuns, 0) << "no limit made a gap: the gap line went untested";
}

TEST(StorageLimits, FullDiskSaveFailsClearlyAndKeepsThePreviousFile)
{
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("run.json"));
    ASSERT_EQ(saveResults(makeResultWith(5), path), QString());
    const QByteArray previous = readFile(path);
    for (int limit : {1, 4096, 50000, 100000}) {
        SCOPED_TRACE("file size limit " + std::to_string(limit));
        int code = -1;
        const QByteArray out = runChild({QStringLiteral("save"), QStringLiteral("ignore"),
                                            QString::number(limit), QStringLiteral("50"), path},
            &code);
        EXPECT_EQ(code, 1) << out.toStdString();
        EXPECT_TRUE(out.startsWith(QByteArray("fail: cannot save the results to " + path.toUtf8() + ": ")))
            << out.toStdString();
        EXPECT_TRUE(out.contains("(is the disk full?)")) << out.toStdString();
        EXPECT_EQ(readFile(path), previous);
        EXPECT_EQ(
            QDir(dir.path()).entryList(QDir::Files | QDir::Hidden), QStringList {QStringLiteral("run.json")})
            << "a temporary file was left";
    }
}

namespace {

/// Runs `body` in a child process with its own user and mount namespace where `mountPoint` is a
/// fresh tmpfs of `size` bytes (a small disk that really fills up, ENOSPC). The body runs with
/// the child's stdout as its report. Returns the child's exit code, 77 with `why` when the
/// namespace or the mount is not allowed here.
int inSmallFileSystem(const QString& mountPoint, int size, const std::function<int()>& body, QString& why)
{
    int fds[2];
    if (::pipe(fds) != 0)
        return -1;
    const pid_t pid = ::fork();
    if (pid == 0) {
        ::close(fds[0]);
        const auto refuse = [&](const char* what) {
            const std::string text = std::string(what) + ": " + std::strerror(errno);
            (void)!::write(fds[1], text.data(), text.size());
            ::_exit(77);
        };
        // As root try a mount namespace alone; otherwise (or if that is refused) a user
        // namespace whose root may mount a tmpfs.
        const uid_t uid = ::geteuid();
        const gid_t gid = ::getegid();
        if (uid != 0 || ::unshare(CLONE_NEWNS) != 0) {
            if (::unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0)
                refuse("unshare(CLONE_NEWUSER | CLONE_NEWNS)");
            const auto put = [](const char* file, const std::string& text) {
                const int fd = ::open(file, O_WRONLY);
                const bool ok = fd >= 0 && ::write(fd, text.data(), text.size()) == ssize_t(text.size());
                if (fd >= 0)
                    ::close(fd);
                return ok;
            };
            put("/proc/self/setgroups", "deny");
            if (!put("/proc/self/uid_map", "0 " + std::to_string(uid) + " 1\n")
                || !put("/proc/self/gid_map", "0 " + std::to_string(gid) + " 1\n"))
                refuse("writing the user namespace's uid_map/gid_map");
        }
        if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0)
            refuse("making the mounts private");
        const std::string options = "size=" + std::to_string(size);
        if (::mount("tmpfs", QFile::encodeName(mountPoint).constData(), "tmpfs", 0, options.c_str()) != 0)
            refuse("mounting a tmpfs");
        ::close(fds[1]);
        ::_exit(body());
    }
    ::close(fds[1]);
    QByteArray out;
    char buffer[1024];
    for (ssize_t n; (n = ::read(fds[0], buffer, sizeof buffer)) > 0;)
        out.append(buffer, n);
    ::close(fds[0]);
    int status = 0;
    ::waitpid(pid, &status, 0);
    why = QString::fromUtf8(out);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

void copyFile(const QString& from, const QString& to)
{
    QFile::remove(to);
    QFile::copy(from, to);
}

} // namespace

TEST(StorageLimits, NoSpaceLeftOnASmallFileSystem)
{
    // A 64 KiB tmpfs: a filler, the previous results file, then a journal that fills the rest.
    // Half-way the filler is deleted (space freed mid-run): journaling resumes and marks the gap.
    // Last, saving the whole run does not fit. Everything is copied out for the checks.
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const QString small = dir.filePath(QStringLiteral("small"));
    const QString out = dir.filePath(QStringLiteral("out"));
    ASSERT_TRUE(QDir().mkpath(small) && QDir().mkpath(out));
    const QString path = small + QStringLiteral("/run.json");
    const QString journalPath = RunJournal::journalPathFor(path);
    const RunResult run = makeResultWith(50);

    QString why;
    const int code = inSmallFileSystem(
        small, 64 * 1024,
        [&]() -> int {
            QFile filler(small + QStringLiteral("/filler"));
            if (!filler.open(QIODevice::WriteOnly) || filler.write(QByteArray(16 * 1024, 'x')) != 16 * 1024)
                return 10;
            filler.close();
            if (!saveResults(makeResultWith(3), path).isEmpty())
                return 11;
            copyFile(path, out + QStringLiteral("/previous.json"));
            RunResult header = run;
            header.records.clear();
            RunJournal journal;
            if (!journal.open(journalPath, header).isEmpty())
                return 12;
            QByteArray appends;
            for (int i = 0; i < 50; ++i) {
                if (i == 35)
                    QFile::remove(filler.fileName());
                const QString error = journal.append(run.records[std::size_t(i)]);
                appends += (error.isEmpty() ? QStringLiteral("ok %1\n").arg(i + 1)
                                            : QStringLiteral("fail %1: %2\n").arg(i + 1).arg(error))
                               .toUtf8();
            }
            journal.close(false);
            QFile report(out + QStringLiteral("/appends.txt"));
            if (!report.open(QIODevice::WriteOnly) || report.write(appends) != appends.size())
                return 13;
            report.close();
            const QString saveError = saveResults(run, path);
            QFile saveReport(out + QStringLiteral("/save.txt"));
            if (!saveReport.open(QIODevice::WriteOnly))
                return 14;
            saveReport.write(saveError.toUtf8());
            saveReport.close();
            copyFile(path, out + QStringLiteral("/after.json"));
            copyFile(journalPath, out + QStringLiteral("/run.json.journal"));
            QFile listing(out + QStringLiteral("/listing.txt"));
            if (!listing.open(QIODevice::WriteOnly))
                return 15;
            listing.write(QDir(small).entryList(QDir::Files | QDir::Hidden).join(QLatin1Char('\n')).toUtf8());
            return 0;
        },
        why);
    if (code == 77)
        GTEST_SKIP() << "cannot mount a small tmpfs here (" << why.toStdString() << ")";
    ASSERT_EQ(code, 0) << why.toStdString();

    // The save did not fit: it says so, the previous file is whole, nothing else is left.
    const QString saveError = QString::fromUtf8(readFile(out + QStringLiteral("/save.txt")));
    EXPECT_TRUE(saveError.startsWith(QStringLiteral("cannot save the results to ") + path))
        << saveError.toStdString();
    EXPECT_TRUE(saveError.contains(QStringLiteral("No space left on device"))) << saveError.toStdString();
    EXPECT_TRUE(saveError.contains(QStringLiteral("is the disk full?"))) << saveError.toStdString();
    EXPECT_EQ(
        readFile(out + QStringLiteral("/after.json")), readFile(out + QStringLiteral("/previous.json")));
    EXPECT_EQ(loadResults(out + QStringLiteral("/after.json")).records.size(), 3u);
    EXPECT_EQ(readFile(out + QStringLiteral("/listing.txt")), QByteArray("run.json\nrun.json.journal"));

    // The journal ran out of space, then had room again.
    const Appends appends = parseAppends(readFile(out + QStringLiteral("/appends.txt")));
    ASSERT_FALSE(appends.failed.empty());
    for (const auto& [i, text] : appends.failed)
        EXPECT_TRUE(text.contains(QStringLiteral("No space left on device (is the disk full?)")))
            << text.toStdString();
    ASSERT_FALSE(appends.ok.empty());
    EXPECT_GT(appends.ok.back(), 35) << "journaling did not resume once space was freed";
    EXPECT_GT(appends.failedBeforeLastOk, 0);
    expectJournalMatches(out + QStringLiteral("/run.json.journal"), appends);
}
