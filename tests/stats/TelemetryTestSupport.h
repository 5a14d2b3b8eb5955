// SPDX-License-Identifier: MIT
#pragma once

// Telemetry built by hand for the resource and guardrail tests: sources with a series table, and
// samples whose values are given by sample name (and labels), as a scrape would have kept them.
#include "model/core/RunRecord.h"

#include <QString>
#include <algorithm>
#include <functional>
#include <utility>
#include <vector>

namespace qs::test {

/// One sample value: name as on the page (`_total`, `_bucket`… included), labels, value.
struct Value {
    QString name;
    double value = 0;
    std::vector<std::pair<QString, QString>> labels = {};
};

/// A histogram's `_sum`, `_count` and cumulative `_bucket`s (le as text, "+Inf" last).
inline std::vector<Value> histogram(
    const QString& base, double sum, double count, const std::vector<std::pair<QString, double>>& buckets)
{
    std::vector<Value> out {{base + QStringLiteral("_sum"), sum}, {base + QStringLiteral("_count"), count}};
    for (const auto& [le, n] : buckets)
        out.push_back({base + QStringLiteral("_bucket"), n, {{QStringLiteral("le"), le}}});
    return out;
}

/// node exporter's two meminfo gauges for `usedBytes` of `totalBytes` in use.
inline std::vector<Value> hostMemory(double usedBytes, double totalBytes)
{
    return {{QStringLiteral("node_memory_MemTotal_bytes"), totalBytes},
        {QStringLiteral("node_memory_MemAvailable_bytes"), totalBytes - usedBytes}};
}

inline constexpr double GiB = 1073741824.0;

class TelemetryBuilder {
public:
    explicit TelemetryBuilder(Telemetry& t)
        : m_t(t)
    {
        m_t.periodMs = 333;
    }

    int source(int endpoint, const QString& url, TelemetrySource::Kind kind = TelemetrySource::Kind::Exporter)
    {
        TelemetrySource s;
        s.endpoint = endpoint;
        s.url = url;
        s.kind = kind;
        s.format = QStringLiteral("prometheus-0.0.4");
        m_t.sources.push_back(std::move(s));
        return int(m_t.sources.size()) - 1;
    }

    TelemetrySample& sample(int source, double atMs, TelemetrySample::Phase phase, const std::vector<Value>& values)
    {
        TelemetrySample s;
        s.source = source;
        s.atMs = atMs;
        s.durationMs = 5;
        s.phase = phase;
        for (const Value& v : values)
            s.values.emplace_back(seriesIndex(m_t.sources[std::size_t(source)], v), v.value);
        std::sort(s.values.begin(), s.values.end());
        return insert(std::move(s));
    }

    TelemetrySample& failed(int source, double atMs, const QString& error,
        TelemetrySample::Phase phase = TelemetrySample::Phase::Run)
    {
        TelemetrySample s;
        s.source = source;
        s.atMs = atMs;
        s.phase = phase;
        s.error = error;
        return insert(std::move(s));
    }

private:
    Telemetry& m_t;

    TelemetrySample& insert(TelemetrySample s)
    {
        // Kept in time order, as the recorder writes them.
        auto it = std::upper_bound(m_t.samples.begin(), m_t.samples.end(), s.atMs,
            [](double at, const TelemetrySample& x) { return at < x.atMs; });
        return *m_t.samples.insert(it, std::move(s));
    }

    static int seriesIndex(TelemetrySource& source, const Value& v)
    {
        TelemetrySeries series;
        series.name = v.name;
        series.labels = v.labels;
        QString family = v.name;
        for (const char* suffix : {"_bucket", "_sum", "_count"})
            if (family.endsWith(QLatin1String(suffix)))
                family.chop(int(qstrlen(suffix)));
        series.family = family;
        for (std::size_t i = 0; i < source.series.size(); ++i)
            if (source.series[i].name == series.name && source.series[i].labels == series.labels)
                return int(i);
        source.series.push_back(series);
        if (std::none_of(source.families.begin(), source.families.end(),
                [&family](const TelemetryFamily& f) { return f.name == family; }))
            source.families.push_back({family, MetricType::Untyped});
        return int(source.series.size()) - 1;
    }
};

} // namespace qs::test
