// SPDX-License-Identifier: MIT
#pragma once

#include <QString>

// Everything Quantscope asks of the operating system beyond Qt and the C++ library, in one place:
// a Windows or macOS port is this file and packaging (docs/packaging.md, "Other platforms"). Each
// function says what it does where there is no POSIX, so a caller never needs an #ifdef.
namespace qs::platform {

/// Whether standard error is a terminal (progress bars redraw in place; a file or pipe gets
/// plain lines). POSIX isatty(); elsewhere false.
bool stderrIsTerminal();

/// Lowers the calling thread's scheduling priority to `niceness` (Linux: this thread's nice value,
/// never raised back; best effort). Elsewhere nothing yet.
void lowerThisThreadPriority(int niceness);

/// Makes a rename in `folder` durable: POSIX opens the folder and fsync()s it (best effort, some
/// file systems cannot). Elsewhere nothing: NTFS journals its metadata itself.
void syncFolder(const QString& folder);

/// An exclusive, non-blocking advisory lock on the open file `fd` (a QFile::handle()), held until
/// the file is closed and released by the kernel if the process dies.
enum class FileLock {
    Locked, ///< this process holds it now
    Busy, ///< another open file (another run, or this process) holds it
    Unsupported, ///< this platform has no such lock here: nothing is held, and nothing refused
};
FileLock lockExclusively(int fd);

} // namespace qs::platform
