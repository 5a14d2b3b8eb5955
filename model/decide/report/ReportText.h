// SPDX-License-Identifier: MIT
#pragma once

#include "model/evaluate/PairedComparison.h"
#include "model/evaluate/Statistics.h"

#include <QString>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>

// How the report writes numbers and quotes JSON: one place, so every section reads alike.
namespace qs::report {

QString number(double v, int decimals); ///< fixed-point with `decimals` decimals
QString fmtMetric(Metric metric, double v); ///< "312 ms", "38.2 tok/s", "41 tokens" (metricNumber)
QString fmtSigned(Metric metric, double v); ///< fmtMetric with a "+" on positive values
QString fmtRatioNumber(double r); ///< "0.94", "12.3"
QString fmtRatio(double r); ///< "0.94×"
QString fmtPercent(double fraction); ///< "12 %"
QString fmtP(double p); ///< "0.062", "< 0.001"
/// " [lo – hi]" with `f` formatting each end, or "" without an interval.
QString fmtInterval(const std::optional<Interval>& ci, const std::function<QString(double)>& f);
/// "0.21 – 0.27", or "—" without an interval.
QString fmtRange(const std::optional<Interval>& ci, const std::function<QString(double)>& f);
QString plural(int n, const QString& one, const QString& many); ///< "1 run", "3 runs"

QString jsonText(const nlohmann::json& j); ///< indented by 2
/// A string field of a JSON object, or `fallback`.
QString field(const nlohmann::json& j, const char* key, const QString& fallback = QString());
/// Long strings (a chat template, a system prompt) shortened so an appendix stays readable.
nlohmann::json shortened(const nlohmann::json& j, std::size_t limit);

} // namespace qs::report
