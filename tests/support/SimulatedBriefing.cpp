// SPDX-License-Identifier: MIT
#include "tests/support/SimulatedBriefing.h"

#include "tests/support/SimulatedText.h"

#include <QRegularExpression>
#include <QStringList>

namespace qs::emu::detail {

namespace {

// Longer lines are the persona's paragraphs of instructions, not facts to read out.
constexpr int kMaxLineWords = 40;
constexpr int kMinLineWords = 3;
// One shared word is chance ("Saturday"); two make the line about the question.
constexpr int kMinSharedWords = 2;

// The user's name said as "you": "Nadia's mum" → "your mum", "for Nadia and Tom" → "for you and
// Tom", "Nadia collects" → "you collect".
QString addressed(QString line, const QString& user)
{
    if (user.isEmpty())
        return line;
    const QString name = QRegularExpression::escape(user);
    line.replace(QRegularExpression(QStringLiteral("\\b%1['’]s\\b").arg(name)), QStringLiteral("your"));
    line.replace(QRegularExpression(QStringLiteral("\\b%1 is\\b").arg(name)), QStringLiteral("you are"));
    line.replace(QRegularExpression(QStringLiteral("\\b%1 has\\b").arg(name)), QStringLiteral("you have"));
    line.replace(
        QRegularExpression(QStringLiteral("\\b%1 ([a-z]+)s\\b").arg(name)), QStringLiteral("you \\1"));
    line.replace(QRegularExpression(QStringLiteral("\\b%1\\b").arg(name)), QStringLiteral("you"));
    return line;
}

// "Thursday 19 March, 3:00 pm: dentist check-up …" → "You have it in your calendar for Thursday
// 19 March at 3:00 pm: dentist check-up …".
QString spoken(const QString& line)
{
    static const QRegularExpression calendar(
        QStringLiteral("^((?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day \\d{1,2} \\w+), "
                       "(\\d{1,2}:\\d{2}(?:\\s*[ap]m)?|[^:]+?): (.+)$"));
    const auto m = calendar.match(line);
    if (!m.hasMatch())
        return capitalized(line);
    const QString when = m.captured(2);
    return QStringLiteral("You have it in your calendar for ") + m.captured(1)
        + (when.at(0).isDigit() ? QStringLiteral(" at ") : QStringLiteral(", ")) + when + QStringLiteral(": ")
        + m.captured(3);
}

} // namespace

QString assistantName(const QString& system)
{
    static const QRegularExpression re(QStringLiteral("\\b[Yy]ou are ([A-Z][a-z]+)\\b"));
    return re.match(system).captured(1);
}

QString userName(const QString& system)
{
    static const QRegularExpression re(
        QStringLiteral("\\b([A-Z][a-z]+)['’]s (?:own )?(?:personal )?(?:voice )?(?:companion|assistant)\\b"));
    return re.match(system).captured(1);
}

std::optional<Answer> briefingAnswer(const Conversation& c)
{
    if (c.system.isEmpty() || !isQuestion(c.lastUser))
        return std::nullopt;
    const QStringList asked = contentWords(c.lastUser);
    QString best;
    int bestShared = kMinSharedWords - 1;
    for (const QString& raw : c.system.split(u'\n')) {
        const QString line = raw.trimmed();
        const qsizetype words = line.split(u' ', Qt::SkipEmptyParts).size();
        if (words < kMinLineWords || words > kMaxLineWords)
            continue;
        const int shared = overlap(asked, contentWords(line));
        if (shared > bestShared) {
            bestShared = shared;
            best = line;
        }
    }
    if (best.isEmpty())
        return std::nullopt;
    static const QRegularExpression timeRe(QStringLiteral("\\b\\d{1,2}:\\d{2}(?:\\s*[ap]m)?"));
    Answer out;
    out.intent = Intent::Briefing;
    out.text = spoken(addressed(best, userName(c.system)));
    out.keyPhrase = timeRe.match(out.text).captured();
    out.thought = QStringLiteral("The briefing has a line on this: \"") + best
        + QStringLiteral("\" Say it back in plain words, briefly.");
    out.elaboration = QStringLiteral("Let me know if you'd like a reminder nearer the time.");
    return out;
}

} // namespace qs::emu::detail
