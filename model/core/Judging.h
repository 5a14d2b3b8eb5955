// SPDX-License-Identifier: MIT
#pragma once

#include "model/core/Rubric.h"

#include <QDateTime>
#include <QString>
#include <QStringList>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

// What an LLM judge said about a run's answers (docs/judging.md): who judged, every prompt it was
// sent and every raw reply, and what Quantscope read from each reply. Values only: the prompts
// are built in run/JudgePrompts, the replies read by wire/JudgeReply, the figures derived in
// evaluate/JudgedQuality.

namespace qs {

/// Which measured request a verdict is about: the pairing PairedComparison uses (test, turn,
/// iteration) plus the endpoint. A results file has at most one measured record per key and
/// endpoint (a concurrency sweep's repeats are judged once, the first).
struct JudgedAnswer {
    int endpoint = 0; ///< index into RunResult::endpoints
    QString test;
    int turn = 1;
    int iteration = 1;
    friend bool operator==(const JudgedAnswer&, const JudgedAnswer&) = default;
};

/// The judge as it was when it judged. Never a key: like RunEndpoint, only what identifies it.
struct JudgeIdentity {
    QString spec; ///< as given to --judge, e.g. "http://10.0.0.7:8000,model=qwen3-32b"
    QString url; ///< base URL
    QString model; ///< the model id the judge reported (or the one asked for)
    QString runtime; ///< "llama-server", "vllm", "sglang", "unknown" (from the probe)
    QString endpointLabel; ///< Endpoint::displayName()
    bool simulated = false;
    nlohmann::json probe = nlohmann::json::object(); ///< toJson(ProbeResult)
    double temperature = 0; ///< always 0: a judge must be as repeatable as the server allows
    qint64 seed = 1; ///< sent as `seed`; servers that ignore it are noted in the probe
    friend bool operator==(const JudgeIdentity&, const JudgeIdentity&) = default;
};

/// One request to the judge and its raw reply, kept whole so a reader can check any verdict.
struct JudgeExchange {
    nlohmann::json messages = nlohmann::json::array(); ///< exactly the messages sent
    QString reply; ///< the reply's visible content, raw (never trimmed or repaired)
    QString reasoning; ///< a reasoning judge's thinking, if the server separated it
    QDateTime at; ///< when the request was sent, UTC
    double durationMs = 0; ///< request sent to last byte
    /// Empty when the reply was read; else why the judge failed, one sentence that says what to
    /// do ("the reply is not JSON: …", "HTTP 503 …", "timed out after 120 s").
    QString error;
    bool failed() const { return !error.isEmpty(); }
};

/// A rubric judge's verdict on one answer: {"scores": {"<criterion id>": 1-5, …}, "reason": "…"}.
struct RubricVerdict {
    JudgedAnswer answer;
    std::map<QString, int> scores; ///< criterion id -> 1..5; empty when the judge failed
    QString reason;
    JudgeExchange exchange;
    bool failed() const { return exchange.failed(); }
};

/// What one pairwise judgement picked, in the order the answers were shown.
enum class PairPick {
    First, ///< "better": "1"
    Second, ///< "better": "2"
    Tie, ///< "better": "tie"
    Failed, ///< no usable reply (JudgeExchange::error says why)
};
QString pairPickId(PairPick pick); ///< "1", "2", "tie", "failed"

/// One pairwise judgement: the candidate's and the baseline's answers to the same test, turn and
/// iteration, shown in one order. Every pair is judged twice, once in each order.
struct PairVerdict {
    int candidate = 1; ///< endpoint index
    int baseline = 0; ///< endpoint index
    QString test;
    int turn = 1;
    int iteration = 1;
    bool candidateFirst = true; ///< the order the answers were shown in
    PairPick pick = PairPick::Failed;
    QString reason;
    JudgeExchange exchange;
    /// Which arm this judgement preferred: +1 candidate, -1 baseline, 0 tie, nullopt failed.
    std::optional<int> preferred() const;
    JudgedAnswer candidateAnswer() const { return {candidate, test, turn, iteration}; }
    JudgedAnswer baselineAnswer() const { return {baseline, test, turn, iteration}; }
};

/// Everything one judge said about one run. A results file holds at most one (`"judging"`); a
/// second `quantscope judge` with the same judge and rubric resumes it, and one with another
/// judge replaces it (the command says so).
struct Judging {
    JudgeIdentity judge;
    std::optional<Rubric> rubric; ///< set when rubric grading ran
    std::vector<RubricVerdict> rubricVerdicts;
    std::vector<PairVerdict> pairVerdicts;
    QDateTime startedAt; ///< UTC, first judging session
    QDateTime endedAt; ///< UTC, last judging session; invalid while judging
    bool complete = false; ///< every planned judgement has a verdict or a failure
    QStringList notes; ///< e.g. "cancelled after 40 of 120 judgements: run the command again to resume"
    bool empty() const { return rubricVerdicts.empty() && pairVerdicts.empty() && !rubric; }
};

/// Whether two identities are the same judge: the same spec and model, and the same URL unless
/// both are simulated (a simulated judge listens on a fresh loopback port each time). What
/// resuming and combining files go by.
bool sameJudge(const JudgeIdentity& a, const JudgeIdentity& b);

/// Puts `verdict` into `judging`, replacing the verdict on the same answer (a failed judgement
/// retried on resume replaces its failure). Keeps the file order otherwise.
void putVerdict(Judging& judging, RubricVerdict verdict);
/// The same for one order of one pair (same candidate, baseline, test, turn, iteration, order).
void putVerdict(Judging& judging, PairVerdict verdict);

} // namespace qs
