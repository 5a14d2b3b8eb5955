// SPDX-License-Identifier: MIT
#pragma once

#include "model/wire/EndpointProbe.h"
#include "widgets/panels/EndpointEntry.h"

#include <QWidget>
#include <optional>
#include <vector>

class QTextBrowser;
class QTreeWidget;
class QTreeWidgetItem;
class QPushButton;

namespace qs {

/// The endpoints under test: a list (label, URL or "simulated: PROFILE", model, runtime, probe
/// state as a coloured dot, the fidelity reference tagged) with Add, Edit, Duplicate, Remove and Probe. Edit
/// opens EndpointEditor with every field of the endpoint description. Probing is the app's job (this layer
/// never opens a socket): the panel asks with probeRequested() and shows what setProbeResult() brings —
/// health, model, runtime, context size, RTT — colour-coded (green usable, amber reachable with warnings, red
/// unusable, grey not probed), the failure's advice inline.
class EndpointsPanel : public QWidget {
    Q_OBJECT
public:
    /// What the coloured dot says.
    enum class ProbeState {
        NotProbed, ///< grey
        Probing, ///< blue
        Usable, ///< green
        Warnings, ///< amber: usable, but with warnings or not reporting healthy
        Unusable, ///< red: the probe failed; its advice is shown
    };

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
    void selectEntry(int entryId);
    ProbeState probeState(int entryId) const; ///< NotProbed for an unknown id
    /// Marks one entry as the fidelity reference and unmarks every other (−1: none is). The
    /// editor's "Fidelity reference" box does the same: at most one entry is the reference.
    void setReferenceEntry(int entryId);
    int referenceEntryId() const; ///< −1 when none is
    /// Opens the editor on an entry (as Edit and a double-click do); true when it was changed.
    bool editEntry(int entryId);

Q_SIGNALS:
    void entriesChanged();
    void probeRequested(int entryId, const qs::EndpointEntry& entry);

protected:
    void changeEvent(QEvent* event) override;

private:
    struct Row {
        EndpointEntry entry;
        ProbeState state = ProbeState::NotProbed;
        std::optional<ProbeResult> probe;
    };
    Row* row(int entryId);
    const Row* row(int entryId) const;
    void refreshItem(const Row& row);
    void keepOnlyReference(int entryId); ///< unmarks every entry but this one
    void rebuild(int selectId);
    void updateButtons();
    void updateDetails();
    void onAdd();
    void probe(int entryId);

    std::vector<Row> m_rows;
    std::vector<std::pair<QString, QString>> m_profiles;
    int m_nextId = 1;
    bool m_locked = false;
    QTreeWidget* m_tree;
    QTextBrowser* m_details;
    QPushButton* m_add;
    QPushButton* m_edit;
    QPushButton* m_duplicate;
    QPushButton* m_remove;
    QPushButton* m_probe;
    QPushButton* m_probeAll;
};

} // namespace qs
