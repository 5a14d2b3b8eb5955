// SPDX-License-Identifier: MIT
#include "tests/support/SimulatedProfiles.h"

#include "tests/support/EmulatorJudge.h"
#include "tests/support/PrefixCache.h"
#include "tests/support/SimulatedLogprobs.h"
#include "tests/support/SimulatedModel.h"
#include "tests/support/StableHash.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QRegularExpression>
#include <algorithm>
#include <atomic>
#include <memory>
#include <random>

namespace qs::emu {

namespace {

using detail::Answer;
using detail::Conversation;
using detail::Intent;
using detail::splitMix;
using detail::stableHash;

/// How the answers come out.
enum class Manners {
    Clean, ///< the keyword model's answer as it is, tool calls through the API
    Sloppy, ///< NVFP4's manners: markdown, verbosity, thinking leaks, broken tool calls
    Garbled, ///< a base model that needs its thinking, with thinking off: gibberish, no tool calls
};

struct Profile {
    const char* name;
    Dialect dialect;
    const char* modelId;
    const char* version;
    double ttftBaseMs;
    double ttftLinearMs; ///< per prompt token
    double ttftQuadraticMs; ///< per prompt token squared
    double ttftJitter; ///< ± fraction, uniform
    /// The server reuses cached prompt prefixes. Off for q4km-like: the seeds' llama-server
    /// recomputed the whole conversation every turn (Qwen3.5's DeltaNet layers keep a recurrent
    /// state that a llama-server of that era could not cut back to a shared prefix), which is
    /// why its TTFT grew over the turns while NVFP4's on vLLM stayed flat.
    bool prefixCaching;
    double tokensPerSecond;
    double tpsJitter; ///< ± fraction, uniform
    Manners manners;
    /// σ of the noise on each listed token's logit in fidelity requests (SimulatedLogprobs.h):
    /// how far this "quantization" strays from the shared base distribution.
    double logitNoise;
    const char* description;
};

// Timing from the seeds' v3 tables (004_*): TTFT per test and per turn, decode tok/s. q4km-like
// computes every prompt whole (no prefix reuse, as the seeds' llama-server): 40 + 0.12·n +
// 0.00001·n² ms gives ~350 ms for the built-in voice-assistant suite's ~2.2K-token requests (its
// system prompt carries the briefing; the seeds measured ~300 ms for a greeting), ~440 ms at the
// fifth turn of a conversation, and ~12.6 s for the context sweep's 30K-token prompt. nvfp4-like
// caches the system prompt and pays 0.05 ms per new token: ~90 ms, flat over the turns.
const Profile kProfiles[] = {
    {"nvfp4-like", Dialect::Vllm, "sim-qwen3.5-9b-nvfp4", "0.17.1+simulated", 85, 0.05, 0, 0.05, true, 20,
        0.12, Manners::Sloppy, 0.3,
        "Simulated vLLM serving Qwen3.5-9B NVFP4 (no real model): flat ~90 ms TTFT, ~20 tok/s, right answers "
        "but frequent markdown, verbose replies, thinking leaks and broken tool calls."},
    {"q4km-like", Dialect::LlamaServer, "sim-qwen3.5-9b-q4_k_m", "b9478-simulated", 40, 0.12, 0.00001, 0.04,
        false, 38, 0.06, Manners::Clean, 0.08,
        "Simulated llama-server serving Qwen3.5-9B Q4_K_M (no real model): every prompt computed whole, "
        "~350 ms TTFT for a 2K-token prompt growing with the conversation, ~38 tok/s, clean concise "
        "answers and correct tool calls."},
    // The seeds' v3: AxionML/Qwen3.5-9B-NVFP4 is the *base* model, not the Opus-Distilled fine-tune;
    // with thinking off it answered in gibberish (factual 0/5, reasoning 0/5, tool calls 0/10, no
    // markdown 4/15, no leaks) at 80-100 ms TTFT and 17-23 tok/s. "base" in the model id is what
    // lets the models_differ guardrail see the different fine-tune.
    {"nvfp4-base-like", Dialect::Vllm, "sim-qwen3.5-9b-base-nvfp4", "0.17.1+simulated", 85, 0.05, 0, 0.05,
        true, 20, 0.12, Manners::Garbled, 0.3,
        "Simulated vLLM serving the base Qwen3.5-9B in NVFP4 (like AxionML/Qwen3.5-9B-NVFP4; no real model) "
        "with thinking off: flat ~90 ms TTFT, ~20 tok/s, garbled mixed-script answers and no tool calls."},
    // What would make the switch right: the baseline's own fine-tune in NVFP4 on vLLM, started with
    // --reasoning-parser and --enable-auto-tool-choice --tool-call-parser, with CUDA graphs (no
    // --enforce-eager). The seeds never got this far (serving was blocked); it is the fair comparison
    // their "what would change this recommendation" describes.
    {"nvfp4-fixed-like", Dialect::Vllm, "sim-qwen3.5-9b-nvfp4", "0.17.1+simulated", 80, 0.04, 0, 0.05, true,
        40, 0.06, Manners::Clean, 0.2,
        "Simulated vLLM serving the same Qwen3.5-9B fine-tune in NVFP4 with reasoning and tool-call parsers "
        "(no real model): flat ~90 ms TTFT, ~40 tok/s, clean concise answers and correct tool calls."},
    // A fidelity reference (`--reference sim:bf16-like`): the same fine-tune unquantized, whose
    // logprobs are the shared base distribution itself. 18 GB of BF16 weights over the Spark's
    // 273 GB/s give ~14 tok/s.
    {"bf16-like", Dialect::Vllm, "sim-qwen3.5-9b-bf16", "0.17.1+simulated", 110, 0.06, 0, 0.05, true, 14,
        0.05, Manners::Clean, 0.0,
        "Simulated vLLM serving the same Qwen3.5-9B fine-tune in BF16 (no real model): ~120 ms TTFT, ~14 "
        "tok/s, "
        "clean concise answers; its logprobs are the simulated model's own, the reference for fidelity."},
};

// How often the NVFP4 imitation misbehaves (003_*'s same-model table: no markdown 3/15, thinking
// leaked 5/25, tool calls 0/10; "2-6x more verbose").
constexpr double kMarkdownRate = 0.7; // of text answers
constexpr double kVerboseRate = 0.85; // of text answers
constexpr double kThinkingLeakRate = 0.2; // of all answers, when thinking is off
constexpr double kToolCorrectRate = 0.2;
constexpr double kToolMissingArgumentRate = 0.35;
constexpr double kToolAsTextRate = 0.35; // the rest answers in prose instead of calling the tool

// ignore_eos without max_tokens would run to the context limit; a bounded stand-in.
constexpr int kDefaultIgnoreEosTokens = 512;

const Profile* findProfile(const QString& name)
{
    for (const Profile& p : kProfiles) {
        if (name.trimmed().compare(QLatin1String(p.name), Qt::CaseInsensitive) == 0)
            return &p;
    }
    return nullptr;
}

// ---- determinism -------------------------------------------------------------------------

/// Every random choice of one request, drawn in a fixed order so a seed replays exactly.
struct Draws {
    double ttft = 0.5;
    double tps = 0.5;
    double leak = 1;
    double leakKind = 0;
    double markdown = 1;
    double style = 0;
    double verbose = 1;
    double tool = 0;
    quint64 variant = 0;
};

Draws draw(quint64 seed)
{
    std::mt19937_64 rng(seed);
    auto unit = [&rng] { return detail::unitFromHash(rng()); }; // portable, unlike the std distributions
    Draws d;
    d.ttft = unit();
    d.tps = unit();
    d.leak = unit();
    d.leakKind = unit();
    d.markdown = unit();
    d.style = unit();
    d.verbose = unit();
    d.tool = unit();
    d.variant = rng();
    return d;
}

/// What one profile instance shares across its requests (scriptFor may run on any thread).
struct ProfileState {
    const Profile* profile = nullptr;
    quint64 seed = 1;
    std::atomic<quint64> requests {0};
};

// ---- output shaping ------------------------------------------------------------------------

// vLLM's qwen3_coder parser writes arguments with json.dumps (", " and ": "); llama-server
// with nlohmann's compact dump.
QString argumentsJson(const QJsonObject& args, bool pythonStyle)
{
    if (!pythonStyle)
        return QString::fromUtf8(QJsonDocument(args).toJson(QJsonDocument::Compact));
    QStringList items;
    for (auto it = args.begin(); it != args.end(); ++it) {
        const QByteArray value = QJsonDocument(QJsonArray {it.value()}).toJson(QJsonDocument::Compact);
        const QByteArray key = QJsonDocument(QJsonArray {it.key()}).toJson(QJsonDocument::Compact);
        items << QString::fromUtf8(key.mid(1, key.size() - 2)) + QStringLiteral(": ")
                + QString::fromUtf8(value.mid(1, value.size() - 2));
    }
    return u'{' + items.join(QStringLiteral(", ")) + u'}';
}

QStringList sentences(const QString& text)
{
    static const QRegularExpression boundary(QStringLiteral("(?<=[.!?])\\s+"));
    return text.split(boundary, Qt::SkipEmptyParts);
}

QString boldKey(const QString& text, const QString& key)
{
    QString out = text;
    const qsizetype at = key.isEmpty() ? -1 : out.indexOf(key);
    if (at >= 0)
        return out.insert(at + key.size(), QStringLiteral("**")).insert(at, QStringLiteral("**"));
    const QString first = sentences(text).value(0);
    return QStringLiteral("**") + first + QStringLiteral("**") + out.mid(first.size());
}

QString headingFor(const Answer& a)
{
    switch (a.intent) {
    case Intent::Greeting:
        return QStringLiteral("Hello!");
    case Intent::Arithmetic:
        return QStringLiteral("Solution");
    case Intent::Explain:
        return QStringLiteral("Overview");
    case Intent::Capital:
        return QStringLiteral("Answer");
    default:
        return QStringLiteral("Response");
    }
}

// Bold key facts, a bullet list, or a heading: what the seeds saw in NVFP4's "voice" answers.
QString withMarkdown(const QString& text, const Answer& a, double style)
{
    const QStringList parts = sentences(text);
    if (style < 1.0 / 3 || (style < 2.0 / 3 && parts.size() < 3))
        return boldKey(text, a.keyPhrase);
    if (style < 2.0 / 3) {
        QString out = parts.first() + QStringLiteral("\n\n");
        for (qsizetype i = 1; i < parts.size(); ++i)
            out += QStringLiteral("- ") + parts.at(i)
                + (i + 1 < parts.size() ? QStringLiteral("\n") : QString());
        return out;
    }
    QString out = QStringLiteral("### ");
    out.append(headingFor(a)).append(QStringLiteral("\n\n")).append(boldKey(text, a.keyPhrase));
    return out;
}

QString verboseText(const Answer& a, quint64 variant)
{
    static const char* const offers[]
        = {"Let me know if you have any other questions, I'm always happy to help!",
            "Feel free to ask if you'd like more details on any of this!",
            "Is there anything else you'd like to know? I'm here for you!"};
    QString text = a.text;
    if (!a.elaboration.isEmpty())
        text += u' ' + a.elaboration;
    return text + u' ' + QString::fromLatin1(offers[(variant >> 8) % 3]);
}

// The leaked preamble the seeds quote: "Thinking Process: 1. **Analyze the Request:** …".
QString thinkingProcess(const Answer& a)
{
    const QStringList thought = sentences(a.thought);
    const QString rest = thought.mid(1).join(u' ');
    return QStringLiteral("Thinking Process:\n\n1.  **Analyze the Request:** ") + thought.value(0)
        + QStringLiteral("\n2.  **Determine the Answer:** ")
        + (rest.isEmpty() ? QStringLiteral("Answer directly.") : rest)
        + QStringLiteral("\n3.  **Draft the Response:** Keep it warm, concise and natural for voice.\n\n");
}

QString toolCallAsText(const detail::ToolCallPlan& call)
{
    return QStringLiteral("<tool_call>\n{\"name\": \"") + call.name + QStringLiteral("\", \"arguments\": ")
        + argumentsJson(call.arguments, true) + QStringLiteral("}\n</tool_call>");
}

QString toolRefusal(const detail::ToolCallPlan& call)
{
    const QString name = call.name.toLower();
    if (name.contains(QLatin1String("memory")))
        return QStringLiteral("I don't have any saved memories about ") + call.query
            + QStringLiteral(" yet, but you can tell me again and I'll keep it in mind!");
    if (name.contains(QLatin1String("note")))
        return QStringLiteral("I can't open your notes right now, but I'm happy to help another way!");
    return QStringLiteral("I don't have access to real-time information about ") + call.query
        + QStringLiteral(", but a quick search online should give you the latest.");
}

ToolCallSpec toolSpec(const detail::ToolCallPlan& call, const QJsonObject& args, bool pythonStyle)
{
    ToolCallSpec spec;
    spec.name = call.name;
    spec.argumentsJson = argumentsJson(args, pythonStyle);
    return spec;
}

void cleanOutput(Script& s, const Answer& a, const Profile& p)
{
    if (a.toolCall)
        s.toolCalls.push_back(
            toolSpec(*a.toolCall, a.toolCall->arguments, p.dialect != Dialect::LlamaServer));
    else
        s.content = detail::wordTokens(a.text);
}

// A tool request: right (rarely), a required argument missing, the call printed as text, or
// an answer in prose instead of a call. Returns content text, if any.
QString sloppyToolCall(Script& s, const detail::ToolCallPlan& call, double roll)
{
    if (roll < kToolCorrectRate) {
        s.toolCalls.push_back(toolSpec(call, call.arguments, true));
        return {};
    }
    if (roll < kToolCorrectRate + kToolMissingArgumentRate && !call.arguments.isEmpty()) {
        s.toolCalls.push_back(toolSpec(call, QJsonObject(), true));
        return {};
    }
    if (roll < kToolCorrectRate + kToolMissingArgumentRate + kToolAsTextRate)
        return toolCallAsText(call);
    return toolRefusal(call);
}

void sloppyOutput(Script& s, const Answer& a, const Conversation& c, const Draws& d)
{
    QString content;
    if (a.toolCall) {
        content = sloppyToolCall(s, *a.toolCall, d.tool);
    } else {
        content = d.verbose < kVerboseRate ? verboseText(a, d.variant) : a.text;
        if (d.markdown < kMarkdownRate)
            content = withMarkdown(content, a, d.style);
    }
    if (!c.thinking && d.leak < kThinkingLeakRate) {
        if (d.leakKind < 0.5) {
            content = thinkingProcess(a) + content;
        } else {
            s.reasoning = detail::wordTokens(a.thought);
            s.reasoningMode = ReasoningMode::LeakedWithTags; // "<think>…</think>" in content
            content = QStringLiteral("\n\n") + content;
        }
    }
    s.content = detail::wordTokens(content);
}

// Pieces of the seeds' v3 sample (".isantts     E_OVER S copr; '...CSiscoslmogn不辞 продать / '^当
// /M刘邦opIS ( S Z-s优化e'") and more of the same kind: subword debris in several scripts, with
// words that switch script mid-word. None spells an expected answer of the built-in suites.
const char* const kDebris[] = {".isantts", "E_OVER", "S", "copr;", "'...CSiscoslmogn", "不辞", "продать", "/",
    "'^当", "/M刘邦opIS", "(", "Z-s优化e'", "ücretsiz", "ndr", "_CTRL", "vé", "mogn", "Tr人", "ское", "quel",
    "ptsd", "ogh", "的是", "xcf", "ла", "ILL", "strpos", "Kre", "ación", "опт優", ";", "nK", "ーム", "rd",
    "Bew", "iglia", "ENT", "ks"};
// Every answer has at least one of these: words that switch script, as in "M刘邦opIS".
const char* const kMixedWords[] = {"M刘邦opIS", "Z-s优化e", "tr优ation", "pro优化duct", "Kapiт", "ом优e"};

// The seeds' v3 base model with thinking off: noise instead of an answer, a tool request answered
// with noise too (0/10 calls), and markdown-like symbols in most replies (4/15 clean).
void garbledOutput(Script& s, const Draws& d)
{
    std::mt19937_64 rng(d.variant);
    const int words = 18 + int(rng() % 24);
    QStringList out;
    const int mixedAt = int(rng() % quint64(words));
    for (int i = 0; i < words; ++i) {
        if (i == mixedAt)
            out << QString::fromUtf8(kMixedWords[rng() % std::size(kMixedWords)]);
        else
            out << QString::fromUtf8(kDebris[rng() % std::size(kDebris)]);
    }
    if (d.markdown < kMarkdownRate) {
        const int at = int(rng() % quint64(out.size()));
        if (d.style < 0.5)
            out[at] = QStringLiteral("**") + out[at] + QStringLiteral("**");
        else
            out.insert(at, QStringLiteral("\n- "));
    }
    s.content = detail::wordTokens(out.join(u' '));
}

// Only the c cached tokens of the n are skipped; each token computed attends to all before it,
// so the linear part costs n − c tokens and the quadratic part n² − c².
double prefillMs(const Profile& p, int promptTokens, int cachedTokens)
{
    const double n = promptTokens;
    const double c = std::clamp(cachedTokens, 0, promptTokens);
    return p.ttftBaseMs + p.ttftLinearMs * (n - c) + p.ttftQuadraticMs * (n * n - c * c);
}

// The emulator's cache counts message tokens only; the tool schemas sit right after the system
// prompt, so a cached prefix that reaches past it held them too.
int cachedWithTools(const RequestInfo& info, int toolTokens)
{
    if (info.cachedTokens <= 0 || toolTokens == 0
        || info.cachedTokens <= detail::systemPrefixTokens(info.body))
        return info.cachedTokens;
    return info.cachedTokens + toolTokens;
}

// A fidelity request: it asks for logprobs (the fidelity suite's greedy requests do).
bool asksLogprobs(const QJsonObject& body)
{
    return body.value(QLatin1String("logprobs")).toBool(false)
        || body.value(QLatin1String("n_probs")).toInt(0) > 0;
}

// Everything the answer is conditioned on.
quint64 promptHash(const QJsonObject& body)
{
    const QJsonObject prompt {{QStringLiteral("messages"), body.value(QLatin1String("messages"))},
        {QStringLiteral("tools"), body.value(QLatin1String("tools"))}};
    return stableHash(QString::fromUtf8(QJsonDocument(prompt).toJson(QJsonDocument::Compact)));
}

// The planned tokens through the profile's distributions (SimulatedLogprobs.h): reasoning and
// content as emitted, and their logprobs.
void addLogprobs(Script& s, const Profile& p, quint64 prompt)
{
    const qsizetype reasoning = s.reasoning.size();
    const detail::SimulatedTokens sim = detail::simulatedLogprobs(
        s.reasoning + s.content, prompt, p.logitNoise, stableHash(QString::fromLatin1(p.name)));
    s.reasoning = sim.tokens.mid(0, reasoning);
    s.content = sim.tokens.mid(reasoning);
    s.logprobs = sim.logprobs;
}

Script scriptFor(ProfileState& state, const RequestInfo& info)
{
    const Profile& p = *state.profile;
    const Conversation c = detail::readConversation(info.body);
    const quint64 request = state.requests.fetch_add(1);
    Draws d = draw(splitMix(state.seed ^ splitMix(stableHash(c.lastUser)) ^ splitMix(~request)));
    const bool fidelity = asksLogprobs(info.body);
    const quint64 prompt = promptHash(info.body);
    if (fidelity) {
        // A greedy answer depends on the prompt alone: not on the seed or the request's turn,
        // so two endpoints of one profile agree token for token. Only the timing still varies.
        Draws fixed = draw(splitMix(prompt));
        fixed.ttft = d.ttft;
        fixed.tps = d.tps;
        d = fixed;
    }

    Script s;
    // The whole prefill goes into ttftMs: the quadratic part needs the total count, tools included,
    // and how much of it the server's prefix cache already held.
    const int toolTokens = detail::toolPromptTokens(c.tools);
    const int promptTokens = info.promptTokens + toolTokens;
    s.ttftMs = prefillMs(p, promptTokens, cachedWithTools(info, toolTokens))
        * (1 + p.ttftJitter * (2 * d.ttft - 1));
    s.ttftPerPromptTokenMs = 0;
    s.tokensPerSecond = p.tokensPerSecond * (1 + p.tpsJitter * (2 * d.tps - 1));
    if (c.ignoreEos) {
        // One more than max_tokens: the emulator cuts at max_tokens and reports "length", as a
        // server that ignores EOS does.
        s.content = detail::fillerTokens(c.maxTokens > 0 ? c.maxTokens + 1 : kDefaultIgnoreEosTokens);
        return s;
    }
    const Answer a = detail::answerFor(c, d.variant);
    switch (p.manners) {
    case Manners::Clean:
        cleanOutput(s, a, p);
        break;
    case Manners::Sloppy:
        sloppyOutput(s, a, c, d);
        break;
    case Manners::Garbled:
        garbledOutput(s, d); // no reasoning either: thinking is what this model lacks
        break;
    }
    if (c.thinking && p.manners != Manners::Garbled) { // only when asked for: the suites run with it off
        s.reasoning = detail::wordTokens(a.thought);
        s.reasoningMode = ReasoningMode::Parsed;
    }
    if (fidelity)
        addLogprobs(s, p, prompt);
    return s;
}

// ---- the simulated judge ----------------------------------------------------------------------

const char* const kJudgeDescription
    = "Simulated LLM judge (no real model): prefers the shorter answer without markdown or leaked thinking, "
      "and scores rubric criteria from the same text features. Deterministic; for trying judging only.";

bool isJudge(const QString& name)
{
    return name.trimmed().compare(simulatedJudgeName(), Qt::CaseInsensitive) == 0;
}

// A quick judge: a try-out over a suite should take seconds, not the minutes a 32B judge needs.
ServerConfig simulatedJudge()
{
    JudgeBehaviour behaviour;
    behaviour.mode = JudgeBehaviour::Mode::Heuristic;
    behaviour.chunks = 0; // a token per word, like a model
    behaviour.ttftMs = 120;
    behaviour.tokensPerSecond = 120;
    ServerConfig config = judgeServerConfig(behaviour, Dialect::LlamaServer);
    config.modelId = QStringLiteral("sim-judge-heuristic");
    config.version = QStringLiteral("b9478-simulated");
    return config;
}

} // namespace

QStringList simulatedProfileNames()
{
    QStringList names;
    for (const Profile& p : kProfiles)
        names << QString::fromLatin1(p.name);
    return names;
}

QString simulatedJudgeName()
{
    return QStringLiteral("judge");
}

std::optional<ServerConfig> simulatedProfile(const QString& name, quint64 seed)
{
    if (isJudge(name))
        return simulatedJudge();
    const Profile* profile = findProfile(name);
    if (!profile)
        return std::nullopt;
    auto state = std::make_shared<ProfileState>();
    state->profile = profile;
    state->seed = seed;
    ServerConfig config;
    config.dialect = profile->dialect;
    config.era = Era::Current;
    config.modelId = QString::fromLatin1(profile->modelId);
    config.version = QString::fromLatin1(profile->version);
    config.contextSize = 32768;
    config.toolParser = true; // the seeds' working setup: --enable-auto-tool-choice --tool-call-parser
    // Prefix caching as each profile says (on by default in the servers; off for q4km-like, see
    // Profile::prefixCaching); vLLM started with --enable-prompt-tokens-details, so a run shows
    // what the cache did.
    config.reportCachedTokens = true;
    config.prefixCaching = profile->prefixCaching;
    config.scriptFor = [state](const RequestInfo& info) { return scriptFor(*state, info); };
    return config;
}

QString simulatedProfileDescription(const QString& name)
{
    if (isJudge(name))
        return QString::fromLatin1(kJudgeDescription);
    const Profile* profile = findProfile(name);
    return profile ? QString::fromLatin1(profile->description) : QString();
}

} // namespace qs::emu
