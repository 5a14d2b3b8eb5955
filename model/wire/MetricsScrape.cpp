// SPDX-License-Identifier: MIT
#include "model/wire/MetricsScrape.h"

#include "model/core/Clock.h"
#include "model/wire/HttpConnection.h"

namespace qs {

namespace {
QString what(const ScrapeRequest& request)
{
    return request.url.toString(QUrl::RemoveUserInfo);
}

/// The first non-blank byte of a body, to spot HTML or JSON served as text/plain.
char firstByte(QByteArrayView body)
{
    for (char c : body)
        if (c != ' ' && c != '\n' && c != '\r' && c != '\t')
            return c;
    return 0;
}

QString notAnswering(const ScrapeRequest& r, int status, QByteArrayView body)
{
    const QString url = what(r);
    // llama-server's own words, whatever the endpoint was configured as.
    if (status == 501 || QByteArrayView(body).indexOf("--metrics") >= 0)
        return QStringLiteral("%1: HTTP %2, metrics are off: %3")
            .arg(url)
            .arg(status)
            .arg(metricsEnableAdvice(Runtime::LlamaServer));
    if (status == 401 || status == 403)
        return r.kind == TelemetrySource::Kind::Runtime
            ? QStringLiteral("%1: HTTP %2: the server wants an API key for /metrics; name the variable "
                             "holding it with the endpoint's key-env")
                  .arg(url)
                  .arg(status)
            : QStringLiteral("%1: HTTP %2: the exporter refuses anonymous scrapes; Quantscope sends no "
                             "credentials to exporters (expose it without auth on the LAN)")
                  .arg(url)
                  .arg(status);
    if (status == 404)
        return r.kind == TelemetrySource::Kind::Runtime
            ? QStringLiteral("%1: HTTP 404, no metrics here: %2").arg(url, metricsEnableAdvice(r.runtime))
            : QStringLiteral("%1: HTTP 404, nothing at this path: check the URL (a DCGM exporter "
                             "serves :9400/metrics, a node exporter :9100/metrics)")
                  .arg(url);
    const QString said = QString::fromUtf8(body.first(qMin<qsizetype>(body.size(), 120))).simplified();
    return QStringLiteral("%1: HTTP %2%3: the page did not answer; check the URL and the server's log")
        .arg(url)
        .arg(status)
        .arg(said.isEmpty() ? QString() : QStringLiteral(" (\"%1\")").arg(said));
}

QString networkError(const ScrapeRequest& r, const Failure& f)
{
    const QString url = what(r);
    switch (f.kind) {
    case FailureKind::ConnectionRefused:
        return QStringLiteral("%1 down: connection refused (is it running, on this port?)").arg(url);
    case FailureKind::HostNotFound:
        return QStringLiteral("%1 down: host name not found (check the URL)").arg(url);
    case FailureKind::NetworkUnreachable:
        return QStringLiteral("%1 down: network unreachable").arg(url);
    case FailureKind::ConnectTimeout:
        return QStringLiteral("%1 down: no connection within %2 ms (machine off, or a firewall dropping "
                              "packets?)")
            .arg(url)
            .arg(r.timeoutMs);
    case FailureKind::FirstByteTimeout:
    case FailureKind::IdleTimeout:
    case FailureKind::TotalTimeout:
        return QStringLiteral("%1 slow: no complete page within %2 ms, scrape aborted (an overloaded "
                              "exporter? a longer --scrape-ms allows more)")
            .arg(url)
            .arg(r.timeoutMs);
    case FailureKind::Tls:
        return QStringLiteral("%1: the TLS handshake failed (try http://)").arg(url);
    case FailureKind::Disconnected:
        return QStringLiteral("%1 down: closed the connection before the page was complete").arg(url);
    case FailureKind::NotOpenAiCompatible:
        return QStringLiteral("%1: the answer is not valid HTTP: is this a Prometheus exporter?").arg(url);
    case FailureKind::Cancelled:
        return QStringLiteral("%1: scrape cancelled").arg(url);
    default:
        return QStringLiteral("%1 down: %2").arg(url, f.summary);
    }
}
} // namespace

QByteArray metricsAcceptHeader()
{
    return QByteArrayLiteral(
        "text/plain;version=0.0.4;q=0.9,application/openmetrics-text;version=1.0.0;q=0.5,*/*;q=0.1");
}

QString metricsEnableAdvice(Runtime runtime)
{
    switch (runtime) {
    case Runtime::LlamaServer:
        return QStringLiteral("start llama-server with --metrics");
    case Runtime::Sglang:
        return QStringLiteral("start SGLang with --enable-metrics");
    case Runtime::Vllm:
        return QStringLiteral("vLLM always serves /metrics on its API port: check the port, or a proxy in "
                              "front of it (--disable-log-stats leaves the page without vllm: series)");
    default:
        return QStringLiteral("llama-server needs --metrics, SGLang --enable-metrics; vLLM always serves "
                              "it");
    }
}

ScrapeOutcome judgeMetricsResponse(
    const ScrapeRequest& request, int status, QByteArrayView contentType, QByteArrayView body)
{
    ScrapeOutcome o;
    o.httpStatus = status;
    o.contentType = contentType.toByteArray();
    o.bodyBytes = body.size();
    if (status != 200) {
        o.error = notAnswering(request, status, body);
        return o;
    }
    const QByteArray type = o.contentType.toLower();
    const char first = firstByte(body);
    const QString url = what(request);
    if (type.contains("html") || first == '<') {
        o.error = QStringLiteral("%1 answered an HTML page, not Prometheus text: is this the metrics URL "
                                 "(usually …/metrics)?")
                      .arg(url);
        return o;
    }
    if (type.contains("json") || first == '{' || first == '[') {
        o.error = QStringLiteral("%1 answered JSON, not Prometheus text: is this the metrics URL (usually "
                                 "…/metrics)?")
                      .arg(url);
        return o;
    }
    if (type.contains("protobuf")) {
        o.error = QStringLiteral("%1 answered protobuf although text was asked for: configure the exporter "
                                 "to serve the text format")
                      .arg(url);
        return o;
    }
    const PromFormat format = promFormatFromContentType(std::string_view(type.constData(), type.size()));
    PromError error;
    o.page = parsePrometheusText(std::string_view(body.data(), std::size_t(body.size())), format, &error);
    if (!o.page)
        o.error = QStringLiteral("%1: not Prometheus text (%2): is this a Prometheus exporter?")
                      .arg(url, QString::fromStdString(error.text()));
    return o;
}

MetricsScrape::MetricsScrape(QObject* parent)
    : QObject(parent)
    , m_connection(new HttpConnection(this))
{
    connect(m_connection, &HttpConnection::finished, this, &MetricsScrape::onExchangeFinished);
    m_connection->onHeaders = [this] {
        bool ok = false;
        const qint64 length = m_connection->response().header("content-length").toLongLong(&ok);
        if (ok && length > MaxMetricsPageBytes) {
            m_tooLarge = true;
            m_connection->abort(makeFailure(FailureKind::Cancelled, tooLarge(), QString()));
        }
    };
    m_connection->onBody = [this](QByteArrayView body, qint64) {
        if (m_body.size() + body.size() > MaxMetricsPageBytes) {
            m_tooLarge = true;
            m_connection->abort(makeFailure(FailureKind::Cancelled, tooLarge(), QString()));
            return;
        }
        m_body.append(body);
    };
}

QString MetricsScrape::tooLarge() const
{
    return QStringLiteral("%1: the page is larger than %2 MiB — is this a Prometheus exporter?")
        .arg(what(m_request))
        .arg(MaxMetricsPageBytes / (1024 * 1024));
}

void MetricsScrape::start(ScrapeRequest request)
{
    Q_ASSERT(!m_busy);
    m_request = std::move(request);
    m_outcome = ScrapeOutcome();
    m_body.clear();
    m_busy = true;
    m_tooLarge = false;
    HttpConnection::Request http;
    http.url = m_request.url;
    http.headers = {{"Accept", metricsAcceptHeader()}};
    if (!m_request.apiKey.isEmpty())
        http.headers.append({"Authorization", "Bearer " + m_request.apiKey.toUtf8()});
    const int limit = qMax(1, m_request.timeoutMs);
    http.timeouts = Timeouts {limit, limit, limit, limit};
    m_connection->start(std::move(http));
}

void MetricsScrape::cancel()
{
    m_connection->abort(makeFailure(FailureKind::Cancelled, QStringLiteral("cancelled"), QString()));
}

void MetricsScrape::onExchangeFinished()
{
    const HttpResponseParser& http = m_connection->response();
    const RequestTiming& t = m_connection->timing();
    const Failure& failure = m_connection->failure();
    if (failure.isFailure()) {
        m_outcome = ScrapeOutcome();
        m_outcome.httpStatus = http.headersComplete() ? http.statusCode() : 0;
        m_outcome.error = m_tooLarge ? tooLarge() : networkError(m_request, failure);
    } else {
        m_outcome = judgeMetricsResponse(m_request, http.statusCode(), http.header("content-type"), m_body);
    }
    if (http.headersComplete()) {
        bool ok = false;
        const double start = http.header("process-start-time-unix").trimmed().toDouble(&ok);
        if (ok)
            m_outcome.processStartUnix = start;
    }
    m_outcome.writtenNs = t.t0Ns ? t.t0Ns : t.startNs;
    m_outcome.durationMs = msBetween(m_outcome.writtenNs, t.endNs ? t.endNs : monotonicNs());
    m_outcome.bodyBytes = m_body.size();
    m_body.clear();
    if (m_body.capacity() > 1024 * 1024)
        m_body.squeeze(); // a large page's buffer is not kept between scrapes
    // Queued: the receiver may start the next scrape, which must not happen inside the
    // connection's own readyRead.
    QMetaObject::invokeMethod(
        this,
        [this] {
            m_busy = false;
            Q_EMIT finished();
        },
        Qt::QueuedConnection);
}

} // namespace qs
