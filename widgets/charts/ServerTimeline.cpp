// SPDX-License-Identifier: MIT
#include "widgets/charts/ServerTimeline.h"

#include <algorithm>
#include <limits>

namespace qs {

namespace {

constexpr double Gap = std::numeric_limits<double>::quiet_NaN();
constexpr int MaxEndpoints = 4096; ///< an index beyond is a corrupt point, not an endpoint

int roleIndex(MetricRole role)
{
    const auto& roles = ServerTimeline::roles();
    const auto it = std::find(roles.begin(), roles.end(), role);
    return it == roles.end() ? -1 : int(it - roles.begin());
}

/// How long a request took on the run's clock: t0 to the end of the response (or of the
/// failure), else the last token, else nothing (a tick).
double requestMs(const RequestRecord& r)
{
    if (r.timing.endNs > r.timing.t0Ns && r.timing.t0Ns > 0)
        return double(r.timing.endNs - r.timing.t0Ns) / 1e6;
    if (r.metrics.streamEndMs)
        return *r.metrics.streamEndMs;
    return r.metrics.e2eMs.value_or(0);
}

} // namespace

const std::array<MetricRole, 6>& ServerTimeline::roles()
{
    static const std::array<MetricRole, 6> all {MetricRole::RequestsRunning, MetricRole::RequestsWaiting,
        MetricRole::KvCacheUsage, MetricRole::GpuMemoryUsed, MetricRole::HostMemoryUsed,
        MetricRole::GpuPower};
    return all;
}

void ServerTimeline::Range::extend(double from, double to)
{
    first = any ? std::min(first, from) : from;
    last = any ? std::max(last, to) : to;
    any = true;
}

double ServerTimeline::firstMs() const
{
    if (m_points.any && m_spans.any)
        return std::min(m_points.first, m_spans.first);
    return m_points.any ? m_points.first : m_spans.first;
}

double ServerTimeline::lastMs() const
{
    if (m_points.any && m_spans.any)
        return std::max(m_points.last, m_spans.last);
    return m_points.any ? m_points.last : m_spans.last;
}

void ServerTimeline::clear()
{
    *this = ServerTimeline();
}

ServerTimeline::EndpointSeries* ServerTimeline::endpoint(int index)
{
    if (index < 0 || index >= MaxEndpoints)
        return nullptr;
    if (std::size_t(index) >= m_endpoints.size())
        m_endpoints.resize(std::size_t(index) + 1);
    return &m_endpoints[std::size_t(index)];
}

void ServerTimeline::add(const ServerPoint& point)
{
    EndpointSeries* e = endpoint(point.endpoint);
    if (!e || !std::isfinite(point.atMs))
        return;
    ++m_scrapes;
    m_points.extend(point.atMs, point.atMs);
    if (!point.error.isEmpty()) {
        ++m_failed;
        m_lastError = point.error;
    }
    std::array<bool, RoleCount> drawn {};
    if (point.error.isEmpty()) {
        for (const auto& [role, value] : point.values) {
            const int i = roleIndex(role);
            if (i < 0 || !std::isfinite(value))
                continue;
            int& owner = e->owner[std::size_t(i)];
            if (owner < 0)
                owner = point.source;
            if (owner != point.source)
                continue;
            e->series[std::size_t(i)].push_back({point.atMs, value});
            drawn[std::size_t(i)] = true;
            ++m_values;
        }
    }
    // What this source drew before and not now is a gap (one NaN marks it, however long).
    for (std::size_t i = 0; i < RoleCount; ++i) {
        std::vector<Point>& s = e->series[i];
        if (e->owner[i] == point.source && !drawn[i] && !s.empty() && !s.back().gap())
            s.push_back({point.atMs, Gap});
    }
}

void ServerTimeline::setRequests(const RunResult& result)
{
    for (EndpointSeries& e : m_endpoints)
        e.spans.clear();
    m_spans = Range();
    for (const RunRecord& r : result.records) {
        EndpointSeries* e = endpoint(r.endpoint);
        if (!e || !std::isfinite(r.startOffsetMs))
            continue;
        const double end = r.startOffsetMs + std::max(0.0, requestMs(r.request));
        e->spans.push_back({r.startOffsetMs, end, r.warmup, !r.request.ok()});
        m_spans.extend(r.startOffsetMs, end);
    }
    // Records arrive in the order requests finished; the lane is drawn in start order.
    for (EndpointSeries& e : m_endpoints)
        if (!std::is_sorted(e.spans.begin(), e.spans.end(),
                [](const Span& a, const Span& b) { return a.startMs < b.startMs; }))
            std::stable_sort(e.spans.begin(), e.spans.end(),
                [](const Span& a, const Span& b) { return a.startMs < b.startMs; });
}

const std::vector<ServerTimeline::Point>& ServerTimeline::series(int endpoint, MetricRole role) const
{
    static const std::vector<Point> none;
    const int i = roleIndex(role);
    if (endpoint < 0 || std::size_t(endpoint) >= m_endpoints.size() || i < 0)
        return none;
    return m_endpoints[std::size_t(endpoint)].series[std::size_t(i)];
}

const std::vector<ServerTimeline::Span>& ServerTimeline::requests(int endpoint) const
{
    static const std::vector<Span> none;
    if (endpoint < 0 || std::size_t(endpoint) >= m_endpoints.size())
        return none;
    return m_endpoints[std::size_t(endpoint)].spans;
}

MetricRole ServerTimeline::memoryRole(int endpoint) const
{
    const std::vector<Point>& gpu = series(endpoint, MetricRole::GpuMemoryUsed);
    return gpu.empty() ? MetricRole::HostMemoryUsed : MetricRole::GpuMemoryUsed;
}

bool ServerTimeline::has(MetricRole role) const
{
    for (int e = 0; e < endpoints(); ++e)
        for (const Point& p : series(e, role))
            if (!p.gap())
                return true;
    return false;
}

std::vector<ServerTimeline::Point> ServerTimeline::decimate(
    const std::vector<Point>& series, double fromMs, double toMs, int columns)
{
    std::vector<Point> out;
    if (series.empty() || !(toMs > fromMs) || columns <= 0)
        return out;
    auto begin = std::lower_bound(
        series.begin(), series.end(), fromMs, [](const Point& p, double t) { return p.atMs < t; });
    auto end = std::upper_bound(
        series.begin(), series.end(), toMs, [](double t, const Point& p) { return t < p.atMs; });
    if (begin != series.begin())
        --begin;
    if (end != series.end())
        ++end;
    if (end - begin <= std::ptrdiff_t(columns) * 4)
        return {begin, end};

    out.reserve(std::size_t(columns) * 4 + 8);
    const double perColumn = (toMs - fromMs) / columns;
    // One pixel column's first, lowest, highest and last point.
    std::array<Point, 4> column {};
    bool open = false;
    qint64 current = 0;
    const auto flush = [&] {
        if (!open)
            return;
        open = false;
        std::array<Point, 4> sorted = column;
        std::sort(
            sorted.begin(), sorted.end(), [](const Point& a, const Point& b) { return a.atMs < b.atMs; });
        for (std::size_t i = 0; i < sorted.size(); ++i)
            if (i == 0 || sorted[i].atMs != sorted[i - 1].atMs)
                out.push_back(sorted[i]);
    };
    for (auto it = begin; it != end; ++it) {
        if (it->gap()) {
            flush();
            if (!out.empty() && !out.back().gap())
                out.push_back(*it);
            continue;
        }
        const auto c = qint64(std::floor((it->atMs - fromMs) / perColumn));
        if (!open || c != current) {
            flush();
            current = c;
            column.fill(*it);
            open = true;
            continue;
        }
        column[3] = *it;
        if (it->value < column[1].value)
            column[1] = *it;
        if (it->value > column[2].value)
            column[2] = *it;
    }
    flush();
    return out;
}

} // namespace qs
