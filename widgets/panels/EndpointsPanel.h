// SPDX-License-Identifier: MIT
#pragma once

#include "model/EndpointProbe.h"
#include "widgets/panels/EndpointEntry.h"

#include <QWidget>
#include <vector>

class QTreeWidget;
class QPushButton;

namespace qs {

/// The endpoints under test: a list (label, URL or "simulated: PROFILE", model, runtime, probe
/// state as a coloured dot) with Add, Edit, Duplicate, Remove and Probe. Edit opens
/// EndpointEditor with every field of the endpoint description. Probing is the app's job (this
/// layer never opens a socket): the panel asks with probeRequested() and shows what
/// setProbeResult() brings — health, model, runtime, context size, RTT — colour-coded (green
/// usable, amber reachable with warnings, red unusable, grey not probed), the failure's advice
/// inline.
class EndpointsPanel : public QWidget {
    Q_OBJECT
public:
    explicit EndpointsPanel(QWidget* parent = nullptr);

    /// Replaces the list (ids are reassigned).
    void setEntries(std::vector<EndpointEntry> entries);
    std::vector<EndpointEntry> entries() const;
    /// The built-in simulated profiles the editor offers: name → one-line description.
    void setSimulatedProfiles(const std::vector<std::pair<QString, QString>>& profiles);
    /// Disables editing while a run uses the endpoints.
    void setLocked(bool locked);

    void setProbing(int entryId);
    void setProbeResult(int entryId, const ProbeResult& result);

    /// Programmatic versions of the buttons (tests, menus).
    void addEntry(const EndpointEntry& entry);
    void removeEntry(int entryId);
    void duplicateEntry(int entryId);
    int selectedEntryId() const; ///< −1 when none

Q_SIGNALS:
    void entriesChanged();
    void probeRequested(int entryId, const qs::EndpointEntry& entry);
};

} // namespace qs
