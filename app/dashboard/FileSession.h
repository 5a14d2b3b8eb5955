// SPDX-License-Identifier: MIT
#pragma once

#include "model/core/RunRecord.h"

#include <QObject>
#include <QStringList>
#include <functional>
#include <memory>

namespace qs::app {

/// Results files off the GUI thread (QtConcurrent): opening one or several (combined side by
/// side), saving, and recovering a journal a killed run left behind. Only the latest open
/// counts: one that finishes after a later open (or a run) began is dropped.
class FileSession : public QObject {
    Q_OBJECT
public:
    /// `running` says whether a run is in progress: a file that finishes loading then is dropped.
    explicit FileSession(std::function<bool()> running, QObject* parent = nullptr);

    /// Asynchronous: opened(), openFailed() or dropped() follows.
    void open(const QStringList& paths);
    /// Whatever is still loading is dropped when it finishes (a run began).
    void supersede() { ++m_loadSequence; }
    /// Asynchronous: saved() follows.
    void save(std::shared_ptr<const RunResult> result, const QString& path);
    /// The newest journal in the runs folder (a run killed before it could save); empty if none.
    static QString interruptedJournal();
    /// Turns `journal` into a results file beside it, off the GUI thread; recovered() follows,
    /// or a message() saying why not.
    void recover(const QString& journal);

    /// Where the shown results live on disk; empty when unsaved.
    QString currentFile() const { return m_currentFile; }
    void setCurrentFile(const QString& path) { m_currentFile = path; }

Q_SIGNALS:
    void opened(
        const QStringList& paths, std::shared_ptr<const qs::RunResult> result, const QStringList& notes);
    void openFailed(const QString& error);
    /// Superseded by a later open or a run.
    void dropped();
    /// `pathOrError`: the absolute path when `ok`, else why it was not saved.
    void saved(bool ok, const QString& pathOrError);
    void recovered(const QString& path);
    void message(const QString& text);

private:
    std::function<bool()> m_running;
    QString m_currentFile;
    quint64 m_loadSequence = 0; ///< the latest open; older loads are dropped when they finish
};

} // namespace qs::app
