// SPDX-License-Identifier: MIT
// LiveSnapshots (app/LiveSnapshots): the live run's records copied for the views. Every snapshot
// is a prefix of the run, whichever job runs first; and a snapshot shares each record's request
// body and gate verdicts with the records handed in (a run of hours is copied twice a second).
#include "app/LiveSnapshots.h"

#include <QtTest>

using namespace qs;

namespace {

RunRecord recordNumber(int i)
{
    RunRecord r;
    r.test = QStringLiteral("t");
    r.iteration = i;
    r.request.requestBody = nlohmann::json {{"messages", nlohmann::json::array({{{"content", i}}})}};
    r.gates = {{"non_empty", true}};
    r.gateDetails = {{"non_empty", {{"verdict", "pass"}, {"reason", std::string(200, 'x')}}}};
    return r;
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

    void aSnapshotSharesTheRecordsJsonInsteadOfCopyingIt()
    {
        app::LiveSnapshots snapshots(RunResult {});
        std::vector<RunRecord> handed;
        for (int i = 1; i <= 3; ++i) {
            handed.push_back(recordNumber(i));
            snapshots.add(handed.back());
        }
        const std::shared_ptr<const RunResult> first = snapshots.take()();
        snapshots.add(recordNumber(4));
        const std::shared_ptr<const RunResult> second = snapshots.take()();
        QCOMPARE(int(second->records.size()), 4);
        for (std::size_t i = 0; i < handed.size(); ++i) {
            for (const auto* s : {first.get(), second.get()}) {
                const RunRecord& r = s->records[i];
                QVERIFY(r.request.requestBody.sharesWith(handed[i].request.requestBody));
                QVERIFY(r.gates.sharesWith(handed[i].gates));
                QVERIFY(r.gateDetails.sharesWith(handed[i].gateDetails));
            }
        }
        // A record changed afterwards (gates applied again) leaves the snapshots as they were.
        handed[0].gates.edit()["non_empty"] = false;
        QCOMPARE((*first->records[0].gates)["non_empty"], nlohmann::json(true));
    }
};

QTEST_GUILESS_MAIN(TestLiveSnapshots)
#include "tst_live_snapshots.moc"
