// SPDX-License-Identifier: MIT
#include "model/wire/EndpointProbe.h"

#include "model/core/Clock.h"
#include "model/core/MetricCatalog.h"
#include "model/core/Percentile.h"
#include "model/wire/ProbeReplies.h"
#include "model/wire/StreamChunk.h"

#include <QEventLoop>

namespace qs {

EndpointProbe::EndpointProbe(QObject* parent)
    : QObject(parent)
    , m_connection(new HttpConnection(this))
{
    connect(m_connection, &HttpConnection::finished, this, &EndpointProbe::onExchangeFinished);
    m_connection->onBody = [this](QByteArrayView body, qint64) {
        // Properties can be large (chat templates), not unbounded: an endless body ends the read.
        if (m_body.size() + body.size() > 8 * 1024 * 1024) {
            m_connection->abort(makeFailure(FailureKind::NotOpenAiCompatible,
                QStringLiteral("The answer to a probe request is larger than 8 MiB"),
                QStringLiteral("Property endpoints answer a few KiB: check that the URL points at an "
                               "inference server.")));
            return;
        }
        m_body.append(body);
    };
}

void EndpointProbe::start(const Endpoint& endpoint, int rttSamples)
{
    m_result = ProbeResult();
    m_result.endpoint = endpoint;
    m_result.runtime = endpoint.runtime;
    m_rttSamples = qMax(1, rttSamples);
    m_queue.clear();
    m_metricsPending.clear();
    m_metricsNext = 0;
    m_running = true;
    m_cancelled = false;

    get(QStringLiteral("/health"), [this](const Reply& r) {
        m_result.healthPath = QStringLiteral("/health");
        m_result.healthStatus = r.status;
        if (r.status == 200) {
            m_result.healthy = true;
            probe::readHealthOk(r.body, m_result);
        } else if (r.status == 503) {
            const auto e = parseServerError(r.body);
            m_result.healthDetail = e ? e->message : QStringLiteral("service unavailable");
            m_result.warnings << QStringLiteral("/health answered 503 (%1): the server is not ready")
                                     .arg(m_result.healthDetail);
        } else if (r.status == 404) {
            m_result.healthPath.clear();
            m_result.healthDetail = QStringLiteral("no /health endpoint");
        } else {
            m_result.healthDetail = QStringLiteral("HTTP %1").arg(r.status);
        }
    });
    get(QStringLiteral("/v1/models"), [this](const Reply& r) {
        FailureContext ctx;
        ctx.runtime = m_result.runtime;
        ctx.apiKeyEnv = m_result.endpoint.apiKeyEnv;
        ctx.apiKeySent = !m_result.endpoint.apiKey().isEmpty();
        ctx.path = QStringLiteral("/v1/models");
        ctx.hostPort = QStringLiteral("%1:%2")
                           .arg(m_result.endpoint.baseUrl.host())
                           .arg(m_result.endpoint.baseUrl.port(80));
        if (r.status / 100 == 2 && r.failure.isFailure()) { // headers, then a body that never came whole
            m_result.failure = r.failure;
            m_queue.clear();
            return;
        }
        if (r.status / 100 == 3) {
            m_result.failure = classifyRedirect(r.status, r.location, ctx);
            m_queue.clear();
            return;
        }
        if (r.status / 100 != 2) {
            m_result.failure = classifyHttpError(r.status, r.body, r.contentType, ctx);
            if (r.status == 404)
                m_result.failure = makeFailure(FailureKind::NotOpenAiCompatible,
                    QStringLiteral("GET /v1/models answered 404: this is not an "
                                   "OpenAI-compatible server (or not at this path)"),
                    QStringLiteral("Use the scheme://host:port of llama-server, vLLM or "
                                   "SGLang, without /v1."),
                    404);
            m_queue.clear();
            return;
        }
        if (!probe::readModelList(r.body, m_result)) {
            m_result.failure = makeFailure(FailureKind::NotOpenAiCompatible,
                QStringLiteral("GET /v1/models did not return an OpenAI model list"),
                QStringLiteral("Check that the URL points at llama-server, vLLM or "
                               "SGLang."),
                r.status);
            m_result.failure.serverMessage = QString::fromUtf8(r.body.left(200));
            m_queue.clear();
            return;
        }
        planAfterModels();
    });
    next();
}

void EndpointProbe::planAfterModels()
{
    const auto llamaProps = [this](const Reply& r) {
        if (r.status == 200)
            probe::readLlamaProps(r.body, m_result);
    };
    const auto vllmVersion = [this](const Reply& r) {
        if (r.status == 200)
            probe::readVllmVersion(r.body, m_result);
    };
    const auto sglangInfo = [this](const Reply& r) {
        if (r.status == 200)
            probe::readSglangInfo(r.body, m_result);
    };

    switch (m_result.runtime) {
    case Runtime::LlamaServer:
        get(QStringLiteral("/props"), llamaProps);
        break;
    case Runtime::Vllm:
        get(QStringLiteral("/version"), vllmVersion);
        break;
    case Runtime::Sglang:
        get(QStringLiteral("/server_info"), [this, sglangInfo](const Reply& r) {
            if (r.status == 404) // builds before the rename
                get(QStringLiteral("/get_server_info"), sglangInfo);
            else
                sglangInfo(r);
        });
        break;
    case Runtime::Unknown:
    case Runtime::Other:
        get(QStringLiteral("/props"), llamaProps);
        get(QStringLiteral("/version"), vllmVersion);
        get(QStringLiteral("/server_info"), [this, sglangInfo](const Reply& r) {
            if (m_result.runtime == Runtime::Unknown)
                sglangInfo(r);
        });
        break;
    }

    // RTT last, on the now-warm connection. /v1/models is pure metadata on every server; /health
    // is not neutral: SGLang's runs a one-token generation and polls in 1 s sleeps.
    for (int i = 0; i < m_rttSamples; ++i)
        get(QStringLiteral("/v1/models"), [this](const Reply& r) {
            if (!r.failure.isFailure() && r.status / 100 == 2)
                m_result.rttSamplesMs.push_back(r.roundTripMs);
        });
}

void EndpointProbe::get(const QString& path, Handler handler)
{
    m_queue.emplace_back(path, std::move(handler));
}

void EndpointProbe::next()
{
    if (!m_running)
        return;
    if (m_queue.empty()) {
        // The metrics pages last, once the runtime is known (its advice names the runtime's flag).
        if (m_result.usable() && !m_cancelled && m_metricsPending.empty())
            probeMetrics();
        else
            done();
        return;
    }
    auto [path, handler] = std::move(m_queue.front());
    m_queue.pop_front();
    m_current = std::move(handler);
    m_body.clear();
    HttpConnection::Request request;
    request.url = m_result.endpoint.url(path);
    request.timeouts = m_result.endpoint.timeouts;
    // Property endpoints answer at once; a server that takes longer than this is not healthy.
    request.timeouts.firstByteMs
        = qMin(request.timeouts.firstByteMs > 0 ? request.timeouts.firstByteMs : 10000, 10000);
    // …and whole within 30 s: a trickled or endless answer must not hold the probe (and the run).
    request.timeouts.totalMs = qMin(request.timeouts.totalMs > 0 ? request.timeouts.totalMs : 30000, 30000);
    request.headers = {{"Accept", "application/json"}};
    const QString key = m_result.endpoint.apiKey();
    if (!key.isEmpty())
        request.headers.append({"Authorization", "Bearer " + key.toUtf8()});
    m_connection->start(std::move(request));
}

void EndpointProbe::onExchangeFinished()
{
    Reply reply;
    reply.failure = m_connection->failure();
    const HttpResponseParser& http = m_connection->response();
    if (http.headersComplete()) {
        reply.status = http.statusCode();
        reply.contentType = http.header("content-type");
        reply.server = http.header("server");
        reply.location = http.header("location");
        m_result.reachable = true;
        if (m_result.serverHeader.isEmpty())
            m_result.serverHeader = QString::fromLatin1(reply.server);
    }
    reply.body = m_body;
    const RequestTiming& t = m_connection->timing();
    if (t.t0Ns && t.endNs)
        reply.roundTripMs = msBetween(t.t0Ns, t.endNs);
    if (reply.failure.isFailure() && !http.headersComplete()) {
        // Nothing HTTP came back: the endpoint is unusable, and the reason is the network.
        if (m_result.reachable) {
            m_result.warnings << reply.failure.summary;
        } else {
            m_result.failure = reply.failure;
            m_queue.clear();
        }
    } else if (m_current) {
        Handler handler = std::move(m_current);
        handler(reply);
    }
    next();
}

void EndpointProbe::probeMetrics()
{
    MetricsFinding own;
    own.url = m_result.endpoint.url(QStringLiteral("/metrics")).toString();
    own.kind = TelemetrySource::Kind::Runtime;
    m_metricsPending.push_back(own);
    for (const QString& url : m_result.endpoint.metricsUrls) {
        MetricsFinding extra;
        extra.url = url;
        extra.kind = TelemetrySource::Kind::Exporter;
        m_metricsPending.push_back(extra);
    }
    if (!m_scrape) {
        m_scrape = new MetricsScrape(this);
        connect(m_scrape, &MetricsScrape::finished, this, &EndpointProbe::onMetricsScraped);
    }
    m_metricsNext = 0;
    ScrapeRequest request;
    request.url = QUrl(own.url);
    request.kind = own.kind;
    request.runtime = m_result.runtime;
    request.apiKey = m_result.endpoint.apiKey();
    request.timeoutMs = 5000;
    m_scrape->start(request);
}

void EndpointProbe::onMetricsScraped()
{
    MetricsFinding& f = m_metricsPending[m_metricsNext];
    const ScrapeOutcome& o = m_scrape->outcome();
    f.httpStatus = o.httpStatus;
    if (o.ok()) {
        const auto families = familiesOf(*o.page);
        f.answered = true;
        f.format = promFormatId(o.page->format);
        f.familyCount = int(families.size());
        f.knownFamilies = knownFamilies(families);
        f.flavour = sourceFlavour(families);
        if (f.knownFamilies.isEmpty())
            m_result.warnings << QStringLiteral(
                "%1 answers (%2 families), but none Quantscope reads%3; it is scraped and kept by name")
                                     .arg(f.url)
                                     .arg(f.familyCount)
                                     .arg(f.kind == TelemetrySource::Kind::Runtime
                                                 && m_result.runtime == Runtime::Vllm
                                             ? QStringLiteral(" (vLLM started with --disable-log-stats?)")
                                             : QString());
    } else {
        f.error = o.error;
        if (f.kind == TelemetrySource::Kind::Runtime) {
            f.enableHint = metricsEnableAdvice(m_result.runtime);
            m_result.warnings << QStringLiteral("no server metrics (the run goes on without them): ")
                    + o.error;
        } else {
            m_result.warnings << o.error;
        }
    }
    if (++m_metricsNext < m_metricsPending.size() && !m_cancelled) {
        const MetricsFinding& next = m_metricsPending[m_metricsNext];
        ScrapeRequest request;
        request.url = QUrl(next.url);
        request.kind = next.kind;
        request.timeoutMs = 5000;
        m_scrape->start(request);
        return;
    }
    m_result.metrics = m_metricsPending.front();
    m_result.extraMetrics.assign(m_metricsPending.begin() + 1, m_metricsPending.end());
    done();
}

void EndpointProbe::cancel()
{
    if (!m_running)
        return;
    m_cancelled = true;
    if (m_scrape && m_scrape->busy())
        m_scrape->cancel();
    m_queue.clear();
    m_connection->abort(makeFailure(FailureKind::Cancelled, QStringLiteral("Probe cancelled"), QString()));
}

void EndpointProbe::done()
{
    m_running = false;
    ProbeResult& r = m_result;
    r.rttMedianMs = percentile(r.rttSamplesMs, 50);
    const QString configured = r.endpoint.model;
    if (!r.models.isEmpty()) {
        if (configured.isEmpty()) {
            r.model = r.models.first();
            r.endpoint.model = r.model;
            if (r.models.size() > 1)
                r.warnings << QStringLiteral(
                    "the server lists %1 models; using the first, \"%2\" (set the endpoint's "
                    "model to choose)")
                                  .arg(r.models.size())
                                  .arg(r.model);
        } else {
            r.model = configured;
            r.modelListed = r.models.contains(configured);
            if (!r.modelListed) {
                if (r.runtime == Runtime::Vllm && !r.failure.isFailure()) {
                    r.failure = makeFailure(FailureKind::ModelNotFound,
                        QStringLiteral("vLLM does not serve a model named \"%1\"").arg(configured),
                        QStringLiteral("vLLM answers 404 for unknown models. Use one of: %1, or "
                                       "leave the model empty.")
                            .arg(r.models.join(QStringLiteral(", "))));
                } else {
                    r.warnings << QStringLiteral(
                        "\"%1\" is not in /v1/models (%2); %3 ignores the name and answers "
                        "with the model it serves")
                                      .arg(configured, r.models.join(QStringLiteral(", ")),
                                          runtimeName(r.runtime));
                }
            }
        }
    }
    if (r.endpoint.runtime == Runtime::Unknown)
        r.endpoint.runtime = r.runtime;
    if (r.reachable && r.runtime == Runtime::Unknown)
        r.runtime = Runtime::Other;
    Q_EMIT finished(r);
}

nlohmann::json toJson(const MetricsFinding& f)
{
    nlohmann::json known = nlohmann::json::array();
    for (const QString& k : f.knownFamilies)
        known.push_back(k.toStdString());
    const auto text = [](const QString& s) {
        return s.isEmpty() ? nlohmann::json(nullptr) : nlohmann::json(s.toStdString());
    };
    return {{"url", f.url.toStdString()}, {"kind", telemetrySourceKindId(f.kind).toStdString()},
        {"answered", f.answered}, {"http_status", f.httpStatus}, {"format", text(f.format)},
        {"family_count", f.familyCount}, {"known_families", known}, {"flavour", text(f.flavour)},
        {"error", text(f.error)}, {"enable_hint", text(f.enableHint)}};
}

nlohmann::json toJson(const ProbeResult& r)
{
    nlohmann::json models = nlohmann::json::array();
    for (const QString& m : r.models)
        models.push_back(m.toStdString());
    nlohmann::json warnings = nlohmann::json::array();
    for (const QString& w : r.warnings)
        warnings.push_back(w.toStdString());
    const nlohmann::json failure = toJson(r.failure);
    // The runtime's own page, with the extra URLs under "extra"; null when not probed.
    nlohmann::json metrics = nullptr;
    if (!r.metrics.url.isEmpty()) {
        metrics = toJson(r.metrics);
        metrics["extra"] = nlohmann::json::array();
        for (const MetricsFinding& f : r.extraMetrics)
            metrics["extra"].push_back(toJson(f));
    }
    return {{"base_url", r.endpoint.baseUrl.toString().toStdString()}, {"usable", r.usable()},
        {"reachable", r.reachable}, {"failure", failure},
        {"health",
            {{"path", r.healthPath.toStdString()}, {"status", r.healthStatus}, {"healthy", r.healthy},
                {"detail", r.healthDetail.toStdString()}}},
        {"models", models}, {"model", r.model.toStdString()}, {"model_listed", r.modelListed},
        {"runtime", runtimeName(r.runtime).toStdString()},
        {"runtime_evidence", r.runtimeEvidence.toStdString()},
        {"server_version", r.serverVersion.toStdString()}, {"server_header", r.serverHeader.toStdString()},
        {"context_size", r.contextSize ? nlohmann::json(*r.contextSize) : nlohmann::json(nullptr)},
        {"context_source", r.contextSource.toStdString()},
        {"total_slots", r.totalSlots ? nlohmann::json(*r.totalSlots) : nlohmann::json(nullptr)},
        {"model_path", r.modelPath.toStdString()}, {"tool_call_parser", r.toolCallParser.toStdString()},
        {"reasoning_parser", r.reasoningParser.toStdString()}, {"rtt_samples_ms", r.rttSamplesMs},
        {"rtt_median_ms", r.rttMedianMs ? nlohmann::json(*r.rttMedianMs) : nlohmann::json(nullptr)},
        {"metrics", metrics}, {"warnings", warnings}};
}

ProbeResult probeBlocking(const Endpoint& endpoint, int rttSamples)
{
    EndpointProbe probe;
    QEventLoop loop;
    ProbeResult result;
    bool done = false;
    QObject::connect(&probe, &EndpointProbe::finished, &loop, [&](const ProbeResult& r) {
        result = r;
        done = true;
        loop.quit();
    });
    probe.start(endpoint, rttSamples);
    if (!done)
        loop.exec();
    return result;
}

} // namespace qs
