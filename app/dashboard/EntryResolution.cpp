// SPDX-License-Identifier: MIT
#include "app/dashboard/EntryResolution.h"

namespace qs::app {

RunEndpoint resolveEntryOffline(const EndpointEntry& entry)
{
    RunEndpoint r;
    r.endpoint = entry.endpoint;
    r.spec = entry.spec();
    r.simulated = entry.simulated();
    r.reference = entry.reference;
    if (r.simulated)
        r.endpoint.metricsUrls.removeIf(
            [](const QString& url) { return QUrl(url).host() == QStringLiteral("127.0.0.1"); });
    return r;
}

std::optional<RunEndpoint> resolveEntry(
    const EndpointEntry& entry, quint64 seed, EndpointResolver& resolver, QString& error)
{
    RunEndpoint offline = resolveEntryOffline(entry);
    if (!entry.simulated())
        return offline;
    EndpointSpec spec;
    spec.name = entry.endpoint.label;
    spec.url = entry.spec();
    spec.model = entry.endpoint.model;
    spec.quant = entry.endpoint.quantization;
    if (entry.endpoint.runtime != Runtime::Unknown)
        spec.runtime = runtimeName(entry.endpoint.runtime);
    spec.keyEnv = entry.endpoint.apiKeyEnv;
    spec.metrics = offline.endpoint.metricsUrls;
    if (!entry.endpoint.extraBody.empty())
        spec.body = entry.endpoint.extraBody;
    spec.meta = entry.endpoint.meta;
    std::optional<RunEndpoint> r = resolver.resolve(spec, seed, error);
    if (r) {
        r->endpoint.timeouts = entry.endpoint.timeouts;
        r->reference = entry.reference;
    }
    return r;
}

} // namespace qs::app
