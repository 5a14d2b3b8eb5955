// SPDX-License-Identifier: MIT
#pragma once

#include "model/core/MetricCatalog.h"
#include "model/core/RunRecord.h"

#include <QString>
#include <array>
#include <cmath>
#include <vector>

namespace qs {

/// What the Server charts plot, per endpoint: the gauges of every scrape on the run's clock (ms
/// from the run's start, as RunRecord::startOffsetMs), a gap wherever a scrape failed, and the
/// spans of the endpoint's requests. Built point by point while a run goes on (add() is
/// amortised O(1)) or from a loaded run's serverPoints(); both give the same series.
class ServerTimeline {
public:
    /// A value at a time. A NaN value is a gap: the line breaks there, nothing is interpolated.
    struct Point {
        double atMs = 0;
        double value = 0;
        bool gap() const { return std::isnan(value); }
    };
    /// One request of an endpoint: from t0 to the end of its response.
    struct Span {
        double startMs = 0;
        double endMs = 0;
        bool warmup = false;
        bool failed = false;
    };

    /// The gauges kept, in the charts' order.
    static const std::array<MetricRole, 6>& roles();

    void clear();
    /// Adds one scrape. A role is drawn from the first source of the endpoint that reported it,
    /// so a second exporter with the same figure does not zigzag into the line. A failed scrape,
    /// or a good one without a role its source drew before, breaks that role's line.
    void add(const ServerPoint& point);
    /// The requests of `result` as spans, in start order (replaces any).
    void setRequests(const RunResult& result);

    /// Endpoints with a point or a request (indices beyond have nothing).
    int endpoints() const { return int(m_endpoints.size()); }
    /// The series of `role` for `endpoint`, in time order; empty when it has none.
    const std::vector<Point>& series(int endpoint, MetricRole role) const;
    const std::vector<Span>& requests(int endpoint) const;
    /// GpuMemoryUsed when the endpoint has a GPU memory figure, else HostMemoryUsed (what
    /// unified-memory machines such as the DGX Spark report).
    MetricRole memoryRole(int endpoint) const;
    /// Whether any endpoint has a value of `role` (a gap does not count).
    bool has(MetricRole role) const;
    bool hasValues() const { return m_values > 0; }
    int scrapes() const { return m_scrapes; }
    int failedScrapes() const { return m_failed; }
    QString lastError() const { return m_lastError; }
    /// The time the scrapes and requests cover, in ms; both 0 when empty.
    double firstMs() const;
    double lastMs() const;

    /// The points of `series` worth drawing over [fromMs, toMs] at `columns` pixel columns: all of
    /// them (plus one on each side, so the line reaches the edges) when there are few; else, per
    /// column, its first, lowest, highest and last point in time order, so spikes survive. Gaps
    /// are kept. O(points in range).
    static std::vector<Point> decimate(
        const std::vector<Point>& series, double fromMs, double toMs, int columns);

private:
    static constexpr std::size_t RoleCount = 6;
    struct EndpointSeries {
        std::array<std::vector<Point>, RoleCount> series;
        std::array<int, RoleCount> owner; ///< the source drawing each role; -1 none yet
        std::vector<Span> spans;
        EndpointSeries() { owner.fill(-1); }
    };
    EndpointSeries* endpoint(int index); ///< grows the list; null for an absurd index
    /// A time range that grows as values come, empty until the first.
    struct Range {
        bool any = false;
        double first = 0;
        double last = 0;
        void extend(double from, double to);
    };

    std::vector<EndpointSeries> m_endpoints;
    int m_scrapes = 0;
    int m_failed = 0;
    qint64 m_values = 0;
    QString m_lastError;
    Range m_points; ///< the scrapes
    Range m_spans; ///< the requests
};

} // namespace qs
