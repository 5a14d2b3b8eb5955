// SPDX-License-Identifier: MIT
#include "app/RunSession.h"

#include "app/EntryResolution.h"
#include "model/core/Suite.h"
#include "model/store/ResultFile.h"
#include "model/store/RunJournal.h"

#include <QDateTime>
#include <QDir>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QStandardPaths>
#include <QTimer>
#include <QtConcurrent>

namespace qs::app {

namespace {

constexpr int LiveRefreshMs = 500; // evaluation of a live run: twice a second is plenty for medians

/// A results file in `dir` named for the time, with no file or journal of that name yet.
QString freshRunPath(const QString& dir)
{
    QString path = dir + QStringLiteral("/run-")
        + QDateTime::currentDateTimeUtc().toString(QStringLiteral("yyyyMMdd-HHmmss"))
        + QStringLiteral(".json");
    for (int n = 2; QFileInfo::exists(path) || QFileInfo::exists(RunJournal::journalPathFor(path)); ++n)
        path = path.section(u'.', 0, -2).section(u'~', 0, 0) + QStringLiteral("~%1.json").arg(n);
    return path;
}

} // namespace

QString runsDirectory()
{
    return QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) + QStringLiteral("/runs");
}

RunSession::RunSession(QObject* parent)
    : QObject(parent)
    , m_controller(new RunController(this))
    , m_timer(new QTimer(this))
{
    m_timer->setInterval(LiveRefreshMs);
    connect(m_timer, &QTimer::timeout, this, &RunSession::refreshDue);

    connect(m_controller, &RunController::progress, this, [this](const RunProgress& p) {
        Q_EMIT progress(p);
        if (m_probing) { // the probes are done once requests are counted
            m_probing = false;
            Q_EMIT statusText(QString());
        }
        Q_EMIT message(
            QStringLiteral("Running: %1 of %2 requests, %3 failed").arg(p.done).arg(p.total).arg(p.failed),
            0);
    });
    connect(m_controller, &RunController::recordFinished, this, [this](const RunRecord& r) {
        if (m_snapshots) {
            m_snapshots->add(r);
            m_liveDirty = true;
        }
    });
    connect(m_controller, &RunController::liveDeltas, this, &RunSession::liveDeltas);
    connect(m_controller, &RunController::serverPoint, this, &RunSession::serverPoint);
    connect(m_controller, &RunController::warning, this, [this](const QString& text) {
        m_probing = false;
        Q_EMIT statusText(text);
        Q_EMIT message(text, 10000);
    });
    connect(m_controller, &RunController::finished, this, &RunSession::onFinished);
    connect(m_controller, &RunController::failed, this, [this](const QString& text) {
        m_timer->stop();
        m_live.reset();
        m_snapshots.reset();
        Q_EMIT failed(text);
    });
}

RunSession::~RunSession()
{
    // The runner first: it cancels and journals what is in flight while the run's simulated
    // servers (m_resolver, destroyed with the members) are still there to talk to.
    delete m_controller;
    m_controller = nullptr;
}

bool RunSession::running() const
{
    return m_controller && m_controller->running();
}

std::shared_ptr<const RunResult> RunSession::start(
    const std::vector<EndpointEntry>& entries, const RunPanelSettings& panel)
{
    if (entries.empty()) {
        Q_EMIT statusText(QStringLiteral("Add an endpoint first (two or more to compare)."));
        return nullptr;
    }
    RunRequest request;
    try {
        request.suite = loadSuite(panel.suite);
        Q_EMIT suiteError({});
    } catch (const SuiteError& e) {
        Q_EMIT suiteError(QString::fromUtf8(e.what()));
        return nullptr;
    }
    m_resolver = std::make_unique<EndpointResolver>();
    for (const EndpointEntry& entry : entries) {
        QString error;
        std::optional<RunEndpoint> e = resolveEntry(entry, panel.settings.seed, *m_resolver, error);
        if (!e) {
            Q_EMIT statusText(QStringLiteral("%1: %2").arg(entry.endpoint.displayName(), error));
            return nullptr;
        }
        request.endpoints.push_back(std::move(*e));
    }
    request.settings = panel.settings;
    const QString dir = runsDirectory();
    if (!QDir().mkpath(dir)) {
        Q_EMIT statusText(QStringLiteral("Cannot create %1 to keep the results in.").arg(dir));
        return nullptr;
    }
    m_outPath = freshRunPath(dir);
    request.journalPath = RunJournal::journalPathFor(m_outPath);

    auto live = std::make_shared<RunResult>();
    live->toolVersion = QStringLiteral(QS_VERSION);
    live->startedAt = QDateTime::currentDateTimeUtc();
    live->suite = request.suite.raw;
    live->settings = request.settings;
    live->endpoints = request.endpoints;
    m_live = live;
    m_snapshots = std::make_unique<LiveSnapshots>(*live);
    m_controller->start(std::move(request));
    Q_EMIT statusText(QStringLiteral("Probing the endpoints…"));
    m_probing = true;
    m_liveDirty = false;
    m_timer->start();
    return std::make_shared<const RunResult>(*live);
}

void RunSession::stop()
{
    if (!running())
        return;
    m_controller->cancel();
    Q_EMIT statusText(QStringLiteral("Stopping: requests in flight are being cancelled…"));
}

SnapshotJob RunSession::takeSnapshot()
{
    if (!m_liveDirty || !m_snapshots)
        return {};
    m_liveDirty = false;
    return m_snapshots->take();
}

void RunSession::onFinished(const std::shared_ptr<const RunResult>& shared, const RunStats& stats)
{
    m_timer->stop();
    m_live.reset();
    m_snapshots.reset();
    const RunResult& result = *shared;
    Q_EMIT ended(shared);
    const int failedCount = int(std::count_if(
        result.records.begin(), result.records.end(), [](const RunRecord& r) { return !r.request.ok(); }));
    const QString summary = QStringLiteral("%1: %2 requests, %3 failed, %4 s")
                                .arg(result.complete ? QStringLiteral("Done") : QStringLiteral("Stopped"))
                                .arg(result.records.size())
                                .arg(failedCount)
                                .arg(stats.wallMs / 1000.0, 0, 'f', 1);
    Q_EMIT statusText(summary + QStringLiteral(" — saving…"));

    // Save at once: a finished run is never only in memory.
    const QString out = m_outPath;
    auto* watcher = new QFutureWatcher<QString>(this);
    connect(watcher, &QFutureWatcher<QString>::finished, this,
        [this, watcher, out, summary, complete = result.complete] {
            const QString error = watcher->result();
            watcher->deleteLater();
            if (!error.isEmpty()) {
                Q_EMIT statusText(summary + QStringLiteral(" — NOT saved: ") + error
                    + QStringLiteral(". Every request is still in the journal; use File ▸ Save As."));
                Q_EMIT saved(complete, QString());
                return;
            }
            QFile::remove(RunJournal::journalPathFor(out));
            Q_EMIT statusText(summary + QStringLiteral(" — saved to ") + QDir::toNativeSeparators(out));
            Q_EMIT saved(complete, out);
        });
    watcher->setFuture(QtConcurrent::run([shared, out] { return saveResults(*shared, out); }));
}

} // namespace qs::app
