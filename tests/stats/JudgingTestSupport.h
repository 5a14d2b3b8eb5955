// SPDX-License-Identifier: MIT
#pragma once

// Scripted judgings of hand-built runs, for the judged-quality statistics and the judge
// guardrails: a judge that picks by a rule, in both orders of every pair the run measured.
#include "model/core/RunRecord.h"
#include "model/evaluate/JudgedQuality.h"

#include <QString>
#include <algorithm>
#include <functional>
#include <set>
#include <tuple>

namespace qs::test {

/// A rubric score as judgeQuality() would give it for `n` answers all scored `median`.
inline RubricScore rubricScore(
    int endpoint, const char* criterion, double median, int n, const char* test = "")
{
    RubricScore s;
    s.endpoint = endpoint;
    s.criterion = QString::fromUtf8(criterion);
    s.test = QString::fromUtf8(test);
    s.n = n;
    s.median = median;
    s.mean = median;
    s.histogram[std::size_t(std::clamp(int(median), 1, 5) - 1)] = n;
    return s;
}

inline JudgeIdentity testJudge()
{
    JudgeIdentity j;
    j.spec = QStringLiteral("http://10.0.0.9:8000,model=meta-llama/Llama-3.3-70B-Instruct");
    j.url = QStringLiteral("http://10.0.0.9:8000");
    j.model = QStringLiteral("meta-llama/Llama-3.3-70B-Instruct");
    j.runtime = QStringLiteral("vllm");
    j.endpointLabel = QStringLiteral("judge");
    return j;
}

/// One pairwise judgement, in the order shown; a Failed pick carries an error, as the runner's do.
inline PairVerdict pairVerdict(int candidate, int baseline, const QString& test, int turn, int iteration,
    bool candidateFirst, PairPick pick, const QString& reason = {})
{
    PairVerdict v;
    v.candidate = candidate;
    v.baseline = baseline;
    v.test = test;
    v.turn = turn;
    v.iteration = iteration;
    v.candidateFirst = candidateFirst;
    v.pick = pick;
    v.reason = reason;
    v.exchange.reply = pick == PairPick::Failed ? QStringLiteral("{\"better\": ") : QStringLiteral("{}");
    if (pick == PairPick::Failed)
        v.exchange.error = QStringLiteral("the reply is not JSON: use a judge model that follows the format");
    return v;
}

/// What a scripted judge picks for the `index`-th pair (0-based, in key order), shown in one order.
using JudgeScript = std::function<PairPick(bool candidateFirst, int index)>;

inline PairPick alwaysFirst(bool, int)
{
    return PairPick::First;
}
inline PairPick prefersCandidate(bool candidateFirst, int)
{
    return candidateFirst ? PairPick::First : PairPick::Second;
}
inline PairPick prefersBaseline(bool candidateFirst, int)
{
    return candidateFirst ? PairPick::Second : PairPick::First;
}

/// Judges every (test, turn, iteration) measured on both arms, candidate first then baseline first.
/// Returns the number of pairs.
inline int judgePairs(RunResult& run, int candidate, int baseline, const JudgeScript& script)
{
    if (run.judging.judge.url.isEmpty())
        run.judging.judge = testJudge();
    using Key = std::tuple<QString, int, int>;
    std::set<Key> onBaseline, both;
    for (const RunRecord& r : run.records)
        if (!r.warmup && r.endpoint == baseline)
            onBaseline.insert({r.test, r.turn, r.iteration});
    for (const RunRecord& r : run.records)
        if (!r.warmup && r.endpoint == candidate && onBaseline.count({r.test, r.turn, r.iteration}))
            both.insert({r.test, r.turn, r.iteration});
    int index = 0;
    for (const auto& [test, turn, iteration] : both) {
        for (bool candidateFirst : {true, false})
            run.judging.pairVerdicts.push_back(pairVerdict(candidate, baseline, test, turn, iteration,
                candidateFirst, script(candidateFirst, index),
                QStringLiteral("reason %1 %2").arg(index).arg(candidateFirst ? 1 : 2)));
        ++index;
    }
    return index;
}

} // namespace qs::test
