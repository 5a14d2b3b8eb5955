// SPDX-License-Identifier: MIT
#pragma once

#include "app/common/EndpointSpec.h"
#include "model/wire/EndpointProbe.h"
#include "widgets/panels/EndpointEntry.h"

#include <QObject>
#include <map>
#include <memory>

namespace qs::app {

/// Probes endpoints off the GUI thread (what the endpoints panel's Probe button asks for). A
/// simulated endpoint is probed on one simulator per profile, however often the user clicks.
class EndpointProber : public QObject {
    Q_OBJECT
public:
    explicit EndpointProber(QObject* parent = nullptr);
    ~EndpointProber() override;

    /// Asynchronous: probing() follows when the probe starts, then probed(). An entry that
    /// cannot be resolved gets probed() at once with the reason, without probing().
    void probe(int entryId, const EndpointEntry& entry, quint64 seed);

Q_SIGNALS:
    void probing(int entryId);
    void probed(int entryId, const qs::ProbeResult& result);

private:
    std::unique_ptr<EndpointResolver> m_resolver;
    std::map<QString, RunEndpoint> m_simulators; ///< profile → its simulator
};

} // namespace qs::app
