// SPDX-License-Identifier: MIT
#include "model/evaluate/MetricText.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace qs {

QString metricNumber(double value, Metric metric)
{
    int decimals = 1;
    if (metricUnit(metric) == u"ms")
        decimals = std::fabs(value) >= 100 ? 0 : 1;
    else if (metricUnit(metric) == u"tokens")
        decimals = value == std::round(value) ? 0 : 1;
    return QString::number(value, 'f', decimals);
}

const MetricWords& metricWords(Metric metric)
{
    static const std::vector<MetricWords> words {
        {Metric::TtftAny, QStringLiteral("TTFT (any token)"), QStringLiteral("Time to first token per test"),
            QStringLiteral("TTFT any, reasoning included, in ms (lower is better)"),
            QStringLiteral("ttft_any_ms = t(first token-bearing event) − t0\nTime to the first token of any "
                           "kind, reasoning included; role-only and empty chunks never count."),
            QStringLiteral("ttft_any_ms: time from sending the request to the first token of any kind, "
                           "reasoning included. Role-only and empty chunks never count."),
            QStringLiteral("TTFT (any token)"),
            QStringLiteral("prompt processing must get faster: a runtime or quantization with faster prefill "
                           "(the seeds' NVFP4 on Blackwell: ~90 ms), prefix caching of the system prompt, or "
                           "a shorter system prompt")},
        {Metric::TtftVisible, QStringLiteral("TTFT (visible)"),
            QStringLiteral("Time to first token per test"),
            QStringLiteral("TTFT visible in ms (lower is better)"),
            QStringLiteral(
                "ttft_visible_ms = t(first event with visible content or a tool-call fragment) − t0\nWhat a "
                "user waits for: whitespace-only content and leaked thinking are not visible."),
            QStringLiteral("ttft_visible_ms: time to the first event with visible content or a tool-call "
                           "fragment — what a user waits for. Leaked thinking is not visible."),
            QStringLiteral("TTFT (visible)"),
            QStringLiteral("prompt processing must get faster: a runtime or quantization with faster prefill "
                           "(the seeds' NVFP4 on Blackwell: ~90 ms), prefix caching of the system prompt, or "
                           "a shorter system prompt")},
        {Metric::FirstSentence, QStringLiteral("First sentence"),
            QStringLiteral("Time to first sentence per test"),
            QStringLiteral("first_sentence_ms in ms (lower is better)"),
            QStringLiteral("first_sentence_ms = t(event that completes the first sentence of the visible "
                           "answer) − t0\nWhen a voice assistant's TTS can start speaking."),
            QStringLiteral("first_sentence_ms: time to the event that completes the first sentence of the "
                           "visible answer — when a voice assistant can start speaking."),
            QStringLiteral("time to the first sentence"),
            QStringLiteral("prompt processing must get faster: a runtime or quantization with faster prefill "
                           "(the seeds' NVFP4 on Blackwell: ~90 ms), prefix caching of the system prompt, or "
                           "a shorter system prompt")},
        {Metric::E2e, QStringLiteral("End to end"), QStringLiteral("End-to-end latency per test"),
            QStringLiteral("e2e_ms in ms (lower is better)"),
            QStringLiteral("e2e_ms = t(last token-bearing event) − t0\nExcludes the trailing finish, usage "
                           "and [DONE] events."),
            QStringLiteral("e2e_ms: time to the last token-bearing event (trailing finish, usage and [DONE] "
                           "events excluded)."),
            QStringLiteral("total latency"),
            QStringLiteral("shorter answers (a concise fine-tune or system prompt) or faster decoding")},
        {Metric::DecodeTps, QStringLiteral("Decode rate"), QStringLiteral("Decode rate per test"),
            QStringLiteral("decode_tps in tok/s (higher is better)"),
            QStringLiteral(
                "decode_tps = (completion_tokens − 1) / ((e2e_ms − ttft_any_ms) / 1000)\nPer-request decode "
                "rate after the first token, reasoning tokens included. Needs completion_tokens ≥ 2."),
            QStringLiteral("decode_tps: (completion_tokens − 1) / (e2e − ttft_any), the per-request decode "
                           "rate after the first token, reasoning tokens included."),
            QStringLiteral("decode rate"),
            QStringLiteral("enable CUDA graphs (vLLM without --enforce-eager, once the GPU supports them), "
                           "speculative decoding (MTP: --speculative-config), or a smaller model")},
        {Metric::CompletionTokens, QStringLiteral("Completion tokens"),
            QStringLiteral("Answer length per test"), QStringLiteral("completion_tokens"),
            QStringLiteral("completion_tokens: the server's usage, else llama-server's timings, else the "
                           "number of token-bearing events (an estimate)."),
            QStringLiteral("completion_tokens: from the server's usage, else its timings, else estimated as "
                           "the number of token-bearing events (flagged)."),
            QStringLiteral("answer length"),
            QStringLiteral(
                "ask for short answers in the system prompt, or use a fine-tune trained to be concise")},
        {Metric::PromptTokens, QStringLiteral("Prompt tokens"), QStringLiteral("Prompt length per test"),
            QStringLiteral("prompt_tokens"),
            QStringLiteral("prompt_tokens: the server's usage, else llama-server's timings."),
            QStringLiteral("prompt_tokens: from the server's usage or timings."),
            QStringLiteral("prompt length"),
            QStringLiteral("change the setup that drives this number and run again")},
    };
    const auto it
        = std::find_if(words.begin(), words.end(), [&](const MetricWords& w) { return w.metric == metric; });
    return it == words.end() ? words.front() : *it; // every Metric has a row
}

} // namespace qs
