// SPDX-License-Identifier: MIT
#include "app/dashboard/EndpointProber.h"

#include "app/dashboard/EntryResolution.h"

#include <QFutureWatcher>
#include <QtConcurrent>

namespace qs::app {

EndpointProber::EndpointProber(QObject* parent)
    : QObject(parent)
    , m_resolver(std::make_unique<EndpointResolver>())
{
}

EndpointProber::~EndpointProber() = default;

void EndpointProber::probe(int entryId, const EndpointEntry& entry, quint64 seed)
{
    QString error;
    std::optional<RunEndpoint> e;
    if (entry.simulated()) {
        auto cached = m_simulators.find(entry.simulatedProfile);
        if (cached == m_simulators.end()) {
            if (std::optional<RunEndpoint> started = resolveEntry(entry, seed, *m_resolver, error))
                cached = m_simulators.emplace(entry.simulatedProfile, *started).first;
        }
        if (cached != m_simulators.end()) {
            e = resolveEntryOffline(entry);
            e->endpoint.baseUrl = cached->second.endpoint.baseUrl;
            if (e->endpoint.model.isEmpty())
                e->endpoint.model = cached->second.endpoint.model;
        }
    } else {
        e = resolveEntry(entry, seed, *m_resolver, error);
    }
    if (!e) {
        ProbeResult failed;
        failed.endpoint = entry.endpoint;
        failed.failure.kind = FailureKind::InvalidUrl;
        failed.failure.summary = error;
        failed.failure.advice = QStringLiteral("Edit the endpoint: its description cannot be used.");
        Q_EMIT probed(entryId, failed);
        return;
    }
    Q_EMIT probing(entryId);
    auto* watcher = new QFutureWatcher<ProbeResult>(this);
    connect(watcher, &QFutureWatcher<ProbeResult>::finished, this, [this, watcher, entryId] {
        Q_EMIT probed(entryId, watcher->result());
        watcher->deleteLater();
    });
    // probeBlocking runs its own event loop on a pool thread; the GUI thread only gets the value.
    watcher->setFuture(QtConcurrent::run([endpoint = e->endpoint] { return probeBlocking(endpoint); }));
}

} // namespace qs::app
