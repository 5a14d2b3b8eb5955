// SPDX-License-Identifier: MIT
// The simulated model's entry points: what it reads from a request, and the order in which its
// parts get to answer (the most specific first).
#include "tests/support/SimulatedModel.h"

#include "tests/support/SimulatedAnswers.h"
#include "tests/support/SimulatedBriefing.h"
#include "tests/support/SimulatedChat.h"
#include "tests/support/SimulatedReasoning.h"
#include "tests/support/SimulatedText.h"
#include "tests/support/SimulatedTools.h"

#include <QJsonDocument>

namespace qs::emu::detail {

Conversation readConversation(const QJsonObject& body)
{
    Conversation c;
    const QJsonArray messages = body.value(QLatin1String("messages")).toArray();
    qsizetype lastUser = -1;
    for (qsizetype i = 0; i < messages.size(); ++i) {
        if (messages.at(i).toObject().value(QLatin1String("role")).toString() == QLatin1String("user"))
            lastUser = i;
    }
    QStringList system;
    for (qsizetype i = 0; i < messages.size(); ++i) {
        const QJsonObject message = messages.at(i).toObject();
        const QString role = message.value(QLatin1String("role")).toString();
        if (role == QLatin1String("system") || role == QLatin1String("developer"))
            system << contentText(message.value(QLatin1String("content")));
        else if (role == QLatin1String("user") && i < lastUser)
            c.earlierUser << contentText(message.value(QLatin1String("content")));
    }
    c.system = system.join(u'\n');
    if (lastUser >= 0)
        c.lastUser = contentText(messages.at(lastUser).toObject().value(QLatin1String("content")));
    const QJsonObject last = messages.isEmpty() ? QJsonObject() : messages.last().toObject();
    if (last.value(QLatin1String("role")).toString() == QLatin1String("tool"))
        c.toolResult = contentText(last.value(QLatin1String("content")));

    c.tools = body.value(QLatin1String("tools")).toArray();
    const QJsonValue choice = body.value(QLatin1String("tool_choice"));
    c.forcedTool = choice.toObject()
                       .value(QLatin1String("function"))
                       .toObject()
                       .value(QLatin1String("name"))
                       .toString();
    c.toolsAllowed = !c.tools.isEmpty() && choice.toString() != QLatin1String("none");
    const QJsonValue thinking = body.value(QLatin1String("chat_template_kwargs"))
                                    .toObject()
                                    .value(QLatin1String("enable_thinking"));
    c.thinking = thinking.isBool() && thinking.toBool();
    c.ignoreEos = body.value(QLatin1String("ignore_eos")).toBool(false);
    for (const char* key : {"max_completion_tokens", "max_tokens", "n_predict"}) {
        const int value = body.value(QLatin1String(key)).toInt(0);
        if (value > 0) {
            c.maxTokens = value;
            break;
        }
    }
    return c;
}

Answer answerFor(const Conversation& conversation, quint64 variant)
{
    const Conversation& c = conversation;
    if (!c.toolResult.isEmpty())
        return toolResultAnswer(c.toolResult);
    // Said earlier in this conversation: answered from it, with no tool (the voice assistant's
    // system prompt asks for that; only a tool_choice naming a function overrides it).
    if (c.forcedTool.isEmpty()) {
        if (auto recalled = recallAnswer(c))
            return *recalled;
    }
    if (const auto call = plannedToolCall(c)) {
        Answer out;
        out.intent = Intent::ToolCall;
        out.toolCall = call;
        out.keyPhrase = call->query;
        out.thought = QStringLiteral("The user wants ") + call->query + QStringLiteral(". I should call ")
            + call->name + QStringLiteral(" rather than guess.");
        return out;
    }
    // What it knows before what it works out: the table holds the problems the rules misread.
    if (auto known = knownAnswer(c, variant))
        return *known;
    if (auto worked = reasoningAnswer(c.lastUser))
        return *worked;
    if (auto briefed = briefingAnswer(c))
        return *briefed;
    if (auto explained = explainAnswer(c.lastUser, variant))
        return *explained;
    return chatAnswer(c, variant);
}

QStringList wordTokens(const QString& text)
{
    QStringList out;
    QString current;
    bool afterSpace = false;
    for (const QChar ch : text) {
        if (ch.isSpace()) {
            current += ch;
            afterSpace = true;
            continue;
        }
        // A new word starts a new token, unless all we have is leading whitespace.
        if (afterSpace && !current.trimmed().isEmpty()) {
            out << current;
            current.clear();
        }
        current += ch;
        afterSpace = false;
    }
    if (!current.isEmpty())
        out << current;
    return out;
}

QStringList fillerTokens(int count)
{
    static const QStringList words = wordTokens(QStringLiteral(
        "The morning light spread slowly across the quiet harbour while the fishing boats rocked gently at "
        "their "
        "moorings and the gulls circled above the old stone pier. Down by the market the first stalls were "
        "opening, the smell of fresh bread drifted through the narrow streets, and the town began another "
        "ordinary, peaceful day. "));
    QStringList out;
    out.reserve(count);
    for (int i = 0; i < count; ++i)
        out << words.at(i % words.size());
    return out;
}

int toolPromptTokens(const QJsonArray& tools)
{
    if (tools.isEmpty())
        return 0;
    // About what a tokenizer makes of compact schema JSON (~4 characters a token), plus the
    // template's tool preamble (Qwen's "# Tools … <tools></tools>" instructions).
    return int(QJsonDocument(tools).toJson(QJsonDocument::Compact).size() / 4) + 60;
}

} // namespace qs::emu::detail
