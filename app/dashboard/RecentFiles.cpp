// SPDX-License-Identifier: MIT
#include "app/dashboard/RecentFiles.h"

#include <QAction>
#include <QFileInfo>
#include <QMenu>
#include <QSettings>

namespace qs::app {

namespace {
constexpr int MaxRecentFiles = 10;
}

RecentFiles::RecentFiles(QMenu* menu, bool persistent, QObject* parent)
    : QObject(parent)
    , m_menu(menu)
    , m_persistent(persistent)
{
}

void RecentFiles::add(const QStringList& paths)
{
    if (!m_persistent)
        return;
    QSettings s;
    QStringList recent = s.value(QStringLiteral("recentFiles")).toStringList();
    for (const QString& p : paths) {
        const QString abs = QFileInfo(p).absoluteFilePath();
        recent.removeAll(abs);
        recent.prepend(abs);
    }
    while (recent.size() > MaxRecentFiles)
        recent.removeLast();
    s.setValue(QStringLiteral("recentFiles"), recent);
    update();
}

void RecentFiles::update()
{
    m_menu->clear();
    const QStringList recent
        = m_persistent ? QSettings().value(QStringLiteral("recentFiles")).toStringList() : QStringList();
    int n = 0;
    for (const QString& path : recent) {
        QAction* a = m_menu->addAction(QStringLiteral("&%1 %2").arg(++n).arg(QFileInfo(path).fileName()),
            this, [this, path] { Q_EMIT openRequested(path); });
        a->setToolTip(path);
        a->setStatusTip(path);
    }
    if (recent.isEmpty())
        m_menu->addAction(QStringLiteral("(none yet)"))->setEnabled(false);
    else {
        m_menu->addSeparator();
        m_menu->addAction(QStringLiteral("Clear the list"), this, [this] {
            QSettings().remove(QStringLiteral("recentFiles"));
            update();
        });
    }
}

} // namespace qs::app
