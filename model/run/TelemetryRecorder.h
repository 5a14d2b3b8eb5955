// SPDX-License-Identifier: MIT
#pragma once

#include "model/core/MetricCatalog.h"
#include "model/core/RunRecord.h"
#include "model/core/Telemetry.h"
#include "model/wire/MetricsScrape.h"

#include <QObject>
#include <QUrl>
#include <vector>

class QTimer;

namespace qs {

class RunJournal;

/// One Prometheus URL to scrape for one endpoint.
struct TelemetryTarget {
    int endpoint = 0; ///< index into RunResult::endpoints
    QUrl url;
    TelemetrySource::Kind kind = TelemetrySource::Kind::Exporter;
    Runtime runtime = Runtime::Unknown; ///< for the advice when the runtime's page stops answering
    QString apiKeyEnv; ///< Runtime kind: the endpoint's key is sent (its /metrics sits behind --api-key)
};

/// What a run scrapes: for every usable endpoint its runtime's `<baseUrl>/metrics` when the
/// probe found it answering (or when the run was not probed), then each of its metrics URLs. A
/// URL an endpoint lists twice, or lists as an extra although it is its runtime's page, counts once.
std::vector<TelemetryTarget> telemetryTargets(
    const std::vector<RunEndpoint>& endpoints, const std::vector<bool>& usable);

/// Scrapes the servers' Prometheus pages during a run, in its own thread: parsing a 100 KB page
/// must never delay a request's readyRead stamp in the runner's thread. Driven by the runner
/// through queued calls; hands back values only.
///
/// Sources: one TelemetrySource per (endpoint, URL). A URL two endpoints share (one DCGM
/// exporter for a machine serving two endpoints) is fetched once per tick, and that page is
/// recorded as a sample of each endpoint's source: the file stays one source per endpoint, the
/// exporter sees one scrape.
///
/// Every sample is stamped with the moment its request was written, in ms from `originNs` (the
/// runner's start), so it sits on the same axis as RunRecord::startOffsetMs; it is reduced into
/// its source's tables, appended to the journal, and emitted as a ServerPoint. A failed scrape is
/// a sample with an error (a gap), plus a note on the source when it goes down and comes back.
class TelemetryRecorder : public QObject {
    Q_OBJECT
public:
    explicit TelemetryRecorder(QObject* parent = nullptr);
    ~TelemetryRecorder() override;

    /// The timeout of one scrape for a period: max(2 s, period), at most 5 s.
    static int scrapeTimeoutMs(int periodMs);
    /// The longest finish() can take for a period (idle wait, the scrapes in flight, the
    /// baseline): a caller's bound beyond which the recorder is considered stuck.
    static int finishBoundMs(int periodMs);

    /// Recorder thread. Takes the idle baseline of every source at once (phase IdleBefore),
    /// signals baselineDone(), then scrapes every source every `periodMs` (phase Run; a source
    /// whose previous scrape is still going skips the tick). `journal` (may be null) must stay
    /// open until finished() or stop(); appendTelemetry is thread-safe.
    void start(std::vector<TelemetryTarget> targets, int periodMs, qint64 originNs, RunJournal* journal);
    /// Recorder thread. The last request ended: waits (at most ~3 s) until the runtimes report
    /// no request running or waiting — llama-server's and SGLang's counters only advance at a
    /// request's end — then takes the IdleAfter baseline and emits finished().
    void finish();
    /// Recorder thread. Stops at once: scrapes in flight are abandoned, no more samples are
    /// journaled, and what was gathered so far is returned. No finished() follows.
    Telemetry stop();
    /// What was gathered so far (its samples in time order); recording goes on. For a look at a
    /// run between its rounds.
    Telemetry snapshot() const;
    /// Skipped ticks (a source still busy from the previous one), for the benchmark.
    int skippedTicks() const { return m_skipped; }

Q_SIGNALS:
    void baselineDone();
    /// One sample reduced to its gauges; emitted in the recorder's thread.
    void serverPoint(const qs::ServerPoint& point);
    void finished(const qs::Telemetry& telemetry);

private:
    enum class Stage { Idle, Baseline, Running, Draining, After, Done };
    struct Page;
    struct Health;
    void scrape(Page& page, TelemetrySample::Phase phase);
    void scrapeAll(TelemetrySample::Phase phase, bool runtimeOnly = false);
    void onScraped(Page& page);
    void record(int sourceIndex, const ScrapeOutcome& outcome, TelemetrySample::Phase phase);
    void tick();
    void advance();
    bool anyBusy() const;
    std::optional<double> runtimeLoad() const;
    Telemetry takeTelemetry();
    void note(int sourceIndex, double atMs, const QString& text);

    std::vector<Page> m_pages;
    std::vector<Health> m_health; ///< per source
    std::vector<int> m_lastSample; ///< per source: index into m_telemetry.samples, -1 = none
    Telemetry m_telemetry;
    RunJournal* m_journal = nullptr;
    QTimer* m_tick;
    QTimer* m_poll;
    qint64 m_originNs = 0;
    qint64 m_drainDeadlineNs = 0;
    int m_periodMs = 0;
    int m_skipped = 0;
    bool m_polled = false;
    bool m_journalFailed = false;
    Stage m_stage = Stage::Idle;
};

} // namespace qs

Q_DECLARE_METATYPE(qs::Telemetry)
