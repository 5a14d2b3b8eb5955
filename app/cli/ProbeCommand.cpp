// SPDX-License-Identifier: MIT
#include "app/cli/CommandLine.h"
#include "app/cli/Commands.h"
#include "app/cli/EndpointOptions.h"
#include "app/cli/TextOutput.h"
#include "app/common/EndpointSpec.h"
#include "model/wire/EndpointProbe.h"

#include <QCommandLineParser>
#include <QTextStream>

namespace qs::app {

namespace {
/// "metrics" lines under the probe's text: what answered at each Prometheus URL, the families
/// Quantscope reads there, or why it did not answer and the flag that turns it on.
QString formatMetrics(const ProbeResult& r)
{
    QString out;
    const auto line = [&](const QString& label, const MetricsFinding& f) {
        QString text;
        if (f.answered) {
            text = QStringLiteral("%1 answers: %2, %3 families%4")
                       .arg(f.url, f.format)
                       .arg(f.familyCount)
                       .arg(f.flavour.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(f.flavour));
            if (!f.knownFamilies.isEmpty())
                text += QStringLiteral("\n%1 reads: ").arg(QString(), 22)
                    + f.knownFamilies.join(QStringLiteral(", "));
        } else {
            text = QStringLiteral("%1 does not answer — %2").arg(f.url, f.error);
        }
        out += QStringLiteral("  %1 %2\n").arg(label, -20).arg(text);
    };
    if (!r.metrics.url.isEmpty())
        line(QStringLiteral("metrics"), r.metrics);
    for (const MetricsFinding& f : r.extraMetrics)
        line(QStringLiteral("metrics (extra)"), f);
    return out;
}
} // namespace

int runProbe(const QStringList& args)
{
    QTextStream out(stdout);
    QTextStream err(stderr);
    QCommandLineParser p;
    p.setApplicationDescription(QStringLiteral(
        "Probe endpoints: health, models, runtime, context size, server properties and network "
        "round-trip time. With no URL, probes the built-in simulated endpoints."));
    p.addHelpOption();
    p.addPositionalArgument(QStringLiteral("URL"), QStringLiteral("e.g. http://10.0.0.5:8003 (repeatable)"),
        QStringLiteral("[URL...]"));
    p.addOption({QStringLiteral("json"), QStringLiteral("Print JSON instead of text.")});
    p.addOption({QStringLiteral("samples"), QStringLiteral("Round trips to time (default 7)."),
        QStringLiteral("n"), QStringLiteral("7")});
    addEndpointOptions(p);
    if (const int rc = parseSubcommand(p, "probe", args); rc >= 0)
        return rc;
    bool ok = false;
    const int samples = p.value(QStringLiteral("samples")).toInt(&ok);
    if (!ok || samples < 1 || samples > 1000) {
        err << "quantscope probe: --samples must be a number from 1 to 1000\n";
        return 2;
    }

    std::vector<Endpoint> endpoints;
    EndpointResolver simulated;
    if (p.positionalArguments().isEmpty()) {
        for (const char* name : {"model", "api-key-env", "runtime", "quant", "label", "extra", "metrics",
                 "connect-timeout-ms", "first-byte-timeout-ms", "idle-timeout-ms"}) {
            if (p.isSet(QString::fromLatin1(name))) {
                err << "quantscope probe: --" << name
                    << " applies to a URL you give; without a URL the built-in "
                    << "simulated endpoints are probed as they are\n";
                return 2;
            }
        }
        QString error;
        const auto defaults = simulated.defaultSimulated(error);
        if (!defaults) {
            err << "quantscope probe: " << error << '\n';
            return 1;
        }
        for (const RunEndpoint& e : *defaults)
            endpoints.push_back(e.endpoint);
        if (!p.isSet(QStringLiteral("json")))
            out << "No URL given: probing the built-in simulated endpoints.\n\n";
    }
    for (const QString& url : p.positionalArguments()) {
        QString error;
        const auto e = endpointFromOptions(p, url, error);
        if (!e) {
            err << "quantscope probe: " << error << '\n';
            return 2;
        }
        endpoints.push_back(*e);
    }

    int failures = 0;
    nlohmann::json all = nlohmann::json::array();
    for (const Endpoint& e : endpoints) {
        const ProbeResult r = probeBlocking(e, samples);
        failures += r.usable() ? 0 : 1;
        if (p.isSet(QStringLiteral("json"))) {
            auto j = toJson(r);
            j["label"] = e.label.toStdString();
            all.push_back(j);
        } else {
            if (!e.label.isEmpty())
                out << e.label << '\n';
            out << formatProbe(r) << formatMetrics(r) << '\n';
            out.flush();
        }
    }
    if (p.isSet(QStringLiteral("json")))
        out << QString::fromStdString(all.dump(2)) << '\n';
    return failures ? 1 : 0;
}

} // namespace qs::app
