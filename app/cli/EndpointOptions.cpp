// SPDX-License-Identifier: MIT
#include "app/cli/EndpointOptions.h"

namespace qs::app {

void addEndpointOptions(QCommandLineParser& p)
{
    p.addOption({QStringLiteral("model"),
        QStringLiteral("Model id to request (default: the first in /v1/models)."), QStringLiteral("id")});
    p.addOption({QStringLiteral("api-key-env"),
        QStringLiteral("Name of the environment variable that holds the API key (the key itself is never "
                       "accepted on the command line)."),
        QStringLiteral("NAME")});
    p.addOption({QStringLiteral("runtime"),
        QStringLiteral("llama-server, vllm, sglang or other (default: detect)."), QStringLiteral("name")});
    p.addOption({QStringLiteral("quant"), QStringLiteral("Quantization label, e.g. NVFP4 or Q4_K_M."),
        QStringLiteral("label")});
    p.addOption(
        {QStringLiteral("label"), QStringLiteral("Name to show for this endpoint."), QStringLiteral("text")});
    p.addOption({QStringLiteral("extra"),
        QStringLiteral("JSON object merged into every request body, e.g. "
                       "'{\"chat_template_kwargs\":{\"enable_thinking\":false}}'."),
        QStringLiteral("json")});
    p.addOption({QStringLiteral("metrics"),
        QStringLiteral("An extra Prometheus page of this endpoint, e.g. a DCGM exporter "
                       "(http://HOST:9400/metrics) or a node exporter (HOST:9100); repeatable."),
        QStringLiteral("URL")});
    p.addOption({QStringLiteral("connect-timeout-ms"), QStringLiteral("Connection timeout (default 5000)."),
        QStringLiteral("ms")});
    p.addOption({QStringLiteral("first-byte-timeout-ms"),
        QStringLiteral("Time allowed from request to first response byte (default 300000)."),
        QStringLiteral("ms")});
    p.addOption({QStringLiteral("idle-timeout-ms"),
        QStringLiteral("Longest silence allowed inside a stream (default 60000)."), QStringLiteral("ms")});
}

namespace {
bool readMs(const QCommandLineParser& p, const QString& name, int& target, QString& error)
{
    if (!p.isSet(name))
        return true;
    bool ok = false;
    const int v = p.value(name).toInt(&ok);
    if (!ok || v < 0) {
        error = QStringLiteral("--%1 must be a whole number of milliseconds (0 = no limit), not \"%2\"")
                    .arg(name, p.value(name));
        return false;
    }
    target = v;
    return true;
}
} // namespace

std::optional<Endpoint> endpointFromOptions(const QCommandLineParser& p, const QString& url, QString& error)
{
    Endpoint e;
    e.baseUrl = normalizeBaseUrl(url, &error);
    if (e.baseUrl.isEmpty())
        return std::nullopt;
    e.label = p.value(QStringLiteral("label"));
    e.model = p.value(QStringLiteral("model"));
    e.apiKeyEnv = p.value(QStringLiteral("api-key-env"));
    if (e.apiKeyEnv.startsWith(QStringLiteral("sk-")) || e.apiKeyEnv.contains(u' ')) {
        error = QStringLiteral("--api-key-env takes the NAME of an environment variable, not the key itself: "
                               "export MY_KEY=... and pass --api-key-env MY_KEY");
        return std::nullopt;
    }
    e.quantization = p.value(QStringLiteral("quant"));
    if (p.isSet(QStringLiteral("runtime"))) {
        const auto r = runtimeFromName(p.value(QStringLiteral("runtime")));
        if (!r) {
            error = QStringLiteral("--runtime must be llama-server, vllm, sglang or other, not \"%1\"")
                        .arg(p.value(QStringLiteral("runtime")));
            return std::nullopt;
        }
        e.runtime = *r;
    }
    if (p.isSet(QStringLiteral("extra"))) {
        const std::string text = p.value(QStringLiteral("extra")).toStdString();
        auto j = nlohmann::json::parse(text, nullptr, false);
        if (j.is_discarded() || !j.is_object()) {
            error = QStringLiteral("--extra must be a JSON object, e.g. "
                                   "'{\"chat_template_kwargs\":{\"enable_thinking\":false}}'");
            return std::nullopt;
        }
        e.extraBody = std::move(j);
    }
    for (const QString& text : p.values(QStringLiteral("metrics"))) {
        const QUrl metricsUrl = normalizeMetricsUrl(text, &error);
        if (metricsUrl.isEmpty()) {
            error = QStringLiteral("--metrics: ") + error;
            return std::nullopt;
        }
        e.metricsUrls << metricsUrl.toString();
    }
    if (!readMs(p, QStringLiteral("connect-timeout-ms"), e.timeouts.connectMs, error)
        || !readMs(p, QStringLiteral("first-byte-timeout-ms"), e.timeouts.firstByteMs, error)
        || !readMs(p, QStringLiteral("idle-timeout-ms"), e.timeouts.idleMs, error))
        return std::nullopt;
    return e;
}

} // namespace qs::app
