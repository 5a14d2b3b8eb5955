// SPDX-License-Identifier: MIT
// The resources a profile can put a limit on: their ids, units and words (DecisionProfile.h).
#include "model/decide/DecisionProfile.h"

#include <algorithm>
#include <cmath>

using namespace Qt::StringLiterals;

namespace qs {

namespace {

using Resource = Criterion::Resource;

struct UnitFactor {
    QString unit;
    double factor;
};

bool isMemory(Resource r)
{
    return r == Resource::PeakMemory || r == Resource::IdleMemory || r == Resource::MemoryAtConcurrency;
}

// Decimal GB first: what spec sheets and the seeds write ("128 GB unified", "<110 GB peak").
const std::vector<UnitFactor>& memoryUnits()
{
    static const std::vector<UnitFactor> units = {
        {u"GB"_s, 1e9}, {u"GiB"_s, 1073741824.0}, {u"MB"_s, 1e6}, {u"MiB"_s, 1048576.0}, {u"bytes"_s, 1.0}};
    return units;
}

const std::vector<UnitFactor>& unitsOf(Resource r)
{
    static const std::vector<UnitFactor> watts = {{u"W"_s, 1.0}};
    static const std::vector<UnitFactor> joules = {{u"J/token"_s, 1.0}};
    if (isMemory(r))
        return memoryUnits();
    return r == Resource::PowerMedian ? watts : joules;
}

} // namespace

QString resourceId(Criterion::Resource resource)
{
    switch (resource) {
    case Resource::PeakMemory:
        return u"peak_memory"_s;
    case Resource::IdleMemory:
        return u"idle_memory"_s;
    case Resource::MemoryAtConcurrency:
        return u"memory_at_concurrency"_s;
    case Resource::PowerMedian:
        return u"power_median"_s;
    case Resource::EnergyPerToken:
        return u"energy_per_token"_s;
    }
    return {};
}

std::optional<Criterion::Resource> resourceFromId(const QString& id)
{
    for (Resource r : {Resource::PeakMemory, Resource::IdleMemory, Resource::MemoryAtConcurrency,
             Resource::PowerMedian, Resource::EnergyPerToken})
        if (resourceId(r) == id)
            return r;
    return std::nullopt;
}

QString resourceBaseUnit(Criterion::Resource resource)
{
    return unitsOf(resource).back().unit;
}

std::optional<double> resourceUnitFactor(Criterion::Resource resource, const QString& unit)
{
    for (const UnitFactor& u : unitsOf(resource))
        if (u.unit == unit)
            return u.factor;
    return std::nullopt;
}

QStringList resourceUnits(Criterion::Resource resource)
{
    QStringList out;
    for (const UnitFactor& u : unitsOf(resource))
        out << u.unit;
    return out;
}

QString resourceName(Criterion::Resource resource, int concurrency)
{
    switch (resource) {
    case Resource::PeakMemory:
        return u"peak memory"_s;
    case Resource::IdleMemory:
        return u"idle memory"_s;
    case Resource::MemoryAtConcurrency:
        return concurrency > 0 ? u"peak memory at concurrency %1"_s.arg(concurrency)
                               : u"peak memory at the highest concurrency"_s;
    case Resource::PowerMedian:
        return u"median GPU power"_s;
    case Resource::EnergyPerToken:
        return u"energy per token"_s;
    }
    return {};
}

QString resourceValueText(Criterion::Resource resource, double baseValue, const QString& unit)
{
    QString shown = unit;
    if (!resourceUnitFactor(resource, shown) || (isMemory(resource) && shown == u"bytes"))
        shown = isMemory(resource) ? u"GB"_s : resourceBaseUnit(resource);
    // Three significant digits, zeros kept so a column reads alike ("7.00 GB" beside "6.60 GB"),
    // whole units from 100 up: "63.2 GB", "212 W", "0.842 J/token".
    const double v = baseValue / *resourceUnitFactor(resource, shown);
    const double a = std::fabs(v);
    const int decimals = a >= 100 || a == 0 ? 0 : std::clamp(2 - int(std::floor(std::log10(a))), 0, 9);
    return QString::number(v, 'f', decimals) + u' ' + shown;
}

} // namespace qs
