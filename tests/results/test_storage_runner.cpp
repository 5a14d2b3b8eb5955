// SPDX-License-Identifier: MIT
// The runner when its journal stops accepting writes mid-run (a full disk): it keeps measuring,
// says so once, keeps every request for the results file, and the journal still gives back every
// line written before the disk filled. Real threads and a loopback emulator, like test_runner.
#include "ClientTestSupport.h"
#include "RunTestSupport.h"
#include "SuiteFixtures.h"
#include "model/store/ResultFile.h"
#include "model/store/RunJournal.h"

#include <QFileInfo>
#include <QTemporaryDir>
#include <csignal>
#include <gtest/gtest.h>
#include <sys/resource.h>

using namespace qs;
using namespace qs::test;

TEST(StorageRunner, AJournalThatFillsUpMidRunLosesNoMeasurement)
{
    emu::ServerConfig config;
    config.scriptFor = [](const emu::RequestInfo&) {
        emu::Script s;
        s.content = {QStringLiteral("Tokyo "), QStringLiteral("it is.")};
        s.ttftMs = 5;
        s.tokensPerSecond = 400;
        return s;
    };
    Served server(config);
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    RunRequest request;
    request.suite = smallSuite(1, 2);
    RunEndpoint endpoint;
    endpoint.endpoint = server.endpoint;
    endpoint.spec = server.endpoint.baseUrl.toString();
    request.endpoints = {endpoint};
    request.settings.serverMetrics = false; // records only: the count below is of records
    request.journalPath = dir.filePath(QStringLiteral("run.json.journal"));

    // After the third record arrives, the journal may not grow any more: write() fails with
    // EFBIG, as on a full disk (the limit is process-wide; the emulator writes no files).
    rlimit old {};
    ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &old), 0);
    const auto oldHandler = std::signal(SIGXFSZ, SIG_IGN);
    bool limited = false;
    const Outcome o = run(request, [&](RunController&, const Outcome& so_far) {
        if (limited || so_far.records.size() < 3)
            return;
        rlimit full = old;
        full.rlim_cur = rlim_t(QFileInfo(request.journalPath).size());
        limited = ::setrlimit(RLIMIT_FSIZE, &full) == 0;
    });
    ::setrlimit(RLIMIT_FSIZE, &old);
    std::signal(SIGXFSZ, oldHandler);
    ASSERT_TRUE(limited);

    // The run went on to the end and kept every request.
    ASSERT_TRUE(o.failed.isEmpty()) << o.failed.toStdString();
    ASSERT_TRUE(o.result);
    const RunResult& r = *o.result;
    EXPECT_TRUE(r.complete);
    ASSERT_EQ(r.records.size(), 13u); // 3 warm-ups + 2 runs × (1 + 1 + 3 turns)
    // Said once, with the file, the cause and what happens now.
    const QStringList journalWarnings = o.warnings.filter(QStringLiteral("run journal"));
    ASSERT_EQ(journalWarnings.size(), 1) << o.warnings.join(QStringLiteral("\n")).toStdString();
    const QString& warning = journalWarnings.front();
    EXPECT_TRUE(warning.contains(QStringLiteral("cannot write to the run journal ") + request.journalPath))
        << warning.toStdString();
    EXPECT_TRUE(warning.contains(QStringLiteral("File too large (is the disk full?)")))
        << warning.toStdString();
    EXPECT_TRUE(warning.contains(QStringLiteral("The run goes on"))) << warning.toStdString();

    // The journal holds the records written before the limit, whole, in the run's order.
    const RunResult back = recoverJournal(request.journalPath);
    ASSERT_GE(back.records.size(), 3u);
    ASSERT_LT(back.records.size(), r.records.size());
    for (std::size_t i = 0; i < back.records.size(); ++i) {
        EXPECT_EQ(back.records[i].test, r.records[i].test);
        EXPECT_EQ(back.records[i].iteration, r.records[i].iteration);
        EXPECT_EQ(back.records[i].turn, r.records[i].turn);
    }
    EXPECT_FALSE(back.note.contains(QStringLiteral("dropped"))) << back.note.toStdString();

    // Space again: the results file at the end has every request.
    const QString out = dir.filePath(QStringLiteral("run.json"));
    ASSERT_EQ(saveResults(r, out), QString());
    EXPECT_EQ(loadResults(out).records.size(), 13u);
}
