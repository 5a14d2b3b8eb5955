// SPDX-License-Identifier: MIT
#pragma once

#include "model/core/Endpoint.h"
#include "model/core/Telemetry.h"
#include "model/wire/PrometheusText.h"

#include <QByteArray>
#include <QByteArrayView>
#include <QObject>
#include <QString>
#include <QUrl>
#include <optional>

namespace qs {

class HttpConnection;

/// One Prometheus page to fetch.
struct ScrapeRequest {
    QUrl url; ///< e.g. http://10.0.0.5:9400/metrics
    /// Runtime: the endpoint's own `/metrics`; the advice for a page that does not answer names
    /// the runtime's flag. Exporter: an extra URL the user gave.
    TelemetrySource::Kind kind = TelemetrySource::Kind::Exporter;
    Runtime runtime = Runtime::Unknown; ///< the endpoint's runtime (Runtime kind only)
    QString apiKey; ///< sent as a bearer token: runtimes keep /metrics behind --api-key
    int timeoutMs = 2000; ///< the whole scrape; a slower one is aborted as slow
};

/// What one scrape brought back: the parsed page, or a one-line error that names the URL and
/// says what to do.
struct ScrapeOutcome {
    std::optional<PromPage> page;
    QString error; ///< empty on success
    int httpStatus = 0; ///< 0 when no HTTP answer arrived
    QByteArray contentType;
    /// llama-server's `Process-Start-Time-Unix` header (a change between scrapes = a restart).
    std::optional<double> processStartUnix;
    qint64 writtenNs = 0; ///< monotonic: request written (connection start if it never connected)
    double durationMs = 0; ///< request written → body complete or failure
    qint64 bodyBytes = 0;
    bool ok() const { return page.has_value(); }
};

/// A metrics page larger than this is not a metrics page (the biggest real ones are ~1 MB).
inline constexpr qint64 MaxMetricsPageBytes = 16 * 1024 * 1024;

/// The Accept header sent: 0.0.4 preferred (every exporter speaks it), OpenMetrics accepted.
QByteArray metricsAcceptHeader();

/// The server flag that turns a runtime's own `/metrics` on, as advice for a page that does not
/// answer: "start llama-server with --metrics", "start SGLang with --enable-metrics", …
QString metricsEnableAdvice(Runtime runtime);

/// Judges a complete HTTP answer as a Prometheus page: status, Content-Type (HTML and JSON are
/// refused however they are labelled) and the parser's verdict. Pure; MetricsScrape calls it.
ScrapeOutcome judgeMetricsResponse(
    const ScrapeRequest& request, int status, QByteArrayView contentType, QByteArrayView body);

/// One GET of one Prometheus URL at a time, on a kept-alive HttpConnection, with the limits a
/// scraper needs: a page over MaxMetricsPageBytes and a scrape over its timeout are aborted.
/// Lives in the thread that created it (the telemetry recorder's, or the probe's); the page is
/// parsed there too, so a 100 KB page never costs the runner's thread anything.
class MetricsScrape : public QObject {
    Q_OBJECT
public:
    explicit MetricsScrape(QObject* parent = nullptr);
    /// Starts a scrape; the scrape must not be busy().
    void start(ScrapeRequest request);
    /// Ends the scrape in progress (finished() follows, with an error).
    void cancel();
    bool busy() const { return m_busy; }
    const ScrapeRequest& request() const { return m_request; }
    const ScrapeOutcome& outcome() const { return m_outcome; }

Q_SIGNALS:
    /// The scrape is over: outcome() holds the page or the error. Always queued after the
    /// exchange ended, so a receiver may start the next scrape at once.
    void finished();

private:
    void onExchangeFinished();
    QString tooLarge() const;

    HttpConnection* m_connection;
    ScrapeRequest m_request;
    ScrapeOutcome m_outcome;
    QByteArray m_body;
    bool m_busy = false;
    bool m_tooLarge = false;
};

} // namespace qs
