// SPDX-License-Identifier: MIT
#include "tests/support/StreamPlan.h"

#include <QJsonArray>
#include <QJsonValue>
#include <algorithm>
#include <cmath>

namespace qs::emu::detail {

namespace {

int countWords(const QString& text)
{
    int words = 0;
    bool inWord = false;
    for (const QChar ch : text) {
        const bool space = ch.isSpace();
        if (!space && !inWord)
            ++words;
        inWord = !space;
    }
    return words;
}

// `content` is a string or a list of parts; only text parts count.
int countContentWords(const QJsonValue& content)
{
    if (content.isString())
        return countWords(content.toString());
    int words = 0;
    for (const QJsonValue part : content.toArray()) {
        const QJsonObject object = part.toObject();
        words += countWords(object.value(QLatin1String("text")).toString());
    }
    return words;
}

qint64 msToNs(double ms)
{
    return qint64(std::llround(std::max(ms, 0.0) * 1e6));
}

} // namespace

int countPromptTokens(const QJsonObject& body)
{
    int tokens = 0;
    for (const QJsonValue message : body.value(QLatin1String("messages")).toArray())
        tokens += 4 + countContentWords(message.toObject().value(QLatin1String("content")));
    return tokens;
}

int requestedMaxTokens(const QJsonObject& body)
{
    for (const char* key : {"max_completion_tokens", "max_tokens", "n_predict"}) {
        const int value = body.value(QLatin1String(key)).toInt(0);
        if (value > 0)
            return value;
    }
    return 0;
}

RequestInfo describeRequest(
    const QByteArray& method, const QByteArray& path, const QJsonObject& body, const DialectWriter& writer)
{
    RequestInfo info;
    info.method = method;
    info.path = path;
    info.body = body;
    info.promptTokens = countPromptTokens(body);
    info.stream = body.value(QLatin1String("stream")).toBool(false);
    info.includeUsage = info.stream && writer.wantsUsage(body);
    info.hasTools = !body.value(QLatin1String("tools")).toArray().isEmpty();
    return info;
}

QStringList splitFragments(const QString& text, int pieces)
{
    pieces = std::max(1, std::min(pieces, int(text.size())));
    QStringList out;
    qsizetype start = 0;
    for (int i = 0; i < pieces; ++i) {
        qsizetype end = i + 1 == pieces ? text.size() : text.size() * (i + 1) / pieces;
        if (end > start && end < text.size() && text.at(end - 1).isHighSurrogate())
            ++end;
        out << text.mid(start, end - start);
        start = end;
    }
    return out;
}

namespace {

void addText(TokenPlan& plan, TokenKind kind, const QString& text, int scriptPosition = -1)
{
    TokenEvent event;
    event.kind = kind;
    event.text = text;
    event.scriptPosition = scriptPosition;
    plan.tokens.push_back(std::move(event));
}

// The script's reasoning tokens are its logprob positions 0…R−1, wherever they go.
void planReasoning(TokenPlan& plan, const Script& script)
{
    if (script.reasoning.isEmpty())
        return;
    switch (script.reasoningMode) {
    case ReasoningMode::Parsed:
        for (qsizetype i = 0; i < script.reasoning.size(); ++i)
            addText(plan, TokenKind::Reasoning, script.reasoning.at(i), int(i));
        return;
    case ReasoningMode::LeakedWithTags:
        addText(plan, TokenKind::Content, QStringLiteral("<think>")); // one special token
        break;
    case ReasoningMode::LeakedBareClose:
        break; // the template opened <think> in the prompt
    }
    for (qsizetype i = 0; i < script.reasoning.size(); ++i)
        addText(plan, TokenKind::Content, script.reasoning.at(i), int(i));
    addText(plan, TokenKind::Content, QStringLiteral("</think>"));
}

// Hermes/Qwen markup, as a model prints it when no parser takes it out of the content.
void planToolMarkup(TokenPlan& plan, const ToolCallSpec& call, bool first)
{
    addText(
        plan, TokenKind::Content, first ? QStringLiteral("<tool_call>") : QStringLiteral("\n<tool_call>"));
    addText(plan, TokenKind::Content,
        QStringLiteral("\n{\"name\": \"") + call.name + QStringLiteral("\", \"arguments\": "));
    for (const QString& piece : splitFragments(call.argumentsJson, call.fragments))
        addText(plan, TokenKind::Content, piece);
    addText(plan, TokenKind::Content, QStringLiteral("}\n</tool_call>"));
}

void planToolCall(TokenPlan& plan, const ToolCallSpec& call, int index, const DialectWriter& writer)
{
    const QString id = writer.toolCallId(index);
    const QStringList pieces = splitFragments(call.argumentsJson, call.fragments);
    auto makeEvent = [&](const QString& text, bool opens) {
        TokenEvent event;
        event.kind = TokenKind::ToolCall;
        event.text = text;
        event.toolIndex = index;
        event.opensToolCall = opens;
        event.toolId = id;
        event.toolName = call.name;
        return event;
    };
    if (writer.toolHeaderIsOwnEvent())
        plan.tokens.push_back(makeEvent(QString(), true));
    for (qsizetype i = 0; i < pieces.size(); ++i)
        plan.tokens.push_back(makeEvent(pieces.at(i), i == 0 && !writer.toolHeaderIsOwnEvent()));
}

// The message the token events add up to, for non-streamed bodies.
CompletionText collectText(const std::vector<TokenEvent>& tokens)
{
    CompletionText text;
    for (const TokenEvent& token : tokens) {
        switch (token.kind) {
        case TokenKind::Reasoning:
            text.reasoning += token.text;
            break;
        case TokenKind::Content:
            text.content += token.text;
            break;
        case TokenKind::ToolCall:
            if (text.toolCalls.empty() || token.toolIndex != int(text.toolCalls.size()) - 1)
                text.toolCalls.push_back(ToolCallOut {token.toolId, token.toolName, QString()});
            text.toolCalls.back().arguments += token.text;
            break;
        }
    }
    return text;
}

} // namespace

TokenPlan planTokens(
    const Script& script, const DialectWriter& writer, const ServerConfig& config, int maxTokens)
{
    TokenPlan plan;
    planReasoning(plan, script);
    const int reasoning = int(script.reasoning.size());
    for (qsizetype i = 0; i < script.content.size(); ++i)
        addText(plan, TokenKind::Content, script.content.at(i), reasoning + int(i));
    const bool markup = writer.toolsAsMarkup(config);
    for (std::size_t i = 0; i < script.toolCalls.size(); ++i) {
        if (markup)
            planToolMarkup(plan, script.toolCalls[i], i == 0);
        else
            planToolCall(plan, script.toolCalls[i], int(i), writer);
    }
    if (maxTokens > 0 && plan.tokens.size() > std::size_t(maxTokens)) {
        plan.tokens.resize(std::size_t(maxTokens));
        plan.truncated = true;
    }
    plan.toolCalls = std::any_of(plan.tokens.begin(), plan.tokens.end(),
        [](const TokenEvent& t) { return t.kind == TokenKind::ToolCall; });
    plan.text = collectText(plan.tokens);
    return plan;
}

void attachLogprobs(TokenPlan& plan, const Script& script, const LogprobAsk& ask)
{
    if (!ask.wanted)
        return;
    const std::vector<PositionScript>& positions = script.logprobs.positions;
    for (std::size_t i = 0; i < plan.tokens.size(); ++i) {
        TokenEvent& token = plan.tokens[i];
        const int at = token.scriptPosition;
        LogprobEntry entry = at >= 0 && std::size_t(at) < positions.size()
            ? scriptedEntry(positions[std::size_t(at)], token.text)
            : synthesizedEntry(token.text, int(i));
        token.logprobs = {entry};
        plan.text.logprobs.push_back(std::move(entry));
    }
}

std::vector<Step> planSteps(
    const Script& script, const TokenPlan& plan, int uncachedTokens, qint64 receivedNs, bool streaming)
{
    const qint64 firstNs = receivedNs + msToNs(script.ttftMs + script.ttftPerPromptTokenMs * uncachedTokens);
    const qint64 intervalNs = script.tokensPerSecond > 0 ? msToNs(1000.0 / script.tokensPerSecond) : 0;
    const int n = int(plan.tokens.size());
    const int faultAt = std::max(0, script.faultAfterTokens);
    const qint64 stallNs = script.fault == Fault::Stall ? msToNs(script.stallMs) : 0;
    auto dueOf = [&](int k) { return firstNs + k * intervalNs + (k >= faultAt ? stallNs : 0); };

    qint64 finishNs = n == 0 ? firstNs : dueOf(n - 1) + (plan.truncated ? 0 : intervalNs);
    if (faultAt == n)
        finishNs += stallNs; // the stall falls between the last token and the finish
    std::vector<Step> steps;
    if (!streaming) {
        // One body at the end; a disconnect or error fault strikes instead of it.
        if (script.fault == Fault::DisconnectMidStream)
            steps.push_back({finishNs, StepKind::Abort, 0});
        else if (script.fault == Fault::ErrorInStream)
            steps.push_back({finishNs, StepKind::StreamError, 0});
        else
            steps.push_back({finishNs, StepKind::Finish, 0});
        return steps;
    }
    for (int k = 0; k <= n; ++k) {
        const bool atFault = k == std::min(faultAt, n);
        const qint64 due = k < n ? dueOf(k) : finishNs;
        if (atFault && script.fault == Fault::MalformedChunk)
            steps.push_back({due, StepKind::Malformed, k});
        if (atFault && script.fault == Fault::DisconnectMidStream) {
            steps.push_back({due, StepKind::Abort, k});
            return steps;
        }
        if (atFault && script.fault == Fault::ErrorInStream) {
            steps.push_back({due, StepKind::StreamError, k});
            return steps;
        }
        steps.push_back({due, k < n ? StepKind::Token : StepKind::Finish, k});
    }
    return steps;
}

} // namespace qs::emu::detail
