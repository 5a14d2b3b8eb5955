// SPDX-License-Identifier: MIT
#pragma once

#include "model/core/RunRecord.h"

#include <QString>
#include <vector>

namespace qs {

// Each candidate's answer lengths against the baseline's, paired by prompt (test, turn and run,
// as PairedComparison pairs them), for the verbosity criterion. Computed with the evaluation, on
// a worker thread: the Decision tab judges its criteria on the GUI thread and only filters these.

/// One matched (test, turn, run) of the two arms.
struct LengthPair {
    enum class Use {
        Compared, ///< both spoken answers: the ratio counts
        ThinkingOn, ///< a request asked for thinking, whose reasoning tokens would swamp the answer
        ToolCall, ///< a reply called a tool: not an answer a listener hears
    };
    QString test;
    int turn = 1;
    Use use = Use::Compared;
    double candidateTokens = 0; ///< completion tokens (Compared only)
    double baselineTokens = 0;
};

struct ArmLengths {
    int endpoint = 0; ///< the candidate
    std::vector<LengthPair> pairs; ///< in no particular order
};

/// For every endpoint but `baseline`, its measured, successful requests matched with the
/// baseline's. Left out: a key an arm measured twice (ambiguous), `ignore_eos` requests (their
/// length is the request's, not the model's), a baseline answer of 0 tokens or counts missing.
std::vector<ArmLengths> answerLengths(const RunResult& result, int baseline);

} // namespace qs
