// SPDX-License-Identifier: MIT
#include "model/gates/CoherenceChecks.h"
#include "model/gates/GateFamilies.h"

#include <QHash>
#include <QSet>
#include <algorithm>

namespace qs::gates {

namespace {

// Iterates a QString by code point: (index, length in UTF-16 units, code point).
template <typename F> void forEachCodePoint(QStringView text, F&& f)
{
    for (qsizetype i = 0; i < text.size();) {
        char32_t c = text[i].unicode();
        qsizetype len = 1;
        if (text[i].isHighSurrogate() && i + 1 < text.size() && text[i + 1].isLowSurrogate()) {
            c = QChar::surrogateToUcs4(text[i], text[i + 1]);
            len = 2;
        }
        f(int(i), int(len), c);
        i += len;
    }
}

// Japanese mixes kanji and kana in one word, so they count as one script; -1 = no script.
int scriptGroup(char32_t c)
{
    const QChar::Script s = QChar::script(c);
    switch (s) {
    case QChar::Script_Common:
    case QChar::Script_Inherited:
    case QChar::Script_Unknown:
        return -1;
    case QChar::Script_Hiragana:
    case QChar::Script_Katakana:
    case QChar::Script_Bopomofo:
        return int(QChar::Script_Han);
    default:
        return int(s);
    }
}

bool isCjkGroup(int g)
{
    return g == int(QChar::Script_Han) || g == int(QChar::Script_Hangul);
}

struct LetterRun {
    int begin = 0;
    int end = 0;
    QSet<int> groups;
    QHash<int, int> lettersPerGroup;
    int primary = -1; ///< the group with most letters
};

struct ScriptStats {
    QHash<int, int> letters; ///< per script group
    int total = 0;
    std::vector<LetterRun> runs;
};

ScriptStats scriptStats(const QString& text)
{
    ScriptStats s;
    LetterRun run;
    bool inRun = false;
    const auto close = [&](int at) {
        if (!inRun)
            return;
        run.end = at;
        int best = 0;
        for (auto it = run.lettersPerGroup.cbegin(); it != run.lettersPerGroup.cend(); ++it)
            if (it.value() > best) {
                best = it.value();
                run.primary = it.key();
            }
        s.runs.push_back(run);
        run = LetterRun();
        inRun = false;
    };
    forEachCodePoint(text, [&](int i, int len, char32_t c) {
        const bool letter = QChar::isLetter(c) || QChar::isMark(c);
        if (!letter) {
            close(i);
            return;
        }
        if (!inRun) {
            inRun = true;
            run.begin = i;
        }
        const int g = scriptGroup(c);
        if (g >= 0) {
            run.groups.insert(g);
            ++run.lettersPerGroup[g];
            ++s.letters[g];
            ++s.total;
        }
        run.end = i + len;
    });
    close(int(text.size()));
    return s;
}

// A letter run that glues scripts together ("M刘邦opIS"). CJK text legitimately glues Latin brand
// names to Han ("用iPhone拍照"), so that pairing only counts when the text is not mainly CJK.
bool isMixedRun(const LetterRun& run, int minLetters, bool mainlyCjk)
{
    int strongGroups = 0;
    for (auto it = run.lettersPerGroup.cbegin(); it != run.lettersPerGroup.cend(); ++it)
        if (it.value() >= minLetters)
            ++strongGroups;
    if (strongGroups < 2)
        return false;
    if (mainlyCjk) {
        const bool onlyCjkAndLatin = std::all_of(run.groups.cbegin(), run.groups.cend(),
            [](int g) { return isCjkGroup(g) || g == int(QChar::Script_Latin); });
        if (onlyCjkAndLatin)
            return false;
    }
    return true;
}

} // namespace

GateResult coherent(const GateContext& c)
{
    const Rules::Coherence& rc = c.rules.coherent;
    const QString& text = c.maskedVisible;
    const int offset = c.visibleStart;
    if (!hasNonSpace(text))
        return result(kCoherent, GateVerdict::NotApplicable, QStringLiteral("no visible text"));

    std::vector<Finding> findings;
    for (const Hit& h : findAll(rc.patterns, text, offset))
        findings.push_back({h,
            h.what + QStringLiteral(" \"") + excerpt(QStringView(c.content).sliced(h.begin, h.end - h.begin))
                + u'"'});

    const int replacements = int(text.count(QChar(0xFFFD)));
    if (replacements >= rc.replacementChars) {
        const int first = int(text.indexOf(QChar(0xFFFD)));
        const int last = int(text.lastIndexOf(QChar(0xFFFD)));
        findings.push_back({{offset + first, offset + last + 1, QStringLiteral("replacement_characters")},
            QStringLiteral("%1 undecodable characters (U+FFFD)").arg(replacements)});
    }

    // Scripts glued together inside words, or flipping from word to word.
    const ScriptStats scripts = scriptStats(text);
    // CJK text counts letters per character: a third of the letters is already a CJK sentence.
    const int cjk
        = scripts.letters.value(int(QChar::Script_Han)) + scripts.letters.value(int(QChar::Script_Hangul));
    const bool mainlyCjk = 3 * cjk >= scripts.total;
    std::vector<Hit> mixed;
    for (const LetterRun& run : scripts.runs)
        if (isMixedRun(run, rc.mixedScriptMinLetters, mainlyCjk))
            mixed.push_back({offset + run.begin, offset + run.end, QStringLiteral("mixed_script")});
    if (int(mixed.size()) >= rc.mixedScriptWords) {
        const Hit& first = mixed.front();
        QString reason
            = QStringLiteral("%1 word%2 mixing scripts, e.g. \"%3\"")
                  .arg(mixed.size())
                  .arg(mixed.size() > 1 ? QStringLiteral("s") : QString())
                  .arg(excerpt(QStringView(c.content).sliced(first.begin, first.end - first.begin)));
        for (std::size_t i = 0; i < mixed.size(); ++i)
            findings.push_back({mixed[i], i == 0 ? reason : QString()});
    }
    const bool longEnough = scripts.total >= rc.minLetters;
    if (longEnough && scripts.runs.size() > 1) {
        int switches = 0, previous = -1, considered = 0;
        for (const LetterRun& run : scripts.runs) {
            if (run.primary < 0)
                continue;
            if (previous >= 0) {
                ++considered;
                if (run.primary != previous)
                    ++switches;
            }
            previous = run.primary;
        }
        if (switches >= rc.minScriptSwitches && considered > 0
            && double(switches) / considered >= rc.scriptSwitchShare)
            findings.push_back({{offset, offset + int(text.size()), QStringLiteral("script_switching")},
                QStringLiteral("the script changes %1 times in %2 words").arg(switches).arg(considered + 1)});
    }

    // Words that are not words, and too few ordinary words.
    if (longEnough) {
        double junk = 0;
        int counted = 0, lowercase = 0, known = 0;
        std::vector<Hit> junkHits, unknownHits;
        for (const Token& t : wordTokens(text)) {
            if (t.text.contains(QStringLiteral("://"))
                || t.text.startsWith(QStringLiteral("www."), Qt::CaseInsensitive) || t.text.contains(u'@'))
                continue; // URLs (masked) and e-mail addresses
            const bool digits
                = std::any_of(t.text.begin(), t.text.end(), [](QChar ch) { return ch.isDigit(); });
            const bool latin = std::any_of(t.text.begin(), t.text.end(), isLatinLetter);
            const bool mixedHere = std::any_of(mixed.begin(), mixed.end(),
                [&](const Hit& h) { return h.begin < offset + t.end && offset + t.begin < h.end; });
            if (digits) {
                // "B12", "4K", "H2O", "x86" are fine; "a3f9k2" is token soup.
                if (letterDigitSwitches(t.text) >= 3) {
                    ++counted;
                    junk += 1;
                    junkHits.push_back({offset + t.begin, offset + t.end, QStringLiteral("non_word")});
                }
                continue;
            }
            if (!latin && !mixedHere)
                continue; // words of other scripts are not judged here
            ++counted;
            const double score = mixedHere ? 1.0 : junkScore(t.text, rc.commonWords, rc.maxConsonantRun);
            junk += score;
            if (score > 0)
                junkHits.push_back({offset + t.begin, offset + t.end, QStringLiteral("non_word")});
            if (!mixedHere && t.text.front().isLower() && t.text.size() >= 2) {
                ++lowercase;
                if (isKnownWord(t.text.toLower(), rc.commonWords))
                    ++known;
                else
                    unknownHits.push_back({offset + t.begin, offset + t.end, QStringLiteral("unknown_word")});
            }
        }
        if (counted >= rc.minWordsForShare && junk / counted >= rc.junkWordShare) {
            const QString reason
                = QStringLiteral("%1 of %2 words are not words").arg(junk, 0, 'g', 3).arg(counted);
            for (std::size_t i = 0; i < junkHits.size(); ++i)
                findings.push_back({junkHits[i], i == 0 ? reason : QString()});
        }
        if (lowercase >= rc.minLowercaseWords && double(known) / lowercase < rc.knownWordShare) {
            const QString reason = QStringLiteral("only %1 of %2 lower-case words are ordinary words")
                                       .arg(known)
                                       .arg(lowercase);
            for (std::size_t i = 0; i < unknownHits.size(); ++i)
                findings.push_back({unknownHits[i], i == 0 ? reason : QString()});
        }
    }

    int nonSpace = 0, weird = 0;
    for (QChar ch : text)
        if (!ch.isSpace()) {
            ++nonSpace;
            if (rc.weirdSymbols.contains(ch))
                ++weird;
        }
    if (nonSpace >= 20 && double(weird) / nonSpace >= rc.weirdSymbolShare)
        findings.push_back({{offset, offset + int(text.size()), QStringLiteral("symbols")},
            QStringLiteral("%1 of %2 characters are stray symbols").arg(weird).arg(nonSpace)});

    checkRepetition(text, offset, rc.repeat, findings);

    if (findings.empty())
        return result(kCoherent, GateVerdict::Pass, QStringLiteral("reads as language"));
    std::stable_sort(findings.begin(), findings.end(),
        [](const Finding& a, const Finding& b) { return a.hit.begin < b.hit.begin; });
    GateResult out = result(kCoherent, GateVerdict::Fail, QString());
    QStringList reasons;
    for (const Finding& f : findings) {
        if (!f.reason.isEmpty() && !reasons.contains(f.reason))
            reasons << f.reason;
        out.ranges.push_back({f.hit.begin, f.hit.end, kContent, f.hit.what});
    }
    out.reason = QStringList(reasons.mid(0, reasonExamples)).join(QStringLiteral("; "));
    if (reasons.size() > reasonExamples)
        out.reason += QStringLiteral(" (+%1 more)").arg(reasons.size() - reasonExamples);
    return out;
}

} // namespace qs::gates
