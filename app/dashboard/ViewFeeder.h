// SPDX-License-Identifier: MIT
#pragma once

#include "widgets/DashboardData.h"

#include <QObject>
#include <vector>

namespace qs {
class DashboardView;
}

namespace qs::app {

/// Hands new data to the views one view per event: a 100,000-record file costs each view a
/// linear pass, and the event loop must not stall for the sum of them. data() changes, and
/// shown() is emitted, when every view has the new data.
class ViewFeeder : public QObject {
    Q_OBJECT
public:
    explicit ViewFeeder(std::vector<DashboardView*> views, QObject* parent = nullptr);

    /// Asynchronous, one view per event; the data is stamped with sources().
    void show(DashboardData data);
    /// Every view at once (headless screenshots): data() is `data` on return.
    void showNow(DashboardData data);
    /// Where the data lives changed, not the data: no view needs it again.
    void setSources(const QStringList& sources);
    /// The files the next data shown comes from; what is shown now keeps its own.
    void setNextSources(const QStringList& sources) { m_sources = sources; }

    const DashboardData& data() const { return m_data; }
    const QStringList& sources() const { return m_sources; }
    const std::vector<DashboardView*>& views() const { return m_views; }

Q_SIGNALS:
    void shown();

private:
    void showNextView();

    std::vector<DashboardView*> m_views;
    DashboardData m_data; ///< what every view shows
    DashboardData m_incoming; ///< being handed to the views, one per event
    std::vector<DashboardView*> m_pending;
    QStringList m_sources; ///< the files the data shown (or being evaluated) comes from
    bool m_distributing = false;
};

} // namespace qs::app
