// SPDX-License-Identifier: MIT
#include "tests/bench/ProcessSample.h"

#include <QDir>
#include <cstdio>
#include <malloc.h>
#include <sys/resource.h>
#include <unistd.h>

namespace qs::test {

namespace {

int entriesIn(const char* dir)
{
    // "." and ".." are filtered; reading /proc/self/fd opens one descriptor of its own, counted
    // alike in every sample.
    return int(QDir(QString::fromLatin1(dir))
                   .entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::System)
                   .size());
}

} // namespace

ProcessSample sampleProcess()
{
    ProcessSample s;
    long pages = 0, resident = 0;
    if (FILE* f = std::fopen("/proc/self/statm", "r")) {
        if (std::fscanf(f, "%ld %ld", &pages, &resident) != 2)
            resident = 0;
        std::fclose(f);
    }
    constexpr double MiB = 1024.0 * 1024.0;
    s.rssMiB = double(resident) * double(sysconf(_SC_PAGESIZE)) / MiB;
    const struct mallinfo2 m = mallinfo2();
    s.heapMiB = double(m.uordblks + m.hblkhd) / MiB;
    s.fds = entriesIn("/proc/self/fd");
    s.threads = entriesIn("/proc/self/task");
    return s;
}

double peakRssMiB()
{
    struct rusage u { };
    getrusage(RUSAGE_SELF, &u);
    return double(u.ru_maxrss) / 1024.0;
}

void trimHeap()
{
    malloc_trim(0);
}

} // namespace qs::test
