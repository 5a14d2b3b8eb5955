// SPDX-License-Identifier: MIT
#pragma once

#include "model/core/Telemetry.h"
#include "model/wire/PrometheusText.h"

#include <QString>

namespace qs {

// One parsed `/metrics` page becomes one TelemetrySample: the series Quantscope keeps
// (MetricCatalog's keepSeries) as (index, value) into the source's append-only series table.
// The recorder calls it once per scrape, on its own thread, for one source at a time.

/// Reduces `page` into a sample of source `sourceIndex`, growing `source`: every family not seen
/// before is appended to `source.families` (by name, in page order), every kept series not seen
/// before to `source.series` (matched by sample name and labels), and `source.format` is set
/// from the page. The sample's `values` are ascending by series index; a series written twice
/// on one page keeps its first value. NaN and ±Inf are kept.
TelemetrySample reducePage(const PromPage& page, TelemetrySource& source, int sourceIndex, double atMs,
    double durationMs, TelemetrySample::Phase phase);

/// A scrape that failed: no values, `error` says why (a gap in every series of the source).
TelemetrySample failedSample(
    int sourceIndex, double atMs, double durationMs, TelemetrySample::Phase phase, const QString& error);

} // namespace qs
