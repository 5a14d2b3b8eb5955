// SPDX-License-Identifier: MIT
#include "model/core/Telemetry.h"

#include <QUrl>
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

bool SeriesSelection::matches(const TelemetrySeries& series) const
{
    for (const auto& [name, values] : terms)
        for (const auto& [label, value] : series.labels)
            if (label == name && !values.contains(value))
                return false;
    return true;
}

QString SeriesSelection::text() const
{
    QStringList parts;
    for (const auto& [name, values] : terms)
        parts << name + u'=' + values.join(u';');
    return parts.join(u'&');
}

std::optional<SeriesSelection> seriesSelectionOf(const QString& url, QString* error)
{
    const qsizetype hash = url.indexOf(u'#');
    SeriesSelection selection;
    if (hash < 0)
        return selection;
    // Percent-escapes are undone, as a browser would (QUrl may have encoded what was typed).
    const QString fragment = QUrl::fromPercentEncoding(url.mid(hash + 1).toUtf8());
    for (const QString& term : fragment.split(u'&', Qt::SkipEmptyParts)) {
        const qsizetype eq = term.indexOf(u'=');
        const QString name = term.left(eq).trimmed();
        QStringList values;
        for (const QString& v : term.mid(eq + 1).split(u';', Qt::SkipEmptyParts))
            values << v.trimmed();
        if (eq <= 0 || name.isEmpty() || values.isEmpty()) {
            if (error)
                *error = QStringLiteral("\"#%1\" is not a GPU selection: write LABEL=VALUE[;VALUE…], e.g. "
                                        "#gpu=0;1 or #UUID=GPU-…, terms joined by &")
                             .arg(fragment);
            return std::nullopt;
        }
        selection.terms.emplace_back(name, values);
    }
    return selection;
}

QString scrapedUrl(const QString& url)
{
    const qsizetype hash = url.indexOf(u'#');
    return hash < 0 ? url : url.left(hash);
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
