// SPDX-License-Identifier: MIT
#pragma once

// The emulator playing an LLM judge (docs/emulator.md, "Judge"): it reads the judge prompts of
// model/run/JudgePrompts.h by their markers — with its own parser, so it tests the contract rather
// than sharing code with the side it checks — and answers with a scripted verdict, streamed as
// content tokens in any dialect:
//   pairwise ("[The Start of Answer 1]" … "[The End of Answer 2]"): {"better": "1"|"2"|"tie", "reason": "…"}
//   rubric ("[Criteria]" lines "- ID: …", "[The Start of Answer]"): {"scores": {"ID": 1-5, …}, "reason": "…"}
// Only the last user message is read (a judge's system message may name the markers). A request
// that is neither gets a short prose reply saying so.

#include "tests/support/Emulator.h"

#include <QJsonObject>
#include <QString>
#include <QStringList>

namespace qs::emu {

/// How a scripted judge behaves.
struct JudgeBehaviour {
    enum class Mode {
        /// Pairwise: the answer containing `word` (case-insensitive) wins, in either position; a
        /// tie when both or neither contain it. Rubric: 5 on every criterion when the answer
        /// contains it, else 2.
        PreferWord,
        AlwaysFirst, ///< pairwise "1" whatever the answers; rubric 3 everywhere
        AlwaysTie, ///< pairwise "tie"; rubric 3 everywhere
        BrokenJson, ///< a reply cut off mid-JSON: {"better": "1", "reason": "cut of
        Garbage, ///< prose with no JSON object at all
        Timeout, ///< the first token waits `stallMs`, far longer than any client timeout
        /// PreferWord for the first `dieAfter` judgements, then `death` for every later request
        /// (judge prompts or not): a judge that died mid-way, to test resuming.
        DieAfter,
        /// The simulated judge (sim:judge): prefers the plain, short answer without leaked
        /// thinking; rubric scores from the same text features. Deterministic.
        Heuristic,
    };
    enum class Death {
        Http503, ///< the dialect's 503 ("Loading model" on llama-server)
        Disconnect, ///< headers (where the dialect sends them early), then the connection closes
    };

    Mode mode = Mode::PreferWord;
    QString word; ///< PreferWord, DieAfter
    int dieAfter = 0; ///< DieAfter: judgements answered before dying
    Death death = Death::Http503;
    /// Wrap the JSON in a ```json fence, with a line of prose before and after it.
    bool fenced = false;
    /// Think first, as a reasoning judge: a few reasoning tokens before the verdict, where
    /// `reasoningMode` says (the reasoning field, or "<think>…</think>" in the content).
    bool reasoning = false;
    ReasoningMode reasoningMode = ReasoningMode::Parsed;
    /// The reply's content is streamed in this many chunks (0: one token per word, like a model).
    int chunks = 4;
    double ttftMs = 5;
    double tokensPerSecond = 500;
    int stallMs = 600000; ///< Timeout
};

/// A judge prompt as the emulator read it.
struct JudgePromptView {
    enum class Kind { None, Rubric, Pair } kind = Kind::None;
    QString answer; ///< Rubric: the graded answer
    QString first; ///< Pair: answer 1
    QString second; ///< Pair: answer 2
    QStringList criteria; ///< Rubric: the criterion ids, in order
};

/// Reads the markers of the last user message of a chat request body.
JudgePromptView readJudgePrompt(const QJsonObject& body);

/// The reply text (content only, before chunking) `behaviour` gives to `prompt`, as a judge
/// that did not die or stall would send it. Exposed for tests.
QString judgeReplyText(const JudgePromptView& prompt, const JudgeBehaviour& behaviour);

/// The script for one chat request. `judgementIndex` counts the judge prompts answered before
/// this one (DieAfter); judgeServerConfig keeps that count itself.
Script judgeScript(const RequestInfo& info, const JudgeBehaviour& behaviour, int judgementIndex = 0);

/// A server that judges every chat request with `behaviour` (model id "judge-emulated").
ServerConfig judgeServerConfig(const JudgeBehaviour& behaviour, Dialect dialect = Dialect::LlamaServer);

} // namespace qs::emu
