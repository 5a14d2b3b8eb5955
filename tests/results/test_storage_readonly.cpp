// SPDX-License-Identifier: MIT
// A folder that becomes read-only in the middle of a run: the journal already open keeps
// working, the save fails with a message naming the folder and saying what to do, the previous
// results file stays, and every measured record is still in the journal for `recover`.
#include "ResultsTestSupport.h"

#include <QDir>
#include <QFileInfo>
#include <QTemporaryDir>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <unistd.h>

using namespace qs;
using namespace qs::test;

namespace {

/// Makes a folder read-only until destroyed (so a failing test cleans up too). Not root: takes
/// the write permission away. Root ignores permissions, so then the folder gets the immutable
/// attribute (FS_IMMUTABLE_FL: no entry can be created, renamed or removed in it, for root too;
/// needs CAP_LINUX_IMMUTABLE and a file system that has it, such as ext4, xfs, btrfs, tmpfs).
class ReadOnlyFolder {
public:
    explicit ReadOnlyFolder(const QString& path)
        : m_path(path)
    {
        if (::geteuid() != 0) {
            m_ok = QFile::setPermissions(path, QFileDevice::ReadOwner | QFileDevice::ExeOwner);
            m_how = "chmod 0500";
            if (!m_ok)
                m_why = "chmod failed";
            return;
        }
        m_how = "the immutable attribute";
        m_fd = ::open(QFile::encodeName(path).constData(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        int flags = 0;
        if (m_fd < 0 || ::ioctl(m_fd, FS_IOC_GETFLAGS, &flags) != 0) {
            m_why = std::string("FS_IOC_GETFLAGS: ") + std::strerror(errno);
            return;
        }
        flags |= FS_IMMUTABLE_FL;
        if (::ioctl(m_fd, FS_IOC_SETFLAGS, &flags) != 0) {
            m_why = std::string("FS_IOC_SETFLAGS(FS_IMMUTABLE_FL): ") + std::strerror(errno);
            return;
        }
        m_ok = true;
    }
    ~ReadOnlyFolder() { restore(); }
    ReadOnlyFolder(const ReadOnlyFolder&) = delete;
    ReadOnlyFolder& operator=(const ReadOnlyFolder&) = delete;

    bool ok() const { return m_ok; }
    std::string how() const { return m_how; }
    std::string why() const { return m_why; }

    void restore()
    {
        if (m_fd >= 0) {
            int flags = 0;
            if (m_ok && ::ioctl(m_fd, FS_IOC_GETFLAGS, &flags) == 0) {
                flags &= ~FS_IMMUTABLE_FL;
                if (::ioctl(m_fd, FS_IOC_SETFLAGS, &flags) != 0)
                    ADD_FAILURE() << "could not remove the immutable attribute from " << m_path.toStdString()
                                  << ": remove it with chattr -i";
            }
            ::close(m_fd);
            m_fd = -1;
        } else if (m_ok) {
            QFile::setPermissions(
                m_path, QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
        }
        m_ok = false;
    }

private:
    QString m_path;
    int m_fd = -1;
    bool m_ok = false;
    std::string m_how, m_why;
};

} // namespace

TEST(StorageReadOnly, FolderReadOnlyMidRunKeepsEveryRecordAndSaysWhatToDo)
{
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const QString folder = dir.filePath(QStringLiteral("runs"));
    ASSERT_TRUE(QDir().mkpath(folder));
    const QString path = folder + QStringLiteral("/run.json");
    const QString journalPath = RunJournal::journalPathFor(path);
    const RunResult run = makeResultWith(10);
    ASSERT_EQ(saveResults(makeResultWith(3), path), QString()); // the previous run's file
    const QByteArray previous = readFile(path);

    RunResult header = run;
    header.records.clear();
    RunJournal journal;
    ASSERT_EQ(journal.open(journalPath, header), QString());
    for (int i = 0; i < 5; ++i)
        ASSERT_EQ(journal.append(run.records[std::size_t(i)]), QString());

    {
        ReadOnlyFolder readOnly(folder);
        if (!readOnly.ok())
            GTEST_SKIP() << "cannot make a folder read-only here with " << readOnly.how() << " ("
                         << readOnly.why() << ")";
        SCOPED_TRACE("read-only by " + readOnly.how());
        // The journal's file is open: writing to it needs nothing from the folder.
        for (int i = 5; i < 10; ++i)
            EXPECT_EQ(journal.append(run.records[std::size_t(i)]), QString());
        // The save needs a new file in the folder: refused, and the message says where and what to do.
        const QString error = saveResults(run, path);
        EXPECT_TRUE(error.startsWith(QStringLiteral("cannot save the results to ") + path))
            << error.toStdString();
        EXPECT_TRUE(
            error.contains(QStringLiteral("the folder ") + folder + QStringLiteral(" is not writable")))
            << error.toStdString();
        EXPECT_TRUE(error.contains(QStringLiteral("save to another folder"))) << error.toStdString();
        EXPECT_EQ(readFile(path), previous);
        // A new run's journal cannot start there either, and says why.
        RunJournal next;
        const QString openError = next.open(folder + QStringLiteral("/next.json.journal"), header);
        EXPECT_TRUE(openError.contains(QStringLiteral("cannot create the run journal")))
            << openError.toStdString();
        EXPECT_TRUE(
            openError.contains(QStringLiteral("the folder ") + folder + QStringLiteral(" is not writable")))
            << openError.toStdString();
        // What the owner does after a failed save: keep the journal (close without removing).
        journal.close(false);
        EXPECT_TRUE(QFileInfo::exists(journalPath));
        // Every record is there to recover, into another folder.
        const RunResult back = recoverJournal(journalPath);
        ASSERT_EQ(back.records.size(), 10u);
        for (std::size_t k = 0; k < back.records.size(); ++k)
            EXPECT_EQ(back.records[k].iteration, int(k) + 1);
        const QString elsewhere = dir.filePath(QStringLiteral("recovered.json"));
        EXPECT_EQ(saveResults(back, elsewhere), QString());
        EXPECT_EQ(loadResults(elsewhere).records.size(), 10u);
    }
    // Writable again: the same save goes through and replaces the previous file.
    EXPECT_EQ(saveResults(run, path), QString());
    EXPECT_EQ(loadResults(path).records.size(), 10u);
    EXPECT_EQ(QDir(folder).entryList(QDir::Files | QDir::Hidden),
        QStringList({QStringLiteral("run.json"), QStringLiteral("run.json.journal")}));
}
