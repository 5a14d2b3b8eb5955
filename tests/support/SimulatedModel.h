// SPDX-License-Identifier: MIT
#pragma once

// The simulated endpoints' "model": a keyword responder over the last user message, the
// conversation and the system prompt that answers the built-in suites' prompts plausibly and,
// where they are graded, correctly: greetings, facts, small reasoning problems, advice and
// explanations, the briefing in the system prompt, what was said earlier in the conversation,
// refusals and tool calls. It gives one clean answer; the profiles (SimulatedProfiles.cpp) add
// timing and, for the NVFP4 imitation, the bad manners. Pure functions, no timing. Internal to
// qs_emulator. Its parts: SimulatedText.h (words), SimulatedTools.h (which tool, which
// arguments), SimulatedAnswers.h (what it knows), SimulatedReasoning.h (what it works out),
// SimulatedBriefing.h (what the system prompt tells it), SimulatedChat.h (small talk and recall).

#include <QJsonArray>
#include <QJsonObject>
#include <QString>
#include <QStringList>
#include <optional>

namespace qs::emu::detail {

/// What the simulated model reads from a chat request.
struct Conversation {
    QString system; ///< the system prompt(s), joined (a briefing the model may read)
    QString lastUser; ///< the last user message's text
    QStringList earlierUser; ///< the user's earlier messages, oldest first
    QString toolResult; ///< the last message's text when it is a tool result
    QJsonArray tools; ///< the request's tools (OpenAI function schemas)
    QString forcedTool; ///< the function a tool_choice object names
    bool toolsAllowed = false; ///< tools present and tool_choice is not "none"
    bool thinking = false; ///< chat_template_kwargs.enable_thinking is explicitly true
    bool ignoreEos = false;
    int maxTokens = 0; ///< 0 when the request set none
};

Conversation readConversation(const QJsonObject& body);

enum class Intent {
    Greeting,
    Capital,
    Arithmetic,
    Explain,
    NameRecall,
    FactRecall,
    Feeling,
    Statement,
    Thanks,
    LiveInfo,
    ToolResult,
    ToolCall,
    Generic,
    Fact, ///< a stable fact the model knows ("Jupiter")
    Reasoning, ///< a small problem worked out (clock times, weekdays, orderings, equations)
    Advice, ///< a spoken answer of a paragraph: advice, an explanation, a story
    Briefing, ///< read from the briefing in the system prompt
    Recall, ///< said back from an earlier turn of this conversation
    Persona, ///< about the assistant itself, a joke, encouragement
    Refusal, ///< unsafe or impossible: declined gently
};

struct ToolCallPlan {
    QString name;
    QJsonObject arguments; ///< complete: every required argument of the tool's schema
    QString query; ///< what the user wants looked up
};

/// A clean answer, before a profile adds its manners (or lack of them).
struct Answer {
    Intent intent = Intent::Generic;
    QString text; ///< the spoken answer; empty for a tool call
    QString keyPhrase; ///< the fact a sloppy model would put in bold (e.g. "Tokyo")
    QString elaboration; ///< what a verbose model adds after the answer
    QString thought; ///< a reasoning trace (thinking on, or leaked); worked steps for problems
    std::optional<ToolCallPlan> toolCall;
};

/// `variant` picks among equivalent phrasings.
Answer answerFor(const Conversation& conversation, quint64 variant);

/// Word-ish tokens: each run of non-spaces with the whitespace after it (~1 token per word).
QStringList wordTokens(const QString& text);

/// Exactly `count` tokens of filler text (ignore_eos throughput requests).
QStringList fillerTokens(int count);

/// Rough token count of the tool schemas a chat template adds to the prompt (the emulator's
/// own count covers only the messages).
int toolPromptTokens(const QJsonArray& tools);

} // namespace qs::emu::detail
