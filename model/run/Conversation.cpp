// SPDX-License-Identifier: MIT
#include "model/run/Conversation.h"

#include "model/run/ContextBuilder.h"

#include <QCryptographicHash>
#include <random>

namespace qs {

namespace {
quint64 mix(quint64 seed, const QString& text, quint64 n)
{
    const QByteArray h = QCryptographicHash::hash(text.toUtf8(), QCryptographicHash::Sha1);
    quint64 v = 0;
    for (int i = 0; i < 8; ++i)
        v = (v << 8) | quint8(h[i]);
    return seed * 0x9E3779B97F4A7C15ull ^ v ^ (n * 0xBF58476D1CE4E5B9ull);
}
} // namespace

QString syntheticPrompt(int tokens, quint64 seed)
{
    static const char* const words[] = {"river", "stone", "light", "garden", "window", "music", "paper",
        "orange", "silver", "forest", "market", "winter", "bridge", "candle", "planet", "rabbit", "harbor",
        "pencil", "meadow", "engine", "valley", "coffee", "mirror", "thunder", "island", "ladder", "violin",
        "desert", "pillow", "rocket", "cloud", "tiger", "bottle", "castle", "ribbon", "camera", "lemon",
        "anchor", "feather", "canyon"};
    constexpr int wordCount = int(sizeof(words) / sizeof(words[0]));
    std::mt19937_64 rng(seed);
    QString text = QStringLiteral("Continue this list of words for as long as you can:");
    for (int i = 0; i < qMax(0, tokens - 10); ++i) {
        text += u' ';
        text += QLatin1String(words[rng() % wordCount]);
    }
    return text;
}

Conversation::Conversation(const Suite& suite, int testIndex, const RunSettings& settings, int iteration,
    bool warmup, int warmupIndex)
    : m_suite(&suite)
    , m_test(&suite.tests[std::size_t(testIndex)])
    , m_settings(settings)
    , m_iteration(iteration)
    , m_warmup(warmup)
    , m_warmupIndex(warmupIndex)
    , m_turnCount(warmup ? 1 : m_test->turnCount())
{
}

ChatRequest Conversation::request() const
{
    const Suite& s = *m_suite;
    const SuiteTest& t = *m_test;
    ChatRequest r;

    const bool explicitMessages = t.messages.is_array() && !m_warmup;
    bool hasSystem = false;
    if (explicitMessages)
        for (const auto& m : t.messages)
            hasSystem = hasSystem || (m.is_object() && m.value("role", std::string()) == "system");
    // A context test's system prompt carries its generated briefing. A cold suite starts every
    // request with a salt of its own, so no server can serve any of the prompt from its cache; a
    // warm one ends the system prompt with a line of its own per conversation, so the system
    // prompt is served from the cache and the rest is new, as in production.
    QString system = t.context ? contextSystemPrompt(s, t) : s.system;
    const int iteration = m_warmup ? m_warmupIndex : m_iteration;
    if (s.prefixCache == PrefixCacheMode::Cold && !hasSystem) {
        system = coldPrefixSalt(m_settings.seed, t.id, iteration, m_warmup ? 1 : m_turn, m_warmup) + system;
        r.noPromptCache = true;
    } else if (s.prefixCache == PrefixCacheMode::Warm && !hasSystem) {
        system += warmConversationSalt(m_settings.seed, t.id, iteration, m_warmup);
    }
    if (!system.isEmpty() && !hasSystem)
        r.messages.push_back({{"role", "system"}, {"content", system.toStdString()}});

    if (m_warmup) {
        const QStringList& prompts = s.warmupPrompts.isEmpty() ? builtinWarmupPrompts() : s.warmupPrompts;
        const QString prompt = t.promptTokens
            ? syntheticPrompt(*t.promptTokens,
                mix(m_settings.seed, QStringLiteral("warmup:") + t.id, quint64(m_warmupIndex)))
            : prompts[m_warmupIndex % prompts.size()];
        r.messages.push_back({{"role", "user"}, {"content", prompt.toStdString()}});
    } else if (explicitMessages) {
        for (const auto& m : t.messages)
            r.messages.push_back(m);
    } else {
        for (const auto& m : m_history)
            r.messages.push_back(m);
        // The same synthetic text on every endpoint (paired), a different one per iteration.
        const QString user = t.promptTokens
            ? syntheticPrompt(*t.promptTokens, mix(m_settings.seed, t.id, quint64(m_iteration)))
            : t.turns.value(m_turn - 1);
        r.messages.push_back({{"role", "user"}, {"content", user.toStdString()}});
    }

    // Nothing here depends on the endpoint: every arm gets the same max_tokens, which fidelity
    // tests rely on (answers cut at different lengths would differ for no reason).
    r.maxTokens = m_settings.maxTokens ? *m_settings.maxTokens : t.maxTokens.value_or(s.defaults.maxTokens);
    r.temperature = t.temperature ? t.temperature : s.defaults.temperature;
    r.seed = t.seed ? t.seed : s.defaults.seed;
    if (t.fidelity) {
        // Greedy and seeded, with the alternatives per position (docs/methodology.md, "Fidelity").
        // The parser refuses a fidelity test with another temperature; a suite that leaves it to
        // the server (null) still gets 0 here.
        r.temperature = 0.0;
        r.seed = r.seed.value_or(1);
        r.topLogprobs = s.defaults.topLogprobs;
    }
    if (t.useTools && s.tools.is_array() && !s.tools.empty())
        r.tools = s.tools;
    nlohmann::json extra = nlohmann::json::object();
    if (s.defaults.extraBody.is_object())
        extra.merge_patch(s.defaults.extraBody);
    if (t.extraBody.is_object())
        extra.merge_patch(t.extraBody);
    const std::optional<bool> thinking = t.thinking ? t.thinking : s.defaults.thinking;
    if (thinking)
        extra["chat_template_kwargs"]["enable_thinking"] = *thinking;
    if (t.ignoreEos)
        extra["ignore_eos"] = true;
    r.extraBody = extra;
    return r;
}

void Conversation::addReply(const RequestRecord& reply)
{
    if (done())
        return;
    if (!m_warmup && !m_test->messages.is_array()) {
        m_history.push_back({{"role", "user"}, {"content", m_test->turns.value(m_turn - 1).toStdString()}});
        const QString& content = reply.response.content;
        const QString visible = content.mid(reply.metrics.visibleContentOffset).trimmed();
        nlohmann::json assistant = {{"role", "assistant"}, {"content", visible.toStdString()}};
        if (!reply.response.toolCalls.empty()) {
            nlohmann::json calls = nlohmann::json::array();
            for (const ToolCall& c : reply.response.toolCalls)
                calls.push_back({{"id", c.id.toStdString()}, {"type", "function"},
                    {"function",
                        {{"name", c.name.toStdString()}, {"arguments", c.arguments.toStdString()}}}});
            assistant["tool_calls"] = calls;
        }
        m_history.push_back(assistant);
        for (const ToolCall& c : reply.response.toolCalls)
            m_history.push_back({{"role", "tool"}, {"tool_call_id", c.id.toStdString()},
                {"content", "{\"note\": \"tool results are not executed by the benchmark\"}"}});
    }
    ++m_turn;
}

} // namespace qs
