// SPDX-License-Identifier: MIT
#include "app/dashboard/RunSession.h"

#include "app/dashboard/EntryResolution.h"
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
        QString text
            = QStringLiteral("Running: %1 of %2 requests, %3 failed").arg(p.done).arg(p.total).arg(p.failed);
        if (p.stopped > 0)
            text += QStringLiteral(", %1 stopped").arg(p.stopped);
        Q_EMIT message(text, 0);
    });
    connect(m_controller, &RunController::recordFinished, this, [this](const SharedRecord& r) {
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
    connect(m_controller, &RunController::roundFinished, this, &RunSession::onRound);
    connect(m_controller, &RunController::failed, this, [this](const QString& text) {
        m_timer->stop();
        m_live.reset();
        m_snapshots.reset();
        Q_EMIT message(QStringLiteral("Run failed: ") + text, 15000); // not "Running: …" any more
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
    const std::vector<EndpointEntry>& entries, const RunPanelSettings& panel, const DecisionProfile* profile)
{
    if (panel.untilDecided && entries.size() < 2) {
        Q_EMIT statusText(
            QStringLiteral("Until decided compares a candidate with a baseline: add a second endpoint."));
        return nullptr;
    }
    if (panel.untilDecided && !profile) {
        Q_EMIT statusText(
            QStringLiteral("Until decided needs a decision profile: choose one in the Decision tab."));
        return nullptr;
    }
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
    request.userNote = panel.note;
    m_profile.reset();
    m_rounds = UntilDecided();
    if (panel.untilDecided) {
        m_profile = *profile;
        m_pool = request.suite;
        // As `run --profile` takes it: a built-in's name, or the file.
        m_rounds.profile = profile->source.isEmpty() || profile->source.startsWith(QLatin1String("builtin:"))
            ? profile->id
            : profile->source;
        m_rounds.maxPrompts = panel.maxPrompts;
        m_rounds.budgetMinutes = panel.budgetMinutes;
        m_rounds.schedule = roundSchedule(m_pool, panel.maxPrompts);
        request.settings.promptsPerCategory = 0;
        request.rounds = m_rounds.schedule;
        request.untilDecided = toJson(m_rounds);
    }
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
    live->untilDecided = request.untilDecided;
    live->userNote = request.userNote;
    m_live = live;
    m_snapshots = std::make_unique<LiveSnapshots>(*live);
    m_controller->start(std::move(request));
    Q_EMIT statusText(QStringLiteral("Probing the endpoints…"));
    m_probing = true;
    m_liveDirty = false;
    m_timer->start();
    m_clock.start();
    return std::make_shared<const RunResult>(*live);
}

void RunSession::onRound(std::shared_ptr<const RunResult> soFar, int round)
{
    if (!m_profile) {
        m_controller->endRounds(toJson(m_rounds));
        return;
    }
    Q_EMIT statusText(QStringLiteral("Look %1: judging the prompts so far with profile \"%2\"…")
                          .arg(round)
                          .arg(m_profile->id));
    // Off the GUI thread: evaluating a round is the whole evaluation of the run so far.
    using Judged = std::pair<UntilDecided, RoundVerdict>;
    auto* watcher = new QFutureWatcher<Judged>(this);
    connect(watcher, &QFutureWatcher<Judged>::finished, this, [this, watcher] {
        const Judged judged = watcher->result();
        watcher->deleteLater();
        onLook(judged.first, judged.second);
    });
    watcher->setFuture(
        QtConcurrent::run([soFar = std::move(soFar), rounds = m_rounds, profile = *m_profile, pool = m_pool,
                              round, elapsed = double(m_clock.elapsed())]() mutable {
            RoundVerdict verdict
                = judgeRound(*soFar, rounds, profile, pool, 0, round, elapsed, soFar->settings.seed);
            releaseOnWorker(std::move(soFar));
            return Judged(std::move(rounds), std::move(verdict));
        }));
}

void RunSession::onLook(const UntilDecided& rounds, const RoundVerdict& verdict)
{
    if (!m_live || !m_snapshots)
        return; // the run ended meanwhile (stopped): what it saved says so
    m_rounds = rounds;
    const nlohmann::json record = toJson(m_rounds);
    m_live->untilDecided = record;
    m_snapshots->setUntilDecided(record);
    m_liveDirty = true;
    const DecisionLook& look = m_rounds.looks.back();
    if (verdict.more) {
        Q_EMIT statusText(
            QStringLiteral("Look %1 after %2 distinct prompts: %3 criteria still open; the next "
                           "round asks more.")
                .arg(look.look)
                .arg(look.prompts)
                .arg(verdict.needs.size()));
        m_controller->nextRound(record);
    } else {
        Q_EMIT statusText(QStringLiteral("Until decided: %1.").arg(m_rounds.stopText));
        m_controller->endRounds(record);
    }
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

void RunSession::onFinished(const std::shared_ptr<const RunResult>& given, const RunStats& stats)
{
    const std::shared_ptr<const RunResult>& shared = given;
    std::optional<nlohmann::json> stoppedRounds;
    if (m_profile && m_rounds.stop == StopReason::Running) {
        // Stopped by hand: saved saying so (any verdict of it counts every look its schedule
        // allowed, as one read from the runner's record would).
        m_rounds.stop = StopReason::Cancelled;
        m_rounds.stopText = QStringLiteral("stopped by hand after %1 look(s)").arg(m_rounds.looks.size());
        stoppedRounds = toJson(m_rounds);
    }
    m_profile.reset();
    m_timer->stop();
    m_live.reset();
    m_snapshots.reset();
    const RunResult& result = *shared;
    Q_EMIT ended(shared);
    // A request cut short by Stop is not a failure of the server: counted apart.
    const auto stoppedByHand
        = [](const RunRecord& r) { return r.request.failure.kind == FailureKind::Cancelled; };
    const int stoppedCount = int(std::count_if(result.records.begin(), result.records.end(), stoppedByHand));
    const int failedCount = int(std::count_if(result.records.begin(), result.records.end(),
                                [](const RunRecord& r) { return !r.request.ok(); }))
        - stoppedCount;
    QString summary = QStringLiteral("%1: %2 requests, %3 failed")
                          .arg(result.complete ? QStringLiteral("Done") : QStringLiteral("Stopped"))
                          .arg(result.records.size())
                          .arg(failedCount);
    if (stoppedCount > 0)
        summary += QStringLiteral(", %1 stopped").arg(stoppedCount);
    summary += QStringLiteral(", %1 s").arg(stats.wallMs / 1000.0, 0, 'f', 1);
    Q_EMIT statusText(summary + QStringLiteral(" — saving…"));
    // The status bar's "Running: …" is over: the run's own line replaces it.
    Q_EMIT message(summary, 15000);

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
    watcher->setFuture(QtConcurrent::run([shared, out, stoppedRounds] {
        if (!stoppedRounds)
            return saveResults(*shared, out);
        RunResult patched = *shared; // on the worker: a run of hours is a large copy
        patched.untilDecided = *stoppedRounds;
        return saveResults(patched, out);
    }));
}

} // namespace qs::app
