// SPDX-License-Identifier: MIT
#pragma once

#include "model/core/Measurement.h"
#include "model/core/Response.h"

#include <optional>

namespace qs {

// The scalar fields of a request's record as JSON and results files name them, each listed once
// for the writers (toJson in RequestRecord.cpp, store/ResultWriter) and the reader
// (store/RecordReader): a field added here is written and read back under the same name. The
// reader checks them in this order, so its first complaint about a record stays the same.

/// A measured time (or rate), stored with microsecond resolution.
struct MetricField {
    const char* key;
    std::optional<double> RequestMetrics::*member;
};
inline constexpr MetricField metricFields[] = {
    {"connect_ms", &RequestMetrics::connectMs},
    {"ttfb_ms", &RequestMetrics::ttfbMs},
    {"ttft_any_ms", &RequestMetrics::ttftAnyMs},
    {"ttft_visible_ms", &RequestMetrics::ttftVisibleMs},
    {"reasoning_ms", &RequestMetrics::reasoningMs},
    {"first_sentence_ms", &RequestMetrics::firstSentenceMs},
    {"e2e_ms", &RequestMetrics::e2eMs},
    {"stream_end_ms", &RequestMetrics::streamEndMs},
    {"decode_tps", &RequestMetrics::decodeTps},
    {"gap_p50_ms", &RequestMetrics::gapP50Ms},
    {"gap_p99_ms", &RequestMetrics::gapP99Ms},
    {"gap_max_ms", &RequestMetrics::gapMaxMs},
};

/// A count in the server's `usage` object.
struct UsageField {
    const char* key;
    std::optional<qint64> TokenUsage::*member;
};
inline constexpr UsageField usageFields[] = {
    {"prompt_tokens", &TokenUsage::promptTokens},
    {"completion_tokens", &TokenUsage::completionTokens},
    {"total_tokens", &TokenUsage::totalTokens},
    {"reasoning_tokens", &TokenUsage::reasoningTokens},
    {"cached_prompt_tokens", &TokenUsage::cachedPromptTokens},
};

/// A figure of llama-server's `timings`: a count or a number (exactly one member is set).
struct TimingField {
    const char* key;
    std::optional<qint64> ServerTimings::*count = nullptr;
    std::optional<double> ServerTimings::*number = nullptr;
    bool writtenWhenMissing = true; ///< speculative decoding's figures are left out when absent
};
inline constexpr TimingField timingFields[] = {
    {"cache_n", &ServerTimings::cacheN},
    {"prompt_n", &ServerTimings::promptN},
    {"prompt_ms", nullptr, &ServerTimings::promptMs},
    {"prompt_per_token_ms", nullptr, &ServerTimings::promptPerTokenMs},
    {"prompt_per_second", nullptr, &ServerTimings::promptPerSecond},
    {"predicted_n", &ServerTimings::predictedN},
    {"predicted_ms", nullptr, &ServerTimings::predictedMs},
    {"predicted_per_token_ms", nullptr, &ServerTimings::predictedPerTokenMs},
    {"predicted_per_second", nullptr, &ServerTimings::predictedPerSecond},
    {"draft_n", &ServerTimings::draftN, nullptr, false},
    {"draft_n_accepted", &ServerTimings::draftNAccepted, nullptr, false},
};

} // namespace qs
