// SPDX-License-Identifier: MIT
#pragma once

#include "model/core/RunRecord.h"
#include "tests/support/Emulator.h"
#include "tests/support/ExporterServer.h"

#include <QString>
#include <map>
#include <memory>
#include <optional>
#include <vector>

namespace qs::app {

/// `name=LABEL,url=URL[,model=ID][,quant=Q][,runtime=R][,key-env=VAR][,metrics=URL|URL][,meta.KEY=VALUE…]
/// [,body=JSON]`; `body=` comes last and takes the rest, so its JSON may contain commas. A bare URL
/// is accepted too. `meta.KEY=VALUE` (repeatable) records a free fact about the endpoint
/// (Endpoint::meta), e.g. `meta.calibration=annie-500`. `url=sim:PROFILE` names a built-in simulated
/// endpoint. `metrics=` lists extra Prometheus pages (a DCGM exporter, a node exporter…), separated by `|`.
struct EndpointSpec {
    QString name;
    QString url;
    QString model;
    QString quant;
    QString runtime;
    QString keyEnv;
    QStringList metrics; ///< extra metrics URLs, normalised (normalizeMetricsUrl)
    nlohmann::json body; ///< null when not given
    std::map<QString, QString> meta; ///< `meta.KEY=VALUE` fields (Endpoint::meta)
};

std::optional<EndpointSpec> parseEndpointSpec(const QString& text, QString& error);
/// A JSON list of objects with the same fields (`key_env` or `key-env`; `body` an object;
/// `metrics` a list of URLs, or one URL).
std::optional<std::vector<EndpointSpec>> readEndpointsFile(const QString& path, QString& error);

/// Turns specs into run endpoints, starting an in-process emulator for each `sim:` URL, and beside
/// it a simulated DCGM exporter (power and energy, no framebuffer, as on a GB10) and node exporter
/// (unified memory) whose values follow the emulator's load, listed after the spec's own metrics
/// URLs. Keeps them all alive for its own lifetime.
class EndpointResolver {
public:
    EndpointResolver();
    ~EndpointResolver();
    std::optional<RunEndpoint> resolve(const EndpointSpec& spec, quint64 seed, QString& error);

    /// The embedded default: sim:q4km-like and sim:nvfp4-like, labelled as simulated.
    std::optional<std::vector<RunEndpoint>> defaultSimulated(QString& error);

private:
    std::vector<std::unique_ptr<emu::EmulatorThread>> m_simulators;
    /// Declared after m_simulators so that they stop first: they read their emulator's load.
    std::vector<std::unique_ptr<emu::ExporterThread>> m_exporters;
};

} // namespace qs::app
