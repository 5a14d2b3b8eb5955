// SPDX-License-Identifier: MIT
#include "model/gates/CoherenceChecks.h"

#include <QRegularExpression>
#include <QStringList>
#include <algorithm>

namespace qs::gates {

namespace {

// The letter under its accents: "ủ" → "u", "ộ" → "o" (Vietnamese stacks two).
QChar baseLetter(QChar ch)
{
    for (QString d = ch.decomposition(); !d.isEmpty(); d = ch.decomposition())
        ch = d.at(0);
    return ch;
}

bool isVowel(QChar ch)
{
    static const QString vowels = QStringLiteral("aeiouyæøœəı");
    return vowels.contains(baseLetter(ch).toLower());
}
} // namespace

std::vector<Token> wordTokens(const QString& text)
{
    std::vector<Token> out;
    qsizetype i = 0;
    const qsizetype n = text.size();
    while (i < n) {
        while (i < n && text[i].isSpace())
            ++i;
        qsizetype j = i;
        while (j < n && !text[j].isSpace())
            ++j;
        qsizetype b = i, e = j;
        while (b < e && !text[b].isLetterOrNumber())
            ++b;
        while (e > b && !text[e - 1].isLetterOrNumber() && !text[e - 1].isMark())
            --e;
        if (e > b)
            out.push_back({int(b), int(e), text.mid(b, e - b)});
        i = j;
    }
    return out;
}

bool isLatinLetter(QChar ch)
{
    return ch.isLetter() && ch.script() == QChar::Script_Latin;
}

// Suffix stripping, enough to find "helps", "making", "stopped", "cities" in a base-form list.
bool isKnownWord(const QString& lower, const QSet<QString>& words)
{
    if (words.contains(lower))
        return true;
    QString w = lower;
    for (const QString& poss : {QStringLiteral("'s"), QStringLiteral("’s"), QStringLiteral("s'")})
        if (w.endsWith(poss)) {
            w.chop(2);
            if (words.contains(w))
                return true;
        }
    struct Suffix {
        const char16_t* text;
        const char16_t* replacement;
    };
    static const Suffix suffixes[] = {{u"ies", u"y"}, {u"ied", u"y"}, {u"ier", u"y"}, {u"iest", u"y"},
        {u"ily", u"y"}, {u"es", u""}, {u"s", u""}, {u"ed", u""}, {u"ed", u"e"}, {u"d", u""}, {u"ing", u""},
        {u"ing", u"e"}, {u"ly", u""}, {u"er", u""}, {u"er", u"e"}, {u"est", u""}, {u"est", u"e"},
        {u"ness", u""}, {u"ful", u""}, {u"less", u""}, {u"ment", u""}};
    for (const Suffix& s : suffixes) {
        const QString suffix = QString::fromUtf16(s.text);
        if (w.size() <= suffix.size() + 1 || !w.endsWith(suffix))
            continue;
        const QString base = w.chopped(suffix.size());
        if (words.contains(base + QString::fromUtf16(s.replacement)))
            return true;
        // stopped → stop, running → run
        if (base.size() >= 3 && base.back() == base.at(base.size() - 2) && words.contains(base.chopped(1)))
            return true;
    }
    return false;
}

// How much a Latin word looks like a non-word: 0 (fine), 0.5 (a stray single letter), 1 (junk).
double junkScore(const QString& token, const QSet<QString>& words, int maxConsonantRun)
{
    static const QRegularExpression initialism(QStringLiteral("^(?:\\p{L}\\.)+\\p{L}?\\.?$"));
    if (initialism.match(token).hasMatch())
        return 0; // U.S., e.g., a.m.
    static const QRegularExpression separators(QStringLiteral("[-'’._/&+]"));
    const QStringList parts = token.split(separators, Qt::SkipEmptyParts);
    if (parts.isEmpty())
        return 0;
    if (parts.size() == 1 && parts.front().size() == 1) {
        // Before the word list, which holds one-letter words of other languages ("w", "z").
        const QChar ch = parts.front().front().toLower();
        return ch == u'a' || ch == u'i' || ch == u'o' ? 0 : 0.5;
    }
    if (isKnownWord(token.toLower(), words))
        return 0;
    const bool identifier = token.contains(u'_');
    for (const QString& part : parts) {
        if (part.size() == 1) {
            if (identifier)
                return 1; // E_OVER
            continue; // X-ray, T-shirt
        }
        if (isKnownWord(part.toLower(), words))
            continue;
        bool vowel = false;
        bool allUpper = true;
        int consonants = 0, worstRun = 0, lowerToUpper = 0, upperRun = 0, lowerAfterUpperRun = 0;
        bool upperRunThenLower = false;
        for (qsizetype i = 0; i < part.size(); ++i) {
            const QChar ch = part[i];
            if (isVowel(ch)) {
                vowel = true;
                consonants = 0;
            } else {
                worstRun = std::max(worstRun, ++consonants);
            }
            if (ch.isLower()) {
                allUpper = false;
                if (upperRun >= 2 && ++lowerAfterUpperRun >= 3)
                    upperRunThenLower = true;
                if (i + 1 < part.size() && part[i + 1].isUpper())
                    ++lowerToUpper;
            } else if (ch.isUpper()) {
                upperRun = (i > 0 && part[i - 1].isUpper()) || i == 0 ? upperRun + 1 : 1;
                lowerAfterUpperRun = 0;
            }
        }
        if (!vowel && !allUpper)
            return 1; // "xkcd"-like consonant strings (acronyms are upper case)
        if (worstRun > maxConsonantRun)
            return 1;
        if (lowerToUpper >= 2 || upperRunThenLower)
            return 1; // "aBcD", "CSiscoslmogn" (while "iPhone", "YouTube", "PDFs" pass)
    }
    return 0;
}

int letterDigitSwitches(const QString& token)
{
    int switches = 0;
    int previous = 0; // 1 letter, 2 digit
    for (QChar ch : token) {
        const int kind = ch.isLetter() ? 1 : ch.isDigit() ? 2 : 0;
        if (kind == 0)
            continue;
        if (previous != 0 && kind != previous)
            ++switches;
        previous = kind;
    }
    return switches;
}

} // namespace qs::gates
