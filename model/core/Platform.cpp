// SPDX-License-Identifier: MIT
#include "model/core/Platform.h"

#include <QFile>

#ifdef Q_OS_UNIX
#include <cstdio>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <unistd.h>
#endif
#ifdef Q_OS_LINUX
#include <sys/syscall.h>
#endif

namespace qs::platform {

bool stderrIsTerminal()
{
#ifdef Q_OS_UNIX
    return isatty(STDERR_FILENO) == 1;
#else
    return false;
#endif
}

void lowerThisThreadPriority(int niceness)
{
#if defined(Q_OS_LINUX) && defined(SYS_gettid)
    // Linux schedules threads as tasks: a thread has a nice value of its own.
    const auto tid = id_t(syscall(SYS_gettid));
    if (getpriority(PRIO_PROCESS, tid) < niceness)
        setpriority(PRIO_PROCESS, tid, niceness);
#else
    Q_UNUSED(niceness); // a port may use SetThreadPriority / pthread QoS classes here
#endif
}

void syncFolder(const QString& folder)
{
#ifdef Q_OS_UNIX
    const int fd = ::open(QFile::encodeName(folder).constData(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        ::fsync(fd);
        ::close(fd);
    }
#else
    Q_UNUSED(folder);
#endif
}

FileLock lockExclusively(int fd)
{
#ifdef Q_OS_UNIX
    return ::flock(fd, LOCK_EX | LOCK_NB) == 0 ? FileLock::Locked : FileLock::Busy;
#else
    Q_UNUSED(fd);
    return FileLock::Unsupported;
#endif
}

} // namespace qs::platform
