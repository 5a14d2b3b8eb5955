// SPDX-License-Identifier: MIT
#pragma once

#include <QString>
#include <QStringList>
#include <QtGlobal>
#include <optional>

namespace qs {

// The measurements of one request, as values. The formulas that fill them are in
// model/wire/RequestMetrics.h (computeMetrics) and docs/methodology.md.

/// Raw monotonic stamps of one request (qs::monotonicNs, ns); 0 = did not happen.
struct RequestTiming {
    qint64 startNs = 0; ///< the client began (before any connection work)
    qint64 connectedNs = 0; ///< TCP (+TLS) connection ready; == startNs when a connection was reused
    qint64 t0Ns = 0; ///< just before the request bytes were written to the socket
    qint64 firstByteNs = 0; ///< first response byte read
    qint64 headersNs = 0; ///< response headers complete
    qint64 endNs = 0; ///< response complete, connection closed, or failure
    bool connectionReused = false;
    /// How the response's reads were stamped (methodology §1): with the moment the kernel received
    /// their bytes (plain HTTP on Linux), or with the moment they were read (TLS, other systems, a
    /// kernel stamp refused as implausible), which a busy client makes late. Both 0 when not
    /// counted (files written before, simulated endpoints).
    int arrivalStampedReads = 0;
    int readTimeStampedReads = 0;
};

/// Where a token count came from. Anything but ServerUsage/ServerTimings is an estimate and is
/// shown as one everywhere.
enum class CountSource {
    None, ///< unknown
    ServerUsage, ///< the server's `usage` object
    ServerTimings, ///< llama-server's `timings` (predicted_n, prompt_n + cache_n, cache_n)
    Estimate, ///< counted from stream events (one token-bearing event ≈ one token): an estimate
};
QString countSourceId(CountSource source); ///< "usage", "server_timings", "estimate", "none"

struct TokenCount {
    std::optional<qint64> value;
    CountSource source = CountSource::None;
    bool isEstimate() const { return source == CountSource::Estimate; }
};

/// The per-request measurements. Formulas: docs/methodology.md. All times are ms from t0.
struct RequestMetrics {
    std::optional<double> connectMs; ///< connectedNs − startNs (0 on a reused connection)
    std::optional<double> ttfbMs; ///< response headers complete − t0
    std::optional<double> ttftAnyMs; ///< first event carrying reasoning, content or a tool call − t0
    std::optional<double> ttftVisibleMs; ///< first event carrying visible content or a tool call − t0
    std::optional<double> reasoningMs; ///< ttftVisibleMs − ttftAnyMs
    std::optional<double> firstSentenceMs; ///< visible text first contains a sentence end − t0
    std::optional<double> e2eMs; ///< last token-bearing event − t0
    std::optional<double> streamEndMs; ///< [DONE] or end of response − t0 (diagnostic)
    std::optional<double> decodeTps; ///< (completion_tokens − 1) / (e2e − ttft_any)
    std::optional<double> gapP50Ms; ///< inter-chunk gap between token-bearing events, median
    std::optional<double> gapP99Ms; ///< … 99th percentile
    std::optional<double> gapMaxMs; ///< … longest (a stall)

    TokenCount promptTokens;
    TokenCount completionTokens;
    TokenCount reasoningTokens;
    TokenCount cachedPromptTokens;

    int tokenEvents = 0;
    /// The server left thinking inside `content` (`<think>…</think>` or a bare `</think>`).
    /// That text counts toward ttft_any, never toward ttft_visible.
    bool thinkingInContent = false;
    int visibleContentOffset = 0; ///< where the answer starts in `content` (after a leaked </think>)
    QStringList notes; ///< caveats a reader must see (estimates, missing usage…)
};

} // namespace qs
