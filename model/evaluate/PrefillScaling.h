// SPDX-License-Identifier: MIT
#pragma once

#include "model/core/RunRecord.h"
#include "model/evaluate/PairedComparison.h"
#include "model/evaluate/Resources.h"

#include <QString>
#include <QStringList>
#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

namespace qs {

// How the time to first token grows with the prompt: milliseconds of TTFT per 1,000 prompt tokens
// the server had to process (its prefill), per endpoint, with an interval that counts distinct
// prompts, not repeats; and, for the context-sweep suite, how often each endpoint still found the
// fact at each context length, and its memory there. Formulas: docs/methodology.md, "Prefill
// scaling and the context sweep".

/// What the fit of an endpoint rests on. One kind per run: the context sweep when the run has
/// tests with a `context`, else the multi-turn conversations' growth, else nothing.
enum class PrefillSource {
    None,
    ContextSweep, ///< the tests with `"context"` (the context-sweep suite), and only those
    MultiTurn, ///< every turn of the tests that have more than one
};
QString prefillSourceId(PrefillSource source); ///< "context-sweep", "multi-turn"; "" for None

/// One measured, successful request with a TTFT and a prompt count: a dot of the chart.
struct PrefillPoint {
    QString test;
    int turn = 1;
    int iteration = 1;
    double promptTokens = 0; ///< as the server counted them (or estimated)
    /// promptTokens − the cached tokens the server reported; promptTokens when it reported none.
    double uncachedTokens = 0;
    double ttftMs = 0; ///< ttft_any
    std::optional<bool> correct; ///< the `expected_answer` gate; absent = not graded
    int contextTokens = 0; ///< the test's nominal `context.tokens`; 0 = not a context test
};

/// One distinct prompt (test and turn) of an endpoint: the medians of its repeats. What the chart
/// plots, so that it shows a few hundred dots however long the run was.
struct PrefillPromptMedian {
    QString test;
    int turn = 1;
    int requests = 0;
    double promptTokens = 0;
    double uncachedTokens = 0;
    double ttftMs = 0;
    int graded = 0; ///< of the prompt's requests, how many `expected_answer` judged
    int right = 0;
    int contextTokens = 0;
};

/// One endpoint at one nominal context size (`context.tokens`) of the sweep.
struct ContextRow {
    int contextTokens = 0;
    int prompts = 0; ///< distinct tests of this size that ran
    int requests = 0; ///< measured requests, failures included
    int graded = 0; ///< measured requests `expected_answer` judged true or false
    int right = 0; ///< … judged true
    std::optional<double> medianPromptTokens; ///< as the server counted, successful requests
    std::optional<double> medianTtftMs; ///< ttft_any, successful requests
    /// The highest memory sample of the endpoint's server while this size's measured requests were
    /// in flight (bytes); nothing without telemetry or when no sample fell inside them.
    ResourceFigure memoryPeak;
};

/// One endpoint at one depth of the fact in the briefing (0 = start, 1 = end).
struct DepthRow {
    double depth = 0;
    int graded = 0;
    int right = 0;
};

/// One endpoint's prefill scaling.
struct EndpointPrefill {
    int endpoint = 0;
    QString label;
    PrefillSource source = PrefillSource::None;
    /// OLS slope of ttft_any on uncached prompt tokens × 1000; nothing when `reason` says why.
    std::optional<double> msPer1kTokens;
    /// 95 % percentile interval of the slope from a bootstrap over distinct prompts (clusters);
    /// nothing when not computed (the evaluation's fast pass) or when the bootstrap could not say.
    std::optional<Interval> interval;
    std::optional<double> interceptMs; ///< TTFT at 0 uncached tokens, from the same fit
    std::optional<double> r2;
    int prompts = 0; ///< distinct prompts (clusters): test ids; a conversation is one
    int requests = 0; ///< measured, successful requests in the fit
    std::optional<double> minTokens; ///< the span of uncached prompt tokens fitted over
    std::optional<double> maxTokens;
    int requestsWithCachedCount = 0; ///< requests whose server said how many tokens were cached
    double promptTokensTotal = 0; ///< Σ prompt tokens of those requests
    double cachedTokensTotal = 0; ///< Σ cached tokens of those requests
    /// Why there is no slope ("fewer than 3 distinct prompts", "prompt tokens span only 1.3×"…),
    /// or a caveat on the one there is ("the server did not say how many tokens were cached…").
    QString reason;
    QStringList notes;
    /// Every request of the fit, in record order, while prefillScaling() works; emptied before it
    /// returns (`requests` counts them, `medians` is what is kept).
    std::vector<PrefillPoint> points;
    std::vector<PrefillPromptMedian> medians; ///< per distinct prompt and turn, ascending tokens
    std::vector<ContextRow> contexts; ///< context sweep only, ascending size
    std::vector<DepthRow> depths; ///< context sweep only, ascending depth

    /// Share of prompt tokens served from the cache, over the requests that said; nothing when
    /// none did.
    std::optional<double> cachedShare() const;
};

/// The prefix-cache mode a suite measured (`"prefix_cache"`).
struct SuiteCacheMode {
    QString suite; ///< its id (or name)
    QString mode; ///< "cold", "warm", or "" when the suite does not say
};

struct PrefillScaling {
    PrefillSource source = PrefillSource::None;
    std::vector<EndpointPrefill> endpoints; ///< one per endpoint of the run, in order
    std::vector<SuiteCacheMode> cacheModes; ///< one per suite the run stores
    bool withIntervals = false; ///< whether the bootstrap ran
    int resamples = 0; ///< per interval, as used
    bool empty() const { return source == PrefillSource::None; }
    const EndpointPrefill* find(int endpoint) const;
};

struct PrefillOptions {
    bool intervals = true; ///< false skips the bootstrap (the evaluation's fast pass)
    int resamples = 2000; ///< at most 2,000: each costs O(distinct prompts)
    std::uint64_t seed = BootstrapOptions {}.seed;
    double confidence = 0.95;
};

/// Over measured (non-warm-up), successful requests with a ttft_any and a prompt count. Which
/// tests have a context comes from the suite stored in the run (parseSuite; a suite that cannot be
/// parsed has none). `resources` (computeResources of the same run) says which memory each
/// endpoint's server reports, for the memory per context size.
PrefillScaling prefillScaling(
    const RunResult& result, const ResourceReport& resources, const PrefillOptions& options = {});

/// "cold: prefill measured, nothing served from cache", "warm: production's pattern", "not stated".
QString cacheModeText(const QString& mode);

/// "50.2 ms per 1K tokens [47.9–52.6]" (the interval when there is one), or "no slope: REASON":
/// the words the summary, the chart's legend and the report share.
QString prefillFigureText(const EndpointPrefill& e);
/// A slope or interval end in ms per 1K tokens: 3 significant digits, at most 2 decimals.
QString msPer1kText(double v);
/// "1K", "8K", "30K" for a nominal context size; "512" below 1,000.
QString contextSizeText(int tokens);

/// The `prefill_scaling` list of `summary --json`: one entry per endpoint,
/// {"endpoint", "ms_per_1k_tokens", "interval": [lo, hi] | null, "source": "context-sweep" |
/// "multi-turn" | null}, then "intercept_ms", "r2", "prompts", "requests", "tokens_span":
/// [min, max] | null, "tokens": "uncached" | "prompt" | "mixed" (what x counts), "cached_share",
/// "cache_mode" ("cold", "warm", "not stated"), "reason" (why ms_per_1k_tokens is null) | null,
/// "notes", "depths": [{"depth", "graded", "right"}].
nlohmann::json prefillScalingJson(const PrefillScaling& prefill);
/// The `context` list of `summary --json`: one entry per endpoint × context size (context sweep
/// only), {"endpoint", "context_tokens", "prompts", "requests", "graded", "right",
/// "median_prompt_tokens", "median_ttft_ms", "memory_peak_bytes", "memory_source"}.
nlohmann::json prefillContextJson(const PrefillScaling& prefill);

} // namespace qs
