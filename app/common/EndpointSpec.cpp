// SPDX-License-Identifier: MIT
#include "app/common/EndpointSpec.h"

#include "tests/support/SimulatedProfiles.h"

#include <QFile>

namespace qs::app {

namespace {
const QStringList SpecKeys = {QStringLiteral("name"), QStringLiteral("url"), QStringLiteral("model"),
    QStringLiteral("quant"), QStringLiteral("runtime"), QStringLiteral("key-env"), QStringLiteral("metrics"),
    QStringLiteral("meta.KEY"), QStringLiteral("body")};

/// Appends one metrics URL as typed, normalised; false and `error` when it is not a URL.
bool addMetricsUrl(EndpointSpec& spec, const QString& text, QString& error)
{
    QString why;
    const QUrl url = normalizeMetricsUrl(text.trimmed(), &why);
    if (url.isEmpty()) {
        error = QStringLiteral("metrics: %1").arg(why);
        return false;
    }
    if (!spec.metrics.contains(url.toString()))
        spec.metrics << url.toString();
    return true;
}

bool setField(EndpointSpec& spec, const QString& key, const QString& value, QString& error)
{
    if (key == u"name")
        spec.name = value;
    else if (key == u"url")
        spec.url = value;
    else if (key == u"model")
        spec.model = value;
    else if (key == u"quant")
        spec.quant = value;
    else if (key == u"runtime")
        spec.runtime = value;
    else if (key == u"key-env" || key == u"key_env")
        spec.keyEnv = value;
    else if (key == u"metrics") {
        for (const QString& url : value.split(u'|', Qt::SkipEmptyParts))
            if (!addMetricsUrl(spec, url, error))
                return false;
    } else if (key.startsWith(u"meta.")) {
        const QString name = key.mid(5).trimmed();
        if (name.isEmpty()) {
            error = QStringLiteral("meta. needs a name, e.g. meta.calibration=annie-500");
            return false;
        }
        spec.meta[name] = value;
    } else if (key == u"body") {
        auto j = nlohmann::json::parse(value.toStdString(), nullptr, false);
        if (j.is_discarded() || !j.is_object()) {
            error = QStringLiteral("body= must be a JSON object, e.g. body={\"top_k\":20}");
            return false;
        }
        spec.body = std::move(j);
    } else {
        error = QStringLiteral("unknown field \"%1\" (fields: %2)")
                    .arg(key, SpecKeys.join(QStringLiteral(", ")));
        return false;
    }
    return true;
}
} // namespace

std::optional<EndpointSpec> parseEndpointSpec(const QString& text, QString& error)
{
    EndpointSpec spec;
    const QString t = text.trimmed();
    if (!t.contains(u'=')) { // a bare URL
        spec.url = t;
        return spec;
    }
    qsizetype pos = 0;
    while (pos < t.size()) {
        const qsizetype eq = t.indexOf(u'=', pos);
        if (eq < 0) {
            error = QStringLiteral("\"%1\" has no value (expected key=value)").arg(t.mid(pos));
            return std::nullopt;
        }
        // Field names are case-blind; a meta. name keeps the case it was given.
        QString key = t.mid(pos, eq - pos).trimmed();
        key = key.startsWith(u"meta.", Qt::CaseInsensitive) ? QStringLiteral("meta.") + key.mid(5)
                                                            : key.toLower();
        QString value;
        if (key == u"body") { // takes the rest: JSON may contain commas
            value = t.mid(eq + 1);
            pos = t.size();
        } else {
            const qsizetype comma = t.indexOf(u',', eq + 1);
            value = t.mid(eq + 1, comma < 0 ? -1 : comma - eq - 1).trimmed();
            pos = comma < 0 ? t.size() : comma + 1;
        }
        if (!setField(spec, key, value, error))
            return std::nullopt;
    }
    if (spec.url.isEmpty()) {
        error = QStringLiteral("no url= given");
        return std::nullopt;
    }
    return spec;
}

std::optional<std::vector<EndpointSpec>> readEndpointsFile(const QString& path, QString& error)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) {
        error = QStringLiteral("%1: cannot read: %2").arg(path, f.errorString());
        return std::nullopt;
    }
    if (f.size() > 4 * 1024 * 1024) {
        error = QStringLiteral("%1: larger than 4 MiB; an endpoints file is a short JSON list").arg(path);
        return std::nullopt;
    }
    const QByteArray bytes = f.readAll();
    const auto j = nlohmann::json::parse(bytes.constData(), bytes.constData() + bytes.size(), nullptr, false);
    if (j.is_discarded() || !j.is_array()) {
        error = QStringLiteral("%1: expected a JSON list of endpoints, e.g. [{\"name\": \"A\", \"url\": "
                               "\"http://10.0.0.5:8003\"}]")
                    .arg(path);
        return std::nullopt;
    }
    std::vector<EndpointSpec> specs;
    for (std::size_t i = 0; i < j.size(); ++i) {
        const auto& o = j[i];
        const QString where = QStringLiteral("%1: [%2]").arg(path).arg(i);
        if (!o.is_object()) {
            error = where + QStringLiteral(": must be an object");
            return std::nullopt;
        }
        EndpointSpec spec;
        for (const auto& [key, value] : o.items()) {
            QString fieldError;
            const QString k = QString::fromStdString(key);
            QString v;
            if (k == u"body") {
                if (!value.is_object()) {
                    error = where + QStringLiteral(".body: must be a JSON object");
                    return std::nullopt;
                }
                spec.body = value;
                continue;
            }
            if (k == u"meta" && value.is_object()) {
                for (const auto& [name, fact] : value.items()) {
                    const QString metaKey = QStringLiteral("meta.") + QString::fromStdString(name);
                    if (!fact.is_string()) {
                        error = where + u'.' + metaKey + QStringLiteral(": must be a string");
                        return std::nullopt;
                    }
                    if (!setField(
                            spec, metaKey, QString::fromStdString(fact.get<std::string>()), fieldError)) {
                        error = where + QStringLiteral(": ") + fieldError;
                        return std::nullopt;
                    }
                }
                continue;
            }
            if (k == u"metrics" && value.is_array()) {
                for (const auto& url : value) {
                    if (!url.is_string()) {
                        error = where
                            + QStringLiteral(".metrics: must be a list of URLs, e.g. "
                                             "[\"http://10.0.0.5:9400/metrics\"]");
                        return std::nullopt;
                    }
                    if (!addMetricsUrl(spec, QString::fromStdString(url.get<std::string>()), fieldError)) {
                        error = where + QStringLiteral(": ") + fieldError;
                        return std::nullopt;
                    }
                }
                continue;
            }
            if (!value.is_string()) {
                error = where + QStringLiteral(".%1: must be a string").arg(k);
                return std::nullopt;
            }
            v = QString::fromStdString(value.get<std::string>());
            if (!setField(spec, k, v, fieldError)) {
                error = where + QStringLiteral(": ") + fieldError;
                return std::nullopt;
            }
        }
        if (spec.url.isEmpty()) {
            error = where + QStringLiteral(": no \"url\"");
            return std::nullopt;
        }
        specs.push_back(spec);
    }
    if (specs.empty()) {
        error = QStringLiteral("%1: the list is empty").arg(path);
        return std::nullopt;
    }
    return specs;
}

EndpointResolver::EndpointResolver() = default;
EndpointResolver::~EndpointResolver() = default;

std::optional<RunEndpoint> EndpointResolver::resolve(const EndpointSpec& spec, quint64 seed, QString& error)
{
    RunEndpoint r;
    r.spec = spec.url;
    Endpoint& e = r.endpoint;
    QStringList simulatedMetrics;
    if (spec.url.startsWith(QStringLiteral("sim:"))) {
        const QString profile = spec.url.mid(4);
        auto config = emu::simulatedProfile(profile, seed);
        if (!config) {
            error
                = QStringLiteral("unknown simulated endpoint \"%1\" (available: %2)")
                      .arg(spec.url,
                          QStringLiteral("sim:") + emu::simulatedProfileNames().join(QStringLiteral(", sim:"))
                              + QStringLiteral("; judge: sim:") + emu::simulatedJudgeName());
            return std::nullopt;
        }
        config->servedLogLimit = 64; // the app never reads it; an hours-long run must not grow it
        auto thread = std::make_unique<emu::EmulatorThread>();
        if (!thread->start(*config)) {
            error = QStringLiteral("could not open a loopback port for %1").arg(spec.url);
            return std::nullopt;
        }
        e.baseUrl = thread->baseUrl();
        const emu::EmulatorServer* server = thread->server();
        m_simulators.push_back(std::move(thread));
        // A judge is not measured: no simulated exporters for it.
        const bool judge = profile.trimmed().compare(emu::simulatedJudgeName(), Qt::CaseInsensitive) == 0;
        for (const emu::ExporterKind kind : {emu::ExporterKind::Dcgm, emu::ExporterKind::Node}) {
            if (judge)
                break;
            auto exporter = std::make_unique<emu::ExporterThread>();
            if (!exporter->start(
                    emu::ExporterConfig::simulated(kind, profile, [server] { return server->load(); }))) {
                error = QStringLiteral("could not open a loopback port for %1's simulated exporter")
                            .arg(spec.url);
                return std::nullopt;
            }
            simulatedMetrics << exporter->metricsUrl().toString();
            m_exporters.push_back(std::move(exporter));
        }
        r.simulated = true;
        e.label = spec.name.isEmpty() ? profile : spec.name;
        // Simulated numbers must never pass for real ones.
        if (!e.label.contains(QStringLiteral("simulated"), Qt::CaseInsensitive))
            e.label += QStringLiteral(" (simulated)");
    } else {
        e.baseUrl = normalizeBaseUrl(spec.url, &error);
        if (e.baseUrl.isEmpty())
            return std::nullopt;
        e.label = spec.name;
    }
    e.model = spec.model;
    e.quantization = spec.quant;
    e.apiKeyEnv = spec.keyEnv;
    e.meta = spec.meta;
    if (!spec.runtime.isEmpty()) {
        const auto runtime = runtimeFromName(spec.runtime);
        if (!runtime) {
            error = QStringLiteral("runtime=%1: expected llama-server, vllm, sglang or other")
                        .arg(spec.runtime);
            return std::nullopt;
        }
        e.runtime = *runtime;
    }
    if (spec.body.is_object())
        e.extraBody = spec.body;
    e.metricsUrls << spec.metrics;
    for (const QString& url : simulatedMetrics)
        if (!e.metricsUrls.contains(url))
            e.metricsUrls << url;
    if (e.label.isEmpty())
        e.label = e.displayName();
    return r;
}

std::optional<std::vector<RunEndpoint>> EndpointResolver::defaultSimulated(QString& error)
{
    std::vector<RunEndpoint> endpoints;
    for (const char* spec : {"name=Q4_K_M llama-server (simulated),url=sim:q4km-like,quant=Q4_K_M",
             "name=NVFP4 vLLM (simulated),url=sim:nvfp4-like,quant=NVFP4"}) {
        const auto parsed = parseEndpointSpec(QString::fromUtf8(spec), error);
        const auto endpoint = parsed ? resolve(*parsed, 1, error) : std::nullopt;
        if (!endpoint)
            return std::nullopt;
        endpoints.push_back(*endpoint);
    }
    return endpoints;
}

} // namespace qs::app
