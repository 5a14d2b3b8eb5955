// SPDX-License-Identifier: MIT
#pragma once

#include "model/evaluate/Statistics.h"

#include <QString>

namespace qs {

/// A metric's value at the precision a reader wants, without the unit: ms with 1 decimal below
/// 100 and none from 100 up, tok/s with 1 decimal, token counts whole (1 decimal when fractional,
/// e.g. a mean). Halves round away from zero. The one rule behind the tables and the report.
QString metricNumber(double value, Metric metric);

/// Every way Quantscope speaks of one metric, in one row: the tables, the charts, the report and
/// the recommendation all read their words here. Definitions: docs/methodology.md.
struct MetricWords {
    Metric metric;
    QString title; ///< a table column: "TTFT (visible)"
    QString chartTitle; ///< a per-test chart: "Time to first token per test"
    QString chartLabel; ///< a chart's subtitle, with unit and direction
    QString formula; ///< the formula and what it means (a chart's tooltip)
    QString description; ///< one sentence (a table's tooltip)
    QString phrase; ///< inside a sentence: "time to the first sentence"
    QString fix; ///< what would move it, for a criterion it failed
};

/// The row of `metric`.
const MetricWords& metricWords(Metric metric);

} // namespace qs
