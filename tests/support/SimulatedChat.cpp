// SPDX-License-Identifier: MIT
#include "tests/support/SimulatedChat.h"

#include "tests/support/SimulatedBriefing.h"
#include "tests/support/SimulatedText.h"

#include <QRegularExpression>

namespace qs::emu::detail {

namespace {

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

Answer greetingAnswer(const QString& lower, const QString& name, quint64 variant)
{
    Answer out = simpleAnswer(Intent::Greeting, QString(),
        QStringLiteral(
            "The user is greeting me. Reply warmly in one short sentence and invite them to go on."),
        QStringLiteral("I can help with questions, reminders and looking things up, or we can just have a "
                       "friendly chat whenever you like."));
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
    const QString name = rememberedName(c);
    if (const QString briefed = userName(c.system); name.isEmpty() && !briefed.isEmpty()) {
        Answer out = simpleAnswer(Intent::NameRecall,
            QStringLiteral("You're ") + briefed
                + QStringLiteral(", of course! It's lovely to be chatting with you."),
            QStringLiteral("The system prompt says who I'm talking to: ") + briefed + u'.');
        out.keyPhrase = briefed;
        return out;
    }
    if (name.isEmpty())
        return simpleAnswer(Intent::NameRecall,
            QStringLiteral("I don't think you've told me your name yet. What would you like me to call you?"),
            QStringLiteral("The user has not told me their name in this conversation."));
    Answer out = simpleAnswer(Intent::NameRecall,
        QStringLiteral("Your name is ") + name
            + QStringLiteral(
                ". You told me at the start of our chat, and it's lovely to keep talking with you!"),
        QStringLiteral("Earlier in the conversation the user said their name is ") + name + u'.',
        QStringLiteral("You mentioned it earlier in our conversation, and I'll keep it in mind."));
    out.keyPhrase = name;
    return out;
}

Answer factRecallAnswer(const Conversation& c)
{
    QStringList likes;
    for (const QString& message : c.earlierUser)
        likes << likesIn(message);
    if (likes.isEmpty())
        return simpleAnswer(Intent::FactRecall,
            QStringLiteral("I don't think you've mentioned that yet, but I'd love to hear about it."),
            QStringLiteral("Nothing in the conversation answers this."));
    likes.removeDuplicates();
    const QString joined = likes.size() == 1
        ? likes.first()
        : likes.mid(0, likes.size() - 1).join(QStringLiteral(", ")) + QStringLiteral(" and ") + likes.last();
    Answer out = simpleAnswer(Intent::FactRecall,
        QStringLiteral("You told me you enjoy ") + joined
            + QStringLiteral(
                ". It sounds like a wonderful way to spend your free time, and I hope you get to do "
                "it again soon!"),
        QStringLiteral("Earlier the user said they enjoy ") + joined + u'.');
    out.keyPhrase = joined;
    return out;
}

Answer feelingAnswer(bool negative)
{
    return simpleAnswer(Intent::Feeling,
        negative ? QStringLiteral(
            "I'm sorry you're feeling that way. That sounds like a lot to carry. Do you want to "
            "talk about what's been weighing on you?")
                 : QStringLiteral(
                     "That's wonderful to hear! It's always nice when things go well. What has made you "
                     "feel so good?"),
        QStringLiteral("The user is sharing a feeling. Be warm and brief, and ask a gentle question."),
        QStringLiteral(
            "Sometimes just saying things out loud helps, and I'm here to listen for as long as you "
            "like."));
}

// Nerves before something: reassurance, not "a lot to carry".
Answer nervesAnswer()
{
    return simpleAnswer(Intent::Feeling,
        QStringLiteral(
            "That's completely natural, and it shows how much you care about doing it well. A couple of "
            "run-throughs out loud beforehand will take the edge off, and I'm sure you'll do brilliantly."),
        QStringLiteral(
            "She is nervous about something ahead. Normalise it, one practical tip, encouragement."),
        QStringLiteral("If you'd like, we can go through the opening together."));
}

Answer statementAnswer(const QString& like)
{
    Answer out = simpleAnswer(Intent::Statement,
        sentenceCase(like)
            + QStringLiteral(
                " sounds wonderful! It's lovely to have something you enjoy that much. What do you like "
                "most about it, and how did you get started?"),
        QStringLiteral("The user enjoys ") + like + QStringLiteral(". Show interest and ask about it."),
        QStringLiteral(
            "Hobbies like that are a great way to relax, meet people and learn something new along the "
            "way."));
    out.keyPhrase = like;
    return out;
}

// "My dog's name is Biscuit.", "I'm flying to Rome on Friday.": interest in what the user shares.
std::optional<Answer> newsAnswer(const QString& message)
{
    static const QRegularExpression named(QStringLiteral("\\bmy (\\w+)(?:'s|’s)? name is ([A-Z]\\w+)"),
        QRegularExpression::CaseInsensitiveOption);
    static const QRegularExpression trip(
        QStringLiteral(
            "\\bi(?:'m|’m| am) (?:flying|going|travelling|traveling|driving|heading) to ([A-Z]\\w+)"),
        QRegularExpression::CaseInsensitiveOption);
    if (const auto m = named.match(message); m.hasMatch()) {
        Answer out = simpleAnswer(Intent::Statement,
            m.captured(2) + QStringLiteral(" is a lovely name! Tell me a bit more about your ")
                + m.captured(1).toLower() + QStringLiteral("."),
            QStringLiteral("The user told me a name: ") + m.captured(2)
                + QStringLiteral(". Respond warmly."));
        out.keyPhrase = m.captured(2);
        return out;
    }
    if (const auto m = trip.match(message); m.hasMatch()) {
        Answer out = simpleAnswer(Intent::Statement,
            QStringLiteral("How exciting, a trip to ") + m.captured(1)
                + QStringLiteral("! Is it a holiday, or are you going for work?"),
            QStringLiteral("The user is travelling to ") + m.captured(1)
                + QStringLiteral(". Show interest."));
        out.keyPhrase = m.captured(1);
        return out;
    }
    return std::nullopt;
}

// "Do you think…?", "Should I…?": a gentle opinion that leaves the choice with the user.
Answer opinionAnswer(quint64 variant)
{
    return simpleAnswer(Intent::Advice,
        pick({QStringLiteral(
                  "I think that could work really well. Go with what feels right to you, and if it helps, "
                  "we can think through the details together."),
                 QStringLiteral(
                     "That sounds like a good plan to me. Trust your instinct on it, and let me know if "
                     "you'd like a hand with the next step.")},
            variant),
        QStringLiteral("Asked for an opinion. Be encouraging and leave the choice with the user."));
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
                   "good evening", "morning", "evening"})
        || lower.contains(QLatin1String("how are you"));
}

bool asksName(const QString& lower)
{
    return hasAny(lower,
        {"what's my name", "what is my name", "whats my name", "who am i", "my name?", "know my name",
            "remember my name", "what did i say my name", "what my name is"});
}

bool asksAboutEarlierTurn(const QString& lower)
{
    static const QRegularExpression re(
        QStringLiteral("\\bdid i (?:say|tell you|mention)\\b|\\bi (?:said|told you|mentioned)\\b|\\bremind "
                       "me\\b|\\bagain\\s*\\??$|\\bwhat was my\\b"));
    return lower.contains(re);
}

// "My budget is about forty pounds." → "your budget is about forty pounds."
QString saidBack(const QString& message)
{
    QString text = secondPerson(message.trimmed());
    static const Needles lowerFirst = {"your ", "you ", "you'", "a ", "an ", "the ", "it ", "it's ", "she ",
        "he ", "they ", "there ", "this ", "that "};
    if (startsWithAny(text.toLower(), lowerFirst))
        text[0] = text.at(0).toLower();
    if (!text.isEmpty() && !text.back().isPunct())
        text += u'.';
    return text;
}

} // namespace

std::optional<Answer> recallAnswer(const Conversation& c)
{
    const QString lower = c.lastUser.toLower().replace(u'’', u'\'');
    if (c.earlierUser.isEmpty() || asksName(lower) || !asksAboutEarlierTurn(lower))
        return std::nullopt;
    const QStringList asked = contentWords(c.lastUser);
    QString best;
    int bestShared = 0;
    for (const QString& earlier : c.earlierUser) {
        const int shared = overlap(asked, contentWords(earlier));
        if (shared > bestShared) {
            bestShared = shared;
            best = earlier;
        }
    }
    if (best.isEmpty())
        return std::nullopt;
    Answer out = simpleAnswer(Intent::Recall, QStringLiteral("You said ") + saidBack(best),
        QStringLiteral("Earlier in this conversation the user said: \"") + best
            + QStringLiteral("\" That answers the question, so say it back."),
        QStringLiteral("It's right there from earlier in our chat, so no need to look anything up."));
    return out;
}

Answer toolResultAnswer(const QString& result)
{
    QStringList words = result.simplified().split(u' ', Qt::SkipEmptyParts);
    if (words.isEmpty())
        return simpleAnswer(Intent::ToolResult,
            QStringLiteral("I couldn't find anything about that, I'm afraid."),
            QStringLiteral("The tool answered. Summarise it in one friendly sentence."));
    if (words.size() > 30)
        words = words.mid(0, 30);
    return simpleAnswer(Intent::ToolResult,
        QStringLiteral("Here's what I found: ") + stripEndPunctuation(words.join(u' ')) + u'.',
        QStringLiteral("The tool answered. Summarise it in one friendly sentence."));
}

Answer chatAnswer(const Conversation& c, quint64 variant)
{
    const QString lower = c.lastUser.toLower().replace(u'’', u'\'');
    if (asksName(lower))
        return nameRecallAnswer(c);
    if (hasAny(lower,
            {"remember", "what did i say", "what did i tell", "did i mention", "recall", "what do i like",
                "my hobby", "my hobbies"}))
        return factRecallAnswer(c);
    if (hasAny(lower,
            {"weather", "news", "latest", "search", "look up", "current", "today's", "stock", "price of",
                "score", "forecast", "headline", "rain", "temperature"}))
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
    if (hasAny(lower, {"nervous about", "anxious about", "worried about"}))
        return nervesAnswer();
    if (hasAny(lower,
            {"stressed", "tired", "sad", "anxious", "worried", "nervous", "exhausted", "lonely", "upset",
                "overwhelmed", "rough day", "bad day"}))
        return feelingAnswer(true);
    if (hasAny(lower, {"happy", "excited", "thrilled", "great news", "good news", "great day"}))
        return feelingAnswer(false);
    if (const QStringList likes = likesIn(c.lastUser); !likes.isEmpty())
        return statementAnswer(likes.first());
    if (auto news = newsAnswer(c.lastUser))
        return *news;
    if (startsWithAny(lower, {"do you think", "should i", "would it be", "is it a good idea"}))
        return opinionAnswer(variant);
    return genericAnswer(variant);
}

} // namespace qs::emu::detail
