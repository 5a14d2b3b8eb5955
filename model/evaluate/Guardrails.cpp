// SPDX-License-Identifier: MIT
#include "model/evaluate/Guardrails.h"

#include "model/evaluate/guardrails/GuardrailCheck.h"

#include <algorithm>
#include <iterator>

namespace qs {

namespace {

using namespace guardrails;

/// Every guardrail, by id, in check order (the order of equal severities in the result).
struct RegisteredCheck {
    const char* id;
    Check check;
};

constexpr RegisteredCheck kChecks[] = {
    {"model_unknown", &checkModelUnknown},
    {"models_differ", &checkModelsDiffer},
    {"runtimes_differ", &checkRuntimes},
    {"context_sizes_differ", &checkContextSizes},
    {"thinking_differs", &checkThinkingDiffers},
    {"reasoning_in_ttft", &checkReasoningInTtft},
    {"tools_without_parser", &checkToolParser},
    {"settings_differ", &checkSettings},
    {"concurrency_differs", &checkConcurrency},
    {"few_runs", &checkFewRuns},
    {"cold_start", &checkColdStart},
    {"estimated_tokens", &checkEstimatedTokens},
    {"truncated_answers", &checkTruncated},
    {"token_count_mismatch", &checkTokenCounts},
    {"failures", &checkFailures},
    {"malformed_streams", &checkMalformedStreams},
    {"parallel_same_host", &checkParallelHosts},
    {"prefix_cache", &checkPrefixCache},
    {"simulated_endpoints", &checkSimulated},
    {"server_token_mismatch", &checkServerTokens},
    {"server_queueing", &checkServerQueueing},
    {"server_preemptions", &checkServerPreemptions},
    {"kv_cache_near_full", &checkKvCacheFull},
    {"memory_grew", &checkMemoryGrew},
    {"server_restarted", &checkServerRestarted},
    {"telemetry_gaps", &checkTelemetryGaps},
    {"judge_is_an_arm", &checkJudgeIsAnArm},
    {"judge_low_consistency", &checkJudgeConsistency},
    {"judge_position_bias", &checkJudgePositionBias},
    {"judge_too_few_pairs", &checkJudgeTooFewPairs},
    {"judge_failures_uneven", &checkJudgeFailuresUneven},
    {"judge_verbosity", &checkJudgeVerbosity},
    {"fidelity_reference_other_model", &checkFidelityReferenceModel},
    {"fidelity_prompt_mismatch", &checkFidelityPromptMismatch},
    {"fidelity_no_logprobs", &checkFidelityNoLogprobs},
    {"fidelity_not_greedy", &checkFidelityNotGreedy},
    {"fidelity_speculative_decoding", &checkFidelitySpeculative},
    {"fidelity_tokenizers_differ", &checkFidelityTokenizers},
};

} // namespace

QString severityId(Guardrail::Severity severity)
{
    switch (severity) {
    case Severity::Info:
        return QStringLiteral("info");
    case Severity::Warning:
        return QStringLiteral("warning");
    case Severity::Critical:
        return QStringLiteral("critical");
    }
    return QStringLiteral("warning");
}

std::vector<Guardrail> checkGuardrails(const RunResult& result)
{
    const Context ctx(result);
    std::vector<Guardrail> out;
    for (const RegisteredCheck& c : kChecks) {
        if (std::optional<Guardrail> g = c.check(ctx)) {
            g->id = QString::fromLatin1(c.id);
            out.push_back(std::move(*g));
        }
    }
    std::stable_sort(out.begin(), out.end(),
        [](const Guardrail& a, const Guardrail& b) { return a.severity > b.severity; });
    return out;
}

nlohmann::json toJson(const Guardrail& g)
{
    json tests = json::array();
    for (const QString& t : g.tests)
        tests.push_back(t.toStdString());
    return {{"id", g.id.toStdString()}, {"severity", severityId(g.severity).toStdString()},
        {"title", g.title.toStdString()}, {"evidence", g.evidence.toStdString()},
        {"advice", g.advice.toStdString()}, {"endpoints", g.endpoints}, {"tests", tests}};
}

nlohmann::json toJson(const std::vector<Guardrail>& guardrails)
{
    json out = json::array();
    for (const Guardrail& g : guardrails)
        out.push_back(toJson(g));
    return out;
}

} // namespace qs
