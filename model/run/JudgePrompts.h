// SPDX-License-Identifier: MIT
#pragma once

#include "model/core/Judging.h"
#include "model/core/RunRecord.h"

#include <QString>
#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

// The prompts an LLM judge is sent (docs/judging.md, "What the judge sees"). Pure: no I/O.
//
// The judge sees the assistant's system prompt, the conversation so far and the answer(s) —
// never an endpoint's name, model, quantization, URL or timings. Every prompt is two messages,
// a system message (the judge's task and the reply format) and a user message laid out with
// these exact markers, one per line, so people can point their own judge models at them and the
// emulator's judge can read them:
//
//   [System prompt]                … [End of system prompt]        (omitted when there is none)
//   [Conversation]                 … [End of conversation]         turns before the judged one,
//                                                                  "User: …" / "Assistant: …"
//                                                                  (pairwise: one per answer,
//                                                                  "[Conversation 1]"…, because
//                                                                  each arm heard its own words)
//   [Question]                     … [End of question]             the judged turn's user message
//   rubric:   [Criteria] lines "- ID: TITLE. DESCRIPTION (1 = …, 3 = …, 5 = …)" [End of criteria]
//             [The Start of Answer] … [The End of Answer]
//   pairwise: [The Start of Answer 1] … [The End of Answer 1]
//             [The Start of Answer 2] … [The End of Answer 2]
//
// The last line of the user message repeats the reply format:
//   rubric:   {"scores": {"ID": 1-5, …}, "reason": "…"}
//   pairwise: {"better": "1" | "2" | "tie", "reason": "…"}
// A marker inside model text is defused (its "[" becomes "(") so an answer cannot end its own block.

namespace qs {

/// The answer of `record` as the judge reads it: the visible content exactly as a user would
/// get it (leaked thinking included: a voice assistant would speak it), then each tool call as
/// "[tool call] NAME(ARGUMENTS)". Reasoning the server separated is not shown.
QString judgedAnswerText(const RunRecord& record);

nlohmann::json rubricPrompt(const Rubric& rubric, const RunRecord& record);
/// `first` is shown as answer 1, `second` as answer 2.
nlohmann::json pairwisePrompt(const RunRecord& first, const RunRecord& second, const QString& instructions = {});

/// One judgement to make.
struct JudgeTask {
    enum class Kind { Rubric, Pair } kind = Kind::Rubric;
    JudgedAnswer answer; ///< Rubric: the answer graded. Pair: the candidate's answer
    int baseline = -1; ///< Pair: the baseline endpoint
    bool candidateFirst = true; ///< Pair: shown order
    nlohmann::json messages; ///< the prompt
};

/// What to judge.
struct JudgePlanOptions {
    std::optional<Rubric> rubric; ///< grade every measured, successful answer of every endpoint
    std::optional<int> pairwiseBaseline; ///< compare every other endpoint with this one, both orders
    /// Verdicts already in the file (same judge and rubric): their judgements are not planned
    /// again, so a cancelled or failed judging resumes where it stopped. Failed ones are retried.
    const Judging* resume = nullptr;
};

/// The judgements for `result`, in a deterministic order: rubric grades test by test, then pairs,
/// each pair's two orders next to each other. Only measured records (no warm-ups) whose request
/// succeeded are judged; a pair needs both arms' answers. A failed request is never graded (its
/// latency is in the file; it has no answer to judge).
std::vector<JudgeTask> planJudging(const RunResult& result, const JudgePlanOptions& options);

} // namespace qs
