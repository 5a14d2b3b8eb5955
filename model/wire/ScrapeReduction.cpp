// SPDX-License-Identifier: MIT
#include "model/wire/ScrapeReduction.h"

#include "model/core/MetricCatalog.h"

#include <algorithm>

namespace qs {

namespace {

using Labels = std::vector<std::pair<QString, QString>>;

bool matches(const TelemetrySeries& series, const QString& name, const Labels& labels)
{
    return series.name == name && series.labels == labels;
}

} // namespace

TelemetrySample reducePage(const PromPage& page, TelemetrySource& source, int sourceIndex, double atMs,
    double durationMs, TelemetrySample::Phase phase)
{
    TelemetrySample out;
    out.source = sourceIndex;
    out.atMs = atMs;
    out.durationMs = durationMs;
    out.phase = phase;
    source.format = promFormatId(page.format);

    // Pages repeat their layout scrape after scrape: the series after the last one matched is
    // tried first, so the lookup is linear in the page, not quadratic.
    std::size_t cursor = 0;
    for (const PromFamily& family : page.families) {
        const QString familyName = QString::fromStdString(family.name);
        const bool knownFamily = std::any_of(source.families.begin(), source.families.end(),
            [&](const TelemetryFamily& f) { return f.name == familyName; });
        if (!knownFamily)
            source.families.push_back({familyName, family.type});
        std::string lastName;
        QString name;
        bool kept = false;
        Labels labels;
        for (const PromSample& sample : family.samples) {
            if (name.isNull() || sample.name != lastName) {
                lastName = sample.name;
                name = QString::fromStdString(sample.name);
                kept = keepSeries(name);
            }
            if (!kept)
                continue;
            labels.clear();
            for (const auto& [n, v] : sample.labels)
                labels.emplace_back(QString::fromStdString(n), QString::fromStdString(v));
            std::size_t index = source.series.size();
            if (cursor < source.series.size() && matches(source.series[cursor], name, labels)) {
                index = cursor;
            } else {
                for (std::size_t i = 0; i < source.series.size(); ++i)
                    if (matches(source.series[i], name, labels)) {
                        index = i;
                        break;
                    }
            }
            if (index == source.series.size()) {
                TelemetrySeries series;
                series.name = name;
                series.family = familyName;
                series.type = family.type;
                series.labels = labels;
                source.series.push_back(std::move(series));
            }
            cursor = index + 1;
            out.values.emplace_back(int(index), sample.value);
        }
    }
    std::stable_sort(
        out.values.begin(), out.values.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    out.values.erase(std::unique(out.values.begin(), out.values.end(),
                         [](const auto& a, const auto& b) { return a.first == b.first; }),
        out.values.end());
    return out;
}

TelemetrySample failedSample(
    int sourceIndex, double atMs, double durationMs, TelemetrySample::Phase phase, const QString& error)
{
    TelemetrySample out;
    out.source = sourceIndex;
    out.atMs = atMs;
    out.durationMs = durationMs;
    out.phase = phase;
    out.error = error.isEmpty() ? QStringLiteral("scrape failed") : error;
    return out;
}

} // namespace qs
