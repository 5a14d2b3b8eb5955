// SPDX-License-Identifier: MIT
#pragma once

#include "model/core/Endpoint.h"
#include "model/core/Failure.h"
#include "model/wire/HttpConnection.h"
#include "model/wire/MetricsScrape.h"

#include <QObject>
#include <QStringList>
#include <deque>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

namespace qs {

/// What the probe found at one Prometheus URL: the runtime's own `<baseUrl>/metrics` or an
/// extra metrics URL of the endpoint.
struct MetricsFinding {
    QString url; ///< empty: not probed (the endpoint itself did not answer)
    TelemetrySource::Kind kind = TelemetrySource::Kind::Runtime;
    bool answered = false; ///< a Prometheus page came back and parsed
    int httpStatus = 0; ///< 0 when no HTTP answer arrived
    QString format; ///< "prometheus-0.0.4" or "openmetrics-1.0.0"
    int familyCount = 0; ///< families on the page, known or not
    QStringList knownFamilies; ///< the catalogue's families found (MetricCatalog knownFamilies)
    QString flavour; ///< "llama-server", "vllm", "sglang", "dcgm", "node" or ""
    QString error; ///< why it is not usable (names the URL and what to do)
    /// Runtime kind, when the page does not answer: the flag that turns it on, e.g.
    /// "start llama-server with --metrics".
    QString enableHint;
};
nlohmann::json toJson(const MetricsFinding& finding);

/// What a probe learned about an endpoint. Every detected fact keeps its evidence, so a user
/// can see why Quantscope believes a server is vLLM or has a 32k context.
struct ProbeResult {
    Endpoint endpoint; ///< the probed endpoint, with `model` and `runtime` filled in when discovered

    bool reachable = false; ///< something answered HTTP
    Failure failure; ///< the first failure that makes the endpoint unusable; None if usable

    QString healthPath; ///< e.g. /health
    int healthStatus = 0; ///< 0 when no health endpoint answered
    bool healthy = false;
    QString healthDetail; ///< e.g. "Loading model"

    QStringList models; ///< ids from /v1/models
    QString model; ///< the model requests will use
    bool modelListed = true; ///< false when the configured model is not in /v1/models

    Runtime runtime = Runtime::Unknown;
    QString runtimeEvidence; ///< e.g. "/v1/models owned_by \"vllm\"; GET /version"
    QString serverVersion; ///< llama-server build_info, vLLM/SGLang version
    QString serverHeader;

    std::optional<qint64> contextSize; ///< tokens per request (llama-server: per slot)
    QString contextSource; ///< where contextSize came from
    std::optional<int> totalSlots; ///< llama-server parallel slots
    QString modelPath;
    QString chatTemplate; ///< llama-server /props chat_template
    QString toolCallParser; ///< SGLang /server_info tool_call_parser (empty: none or unknown)
    QString reasoningParser; ///< SGLang /server_info reasoning_parser
    nlohmann::json properties = nlohmann::json::object(); ///< raw /props, /version or /server_info

    /// The runtime's own `/metrics` (scraped during runs when it answered).
    MetricsFinding metrics;
    std::vector<MetricsFinding> extraMetrics; ///< one per Endpoint::metricsUrls, in order

    std::vector<double> rttSamplesMs; ///< round trips of small GETs on a warm connection
    std::optional<double> rttMedianMs;
    QStringList warnings;

    bool usable() const { return reachable && !failure.isFailure(); }
};

nlohmann::json toJson(const ProbeResult& result);

/// Probes an endpoint asynchronously: health, /v1/models, the runtime's own properties
/// endpoint (llama-server /props, vLLM /version, SGLang /server_info), the median RTT of
/// several small requests, then `<baseUrl>/metrics` and each extra metrics URL. Lives in the thread that
/// created it; never the GUI thread's job to wait.
class EndpointProbe : public QObject {
    Q_OBJECT
public:
    explicit EndpointProbe(QObject* parent = nullptr);
    void start(const Endpoint& endpoint, int rttSamples = 7);
    void cancel();

Q_SIGNALS:
    void finished(const qs::ProbeResult& result);

private:
    struct Reply {
        int status = 0;
        QByteArray body;
        QByteArray contentType;
        QByteArray server;
        QByteArray location; ///< of a 3xx, quoted in the failure
        Failure failure;
        double roundTripMs = 0;
    };
    using Handler = std::function<void(const Reply&)>;
    void get(const QString& path, Handler handler);
    void next();
    void onExchangeFinished();
    void planAfterModels();
    void probeMetrics();
    void onMetricsScraped();
    void done();

    HttpConnection* m_connection;
    ProbeResult m_result;
    std::deque<std::pair<QString, Handler>> m_queue;
    Handler m_current;
    QByteArray m_body;
    MetricsScrape* m_scrape = nullptr; ///< created when the metrics pages are probed
    std::vector<MetricsFinding> m_metricsPending; ///< runtime page first, then the extras
    std::size_t m_metricsNext = 0;
    int m_rttSamples = 7;
    bool m_running = false;
    bool m_cancelled = false;
};

/// Runs a probe to completion on the calling thread (local event loop). CLI and tests only.
ProbeResult probeBlocking(const Endpoint& endpoint, int rttSamples = 7);

} // namespace qs
