// SPDX-License-Identifier: MIT
#include "tests/support/EmulatorMetrics.h"

#include "model/core/Clock.h"

#include <QDateTime>
#include <algorithm>

namespace qs::emu::detail {

namespace {

// vLLM's bucket lists (loggers.py), SGLang's defaults (reference §1.3, §1.4).
const std::vector<double> kVllmTtft {0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0,
    2.5, 5.0, 7.5, 10.0, 20.0, 40.0, 80.0, 160.0, 640.0, 2560.0};
const std::vector<double> kVllmItl {0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5,
    5.0, 7.5, 10.0, 20.0, 40.0, 80.0};
const std::vector<double> kVllmRequest {0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0,
    50.0, 60.0, 120.0, 240.0, 480.0, 960.0, 1920.0, 7680.0};
const std::vector<double> kSglangTtft {
    0.1, 0.2, 0.4, 0.6, 0.8, 1, 2, 4, 6, 8, 10, 20, 40, 60, 80, 100, 200, 400};
const std::vector<double> kSglangItl {0.002, 0.004, 0.006, 0.008, 0.010, 0.015, 0.020, 0.025, 0.030, 0.035,
    0.040, 0.060, 0.080, 0.100, 0.200, 0.400, 0.600, 0.800, 1.0, 2.0, 4.0, 6.0, 8.0};
const std::vector<double> kSglangE2e {
    0.1, 0.2, 0.4, 0.6, 0.8, 1, 2, 4, 6, 8, 10, 20, 40, 60, 80, 100, 200, 400, 600, 1200, 1800, 2400};
const std::vector<double> kSglangQueue {0.0, 0.1, 0.2, 0.5, 1, 2, 3, 4, 5, 10, 15, 20, 30, 40, 50, 60, 70, 80,
    90, 100, 200, 300, 400, 500, 600, 700, 800, 900, 1000, 1200, 1400, 1600, 1800, 2000, 2500, 3000};

constexpr qint64 RecentWindowNs = 1'000'000'000;

} // namespace

HistogramCounts::HistogramCounts(std::vector<double> upperBounds)
    : bounds(std::move(upperBounds))
    , counts(bounds.size() + 1, 0.0)
{
}

void HistogramCounts::observe(double value, double times)
{
    const auto it = std::lower_bound(bounds.begin(), bounds.end(), value); // le is inclusive
    counts[std::size_t(it - bounds.begin())] += times;
    sum += value * times;
    count += times;
}

ServerMetrics::ServerMetrics()
{
    m_data.processStartUnix = double(QDateTime::currentMSecsSinceEpoch()) / 1000.0;
    m_data.ttft = HistogramCounts(kVllmTtft);
    m_data.itl = HistogramCounts(kVllmItl);
    m_data.e2e = HistogramCounts(kVllmRequest);
    m_data.queue = HistogramCounts(kVllmRequest);
    m_data.prefill = HistogramCounts(kVllmRequest);
    m_data.decode = HistogramCounts(kVllmRequest);
    m_data.sglangTtft = HistogramCounts(kSglangTtft);
    m_data.sglangItl = HistogramCounts(kSglangItl);
    m_data.sglangE2e = HistogramCounts(kSglangE2e);
    m_data.sglangQueue = HistogramCounts(kSglangQueue);
}

void ServerMetrics::requestStarted(int promptTokens, int cachedTokens, bool cacheQueried)
{
    std::lock_guard lock(m_mutex);
    ++m_data.running;
    m_data.kvTokens += promptTokens;
    if (cacheQueried) {
        m_data.prefixCacheQueries += promptTokens;
        m_data.prefixCacheHits += cachedTokens;
    }
    // Every request is scheduled at once (no slot limit): it waited for nothing.
    m_data.queue.observe(0);
    m_data.sglangQueue.observe(0);
}

void ServerMetrics::firstToken(int promptTokens, int cachedTokens, double ttftSeconds)
{
    std::lock_guard lock(m_mutex);
    m_data.promptTokensAtPrefill += promptTokens;
    m_data.cachedTokensAtPrefill += cachedTokens;
    m_data.promptSeconds += ttftSeconds;
    m_data.windowPromptTokens += promptTokens - cachedTokens; // llama-server: the tokens evaluated
    m_data.windowPromptSeconds += ttftSeconds;
    m_data.decodeCalls += 1; // the prefill batch
    m_data.busySlotsSum += m_data.running;
    m_data.ttft.observe(ttftSeconds);
    m_data.sglangTtft.observe(ttftSeconds);
}

void ServerMetrics::tokens(int count, double sinceLastSeconds)
{
    if (count <= 0)
        return;
    const qint64 now = qs::monotonicNs();
    std::lock_guard lock(m_mutex);
    m_data.generatedLive += count;
    m_data.kvTokens += count;
    m_data.decodeCalls += count;
    m_data.busySlotsSum += double(m_data.running) * count;
    if (sinceLastSeconds >= 0) {
        m_data.itl.observe(sinceLastSeconds);
        // SGLang: the interval goes to _sum once, the bucket of interval/k gets k (gotcha 1).
        m_data.sglangItl.observe(sinceLastSeconds / count, count);
    }
    for (int i = 0; i < count; ++i)
        m_recentTokenNs.push_back(now);
    pruneRecent(now);
}

void ServerMetrics::requestEnded(const RequestEnd& end)
{
    std::lock_guard lock(m_mutex);
    m_data.running = std::max(0, m_data.running - 1);
    m_data.kvTokens = std::max(0.0, m_data.kvTokens - end.promptTokens - end.generatedTokens);
    m_data.generatedAtEnd += end.generatedTokens;
    m_data.promptTokensAtEnd += end.promptTokens;
    m_data.cachedTokensAtEnd += end.cachedTokens;
    m_data.predictedSeconds += end.decodeSeconds;
    m_data.windowPredictedTokens += end.generatedTokens;
    m_data.windowPredictedSeconds += end.decodeSeconds;
    m_data.finishedRequests += 1;
    m_data.finishedByReason[end.finishedReason] += 1;
    m_data.e2e.observe(end.e2eSeconds);
    m_data.prefill.observe(end.prefillSeconds);
    m_data.decode.observe(end.decodeSeconds);
    m_data.sglangE2e.observe(end.e2eSeconds);
}

void ServerMetrics::pruneRecent(qint64 nowNs) const
{
    while (!m_recentTokenNs.empty() && m_recentTokenNs.front() < nowNs - RecentWindowNs)
        m_recentTokenNs.pop_front();
}

MetricsSnapshot ServerMetrics::snapshot(bool resetWindow)
{
    std::lock_guard lock(m_mutex);
    pruneRecent(qs::monotonicNs());
    MetricsSnapshot copy = m_data;
    copy.nowUnix = double(QDateTime::currentMSecsSinceEpoch()) / 1000.0;
    copy.recentTokensPerSecond = double(m_recentTokenNs.size()) * 1e9 / double(RecentWindowNs);
    if (resetWindow) {
        m_data.windowPromptTokens = m_data.windowPromptSeconds = 0;
        m_data.windowPredictedTokens = m_data.windowPredictedSeconds = 0;
    }
    return copy;
}

EmulatorLoad ServerMetrics::load() const
{
    std::lock_guard lock(m_mutex);
    pruneRecent(qs::monotonicNs());
    EmulatorLoad load;
    load.running = m_data.running;
    load.kvTokens = m_data.kvTokens;
    load.tokensPerSecond = double(m_recentTokenNs.size()) * 1e9 / double(RecentWindowNs);
    load.generatedTokens = m_data.generatedLive;
    load.promptTokens = m_data.promptTokensAtPrefill;
    return load;
}

} // namespace qs::emu::detail
