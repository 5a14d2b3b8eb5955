// SPDX-License-Identifier: MIT
// The process test_storage_crash kills: it saves a results file or appends to a journal under a
// file-size limit (RLIMIT_FSIZE), so the kernel stops it at exactly the byte the test chose.
//
//   storage_crash_child save    kill|ignore LIMIT RECORDS PATH   saveResults(RECORDS records, PATH)
//   storage_crash_child journal kill|ignore LIMIT RECORDS PATH   open PATH as a journal, append RECORDS
//   storage_crash_child saveloop                                 PATH  save A, B, A, … over PATH forever
//
// "kill" leaves SIGXFSZ at its default (terminate), "ignore" makes the write fail with EFBIG
// instead (what a full disk looks like to the program). LIMIT 0 means no limit. Every outcome is
// one line on stdout ("ok 3", "fail 4: why", "saved A"), written before the next step starts.
#include "ResultsTestSupport.h"

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sys/resource.h>

using namespace qs;
using namespace qs::test;

namespace {

void say(const QString& line)
{
    std::printf("%s\n", line.toUtf8().constData());
    std::fflush(stdout);
}

int usage()
{
    std::fprintf(stderr,
        "usage: storage_crash_child save|journal kill|ignore LIMIT RECORDS PATH\n"
        "       storage_crash_child saveloop PATH\n");
    return 2;
}

/// Applies the limit only now, so building the records never counts against it.
bool limitFileSize(const char* sigxfsz, long long limit)
{
    if (std::strcmp(sigxfsz, "ignore") == 0)
        std::signal(SIGXFSZ, SIG_IGN);
    else if (std::strcmp(sigxfsz, "kill") != 0)
        return false;
    if (limit > 0) {
        rlimit r {};
        r.rlim_cur = r.rlim_max = rlim_t(limit);
        if (setrlimit(RLIMIT_FSIZE, &r) != 0)
            return false;
    }
    return true;
}

} // namespace

int main(int argc, char** argv)
{
    if (argc == 3 && std::strcmp(argv[1], "saveloop") == 0) {
        const QString path = QString::fromLocal8Bit(argv[2]);
        const RunResult results[2] = {makeResultWith(400), makeResultWith(401)};
        for (int i = 0;; i ^= 1) {
            const QString error = saveResults(results[i], path);
            if (!error.isEmpty()) {
                say(QStringLiteral("fail: ") + error);
                return 1;
            }
            say(i == 0 ? QStringLiteral("saved A") : QStringLiteral("saved B"));
        }
    }
    if (argc != 6)
        return usage();
    const int records = std::atoi(argv[4]);
    const QString path = QString::fromLocal8Bit(argv[5]);
    const RunResult r = makeResultWith(records);
    if (std::strcmp(argv[1], "save") == 0) {
        if (!limitFileSize(argv[2], std::atoll(argv[3])))
            return usage();
        const QString error = saveResults(r, path);
        say(error.isEmpty() ? QStringLiteral("saved") : QStringLiteral("fail: ") + error);
        return error.isEmpty() ? 0 : 1;
    }
    if (std::strcmp(argv[1], "journal") == 0) {
        RunResult header = r;
        header.records.clear();
        if (!limitFileSize(argv[2], std::atoll(argv[3])))
            return usage();
        RunJournal journal;
        if (const QString error = journal.open(path, header); !error.isEmpty()) {
            say(QStringLiteral("fail open: ") + error);
            return 1;
        }
        say(QStringLiteral("opened"));
        for (int i = 0; i < records; ++i) {
            const QString error = journal.append(r.records[std::size_t(i)]);
            say(error.isEmpty() ? QStringLiteral("ok %1").arg(i + 1)
                                : QStringLiteral("fail %1: %2").arg(i + 1).arg(error));
        }
        journal.close(false);
        return 0;
    }
    return usage();
}
