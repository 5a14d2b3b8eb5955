// SPDX-License-Identifier: MIT
#include "widgets/panels/EndpointsPanel.h"

#include "widgets/Theme.h"
#include "widgets/panels/EndpointEditor.h"
#include "widgets/panels/ProbeMetricsText.h"

#include <QEvent>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLocale>
#include <QPainter>
#include <QPushButton>
#include <QSplitter>
#include <QTextBrowser>
#include <QTreeWidget>
#include <QVBoxLayout>
#include <algorithm>
#include <utility>

namespace qs {

namespace {

enum Column { LabelColumn, UrlColumn, ModelColumn, RuntimeColumn, ContextColumn, RttColumn, ColumnCount };
constexpr int IdRole = Qt::UserRole;
constexpr int StateRole = Qt::UserRole + 1;
constexpr int ReferenceRole = Qt::UserRole + 2;

const ThemeColors& colorsFor(const QWidget* widget)
{
    const bool dark = widget->palette().color(QPalette::Window).lightness() < 128;
    return themeColors(dark ? Theme::Dark : Theme::Light);
}

QColor stateColor(EndpointsPanel::ProbeState state, const ThemeColors& c)
{
    switch (state) {
    case EndpointsPanel::ProbeState::Probing:
        return c.infoAccent;
    case EndpointsPanel::ProbeState::Usable:
        return c.pass;
    case EndpointsPanel::ProbeState::Warnings:
        return c.warningAccent;
    case EndpointsPanel::ProbeState::Unusable:
        return c.criticalAccent;
    case EndpointsPanel::ProbeState::NotProbed:
        break;
    }
    return c.mutedText;
}

QString stateText(EndpointsPanel::ProbeState state)
{
    switch (state) {
    case EndpointsPanel::ProbeState::Probing:
        return QStringLiteral("probing…");
    case EndpointsPanel::ProbeState::Usable:
        return QStringLiteral("usable");
    case EndpointsPanel::ProbeState::Warnings:
        return QStringLiteral("usable, with warnings");
    case EndpointsPanel::ProbeState::Unusable:
        return QStringLiteral("unusable");
    case EndpointsPanel::ProbeState::NotProbed:
        break;
    }
    return QStringLiteral("not probed");
}

EndpointsPanel::ProbeState stateOf(const ProbeResult& r)
{
    if (!r.usable())
        return EndpointsPanel::ProbeState::Unusable;
    // A missing /health (404, path cleared) is not unhealthy; a /health that says "not ready" is.
    const bool unhealthy = !r.healthy && !r.healthPath.isEmpty();
    if (unhealthy || !r.warnings.isEmpty())
        return EndpointsPanel::ProbeState::Warnings;
    return EndpointsPanel::ProbeState::Usable;
}

QString esc(const QString& s)
{
    return s.toHtmlEscaped();
}

} // namespace

EndpointsPanel::EndpointsPanel(QWidget* parent)
    : QWidget(parent)
{
    m_tree = new QTreeWidget;
    m_tree->setColumnCount(ColumnCount);
    m_tree->setHeaderLabels({QStringLiteral("Endpoint"), QStringLiteral("URL"), QStringLiteral("Model"),
        QStringLiteral("Runtime"), QStringLiteral("Context"), QStringLiteral("RTT")});
    m_tree->headerItem()->setToolTip(LabelColumn, QStringLiteral("Label; the dot is the probe state"));
    m_tree->headerItem()->setToolTip(
        ContextColumn, QStringLiteral("Context size in tokens per request, as the server reports it"));
    m_tree->headerItem()->setToolTip(RttColumn,
        QStringLiteral("Median round trip of small GET requests on a warm connection: the network and "
                       "HTTP overhead included in every TTFT"));
    m_tree->headerItem()->setTextAlignment(ContextColumn, Qt::AlignRight | Qt::AlignVCenter);
    m_tree->headerItem()->setTextAlignment(RttColumn, Qt::AlignRight | Qt::AlignVCenter);
    m_tree->setRootIsDecorated(false);
    m_tree->setUniformRowHeights(true);
    m_tree->setAlternatingRowColors(true);
    m_tree->setSelectionMode(QAbstractItemView::SingleSelection);
    m_tree->setAllColumnsShowFocus(true);
    m_tree->header()->setStretchLastSection(false);
    m_tree->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_tree->header()->setSectionResizeMode(UrlColumn, QHeaderView::Stretch);

    m_details = new QTextBrowser;
    m_details->setOpenLinks(false);
    m_details->setFrameShape(QFrame::StyledPanel);

    auto button = [this](const QString& text, const QString& tip) {
        auto* b = new QPushButton(text, this);
        b->setToolTip(tip);
        return b;
    };
    m_add
        = button(QStringLiteral("&Add…"), QStringLiteral("Add an endpoint: a server URL or a simulated one"));
    m_edit = button(QStringLiteral("&Edit…"), QStringLiteral("Edit every field of the selected endpoint"));
    m_duplicate = button(QStringLiteral("D&uplicate"),
        QStringLiteral("Copy the selected endpoint, e.g. to try another extra body"));
    m_remove = button(QStringLiteral("&Remove"), QStringLiteral("Remove the selected endpoint"));
    m_probe = button(QStringLiteral("&Probe"),
        QStringLiteral(
            "Ask the selected endpoint for health, model, runtime, context size and round-trip time"));
    m_probeAll = button(QStringLiteral("Probe a&ll"), QStringLiteral("Probe every endpoint"));

    auto* buttons = new QHBoxLayout;
    for (QPushButton* b : {m_add, m_edit, m_duplicate, m_remove})
        buttons->addWidget(b);
    buttons->addStretch(1);
    buttons->addWidget(m_probe);
    buttons->addWidget(m_probeAll);

    auto* split = new QSplitter(Qt::Vertical);
    split->addWidget(m_tree);
    split->addWidget(m_details);
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 1);
    split->setChildrenCollapsible(false);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(buttons);
    layout->addWidget(split, 1);

    connect(m_add, &QPushButton::clicked, this, &EndpointsPanel::onAdd);
    connect(m_edit, &QPushButton::clicked, this, [this] { editEntry(selectedEntryId()); });
    connect(m_duplicate, &QPushButton::clicked, this, [this] { duplicateEntry(selectedEntryId()); });
    connect(m_remove, &QPushButton::clicked, this, [this] { removeEntry(selectedEntryId()); });
    connect(m_probe, &QPushButton::clicked, this, [this] { probe(selectedEntryId()); });
    connect(m_probeAll, &QPushButton::clicked, this, [this] {
        for (const Row& r : m_rows)
            Q_EMIT probeRequested(r.entry.id, r.entry);
    });
    connect(m_tree, &QTreeWidget::itemDoubleClicked, this,
        [this](QTreeWidgetItem* item) { editEntry(item->data(0, IdRole).toInt()); });
    connect(m_tree, &QTreeWidget::itemSelectionChanged, this, [this] {
        updateButtons();
        updateDetails();
    });

    updateButtons();
    updateDetails();
}

EndpointsPanel::Row* EndpointsPanel::row(int entryId)
{
    auto it = std::find_if(m_rows.begin(), m_rows.end(), [&](const Row& r) { return r.entry.id == entryId; });
    return it == m_rows.end() ? nullptr : &*it;
}

const EndpointsPanel::Row* EndpointsPanel::row(int entryId) const
{
    return const_cast<EndpointsPanel*>(this)->row(entryId);
}

void EndpointsPanel::setEntries(std::vector<EndpointEntry> entries)
{
    m_rows.clear();
    bool referenceSeen = false;
    for (EndpointEntry& e : entries) {
        e.id = m_nextId++;
        // A hand-edited settings file may mark several: the first one stays the reference.
        e.reference = e.reference && !std::exchange(referenceSeen, true);
        m_rows.push_back(Row {std::move(e), ProbeState::NotProbed, std::nullopt});
    }
    rebuild(m_rows.empty() ? -1 : m_rows.front().entry.id);
    Q_EMIT entriesChanged();
}

std::vector<EndpointEntry> EndpointsPanel::entries() const
{
    std::vector<EndpointEntry> out;
    out.reserve(m_rows.size());
    for (const Row& r : m_rows)
        out.push_back(r.entry);
    return out;
}

void EndpointsPanel::setSimulatedProfiles(const std::vector<std::pair<QString, QString>>& profiles)
{
    m_profiles = profiles;
}

void EndpointsPanel::setLocked(bool locked)
{
    m_locked = locked;
    updateButtons();
}

void EndpointsPanel::setProbing(int entryId)
{
    if (Row* r = row(entryId)) {
        r->state = ProbeState::Probing;
        refreshItem(*r);
        if (entryId == selectedEntryId())
            updateDetails();
    }
}

void EndpointsPanel::setProbeResult(int entryId, const ProbeResult& result)
{
    if (Row* r = row(entryId)) {
        r->probe = result;
        r->state = stateOf(result);
        refreshItem(*r);
        if (entryId == selectedEntryId())
            updateDetails();
    }
}

EndpointsPanel::ProbeState EndpointsPanel::probeState(int entryId) const
{
    const Row* r = row(entryId);
    return r ? r->state : ProbeState::NotProbed;
}

void EndpointsPanel::addEntry(const EndpointEntry& entry)
{
    Row r {entry, ProbeState::NotProbed, std::nullopt};
    r.entry.id = m_nextId++;
    m_rows.push_back(std::move(r));
    if (entry.reference)
        keepOnlyReference(m_rows.back().entry.id);
    rebuild(m_rows.back().entry.id);
    Q_EMIT entriesChanged();
}

void EndpointsPanel::removeEntry(int entryId)
{
    auto it = std::find_if(m_rows.begin(), m_rows.end(), [&](const Row& r) { return r.entry.id == entryId; });
    if (it == m_rows.end())
        return;
    const int selected = selectedEntryId();
    it = m_rows.erase(it);
    int select = selected;
    if (selected == entryId) // the next one takes its place, or the new last one
        select = it != m_rows.end() ? it->entry.id : (m_rows.empty() ? -1 : m_rows.back().entry.id);
    rebuild(select);
    Q_EMIT entriesChanged();
}

void EndpointsPanel::duplicateEntry(int entryId)
{
    auto it = std::find_if(m_rows.begin(), m_rows.end(), [&](const Row& r) { return r.entry.id == entryId; });
    if (it == m_rows.end())
        return;
    Row copy {it->entry, ProbeState::NotProbed, std::nullopt};
    copy.entry.id = m_nextId++;
    copy.entry.reference = false; // there is one reference
    if (!copy.entry.endpoint.label.isEmpty())
        copy.entry.endpoint.label += QStringLiteral(" (copy)");
    const int id = copy.entry.id;
    m_rows.insert(it + 1, std::move(copy));
    rebuild(id);
    Q_EMIT entriesChanged();
}

int EndpointsPanel::selectedEntryId() const
{
    const auto items = m_tree->selectedItems();
    return items.isEmpty() ? -1 : items.front()->data(0, IdRole).toInt();
}

void EndpointsPanel::selectEntry(int entryId)
{
    for (int i = 0; i < m_tree->topLevelItemCount(); ++i) {
        QTreeWidgetItem* item = m_tree->topLevelItem(i);
        if (item->data(0, IdRole).toInt() == entryId) {
            m_tree->setCurrentItem(item);
            return;
        }
    }
    m_tree->clearSelection();
}

bool EndpointsPanel::editEntry(int entryId)
{
    Row* r = row(entryId);
    if (!r || m_locked)
        return false;
    EndpointEditor editor(r->entry, m_profiles, this);
    if (editor.exec() != QDialog::Accepted)
        return false;
    r = row(entryId); // the dialog's event loop may have changed the list
    if (!r)
        return false;
    EndpointEntry edited = editor.entry();
    edited.id = entryId;
    const bool sameEndpoint
        = edited.endpoint == r->entry.endpoint && edited.simulatedProfile == r->entry.simulatedProfile;
    if (sameEndpoint && edited.reference == r->entry.reference)
        return false;
    r->entry = std::move(edited);
    if (!sameEndpoint) {
        r->state = ProbeState::NotProbed; // the probe described the old endpoint
        r->probe.reset();
    }
    if (r->entry.reference)
        keepOnlyReference(entryId);
    refreshItem(*r);
    updateDetails();
    Q_EMIT entriesChanged();
    return true;
}

void EndpointsPanel::setReferenceEntry(int entryId)
{
    if (entryId >= 0 && !row(entryId))
        return;
    bool changed = false;
    for (Row& r : m_rows) {
        const bool reference = r.entry.id == entryId;
        changed = changed || reference != r.entry.reference;
        r.entry.reference = reference;
    }
    if (!changed)
        return;
    for (const Row& r : m_rows)
        refreshItem(r);
    updateDetails();
    Q_EMIT entriesChanged();
}

int EndpointsPanel::referenceEntryId() const
{
    for (const Row& r : m_rows)
        if (r.entry.reference)
            return r.entry.id;
    return -1;
}

void EndpointsPanel::keepOnlyReference(int entryId)
{
    for (Row& r : m_rows)
        if (r.entry.id != entryId && r.entry.reference) {
            r.entry.reference = false;
            refreshItem(r);
        }
}

void EndpointsPanel::onAdd()
{
    EndpointEntry fresh;
    EndpointEditor editor(fresh, m_profiles, this);
    editor.setWindowTitle(QStringLiteral("Add endpoint"));
    if (editor.exec() == QDialog::Accepted)
        addEntry(editor.entry());
}

void EndpointsPanel::probe(int entryId)
{
    if (const Row* r = row(entryId))
        Q_EMIT probeRequested(entryId, r->entry);
}

void EndpointsPanel::rebuild(int selectId)
{
    const QSignalBlocker block(m_tree);
    m_tree->clear();
    for (const Row& r : m_rows) {
        auto* item = new QTreeWidgetItem(m_tree);
        item->setData(0, IdRole, r.entry.id);
        refreshItem(r);
    }
    selectEntry(selectId);
    updateButtons();
    updateDetails();
}

void EndpointsPanel::refreshItem(const Row& r)
{
    QTreeWidgetItem* item = nullptr;
    for (int i = 0; i < m_tree->topLevelItemCount() && !item; ++i)
        if (m_tree->topLevelItem(i)->data(0, IdRole).toInt() == r.entry.id)
            item = m_tree->topLevelItem(i);
    if (!item)
        return;
    const ThemeColors& c = colorsFor(this);
    const Endpoint& e = r.entry.endpoint;
    const ProbeResult* p = r.probe ? &*r.probe : nullptr;

    QString label = e.label;
    if (label.isEmpty())
        label = r.entry.simulated() ? r.entry.simulatedProfile : e.displayName();
    // The reference is tagged where the eye lands: beside the name, in bold.
    item->setText(LabelColumn, r.entry.reference ? label + QStringLiteral("  (fidelity reference)") : label);
    QFont font = m_tree->font();
    font.setBold(r.entry.reference);
    item->setFont(LabelColumn, font);
    item->setData(LabelColumn, ReferenceRole, r.entry.reference);
    item->setIcon(LabelColumn, colorDot(stateColor(r.state, c)));
    item->setData(LabelColumn, StateRole, int(r.state));
    QString tip = label + QStringLiteral(" — ") + stateText(r.state);
    if (r.entry.reference)
        tip += QStringLiteral("\nFidelity reference: every other endpoint's next-token choices are compared "
                              "with this one's.");
    if (p && p->failure.isFailure())
        tip += QStringLiteral("\n") + p->failure.text();
    item->setToolTip(LabelColumn, tip);

    item->setText(UrlColumn,
        r.entry.simulated() ? QStringLiteral("simulated: ") + r.entry.simulatedProfile
                            : e.baseUrl.toString());

    // Configured values first; what the probe discovered fills in "discover" and "detect".
    QString model = e.model;
    if (model.isEmpty() && p && !p->model.isEmpty())
        model = p->model;
    item->setText(ModelColumn, model.isEmpty() ? QStringLiteral("(discover)") : model);
    item->setForeground(ModelColumn, model.isEmpty() ? QBrush(c.mutedText) : QBrush());

    Runtime runtime = e.runtime;
    if (runtime == Runtime::Unknown && p)
        runtime = p->runtime;
    item->setText(
        RuntimeColumn, runtime == Runtime::Unknown ? QStringLiteral("(detect)") : runtimeName(runtime));
    item->setForeground(RuntimeColumn, runtime == Runtime::Unknown ? QBrush(c.mutedText) : QBrush());

    const QLocale locale;
    item->setText(ContextColumn,
        p && p->contextSize ? locale.toString(*p->contextSize) + QStringLiteral(" tok")
                            : QStringLiteral("—"));
    item->setText(RttColumn,
        p && p->rttMedianMs
            ? QString::number(*p->rttMedianMs, 'f', *p->rttMedianMs < 10 ? 2 : 1) + QStringLiteral(" ms")
            : QStringLiteral("—"));
    item->setTextAlignment(ContextColumn, Qt::AlignRight | Qt::AlignVCenter);
    item->setTextAlignment(RttColumn, Qt::AlignRight | Qt::AlignVCenter);
}

void EndpointsPanel::updateButtons()
{
    const bool selected = selectedEntryId() >= 0;
    m_add->setEnabled(!m_locked);
    m_edit->setEnabled(!m_locked && selected);
    m_duplicate->setEnabled(!m_locked && selected);
    m_remove->setEnabled(!m_locked && selected);
    // Probing during a run would add load to the servers being measured.
    m_probe->setEnabled(!m_locked && selected);
    m_probeAll->setEnabled(!m_locked && !m_rows.empty());
    const QString lockedTip = QStringLiteral("A run is using the endpoints");
    m_tree->setToolTip(m_locked ? lockedTip : QString());
}

void EndpointsPanel::updateDetails()
{
    const ThemeColors& c = colorsFor(this);
    const QString muted = c.mutedText.name();
    const Row* r = row(selectedEntryId());
    if (!r) {
        m_details->setHtml(
            QStringLiteral("<p style='color:%1'>%2</p>")
                .arg(muted,
                    m_rows.empty() ? QStringLiteral("No endpoints yet: press Add to describe a "
                                                    "server, or pick a simulated one.")
                                   : QStringLiteral("Select an endpoint to see what its probe "
                                                    "found.")));
        return;
    }
    const QString title = esc(r->entry.endpoint.label.isEmpty() ? r->entry.spec() : r->entry.endpoint.label);
    const QString head = QStringLiteral("<p><b>%1</b> &nbsp;<span style='color:%2'>● %3</span></p>")
                             .arg(title, stateColor(r->state, c).name(), esc(stateText(r->state)));
    if (!r->probe) {
        const QString what = r->state == ProbeState::Probing
            ? QStringLiteral("Asking for health, models, runtime properties and round-trip time…")
            : QStringLiteral("Not probed yet. Probe asks the server for its health, model, runtime, context "
                             "size and round-trip time.");
        m_details->setHtml(head + QStringLiteral("<p style='color:%1'>%2</p>").arg(muted, what));
        return;
    }
    const ProbeResult& p = *r->probe;
    QString rows;
    auto add = [&](const QString& name, const QString& valueHtml) {
        if (!valueHtml.isEmpty())
            rows += QStringLiteral("<tr><td style='color:%1; padding-right:12px'>%2</td><td>%3</td></tr>")
                        .arg(muted, name, valueHtml);
    };
    QString failure;
    if (p.failure.isFailure()) {
        const QString red = c.criticalAccent.name();
        failure = QStringLiteral("<p style='color:%1'><b>%2</b>").arg(red, esc(p.failure.summary));
        if (!p.failure.serverMessage.isEmpty())
            failure += QStringLiteral("<br>Server said: ") + esc(p.failure.serverMessage);
        if (!p.failure.advice.isEmpty())
            failure += QStringLiteral("<br>") + esc(p.failure.advice);
        failure += QStringLiteral("</p>");
    }

    QString health;
    if (!p.reachable)
        health.clear();
    else if (p.healthPath.isEmpty())
        health = p.healthDetail.isEmpty() ? QStringLiteral("no health endpoint") : esc(p.healthDetail);
    else if (p.healthStatus == 0)
        health = QStringLiteral("GET %1: no answer").arg(esc(p.healthPath));
    else
        health = QStringLiteral("GET %1 → %2%3%4")
                     .arg(esc(p.healthPath))
                     .arg(p.healthStatus)
                     .arg(p.healthy ? QStringLiteral(" healthy") : QStringLiteral(" not healthy"),
                         p.healthDetail.isEmpty() ? QString()
                                                  : QStringLiteral(" (") + esc(p.healthDetail) + u')');
    add(QStringLiteral("Health"), health);

    if (!p.model.isEmpty()) {
        QString model = esc(p.model);
        if (!p.modelListed)
            model += QStringLiteral(" <span style='color:%1'>— not listed in /v1/models</span>")
                         .arg(c.warningAccent.name());
        else if (!p.models.isEmpty())
            model += QStringLiteral(" <span style='color:%1'>(listed in /v1/models, %2 model%3)</span>")
                         .arg(muted)
                         .arg(p.models.size())
                         .arg(p.models.size() == 1 ? QString() : QStringLiteral("s"));
        add(QStringLiteral("Model"), model);
    }
    QString runtime = esc(runtimeName(p.runtime));
    if (!p.runtimeEvidence.isEmpty())
        runtime += QStringLiteral(" <span style='color:%1'>(%2)</span>").arg(muted, esc(p.runtimeEvidence));
    if (p.reachable)
        add(QStringLiteral("Runtime"), runtime);
    QString version = esc(p.serverVersion);
    if (!p.serverHeader.isEmpty())
        version += (version.isEmpty() ? QString() : QStringLiteral(" · ")) + QStringLiteral("Server: ")
            + esc(p.serverHeader);
    add(QStringLiteral("Server version"), version);
    const QLocale locale;
    if (p.contextSize)
        add(QStringLiteral("Context"),
            QStringLiteral("%1 tokens per request%2")
                .arg(locale.toString(*p.contextSize),
                    p.contextSource.isEmpty() ? QString()
                                              : QStringLiteral(" <span style='color:%1'>(%2)</span>")
                                                    .arg(muted, esc(p.contextSource))));
    if (p.totalSlots)
        add(QStringLiteral("Slots"), QString::number(*p.totalSlots));
    if (p.rttMedianMs)
        add(QStringLiteral("RTT"),
            QStringLiteral("median %1 ms over %2 requests")
                .arg(QString::number(*p.rttMedianMs, 'f', 2))
                .arg(p.rttSamplesMs.size()));
    if (!p.toolCallParser.isEmpty())
        add(QStringLiteral("Tool parser"), esc(p.toolCallParser));
    if (!p.reasoningParser.isEmpty())
        add(QStringLiteral("Reasoning parser"), esc(p.reasoningParser));
    // Server metrics: read from the probe's JSON, so a probe that does not look says nothing.
    rows += probeMetricsHtml(toJson(p), c);

    QString warnings;
    for (const QString& w : p.warnings)
        warnings += QStringLiteral("<li>") + esc(w) + QStringLiteral("</li>");
    if (!warnings.isEmpty())
        warnings
            = QStringLiteral("<p style='color:%1; margin-bottom:0'><b>Warnings</b></p><ul style='color:%1; "
                             "margin-top:0'>%2</ul>")
                  .arg(c.warningAccent.name(), warnings);

    m_details->setHtml(head + failure + QStringLiteral("<table cellspacing='2'>") + rows
        + QStringLiteral("</table>") + warnings);
}

void EndpointsPanel::changeEvent(QEvent* event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange) {
        for (const Row& r : m_rows)
            refreshItem(r);
        updateDetails();
    }
}

} // namespace qs
