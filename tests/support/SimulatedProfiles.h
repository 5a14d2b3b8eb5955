// SPDX-License-Identifier: MIT
#pragma once

// The built-in simulated endpoints: emulator configs shaped like the user's measurements of
// Qwen3.5-9B Opus-Distilled on a DGX Spark (../shared/seeds/003_*, 004_*), as Q4_K_M on
// llama-server and as NVFP4 on vLLM. The CLI's `url=sim:NAME` and the GUI start them in-process
// so that Quantscope works with no inference server; wherever they appear they are labelled
// "simulated". The answers come from a tiny keyword model (SimulatedModel.h), not a real LLM.
//
// Prefill: TTFT = (base + linear·n + quadratic·n²) · (1 ± jitter), where n is the emulator's
// prompt-token count (words + 4 per message) plus chars/7 + 10 for the tool schemas when tools
// are sent. q4km-like: base 145 ms, quadratic 0.0172 ms/token² (full attention), fitted so that
// a ~95-token first turn (a system prompt of ~80 words and a short question) takes ~300 ms and
// the fifth turn of a voice conversation (~270 tokens with 20-40-word replies) ~1.4 s, as in the
// seeds (297 → 1378 ms); a single question with three tool schemas lands near their ~760 ms.
// nvfp4-like: base 85 ms, linear 0.05 ms/token (DeltaNet's linear attention): ~90 ms, ~100 ms
// at 300 tokens. Decode: q4km-like 38 tok/s ± 6 %, nvfp4-like 20 tok/s ± 12 %.
//
// Two more replay the seeds' other situations for the decision profiles (docs/decision-profiles.md):
// nvfp4-base-like is the base Qwen3.5-9B in NVFP4 with thinking off (v3: garbled answers, no tool
// calls; its model id says "base", so the models_differ guardrail sees the other fine-tune), and
// nvfp4-fixed-like is the baseline's fine-tune in NVFP4 on a correctly configured vLLM (parsers on,
// CUDA graphs): clean answers, ~90 ms TTFT, ~40 tok/s — the fair comparison that passes.
// bf16-like is that fine-tune unquantized (~14 tok/s), the natural fidelity reference.
//
// Logprobs (fidelity requests, those asking for them): every profile reports the same base
// distribution per (prompt, position), perturbed by its own noise (bf16-like none, q4km-like a
// little, the NVFP4 ones more); where the noise makes another token win, that profile's answer
// takes it (SimulatedLogprobs.h). Such a request is answered from the prompt alone, not the seed
// or the request count, so two endpoints of one profile give identical answers and logprobs.

#include "tests/support/Emulator.h"

#include <QString>
#include <QStringList>
#include <optional>

namespace qs::emu {

/// Names of the built-in simulated endpoint profiles: "nvfp4-like", "q4km-like", "nvfp4-base-like",
/// "nvfp4-fixed-like", "bf16-like".
QStringList simulatedProfileNames();

/// "judge": the simulated judge (SPEC `sim:judge`, EmulatorJudge.h's Heuristic mode), so judging
/// can be tried without a server. It prefers the short, plain answer without leaked thinking and
/// scores rubric criteria from the same text features; deterministic. Not in
/// simulatedProfileNames() (it is not an endpoint to measure), but simulatedProfile() and
/// simulatedProfileDescription() know it.
QString simulatedJudgeName();

/// A ready ServerConfig (dialect, model id, scriptFor) for a profile, or nullopt for an
/// unknown name. Deterministic: the same seed and the same sequence of requests give the same
/// answers, leaks and timings (the jitter is drawn from the seed too).
std::optional<ServerConfig> simulatedProfile(const QString& name, quint64 seed = 1);

/// One line for a user: what the profile imitates (shown by the CLI and GUI, always saying
/// "simulated"). Empty for an unknown name.
QString simulatedProfileDescription(const QString& name);

} // namespace qs::emu
