// SPDX-License-Identifier: MIT
#pragma once

#include "model/core/RunRecord.h"

#include <QString>
#include <QStringList>
#include <cmath>
#include <cstdint>
#include <numbers>
#include <optional>

namespace qs::test {

/// A run with one endpoint per label and no records yet.
inline RunResult makeRun(const QStringList& labels)
{
    RunResult run;
    for (const QString& label : labels) {
        RunEndpoint e;
        e.endpoint.label = label;
        run.endpoints.push_back(e);
    }
    return run;
}

/// One successful measured request whose timings follow the latency model exactly:
/// e2e = ttft + 1000·(completion − 1)/tps (the definition of decode_tps).
struct Req {
    int endpoint = 0;
    QString test = QStringLiteral("t");
    int turn = 1;
    int iteration = 1;
    double ttftMs = 100;
    double decodeTps = 30;
    qint64 completionTokens = 40;
    qint64 promptTokens = 200;
    bool warmup = false;
};

inline RunRecord record(const Req& q)
{
    RunRecord r;
    r.endpoint = q.endpoint;
    r.test = q.test;
    r.turn = q.turn;
    r.iteration = q.iteration;
    r.warmup = q.warmup;
    RequestMetrics& m = r.request.metrics;
    m.ttftAnyMs = q.ttftMs;
    m.ttftVisibleMs = q.ttftMs;
    m.firstSentenceMs = q.ttftMs + 250;
    m.decodeTps = q.decodeTps;
    m.e2eMs = q.ttftMs + 1000.0 * double(q.completionTokens - 1) / q.decodeTps;
    m.completionTokens = {q.completionTokens, CountSource::ServerUsage};
    m.promptTokens = {q.promptTokens, CountSource::ServerUsage};
    return r;
}

inline RunRecord failedRecord(const Req& q)
{
    RunRecord r = record(q);
    r.request.failure.kind = FailureKind::Disconnected;
    return r;
}

/// Deterministic test data (std::normal_distribution is implementation-defined; this is not).
class Rng {
public:
    explicit Rng(std::uint64_t seed)
        : m_state(seed)
    {
    }
    std::uint64_t next()
    {
        // splitmix64
        std::uint64_t z = (m_state += 0x9E3779B97F4A7C15ULL);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
        return z ^ (z >> 31);
    }
    double uniform() { return (double(next() >> 11) + 0.5) / 9007199254740992.0; } // (0, 1)
    double normal()
    {
        // Box–Muller
        return std::sqrt(-2.0 * std::log(uniform())) * std::cos(2.0 * std::numbers::pi * uniform());
    }

private:
    std::uint64_t m_state;
};

} // namespace qs::test
