// SPDX-License-Identifier: MIT
#pragma once

#include "model/core/Telemetry.h"

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace qs {

// A parser of the Prometheus text exposition format 0.0.4 and OpenMetrics 1.0.0 (`# EOF`,
// `# UNIT`, float-second timestamps, exemplars, `_created`), as
// ../shared/reference/server-metrics-and-logprobs.md §1.9 describes them. Pure: bytes in, values
// out, no Qt event loop, no allocation beyond the result — fit for a fuzzer.

/// One sample line: `name{labels} value [timestamp] [# exemplar]`.
struct PromSample {
    std::string name; ///< as written, with its suffix (`_bucket`, `_sum`, `_count`, `_total`, `_created`)
    std::vector<std::pair<std::string, std::string>> labels; ///< unescaped, in line order
    double value = 0; ///< NaN, +Inf and -Inf allowed
    std::optional<double> timestampMs; ///< 0.0.4: int ms; OpenMetrics: float s, converted to ms
};

/// A family: a TYPE (and HELP, UNIT) and its samples, contiguous on the page.
struct PromFamily {
    std::string name; ///< the TYPE line's name (OpenMetrics counters without `_total`)
    MetricType type = MetricType::Untyped;
    std::string help; ///< unescaped
    std::string unit; ///< OpenMetrics `# UNIT`
    std::vector<PromSample> samples;
};

enum class PromFormat { Text004, OpenMetrics };
/// From a Content-Type header: OpenMetrics for `application/openmetrics-text…`, else Text004.
PromFormat promFormatFromContentType(std::string_view contentType);
QString promFormatId(PromFormat format); ///< "prometheus-0.0.4", "openmetrics-1.0.0"

struct PromPage {
    PromFormat format = PromFormat::Text004;
    std::vector<PromFamily> families; ///< in page order
    bool sawEof = false; ///< OpenMetrics' `# EOF` was there
    /// Irregular but usable things, e.g. "line 7: sample vllm:x has no TYPE line (untyped)".
    std::vector<std::string> warnings;
    /// The family named `name`, or null.
    const PromFamily* family(std::string_view name) const;
};

/// Why a page is not usable: the first line that is not Prometheus text, and what is wrong.
struct PromError {
    int line = 0; ///< 1-based; 0 = the page as a whole (e.g. OpenMetrics without `# EOF`)
    std::string message; ///< e.g. "expected a value after the labels, found 'abc'"
    std::string text() const; ///< "line 12: …" or the message alone
};

/// Parses a whole page. Strict, like Prometheus itself: one bad line refuses the page (a partial
/// page would make counters look like they went down). Limits: at most `maxSeries` samples and
/// lines of at most 64 KiB, so an exporter gone wrong cannot eat the memory.
/// Returns the page, or nullopt and `error`.
std::optional<PromPage> parsePrometheusText(
    std::string_view text, PromFormat format, PromError* error = nullptr, std::size_t maxSeries = 200000);

/// Parses a Prometheus float: integers, decimals, exponents, `NaN`, `+Inf`, `-Inf`, `Inf`
/// (case-insensitive). nullopt for anything else.
std::optional<double> parsePromValue(std::string_view text);

/// The page's families as TelemetryFamily values (name and type), in page order.
std::vector<TelemetryFamily> familiesOf(const PromPage& page);

} // namespace qs
