// SPDX-License-Identifier: MIT
#include "model/gates/GateFamilies.h"
#include "model/gates/GateText.h"

#include <QRegularExpression>
#include <QSet>
#include <utility>
#include <vector>

namespace qs::gates {

namespace {

// Sentence ends: . ! ? … (then closing quotes/brackets) before whitespace or the end, and CJK
// 。！？. A '.' after an abbreviation ("Dr.", "e.g.", "U.S.") or an initial ends a sentence only
// at the very end of the text.
std::vector<int> sentenceEnds(const QString& text, const QSet<QString>& abbreviations)
{
    std::vector<int> ends;
    bool inSentence = false;
    const qsizetype n = text.size();
    const auto isCloser = [](QChar ch) {
        return ch == u'"' || ch == u'\'' || ch == u')' || ch == u']' || ch == u'\u201D' || ch == u'\u2019';
    };
    for (qsizetype i = 0; i < n; ++i) {
        const QChar ch = text[i];
        if (ch.isLetterOrNumber())
            inSentence = true;
        if (ch == u'\u3002' || ch == u'\uFF01' || ch == u'\uFF1F') {
            if (inSentence)
                ends.push_back(int(i + 1));
            inSentence = false;
            continue;
        }
        if (!inSentence || (ch != u'.' && ch != u'!' && ch != u'?' && ch != u'\u2026'))
            continue;
        qsizetype j = i + 1;
        while (j < n && (text[j] == u'.' || text[j] == u'!' || text[j] == u'?' || text[j] == u'\u2026'))
            ++j;
        while (j < n && isCloser(text[j]))
            ++j;
        const bool atEnd = j >= n;
        if (!atEnd && !text[j].isSpace())
            continue; // 3.5, U.S.A, example.com
        if (ch == u'.' && j == i + 1 && !atEnd) {
            qsizetype w = i;
            while (w > 0 && !text[w - 1].isSpace())
                --w;
            QString word = text.mid(w, i - w).toLower();
            while (!word.isEmpty() && !word.front().isLetterOrNumber())
                word.remove(0, 1);
            static const QRegularExpression initial(QStringLiteral("^(?:\\p{L}\\.)*\\p{L}$"));
            if (abbreviations.contains(word) || initial.match(word).hasMatch())
                continue;
        }
        ends.push_back(int(j));
        inSentence = false;
        i = j - 1;
    }
    if (inSentence)
        ends.push_back(int(n));
    return ends;
}

} // namespace

GateResult withinLength(const GateContext& c)
{
    if (c.test.ignoreEos)
        return result(
            kWithinLength, GateVerdict::NotApplicable, QStringLiteral("fixed-length test (ignore_eos)"));
    const bool truncated = c.record.response.finishReason == u"length";
    // -1: no target (plain ints: GCC 12 misreads optionals through a ternary as uninitialised)
    const int maxWords = c.expectationsApply() ? c.test.expect.maxWords.value_or(-1) : -1;
    const int maxSentences = c.expectationsApply() ? c.test.expect.maxSentences.value_or(-1) : -1;
    if (maxWords < 0 && maxSentences < 0 && !truncated)
        return result(kWithinLength, GateVerdict::NotApplicable, QStringLiteral("no length target"));

    static const QRegularExpression wordRe(
        QStringLiteral("\\S*[\\p{L}\\p{N}]\\S*"), QRegularExpression::UseUnicodePropertiesOption);
    std::vector<std::pair<int, int>> words;
    auto it = wordRe.globalMatch(c.visible);
    while (it.hasNext()) {
        const auto m = it.next();
        words.push_back({int(m.capturedStart()), int(m.capturedEnd())});
    }
    const std::vector<int> ends = sentenceEnds(c.visible, c.rules.abbreviations);
    const int wordCount = int(words.size());
    const int sentenceCount = int(ends.size());
    const int end = c.visibleStart + int(c.visible.size());

    GateResult out = result(kWithinLength, GateVerdict::Pass, QString());
    QStringList problems;
    if (truncated) {
        problems << QStringLiteral("hit max_tokens (finish_reason \"length\"): the answer was cut off");
        const int from = words.empty() ? end : c.visibleStart + words.back().first;
        out.ranges.push_back({from, end, kContent, QStringLiteral("truncated")});
    }
    if (maxWords >= 0 && wordCount > maxWords) {
        problems << QStringLiteral("%1 words, target ≤ %2").arg(wordCount).arg(maxWords);
        out.ranges.push_back({c.visibleStart + words[std::size_t(maxWords)].first, end, kContent,
            QStringLiteral("over_words")});
    }
    if (maxSentences >= 1 && sentenceCount > maxSentences) {
        problems << QStringLiteral("%1 sentences, target ≤ %2").arg(sentenceCount).arg(maxSentences);
        int from = ends[std::size_t(maxSentences - 1)];
        while (from < c.visible.size() && c.visible.at(from).isSpace())
            ++from;
        out.ranges.push_back({c.visibleStart + from, end, kContent, QStringLiteral("over_sentences")});
    }
    if (!problems.isEmpty()) {
        out.verdict = GateVerdict::Fail;
        out.reason = problems.join(QStringLiteral("; "));
        return out;
    }
    QStringList targets;
    if (maxWords >= 0)
        targets << QStringLiteral("≤ %1 words").arg(maxWords);
    if (maxSentences >= 0)
        targets << QStringLiteral("≤ %1 sentences").arg(maxSentences);
    out.reason = QStringLiteral("%1 words, %2 sentence%3 (%4)")
                     .arg(wordCount)
                     .arg(sentenceCount)
                     .arg(sentenceCount == 1 ? QString() : QStringLiteral("s"))
                     .arg(targets.join(QStringLiteral(", ")));
    return out;
}

} // namespace qs::gates
