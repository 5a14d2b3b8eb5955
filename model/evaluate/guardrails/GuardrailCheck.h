// SPDX-License-Identifier: MIT
#pragma once

// What the guardrail checks share: the run indexed once (Context), the shape of a finding and
// the one place a finding becomes a Guardrail. Internal to model/evaluate.

#include "model/evaluate/Fidelity.h"
#include "model/evaluate/Guardrails.h"
#include "model/evaluate/JudgedQuality.h"
#include "model/evaluate/Resources.h"

#include <map>
#include <optional>
#include <tuple>

namespace qs::guardrails {

using Severity = Guardrail::Severity;
using json = nlohmann::json;

// ---- thresholds (docs/guardrails.md explains each) ------------------------------------------

constexpr int kMinRuns = 5; // measured successful runs per endpoint × test (× turn × level)

constexpr double kColdFactor = 3.0; // first measured TTFT vs the median of the other runs…
constexpr double kColdAbsoluteMs = 500; // …and at least this much slower
constexpr double kCacheShare = 0.9; // cached prompt tokens / prompt tokens that make a "cache hit"
constexpr double kFailureRate = 0.2; // share of failed measured requests on one arm
constexpr double kTokenRelTolerance = 0.1; // token counts may differ by 10 % (min kTokenAbsTolerance)
constexpr qint64 kTokenAbsTolerance = 2; // the EOS token, a held-back UTF-8 piece
constexpr double kKvCacheFull = 0.95; // KV-cache use that means requests will be preempted or queued
constexpr double kMemoryGrowthBytes = 1073741824.0; // idle memory after − before that is growth…
constexpr double kMemoryGrowthShare = 0.02; // …and at least this share of the total (or of idle before)
constexpr int kListMax = 6; // items listed in one piece of evidence before "…"

// ---- small helpers --------------------------------------------------------------------------

QString jsonString(const json& j, const char* key);
QString fmtMs(double ms);
QString fmtPercent(double share);
double median(std::vector<double> values);
/// "a, b, c, … (4 more)" past `max` items.
QString listed(const QStringList& items, int max = kListMax);
void addUnique(QStringList& list, const QString& item);
/// The thinking a response carried before its answer: the reasoning field plus thinking leaked
/// into content (before `</think>`), tags removed. Empty when the model did not think.
QString thinkingText(const RunRecord& r);
bool thought(const RunRecord& r);
/// Share of the prompt the server reported as cached, when it reported both counts.
std::optional<double> cachedShare(const RunRecord& r);

/// Measured records of one arm grouped by (test, turn, concurrency level).
using GroupKey = std::tuple<QString, int, int>;
std::map<GroupKey, std::vector<const RunRecord*>> groups(const std::vector<const RunRecord*>& records);
/// "factual turn 2 @c4" (the level only when `showLevel`).
QString groupName(const GroupKey& k, bool showLevel);

// ---- the run, indexed once -------------------------------------------------------------------

struct Context {
    const RunResult& run;
    std::vector<int> arms; ///< endpoints with at least one measured request, ascending
    std::vector<std::vector<const RunRecord*>> measured; ///< per endpoint, in start order
    std::vector<std::vector<const RunRecord*>> all; ///< per endpoint, warm-ups included, in start order
    QStringList tests; ///< test ids in order of first appearance
    ResourceReport resources; ///< what the servers spent; empty when nothing was scraped
    JudgedQuality judged; ///< what the LLM judge said; `judged` false when none judged
    Fidelity fidelity; ///< each arm against the reference (point values); empty without fidelity prompts

    explicit Context(const RunResult& r);

    const RunEndpoint& endpoint(int e) const { return run.endpoints[std::size_t(e)]; }
    QString name(int e) const { return QStringLiteral("\"%1\"").arg(endpoint(e).endpoint.displayName()); }
    /// The arm's measured requests that succeeded.
    std::vector<const RunRecord*> completed(int e) const;
    Runtime runtime(int e) const;
    /// In the order the run first met each test.
    void sortTests(QStringList& list) const;
};

// ---- a check's result -------------------------------------------------------------------------

/// What a check found: evidence lines, the arms and tests involved. Empty evidence: nothing.
struct Finding {
    QStringList evidence;
    std::vector<int> endpoints; ///< any order, repeats allowed
    QStringList tests; ///< any order; sorted into the run's test order by report()
};

/// The shape most checks share: `describe(arm, tests)` gives each measured arm's line of
/// evidence (empty: nothing on that arm) and may add the tests involved.
template <typename Describe> Finding perArm(const Context& ctx, Describe describe)
{
    Finding found;
    for (int e : ctx.arms) {
        const QString line = describe(e, found.tests);
        if (line.isEmpty())
            continue;
        found.evidence << line;
        found.endpoints.push_back(e);
    }
    return found;
}

/// The guardrail for a finding (its id is filled in by the registry), or nothing when the
/// finding has no evidence. Evidence lines are joined with `separator`.
std::optional<Guardrail> report(const Context& ctx, Finding found, Severity severity, QString title,
    QString advice, const QString& separator = QStringLiteral("; "));

using Check = std::optional<Guardrail> (*)(const Context&);

/// Every name the run knows for the weights behind an endpoint (ModelChecks.cpp).
QStringList modelNames(const Context& ctx, int e);

// ---- the checks, by what they look at -----------------------------------------------------------

// Which weights each arm serves (ModelChecks.cpp).
std::optional<Guardrail> checkModelUnknown(const Context& ctx);
std::optional<Guardrail> checkModelsDiffer(const Context& ctx);

// Whether the arms were treated alike: runtime, request settings, load (FairnessChecks.cpp).
std::optional<Guardrail> checkRuntimes(const Context& ctx);
std::optional<Guardrail> checkContextSizes(const Context& ctx);
std::optional<Guardrail> checkThinkingDiffers(const Context& ctx);
std::optional<Guardrail> checkSettings(const Context& ctx);
std::optional<Guardrail> checkConcurrency(const Context& ctx);
std::optional<Guardrail> checkParallelHosts(const Context& ctx);

// Whether the timings measure what they claim: thinking, sample size, warm-up, caches, simulator
// (MeasurementChecks.cpp).
std::optional<Guardrail> checkReasoningInTtft(const Context& ctx);
std::optional<Guardrail> checkFewRuns(const Context& ctx);
std::optional<Guardrail> checkColdStart(const Context& ctx);
std::optional<Guardrail> checkPrefixCache(const Context& ctx);
std::optional<Guardrail> checkSimulated(const Context& ctx);

// What came back: token counts and their sources, cut-off answers, tool calls, failures
// (AnswerChecks.cpp).
std::optional<Guardrail> checkEstimatedTokens(const Context& ctx);
std::optional<Guardrail> checkToolParser(const Context& ctx);
std::optional<Guardrail> checkTruncated(const Context& ctx);
std::optional<Guardrail> checkTokenCounts(const Context& ctx);
std::optional<Guardrail> checkMalformedStreams(const Context& ctx);
std::optional<Guardrail> checkFailures(const Context& ctx);

// What the servers' own metrics reveal: another client, preemptions, a full KV cache, memory
// that grew, a restart, failed scrapes (ServerChecks.cpp). None fires on a run without telemetry.
std::optional<Guardrail> checkServerTokens(const Context& ctx);
std::optional<Guardrail> checkServerQueueing(const Context& ctx);
std::optional<Guardrail> checkServerPreemptions(const Context& ctx);
std::optional<Guardrail> checkKvCacheFull(const Context& ctx);
std::optional<Guardrail> checkMemoryGrew(const Context& ctx);
std::optional<Guardrail> checkServerRestarted(const Context& ctx);
std::optional<Guardrail> checkTelemetryGaps(const Context& ctx);

// Whether the LLM judge's verdicts can be trusted: self-preference, consistency, position and
// length bias, enough pairs, failures spread evenly (JudgeChecks.cpp). None fires without a judging.
std::optional<Guardrail> checkJudgeIsAnArm(const Context& ctx);
std::optional<Guardrail> checkJudgeConsistency(const Context& ctx);
std::optional<Guardrail> checkJudgePositionBias(const Context& ctx);
std::optional<Guardrail> checkJudgeTooFewPairs(const Context& ctx);
std::optional<Guardrail> checkJudgeFailuresUneven(const Context& ctx);
std::optional<Guardrail> checkJudgeVerbosity(const Context& ctx);

// Whether the fidelity comparison compares like with like: the reference's model, the prompts'
// tokens, logprobs sent at all, greedy decoding, drafting, tokenizers (FidelityChecks.cpp). None
// fires on a run without fidelity prompts.
std::optional<Guardrail> checkFidelityReferenceModel(const Context& ctx);
std::optional<Guardrail> checkFidelityPromptMismatch(const Context& ctx);
std::optional<Guardrail> checkFidelityNoLogprobs(const Context& ctx);
std::optional<Guardrail> checkFidelityNotGreedy(const Context& ctx);
std::optional<Guardrail> checkFidelitySpeculative(const Context& ctx);
std::optional<Guardrail> checkFidelityTokenizers(const Context& ctx);

} // namespace qs::guardrails
