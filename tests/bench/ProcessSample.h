// SPDX-License-Identifier: MIT
#pragma once
// What this process holds right now, read from /proc/self and glibc: for soak runs, where slow
// growth of any of these over hours is the failure being looked for.

#include <QtGlobal>

namespace qs::test {

struct ProcessSample {
    double rssMiB = 0; ///< resident set (/proc/self/statm): what the user sees in `top`
    /// Bytes handed out by malloc and not freed (mallinfo2: every arena plus mmapped chunks).
    /// Unlike RSS it is not blurred by freed memory the allocator keeps, so it is what a leak moves.
    double heapMiB = 0;
    int fds = 0; ///< open file descriptors (/proc/self/fd)
    int threads = 0; ///< /proc/self/task
};

ProcessSample sampleProcess();

/// The most resident memory the process has held so far (getrusage's ru_maxrss).
double peakRssMiB();

/// Gives freed heap pages back to the system (malloc_trim), so an RSS reading after a release
/// shows what is really still held.
void trimHeap();

} // namespace qs::test
