// SPDX-License-Identifier: MIT
// The gate corpus (tests/data/gates/clean.jsonl and bad.jsonl) and how it is measured: shared by
// test_gates (which fails on regressions) and bench_gates (which prints the rates).
#pragma once

#include "model/core/Suite.h"
#include "model/gates/QualityGates.h"

#include <QFile>
#include <QString>
#include <QStringList>
#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <vector>

namespace qs::test {

struct CorpusSample {
    QString id;
    QString kind; ///< bad samples: what shape of failure it is ("bold", "seed", "hermes"…)
    QString text; ///< the answer's `content`
    QString reasoning; ///< `reasoning_content`, when the sample has one
    QStringList gates; ///< bad samples: the gates that must fail
};

/// One JSON object per line: {"id", "text", optional "reasoning", "gates", "kind"}.
inline std::vector<CorpusSample> loadCorpus(const QString& path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        throw std::runtime_error("cannot read " + path.toStdString());
    std::vector<CorpusSample> out;
    int line = 0;
    while (!file.atEnd()) {
        ++line;
        const QByteArray bytes = file.readLine().trimmed();
        if (bytes.isEmpty())
            continue;
        const auto j = nlohmann::json::parse(bytes.cbegin(), bytes.cend(), nullptr, false);
        if (!j.is_object() || !j.contains("id") || !j.contains("text"))
            throw std::runtime_error(path.toStdString() + ":" + std::to_string(line) + ": not a sample");
        CorpusSample s;
        s.id = QString::fromStdString(j["id"].get<std::string>());
        s.text = QString::fromStdString(j["text"].get<std::string>());
        s.kind = QString::fromStdString(j.value("kind", std::string()));
        s.reasoning = QString::fromStdString(j.value("reasoning", std::string()));
        for (const auto& g : j.value("gates", nlohmann::json::array()))
            s.gates << QString::fromStdString(g.get<std::string>());
        out.push_back(std::move(s));
    }
    return out;
}

/// The gates the corpus measures: the three generic text gates, and tool calls leaked as text.
inline QStringList corpusGates()
{
    return {QStringLiteral("no_markdown"), QStringLiteral("no_thinking_leak"), QStringLiteral("coherent"),
        QStringLiteral("tool_call")};
}

/// The voice-assistant suite (its tools and thinking off) and a test without expectations, so
/// that only the generic gates decide.
inline Suite corpusSuite()
{
    return loadBuiltinSuite(QStringLiteral("voice-assistant"));
}

inline SuiteTest corpusTest()
{
    SuiteTest t;
    t.id = QStringLiteral("corpus");
    t.name = t.id;
    t.turns = {QStringLiteral("(corpus)")};
    t.useTools = true;
    return t;
}

inline RequestRecord corpusRecord(const CorpusSample& s)
{
    RequestRecord r;
    r.response.content = s.text;
    r.response.reasoning = s.reasoning;
    r.response.finishReason = QStringLiteral("stop");
    return r;
}

struct Misclassified {
    QString gate;
    const CorpusSample* sample = nullptr;
    QString reason; ///< the gate's own reason
};

struct GateRate {
    int clean = 0; ///< clean samples judged (pass or fail)
    int falsePositives = 0;
    int bad = 0; ///< bad samples labelled for this gate
    int detected = 0;
    double fpRate() const { return clean ? double(falsePositives) / clean : 0; }
    double detectionRate() const { return bad ? double(detected) / bad : 1; }
};

struct CorpusReport {
    std::map<QString, GateRate> rates; ///< per gate of corpusGates()
    std::vector<Misclassified> falsePositives;
    std::vector<Misclassified> misses;
};

inline const GateResult* find(const std::vector<GateResult>& results, const QString& gate)
{
    for (const GateResult& r : results)
        if (r.gate == gate)
            return &r;
    return nullptr;
}

inline CorpusReport measureCorpus(const std::vector<CorpusSample>& clean,
    const std::vector<CorpusSample>& bad, const Suite& suite, const GatePatterns& patterns)
{
    CorpusReport report;
    const SuiteTest test = corpusTest();
    for (const CorpusSample& s : clean) {
        const auto results = evaluateGates(corpusRecord(s), suite, test, patterns);
        for (const QString& gate : corpusGates()) {
            const GateResult* r = find(results, gate);
            GateRate& rate = report.rates[gate];
            ++rate.clean;
            if (r->failed()) {
                ++rate.falsePositives;
                report.falsePositives.push_back({gate, &s, r->reason});
            }
        }
    }
    for (const CorpusSample& s : bad) {
        const auto results = evaluateGates(corpusRecord(s), suite, test, patterns);
        for (const QString& gate : s.gates) {
            const GateResult* r = find(results, gate);
            GateRate& rate = report.rates[gate];
            ++rate.bad;
            if (r && r->failed())
                ++rate.detected;
            else
                report.misses.push_back({gate, &s, r ? r->reason : QStringLiteral("unknown gate")});
        }
    }
    return report;
}

} // namespace qs::test
