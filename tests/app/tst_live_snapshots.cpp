// SPDX-License-Identifier: MIT
// LiveSnapshots (app/dashboard/LiveSnapshots): the live run's records copied for the views. Every snapshot
// is a prefix of the run, whichever job runs first; and a snapshot holds the very records handed in,
// never a copy (a run of hours is snapshotted twice a second).
#include "app/dashboard/LiveSnapshots.h"

#include <QtTest>

using namespace qs;

namespace {

SharedRecord recordNumber(int i)
{
    auto shared = std::make_shared<RunRecord>();
    RunRecord& r = *shared;
    r.test = QStringLiteral("t");
    r.iteration = i;
    r.request.requestBody = nlohmann::json {{"messages", nlohmann::json::array({{{"content", i}}})}};
    r.gates = {{"non_empty", true}};
    r.gateDetails = {{"non_empty", {{"verdict", "pass"}, {"reason", std::string(200, 'x')}}}};
    return shared;
}

} // namespace

class TestLiveSnapshots : public QObject {
    Q_OBJECT
private slots:
    void everySnapshotIsAPrefixWhicheverJobRunsFirst()
    {
        RunResult run;
        run.toolVersion = QStringLiteral("test");
        app::LiveSnapshots snapshots(run);
        std::vector<app::SnapshotJob> jobs;
        int added = 0;
        for (int batch = 0; batch < 4; ++batch) {
            for (int i = 0; i < 5; ++i)
                snapshots.add(recordNumber(++added));
            jobs.push_back(snapshots.take());
        }
        // The last job first: it takes every batch; the earlier jobs find nothing new.
        for (auto it = jobs.rbegin(); it != jobs.rend(); ++it) {
            const std::shared_ptr<const RunResult> s = (*it)();
            QCOMPARE(int(s->records.size()), added);
            QCOMPARE(s->toolVersion, QStringLiteral("test"));
            for (int i = 0; i < added; ++i)
                QCOMPARE(s->records[std::size_t(i)].iteration, i + 1);
        }
    }

    void aSnapshotHoldsTheRecordsHandedInNotCopies()
    {
        app::LiveSnapshots snapshots(RunResult {});
        std::vector<SharedRecord> handed;
        for (int i = 1; i <= 3; ++i) {
            handed.push_back(recordNumber(i));
            snapshots.add(handed.back());
        }
        const std::shared_ptr<const RunResult> first = snapshots.take()();
        snapshots.add(recordNumber(4));
        const std::shared_ptr<const RunResult> second = snapshots.take()();
        QCOMPARE(int(second->records.size()), 4);
        for (std::size_t i = 0; i < handed.size(); ++i)
            for (const auto* s : {first.get(), second.get()})
                QCOMPARE(&s->records[i], handed[i].get());
        // Writing through a copy of a snapshot copies that record first: the runner's record and
        // every snapshot stay as they were.
        RunResult edited = *second;
        edited.records[0].gates.edit()["non_empty"] = false;
        QVERIFY(&edited.records[0] != handed[0].get());
        QCOMPARE((*handed[0]->gates)["non_empty"], nlohmann::json(true));
        QCOMPARE((*first->records[0].gates)["non_empty"], nlohmann::json(true));
        QCOMPARE((*edited.records[0].gates)["non_empty"], nlohmann::json(false));
        QCOMPARE(&std::as_const(edited.records)[1], handed[1].get()); // the others still shared
    }
};

QTEST_GUILESS_MAIN(TestLiveSnapshots)
#include "tst_live_snapshots.moc"
