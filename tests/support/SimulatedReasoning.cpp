// SPDX-License-Identifier: MIT
#include "tests/support/SimulatedReasoning.h"

#include "tests/support/SimulatedText.h"

#include <QRegularExpression>
#include <QStringList>
#include <cmath>
#include <vector>

namespace qs::emu::detail {

namespace {

// ---- numbers -------------------------------------------------------------------------------

const char* const kSmallNumbers[] = {"zero", "one", "two", "three", "four", "five", "six", "seven", "eight",
    "nine", "ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen",
    "nineteen", "twenty"};

std::optional<long long> numberValue(const QString& word)
{
    bool ok = false;
    const long long digits = word.toLongLong(&ok);
    if (ok)
        return digits;
    for (int i = 0; i <= 20; ++i) {
        if (word == QLatin1String(kSmallNumbers[i]))
            return i;
    }
    if (word == QLatin1String("dozen"))
        return 12;
    return std::nullopt;
}

Answer reasoned(
    const QString& text, const QString& key, const QString& thought, Intent intent = Intent::Reasoning)
{
    Answer out;
    out.intent = intent;
    out.text = text;
    out.keyPhrase = key;
    out.thought = thought;
    return out;
}

// ---- arithmetic ------------------------------------------------------------------------------

struct Quantity {
    long long value = 0;
    QString unit; ///< the word after the number ("boxes"), may be empty
};

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
    auto finish = [](long long result, const QString& text, const QString& why) {
        return reasoned(text, QString::number(result), why, Intent::Arithmetic);
    };
    // "I had twelve apples and gave away five": two quantities, something taken away.
    static const QRegularExpression takenAway(
        QStringLiteral("\\b(?:gave|give|gives) away\\b|\\b(?:lost|ate|eat|used|sold|spent)\\b"));
    if (q.size() == 2 && lower.contains(takenAway)) {
        const QString unit = q[0].unit.isEmpty() ? QString() : QString(u' ' + q[0].unit);
        return finish(a - b,
            QStringLiteral("You have ") + QString::number(a - b) + unit + QStringLiteral(" left, since ") + sa
                + QStringLiteral(" minus ") + sb + QStringLiteral(" is ") + QString::number(a - b) + u'.',
            sa + QStringLiteral(" - ") + sb + QStringLiteral(" = ") + QString::number(a - b) + u'.');
    }
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
    const QString why = sa + QStringLiteral(" times ") + sb + QStringLiteral(" is ") + QString::number(total)
        + QStringLiteral(". State the total and the reason in one sentence.");
    Answer out = q[0].unit.isEmpty() || q[1].unit.isEmpty()
        ? finish(total,
            sa + QStringLiteral(" times ") + sb + QStringLiteral(" is ") + QString::number(total) + u'.', why)
        : finish(total,
            QStringLiteral("There are ") + QString::number(total) + units + QStringLiteral(" in total: ") + sa
                + u' ' + q[0].unit + QStringLiteral(" with ") + sb + units + QStringLiteral(" each is ") + sa
                + QStringLiteral(" times ") + sb + QStringLiteral(", which makes ") + QString::number(total)
                + u'.',
            why);
    out.elaboration = QStringLiteral("Multiplication is just repeated addition, so adding up ") + sa
        + QStringLiteral(" groups of ") + sb + QStringLiteral(" gives the same ") + QString::number(total)
        + u'.';
    return out;
}

// ---- clock times -----------------------------------------------------------------------------

struct ClockTime {
    int minutes = 0; ///< since midnight
    bool meridiem = false; ///< written with am/pm
};

std::vector<ClockTime> clockTimesIn(const QString& lower)
{
    static const QRegularExpression re(
        QStringLiteral("\\b(\\d{1,2})[:.](\\d{2})\\s*(am|pm|a\\.m\\.|p\\.m\\.)?"));
    std::vector<ClockTime> out;
    for (auto it = re.globalMatch(lower); it.hasNext();) {
        const auto m = it.next();
        int hours = m.captured(1).toInt();
        const QString half = m.captured(3);
        if (half.startsWith(u'p') && hours < 12)
            hours += 12;
        if (half.startsWith(u'a') && hours == 12)
            hours = 0;
        out.push_back({hours * 60 + m.captured(2).toInt(), !half.isEmpty()});
    }
    return out;
}

// "1 hour and 35 minutes", "50 minutes", "two hours": in minutes, or nullopt.
std::optional<int> durationIn(const QString& lower)
{
    static const QRegularExpression hoursRe(QStringLiteral("\\b(\\w+) hours?\\b"));
    static const QRegularExpression minutesRe(QStringLiteral("\\b(\\w+) minutes?\\b"));
    const auto h = hoursRe.match(lower);
    const auto m = minutesRe.match(lower);
    const auto hours = h.hasMatch() ? numberValue(h.captured(1)) : std::nullopt;
    const auto minutes = m.hasMatch() ? numberValue(m.captured(1)) : std::nullopt;
    if (!hours && !minutes)
        return std::nullopt;
    return int(hours.value_or(0) * 60 + minutes.value_or(0));
}

QString clockText(int minutes, bool meridiem)
{
    minutes = ((minutes % 1440) + 1440) % 1440;
    const int hours = minutes / 60;
    const QString mm = QStringLiteral("%1").arg(minutes % 60, 2, 10, QLatin1Char('0'));
    if (!meridiem)
        return QStringLiteral("%1:%2").arg(hours).arg(mm);
    const int twelve = hours % 12 == 0 ? 12 : hours % 12;
    return QStringLiteral("%1:%2 %3")
        .arg(twelve)
        .arg(mm, hours < 12 ? QStringLiteral("am") : QStringLiteral("pm"));
}

QString durationText(int minutes)
{
    const int h = minutes / 60;
    const int m = minutes % 60;
    const QString hours = h == 1 ? QStringLiteral("1 hour") : QStringLiteral("%1 hours").arg(h);
    const QString mins = m == 1 ? QStringLiteral("1 minute") : QStringLiteral("%1 minutes").arg(m);
    if (h == 0)
        return mins;
    return m == 0 ? hours : hours + QStringLiteral(" and ") + mins;
}

std::optional<Answer> clockAnswer(const QString& lower)
{
    const std::vector<ClockTime> times = clockTimesIn(lower);
    if (times.size() == 2 && hasAny(lower, {"how long", "journey", "take"})) {
        const int length = ((times[1].minutes - times[0].minutes) % 1440 + 1440) % 1440;
        const QString from = clockText(times[0].minutes, times[0].meridiem);
        const QString to = clockText(times[1].minutes, times[1].meridiem);
        return reasoned(QStringLiteral("The journey takes ") + durationText(length)
                + QStringLiteral(", from ") + from + QStringLiteral(" to ") + to + u'.',
            durationText(length),
            QStringLiteral("From ") + from + QStringLiteral(" to ") + to
                + QStringLiteral(": whole hours first, ") + durationText(length / 60 * 60)
                + QStringLiteral(" gets to ")
                + clockText(times[0].minutes + length / 60 * 60, times[0].meridiem)
                + QStringLiteral(", then ") + QString::number(length % 60)
                + QStringLiteral(" more minutes. Total ") + durationText(length) + u'.');
    }
    const auto duration = durationIn(lower);
    if (times.size() == 1 && duration
        && hasAny(lower, {"arrive", "get there", "get in", "what time", "finish", "end"})) {
        const ClockTime start = times[0];
        const QString from = clockText(start.minutes, start.meridiem);
        const QString at = clockText(start.minutes + *duration, start.meridiem);
        const QString who = hasAny(lower, {"do i arrive", "will i arrive", "i get there", "do i get"})
            ? QStringLiteral("You arrive at ")
            : QStringLiteral("It arrives at ");
        return reasoned(who + at + QStringLiteral(", ") + durationText(*duration) + QStringLiteral(" after ")
                + from + u'.',
            at,
            QStringLiteral("Start at ") + from + QStringLiteral(" and add ") + durationText(*duration)
                + QStringLiteral(": hours first, then minutes, carrying past the hour. That gives ") + at
                + u'.');
    }
    return std::nullopt;
}

// ---- weekdays --------------------------------------------------------------------------------

std::optional<Answer> weekdayAnswer(const QString& lower)
{
    static const QStringList days = {QStringLiteral("monday"), QStringLiteral("tuesday"),
        QStringLiteral("wednesday"), QStringLiteral("thursday"), QStringLiteral("friday"),
        QStringLiteral("saturday"), QStringLiteral("sunday")};
    static const QRegularExpression todayRe(QStringLiteral("\\btoday is (\\w+)"));
    static const QRegularExpression inRe(QStringLiteral("\\bin (\\w+) days?\\b"));
    const auto today = todayRe.match(lower);
    const auto in = inRe.match(lower);
    if (!today.hasMatch() || !in.hasMatch() || !days.contains(today.captured(1)))
        return std::nullopt;
    const auto n = numberValue(in.captured(1));
    if (!n)
        return std::nullopt;
    const qsizetype from = days.indexOf(today.captured(1));
    const QString day = capitalized(days.at((from + *n) % 7));
    const QString start = capitalized(today.captured(1));
    const long long weeks = *n / 7;
    const long long rest = *n % 7;
    const QString why = weeks == 0
        ? QString(QString::number(*n) + QStringLiteral(" days after ") + start + QStringLiteral(" is ") + day
            + u'.')
        : QString::number(*n) + QStringLiteral(" days is ") + QString::number(weeks)
            + (weeks == 1 ? QStringLiteral(" week and ") : QStringLiteral(" weeks and "))
            + QString::number(rest) + QStringLiteral(" days, and ") + QString::number(rest)
            + QStringLiteral(" days after ") + start + QStringLiteral(" is ") + day + u'.';
    return reasoned(QStringLiteral("It will be ") + day + QStringLiteral(". ") + why, day,
        QStringLiteral("Count on from ") + start + QStringLiteral(": whole weeks change nothing. ") + why);
}

// ---- orderings -------------------------------------------------------------------------------

// "Anna is older than Ben, and Ben is older than Chloe. Who is the youngest?"
std::optional<Answer> orderingAnswer(const QString& message)
{
    static const QRegularExpression pairRe(QStringLiteral("\\b([A-Z][a-z]+) is (\\w+er) than ([A-Z][a-z]+)"));
    static const QRegularExpression askRe(
        QStringLiteral("\\bwho is the (\\w+est)\\b"), QRegularExpression::CaseInsensitiveOption);
    const auto ask = askRe.match(message);
    if (!ask.hasMatch())
        return std::nullopt;
    QStringList bigger;
    QStringList smaller;
    QString comparative;
    for (auto it = pairRe.globalMatch(message); it.hasNext();) {
        const auto m = it.next();
        bigger << m.captured(1);
        comparative = m.captured(2).toLower();
        smaller << m.captured(3);
    }
    if (bigger.size() < 2)
        return std::nullopt;
    QString top;
    QString bottom;
    for (const QString& name : bigger)
        top = smaller.contains(name) ? top : name;
    for (const QString& name : smaller)
        bottom = bigger.contains(name) ? bottom : name;
    if (top.isEmpty() || bottom.isEmpty())
        return std::nullopt;
    // "oldest" goes with "older" (the same stem), "youngest" with its opposite.
    const QString superlative = ask.captured(1).toLower();
    const bool sameWay = superlative.chopped(3) == comparative.chopped(2);
    const QString who = sameWay ? top : bottom;
    QStringList chain;
    for (qsizetype i = 0; i < bigger.size(); ++i)
        chain << bigger.at(i) + QStringLiteral(" is ") + comparative + QStringLiteral(" than ")
                + smaller.at(i);
    return reasoned(who + QStringLiteral(" is the ") + superlative + QStringLiteral(", since ")
            + chain.join(QStringLiteral(" and ")) + u'.',
        who,
        QStringLiteral("Put them in order: ") + top + QStringLiteral(" first, ") + bottom
            + QStringLiteral(" last. The question asks for the ") + superlative + QStringLiteral(", so ")
            + who + u'.');
}

// ---- quadratics ------------------------------------------------------------------------------

long long coefficient(QString text, long long ifBare)
{
    text.remove(u' ');
    if (text.isEmpty() || text == QLatin1String("+"))
        return ifBare;
    if (text == QLatin1String("-"))
        return -ifBare;
    return text.toLongLong();
}

QString signedTerm(long long value, const QString& suffix)
{
    return (value < 0 ? QStringLiteral(" - ") : QStringLiteral(" + ")) + QString::number(std::llabs(value))
        + suffix;
}

QString rootText(double root)
{
    return std::abs(root - std::round(root)) < 1e-9 ? QString::number(std::llround(root))
                                                    : QString::number(root, 'g', 4);
}

// "Solve: x^2 - 5x + 6 = 0" (a, b and c may be missing or signed).
std::optional<Answer> quadraticAnswer(const QString& lower)
{
    static const QRegularExpression re(
        QStringLiteral("([+-]?\\s*\\d*)\\s*x\\s*(?:\\^\\s*2|²)\\s*(?:([+-]\\s*\\d*)\\s*x(?![\\w^²]))?\\s*([+-"
                       "]\\s*\\d+)?\\s*=\\s*0"));
    const auto m = re.match(lower);
    if (!m.hasMatch())
        return std::nullopt;
    const long long a = coefficient(m.captured(1), 1);
    const long long b = m.captured(2).isEmpty() ? 0 : coefficient(m.captured(2), 1);
    const long long c = m.captured(3).isEmpty() ? 0 : coefficient(m.captured(3), 0);
    if (a == 0)
        return std::nullopt;
    const long long d = b * b - 4 * a * c;
    const QString equation = (a == 1 ? QString() : QString::number(a)) + QStringLiteral("x^2")
        + (b ? signedTerm(b, QStringLiteral("x")) : QString()) + (c ? signedTerm(c, QString()) : QString())
        + QStringLiteral(" = 0");
    const QString discriminant = QStringLiteral("The discriminant is b^2 - 4ac = ") + QString::number(b * b)
        + QStringLiteral(" - ") + QString::number(4 * a * c) + QStringLiteral(" = ") + QString::number(d)
        + u'.';
    if (d < 0)
        return reasoned(
            QStringLiteral("That equation has no real solutions, because its discriminant is negative."),
            QStringLiteral("no real solutions"),
            QStringLiteral("For ") + equation + QStringLiteral(": ") + discriminant
                + QStringLiteral(" It is negative, so there are no real roots."));
    const double r1 = (-double(b) - std::sqrt(double(d))) / (2.0 * double(a));
    const double r2 = (-double(b) + std::sqrt(double(d))) / (2.0 * double(a));
    const QString lo = rootText(std::min(r1, r2));
    const QString hi = rootText(std::max(r1, r2));
    QString check;
    for (const double r : {std::min(r1, r2), std::max(r1, r2)}) {
        const double value = double(a) * r * r + double(b) * r + double(c);
        check += QStringLiteral(" x = ") + rootText(r) + QStringLiteral(" gives ")
            + rootText(std::abs(value) < 1e-9 ? 0 : value) + u'.';
    }
    const bool factors = a == 1 && lo == rootText(std::llround(std::min(r1, r2)))
        && hi == rootText(std::llround(std::max(r1, r2)));
    if (d == 0)
        return reasoned(QStringLiteral("The only solution is x equals ") + lo + u'.', lo,
            QStringLiteral("For ") + equation + QStringLiteral(": ") + discriminant
                + QStringLiteral(" Zero, so one double root: x = ") + lo + u'.' + check);
    const QString why = factors
        ? QString(QStringLiteral("Look for two numbers that multiply to ") + QString::number(c)
            + QStringLiteral(" and add to ") + QString::number(b) + QStringLiteral(": ")
            + QString::number(-std::llround(std::max(r1, r2))) + QStringLiteral(" and ")
            + QString::number(-std::llround(std::min(r1, r2)))
            + QStringLiteral(". So the equation factors as (x")
            + signedTerm(-std::llround(std::min(r1, r2)), QString()) + QStringLiteral(")(x")
            + signedTerm(-std::llround(std::max(r1, r2)), QString()) + QStringLiteral(") = 0."))
        : discriminant + QStringLiteral(" Use the quadratic formula, x = (-b ± √d) / 2a.");
    const QString spoken = factors ? QString(QStringLiteral(", because it factors into x minus ") + lo
                               + QStringLiteral(" times x minus ") + hi + u'.')
                                   : QStringLiteral(", from the quadratic formula.");
    return reasoned(
        QStringLiteral("The solutions are x equals ") + lo + QStringLiteral(" and x equals ") + hi + spoken,
        lo + QStringLiteral(" and ") + hi,
        QStringLiteral("Solve ") + equation + QStringLiteral(". ") + why + QStringLiteral(" So x = ") + lo
            + QStringLiteral(" or x = ") + hi + QStringLiteral(". Check:") + check);
}

} // namespace

std::optional<Answer> reasoningAnswer(const QString& message)
{
    const QString lower = message.toLower();
    if (auto quadratic = quadraticAnswer(lower))
        return quadratic;
    if (auto clock = clockAnswer(lower))
        return clock;
    if (auto weekday = weekdayAnswer(lower))
        return weekday;
    if (auto ordering = orderingAnswer(message))
        return ordering;
    if (isArithmetic(lower))
        return arithmeticAnswer(lower);
    return std::nullopt;
}

} // namespace qs::emu::detail
