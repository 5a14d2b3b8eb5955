// SPDX-License-Identifier: MIT
#pragma once

#include "model/core/RunRecord.h"

#include <vector>

namespace qs {

/// Token-bearing stream events per time bucket, per endpoint, on the run's clock (ms since the
/// run started). llama-server, vLLM and SGLang stream one token per event unless they batch
/// under load, so this is a close proxy of tokens/s, and it is labelled as events wherever a
/// difference could matter. The live view feeds it from the runner's deltas; review mode builds
/// it from the records' timelines, so both show the same thing.
class ThroughputTrace {
public:
    explicit ThroughputTrace(double bucketMs = 500);

    /// Counts `events` arrivals of `endpoint` at run time `atMs` (negative times are ignored).
    void add(int endpoint, double atMs, int events = 1);

    /// Makes sure endpoints 0 … n−1 have a (possibly empty) row.
    void ensureEndpoints(int n);

    double bucketMs() const { return m_bucketMs; }
    int endpoints() const { return int(m_counts.size()); }
    int buckets() const; ///< over all endpoints (the longest)
    /// Events of `endpoint` in bucket `bucket` (0 when out of range).
    int count(int endpoint, int bucket) const;
    /// count / bucket length, in events per second.
    double rate(int endpoint, int bucket) const;
    /// (bucket start in seconds, events/s) for buckets [first, last) of one endpoint.
    std::vector<std::pair<double, double>> series(int endpoint, int first, int last) const;

private:
    double m_bucketMs;
    std::vector<std::vector<int>> m_counts; ///< [endpoint][bucket]
};

/// From the token events of every record (warm-ups included: the server was busy with them too),
/// at `startOffsetMs + (event − t0)`.
ThroughputTrace throughputTrace(const RunResult& result, double bucketMs = 500);

} // namespace qs
