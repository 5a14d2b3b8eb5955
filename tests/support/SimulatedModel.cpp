// SPDX-License-Identifier: MIT
#include "tests/support/SimulatedModel.h"

#include <QJsonDocument>
#include <QRegularExpression>
#include <initializer_list>
#include <vector>

namespace qs::emu::detail {

namespace {

using Needles = std::initializer_list<const char*>;

bool hasAny(const QString& lowerText, Needles needles)
{
    for (const char* needle : needles) {
        if (lowerText.contains(QLatin1String(needle)))
            return true;
    }
    return false;
}

bool startsWithAny(const QString& lowerText, Needles needles)
{
    for (const char* needle : needles) {
        if (lowerText.startsWith(QLatin1String(needle)))
            return true;
    }
    return false;
}

QString capitalized(QString text)
{
    if (!text.isEmpty())
        text[0] = text.at(0).toUpper();
    return text;
}

QString pick(const QStringList& options, quint64 variant)
{
    return options.at(qsizetype(variant % quint64(options.size())));
}

// `content` is a string or a list of parts; only text parts count.
QString contentText(const QJsonValue& content)
{
    if (content.isString())
        return content.toString();
    QStringList parts;
    for (const QJsonValue part : content.toArray())
        parts << part.toObject().value(QLatin1String("text")).toString();
    return parts.join(u' ');
}

QString stripEndPunctuation(QString text)
{
    text = text.trimmed();
    while (!text.isEmpty() && (text.back().isPunct() || text.back().isSpace()) && text.back() != u'\'')
        text.chop(1);
    return text;
}

QString sentenceCase(const QString& text)
{
    return capitalized(stripEndPunctuation(text));
}

// ---- conversation facts --------------------------------------------------------------------

// "I'm Sam", "my name is Sam", "call me Sam": a capitalised word after the phrase.
QString nameIn(const QString& text)
{
    static const QRegularExpression re(
        QStringLiteral("\\b(?:my name is|my name's|i'm|i am|i’m|call me|this is)\\s+([A-Za-z][A-Za-z'-]*)"),
        QRegularExpression::CaseInsensitiveOption);
    for (auto it = re.globalMatch(text); it.hasNext();) {
        const QString name = it.next().captured(1);
        if (name.at(0).isUpper())
            return name;
    }
    return {};
}

QString rememberedName(const Conversation& c)
{
    for (auto it = c.earlierUser.crbegin(); it != c.earlierUser.crend(); ++it) {
        if (const QString name = nameIn(*it); !name.isEmpty())
            return name;
    }
    return {};
}

// "I like sailing", "I've been getting into pottery": what the user enjoys.
QStringList likesIn(const QString& text)
{
    static const QRegularExpression re(
        QStringLiteral(
            "\\bi(?:'ve| have)? (?:really |also |been )?(?:like|love|enjoy|am into|'m into|getting "
            "into|got into)\\s+([^.!?,;]+)"),
        QRegularExpression::CaseInsensitiveOption);
    QStringList out;
    for (auto it = re.globalMatch(text); it.hasNext();) {
        QString like = stripEndPunctuation(it.next().captured(1));
        like.remove(QRegularExpression(QStringLiteral("\\s+(?:lately|recently|a lot|so much|too)$")));
        if (!like.isEmpty())
            out << like;
    }
    return out;
}

// ---- tools -----------------------------------------------------------------------------------

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

// Every required argument filled in; search-like tools always get a `query`.
QJsonObject toolArguments(const QJsonObject& schema, const QString& name, const QString& query)
{
    const QJsonObject parameters = schema.value(QLatin1String("parameters")).toObject();
    const QJsonObject properties = parameters.value(QLatin1String("properties")).toObject();
    QJsonObject args;
    if (hasAny(name.toLower(), {"search", "memory", "find", "lookup", "web"})
        || properties.contains(QLatin1String("query")))
        args.insert(QStringLiteral("query"), query);
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

// What to look up: the part after "about", else the request without its polite opening.
QString searchQuery(const QString& message)
{
    const QString text = stripEndPunctuation(message);
    const qsizetype about = text.lastIndexOf(QLatin1String(" about "), -1, Qt::CaseInsensitive);
    if (about >= 0) {
        QString topic = text.mid(about + 7);
        if (text.contains(QLatin1String("news"), Qt::CaseInsensitive))
            topic += QStringLiteral(" news");
        return topic;
    }
    static const QRegularExpression opening(
        QStringLiteral("^(?:(?:hey|ok|okay|so|please|can you|could you|would you|quickly|search(?: the web)? "
                       "for|look up|find(?: out)?|check|tell me|do you remember|remember|what's|what is|"
                       "what are|how's|how is)[, ]+)+"),
        QRegularExpression::CaseInsensitiveOption);
    QString query = text;
    query.remove(opening);
    query.remove(QRegularExpression(QStringLiteral("^the "), QRegularExpression::CaseInsensitiveOption));
    query.replace(QRegularExpression(QStringLiteral(" like in ")), QStringLiteral(" in "));
    return query.isEmpty() ? text : query;
}

const Needles kMemoryWords = {"remember", "what did i say", "what did i tell", "did i mention", "recall",
    "memory", "memories", "i told you", "last time", "my notes", "recommended to me", "my sister",
    "last month", "what was the name"};
const Needles kNotesWords = {"note"};
const Needles kWebWords = {"weather", "news", "latest", "search", "look up", "current", "today's", "stock",
    "price of", "score", "forecast", "headline", "rain", "tomorrow", "temperature"};

std::optional<ToolCallPlan> plannedToolCall(const Conversation& c)
{
    if (!c.toolsAllowed)
        return std::nullopt;
    const QString lower = c.lastUser.toLower();
    QString name = c.forcedTool;
    if (name.isEmpty() && hasAny(lower, kNotesWords))
        name = offeredTool(c.tools, {"note"});
    if (name.isEmpty() && hasAny(lower, kMemoryWords))
        name = offeredTool(c.tools, {"memory", "remember", "recall"});
    if (name.isEmpty() && hasAny(lower, kWebWords))
        name = offeredTool(c.tools, {"web", "search", "browse"}, "memory");
    if (name.isEmpty())
        return std::nullopt;
    ToolCallPlan plan;
    plan.name = name;
    plan.query = searchQuery(c.lastUser);
    plan.arguments = toolArguments(toolSchema(c.tools, name), name, plan.query);
    return plan;
}

// ---- arithmetic ------------------------------------------------------------------------------

struct Quantity {
    long long value = 0;
    QString unit; ///< the word after the number ("boxes"), may be empty
};

std::optional<long long> numberValue(const QString& word)
{
    static const char* const small[] = {"zero", "one", "two", "three", "four", "five", "six", "seven",
        "eight", "nine", "ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen",
        "eighteen", "nineteen", "twenty"};
    bool ok = false;
    const long long digits = word.toLongLong(&ok);
    if (ok)
        return digits;
    for (int i = 0; i <= 20; ++i) {
        if (word == QLatin1String(small[i]))
            return i;
    }
    if (word == QLatin1String("dozen"))
        return 12;
    return std::nullopt;
}

std::vector<Quantity> quantitiesIn(const QString& lowerText)
{
    static const QRegularExpression wordRe(QStringLiteral("[a-z0-9]+"));
    static const Needles notUnits = {"times", "plus", "minus", "and", "of", "each", "per", "x", "more",
        "divided", "multiplied", "is", "are", "in", "with", "to", "by"};
    QStringList words;
    for (auto it = wordRe.globalMatch(lowerText); it.hasNext();)
        words << it.next().captured();
    std::vector<Quantity> out;
    for (qsizetype i = 0; i < words.size(); ++i) {
        const auto value = numberValue(words.at(i));
        if (!value)
            continue;
        Quantity q;
        q.value = *value;
        const QString next = words.value(i + 1);
        bool unit = !next.isEmpty() && !numberValue(next) && next.at(0).isLetter();
        for (const char* word : notUnits)
            unit = unit && next != QLatin1String(word);
        q.unit = unit ? next : QString();
        out.push_back(q);
    }
    return out;
}

bool isArithmetic(const QString& lower)
{
    return quantitiesIn(lower).size() >= 2
        && hasAny(lower,
            {"how many", "total", "times", "each", "per ", "plus", "minus", "multipl", "divided",
                "altogether", "in all", "+", "*", "sum", "left"});
}

Answer arithmeticAnswer(const QString& lower)
{
    const std::vector<Quantity> q = quantitiesIn(lower);
    const long long a = q[0].value;
    const long long b = q[1].value;
    const QString sa = QString::number(a);
    const QString sb = QString::number(b);
    Answer out;
    out.intent = Intent::Arithmetic;
    auto finish = [&](long long result, const QString& text, const QString& why) {
        out.keyPhrase = QString::number(result);
        out.text = text;
        out.thought = why;
        return out;
    };
    const bool product = hasAny(lower, {"times", "each", "per ", "every", "multipl", "*", "how many"});
    if (!product && hasAny(lower, {"plus", "add", "sum", "+"}))
        return finish(a + b,
            sa + QStringLiteral(" plus ") + sb + QStringLiteral(" is ") + QString::number(a + b) + u'.',
            QStringLiteral("Add the two numbers: ") + QString::number(a + b) + u'.');
    if (!product && hasAny(lower, {"minus", "subtract", "take away"}))
        return finish(a - b,
            sa + QStringLiteral(" minus ") + sb + QStringLiteral(" is ") + QString::number(a - b) + u'.',
            QStringLiteral("Subtract: ") + QString::number(a - b) + u'.');
    const long long total = a * b;
    const QString units = q[1].unit.isEmpty() ? QString() : QString(u' ' + q[1].unit);
    const bool giveAway = q.size() >= 3
        && hasAny(lower,
            {"give away", "gives away", "gave away", "lose", "lost", "take away", "remove", "eat", "ate"});
    if (giveAway) {
        const long long left = total - q[2].value;
        return finish(left,
            QStringLiteral("You have ") + QString::number(left) + units + QStringLiteral(" left: ") + sa
                + QStringLiteral(" times ") + sb + QStringLiteral(" makes ") + QString::number(total)
                + QStringLiteral(", and taking away ") + QString::number(q[2].value)
                + QStringLiteral(" leaves ") + QString::number(left) + u'.',
            sa + QStringLiteral(" times ") + sb + QStringLiteral(" is ") + QString::number(total)
                + QStringLiteral(", minus ") + QString::number(q[2].value) + QStringLiteral(" is ")
                + QString::number(left) + u'.');
    }
    out.elaboration = QStringLiteral("Multiplication is just repeated addition, so adding up ") + sa
        + QStringLiteral(" groups of ") + sb + QStringLiteral(" gives the same ") + QString::number(total)
        + u'.';
    const QString why = sa + QStringLiteral(" times ") + sb + QStringLiteral(" is ") + QString::number(total)
        + QStringLiteral(". State the total and the reason in one sentence.");
    if (q[0].unit.isEmpty() || q[1].unit.isEmpty())
        return finish(total,
            sa + QStringLiteral(" times ") + sb + QStringLiteral(" is ") + QString::number(total) + u'.',
            why);
    return finish(total,
        QStringLiteral("There are ") + QString::number(total) + units + QStringLiteral(" in total: ") + sa
            + u' ' + q[0].unit + QStringLiteral(" with ") + sb + units + QStringLiteral(" each is ") + sa
            + QStringLiteral(" times ") + sb + QStringLiteral(", which makes ") + QString::number(total)
            + u'.',
        why);
}

// ---- facts -------------------------------------------------------------------------------

struct Capital {
    const char* country; ///< lower case, as asked
    const char* display;
    const char* city;
};

const Capital kCapitals[]
    = {{"japan", "Japan", "Tokyo"}, {"france", "France", "Paris"}, {"germany", "Germany", "Berlin"},
        {"italy", "Italy", "Rome"}, {"spain", "Spain", "Madrid"}, {"portugal", "Portugal", "Lisbon"},
        {"canada", "Canada", "Ottawa"}, {"australia", "Australia", "Canberra"},
        {"india", "India", "New Delhi"}, {"china", "China", "Beijing"}, {"egypt", "Egypt", "Cairo"},
        {"kenya", "Kenya", "Nairobi"}, {"mexico", "Mexico", "Mexico City"}, {"russia", "Russia", "Moscow"},
        {"south korea", "South Korea", "Seoul"}, {"united kingdom", "the United Kingdom", "London"},
        {"uk", "the UK", "London"}, {"england", "England", "London"}, {"greece", "Greece", "Athens"},
        {"norway", "Norway", "Oslo"}, {"sweden", "Sweden", "Stockholm"}, {"thailand", "Thailand", "Bangkok"},
        {"united states", "the United States", "Washington, D.C."}, {"usa", "the USA", "Washington, D.C."},
        {"argentina", "Argentina", "Buenos Aires"}, {"turkey", "Turkey", "Ankara"}};

Answer capitalAnswer(const QString& lower, quint64 variant)
{
    static const QRegularExpression re(QStringLiteral("capital (?:city )?of (?:the )?([a-z .'-]+)"));
    const QString asked = stripEndPunctuation(re.match(lower).captured(1));
    Answer out;
    out.intent = Intent::Capital;
    for (const Capital& c : kCapitals) {
        if (asked != QLatin1String(c.country) && !asked.startsWith(QLatin1String(c.country) + u' '))
            continue;
        const QString city = QString::fromLatin1(c.city);
        const QString country = QString::fromLatin1(c.display);
        out.keyPhrase = city;
        out.text
            = pick({city + QStringLiteral(" is the capital of ") + country
                           + QStringLiteral(". It's a wonderful city to visit if you ever get the chance."),
                       QStringLiteral("The capital of ") + country + QStringLiteral(" is ") + city
                           + QStringLiteral(". It's a lively, fascinating place with lots to see.")},
                variant);
        out.elaboration = city + QStringLiteral(" is where ") + country
            + QStringLiteral(
                "'s national government sits, and it is one of the country's great cultural centres.");
        out.thought = QStringLiteral("The user wants the capital of ") + country
            + QStringLiteral(". That is ") + city + QStringLiteral(". One short sentence is enough.");
        return out;
    }
    out.text
        = QStringLiteral("I'm not completely sure about that one, so I'd rather not guess. Could you tell me "
                         "which country you mean?");
    out.thought = QStringLiteral("I don't know this capital; better to say so than to guess.");
    return out;
}

// ---- long answers --------------------------------------------------------------------------

const Needles kExplainWords
    = {"tell me about", "tell me a bit about", "tell me a little about", "tell me more about", "explain",
        "describe", "what do you know about", "overview of", "in detail", "story"};

QString explainTopic(const QString& message)
{
    static const QRegularExpression re(
        QStringLiteral(
            "(?:tell me (?:a bit |a little |more )?about|explain(?: to me)?|describe|what do you know "
            "about|overview of|how does)\\s+(.+?)(?:\\s+work)?[?.!]*$"),
        QRegularExpression::CaseInsensitiveOption);
    QString topic = stripEndPunctuation(re.match(message.trimmed()).captured(1));
    topic.remove(QRegularExpression(QStringLiteral("\\s+in (?:some |a bit of |great )?detail$"),
        QRegularExpression::CaseInsensitiveOption));
    return topic.isEmpty() ? QStringLiteral("that topic") : topic;
}

Answer explainAnswer(const QString& message, quint64 variant)
{
    Answer out;
    out.intent = Intent::Explain;
    if (message.contains(QLatin1String("story"), Qt::CaseInsensitive)) {
        out.keyPhrase = QStringLiteral("Elena");
        out.text = QStringLiteral(
            "Once upon a time, in a small town by the sea, there lived a lighthouse keeper named Elena. "
            "Every "
            "night she climbed the winding stairs to light the lamp, and every night she wondered who the "
            "ships "
            "were carrying. One stormy evening a little boat drifted close to the rocks, and Elena guided it "
            "safely home with her light. Inside was a young girl who had run away to find adventure. Elena "
            "made "
            "her cocoa, told her stories of the sea, and walked her home at dawn. From then on the girl "
            "visited "
            "every week, and the two became the best of friends.");
        out.thought
            = QStringLiteral("The user wants a story. Keep it gentle, about a hundred words, no lists.");
        return out;
    }
    const QString topic = explainTopic(message);
    out.keyPhrase = topic;
    out.thought = QStringLiteral("The user wants an explanation of ") + topic
        + QStringLiteral(". Give a short, friendly overview without lists or headings.");
    if (variant % 2 == 0) {
        out.text = QStringLiteral("Here's a short overview of ") + topic
            + QStringLiteral(
                ". At its heart, it comes down to a few simple ideas that fit together in a "
                "surprisingly elegant way. Most people start with the basics and only later notice "
                "how much depth there is once they look closer. Over the years it has shaped how "
                "many of us think, work and spend our free time, and new ideas keep building on the "
                "old ones. The easiest way to really understand it is to try a small part yourself "
                "and see how it feels. If you like, I can go deeper into any part of it.");
    } else {
        out.text = QStringLiteral("There's a lot to love about ") + topic
            + QStringLiteral(
                ". The short version is that it grew out of people "
                "trying to solve everyday problems, and over time those small solutions added up "
                "to something much bigger. What makes it interesting is how the pieces connect: each "
                "idea leads naturally to the next, and you start seeing it everywhere once you know "
                "what to look for. Many people find that learning a little about it changes how they "
                "see the world around them. If you want, I can walk you through the key ideas next.");
    }
    out.elaboration
        = QStringLiteral("There is a lot more to say about the history, the key people involved and "
                         "the debates that still go on today.");
    return out;
}

// ---- conversation --------------------------------------------------------------------------

Answer greetingAnswer(const QString& lower, const QString& name, quint64 variant)
{
    Answer out;
    out.intent = Intent::Greeting;
    out.thought
        = QStringLiteral("The user is greeting me. Reply warmly in one short sentence and invite them to "
                         "go on.");
    out.elaboration
        = QStringLiteral("I can help with questions, reminders and looking things up, or we can just "
                         "have a friendly chat whenever you like.");
    if (!name.isEmpty()) {
        out.keyPhrase = name;
        out.text
            = pick({QStringLiteral("Hi ") + name
                           + QStringLiteral(", it's lovely to meet you! I'm here whenever you need a hand, "
                                            "whether it's a quick question or just a chat. What's on your "
                                            "mind today?"),
                       QStringLiteral("Nice to meet you, ") + name
                           + QStringLiteral("! I'm really glad you stopped by. Ask me anything, or just tell "
                                            "me about your day. What would you like to talk about?")},
                variant);
    } else if (lower.contains(QLatin1String("how are you"))) {
        out.text = QStringLiteral("I'm doing really well, thanks for asking! How has your day been so far?");
    } else {
        out.text
            = pick({QStringLiteral("Hi there, it's lovely to hear from you! What can I do for you today?"),
                       QStringLiteral("Hello, great to hear from you! What's on your mind today?")},
                variant);
    }
    return out;
}

Answer nameRecallAnswer(const Conversation& c)
{
    Answer out;
    out.intent = Intent::NameRecall;
    const QString name = rememberedName(c);
    if (name.isEmpty()) {
        out.text = QStringLiteral(
            "I don't think you've told me your name yet. What would you like me to call you?");
        out.thought = QStringLiteral("The user has not told me their name in this conversation.");
        return out;
    }
    out.keyPhrase = name;
    out.text = QStringLiteral("Your name is ") + name
        + QStringLiteral(". You told me at the start of our chat, and it's lovely to keep talking with you!");
    out.thought = QStringLiteral("Earlier in the conversation the user said their name is ") + name + u'.';
    out.elaboration
        = QStringLiteral("You mentioned it earlier in our conversation, and I'll keep it in mind.");
    return out;
}

Answer factRecallAnswer(const Conversation& c)
{
    Answer out;
    out.intent = Intent::FactRecall;
    QStringList likes;
    for (const QString& message : c.earlierUser)
        likes << likesIn(message);
    if (likes.isEmpty()) {
        out.text = QStringLiteral("I don't think you've mentioned that yet, but I'd love to hear about it.");
        out.thought = QStringLiteral("Nothing in the conversation answers this.");
        return out;
    }
    likes.removeDuplicates();
    const QString joined = likes.size() == 1
        ? likes.first()
        : likes.mid(0, likes.size() - 1).join(QStringLiteral(", ")) + QStringLiteral(" and ") + likes.last();
    out.keyPhrase = joined;
    out.text = QStringLiteral("You told me you enjoy ") + joined
        + QStringLiteral(
            ". It sounds like a wonderful way to spend your free time, and I hope you get to do it "
            "again soon!");
    out.thought = QStringLiteral("Earlier the user said they enjoy ") + joined + u'.';
    return out;
}

Answer feelingAnswer(bool negative)
{
    Answer out;
    out.intent = Intent::Feeling;
    out.thought
        = QStringLiteral("The user is sharing a feeling. Be warm and brief, and ask a gentle question.");
    out.text = negative
        ? QStringLiteral("I'm sorry you're feeling that way. That sounds like a lot to carry. Do you "
                         "want to talk about what's been weighing on you?")
        : QStringLiteral("That's wonderful to hear! It's always nice when things go well. What "
                         "has made you feel so good?");
    out.elaboration
        = QStringLiteral("Sometimes just saying things out loud helps, and I'm here to listen for as "
                         "long as you like.");
    return out;
}

Answer statementAnswer(const QString& like)
{
    Answer out;
    out.intent = Intent::Statement;
    out.keyPhrase = like;
    out.text = sentenceCase(like)
        + QStringLiteral(
            " sounds wonderful! It's lovely to have something you enjoy that much. What do you like "
            "most about it, and how did you get started?");
    out.thought
        = QStringLiteral("The user enjoys ") + like + QStringLiteral(". Show interest and ask about it.");
    out.elaboration
        = QStringLiteral("Hobbies like that are a great way to relax, meet people and learn something "
                         "new along the way.");
    return out;
}

Answer toolResultAnswer(const QString& result)
{
    Answer out;
    out.intent = Intent::ToolResult;
    out.thought = QStringLiteral("The tool answered. Summarise it in one friendly sentence.");
    QStringList words = result.simplified().split(u' ', Qt::SkipEmptyParts);
    if (words.isEmpty()) {
        out.text = QStringLiteral("I couldn't find anything about that, I'm afraid.");
        return out;
    }
    if (words.size() > 30)
        words = words.mid(0, 30);
    out.text = QStringLiteral("Here's what I found: ") + stripEndPunctuation(words.join(u' ')) + u'.';
    return out;
}

Answer simpleAnswer(
    Intent intent, const QString& text, const QString& thought, const QString& elaboration = {})
{
    Answer out;
    out.intent = intent;
    out.text = text;
    out.thought = thought;
    out.elaboration = elaboration;
    return out;
}

Answer genericAnswer(quint64 variant)
{
    return simpleAnswer(Intent::Generic,
        pick({QStringLiteral(
                  "That's a good question. I'm happy to help with that. Could you tell me a little more "
                  "about what you have in mind?"),
                 QStringLiteral(
                     "Sure, I can help with that. Tell me a bit more about what you need, and I'll keep "
                     "my answer short and simple."),
                 QStringLiteral(
                     "Happy to chat about that! What would you like to know first? I'll keep things "
                     "clear and to the point.")},
            variant),
        QStringLiteral("The request is open-ended. Reply briefly and ask a friendly follow-up question."),
        QStringLiteral(
            "I can also look things up, remember details for later, or just keep you company while you "
            "think it through."));
}

bool isGreeting(const QString& lower)
{
    return startsWithAny(lower,
               {"hi", "hello", "hey", "hiya", "howdy", "greetings", "good morning", "good afternoon",
                   "good evening", "morning"})
        || lower.contains(QLatin1String("how are you"));
}

bool asksName(const QString& lower)
{
    return hasAny(lower,
        {"what's my name", "what is my name", "whats my name", "who am i", "my name?", "know my name",
            "remember my name", "what did i say my name", "what my name is"});
}

// Text answers, in order of specificity; tool calls are decided before.
Answer textAnswer(const Conversation& c, quint64 variant)
{
    const QString lower = c.lastUser.toLower();
    if (asksName(lower))
        return nameRecallAnswer(c);
    if (isArithmetic(lower))
        return arithmeticAnswer(lower);
    if (lower.contains(QLatin1String("capital of")) || lower.contains(QLatin1String("capital city of")))
        return capitalAnswer(lower, variant);
    if (hasAny(lower, kMemoryWords) || hasAny(lower, {"what do i like", "my hobby", "my hobbies"}))
        return factRecallAnswer(c);
    if (hasAny(lower, kExplainWords))
        return explainAnswer(c.lastUser, variant);
    if (hasAny(lower, kWebWords))
        return simpleAnswer(Intent::LiveInfo,
            QStringLiteral(
                "I can't check live information right now, but a quick look at a trusted weather or news "
                "app will give you the latest."),
            QStringLiteral("This needs live data I don't have without a search tool."));
    if (const QString name = nameIn(c.lastUser); isGreeting(lower) || !name.isEmpty())
        return greetingAnswer(lower, name, variant);
    if (hasAny(lower, {"thank", "cheers"}))
        return simpleAnswer(Intent::Thanks,
            QStringLiteral(
                "You're very welcome! I'm always happy to help, so just let me know if anything else "
                "comes up."),
            QStringLiteral("The user is thanking me. A warm, short reply."));
    if (hasAny(lower,
            {"stressed", "tired", "sad", "anxious", "worried", "nervous", "exhausted", "lonely", "upset",
                "overwhelmed", "rough day", "bad day"}))
        return feelingAnswer(true);
    if (hasAny(lower, {"happy", "excited", "thrilled", "great news", "good news", "great day"}))
        return feelingAnswer(false);
    if (const QStringList likes = likesIn(c.lastUser); !likes.isEmpty())
        return statementAnswer(likes.first());
    return genericAnswer(variant);
}

} // namespace

Conversation readConversation(const QJsonObject& body)
{
    Conversation c;
    const QJsonArray messages = body.value(QLatin1String("messages")).toArray();
    qsizetype lastUser = -1;
    for (qsizetype i = 0; i < messages.size(); ++i) {
        if (messages.at(i).toObject().value(QLatin1String("role")).toString() == QLatin1String("user"))
            lastUser = i;
    }
    for (qsizetype i = 0; i < lastUser; ++i) {
        const QJsonObject message = messages.at(i).toObject();
        if (message.value(QLatin1String("role")).toString() == QLatin1String("user"))
            c.earlierUser << contentText(message.value(QLatin1String("content")));
    }
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
    if (!conversation.toolResult.isEmpty())
        return toolResultAnswer(conversation.toolResult);
    if (const auto call = plannedToolCall(conversation)) {
        Answer out;
        out.intent = Intent::ToolCall;
        out.toolCall = call;
        out.keyPhrase = call->query;
        out.thought = QStringLiteral("The user wants ") + call->query + QStringLiteral(". I should call ")
            + call->name + QStringLiteral(" rather than guess.");
        return out;
    }
    return textAnswer(conversation, variant);
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
    // A calibration knob more than a tokenizer: ~20 characters of compact schema JSON per token,
    // plus the template's tool preamble (puts the voice-assistant tool tests near the seeds' ~760 ms on
    // q4km-like).
    return int(QJsonDocument(tools).toJson(QJsonDocument::Compact).size() / 20) + 10;
}

} // namespace qs::emu::detail
