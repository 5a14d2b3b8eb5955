// SPDX-License-Identifier: MIT
#include "model/run/ContextBuilder.h"

#include <QCryptographicHash>
#include <QStringList>
#include <algorithm>
#include <cmath>
#include <random>

namespace qs {

namespace {

// A chat template adds a few tokens around every message (role markers, separators).
constexpr int templateTokensPerMessage = 4;

quint64 hashOf(const QString& text)
{
    const QByteArray h = QCryptographicHash::hash(text.toUtf8(), QCryptographicHash::Sha1);
    quint64 v = 0;
    for (int i = 0; i < 8; ++i)
        v = (v << 8) | quint8(h[i]);
    return v;
}

template <std::size_t N> QLatin1String pick(std::mt19937_64& rng, const char* const (&words)[N])
{
    return QLatin1String(words[rng() % N]);
}

// One line of an ordinary household briefing: calendar entries, reminders, notes and errands.
// Short lowercase words, so that the token estimate holds on real tokenizers; no entity of a
// context test's facts (codes, rare names) appears here, so a fact is found only where it was put.
QString briefingLine(std::mt19937_64& rng)
{
    static const char* const days[]
        = {"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"};
    static const char* const times[] = {"nine", "ten thirty", "noon", "half past two", "four", "six",
        "eight in the morning", "seven in the evening"};
    static const char* const people[] = {"maria", "tom", "aunt rosa", "the neighbour", "sam", "lena",
        "the plumber", "coach dave", "grandpa joe", "mia", "the dentist", "ben from work"};
    static const char* const events[]
        = {"meeting", "lunch", "call", "practice", "check up", "class", "visit", "review", "dinner", "walk"};
    static const char* const places[] = {"library", "office", "cafe on main street", "gym", "school",
        "clinic", "park", "market", "town hall", "pool"};
    static const char* const tasks[]
        = {"return the books", "book the tickets", "water the plants", "pay the bill", "order the cake",
            "fix the gate", "send the photos", "pick up the parcel", "renew the permit", "call the bank"};
    static const char* const topics[]
        = {"garden", "holiday", "kitchen", "car", "party", "budget", "move", "school trip", "birthday"};
    static const char* const things[] = {"blue box", "spare chairs", "old lamp", "tool bag", "winter coats",
        "camping gear", "paint cans", "board games"};
    static const char* const rooms[] = {"garage", "attic", "hall cupboard", "basement", "spare room", "shed"};
    static const char* const errands[]
        = {"grocery run", "car wash", "post office trip", "bank visit", "vet visit", "hardware store trip"};
    // Drawn in a fixed order (never inside one call's arguments, whose order C++ leaves open), so
    // every compiler builds the same briefing from the same seed.
    const auto kind = rng() % 6;
    const QLatin1String day = pick(rng, days), time = pick(rng, times), person = pick(rng, people),
                        event = pick(rng, events), place = pick(rng, places), task = pick(rng, tasks),
                        topic = pick(rng, topics), thing = pick(rng, things), room = pick(rng, rooms),
                        errand = pick(rng, errands);
    switch (kind) {
    case 0:
        return QStringLiteral("on %1 at %2 %3 has a %4 at the %5.").arg(day, time, person, event, place);
    case 1:
        return QStringLiteral("remember that %1 wants to %2 before %3.").arg(person, task, day);
    case 2:
        return QStringLiteral("a note about the %1 says the %2 should go in the %3.").arg(topic, thing, room);
    case 3:
        return QStringLiteral("the %1 is planned for %2 morning with %3.").arg(errand, day, person);
    case 4:
        return QStringLiteral("%1 called about the %2 and said it moved to %3 at %4.")
            .arg(person, event, day, time);
    default:
        return QStringLiteral("for the %1 we still need the %2 from the %3.").arg(topic, thing, room);
    }
}

} // namespace

int estimateTokens(const QString& text)
{
    int tokens = 0;
    bool inWord = false;
    for (const QChar c : text) {
        if (c.isLetterOrNumber()) {
            if (!inWord)
                ++tokens;
            inWord = true;
            continue;
        }
        inWord = false;
        if (!c.isSpace())
            ++tokens; // punctuation is a token of its own on BPE tokenizers
    }
    return tokens;
}

QString contextSystemPrompt(const Suite& suite, const SuiteTest& test)
{
    const ContextSpec spec = test.context.value_or(ContextSpec {});
    QString head = suite.system;
    if (!head.isEmpty())
        head += QStringLiteral("\n\n");
    head += QStringLiteral("Briefing:\n");
    const QString firstTurn = test.turns.value(0);
    const int fixed = estimateTokens(head) + estimateTokens(spec.fact) + estimateTokens(firstTurn)
        + 2 * templateTokensPerMessage;
    const int budget = spec.tokens - fixed;

    // Seeded by the suite and the test only: the same briefing on every endpoint and iteration.
    std::mt19937_64 rng(hashOf(suite.id + u'\n' + test.id));
    QStringList lines;
    int used = 0;
    while (used < budget) {
        QString line = briefingLine(rng);
        used += estimateTokens(line);
        lines << std::move(line);
    }
    if (!spec.fact.isEmpty()) {
        const auto at = qsizetype(std::llround(spec.depth * double(lines.size())));
        lines.insert(std::clamp<qsizetype>(at, 0, lines.size()), spec.fact);
    }
    return head + lines.join(u'\n');
}

QString coldPrefixSalt(quint64 seed, const QString& test, int iteration, int turn, bool warmup)
{
    const QString key = QStringLiteral("%1\n%2\n%3\n%4\n%5")
                            .arg(seed)
                            .arg(test)
                            .arg(iteration)
                            .arg(turn)
                            .arg(warmup ? 1 : 0);
    return QStringLiteral("[request %1]\n").arg(hashOf(key) & 0xFFFFFFFFFFFFull, 12, 16, QLatin1Char('0'));
}

QString warmConversationSalt(quint64 seed, const QString& test, int iteration, bool warmup)
{
    const QString key
        = QStringLiteral("warm\n%1\n%2\n%3\n%4").arg(seed).arg(test).arg(iteration).arg(warmup ? 1 : 0);
    return QStringLiteral("\n\nConversation reference: %1.")
        .arg(hashOf(key) & 0xFFFFFFull, 6, 16, QLatin1Char('0'));
}

std::optional<qint64> estimatedContextNeed(const Suite& suite, const SuiteTest& test, int maxTokens)
{
    if (!test.context && !test.promptTokens)
        return std::nullopt;
    qint64 tokens = maxTokens;
    if (test.context) {
        tokens += estimateTokens(contextSystemPrompt(suite, test)) + templateTokensPerMessage;
        for (const QString& turn : test.turns)
            tokens += estimateTokens(turn) + templateTokensPerMessage;
    } else {
        tokens += *test.promptTokens + estimateTokens(suite.system) + 2 * templateTokensPerMessage;
    }
    if (test.useTools && suite.tools.is_array() && !suite.tools.empty())
        tokens += estimateTokens(QString::fromStdString(suite.tools.dump()));
    return tokens;
}

QString contextFlagAdvice(Runtime runtime, qint64 tokens)
{
    switch (runtime) {
    case Runtime::LlamaServer:
        return QStringLiteral("restart llama-server with --ctx-size %1 or more (the size is per slot: with "
                              "--parallel N, give N times that)")
            .arg(tokens);
    case Runtime::Vllm:
        return QStringLiteral("restart vLLM with --max-model-len %1 or more").arg(tokens);
    case Runtime::Sglang:
        return QStringLiteral("restart SGLang with --context-length %1 or more").arg(tokens);
    case Runtime::Unknown:
    case Runtime::Other:
        break;
    }
    return QStringLiteral("raise the server's context size to %1 tokens or more (llama-server --ctx-size, "
                          "vLLM --max-model-len, SGLang --context-length)")
        .arg(tokens);
}

QString contextRefusal(const Suite& suite, const std::vector<RunEndpoint>& endpoints,
    const std::vector<bool>& usable, const RunSettings& settings)
{
    QStringList problems;
    for (std::size_t e = 0; e < endpoints.size(); ++e) {
        if (e < usable.size() && !usable[e])
            continue;
        const RunEndpoint& endpoint = endpoints[e];
        const auto size = endpoint.probe.find("context_size");
        if (size == endpoint.probe.end() || !size->is_number_integer())
            continue;
        const qint64 available = size->get<qint64>();
        QStringList tests;
        qint64 most = 0;
        for (const SuiteTest& test : suite.tests) {
            const int maxTokens
                = settings.maxTokens.value_or(test.maxTokens.value_or(suite.defaults.maxTokens));
            const std::optional<qint64> need = estimatedContextNeed(suite, test, maxTokens);
            if (!need || *need <= available)
                continue;
            tests << QStringLiteral("%1 (about %2 tokens)").arg(test.id).arg(*need);
            most = std::max(most, *need);
        }
        if (tests.isEmpty())
            continue;
        problems << QStringLiteral("%1 serves %2 tokens of context, but %3 need more: %4; %5.")
                        .arg(endpoint.endpoint.displayName())
                        .arg(available)
                        .arg(tests.size() == 1 ? QStringLiteral("this test would")
                                               : QStringLiteral("these tests"))
                        .arg(tests.join(QStringLiteral(", ")),
                            contextFlagAdvice(endpoint.endpoint.runtime, most));
    }
    if (problems.isEmpty())
        return QString();
    return QStringLiteral("the suite needs more context than a server has, so nothing was sent (the server "
                          "would refuse these requests or cut their prompts):\n  ")
        + problems.join(QStringLiteral("\n  "));
}

} // namespace qs
