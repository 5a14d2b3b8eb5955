// SPDX-License-Identifier: MIT
#pragma once

#include <QString>
#include <QStringList>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <vector>

namespace qs {

/// A tool the test expects the model to call, through the API's tool-call channel.
struct ExpectedTool {
    QString name;
    QStringList requiredArguments; ///< keys that must be present in the call's JSON arguments
};

/// What a good answer looks like. Judged by the quality gates (evaluation issue).
struct Expectations {
    /// Any one must match the visible answer: a case-insensitive substring, or a regular
    /// expression when written as "/…/" (e.g. "/\\b15\\b/").
    QStringList answerPatterns;
    std::optional<ExpectedTool> tool; ///< "expect_tool"
    bool noTool = false; ///< "expect_no_tool": calling any tool is wrong
    std::optional<int> maxWords; ///< length target of the visible answer
    std::optional<int> maxSentences;
};

/// A long context built for a test (the `context-sweep` suite): the suite's system prompt followed
/// by a generated briefing (calendar entries, reminders, notes) grown until the whole prompt is
/// about `tokens` tokens, with `fact` placed at `depth` of the briefing. The runner builds it
/// (run/ContextBuilder); the same text on every endpoint for the same iteration.
struct ContextSpec {
    int tokens = 0; ///< the whole prompt's target size, in tokens (≈ words of the filler)
    QString fact; ///< a sentence the question needs; empty = none
    double depth = 0.5; ///< where `fact` sits: 0 = the start of the briefing, 1 = its end
};

/// What a suite measures of the servers' prefix caches (`"prefix_cache"`).
enum class PrefixCacheMode {
    Unstated, ///< the suite does not say (files written before the key existed)
    /// Production's pattern: the system prompt and briefing are the same in every request, so a
    /// server serves them from its cache after the first; the runner ends the system prompt with a
    /// line of its own per conversation, so each conversation (and each timing repeat) is new.
    Warm,
    /// Prefill measured: every request starts with a unique salt and llama-server is sent
    /// `cache_prompt: false`, so nothing of the prompt can come from a cache.
    Cold,
};
QString prefixCacheId(PrefixCacheMode mode); ///< "", "warm", "cold"

/// One test of a suite: a single prompt, explicit messages, or a multi-turn conversation whose
/// assistant turns are the model's own previous replies.
struct SuiteTest {
    QString id;
    QString name; ///< defaults to id
    QString category; ///< e.g. "factual", "tool", "multi-turn"
    /// Either `turns` (user messages; one element for a single prompt) or `messages` (an
    /// OpenAI messages array sent as-is, system message included if wanted; one turn).
    QStringList turns;
    nlohmann::json messages; ///< null unless the test gave explicit messages
    bool useTools = false; ///< send the suite's tools with this test
    Expectations expect;

    // Per-test overrides of the suite defaults (unset = use the default).
    std::optional<int> maxTokens;
    std::optional<double> temperature;
    std::optional<qint64> seed;
    std::optional<bool> thinking;
    std::optional<int> warmup;
    std::optional<int> runs;
    nlohmann::json extraBody = nlohmann::json::object(); ///< merged into this test's requests

    /// Throughput tests: a synthetic prompt of about this many tokens instead of `turns`.
    std::optional<int> promptTokens;
    bool ignoreEos = false; ///< ask the server to generate exactly max_tokens

    /// `"fidelity": true`: a fidelity test (docs/methodology.md, "Fidelity"). Sent greedy
    /// (temperature 0, the suite's seed or 1), with `logprobs` and `top_logprobs`, and the same
    /// max_tokens on every arm; each arm's answer is compared token by token with the reference's.
    bool fidelity = false;

    /// `"context"`: a generated long context in the system prompt (context-sweep tests).
    std::optional<ContextSpec> context;

    int turnCount() const { return messages.is_array() ? 1 : int(turns.size()); }
};

struct SuiteDefaults {
    int maxTokens = 256;
    std::optional<double> temperature = 0.0;
    std::optional<qint64> seed;
    /// false sends chat_template_kwargs.enable_thinking=false; true sends true; unset sends nothing.
    std::optional<bool> thinking;
    int warmup = 2; ///< warm-up runs per endpoint and test, excluded from statistics
    int runs = 5; ///< measured runs per endpoint and test
    /// A concurrency sweep (throughput suites): every test runs at each level in turn.
    std::vector<int> concurrency;
    nlohmann::json extraBody = nlohmann::json::object();
    /// `"fidelity": true` in "defaults": every test is a fidelity test unless it says false.
    bool fidelity = false;
    /// Alternatives asked for per position in fidelity tests (`"top_logprobs"`, 1–20; 20 is the
    /// most every server accepts by default: vLLM caps it with `--max-logprobs`).
    int topLogprobs = 20;
};

struct Suite {
    QString id;
    QString name;
    QString description;
    QString system; ///< system prompt, sent first in every conversation (may be empty)
    nlohmann::json tools = nlohmann::json::array(); ///< OpenAI function schemas
    SuiteDefaults defaults;
    std::vector<SuiteTest> tests;
    /// Prompts for warm-up requests. They differ from every measured prompt, so warm-ups do not
    /// put the measured prompts in the server's prefix cache. Defaults to a built-in list.
    QStringList warmupPrompts;

    /// Overrides of the quality gates' patterns (merged over resources/gates/default.json); an
    /// empty object when the suite has none.
    nlohmann::json gates = nlohmann::json::object();

    /// `"prefix_cache"`: what the suite measures of the servers' prefix caches.
    PrefixCacheMode prefixCache = PrefixCacheMode::Unstated;

    QString source; ///< the file it came from, or "builtin:NAME"
    nlohmann::json raw; ///< the suite exactly as loaded, stored in result files
};

/// A suite that cannot be used. what() reads "FILE: PATH: PROBLEM", e.g.
/// "my.json: tests[2].expect_tool.required: must be a list of strings".
class SuiteError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// Validates and normalises a suite (the short hand-written form is always accepted).
/// `sourceName` is used in error messages. Throws SuiteError.
Suite parseSuite(const nlohmann::json& json, const QString& sourceName);
/// Reads a suite file. Throws SuiteError (unreadable, not JSON — with line and column —, invalid).
Suite loadSuiteFile(const QString& path);
/// Names of the built-in suites ("voice-assistant", "context-sweep", "quick-smoke", "throughput",
/// "fidelity").
QStringList builtinSuiteNames();
/// Throws SuiteError when `name` is not a built-in suite.
Suite loadBuiltinSuite(const QString& name);
/// A built-in name, or else a file path.
Suite loadSuite(const QString& nameOrPath);
/// The warm-up prompts used when a suite gives none: short, neutral, unlike any measured prompt.
const QStringList& builtinWarmupPrompts();

} // namespace qs
