// SPDX-License-Identifier: MIT
#pragma once

#include "model/core/MetricCatalog.h"
#include "model/core/RunRecord.h"
#include "model/evaluate/Evaluation.h"
#include "model/evaluate/ThroughputTrace.h"

#include <QString>
#include <QStringList>
#include <memory>

namespace qs {

/// What every dashboard view shows: one run (live, saved, or several files combined), with
/// everything derived from it. Immutable and shared: views keep the pointers, never copy the run
/// (a reviewed file may hold 100,000 records), and never compute anything that grows with the
/// number of records on the GUI thread beyond one linear pass. prepareDashboard() does the heavy
/// work, on a worker thread.
struct DashboardData {
    std::shared_ptr<const RunResult> result; ///< null: nothing to show yet
    /// Null until computed. During a live run it may describe fewer records than `result`.
    std::shared_ptr<const Evaluation> evaluation;
    /// Token-bearing stream events per second per endpoint over the run (from the records'
    /// timelines). Live runs feed LiveThroughputChart from the runner's deltas instead.
    std::shared_ptr<const ThroughputTrace> trace;
    /// The gauges of every telemetry sample (serverPoints(result->telemetry)), for the Server
    /// charts. Null when not prepared; live runs feed ServerCharts from the runner instead.
    std::shared_ptr<const std::vector<ServerPoint>> serverPoints;
    QStringList sources; ///< the files shown; empty for a run that has not been saved
    bool live = false; ///< a run is in progress: more records will come

    bool isEmpty() const { return !result || result->endpoints.empty(); }
};

/// Label of endpoint `index` as views show it (the display name, "(simulated)" appended for a
/// simulated endpoint when its label does not say so already).
QString endpointTitle(const RunResult& result, int index);

/// Computes evaluation, trace and server points for `result`. Pure and thread-safe: call it through
/// QtConcurrent. `withComparison` = false skips the paired bootstrap (seconds on big files), so a
/// view can show medians first and the intervals when a second pass finishes.
DashboardData prepareDashboard(
    std::shared_ptr<const RunResult> result, int baseline, bool withComparison = true);

} // namespace qs
