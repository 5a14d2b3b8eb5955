// SPDX-License-Identifier: MIT
#include "tests/support/SimulatedTools.h"

#include "tests/support/SimulatedText.h"

#include <QRegularExpression>

namespace qs::emu::detail {

namespace {

QString toolName(const QJsonValue& tool)
{
    return tool.toObject()
        .value(QLatin1String("function"))
        .toObject()
        .value(QLatin1String("name"))
        .toString();
}

QJsonObject toolSchema(const QJsonArray& tools, const QString& name)
{
    for (const QJsonValue tool : tools) {
        if (toolName(tool) == name)
            return tool.toObject().value(QLatin1String("function")).toObject();
    }
    return {};
}

// The first offered tool whose name contains one of `parts` (and not `exclude`).
QString offeredTool(const QJsonArray& tools, Needles parts, const char* exclude = nullptr)
{
    for (const QJsonValue tool : tools) {
        const QString name = toolName(tool).toLower();
        if (exclude && name.contains(QLatin1String(exclude)))
            continue;
        if (hasAny(name, parts))
            return toolName(tool);
    }
    return {};
}

// A web search about today or tonight wants fresh results: the schema's recency, when it has
// one with that value (voice-assistant's web_search: any, day, week, month).
QString recencyFor(const QJsonObject& property, const QString& lowerMessage)
{
    static const QRegularExpression day(
        QStringLiteral("\\b(?:today|tonight|tomorrow|last night|right now)\\b"));
    static const QRegularExpression week(QStringLiteral("\\b(?:this week|latest|news)\\b"));
    const QString wanted = lowerMessage.contains(day) ? QStringLiteral("day")
        : lowerMessage.contains(week)                 ? QStringLiteral("week")
                                                      : QString();
    if (wanted.isEmpty())
        return {};
    for (const QJsonValue value : property.value(QLatin1String("enum")).toArray()) {
        if (value.toString() == wanted)
            return wanted;
    }
    return {};
}

// Every required argument filled in; search-like tools always get a `query`, and a web search
// its recency when the schema offers one that fits.
QJsonObject toolArguments(
    const QJsonObject& schema, const QString& name, const QString& query, const QString& lowerMessage)
{
    const QJsonObject parameters = schema.value(QLatin1String("parameters")).toObject();
    const QJsonObject properties = parameters.value(QLatin1String("properties")).toObject();
    QJsonObject args;
    if (hasAny(name.toLower(), {"search", "memory", "find", "lookup", "web"})
        || properties.contains(QLatin1String("query")))
        args.insert(QStringLiteral("query"), query);
    if (name.toLower().contains(QLatin1String("web")) && properties.contains(QLatin1String("recency"))) {
        const QString recency
            = recencyFor(properties.value(QLatin1String("recency")).toObject(), lowerMessage);
        if (!recency.isEmpty())
            args.insert(QStringLiteral("recency"), recency);
    }
    for (const QJsonValue required : parameters.value(QLatin1String("required")).toArray()) {
        const QString key = required.toString();
        if (key.isEmpty() || args.contains(key))
            continue;
        const QString type = properties.value(key).toObject().value(QLatin1String("type")).toString();
        if (type == QLatin1String("integer") || type == QLatin1String("number"))
            args.insert(key, 5);
        else if (type == QLatin1String("boolean"))
            args.insert(key, true);
        else
            args.insert(key, query);
    }
    return args;
}

// The cues, in the order they are tried: notes first ("what did I write in my notes" is about
// notes, not memory), then memory, then the web.
bool wantsNotes(const QString& lower)
{
    static const QRegularExpression re(
        QStringLiteral("\\bnotes?\\b|\\b(?:shopping|packing|to-?do|grocery|gift|reading) list\\b|"
                       "\\bmy (?:\\w+ )?list\\b|\\brecipe\\b"));
    return lower.contains(re);
}

bool wantsMemory(const QString& lower)
{
    static const QRegularExpression re(QStringLiteral(
        "\\bremember\\b|\\brecall\\b|\\bmemor(?:y|ies)\\b|\\bdid i (?:ever )?(?:tell|say|mention)\\b|"
        "\\bi (?:told|mentioned)\\b|\\btold me\\b|\\brecommended\\b|\\bmy sister\\b|"
        "\\blast (?:month|summer|winter|spring|autumn|year|time)\\b|\\b(?:weeks|months|years) ago\\b|"
        "\\ba while (?:ago|back)\\b|\\bwhat was (?:the name|that)\\b"));
    return lower.contains(re);
}

bool wantsWeb(const QString& lower)
{
    static const QRegularExpression re(QStringLiteral(
        "\\bweather\\b|\\bforecast\\b|\\brain(?:ing|y)?\\b|\\bsunny\\b|\\bsnow(?:ing)?\\b|\\bnews\\b|"
        "\\bheadlines?\\b|\\blatest\\b|\\bscores?\\b|\\blast night\\b|\\bget on\\b|\\bresults?\\b|"
        "\\bstocks?\\b|\\bprice of\\b|\\bopening hours\\b|\\btraffic\\b|\\bstrikes?\\b|\\bdelays?\\b|"
        "\\bsearch\\b|\\blook up\\b|\\bcurrent\\b|\\btoday's\\b|\\btemperature "
        "(?:outside|today|tomorrow|in)\\b|"
        "\\b(?:open|opens|close|closes)\\b.*\\b(?:today|tonight|now|tomorrow|this evening)\\b"));
    return lower.contains(re);
}

} // namespace

QString searchQuery(const QString& message)
{
    // "…told me about a few weeks ago": a time, not a topic; the topic comes before "about" then.
    static const QRegularExpression when(
        QStringLiteral("^(?:(?:a few|some|two|three|a couple of) )?(?:days|weeks|months|years) ago$|^last "
                       "\\w+$|^yesterday$|^recently$|^earlier$"),
        QRegularExpression::CaseInsensitiveOption);
    QString text = stripEndPunctuation(message);
    const qsizetype about = text.lastIndexOf(QLatin1String(" about "), -1, Qt::CaseInsensitive);
    if (about >= 0 && !text.mid(about + 7).contains(when)) {
        QString topic = text.mid(about + 7);
        if (text.contains(QLatin1String("news"), Qt::CaseInsensitive))
            topic += QStringLiteral(" news");
        return topic;
    }
    if (about >= 0)
        text.truncate(about);
    static const QRegularExpression opening(
        QStringLiteral("^(?:(?:hey|ok|okay|so|please|can you|could you|would you|quickly|search(?: the web)? "
                       "for|look up|find(?: out)?|check|tell me|do you remember|remember|what's|what is|"
                       "what are|what was|how's|how is|how did|is it going to|will it|what time does|"
                       "did i ever tell you|did i tell you|that)[, ]+)+"),
        QRegularExpression::CaseInsensitiveOption);
    QString query = text;
    query.remove(opening);
    query.remove(QRegularExpression(QStringLiteral("^the "), QRegularExpression::CaseInsensitiveOption));
    query.replace(QRegularExpression(QStringLiteral(" like in ")), QStringLiteral(" in "));
    return query.isEmpty() ? text : query;
}

QString notesTopic(const QString& message)
{
    const QString text = stripEndPunctuation(message);
    static const QRegularExpression notesAbout(
        QStringLiteral("\\b(\\w+ )?notes? (?:about|on|for|from) (?:the |my |our )?(.+)$"),
        QRegularExpression::CaseInsensitiveOption);
    if (const auto m = notesAbout.match(text); m.hasMatch()) {
        const QString before = m.captured(1).trimmed().toLower();
        const bool noun = !before.isEmpty()
            && !QStringList {QStringLiteral("my"), QStringLiteral("the"), QStringLiteral("your"),
                QStringLiteral("our"), QStringLiteral("in"), QStringLiteral("read"), QStringLiteral("his"),
                QStringLiteral("her")}
                    .contains(before);
        return m.captured(2) + (noun ? u' ' + before : QString());
    }
    static const QRegularExpression list(
        QStringLiteral("\\b((?:\\w+ )?list(?: for (?:the |my |our )?[^?.!]+)?)"),
        QRegularExpression::CaseInsensitiveOption);
    if (const auto m = list.match(text); m.hasMatch()) {
        QString topic = m.captured(1);
        topic.remove(QRegularExpression(
            QStringLiteral("^(?:my|the|our) "), QRegularExpression::CaseInsensitiveOption));
        return topic;
    }
    return searchQuery(message);
}

std::optional<ToolCallPlan> plannedToolCall(const Conversation& c)
{
    if (!c.toolsAllowed)
        return std::nullopt;
    const QString lower = c.lastUser.toLower();
    QString name = c.forcedTool;
    bool notes = false;
    if (name.isEmpty() && wantsNotes(lower)) {
        name = offeredTool(c.tools, {"note"});
        notes = !name.isEmpty();
    }
    if (name.isEmpty() && wantsMemory(lower))
        name = offeredTool(c.tools, {"memory", "remember", "recall"});
    if (name.isEmpty() && wantsWeb(lower))
        name = offeredTool(c.tools, {"web", "search", "browse"}, "memory");
    if (name.isEmpty())
        return std::nullopt;
    ToolCallPlan plan;
    plan.name = name;
    plan.query = notes ? notesTopic(c.lastUser) : searchQuery(c.lastUser);
    plan.arguments = toolArguments(toolSchema(c.tools, name), name, plan.query, lower);
    return plan;
}

} // namespace qs::emu::detail
