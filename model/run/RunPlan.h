// SPDX-License-Identifier: MIT
#pragma once

#include "model/core/RunRecord.h"
#include "model/core/Suite.h"

#include <vector>

namespace qs {

/// A group of conversations of one endpoint and one test that the runner keeps up to
/// `inFlight` at a time; waves run one after another within a lane.
struct Wave {
    int endpoint = 0;
    int test = 0; ///< index into Suite::tests
    bool warmup = false;
    int inFlight = 1; ///< conversations in flight at once (the concurrency level)
    std::vector<int> iterations; ///< 1-based iteration numbers of the conversations in this wave
};

/// The whole run in order. One lane for interleaved and sequential order; one lane per endpoint
/// for parallel order (lanes run at the same time).
struct RunPlan {
    std::vector<std::vector<Wave>> lanes;
    int totalConversations = 0;
    int totalRequests = 0; ///< conversations × turns
};

/// Effective counts for a test under the run's settings (command line beats test beats suite).
int warmupCount(const Suite& suite, const SuiteTest& test, const RunSettings& settings);
int runCount(const Suite& suite, const SuiteTest& test, const RunSettings& settings);

/// Builds the order of a run. Deterministic for a given seed.
///
/// Interleaved (default): for each test, each endpoint's warm-ups, then the measured waves with
/// the endpoints alternating A B, B A, A B… (a seeded shuffle picks who goes first per test), so
/// slow drift of the machine or the network hits every arm alike. Sequential: all tests of the
/// first endpoint, then the next. Parallel: one lane per endpoint, each in sequential order.
///
/// Concurrency: a suite's `defaults.concurrency` sweep runs every test at each level N with N
/// conversations in flight and runs×N conversations per level; otherwise `settings.concurrency`
/// conversations are kept in flight per endpoint (waves of that size).
RunPlan makePlan(const Suite& suite, int endpointCount, const RunSettings& settings);

} // namespace qs
