// SPDX-License-Identifier: MIT
#include "model/run/BenchmarkRunner.h"

#include "model/core/Clock.h"
#include "model/run/ContextBuilder.h"
#include "model/run/SuiteComposition.h"
#include "model/run/TelemetryRecorder.h"
#include "model/wire/EndpointProbe.h"
#include "model/wire/StreamThreads.h"
#include "model/wire/StreamingClient.h"

#include <QHostInfo>
#include <QThread>
#include <QTimer>
#include <ctime>
#include <deque>
#include <map>

namespace qs {

namespace {
double threadCpuMs()
{
    timespec ts {};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) / 1e6;
}
} // namespace

/// One stream position: a client (and its kept-alive connection) to one endpoint, running one
/// conversation at a time.
struct BenchmarkRunner::Slot {
    int id = 0;
    int endpoint = 0;
    Lane* lane = nullptr;
    StreamingClient* client = nullptr;
    std::optional<Conversation> conversation;
    int test = 0;
    int iteration = 0;
    bool warmup = false;
    int level = 1;
    bool busy = false;
    bool newRequest = true;
};

struct BenchmarkRunner::Lane {
    std::vector<Wave> waves;
    std::size_t wave = 0;
    bool waveStarted = false;
    std::deque<int> pending; ///< iterations of the current wave not started yet
    std::map<std::pair<int, int>, std::unique_ptr<Slot>>
        streams; ///< by (endpoint, slot index); "slots" is a Qt macro
    int active = 0;
    bool done = false;
    // For the ETA: lanes run side by side (parallel order: one per endpoint), so each has its own
    // pace, and the run ends with its slowest lane.
    qint64 startNs = 0; ///< its first request's start
    qint64 lastNs = 0; ///< its latest request's end
    int planned = 0; ///< requests planned on it (shrinks when a conversation is abandoned)
    int finished = 0;
};

BenchmarkRunner::BenchmarkRunner(QObject* parent)
    : QObject(parent)
{
    qRegisterMetaType<qs::RunProgress>();
    qRegisterMetaType<qs::LiveDelta>();
    qRegisterMetaType<QList<qs::LiveDelta>>();
    qRegisterMetaType<qs::RunStats>();
    qRegisterMetaType<qs::RunRecord>();
    qRegisterMetaType<qs::RunResult>();
    qRegisterMetaType<qs::ServerPoint>();
    qRegisterMetaType<qs::Telemetry>();
}

BenchmarkRunner::~BenchmarkRunner()
{
    if (!m_telemetryThread)
        return;
    stopTelemetryNow(QString()); // no sample is journaled after this
    m_telemetryThread->quit();
    m_telemetryThread->wait(); // the recorder is deleted in its thread as it ends
}

void BenchmarkRunner::start(RunRequest request)
{
    Q_ASSERT(!m_running);
    m_running = true;
    m_cancel = false;
    m_request = std::move(request);
    m_round = 0;
    m_betweenRounds = false;
    m_lastRound = false;
    m_pool = Suite();
    if (!m_request.rounds.empty()) {
        // Rounds draw ever more prompts of each category from the whole suite: the first now.
        m_pool = m_request.suite;
        m_request.suite = drawPrompts(m_pool, m_request.rounds.front(), m_request.settings.seed);
    } else {
        // A short run (the demo's) asks a few prompts of each category; the file keeps only those.
        m_request.suite
            = drawPrompts(m_request.suite, m_request.settings.promptsPerCategory, m_request.settings.seed);
    }
    m_result = RunResult();
    m_result.untilDecided = m_request.untilDecided;
    m_sharedJson.clear();
    m_journaled.clear();
    m_recordsInJournal = false;
    m_urls.assign(m_request.endpoints.size(), QUrl());
    m_result.toolVersion = QStringLiteral(QS_VERSION);
    m_result.host = QHostInfo::localHostName();
    m_result.startedAt = QDateTime::currentDateTimeUtc();
    m_result.suite = m_request.suite.raw;
    m_result.settings = m_request.settings;
    m_result.endpoints = m_request.endpoints;
    m_result.userNote = m_request.userNote;
    m_stats = RunStats();
    m_progress = RunProgress();
    m_startNs = monotonicNs();
    m_cpuStartMs = threadCpuMs();
    if (m_request.streamThreads <= 0)
        m_streamThreads.reset();
    else if (!m_streamThreads || m_streamThreads->size() != m_request.streamThreads)
        m_streamThreads = StreamThreads::create(m_request.streamThreads);
    m_streamThreadsCpuStartMs = m_streamThreads ? m_streamThreads->cpuMs() : 0;
    m_usable.assign(m_request.endpoints.size(), true);
    m_warmupCounter.assign(m_request.endpoints.size(), 0);
    if (!m_liveTimer) {
        m_liveTimer = new QTimer(this);
        m_liveTimer->setInterval(50);
        connect(m_liveTimer, &QTimer::timeout, this, &BenchmarkRunner::flushLive);
    }
    try {
        m_gatePatterns = gatePatternsFor(m_request.suite);
    } catch (const std::exception& e) {
        m_running = false;
        Q_EMIT failed(
            QStringLiteral("the suite's gate patterns are invalid: %1").arg(QString::fromUtf8(e.what())));
        return;
    }
    if (m_request.endpoints.empty() || m_request.suite.tests.empty()) {
        m_running = false;
        Q_EMIT failed(m_request.endpoints.empty() ? QStringLiteral("no endpoint to run against")
                                                  : QStringLiteral("the suite has no tests"));
        return;
    }
    if (!m_request.probe) {
        beginRequests();
        return;
    }
    // Probe every endpoint at once: learn model, runtime and properties, and drop dead ones now
    // rather than after a hundred timeouts.
    m_probesPending = int(m_request.endpoints.size());
    for (std::size_t i = 0; i < m_request.endpoints.size(); ++i) {
        auto* probe = new EndpointProbe(this);
        m_probes.push_back(probe);
        connect(
            probe, &EndpointProbe::finished, this, [this, i](const ProbeResult& r) { onProbed(int(i), r); });
        probe->start(m_request.endpoints[i].endpoint, 3);
    }
}

void BenchmarkRunner::onProbed(int endpoint, const ProbeResult& probe)
{
    RunEndpoint& e = m_result.endpoints[std::size_t(endpoint)];
    e.probe = toJson(probe);
    const QString label = e.endpoint.label;
    if (probe.usable()) {
        e.endpoint = probe.endpoint; // model and runtime as discovered
        e.endpoint.label = label;
    } else {
        m_usable[std::size_t(endpoint)] = false;
        Q_EMIT warning(QStringLiteral("%1 (%2) is not usable and is skipped: %3")
                           .arg(e.endpoint.displayName(), e.spec, probe.failure.text()));
    }
    for (const QString& w : probe.warnings)
        Q_EMIT warning(QStringLiteral("%1: %2").arg(e.endpoint.displayName(), w));
    if (--m_probesPending > 0)
        return;
    for (EndpointProbe* p : m_probes)
        p->deleteLater();
    m_probes.clear();
    if (m_cancel) {
        finishRun();
        return;
    }
    beginRequests();
}

void BenchmarkRunner::beginRequests()
{
    bool any = false;
    for (bool u : m_usable)
        any = any || u;
    if (!any) {
        m_running = false;
        QString why;
        for (const RunEndpoint& e : m_result.endpoints) {
            const auto f = e.probe.value("failure", nlohmann::json());
            why += QStringLiteral("\n  %1: %2")
                       .arg(e.endpoint.displayName(),
                           f.is_object() ? QString::fromStdString(f.value("summary", std::string()))
                                         : QStringLiteral("not usable"));
        }
        Q_EMIT failed(QStringLiteral("no endpoint is reachable, nothing was run:") + why);
        return;
    }
    // A test the server's context cannot hold would only come back as a 400 (or, worse, a prompt
    // cut silently by the server): refuse it now, with the flag to raise.
    // With rounds, every prompt a later round may draw: better refused now than after an hour.
    if (const QString refusal = contextRefusal(m_request.rounds.empty() ? m_request.suite : m_pool,
            m_result.endpoints, m_usable, m_request.settings);
        !refusal.isEmpty()) {
        m_running = false;
        Q_EMIT failed(refusal);
        return;
    }
    std::vector<TelemetryTarget> targets;
    m_result.telemetry = Telemetry();
    if (m_request.settings.serverMetrics) {
        m_result.telemetry.periodMs = m_request.settings.scrapeMs;
        targets = telemetryTargets(m_result.endpoints, m_usable);
        if (targets.empty())
            m_result.telemetry.notes << QStringLiteral(
                "nothing to scrape: no endpoint's /metrics answered and no metrics URL was given");
    } else {
        m_result.telemetry.notes << QStringLiteral("scraping off (--no-server-metrics)");
    }
    if (!m_request.journalPath.isEmpty()) {
        // With rounds the journal names every test a round may ask: a run recovered from it then
        // knows each record's test whichever round it came from.
        if (!m_request.rounds.empty())
            m_result.suite = m_pool.raw;
        const QString error = m_journal.open(m_request.journalPath, m_result);
        m_result.suite = m_request.suite.raw;
        if (!error.isEmpty()) {
            m_running = false;
            Q_EMIT failed(
                QStringLiteral("cannot write the journal %1: %2").arg(m_request.journalPath, error));
            return;
        }
        // A run with rounds judges every record so far after each round: those stay in memory.
        m_recordsInJournal = m_journal.canReadBack() && m_request.rounds.empty();
    }
    planRound();
    if (!targets.empty()) {
        startTelemetry(std::move(targets)); // the requests begin once the idle baseline is taken
        return;
    }
    launchRequests();
}

void BenchmarkRunner::planRound()
{
    m_plan = makePlan(m_request.suite, int(m_result.endpoints.size()), m_request.settings);
    for (auto& lane : m_lanes)
        for (auto& [key, slot] : lane->streams)
            slot->client->deleteLater(); // a round's last record may still be on its stack
    m_lanes.clear();
    for (auto& waves : m_plan.lanes) {
        auto lane = std::make_unique<Lane>();
        for (Wave& w : waves) {
            if (!m_usable[std::size_t(w.endpoint)])
                continue;
            const int requests = int(w.iterations.size())
                * (w.warmup ? 1 : m_request.suite.tests[std::size_t(w.test)].turnCount());
            m_progress.total += requests;
            lane->planned += requests;
            lane->waves.push_back(std::move(w));
        }
        m_lanes.push_back(std::move(lane));
    }
}

void BenchmarkRunner::launchRequests()
{
    m_liveTimer->start();
    emitProgress(nullptr);
    for (auto& lane : m_lanes)
        pump(*lane);
}

void BenchmarkRunner::pump(Lane& lane)
{
    for (;;) {
        if (lane.done)
            return;
        if (m_cancel) {
            if (lane.active == 0) {
                lane.done = true;
                finishRun();
            }
            return;
        }
        if (!lane.waveStarted) {
            if (lane.wave >= lane.waves.size()) {
                lane.done = true;
                finishRun();
                return;
            }
            const Wave& w = lane.waves[lane.wave];
            lane.pending.assign(w.iterations.begin(), w.iterations.end());
            lane.waveStarted = true;
        }
        const Wave& w = lane.waves[lane.wave];
        for (int i = 0; i < w.inFlight && !lane.pending.empty(); ++i) {
            auto& slot = lane.streams[{w.endpoint, i}];
            if (!slot) {
                slot = std::make_unique<Slot>();
                slot->id = m_nextSlotId++;
                slot->endpoint = w.endpoint;
                slot->lane = &lane;
                slot->client = m_streamThreads ? new StreamingClient(m_streamThreads, this)
                                               : new StreamingClient(this);
                Slot* s = slot.get();
                connect(s->client, &StreamingClient::finished, this,
                    [this, s](const RequestRecord& r) { onRequestFinished(*s, r); });
                s->client->onChunk = [this, s](const StreamChunk& chunk, qint64 stampNs) {
                    if (!chunk.carriesToken())
                        return;
                    LiveDelta d;
                    d.slot = s->id;
                    d.endpoint = s->endpoint;
                    d.test = m_request.suite.tests[std::size_t(s->test)].id;
                    d.turn = s->conversation ? s->conversation->turn() : 0;
                    d.iteration = s->iteration;
                    d.warmup = s->warmup;
                    d.content = chunk.content;
                    d.reasoning = chunk.reasoning;
                    d.toolCall = !chunk.toolCalls.empty();
                    d.started = std::exchange(s->newRequest, false);
                    d.atMs = msBetween(m_startNs, stampNs);
                    m_live.append(std::move(d));
                    ++m_stats.tokenEvents;
                };
            }
            if (slot->busy)
                continue;
            const int iteration = lane.pending.front();
            lane.pending.pop_front();
            slot->test = w.test;
            slot->iteration = iteration;
            slot->warmup = w.warmup;
            slot->level = w.inFlight;
            const int warmupIndex = w.warmup ? m_warmupCounter[std::size_t(w.endpoint)]++ : 0;
            slot->conversation.emplace(
                m_request.suite, w.test, m_request.settings, iteration, w.warmup, warmupIndex);
            slot->busy = true;
            ++lane.active;
            launch(*slot);
        }
        if (lane.pending.empty() && lane.active == 0) {
            ++lane.wave;
            lane.waveStarted = false;
            continue;
        }
        return;
    }
}

void BenchmarkRunner::launch(Slot& slot)
{
    Endpoint endpoint = m_result.endpoints[std::size_t(slot.endpoint)].endpoint;
    if (m_request.settings.requestTimeoutMs > 0)
        endpoint.timeouts.totalMs = m_request.settings.requestTimeoutMs;
    slot.newRequest = true;
    ++m_progress.inFlight;
    if (slot.lane->startNs == 0)
        slot.lane->startNs = monotonicNs();
    emitProgress(&slot);
    slot.client->start(endpoint, slot.conversation->request());
}

void BenchmarkRunner::onRequestFinished(Slot& slot, const RequestRecord& request)
{
    --m_progress.inFlight;
    Conversation& conversation = *slot.conversation;
    auto shared = std::make_shared<RunRecord>();
    RunRecord& record = *shared;
    record.endpoint = slot.endpoint;
    record.test = m_request.suite.tests[std::size_t(slot.test)].id;
    record.turn = conversation.turn();
    record.iteration = slot.iteration;
    record.warmup = slot.warmup;
    record.concurrency = slot.level;
    const qint64 t0 = request.timing.t0Ns ? request.timing.t0Ns : request.timing.startNs;
    record.startOffsetMs = msBetween(m_startNs, t0);
    record.startedAt = m_result.startedAt.addMSecs(qint64(record.startOffsetMs));
    record.request = request;
    // Every request of an endpoint goes to the same URL: held once (a URL is ~0.3 KB a record).
    QUrl& url = m_urls[std::size_t(slot.endpoint)];
    if (url == record.request.url)
        record.request.url = url;
    else
        url = record.request.url;
    ++m_stats.requests;
    // Judge the answer now, so the journal, the live view and the file all carry the verdicts.
    applyGates(record, m_request.suite, *m_gatePatterns);
    internJson(record, m_sharedJson); // most iterations repeat a body and its verdicts

    if (m_journal.isOpen()) {
        // Said once (a full disk fails every append): the run goes on, every request stays in
        // memory for the results file, and the journal marks where lines are missing.
        JournalSpan line;
        const QString error = m_journal.append(record, &line);
        if (m_recordsInJournal)
            m_journaled.push_back(line);
        if (m_recordsInJournal && line.written())
            record.request.response.tokenEvents = TokenTimeline(); // its metrics are computed
        if (!error.isEmpty() && m_journal.failedRecords() == 1)
            Q_EMIT warning(QStringLiteral("%1. The run goes on and keeps every request for the results file "
                                          "saved at the end; until then a crash loses what the journal "
                                          "missed. Free space or fix the folder; later journal failures "
                                          "are not reported.")
                               .arg(error));
    }
    if (!m_recordsInJournal || !m_journaled.back().written())
        m_result.records.push_back(SharedRecord(shared));
    ++m_progress.done;
    ++slot.lane->finished;
    slot.lane->lastNs = monotonicNs();
    if (request.failure.kind == FailureKind::Cancelled)
        ++m_progress.stopped; // cut short by Stop: not the server's failure
    else if (!request.ok())
        ++m_progress.failed;
    Q_EMIT recordFinished(std::move(shared));

    if (request.ok())
        conversation.addReply(request);
    else {
        // Later turns would build on a missing reply: not comparable. Count them as not run.
        const int remaining = conversation.turnCount() - conversation.turn();
        m_progress.total -= remaining;
        slot.lane->planned -= remaining;
        conversation.abandon();
    }
    emitProgress(nullptr);

    // Continue on the next event-loop pass, not inside the client's own signal.
    Slot* s = &slot;
    QMetaObject::invokeMethod(
        this,
        [this, s] {
            if (!s->conversation->done() && !m_cancel) {
                launch(*s);
                return;
            }
            if (!s->conversation->done()) { // cancelled mid-conversation: its remaining turns never run
                const int remaining = s->conversation->turnCount() - s->conversation->turn() + 1;
                m_progress.total -= remaining;
                s->lane->planned -= remaining;
            }
            s->busy = false;
            --s->lane->active;
            pump(*s->lane);
        },
        Qt::QueuedConnection);
}

void BenchmarkRunner::emitProgress(const Slot* started)
{
    m_progress.elapsedMs = msBetween(m_startNs, monotonicNs());
    if (started) {
        m_progress.endpoint = started->endpoint;
        m_progress.endpointLabel = m_result.endpoints[std::size_t(started->endpoint)].endpoint.displayName();
        m_progress.test = m_request.suite.tests[std::size_t(started->test)].id;
        m_progress.turn = started->conversation->turn();
        m_progress.iteration = started->iteration;
        m_progress.warmup = started->warmup;
    }
    m_progress.etaMs = etaMs();
    Q_EMIT progress(m_progress);
}

std::optional<double> BenchmarkRunner::etaMs() const
{
    // Each lane at its own measured pace (time since its first request per finished request,
    // which counts its concurrency); the run ends with the slowest. A lane that has finished
    // nothing yet is taken at the slowest pace measured. Pooling the lanes would promise the
    // fast endpoint's pace for the slow one's requests.
    // A lane still working is timed up to now (its request in flight counts); one that is done,
    // up to its last request, so its pace does not slow as the others go on.
    const qint64 now = monotonicNs();
    const auto paceOf = [now](const Lane& lane) {
        const bool working = lane.planned > lane.finished;
        return msBetween(lane.startNs, working ? now : lane.lastNs) / lane.finished;
    };
    double slowestPace = 0;
    for (const auto& lane : m_lanes)
        if (lane->finished > 0 && lane->startNs > 0)
            slowestPace = std::max(slowestPace, paceOf(*lane));
    if (slowestPace <= 0)
        return std::nullopt;
    double eta = 0;
    for (const auto& lane : m_lanes) {
        const int left = lane->planned - lane->finished;
        if (left <= 0)
            continue;
        const double pace = lane->finished > 0 && lane->startNs > 0 ? paceOf(*lane) : slowestPace;
        eta = std::max(eta, pace * left);
    }
    return eta > 0 ? std::optional<double>(eta) : std::nullopt;
}

void BenchmarkRunner::flushLive()
{
    if (m_live.isEmpty())
        return;
    Q_EMIT liveDeltas(m_live);
    m_live.clear();
}

void BenchmarkRunner::finishRun()
{
    if (!m_running || m_telemetryState == TelemetryState::Finishing)
        return;
    for (const auto& lane : m_lanes)
        if (!lane->done)
            return;
    if (pauseForRound())
        return;
    if (m_liveTimer)
        m_liveTimer->stop();
    flushLive();
    m_result.endedAt = QDateTime::currentDateTimeUtc();
    m_result.complete = !m_cancel;
    if (m_cancel)
        m_result.note = QStringLiteral("cancelled by the user after %1 of %2 requests")
                            .arg(m_progress.done)
                            .arg(m_progress.total);
    readBackRecords();
    warnCorruptedStreams();
    m_stats.wallMs = msBetween(m_startNs, monotonicNs());
    m_stats.runnerCpuMs = threadCpuMs() - m_cpuStartMs;
    if (m_streamThreads) {
        m_stats.streamThreads = m_streamThreads->size();
        m_stats.streamThreadsCpuMs = m_streamThreads->cpuMs() - m_streamThreadsCpuStartMs;
    }
    if (m_telemetryState != TelemetryState::Off) {
        // The idle_after baseline belongs in the journal and the result: wait for it (bounded).
        m_telemetryState = TelemetryState::Finishing;
        m_telemetryTimer->start(TelemetryRecorder::finishBoundMs(m_request.settings.scrapeMs));
        TelemetryRecorder* recorder = m_recorder;
        QMetaObject::invokeMethod(
            recorder, [recorder] { recorder->finish(); }, Qt::QueuedConnection);
        return;
    }
    completeRun();
}

void BenchmarkRunner::warnCorruptedStreams()
{
    // Each such request is already a failure with its bytes quoted; this says where, at the end,
    // so a proxy damaging one endpoint's streams is not lost among the run's other failures.
    std::map<int, std::pair<int, int>> perEndpoint; // requests, of which corrupted
    for (const RunRecord& r : std::as_const(m_result.records)) { // const: never copies a shared record
        auto& [requests, corrupted] = perEndpoint[r.endpoint];
        ++requests;
        corrupted += r.request.failure.kind == FailureKind::MalformedStream ? 1 : 0;
    }
    for (const auto& [endpoint, counts] : perEndpoint) {
        if (counts.second == 0)
            continue;
        Q_EMIT warning(QStringLiteral("%1: %2 of %3 requests had corrupted streams (events that were not "
                                      "valid JSON); they count as failed and are left out of the statistics")
                           .arg(m_result.endpoints[std::size_t(endpoint)].endpoint.displayName())
                           .arg(counts.second)
                           .arg(counts.first));
    }
}

void BenchmarkRunner::readBackRecords()
{
    if (!std::exchange(m_recordsInJournal, false))
        return;
    std::vector<JournalSpan> written;
    written.reserve(m_journaled.size());
    for (const JournalSpan& line : m_journaled)
        if (line.written())
            written.push_back(line);
    QStringList errors;
    std::vector<std::optional<RunRecord>> back = m_journal.readBackRecords(written, &errors);
    // In the order the requests finished: read back where a line was written, held otherwise.
    RecordList held = std::exchange(m_result.records, RecordList());
    m_result.records.reserve(m_journaled.size());
    std::size_t next = 0, nextHeld = 0;
    int lost = 0;
    for (const JournalSpan& line : m_journaled) {
        if (!line.written()) {
            m_result.records.push_back(held.shared(nextHeld++));
            continue;
        }
        std::optional<RunRecord>& record = back[next++];
        if (!record) {
            ++lost;
            continue;
        }
        internJson(*record, m_sharedJson);
        m_result.records.push_back(std::move(*record));
    }
    m_journaled.clear();
    if (lost > 0) {
        const QString why
            = QStringLiteral("%1 finished requests could not be read back from the run's journal "
                             "(%2); they are not in the results")
                  .arg(lost)
                  .arg(errors.isEmpty() ? QStringLiteral("the journal was changed during the run")
                                        : errors.first());
        m_result.note = m_result.note.isEmpty() ? why : m_result.note + QStringLiteral("; ") + why;
        Q_EMIT warning(why);
    }
}

void BenchmarkRunner::completeRun()
{
    m_running = false;
    m_journal.close(false); // the owner removes it once the results file is safely written
    for (auto& lane : m_lanes)
        for (auto& [key, slot] : lane->streams)
            slot->client->deleteLater(); // we may be inside one of its signals
    m_lanes.clear();
    // Handed over, not kept: the owner holds the finished result (often tens of thousands of
    // records), and a copy left here would stay allocated until the next run starts.
    Q_EMIT finished(std::make_shared<const RunResult>(std::exchange(m_result, RunResult())), m_stats);
}

void BenchmarkRunner::cancel()
{
    m_cancel = true;
    QMetaObject::invokeMethod(
        this, [this] { doCancel(); }, Qt::QueuedConnection);
}

void BenchmarkRunner::abortNow()
{
    m_cancel = true;
    doCancel();
    stopTelemetryNow(QStringLiteral("telemetry stopped: the run was aborted"));
}

void BenchmarkRunner::doCancel()
{
    if (!m_running)
        return;
    if (std::exchange(m_betweenRounds, false)) {
        finishRun(); // nothing in flight: the run ends with the rounds so far
        return;
    }
    for (EndpointProbe* p : m_probes)
        p->cancel();
    for (auto& lane : m_lanes) {
        lane->pending.clear();
        for (auto& [key, slot] : lane->streams)
            if (slot->busy)
                slot->client->cancel();
        pump(*lane);
    }
}

} // namespace qs
