// SPDX-License-Identifier: MIT
#pragma once

// What an emulated server counts for its /metrics page: the tokens it streamed, the requests in
// flight and the per-request times, recorded by ChatResponder as it writes, read by the
// connection that answers GET /metrics. Thread-safe (one mutex). The page text itself is
// MetricsPage. Internal to qs_emulator.

#include "tests/support/Emulator.h"

#include <QByteArray>
#include <QString>
#include <deque>
#include <map>
#include <mutex>
#include <vector>

namespace qs::emu::detail {

/// A Prometheus histogram: per-bucket counts (not cumulative), the last one +Inf.
struct HistogramCounts {
    std::vector<double> bounds; ///< finite upper bounds, ascending
    std::vector<double> counts; ///< bounds.size() + 1
    double sum = 0;
    double count = 0;
    explicit HistogramCounts(std::vector<double> upperBounds = {});
    void observe(double value, double times = 1);
};

/// Everything a page shows, copied under the lock.
struct MetricsSnapshot {
    double processStartUnix = 0; ///< when the server started (llama-server's header, _created)
    double nowUnix = 0;
    int running = 0;
    int waiting = 0;
    double kvTokens = 0; ///< prompt + generated tokens of the requests in flight
    double kvCapacityTokens = 0; ///< the KV pool (set by the page: ServerConfig::contextSize)
    // Counters, each as the server itself would advance it (see ServerMetrics' hooks).
    double promptTokensAtPrefill = 0; ///< llama-server, vLLM: added at the first token (whole prompts)
    double cachedTokensAtPrefill = 0; ///< llama-server, vLLM: of those, reused from the prefix cache
    double prefixCacheQueries = 0; ///< vLLM: prompt tokens looked up in the cache, at scheduling
    double prefixCacheHits = 0; ///< vLLM: of those, found
    double generatedLive = 0; ///< vLLM: every token as it is written
    double generatedAtEnd = 0; ///< llama-server, SGLang: at request end
    double promptTokensAtEnd = 0; ///< SGLang
    double cachedTokensAtEnd = 0; ///< SGLang
    double promptSeconds = 0; ///< llama-server: summed prefill
    double predictedSeconds = 0; ///< llama-server: summed first token → end
    double decodeCalls = 0; ///< llama-server n_decode_total
    double busySlotsSum = 0; ///< running requests summed over decode calls
    double finishedRequests = 0;
    std::map<QString, double> finishedByReason; ///< vLLM finished_reason → count
    // llama-server's throughput gauges: over the window since the previous scrape.
    double windowPromptTokens = 0;
    double windowPromptSeconds = 0;
    double windowPredictedTokens = 0;
    double windowPredictedSeconds = 0;
    double recentTokensPerSecond = 0; ///< tokens written in the last second
    HistogramCounts ttft, itl, e2e, queue, prefill, decode;
    HistogramCounts sglangTtft, sglangItl, sglangE2e, sglangQueue;
};

/// How one request ended, for the counters that move at the end.
struct RequestEnd {
    int promptTokens = 0;
    int cachedTokens = 0; ///< of promptTokens, from the prefix cache
    int generatedTokens = 0;
    double e2eSeconds = 0;
    double prefillSeconds = 0; ///< request read → first token (e2e when there was none)
    double decodeSeconds = 0; ///< first token → end
    QString finishedReason = QStringLiteral("stop"); ///< vLLM's label: stop, length, abort
};

class ServerMetrics {
public:
    ServerMetrics();

    /// A chat request passed the server's checks and starts (it holds a slot from now on).
    /// `cacheQueried`: the prefix cache was looked up, and `cachedTokens` were found.
    void requestStarted(int promptTokens, int cachedTokens, bool cacheQueried);
    /// The first token was written: the prefill is over (`cachedTokens` of the prompt were reused).
    void firstToken(int promptTokens, int cachedTokens, double ttftSeconds);
    /// `count` tokens were written `sinceLastSeconds` after the previous write of the request
    /// (negative: the first write, no inter-token time).
    void tokens(int count, double sinceLastSeconds);
    void requestEnded(const RequestEnd& end);

    /// A copy for a page. `resetWindow`: llama-server starts a new throughput window at every
    /// scrape (its metrics task carries metrics_reset_bucket).
    MetricsSnapshot snapshot(bool resetWindow);
    EmulatorLoad load() const;

private:
    void pruneRecent(qint64 nowNs) const;

    mutable std::mutex m_mutex;
    MetricsSnapshot m_data;
    mutable std::deque<qint64> m_recentTokenNs; ///< write stamps of the last second
};

} // namespace qs::emu::detail
