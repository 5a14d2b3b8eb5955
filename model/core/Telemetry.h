// SPDX-License-Identifier: MIT
#pragma once

#include <QString>
#include <QStringList>
#include <optional>
#include <utility>
#include <vector>

namespace qs {

// What the servers spent while they answered: samples of Prometheus `/metrics` pages (the
// runtime's own, a DCGM exporter, a node exporter, anything else), scraped on the same monotonic
// clock as the requests. Value types only: the parser is model/wire/PrometheusText, the scraper
// model/run/TelemetryRecorder, the names Quantscope understands model/core/MetricCatalog, the
// derived figures model/evaluate/Resources. File form: docs/results-format.md, "telemetry".

/// A Prometheus metric family's TYPE (OpenMetrics adds the last three).
enum class MetricType { Untyped, Counter, Gauge, Histogram, Summary, GaugeHistogram, Info, StateSet };
QString metricTypeId(MetricType type); ///< "untyped", "counter", "gauge", "histogram", "summary", …
std::optional<MetricType> metricTypeFromId(const QString& id); ///< inverse; "unknown" = Untyped

/// One series a source exposed: the sample name (with its `_bucket`/`_sum`/`_count`/`_total`
/// suffix, as on the wire) and its labels in wire order. Names and label values are text, never
/// interpreted beyond MetricCatalog's table.
struct TelemetrySeries {
    QString name; ///< e.g. "vllm:time_to_first_token_seconds_bucket"
    std::vector<std::pair<QString, QString>> labels; ///< e.g. {{"le","0.1"},{"model_name","m"}}
    QString family; ///< the family it belongs to, e.g. "vllm:time_to_first_token_seconds"
    MetricType type = MetricType::Untyped; ///< the family's TYPE
    /// The value of label `labelName`, or empty.
    QString label(const QString& labelName) const;
    /// `name{a="b",…}` as Prometheus writes it (for display and as a stable key).
    QString key() const;
    bool operator==(const TelemetrySeries&) const = default;
};

/// Which series of a metrics page belong to one endpoint, when the page (a DCGM exporter) serves a
/// whole machine: label terms, each with the values it accepts, e.g. gpu ∈ {0, 1}. Written after
/// the metrics URL's `#`, which is never sent to the exporter: `http://10.0.0.5:9400/metrics#gpu=0`,
/// `…#gpu=0;1`, `…#UUID=GPU-5fd4…`, several terms joined by `&`. A term constrains only the series
/// that carry its label, so a node exporter's host memory passes any GPU selection.
struct SeriesSelection {
    std::vector<std::pair<QString, QStringList>> terms; ///< label → the values it accepts
    bool empty() const { return terms.empty(); }
    bool matches(const TelemetrySeries& series) const;
    QString text() const; ///< as written after `#`, e.g. "gpu=0;1"; empty when none
    bool operator==(const SeriesSelection&) const = default;
};
/// The selection a metrics URL carries after `#`: empty when it has none; nullopt (and `error`)
/// when the part after `#` is not `LABEL=VALUE[;VALUE…][&LABEL=…]`.
std::optional<SeriesSelection> seriesSelectionOf(const QString& url, QString* error = nullptr);
/// The URL without its selection: the page that is scraped, and how two endpoints' exporters are
/// told to be the same.
QString scrapedUrl(const QString& url);

/// A family a source exposed at least once, kept by name whether or not Quantscope understands
/// it (the probe and the report list them).
struct TelemetryFamily {
    QString name;
    MetricType type = MetricType::Untyped;
    bool operator==(const TelemetryFamily&) const = default;
};

/// One Prometheus URL scraped for one endpoint.
struct TelemetrySource {
    int endpoint = 0; ///< index into RunResult::endpoints
    QString url; ///< e.g. "http://10.0.0.5:8000/metrics"
    /// Runtime: the endpoint's own `/metrics` (found at its base URL). Exporter: an extra URL the
    /// user gave (`metrics=`), e.g. a DCGM or node exporter.
    enum class Kind { Runtime, Exporter } kind = Kind::Exporter;
    QString format; ///< of the last good scrape: "prometheus-0.0.4" or "openmetrics-1.0.0"
    /// The series table: samples carry values by index into it. Append-only during a run.
    std::vector<TelemetrySeries> series;
    std::vector<TelemetryFamily> families; ///< every family seen, in first-seen order
    /// What went wrong and when, for the reader: "12.3 s: connection refused (exporter down?)".
    QStringList notes;
    /// llama-server's `Process-Start-Time-Unix` header, when sent (a change = a restart).
    std::optional<double> processStartUnix;
    bool operator==(const TelemetrySource&) const = default;
};
QString telemetrySourceKindId(TelemetrySource::Kind kind); ///< "runtime", "exporter"

/// One scrape of one source, reduced to the series Quantscope keeps (MetricCatalog::keep).
struct TelemetrySample {
    int source = 0; ///< index into Telemetry::sources
    /// When the scrape request was written, ms from the run's start on the clock of
    /// RunRecord::startOffsetMs. The values describe the server at about this moment.
    double atMs = 0;
    double durationMs = 0; ///< request written → body complete (how stale the values may be)
    enum class Phase {
        IdleBefore, ///< the baseline before the first request
        Run, ///< periodic, while the run was going
        IdleAfter, ///< the baseline after the last request finished (server idle again)
    } phase
        = Phase::Run;
    /// Non-empty: the scrape failed (down, slow, not Prometheus text, too large…) and `values`
    /// is empty. The series has a gap here; nothing is interpolated across it.
    QString error;
    /// (index into the source's series table, value), ascending by index. NaN and ±Inf are kept.
    std::vector<std::pair<int, double>> values;
    bool ok() const { return error.isEmpty(); }
    /// The value of series `index`, if this sample has it.
    std::optional<double> value(int index) const;
    bool operator==(const TelemetrySample&) const = default;
};
QString telemetryPhaseId(TelemetrySample::Phase phase); ///< "idle_before", "run", "idle_after"
std::optional<TelemetrySample::Phase> telemetryPhaseFromId(const QString& id);

/// Everything scraped during a run. Empty (no sources) when scraping was off or no endpoint had
/// anything to scrape.
struct Telemetry {
    int periodMs = 0; ///< the scrape period asked for; 0 = scraping was off
    std::vector<TelemetrySource> sources;
    std::vector<TelemetrySample> samples; ///< in time order (atMs), all sources interleaved
    QStringList notes; ///< run-wide notes, e.g. "scraping off (--no-server-metrics)"
    bool empty() const { return sources.empty(); }
    bool operator==(const Telemetry&) const = default;
};

/// Default scrape period: about three samples a second, as AIPerf does.
inline constexpr int DefaultScrapeMs = 333;

} // namespace qs
