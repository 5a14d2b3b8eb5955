// SPDX-License-Identifier: MIT
#include "model/gates/GateWords.h"

#include "model/core/GatePatterns.h"

#include <algorithm>

namespace qs {

const std::vector<GateWords>& allGateWords()
{
    static const std::vector<GateWords> words {
        {gate_names::nonEmpty, QStringLiteral("Not empty"), QStringLiteral("Non-empty answer"),
            QStringLiteral("Fails when there is no visible text and no tool call."),
            QStringLiteral("were empty"),
            QStringLiteral("check that thinking does not use up max_tokens (send enable_thinking=false, use "
                           "a reasoning parser) and that the server reports no errors"),
            QString()},
        {gate_names::expectedAnswer, QStringLiteral("Expected answer"), QStringLiteral("Expected answer"),
            QStringLiteral("Fails when none of the test's expected patterns matches the visible answer."),
            QStringLiteral("missed the expected answer"),
            QStringLiteral(
                "check the model, its chat template and the quantization (damage shows first in facts and "
                "arithmetic); the candidate must get the suite's factual and reasoning questions right"),
            QStringLiteral(" (only tests with \"expect\" patterns are judged for it)")},
        {gate_names::toolCall, QStringLiteral("Tool call"), QStringLiteral("Tool call"),
            QStringLiteral("Fails when the expected tool call is missing, wrong or malformed, or a call is "
                           "written into the text instead of the tool channel."),
            QStringLiteral("got the tool call wrong"),
            QStringLiteral("vLLM needs --enable-auto-tool-choice --tool-call-parser qwen3_coder (SGLang: "
                           "--tool-call-parser); if calls still fail with the parser on, the model itself "
                           "does not call tools reliably"),
            QStringLiteral(" (only tests with \"use_tools\" are judged for it)")},
        {gate_names::noMarkdown, QStringLiteral("No markdown"), QStringLiteral("No markdown"),
            QStringLiteral("Fails on any markdown construct in the visible answer: a voice assistant would "
                           "read it aloud."),
            QStringLiteral("contained markdown"),
            QStringLiteral("tell the model in the system prompt that its answers are spoken aloud (no lists, "
                           "bold or headings), or use a fine-tune trained to answer in plain speech"),
            QStringLiteral(" (answers that are a tool call or empty are not judged for it)")},
        {gate_names::noThinkingLeak, QStringLiteral("No thinking leak"), QStringLiteral("No thinking leak"),
            QStringLiteral("Fails on thinking markup or a reasoning scaffold in the content, or reasoning in "
                           "its own field although thinking was off."),
            QStringLiteral("leaked thinking into the answer"),
            QStringLiteral("start the server with a reasoning parser (vLLM/SGLang --reasoning-parser qwen3) "
                           "and send chat_template_kwargs.enable_thinking=false (llama-server: "
                           "--reasoning-budget 0), then run again"),
            QString()},
        {gate_names::thinkingFollowsRequest, QStringLiteral("Thinking as asked"),
            QStringLiteral("Thinking follows the request"),
            QStringLiteral("With thinking requested on, fails when no reasoning arrived or it arrived inside "
                           "the content instead of the reasoning field; with thinking off, fails on any "
                           "reasoning."),
            QStringLiteral("did not think as the request asked"),
            QStringLiteral("thinking must follow chat_template_kwargs.enable_thinking both ways: start the "
                           "server with a reasoning parser (vLLM/SGLang --reasoning-parser qwen3), a chat "
                           "template that reads enable_thinking, and no server-wide switch that overrides "
                           "it (llama-server --reasoning-budget 0 turns thinking off for every request)"),
            QStringLiteral(" (only requests that set thinking on or off are judged for it)")},
        {gate_names::coherent, QStringLiteral("Coherent"), QStringLiteral("Coherent text"),
            QStringLiteral("Fails on scripts glued together, too many non-words, degenerate repetition, "
                           "template tokens or undecodable bytes."),
            QStringLiteral("were garbled"),
            QStringLiteral("a base model that needs its thinking produces this with thinking off (the seeds' "
                           "v3): serve an instruct or distilled fine-tune that answers without thinking, "
                           "ideally the baseline's own fine-tune in the new quantization"),
            QStringLiteral(" (answers that are a tool call or empty are not judged for it)")},
        {gate_names::withinLength, QStringLiteral("Within length"), QStringLiteral("Within length target"),
            QStringLiteral(
                "Fails when the answer has more words or sentences than the test's target, or was cut off."),
            QStringLiteral("were too long to speak"),
            QStringLiteral("ask for short spoken answers in the system prompt, or use a fine-tune trained to "
                           "be concise"),
            QStringLiteral(" (only tests with \"max_words\"/\"max_sentences\" are judged for it)")},
    };
    return words;
}

const GateWords* gateWords(const QString& gate)
{
    const auto& all = allGateWords();
    const auto it = std::find_if(all.begin(), all.end(), [&](const GateWords& w) { return w.gate == gate; });
    return it == all.end() ? nullptr : &*it;
}

} // namespace qs
