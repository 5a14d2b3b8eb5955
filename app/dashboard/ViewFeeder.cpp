// SPDX-License-Identifier: MIT
#include "app/dashboard/ViewFeeder.h"

#include "app/dashboard/LiveSnapshots.h"
#include "widgets/DashboardView.h"

#include <QElapsedTimer>
#include <QLoggingCategory>
#include <QTimer>

// Debug output (slow view refreshes) with QT_LOGGING_RULES="quantscope.gui.debug=true".
Q_LOGGING_CATEGORY(lcGui, "quantscope.gui", QtInfoMsg)

namespace qs::app {

ViewFeeder::ViewFeeder(std::vector<DashboardView*> views, QObject* parent)
    : QObject(parent)
    , m_views(std::move(views))
{
}

void ViewFeeder::show(DashboardData data)
{
    data.sources = m_sources;
    m_incoming = std::move(data);
    m_pending = m_views;
    if (!m_distributing) {
        m_distributing = true;
        QTimer::singleShot(0, this, &ViewFeeder::showNextView);
    }
}

void ViewFeeder::showNow(DashboardData data)
{
    m_sources = data.sources;
    m_pending.clear();
    m_incoming = data;
    m_data = std::move(data);
    for (DashboardView* v : m_views)
        v->setData(m_data);
}

void ViewFeeder::setSources(const QStringList& sources)
{
    m_sources = sources;
    m_data.sources = sources;
    m_incoming.sources = sources;
}

void ViewFeeder::showNextView()
{
    if (m_pending.empty()) {
        m_distributing = false;
        // The data shown until now is released on a worker: its run is usually the last owner
        // of a live snapshot, and destroying 40,000 records took the GUI thread a second.
        DashboardData old = std::exchange(m_data, m_incoming);
        releaseOnWorker(std::move(old.result));
        releaseOnWorker(std::move(old.evaluation));
        Q_EMIT shown();
        return;
    }
    DashboardView* view = m_pending.front();
    m_pending.erase(m_pending.begin());
    QElapsedTimer t;
    t.start();
    view->setData(m_incoming);
    if (t.elapsed() > 20)
        qCDebug(lcGui) << "setData" << dynamic_cast<QObject*>(view)->metaObject()->className() << t.elapsed()
                       << "ms";
    QTimer::singleShot(0, this, &ViewFeeder::showNextView);
}

} // namespace qs::app
