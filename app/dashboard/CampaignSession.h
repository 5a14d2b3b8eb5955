// SPDX-License-Identifier: MIT
#pragma once

#include "model/decide/Campaign.h"

#include <QObject>
#include <QStringList>
#include <memory>
#include <optional>

namespace qs::app {

/// A campaign built off the GUI thread (QtConcurrent): the files read, every attempt evaluated
/// and judged, the baseline's drift paired — seconds for big files. Only the latest request
/// counts: one that finishes after a later one began is dropped.
class CampaignSession : public QObject {
    Q_OBJECT
public:
    explicit CampaignSession(QObject* parent = nullptr);

    /// Asynchronous: built() or failed() follows. `profile`: the Decision tab's; unset, the default
    /// for the earliest file's suite (defaultDecisionProfileName), as `quantscope campaign` chooses.
    void build(const QStringList& paths, const std::optional<DecisionProfile>& profile,
        const QString& baselineLabel = {});
    bool busy() const { return m_busy; }

Q_SIGNALS:
    void built(std::shared_ptr<const qs::Campaign> campaign, const QStringList& notes);
    void failed(const QString& error);

private:
    quint64 m_sequence = 0;
    bool m_busy = false;
};

} // namespace qs::app
