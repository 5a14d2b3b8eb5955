// SPDX-License-Identifier: MIT
// Telemetry to and from its JSON (docs/results-format.md, "Telemetry").
#include "model/store/TelemetryFields.h"

#include <cmath>

namespace qs::results {

namespace {

// JSON has no NaN or infinities; Prometheus pages carry them (an empty histogram's quantile, a
// bucket bound), so they are stored as the strings the exposition format itself uses.
constexpr const char* kNaN = "NaN";
constexpr const char* kPlusInf = "+Inf";
constexpr const char* kMinusInf = "-Inf";

json valueToJson(double v)
{
    if (std::isnan(v))
        return kNaN;
    if (std::isinf(v))
        return v > 0 ? kPlusInf : kMinusInf;
    return v;
}

double valueFromJson(const json& v, const Loc& loc)
{
    if (v.is_number())
        return v.get<double>();
    if (v.is_string()) {
        const auto& s = v.get_ref<const std::string&>();
        if (s == kNaN)
            return std::numeric_limits<double>::quiet_NaN();
        if (s == kPlusInf || s == "Inf")
            return std::numeric_limits<double>::infinity();
        if (s == kMinusInf)
            return -std::numeric_limits<double>::infinity();
        badField(loc, "expected a number, \"NaN\", \"+Inf\" or \"-Inf\", found " + excerpt(v));
    }
    expected(loc, "a number, \"NaN\", \"+Inf\" or \"-Inf\"", v);
}

MetricType typeAt(const Fields& f, const char* key)
{
    const QString id = f.string(key);
    if (id.isEmpty())
        return MetricType::Untyped;
    const auto type = metricTypeFromId(id);
    if (!type)
        f.fail(key,
            unknownId("counter, gauge, histogram, summary, gaugehistogram, info, stateset or untyped", id));
    return *type;
}

TelemetrySource::Kind kindAt(const Fields& f)
{
    const QString id = f.string("kind");
    if (id.isEmpty())
        return TelemetrySource::Kind::Exporter;
    for (const auto kind : {TelemetrySource::Kind::Runtime, TelemetrySource::Kind::Exporter})
        if (id == telemetrySourceKindId(kind))
            return kind;
    f.fail("kind", unknownId("runtime or exporter", id));
}

/// A list member, each element read by `read(element, its loc)`.
template <typename Read> void forEach(const Fields& f, const Loc& loc, const char* key, Read&& read)
{
    if (const json* a = f.array(key)) {
        const Loc at = loc.member(key);
        for (std::size_t i = 0; i < a->size(); ++i)
            read((*a)[i], at.element(i));
    }
}

json seriesToJson(const TelemetrySeries& s)
{
    json labels = json::array();
    for (const auto& [k, v] : s.labels)
        labels.push_back(json::array({u8(k), u8(v)}));
    return {{"name", u8(s.name)}, {"labels", std::move(labels)}, {"family", u8(s.family)},
        {"type", u8(metricTypeId(s.type))}};
}

TelemetrySeries seriesFromJson(const json& j, const Loc& loc)
{
    const Fields f(j, loc);
    TelemetrySeries s;
    s.name = f.requiredString("name");
    forEach(f, loc, "labels", [&](const json& pair, const Loc& at) {
        if (!pair.is_array() || pair.size() != 2 || !pair[0].is_string() || !pair[1].is_string())
            badField(at, "expected a [\"name\", \"value\"] pair of strings, found " + excerpt(pair));
        s.labels.emplace_back(toQString(pair[0]), toQString(pair[1]));
    });
    s.family = f.string("family");
    s.type = typeAt(f, "type");
    return s;
}

} // namespace

json telemetryHeaderToJson(const Telemetry& t)
{
    json notes = json::array();
    for (const QString& n : t.notes)
        notes.push_back(u8(n));
    return {{"period_ms", t.periodMs}, {"notes", std::move(notes)}};
}

json sourceToJson(const TelemetrySource& s, bool describe, const SourceTablesWritten& from)
{
    json j = json::object();
    if (describe) {
        j["endpoint"] = s.endpoint;
        j["url"] = u8(s.url);
        j["kind"] = u8(telemetrySourceKindId(s.kind));
        j["format"] = u8(s.format);
        j["process_start_unix"] = s.processStartUnix ? json(*s.processStartUnix) : json(nullptr);
    }
    // Whole tables are always written for a description (an empty list says "none yet").
    if (describe || from.families < s.families.size()) {
        json families = json::array();
        for (std::size_t i = from.families; i < s.families.size(); ++i)
            families.push_back(
                {{"name", u8(s.families[i].name)}, {"type", u8(metricTypeId(s.families[i].type))}});
        j["families"] = std::move(families);
    }
    if (describe || from.series < s.series.size()) {
        json series = json::array();
        for (std::size_t i = from.series; i < s.series.size(); ++i)
            series.push_back(seriesToJson(s.series[i]));
        j["series"] = std::move(series);
    }
    if (describe || from.notes < std::size_t(s.notes.size())) {
        json notes = json::array();
        for (qsizetype i = qsizetype(from.notes); i < s.notes.size(); ++i)
            notes.push_back(u8(s.notes[i]));
        j["notes"] = std::move(notes);
    }
    return j;
}

json sampleToJson(const TelemetrySample& s)
{
    json j = {{"s", s.source}, {"t", roundUs(s.atMs)}, {"d", roundUs(s.durationMs)},
        {"phase", u8(telemetryPhaseId(s.phase))}};
    if (!s.ok())
        j["error"] = u8(s.error);
    if (!s.values.empty() || s.ok()) {
        json values = json::array();
        values.get_ref<json::array_t&>().reserve(s.values.size());
        for (const auto& [index, value] : s.values)
            values.push_back(json::array({index, valueToJson(value)}));
        j["v"] = std::move(values);
    }
    return j;
}

json telemetryToJson(const Telemetry& t)
{
    json j = telemetryHeaderToJson(t);
    json sources = json::array();
    for (const TelemetrySource& s : t.sources)
        sources.push_back(sourceToJson(s));
    json samples = json::array();
    for (const TelemetrySample& s : t.samples)
        samples.push_back(sampleToJson(s));
    j["sources"] = std::move(sources);
    j["samples"] = std::move(samples);
    return j;
}

bool sameDescription(const TelemetrySource& a, const TelemetrySource& b)
{
    return a.endpoint == b.endpoint && a.url == b.url && a.kind == b.kind && a.format == b.format
        && a.processStartUnix == b.processStartUnix;
}

void readSource(TelemetrySource& s, const json& j, const Loc& loc, std::size_t endpointCount, bool first)
{
    const Fields f(j, loc);
    if (first || f.find("url")) {
        s.url = f.requiredString("url");
        s.endpoint = f.endpointIndex("endpoint", endpointCount);
        s.kind = kindAt(f);
        s.format = f.string("format");
        s.processStartUnix = f.optNumber("process_start_unix");
    }
    forEach(f, loc, "families", [&](const json& e, const Loc& at) {
        const Fields ff(e, at);
        s.families.push_back({ff.requiredString("name"), typeAt(ff, "type")});
    });
    forEach(
        f, loc, "series", [&](const json& e, const Loc& at) { s.series.push_back(seriesFromJson(e, at)); });
    s.notes += f.stringList("notes");
}

TelemetrySample readSample(const json& j, const Loc& loc)
{
    const Fields f(j, loc);
    TelemetrySample s;
    s.source = f.requiredInteger("s", 0);
    if (!f.find("t"))
        f.missing("t");
    s.atMs = *f.optNumber("t");
    s.durationMs = f.number("d", 0);
    if (const QString id = f.string("phase"); !id.isEmpty()) {
        const auto phase = telemetryPhaseFromId(id);
        if (!phase)
            f.fail("phase", unknownId("idle_before, run or idle_after", id));
        s.phase = *phase;
    }
    s.error = f.string("error");
    if (const json* v = f.array("v")) {
        const Loc vl = loc.member("v");
        s.values.reserve(v->size());
        for (std::size_t i = 0; i < v->size(); ++i) {
            const json& pair = (*v)[i];
            const Loc at = vl.element(i);
            if (!pair.is_array() || pair.size() != 2)
                badField(at, "expected an [index, value] pair, found " + excerpt(pair));
            const int index = int(checkedInteger(pair[0], at.element(0), 0, INT_MAX));
            if (!s.values.empty() && index <= s.values.back().first)
                badField(at.element(0),
                    "series index " + std::to_string(index) + " after "
                        + std::to_string(s.values.back().first) + ": the indexes of a sample must ascend");
            s.values.emplace_back(index, valueFromJson(pair[1], at.element(1)));
        }
    }
    return s;
}

void checkSeries(const TelemetrySample& s, std::size_t seriesCount, const Loc& loc)
{
    // Ascending indexes: only the last one can be out of the table.
    if (s.values.empty() || std::size_t(s.values.back().first) < seriesCount)
        return;
    const Loc vl = loc.member("v");
    for (std::size_t i = 0; i < s.values.size(); ++i)
        if (const Loc pair = vl.element(i); std::size_t(s.values[i].first) >= seriesCount)
            badField(pair.element(0),
                "series " + std::to_string(s.values[i].first) + " does not exist (source "
                    + std::to_string(s.source) + " lists " + std::to_string(seriesCount) + " series)");
}

void checkSample(const TelemetrySample& s, const std::vector<TelemetrySource>& sources, const Loc& loc)
{
    if (std::size_t(s.source) >= sources.size())
        badField(loc.member("s"),
            "source " + std::to_string(s.source) + " does not exist (the file lists "
                + std::to_string(sources.size()) + " telemetry sources)");
    checkSeries(s, sources[std::size_t(s.source)].series.size(), loc);
}

Telemetry telemetryFromJson(const json& j, const Loc& loc, std::size_t endpointCount)
{
    const Fields f(j, loc);
    Telemetry t;
    t.periodMs = f.integer("period_ms", 0, 0);
    t.notes = f.stringList("notes");
    forEach(f, loc, "sources", [&](const json& e, const Loc& at) {
        readSource(t.sources.emplace_back(), e, at, endpointCount, true);
    });
    if (const json* a = f.array("samples")) {
        const Loc sl = loc.member("samples");
        t.samples.reserve(a->size());
        for (std::size_t i = 0; i < a->size(); ++i) {
            const Loc at = sl.element(i);
            t.samples.push_back(readSample((*a)[i], at));
            checkSample(t.samples.back(), t.sources, at);
        }
    }
    return t;
}

} // namespace qs::results
