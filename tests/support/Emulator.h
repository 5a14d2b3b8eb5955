// SPDX-License-Identifier: MIT
#pragma once

// Loopback emulator of llama-server, vLLM and SGLang's OpenAI-compatible HTTP API.
// A real HTTP/1.1 server (QTcpServer) that streams the exact bytes each server emits, era by
// era (see ../shared/reference/server-stream-formats.md), with scripted timing, output and
// faults. Used by the tests, the benchmark target, and the app's simulated endpoints.

#include "tests/support/ServerThread.h"

#include <QHostAddress>
#include <QJsonObject>
#include <QObject>
#include <QString>
#include <QStringList>
#include <QUrl>
#include <functional>
#include <limits>
#include <memory>
#include <mutex>
#include <vector>

class QTcpServer;

namespace qs::emu {

enum class Dialect { LlamaServer, Vllm, Sglang };

/// Which generation of a server's stream format to emit.
enum class Era {
    /// llama-server: headers + `:` pings during prefill (>= b9478). vLLM: `reasoning` only
    /// (>= 0.16). SGLang: msgspec path, nulls omitted.
    Current,
    /// vLLM 0.11.1-0.15.x only: both `reasoning` and `reasoning_content`, `"reasoning_content":null`
    /// on every other delta. (Same as Current for the other dialects.)
    Transitional,
    /// llama-server: headers only after the first token, no pings. vLLM <= 0.11.0:
    /// `reasoning_content` only and flat error bodies. SGLang: pydantic path, explicit nulls and
    /// `"usage":null`.
    Legacy,
};

struct ToolCallSpec {
    QString name;
    QString argumentsJson; ///< the complete arguments text, e.g. {"query": "Paris weather"}
    int fragments = 3; ///< the arguments are streamed in this many pieces
};

/// Where the model's thinking goes.
enum class ReasoningMode {
    Parsed, ///< in the reasoning field of the dialect (server has a reasoning parser)
    LeakedWithTags, ///< in `content` as "<think>…</think>" (no parser / reasoning-format none)
    LeakedBareClose, ///< in `content`, then a bare "</think>" with no opening tag (Qwen3.5 template)
};

enum class Fault {
    None,
    HttpError, ///< answer with `httpError`'s status and the dialect's exact error body
    DisconnectMidStream, ///< close the connection after `faultAfterTokens` tokens (no [DONE])
    Stall, ///< after `faultAfterTokens` tokens send nothing for `stallMs`, then go on
    MalformedChunk, ///< after `faultAfterTokens` tokens send one `data:` payload that is not JSON
    NoUsageChunk, ///< never send the usage chunk, even when asked for
    ErrorInStream, ///< after `faultAfterTokens` tokens send the dialect's in-stream error object
                   ///< (then [DONE] for vLLM and SGLang, nothing for llama-server)
};

enum class HttpErrorKind {
    ContextExceeded,
    ModelNotFound,
    ToolsNotEnabled,
    Unauthorized,
    ServerError,
    Loading,
    BadRequest
};

/// One entry of a position's distribution.
struct LogprobCandidate {
    QString token;
    double logprob = 0; ///< natural log; -infinity for an impossible token (p = 0)
    qint64 id = -1; ///< llama-server's token id; -1: derived from the text (tokenIdFor)
};

/// The distribution at one generated token.
struct PositionScript {
    double logprob = 0; ///< the chosen (streamed) token's logprob
    qint64 id = -1; ///< the chosen token's id; -1: derived from its text
    /// The other listed tokens, in any order (the writers sort them as each server does). May
    /// list the chosen token too (matched by id, else by text); otherwise it is added at
    /// `logprob`. A complete distribution (the probabilities sum to 1) makes KL exact.
    std::vector<LogprobCandidate> top;
};

/// What the server would report about its own choices (docs/emulator.md, "Logprobs"). Position
/// i belongs to the i-th token of Script::reasoning followed by Script::content; tokens without
/// a position (markup, tool-call fragments, or past the end) get a synthesized distribution.
/// Only written when the request asks for logprobs.
struct LogprobScript {
    std::vector<PositionScript> positions;
};

/// What one request does. Each listed token is one chunk on the wire.
struct Script {
    QStringList reasoning; ///< reasoning tokens, streamed first
    QStringList content; ///< content tokens, streamed after reasoning
    std::vector<ToolCallSpec> toolCalls; ///< streamed after content, as tool-call deltas
    ReasoningMode reasoningMode = ReasoningMode::Parsed;

    double ttftMs = 50; ///< request fully received -> first token written
    /// Added to ttftMs per prompt token the server has to compute: the prompt less the tokens
    /// found in its prefix cache (RequestInfo::cachedTokens), so prefill grows with new context.
    double ttftPerPromptTokenMs = 0;
    double tokensPerSecond = 50; ///< decode rate: one token every 1000/tokensPerSecond ms
    bool includeTimings = true; ///< llama-server: `timings` on the last chunk

    LogprobScript logprobs; ///< empty: synthesized (deterministic) when logprobs are asked for

    Fault fault = Fault::None;
    int faultAfterTokens = 0;
    int stallMs = 0;
    HttpErrorKind httpError = HttpErrorKind::ServerError;
};

/// What the emulator understood of a request (given to ServerConfig::scriptFor).
struct RequestInfo {
    QByteArray method;
    QByteArray path;
    QJsonObject body;
    int promptTokens = 0; ///< the emulator's own count: words in all messages + 4 per message
    /// Of promptTokens, those the server's prefix cache already held (docs/emulator.md, "Prefix
    /// cache"): known before scriptFor runs, reported in each dialect's way.
    int cachedTokens = 0;
    bool stream = false;
    bool includeUsage = false;
    bool hasTools = false;
};

/// Monotonic stamps (qs::monotonicNs) of what the emulator did for one chat request, so a
/// benchmark can compare the client's measurements with the truth.
struct ServedRequest {
    quint64 serial = 0; ///< order of arrival from 1 (ServerConfig::numberTokens writes it)
    QByteArray completionId; ///< the `id` its chunks carry: matches a client's record to this one
    RequestInfo request;
    int httpStatus = 0;
    qint64 receivedNs = 0; ///< last byte of the request read
    qint64 headersSentNs = 0; ///< response status line + headers written
    std::vector<qint64> tokenWriteNs; ///< each token-bearing event written to the socket
    qint64 firstVisibleWriteNs = 0; ///< first content or tool-call event written (0 if none)
    qint64 endNs = 0; ///< response finished or connection closed
    int completionTokens = 0; ///< what the emulator reported in usage
};

/// How an impossible logprob (p = 0, −∞) goes on the wire.
enum class LogprobSentinel {
    /// Each server's own way: llama-server float's lowest (-3.4028234663852886e+38), vLLM its
    /// -9999.0 clamp, SGLang `null` in streams and a 500 for a non-streamed body (Python's
    /// json cannot encode -inf).
    Native,
    Null, ///< `null` everywhere
    BareInfinity, ///< the bare literal `-Infinity` (Python json.dumps with allow_nan)
};

struct ServerConfig {
    Dialect dialect = Dialect::LlamaServer;
    Era era = Era::Current;
    QString modelId = QStringLiteral("qwen3.5-9b-q4_k_m");
    int contextSize = 32768;
    /// vLLM: false answers a request with tools (tool_choice auto) with the exact 400 about
    /// --enable-auto-tool-choice/--tool-call-parser. SGLang: false puts tool-call markup in content.
    bool toolParser = true;
    QString apiKey; ///< non-empty: require `Authorization: Bearer <apiKey>`
    double pingIntervalMs = 1000; ///< llama-server Current era: `:` ping during silent gaps
    QString version = QStringLiteral("emulated"); ///< build_info / vLLM version / SGLang version
    /// GET /metrics (docs/emulator.md, "/metrics"). llama-server: `--metrics` (false: its 501).
    /// SGLang: `--enable-metrics` (false: 404). vLLM always serves the page; false is
    /// `--disable-log-stats` (no `vllm:` series). On by default here, unlike the real servers'
    /// defaults, because the telemetry tests and the simulated endpoints want it.
    bool metricsEnabled = true;
    /// How many served requests servedRequests() keeps (the oldest dropped first; a request
    /// still streaming when dropped is simply no longer recorded). Tests keep all of them; the
    /// app's simulated endpoints keep a few, so an hours-long run does not grow the log.
    std::size_t servedLogLimit = std::numeric_limits<std::size_t>::max();
    /// Content token k of the request with serial s is written as "r<s>t<k> " instead of the
    /// script's text, so a benchmark can tell that each event reached the request (and the
    /// place) it belongs to: a misattributed event shows in the text itself.
    bool numberTokens = false;
    /// `GET /emulator/served` answers servedRequests() as JSON (serial, id, status and every
    /// monotonic write stamp), for a benchmark in another process (bench_runner --emulator).
    bool servedLogRoute = false;

    // ---- logprobs (docs/emulator.md, "Logprobs") ------------------------------------------
    /// vLLM `--max-logprobs`: a larger `top_logprobs` is a 400; -1 means the vocabulary.
    int maxLogprobs = 20;
    /// The server ignores `logprobs`/`top_logprobs` (an old build, a proxy): no 400s, and the
    /// answer is exactly the one without logprobs.
    bool ignoresLogprobs = false;
    LogprobSentinel logprobSentinel = LogprobSentinel::Native;
    /// Every top list is filled up to the N asked for with impossible tokens (p = 0), as a
    /// server does when the rest of its vocabulary underflows.
    bool fillTopWithImpossible = false;
    /// Several tokens' text and logprob entries in one chunk (SGLang `--stream-interval`,
    /// speculative steps); 1: a chunk per token.
    int tokensPerChunk = 1;
    /// Each text token goes out in two chunks, its logprobs on the second (llama-server puts
    /// a token's entries on the last chunk emitted for it).
    bool splitTokenChunks = false;

    // ---- prefix cache (docs/emulator.md, "Prefix cache") ----------------------------------
    /// Reuse the longest prompt prefix the server already computed, as all three do by default:
    /// llama-server's prompt cache (`"cache_prompt": false` in a request opts out), vLLM's
    /// automatic prefix caching (false: `--no-enable-prefix-caching`), SGLang's radix cache
    /// (false: `--disable-radix-cache`). false: nothing is looked up or stored.
    bool prefixCaching = true;
    /// `usage.prompt_tokens_details.cached_tokens`: vLLM `--enable-prompt-tokens-details`, SGLang
    /// `--enable-cache-report`, both off by default. llama-server ignores it: its builds report
    /// `timings.cache_n` only.
    bool reportCachedTokens = false;
    /// The cache's bounds: at most this many sequences (prompts and their answers), of at most
    /// this many tokens in all; the least recently used go first.
    int prefixCacheSequences = 64;
    int prefixCacheTokens = 262144;

    /// Chooses the script per request. When unset, `script` is used for every request.
    std::function<Script(const RequestInfo&)> scriptFor;
    Script script;
};

/// How busy a server is now, for a simulated exporter whose power and memory follow the load.
struct EmulatorLoad {
    int running = 0; ///< chat requests between their checks and their end
    double kvTokens = 0; ///< prompt + generated tokens of those requests
    double tokensPerSecond = 0; ///< tokens written over the last second
    double generatedTokens = 0; ///< since start
    double promptTokens = 0; ///< since start, counted at each first token
};

/// What a server's prefix cache holds now.
struct PrefixCacheStats {
    std::size_t sequences = 0;
    std::size_t tokens = 0;
};

/// The HTTP server. Lives in the thread that created it (or the one it was moved to); all
/// accessors below are thread-safe.
class EmulatorServer : public QObject {
    Q_OBJECT
public:
    explicit EmulatorServer(ServerConfig config, QObject* parent = nullptr);
    ~EmulatorServer() override;

    /// Listens on 127.0.0.1 by default; port 0 picks a free port.
    bool listen(const QHostAddress& address = QHostAddress::LocalHost, quint16 port = 0);
    quint16 port() const;
    QUrl baseUrl() const; ///< http://127.0.0.1:PORT (no /v1)

    void setConfig(ServerConfig config);
    ServerConfig config() const;
    std::vector<ServedRequest> servedRequests() const;
    EmulatorLoad load() const;
    void clearServedRequests();
    PrefixCacheStats prefixCache() const;
    /// Empties the prefix cache, as a restarted server has it (setConfig keeps it).
    void clearPrefixCache();

private:
    struct Impl;
    std::unique_ptr<Impl> d;
};

/// Runs an EmulatorServer on a thread of its own, so a client under test never shares an event
/// loop with the server it measures. Blocks in start() until listening.
class EmulatorThread {
public:
    EmulatorThread();
    ~EmulatorThread(); ///< stops the server and joins the thread
    bool start(ServerConfig config, quint16 port = 0);
    EmulatorServer* server() const; ///< use only its thread-safe accessors
    QUrl baseUrl() const;

private:
    ServerThread<EmulatorServer> m_run;
};

/// Convenience: a ready-made script of `n` short content tokens ("w0 ", "w1 ", …).
Script simpleScript(int contentTokens, double ttftMs, double tokensPerSecond);

/// The token id the emulator reports (llama-server's `id`) for a token text without a scripted
/// id: a stable hash of the text into a 151,936-token vocabulary, so equal texts get equal ids
/// on every emulated server.
qint64 tokenIdFor(const QString& text);

} // namespace qs::emu
