// SPDX-License-Identifier: MIT
#include "model/run/RunPlan.h"

#include <algorithm>
#include <numeric>
#include <random>

namespace qs {

int warmupCount(const Suite& suite, const SuiteTest& test, const RunSettings& settings)
{
    if (settings.warmup >= 0)
        return settings.warmup;
    return test.warmup.value_or(suite.defaults.warmup);
}

int runCount(const Suite& suite, const SuiteTest& test, const RunSettings& settings)
{
    if (settings.runs >= 1)
        return settings.runs;
    return qMax(1, test.runs.value_or(suite.defaults.runs));
}

namespace {

// The measured waves of one endpoint and test, split by the concurrency level(s).
std::vector<Wave> measuredWaves(const Suite& suite, int endpoint, int testIndex, const RunSettings& settings)
{
    const SuiteTest& test = suite.tests[std::size_t(testIndex)];
    const int runs = runCount(suite, test, settings);
    std::vector<Wave> waves;
    if (!suite.defaults.concurrency.empty()) {
        int iteration = 1;
        for (int level : suite.defaults.concurrency) {
            Wave w {endpoint, testIndex, false, level, {}};
            for (int i = 0; i < runs * level; ++i)
                w.iterations.push_back(iteration++);
            waves.push_back(std::move(w));
        }
        return waves;
    }
    const int level = qMax(1, settings.concurrency);
    for (int first = 1; first <= runs; first += level) {
        Wave w {endpoint, testIndex, false, level, {}};
        for (int i = first; i < first + level && i <= runs; ++i)
            w.iterations.push_back(i);
        waves.push_back(std::move(w));
    }
    return waves;
}

std::vector<Wave> warmupWaves(const Suite& suite, int endpoint, int testIndex, const RunSettings& settings)
{
    const int n = warmupCount(suite, suite.tests[std::size_t(testIndex)], settings);
    if (n <= 0)
        return {};
    // Warm-ups run one at a time: they exist to absorb cold starts, not to load the server.
    Wave w {endpoint, testIndex, true, 1, {}};
    for (int i = 1; i <= n; ++i)
        w.iterations.push_back(i);
    return {w};
}

std::vector<Wave> sequentialLane(const Suite& suite, int endpoint, const RunSettings& settings)
{
    std::vector<Wave> lane;
    for (int t = 0; t < int(suite.tests.size()); ++t) {
        for (Wave& w : warmupWaves(suite, endpoint, t, settings))
            lane.push_back(std::move(w));
        for (Wave& w : measuredWaves(suite, endpoint, t, settings))
            lane.push_back(std::move(w));
    }
    return lane;
}

std::vector<Wave> interleavedLane(const Suite& suite, int endpointCount, const RunSettings& settings)
{
    std::mt19937_64 rng(settings.seed);
    std::vector<Wave> lane;
    for (int t = 0; t < int(suite.tests.size()); ++t) {
        std::vector<int> order(static_cast<std::size_t>(endpointCount));
        std::iota(order.begin(), order.end(), 0);
        std::shuffle(order.begin(), order.end(), rng);
        // Each endpoint's warm-ups come right before the test they warm.
        for (int e : order)
            for (Wave& w : warmupWaves(suite, e, t, settings))
                lane.push_back(std::move(w));
        std::vector<std::vector<Wave>> perEndpoint(static_cast<std::size_t>(endpointCount));
        std::size_t rounds = 0;
        for (int e = 0; e < endpointCount; ++e) {
            perEndpoint[std::size_t(e)] = measuredWaves(suite, e, t, settings);
            rounds = qMax(rounds, perEndpoint[std::size_t(e)].size());
        }
        for (std::size_t r = 0; r < rounds; ++r) {
            // A B, then B A: alternate the order every round.
            const bool reversed = r % 2 == 1;
            for (std::size_t k = 0; k < order.size(); ++k) {
                const int e = order[reversed ? order.size() - 1 - k : k];
                if (r < perEndpoint[std::size_t(e)].size())
                    lane.push_back(std::move(perEndpoint[std::size_t(e)][r]));
            }
        }
    }
    return lane;
}

} // namespace

RunPlan makePlan(const Suite& suite, int endpointCount, const RunSettings& settings)
{
    RunPlan plan;
    if (endpointCount <= 0 || suite.tests.empty())
        return plan;
    switch (settings.order) {
    case RunOrder::Interleaved:
        plan.lanes.push_back(interleavedLane(suite, endpointCount, settings));
        break;
    case RunOrder::Sequential: {
        std::vector<Wave> lane;
        for (int e = 0; e < endpointCount; ++e)
            for (Wave& w : sequentialLane(suite, e, settings))
                lane.push_back(std::move(w));
        plan.lanes.push_back(std::move(lane));
        break;
    }
    case RunOrder::Parallel:
        for (int e = 0; e < endpointCount; ++e)
            plan.lanes.push_back(sequentialLane(suite, e, settings));
        break;
    }
    for (const auto& lane : plan.lanes)
        for (const Wave& w : lane) {
            plan.totalConversations += int(w.iterations.size());
            plan.totalRequests
                += int(w.iterations.size()) * (w.warmup ? 1 : suite.tests[std::size_t(w.test)].turnCount());
        }
    return plan;
}

} // namespace qs
