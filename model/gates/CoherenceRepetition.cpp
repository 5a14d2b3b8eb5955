// SPDX-License-Identifier: MIT
#include "model/gates/CoherenceChecks.h"

#include <QHash>
#include <QRegularExpression>
#include <QStringList>
#include <utility>

namespace qs::gates {

void checkRepetition(const QString& text, int offset, const Rules::Repeat& rep, std::vector<Finding>& out)
{
    // One character over and over ("!!!!!!!!…", "aaaaaaaa…").
    for (qsizetype i = 0; i < text.size();) {
        qsizetype j = i + 1;
        while (j < text.size() && text[j] == text[i])
            ++j;
        if (!text[i].isSpace() && text[i] != QChar(maskChar) && j - i >= rep.charRun) {
            out.push_back({{offset + int(i), offset + int(j), QStringLiteral("repeated_character")},
                QStringLiteral("\"%1\" repeated %2 times").arg(text[i]).arg(j - i)});
            break;
        }
        i = j;
    }

    // The same n-gram back to back ("the the the …", "I'm here. I'm here. I'm here.").
    static const QRegularExpression wordRe(QStringLiteral("[\\p{L}\\p{M}\\p{N}]+(?:['’][\\p{L}]+)?"),
        QRegularExpression::UseUnicodePropertiesOption);
    std::vector<Token> words;
    auto it = wordRe.globalMatch(text);
    while (it.hasNext()) {
        const auto m = it.next();
        words.push_back({int(m.capturedStart()), int(m.capturedEnd()), m.captured().toLower()});
    }
    const int n = int(words.size());
    for (int p = 1; p <= rep.maxPeriod && p < n; ++p) {
        const int needed = p == 1 ? rep.unigram : p <= 3 ? rep.shortNgram : rep.longNgram;
        int runStart = 0, run = 0;
        for (int j = 0; j + p < n; ++j) {
            if (words[std::size_t(j)].text == words[std::size_t(j + p)].text) {
                if (run++ == 0)
                    runStart = j;
                if (run / p + 1 >= needed
                    && (j + p + 1 >= n
                        || words[std::size_t(j + 1)].text != words[std::size_t(j + p + 1)].text)) {
                    const Token& a = words[std::size_t(runStart)];
                    const Token& b = words[std::size_t(j + p)];
                    out.push_back({{offset + a.begin, offset + b.end, QStringLiteral("repetition")},
                        QStringLiteral("%1-word phrase repeated %2 times").arg(p).arg(run / p + 1)});
                    return;
                }
            } else {
                run = 0;
            }
        }
    }

    // The same sentence again and again, not necessarily back to back (a loop).
    static const QRegularExpression sentenceEnd(QStringLiteral("[.!?…。！？]+[\"'”’)\\]]*(?:\\s+|$)"));
    QHash<QString, std::vector<std::pair<int, int>>> seen;
    qsizetype start = 0;
    auto sit = sentenceEnd.globalMatch(text);
    const auto addSentence = [&](qsizetype b, qsizetype e) {
        QStringList key;
        auto wit = wordRe.globalMatch(text.mid(b, e - b));
        while (wit.hasNext())
            key << wit.next().captured().toLower();
        if (key.size() >= rep.sentenceMinWords)
            seen[key.join(u' ')].push_back({int(b), int(e)});
    };
    while (sit.hasNext()) {
        const auto m = sit.next();
        addSentence(start, m.capturedEnd());
        start = m.capturedEnd();
    }
    if (start < text.size())
        addSentence(start, text.size());
    for (auto s = seen.cbegin(); s != seen.cend(); ++s)
        if (int(s.value().size()) >= rep.sentence) {
            out.push_back({{offset + s.value().front().first, offset + s.value().back().second,
                               QStringLiteral("repeated_sentence")},
                QStringLiteral("the same sentence %1 times").arg(s.value().size())});
            return;
        }
}

} // namespace qs::gates
