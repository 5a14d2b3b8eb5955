// SPDX-License-Identifier: MIT
#include "app/dashboard/FileSession.h"

#include "app/dashboard/RunSession.h"
#include "model/evaluate/Evaluation.h"
#include "model/store/ResultFile.h"
#include "model/store/RunJournal.h"

#include <QDir>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QtConcurrent>

namespace qs::app {

namespace {

struct Loaded {
    std::shared_ptr<const RunResult> result;
    QString error;
    QStringList notes;
};

Loaded loadAndCombine(const QStringList& paths)
{
    Loaded out;
    try {
        out.result = std::make_shared<const RunResult>(loadForReview(paths, &out.notes));
    } catch (const ResultFileError& e) {
        out.error = QString::fromUtf8(e.what());
    }
    return out;
}

} // namespace

FileSession::FileSession(std::function<bool()> running, QObject* parent)
    : QObject(parent)
    , m_running(std::move(running))
{
}

void FileSession::open(const QStringList& paths)
{
    const quint64 load = ++m_loadSequence;
    auto* watcher = new QFutureWatcher<Loaded>(this);
    connect(watcher, &QFutureWatcher<Loaded>::finished, this, [this, watcher, load, paths] {
        const Loaded loaded = watcher->result();
        watcher->deleteLater();
        if (load != m_loadSequence || m_running()) {
            Q_EMIT dropped();
            return;
        }
        if (!loaded.error.isEmpty()) {
            Q_EMIT openFailed(loaded.error);
            return;
        }
        m_currentFile = paths.size() == 1 ? QFileInfo(paths.front()).absoluteFilePath() : QString();
        Q_EMIT opened(paths, loaded.result, loaded.notes);
    });
    watcher->setFuture(QtConcurrent::run(loadAndCombine, paths));
}

void FileSession::save(std::shared_ptr<const RunResult> result, const QString& path)
{
    auto* watcher = new QFutureWatcher<QString>(this);
    connect(watcher, &QFutureWatcher<QString>::finished, this, [this, watcher, path] {
        const QString error = watcher->result();
        watcher->deleteLater();
        if (!error.isEmpty()) {
            Q_EMIT saved(false, error);
            return;
        }
        m_currentFile = QFileInfo(path).absoluteFilePath();
        Q_EMIT saved(true, m_currentFile);
    });
    watcher->setFuture(
        QtConcurrent::run([result = std::move(result), path] { return saveResults(*result, path); }));
}

QString FileSession::interruptedJournal()
{
    const QDir dir(runsDirectory());
    const QStringList journals = dir.entryList({QStringLiteral("*.journal")}, QDir::Files, QDir::Time);
    return journals.isEmpty() ? QString() : dir.filePath(journals.front());
}

void FileSession::recover(const QString& journal)
{
    QString out = journal;
    out.chop(int(qstrlen(".journal")));
    if (QFileInfo::exists(out))
        out = out.left(out.size() - 5) + QStringLiteral("-recovered.json");
    auto* watcher = new QFutureWatcher<QString>(this);
    connect(watcher, &QFutureWatcher<QString>::finished, this, [this, watcher, journal, out] {
        const QString error = watcher->result();
        watcher->deleteLater();
        if (!error.isEmpty()) {
            Q_EMIT message(QStringLiteral("Recovery failed: ") + error);
            return;
        }
        QFile::remove(journal);
        Q_EMIT recovered(out);
    });
    watcher->setFuture(QtConcurrent::run([journal, out]() -> QString {
        try {
            return saveResults(recoverJournal(journal), out);
        } catch (const std::exception& e) {
            return QString::fromUtf8(e.what());
        }
    }));
}

} // namespace qs::app
