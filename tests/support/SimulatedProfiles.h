// SPDX-License-Identifier: MIT
#pragma once

// The built-in simulated endpoints: emulator configs shaped like the user's measurements of
// Qwen3.5-9B Opus-Distilled on a DGX Spark (../shared/seeds/003_*, 004_*), as Q4_K_M on
// llama-server and as NVFP4 on vLLM. The CLI's `url=sim:NAME` and the GUI start them in-process
// so that Quantscope works with no inference server; wherever they appear they are labelled
// "simulated". The answers come from a tiny keyword model (SimulatedModel.h), not a real LLM.
//
// Prefill: TTFT = (base + linear·(n − c) + quadratic·(n² − c²)) · (1 ± jitter), where n is the
// emulator's prompt-token count (words + 4 per message) plus the tool schemas' estimate
// (SimulatedModel.h's toolPromptTokens) when tools are sent, and c the part of it the server's
// prefix cache held (docs/emulator.md, "Prefix cache"). The vLLM ones cache prefixes, as the
// servers do by default, and report it (`--enable-prompt-tokens-details`); q4km-like computes
// every prompt whole, as the seeds' llama-server did (their TTFT grew every turn). q4km-like:
// base 40 ms, linear 0.12 ms/token, quadratic 0.00001 ms/token²: ~350 ms for the voice-assistant
// suite's ~2.2K-token requests (the system prompt carries the briefing; the seeds saw ~300 ms for
// a greeting), growing with each turn, ~12.6 s at the context sweep's 30K tokens. nvfp4-like: base
// 85 ms, linear 0.05 ms/token (DeltaNet's linear attention) on the uncached part: ~90 ms warm,
// ~1.6 s for 30K cold. Decode: q4km-like 38 tok/s ± 6 %,
// nvfp4-like 20 tok/s ± 12 %.
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
