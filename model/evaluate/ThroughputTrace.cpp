// SPDX-License-Identifier: MIT
#include "model/evaluate/ThroughputTrace.h"

#include <algorithm>
#include <cmath>

namespace qs {

ThroughputTrace::ThroughputTrace(double bucketMs)
    : m_bucketMs(bucketMs > 0 ? bucketMs : 500)
{
}

void ThroughputTrace::add(int endpoint, double atMs, int events)
{
    if (endpoint < 0 || !(atMs >= 0) || !std::isfinite(atMs) || events <= 0)
        return;
    if (std::size_t(endpoint) >= m_counts.size())
        m_counts.resize(std::size_t(endpoint) + 1);
    auto& row = m_counts[std::size_t(endpoint)];
    const auto bucket = std::size_t(atMs / m_bucketMs);
    if (bucket >= row.size())
        row.resize(bucket + 1, 0);
    row[bucket] += events;
}

void ThroughputTrace::ensureEndpoints(int n)
{
    if (n > int(m_counts.size()))
        m_counts.resize(std::size_t(n));
}

int ThroughputTrace::buckets() const
{
    std::size_t n = 0;
    for (const auto& row : m_counts)
        n = std::max(n, row.size());
    return int(n);
}

int ThroughputTrace::count(int endpoint, int bucket) const
{
    if (endpoint < 0 || std::size_t(endpoint) >= m_counts.size() || bucket < 0)
        return 0;
    const auto& row = m_counts[std::size_t(endpoint)];
    return std::size_t(bucket) < row.size() ? row[std::size_t(bucket)] : 0;
}

double ThroughputTrace::rate(int endpoint, int bucket) const
{
    return count(endpoint, bucket) * 1000.0 / m_bucketMs;
}

std::vector<std::pair<double, double>> ThroughputTrace::series(int endpoint, int first, int last) const
{
    std::vector<std::pair<double, double>> out;
    first = std::max(first, 0);
    if (last > first)
        out.reserve(std::size_t(last - first));
    for (int b = first; b < last; ++b)
        out.emplace_back(b * m_bucketMs / 1000.0, rate(endpoint, b));
    return out;
}

ThroughputTrace throughputTrace(const RunResult& result, double bucketMs)
{
    ThroughputTrace trace(bucketMs);
    for (const RunRecord& r : result.records) {
        const RequestTiming& t = r.request.timing;
        if (t.t0Ns == 0)
            continue;
        for (const TokenEvent& e : r.request.response.tokenEvents)
            trace.add(r.endpoint, r.startOffsetMs + double(e.stampNs - t.t0Ns) / 1e6);
    }
    trace.ensureEndpoints(int(result.endpoints.size())); // a row even for one that streamed nothing
    return trace;
}

} // namespace qs
