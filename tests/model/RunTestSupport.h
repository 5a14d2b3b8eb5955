// SPDX-License-Identifier: MIT
#pragma once

#include "model/core/Clock.h"
#include "model/run/RunController.h"

#include <QCoreApplication>
#include <functional>
#include <gtest/gtest.h>
#include <optional>
#include <vector>

namespace qs::test {

/// What a run through RunController delivered, signal by signal.
struct Outcome {
    std::vector<RunRecord> records; ///< copies of the records as they arrived
    std::vector<SharedRecord> shared; ///< the records themselves, as the runner handed them out
    std::optional<RunResult> result;
    QString failed;
    QStringList warnings;
    RunProgress lastProgress;
    RunStats stats;
    int liveDeltas = 0;
};

/// Runs `request` through a RunController to its end (at most 90 s), collecting every signal;
/// `onRecord` sees each record as it arrives (e.g. to kill a server mid-run).
inline Outcome run(
    RunRequest request, const std::function<void(RunController&, const Outcome&)>& onRecord = {})
{
    RunController controller;
    Outcome o;
    bool done = false;
    QObject::connect(&controller, &RunController::recordFinished, [&](const SharedRecord& r) {
        o.records.push_back(*r);
        o.shared.push_back(r);
        if (onRecord)
            onRecord(controller, o);
    });
    QObject::connect(
        &controller, &RunController::progress, [&](const RunProgress& p) { o.lastProgress = p; });
    QObject::connect(&controller, &RunController::liveDeltas,
        [&](const QList<LiveDelta>& d) { o.liveDeltas += int(d.size()); });
    QObject::connect(&controller, &RunController::warning, [&](const QString& w) { o.warnings << w; });
    QObject::connect(&controller, &RunController::finished,
        [&](const std::shared_ptr<const RunResult>& r, const RunStats& stats) {
            o.result = *r;
            o.stats = stats;
            done = true;
        });
    QObject::connect(&controller, &RunController::failed, [&](const QString& m) {
        o.failed = m;
        done = true;
    });
    controller.start(std::move(request));
    const qint64 until = monotonicNs() + qint64(90e9);
    while (!done && monotonicNs() < until)
        QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents, 50);
    EXPECT_TRUE(done) << "the run did not end within 90 s";
    return o;
}

} // namespace qs::test
