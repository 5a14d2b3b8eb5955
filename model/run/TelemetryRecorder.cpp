// SPDX-License-Identifier: MIT
#include "model/run/TelemetryRecorder.h"

#include "model/core/Clock.h"
#include "model/core/Platform.h"
#include "model/store/RunJournal.h"
#include "model/wire/ScrapeReduction.h"

#include <QSet>
#include <QTimer>
#include <algorithm>

namespace qs {

/// One distinct URL (and key) and the sources that record its page.
struct TelemetryRecorder::Page {
    MetricsScrape* scrape = nullptr;
    ScrapeRequest request;
    std::vector<int> sources;
    TelemetrySample::Phase phase = TelemetrySample::Phase::Run; ///< of the scrape in flight
    bool runtime = false; ///< some source of it is a runtime's own page
};

/// Whether a source is answering, for the down/back notes.
struct TelemetryRecorder::Health {
    bool down = false;
    QString lastError;
    double downSinceMs = 0;
    int failures = 0;
};

namespace {
QString seconds(double ms)
{
    return QStringLiteral("%1 s").arg(ms / 1000, 0, 'f', 1);
}
} // namespace

std::vector<TelemetryTarget> telemetryTargets(
    const std::vector<RunEndpoint>& endpoints, const std::vector<bool>& usable)
{
    std::vector<TelemetryTarget> targets;
    for (std::size_t i = 0; i < endpoints.size(); ++i) {
        if (i < usable.size() && !usable[i])
            continue;
        const Endpoint& e = endpoints[i].endpoint;
        const nlohmann::json& probe = endpoints[i].probe;
        // Probed: scrape the runtime's page only when it answered. Not probed: try it; a page
        // that never answers shows as a gap with its reason.
        bool runtimeAnswers = true;
        if (probe.is_object() && probe.contains("metrics"))
            runtimeAnswers = probe["metrics"].is_object() && probe["metrics"].value("answered", false);
        QSet<QString> seen;
        const auto add = [&](const QUrl& url, TelemetrySource::Kind kind) {
            if (!url.isValid() || url.host().isEmpty() || seen.contains(url.toString()))
                return;
            seen.insert(url.toString());
            TelemetryTarget t;
            t.endpoint = int(i);
            t.url = url;
            t.kind = kind;
            t.runtime = e.runtime;
            if (kind == TelemetrySource::Kind::Runtime)
                t.apiKeyEnv = e.apiKeyEnv;
            targets.push_back(t);
        };
        if (runtimeAnswers)
            add(e.url(QStringLiteral("/metrics")), TelemetrySource::Kind::Runtime);
        else
            seen.insert(e.url(QStringLiteral("/metrics")).toString()); // listed again as an extra: still off
        for (const QString& url : e.metricsUrls)
            add(QUrl(url), TelemetrySource::Kind::Exporter);
    }
    return targets;
}

TelemetryRecorder::TelemetryRecorder(QObject* parent)
    : QObject(parent)
    , m_tick(new QTimer(this))
    , m_poll(new QTimer(this))
{
    qRegisterMetaType<qs::ServerPoint>();
    qRegisterMetaType<qs::Telemetry>();
    // Precise: the samples should be evenly spaced; the timer costs nothing at 3 Hz.
    m_tick->setTimerType(Qt::PreciseTimer);
    connect(m_tick, &QTimer::timeout, this, &TelemetryRecorder::tick);
    m_poll->setSingleShot(true);
    connect(m_poll, &QTimer::timeout, this, [this] { scrapeAll(TelemetrySample::Phase::Run, true); });
}

TelemetryRecorder::~TelemetryRecorder() = default;

int TelemetryRecorder::scrapeTimeoutMs(int periodMs)
{
    return std::clamp(periodMs, 2000, 5000);
}

int TelemetryRecorder::finishBoundMs(int periodMs)
{
    // Idle wait (3 s) + one poll past it + the scrape in flight + the IdleAfter scrape, + slack.
    return 3000 + 3 * scrapeTimeoutMs(periodMs) + 2000;
}

namespace {
// Parsing a 100 KB page takes about a millisecond of CPU: on a 2-core laptop that is a core the
// runner's stamps may be waiting for. Nice 10 (this thread only) gives the runner and the GUI the
// CPU first under contention, yet never starves the scrapes the way SCHED_IDLE would on a busy
// machine. The samples' stamps are taken when each request is written, so they stay exact.
void yieldToTheRunner()
{
    platform::lowerThisThreadPriority(10);
}
} // namespace

void TelemetryRecorder::start(
    std::vector<TelemetryTarget> targets, int periodMs, qint64 originNs, RunJournal* journal)
{
    stop();
    yieldToTheRunner();
    m_telemetry = Telemetry();
    m_telemetry.periodMs = periodMs;
    m_periodMs = qMax(1, periodMs);
    m_originNs = originNs;
    m_journal = journal;
    m_journalFailed = false;
    m_skipped = 0;
    for (Page& p : m_pages) {
        p.scrape->disconnect(this);
        p.scrape->deleteLater();
    }
    m_pages.clear();
    for (const TelemetryTarget& t : targets) {
        TelemetrySource source;
        source.endpoint = t.endpoint;
        source.url = t.url.toString();
        source.kind = t.kind;
        const int index = int(m_telemetry.sources.size());
        m_telemetry.sources.push_back(source);
        Endpoint keyed;
        keyed.apiKeyEnv = t.apiKeyEnv;
        const QString key = keyed.apiKey();
        auto page = std::find_if(m_pages.begin(), m_pages.end(),
            [&](const Page& p) { return p.request.url == t.url && p.request.apiKey == key; });
        if (page == m_pages.end()) {
            Page p;
            p.scrape = new MetricsScrape(this);
            p.request.url = t.url;
            p.request.kind = t.kind;
            p.request.runtime = t.runtime;
            p.request.apiKey = key;
            p.request.timeoutMs = scrapeTimeoutMs(periodMs);
            m_pages.push_back(p);
            page = m_pages.end() - 1;
        }
        page->sources.push_back(index);
        if (t.kind == TelemetrySource::Kind::Runtime) {
            // The runtime's advice wins when a page is both (one endpoint's runtime, another's extra).
            page->runtime = true;
            page->request.kind = t.kind;
            page->request.runtime = t.runtime;
        }
    }
    for (std::size_t i = 0; i < m_pages.size(); ++i)
        connect(m_pages[i].scrape, &MetricsScrape::finished, this, [this, i] { onScraped(m_pages[i]); });
    m_health.assign(m_telemetry.sources.size(), Health());
    m_lastSample.assign(m_telemetry.sources.size(), -1);
    m_stage = Stage::Baseline;
    scrapeAll(TelemetrySample::Phase::IdleBefore);
    advance(); // no targets: the baseline is done at once
}

void TelemetryRecorder::scrape(Page& page, TelemetrySample::Phase phase)
{
    page.phase = phase;
    page.scrape->start(page.request);
}

void TelemetryRecorder::scrapeAll(TelemetrySample::Phase phase, bool runtimeOnly)
{
    for (Page& p : m_pages)
        if (!p.scrape->busy() && (!runtimeOnly || p.runtime))
            scrape(p, phase);
}

void TelemetryRecorder::tick()
{
    for (Page& p : m_pages) {
        if (p.scrape->busy())
            ++m_skipped; // still busy from the previous tick: its sample would only pile up
        else
            scrape(p, TelemetrySample::Phase::Run);
    }
}

bool TelemetryRecorder::anyBusy() const
{
    return std::any_of(m_pages.begin(), m_pages.end(), [](const Page& p) { return p.scrape->busy(); });
}

void TelemetryRecorder::onScraped(Page& page)
{
    if (m_stage == Stage::Idle || m_stage == Stage::Done)
        return; // stopped meanwhile: nothing more is recorded
    const ScrapeOutcome& outcome = page.scrape->outcome();
    for (int source : page.sources)
        record(source, outcome, page.phase);
    advance();
}

void TelemetryRecorder::note(int sourceIndex, double atMs, const QString& text)
{
    m_telemetry.sources[std::size_t(sourceIndex)].notes << seconds(atMs) + QStringLiteral(": ") + text;
}

void TelemetryRecorder::record(int sourceIndex, const ScrapeOutcome& outcome, TelemetrySample::Phase phase)
{
    TelemetrySource& source = m_telemetry.sources[std::size_t(sourceIndex)];
    Health& health = m_health[std::size_t(sourceIndex)];
    const double atMs = msBetween(m_originNs, outcome.writtenNs);
    TelemetrySample sample;
    if (outcome.ok()) {
        sample = reducePage(*outcome.page, source, sourceIndex, atMs, outcome.durationMs, phase);
        if (health.down)
            note(sourceIndex, atMs,
                QStringLiteral("%1 back (down %2, %3 failed scrapes)")
                    .arg(source.url, seconds(atMs - health.downSinceMs))
                    .arg(health.failures));
        health = Health();
        if (outcome.processStartUnix) {
            if (source.processStartUnix && *source.processStartUnix != *outcome.processStartUnix)
                note(sourceIndex, atMs,
                    QStringLiteral("%1: the server restarted (Process-Start-Time-Unix %2 → %3); its "
                                   "counters started again from 0")
                        .arg(source.url)
                        .arg(*source.processStartUnix, 0, 'f', 0)
                        .arg(*outcome.processStartUnix, 0, 'f', 0));
            source.processStartUnix = outcome.processStartUnix;
        }
    } else {
        sample = failedSample(sourceIndex, atMs, outcome.durationMs, phase, outcome.error);
        // One note when a source goes down (or fails differently), one when it is back.
        if (!health.down || health.lastError != outcome.error)
            note(sourceIndex, atMs, outcome.error);
        if (!health.down)
            health.downSinceMs = atMs;
        health.down = true;
        health.lastError = outcome.error;
        ++health.failures;
    }
    m_lastSample[std::size_t(sourceIndex)] = int(m_telemetry.samples.size());
    m_telemetry.samples.push_back(sample);
    if (m_journal) {
        // Kept trying after a failure (a disk that fills may free up again): the journal marks
        // the samples it missed with a journal_gap line, and recovery says how many.
        const QString error = m_journal->appendTelemetry(sourceIndex, source, sample);
        if (!error.isEmpty() && !m_journalFailed) {
            m_journalFailed = true; // said once; the samples are still in the results file
            m_telemetry.notes << QStringLiteral("journal write failed from %1 on (the samples are kept in "
                                                "the results file; the journal marks what it missed): %2")
                                     .arg(seconds(atMs), error);
        }
    }
    Q_EMIT serverPoint(qs::serverPoint(source, sample));
}

std::optional<double> TelemetryRecorder::runtimeLoad() const
{
    std::optional<double> load;
    for (std::size_t i = 0; i < m_telemetry.sources.size(); ++i) {
        const TelemetrySource& source = m_telemetry.sources[i];
        if (source.kind != TelemetrySource::Kind::Runtime || m_lastSample[i] < 0)
            continue;
        const TelemetrySample& s = m_telemetry.samples[std::size_t(m_lastSample[i])];
        const auto running = readRole(source, s, MetricRole::RequestsRunning);
        const auto waiting = readRole(source, s, MetricRole::RequestsWaiting);
        if (running || waiting)
            load = load.value_or(0) + running.value_or(0) + waiting.value_or(0);
    }
    return load;
}

void TelemetryRecorder::finish()
{
    if (m_stage == Stage::Idle || m_stage == Stage::Done)
        return;
    m_tick->stop();
    m_stage = Stage::Draining;
    m_polled = false;
    m_drainDeadlineNs = monotonicNs() + qint64(3000) * 1000000;
    advance();
}

void TelemetryRecorder::advance()
{
    if (anyBusy())
        return;
    switch (m_stage) {
    case Stage::Baseline:
        m_stage = Stage::Running;
        if (!m_pages.empty())
            m_tick->start(m_periodMs);
        Q_EMIT baselineDone();
        return;
    case Stage::Draining: {
        const bool anyRuntime
            = std::any_of(m_pages.begin(), m_pages.end(), [](const Page& p) { return p.runtime; });
        if (anyRuntime && !m_polled) {
            // A fresh look: the last tick may predate the last request's end.
            m_polled = true;
            scrapeAll(TelemetrySample::Phase::Run, true);
            return;
        }
        const double load = runtimeLoad().value_or(0);
        if (load > 0 && monotonicNs() < m_drainDeadlineNs) {
            m_poll->start(100);
            return;
        }
        if (load > 0)
            m_telemetry.notes << QStringLiteral("the servers still reported %1 request(s) running or waiting "
                                                "3 s after the last one ended; idle_after was taken anyway")
                                     .arg(load);
        m_stage = Stage::After;
        scrapeAll(TelemetrySample::Phase::IdleAfter);
        advance(); // no pages: done at once
        return;
    }
    case Stage::After:
        m_stage = Stage::Done;
        Q_EMIT finished(takeTelemetry());
        return;
    default:
        return;
    }
}

Telemetry TelemetryRecorder::takeTelemetry()
{
    // Samples are appended as scrapes complete; the file wants them in the order they were taken.
    std::stable_sort(m_telemetry.samples.begin(), m_telemetry.samples.end(),
        [](const TelemetrySample& a, const TelemetrySample& b) { return a.atMs < b.atMs; });
    if (m_skipped > 0)
        m_telemetry.notes << QStringLiteral("%1 scrape(s) skipped: a source was still answering the "
                                            "previous one (a slow exporter, or a short --scrape-ms)")
                                 .arg(m_skipped);
    m_journal = nullptr;
    m_lastSample.assign(m_lastSample.size(), -1);
    return std::move(m_telemetry);
}

Telemetry TelemetryRecorder::snapshot() const
{
    Telemetry t = m_telemetry;
    std::stable_sort(t.samples.begin(), t.samples.end(),
        [](const TelemetrySample& a, const TelemetrySample& b) { return a.atMs < b.atMs; });
    return t;
}

Telemetry TelemetryRecorder::stop()
{
    m_tick->stop();
    m_poll->stop();
    const bool gathered = m_stage != Stage::Idle && m_stage != Stage::Done;
    m_stage = Stage::Idle;
    for (Page& p : m_pages)
        if (p.scrape->busy())
            p.scrape->cancel(); // its queued finished() finds the recorder stopped
    if (!gathered)
        return {};
    m_telemetry.notes << QStringLiteral("telemetry stopped before the idle_after baseline");
    return takeTelemetry();
}

} // namespace qs
