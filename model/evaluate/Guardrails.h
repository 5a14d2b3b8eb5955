// SPDX-License-Identifier: MIT
#pragma once

#include "model/core/RunRecord.h"

#include <QString>
#include <QStringList>
#include <nlohmann/json.hpp>
#include <vector>

namespace qs {

/// One methodology warning about a run: a way the comparison could mislead, with the numbers
/// that show it and what to do. Each comes from an episode of the user's notes (the seeds),
/// where a benchmark round was lost to exactly this (docs/guardrails.md).
struct Guardrail {
    /// Stable id for scripts and tests: "models_differ", "model_unknown", "reasoning_in_ttft",
    /// "estimated_tokens", "few_runs", "cold_start", "thinking_differs", "runtimes_differ",
    /// "tools_without_parser", "truncated_answers", "token_count_mismatch", "prefix_cache",
    /// "simulated_endpoints", "settings_differ", "concurrency_differs", "failures", "malformed_streams",
    /// "parallel_same_host", and from the servers' own metrics "server_token_mismatch",
    /// "server_queueing", "server_preemptions", "kv_cache_near_full", "memory_grew",
    /// "server_restarted", "telemetry_gaps", and about an LLM judge "judge_is_an_arm",
    /// "judge_low_consistency", "judge_position_bias", "judge_too_few_pairs",
    /// "judge_failures_uneven", "judge_verbosity", and about the fidelity comparison
    /// "fidelity_reference_other_model", "fidelity_prompt_mismatch", "fidelity_no_logprobs",
    /// "fidelity_not_greedy", "fidelity_speculative_decoding", "fidelity_tokenizers_differ".
    QString id;
    enum class Severity {
        Info, ///< worth knowing; the numbers are still what they claim to be
        Warning, ///< a number or a comparison may mislead unless read with this in mind
        Critical, ///< the comparison does not measure what it claims (e.g. different models)
    } severity
        = Severity::Warning;
    QString title; ///< one line
    QString evidence; ///< the specific numbers, ids and labels that triggered it
    QString advice; ///< what to do about it
    std::vector<int> endpoints; ///< indexes into RunResult::endpoints, ascending
    QStringList tests; ///< test ids involved (may be empty)
};

QString severityId(Guardrail::Severity severity); ///< "info", "warning", "critical"

/// Checks a run (live or loaded from a results file) for every methodology flaw the seeds
/// describe. Pure: no I/O, no clock. Conservative by design: a clean, fair comparison (same
/// model modulo quantization, same runtime and settings, warm-ups, ≥ 5 runs, server token
/// counts, no thinking) yields nothing; only "simulated_endpoints" (Info) fires whenever a
/// simulated endpoint took part. Sorted by severity (critical first), then in check order.
std::vector<Guardrail> checkGuardrails(const RunResult& result);

/// {"id","severity","title","evidence","advice","endpoints":[…],"tests":[…]}
nlohmann::json toJson(const Guardrail& guardrail);
nlohmann::json toJson(const std::vector<Guardrail>& guardrails);

/// What a model name says about the weights, with the quantization taken out: exposed for
/// tests and for the GUI's endpoint editor. E.g. "Jackrong/Qwen3.5-9B-Claude-Opus-Distilled-
/// Q4_K_M.gguf" → family {qwen3.5}, sizes {9b}, variants {distilled: claude, opus, distilled}.
struct ModelIdentity {
    QStringList tokens; ///< every remaining token, in order (quantization and noise removed)
    QStringList families; ///< e.g. "qwen3.5", "llama3.1"
    QStringList sizes; ///< e.g. "9b", "30b", "a3b"
    /// Fine-tune / variant group → the tokens that showed it, e.g. "distilled" → "opus, distilled".
    std::vector<std::pair<QString, QStringList>> variants;
    QStringList other; ///< tokens that are none of the above (versions, dates, custom words)
    bool informative() const { return !families.isEmpty() || !sizes.isEmpty(); }
};

/// Normalises one or more names of the same model (model id, alias, model_path, /v1/models
/// root): lower-cased, org prefix, directories and file extensions stripped, quantization tokens
/// (q4_k_m, q8_0, nvfp4, fp8, awq, gptq, int4, w4a16, bf16, mlx, "quantized", …) removed.
ModelIdentity modelIdentity(const QStringList& names);

} // namespace qs
