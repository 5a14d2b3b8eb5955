// SPDX-License-Identifier: MIT
#include "model/core/Telemetry.h"

#include <algorithm>
#include <array>
#include <utility>

namespace qs {

namespace {
struct TypeName {
    MetricType type;
    const char* id;
};
constexpr std::array<TypeName, 8> kTypes {{
    {MetricType::Untyped, "untyped"},
    {MetricType::Counter, "counter"},
    {MetricType::Gauge, "gauge"},
    {MetricType::Histogram, "histogram"},
    {MetricType::Summary, "summary"},
    {MetricType::GaugeHistogram, "gaugehistogram"},
    {MetricType::Info, "info"},
    {MetricType::StateSet, "stateset"},
}};

QString escapeLabelValue(const QString& value)
{
    QString out;
    out.reserve(value.size());
    for (const QChar c : value) {
        if (c == u'\\')
            out += QStringLiteral("\\\\");
        else if (c == u'"')
            out += QStringLiteral("\\\"");
        else if (c == u'\n')
            out += QStringLiteral("\\n");
        else
            out += c;
    }
    return out;
}
} // namespace

QString metricTypeId(MetricType type)
{
    for (const TypeName& t : kTypes)
        if (t.type == type)
            return QString::fromLatin1(t.id);
    return QStringLiteral("untyped");
}

std::optional<MetricType> metricTypeFromId(const QString& id)
{
    if (id.compare(QStringLiteral("unknown"), Qt::CaseInsensitive) == 0)
        return MetricType::Untyped;
    for (const TypeName& t : kTypes)
        if (id.compare(QLatin1String(t.id), Qt::CaseInsensitive) == 0)
            return t.type;
    return std::nullopt;
}

QString TelemetrySeries::label(const QString& labelName) const
{
    for (const auto& [k, v] : labels)
        if (k == labelName)
            return v;
    return {};
}

QString TelemetrySeries::key() const
{
    if (labels.empty())
        return name;
    QString out = name + u'{';
    bool first = true;
    for (const auto& [k, v] : labels) {
        if (!std::exchange(first, false))
            out += u',';
        out += k + QStringLiteral("=\"") + escapeLabelValue(v) + u'"';
    }
    return out + u'}';
}

QString telemetrySourceKindId(TelemetrySource::Kind kind)
{
    return kind == TelemetrySource::Kind::Runtime ? QStringLiteral("runtime") : QStringLiteral("exporter");
}

std::optional<double> TelemetrySample::value(int index) const
{
    const auto it = std::lower_bound(values.begin(), values.end(), index,
        [](const std::pair<int, double>& v, int i) { return v.first < i; });
    if (it == values.end() || it->first != index)
        return std::nullopt;
    return it->second;
}

QString telemetryPhaseId(TelemetrySample::Phase phase)
{
    switch (phase) {
    case TelemetrySample::Phase::IdleBefore:
        return QStringLiteral("idle_before");
    case TelemetrySample::Phase::Run:
        return QStringLiteral("run");
    case TelemetrySample::Phase::IdleAfter:
        return QStringLiteral("idle_after");
    }
    return QStringLiteral("run");
}

std::optional<TelemetrySample::Phase> telemetryPhaseFromId(const QString& id)
{
    for (const auto phase :
        {TelemetrySample::Phase::IdleBefore, TelemetrySample::Phase::Run, TelemetrySample::Phase::IdleAfter})
        if (telemetryPhaseId(phase) == id)
            return phase;
    return std::nullopt;
}

} // namespace qs
