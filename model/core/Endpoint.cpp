// SPDX-License-Identifier: MIT
#include "model/core/Endpoint.h"

#include <QByteArray>
#include <stdexcept>

namespace qs {

QString runtimeName(Runtime runtime)
{
    switch (runtime) {
    case Runtime::LlamaServer:
        return QStringLiteral("llama-server");
    case Runtime::Vllm:
        return QStringLiteral("vllm");
    case Runtime::Sglang:
        return QStringLiteral("sglang");
    case Runtime::Other:
        return QStringLiteral("other");
    case Runtime::Unknown:
        break;
    }
    return QStringLiteral("unknown");
}

std::optional<Runtime> runtimeFromName(const QString& name)
{
    const QString n = name.trimmed().toLower();
    if (n == u"llama-server" || n == u"llama.cpp" || n == u"llamacpp" || n == u"llama")
        return Runtime::LlamaServer;
    if (n == u"vllm")
        return Runtime::Vllm;
    if (n == u"sglang")
        return Runtime::Sglang;
    if (n == u"other")
        return Runtime::Other;
    if (n == u"unknown" || n == u"auto" || n.isEmpty())
        return Runtime::Unknown;
    return std::nullopt;
}

QString Endpoint::apiKey() const
{
    if (apiKeyEnv.isEmpty())
        return {};
    return QString::fromLocal8Bit(qgetenv(apiKeyEnv.toLocal8Bit().constData())).trimmed();
}

QUrl Endpoint::url(const QString& path) const
{
    QUrl u = baseUrl;
    QString p = u.path();
    while (p.endsWith(u'/'))
        p.chop(1);
    u.setPath(p + path);
    return u;
}

QString Endpoint::displayName() const
{
    if (!label.isEmpty())
        return label;
    return QStringLiteral("%1:%2")
        .arg(baseUrl.host())
        .arg(baseUrl.port(baseUrl.scheme() == u"https" ? 443 : 80));
}

QUrl normalizeBaseUrl(const QString& text, QString* error)
{
    QString t = text.trimmed();
    if (t.isEmpty()) {
        if (error)
            *error = QStringLiteral("no URL given; expected something like http://127.0.0.1:8080");
        return {};
    }
    if (!t.contains(QStringLiteral("://")))
        t.prepend(QStringLiteral("http://"));
    QUrl url(t, QUrl::StrictMode);
    if (!url.isValid() || url.host().isEmpty() || (url.scheme() != u"http" && url.scheme() != u"https")) {
        if (error)
            *error = QStringLiteral(
                "\"%1\" is not an http:// or https:// URL with a host, e.g. http://127.0.0.1:8080")
                         .arg(text.trimmed());
        return {};
    }
    QString path = url.path();
    for (const auto& suffix : {QStringLiteral("/chat/completions"), QStringLiteral("/v1")}) {
        while (path.endsWith(u'/'))
            path.chop(1);
        if (path.endsWith(suffix))
            path.chop(suffix.size());
    }
    while (path.endsWith(u'/'))
        path.chop(1);
    url.setPath(path);
    url.setQuery(QString());
    url.setFragment(QString());
    return url;
}

QUrl normalizeMetricsUrl(const QString& text, QString* error)
{
    const QString trimmed = text.trimmed();
    QUrl url = QUrl::fromUserInput(
        trimmed.contains(QStringLiteral("://")) ? trimmed : QStringLiteral("http://") + trimmed);
    if (trimmed.isEmpty() || !url.isValid() || url.host().isEmpty()
        || (url.scheme() != QStringLiteral("http") && url.scheme() != QStringLiteral("https"))) {
        if (error)
            *error = QStringLiteral("\"%1\" is not an http(s) URL of a Prometheus page (e.g. "
                                    "http://10.0.0.5:9400/metrics)")
                         .arg(text);
        return {};
    }
    if (url.path().isEmpty() || url.path() == QStringLiteral("/"))
        url.setPath(QStringLiteral("/metrics"));
    return url;
}

nlohmann::json toJson(const Endpoint& e)
{
    nlohmann::json j;
    j["label"] = e.label.toStdString();
    j["base_url"] = e.baseUrl.toString().toStdString();
    j["model"] = e.model.toStdString();
    j["api_key_env"] = e.apiKeyEnv.toStdString();
    j["runtime"] = runtimeName(e.runtime).toStdString();
    j["quantization"] = e.quantization.toStdString();
    j["extra_body"] = e.extraBody;
    j["timeouts"] = {{"connect_ms", e.timeouts.connectMs}, {"first_byte_ms", e.timeouts.firstByteMs},
        {"idle_ms", e.timeouts.idleMs}, {"total_ms", e.timeouts.totalMs}};
    j["metrics"] = nlohmann::json::array();
    for (const QString& url : e.metricsUrls)
        j["metrics"].push_back(url.toStdString());
    if (!e.meta.empty()) { // only then: other files keep their bytes
        j["meta"] = nlohmann::json::object();
        for (const auto& [key, value] : e.meta)
            j["meta"][key.toStdString()] = value.toStdString();
    }
    return j;
}

namespace {
QString stringField(const nlohmann::json& j, const char* key)
{
    if (!j.contains(key) || j[key].is_null())
        return {};
    if (!j[key].is_string())
        throw std::invalid_argument(std::string("endpoint field \"") + key + "\" must be a string");
    return QString::fromStdString(j[key].get<std::string>());
}

int msField(const nlohmann::json& j, const char* key, int fallback)
{
    if (!j.contains(key))
        return fallback;
    if (!j[key].is_number_integer() || j[key].get<long long>() < 0 || j[key].get<long long>() > 86400000)
        throw std::invalid_argument(std::string("timeouts.") + key
            + " must be a whole number of milliseconds between 0 and 86400000");
    return j[key].get<int>();
}
} // namespace

Endpoint endpointFromJson(const nlohmann::json& j)
{
    if (!j.is_object())
        throw std::invalid_argument("an endpoint must be a JSON object");
    if (j.contains("api_key"))
        throw std::invalid_argument(
            "endpoint field \"api_key\" is not allowed: put the key in an environment "
            "variable and name it in \"api_key_env\"");
    Endpoint e;
    e.label = stringField(j, "label");
    QString error;
    e.baseUrl = normalizeBaseUrl(stringField(j, "base_url"), &error);
    if (e.baseUrl.isEmpty())
        throw std::invalid_argument("endpoint field \"base_url\": " + error.toStdString());
    e.model = stringField(j, "model");
    e.apiKeyEnv = stringField(j, "api_key_env");
    const auto runtime = runtimeFromName(stringField(j, "runtime"));
    if (!runtime)
        throw std::invalid_argument(
            "endpoint field \"runtime\" must be one of llama-server, vllm, sglang, other, "
            "unknown");
    e.runtime = *runtime;
    e.quantization = stringField(j, "quantization");
    if (j.contains("extra_body") && !j["extra_body"].is_null()) {
        if (!j["extra_body"].is_object())
            throw std::invalid_argument("endpoint field \"extra_body\" must be a JSON object");
        e.extraBody = j["extra_body"];
    }
    if (j.contains("timeouts")) {
        const auto& t = j["timeouts"];
        if (!t.is_object())
            throw std::invalid_argument("endpoint field \"timeouts\" must be a JSON object");
        e.timeouts.connectMs = msField(t, "connect_ms", e.timeouts.connectMs);
        e.timeouts.firstByteMs = msField(t, "first_byte_ms", e.timeouts.firstByteMs);
        e.timeouts.idleMs = msField(t, "idle_ms", e.timeouts.idleMs);
        e.timeouts.totalMs = msField(t, "total_ms", e.timeouts.totalMs);
    }
    if (j.contains("metrics") && !j["metrics"].is_null()) {
        if (!j["metrics"].is_array())
            throw std::invalid_argument("endpoint field \"metrics\" must be a list of URLs");
        for (const auto& u : j["metrics"]) {
            if (!u.is_string())
                throw std::invalid_argument("endpoint field \"metrics\" must be a list of URLs");
            const QUrl url = normalizeMetricsUrl(QString::fromStdString(u.get<std::string>()), &error);
            if (url.isEmpty())
                throw std::invalid_argument("endpoint field \"metrics\": " + error.toStdString());
            e.metricsUrls.append(url.toString());
        }
    }
    if (j.contains("meta") && !j["meta"].is_null()) {
        if (!j["meta"].is_object())
            throw std::invalid_argument("endpoint field \"meta\" must be an object of texts, e.g. "
                                        "{\"calibration\": \"annie-500\"}");
        for (const auto& [key, value] : j["meta"].items()) {
            if (!value.is_string())
                throw std::invalid_argument("endpoint field \"meta." + key + "\" must be a text");
            e.meta[QString::fromStdString(key)] = QString::fromStdString(value.get<std::string>());
        }
    }
    return e;
}

} // namespace qs
