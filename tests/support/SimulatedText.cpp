// SPDX-License-Identifier: MIT
#include "tests/support/SimulatedText.h"

#include <QHash>
#include <QJsonArray>
#include <QJsonObject>
#include <QJsonValue>
#include <QRegularExpression>
#include <QSet>

namespace qs::emu::detail {

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

QString contentText(const QJsonValue& content)
{
    if (content.isString())
        return content.toString();
    QStringList parts;
    for (const QJsonValue part : content.toArray())
        parts << part.toObject().value(QLatin1String("text")).toString();
    return parts.join(u' ');
}

namespace {

// Words that say nothing about the topic of a question: what a search engine would drop, plus
// the small words of requests ("tell", "remind", "again") and of time questions ("time").
const QSet<QString>& glueWords()
{
    static const QSet<QString> words = [] {
        QSet<QString> out;
        for (const char* w : {"the", "and", "but", "for", "from", "with", "about", "into", "onto", "over",
                 "than", "then", "that", "this", "these", "those", "there", "here", "what", "whats", "when",
                 "where", "who", "whom", "whose", "which", "why", "how", "are", "was", "were", "been",
                 "being", "have", "has", "had", "having", "does", "did", "doing", "done", "will", "would",
                 "can", "could", "should", "shall", "may", "might", "must", "you", "your", "yours", "our",
                 "ours", "his", "her", "hers", "its", "their", "theirs", "them", "they", "she", "him", "mine",
                 "myself", "not", "any", "anything", "some", "something", "again", "remind", "tell", "told",
                 "say", "said", "know", "please", "just", "really", "very", "time", "get", "got", "gets",
                 "going", "sorry", "think", "like", "too", "also", "all", "out", "now", "much", "many", "let",
                 "lets", "okay", "yes", "annie", "did", "don't", "isn't", "i'm", "i've", "i'd", "i'll",
                 "it's", "what's", "who's", "where's", "when's", "that's", "there's", "we're", "you're",
                 "one", "bit", "quick", "quickly", "name", "called", "call", "mean", "want", "wants", "need",
                 "needs", "make", "give", "thing", "things"})
            out.insert(QString::fromLatin1(w));
        return out;
    }();
    return words;
}

} // namespace

QStringList contentWords(const QString& text)
{
    static const QRegularExpression wordRe(QStringLiteral("[\\p{L}\\p{N}]+(?:[-'’][\\p{L}\\p{N}]+)*['’]?"),
        QRegularExpression::UseUnicodePropertiesOption);
    QStringList out;
    for (auto it = wordRe.globalMatch(text.toLower()); it.hasNext();) {
        QString word = it.next().captured();
        word.replace(u'’', u'\'');
        if (word.endsWith(QLatin1String("'s")))
            word.chop(2);
        if (word.endsWith(u'\''))
            word.chop(1); // "parents'" → "parents"
        if (word.size() < 3 || glueWords().contains(word) || out.contains(word))
            continue;
        out << word;
    }
    return out;
}

bool sameWord(const QString& a, const QString& b)
{
    if (a == b)
        return true;
    const QString& shorter = a.size() < b.size() ? a : b;
    const QString& longer = a.size() < b.size() ? b : a;
    return shorter.size() >= 4 && longer.startsWith(shorter);
}

int overlap(const QStringList& words, const QStringList& in)
{
    int n = 0;
    for (const QString& w : words) {
        for (const QString& other : in) {
            if (sameWord(w, other)) {
                ++n;
                break;
            }
        }
    }
    return n;
}

QString secondPerson(const QString& text)
{
    static const QHash<QString, QString> swap = {{QStringLiteral("i"), QStringLiteral("you")},
        {QStringLiteral("i'm"), QStringLiteral("you're")}, {QStringLiteral("i've"), QStringLiteral("you've")},
        {QStringLiteral("i'll"), QStringLiteral("you'll")}, {QStringLiteral("i'd"), QStringLiteral("you'd")},
        {QStringLiteral("me"), QStringLiteral("you")}, {QStringLiteral("my"), QStringLiteral("your")},
        {QStringLiteral("mine"), QStringLiteral("yours")},
        {QStringLiteral("myself"), QStringLiteral("yourself")}, {QStringLiteral("we"), QStringLiteral("you")},
        {QStringLiteral("we're"), QStringLiteral("you're")},
        {QStringLiteral("we've"), QStringLiteral("you've")},
        {QStringLiteral("we'll"), QStringLiteral("you'll")},
        {QStringLiteral("we'd"), QStringLiteral("you'd")}, {QStringLiteral("us"), QStringLiteral("you")},
        {QStringLiteral("our"), QStringLiteral("your")}, {QStringLiteral("ours"), QStringLiteral("yours")}};
    static const QRegularExpression wordRe(QStringLiteral("[A-Za-z]+(?:['’][A-Za-z]+)?"));
    QString out;
    qsizetype from = 0;
    QString previous; // the last word as swapped, lower case: "I was" → "you were"
    for (auto it = wordRe.globalMatch(text); it.hasNext();) {
        const auto m = it.next();
        out += text.mid(from, m.capturedStart() - from);
        from = m.capturedEnd();
        const QString word = m.captured();
        QString lower = word.toLower();
        lower.replace(u'’', u'\'');
        QString said = swap.value(lower, word);
        if (previous == QLatin1String("you")
            && (lower == QLatin1String("am") || lower == QLatin1String("was")))
            said = lower == QLatin1String("am") ? QStringLiteral("are") : QStringLiteral("were");
        if (said != word && word.at(0).isUpper() && lower != QLatin1String("i"))
            said = capitalized(said);
        previous = said.toLower();
        out += said;
    }
    return out + text.mid(from);
}

bool isQuestion(const QString& text)
{
    const QString trimmed = text.trimmed();
    if (trimmed.endsWith(u'?'))
        return true;
    return startsWithAny(trimmed.toLower(),
        {"what ", "what's", "when ", "where ", "who ", "who's", "which ", "how ", "is ", "are ", "do ",
            "does ", "did ", "can ", "could ", "will "});
}

} // namespace qs::emu::detail
