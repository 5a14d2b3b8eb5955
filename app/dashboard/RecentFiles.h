// SPDX-License-Identifier: MIT
#pragma once

#include <QObject>
#include <QStringList>

class QMenu;

namespace qs::app {

/// The File ▸ Open Recent menu, kept in QSettings (not at all when not persistent).
class RecentFiles : public QObject {
    Q_OBJECT
public:
    RecentFiles(QMenu* menu, bool persistent, QObject* parent = nullptr);

    /// Puts `paths` first (absolute, no duplicates, at most ten in all).
    void add(const QStringList& paths);
    /// Fills the menu from the settings.
    void update();

Q_SIGNALS:
    void openRequested(const QString& path);

private:
    QMenu* m_menu;
    bool m_persistent;
};

} // namespace qs::app
