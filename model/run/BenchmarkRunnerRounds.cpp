// SPDX-License-Identifier: MIT
// BenchmarkRunner's rounds (`run --until-decided`): after each round the runner pauses with a copy
// of the run so far, and its owner — who alone can judge it, a stage above — says whether another
// round of prompts follows. The rest of the runner is BenchmarkRunner.cpp.
#include "model/run/BenchmarkRunner.h"
#include "model/run/SuiteComposition.h"
#include "model/run/TelemetryRecorder.h"

#include <QSet>
#include <QTimer>

namespace qs {

bool BenchmarkRunner::pauseForRound()
{
    if (m_request.rounds.empty() || m_cancel || m_lastRound)
        return false;
    if (m_betweenRounds)
        return true;
    m_betweenRounds = true;
    if (m_liveTimer)
        m_liveTimer->stop();
    flushLive();
    auto soFar = std::make_shared<RunResult>(m_result);
    if (m_recorder && m_telemetryState == TelemetryState::Running) {
        // What the servers spent so far, for the resource criteria. Blocking is safe: the recorder
        // never waits for this thread.
        TelemetryRecorder* recorder = m_recorder;
        Telemetry telemetry;
        QMetaObject::invokeMethod(
            recorder, [recorder, &telemetry] { telemetry = recorder->snapshot(); },
            Qt::BlockingQueuedConnection);
        const QStringList notes = soFar->telemetry.notes;
        soFar->telemetry = std::move(telemetry);
        soFar->telemetry.notes = notes + soFar->telemetry.notes;
    }
    Q_EMIT roundFinished(std::move(soFar), int(m_round + 1));
    return true;
}

void BenchmarkRunner::nextRound(const nlohmann::json& untilDecided)
{
    QMetaObject::invokeMethod(
        this,
        [this, untilDecided] {
            if (!m_betweenRounds)
                return;
            m_betweenRounds = false;
            m_result.untilDecided = untilDecided;
            if (m_cancel || m_round + 1 >= m_request.rounds.size()) {
                m_lastRound = true;
                finishRun();
                return;
            }
            ++m_round;
            // The next round asks only the prompts the earlier ones did not: the same seeded draw,
            // more of each category.
            const quint64 seed = m_request.settings.seed;
            const Suite all = drawPrompts(m_pool, m_request.rounds[m_round], seed);
            const Suite before = drawPrompts(m_pool, m_request.rounds[m_round - 1], seed);
            QSet<QString> asked;
            for (const SuiteTest& t : before.tests)
                asked.insert(t.id);
            m_request.suite = all;
            m_request.suite.tests.clear();
            for (const SuiteTest& t : all.tests)
                if (!asked.contains(t.id))
                    m_request.suite.tests.push_back(t);
            m_result.suite = all.raw;
            planRound();
            launchRequests();
        },
        Qt::QueuedConnection);
}

void BenchmarkRunner::endRounds(const nlohmann::json& untilDecided)
{
    QMetaObject::invokeMethod(
        this,
        [this, untilDecided] {
            m_result.untilDecided = untilDecided;
            m_lastRound = true;
            if (!std::exchange(m_betweenRounds, false))
                return; // mid-round: the run ends with it
            finishRun();
        },
        Qt::QueuedConnection);
}

} // namespace qs
