// SPDX-License-Identifier: MIT
#pragma once

// One POST /v1/chat/completions: checks it as the emulated server would, then plays the
// script's steps at their deadlines through a ResponseSink and records what it did.
// Internal to qs_emulator.

#include "tests/support/DeadlineScheduler.h"
#include "tests/support/EmulatorDialect.h"
#include "tests/support/EmulatorState.h"
#include "tests/support/HttpRequestReader.h"
#include "tests/support/PrefixCache.h"
#include "tests/support/StreamPlan.h"

#include <functional>
#include <memory>
#include <vector>

namespace qs::emu::detail {

/// What a response needs from its connection.
class ResponseSink {
public:
    virtual ~ResponseSink() = default;
    /// Writes and flushes; returns qs::monotonicNs() taken right after.
    virtual qint64 send(const QByteArray& bytes) = 0;
    /// Status line and headers for the current request (`contentLength` -1: chunked).
    virtual QByteArray responseHead(const DialectWriter& writer, int status, const QByteArray& contentType,
        qint64 contentLength, bool stream)
        = 0;
    /// Hard close (RST when possible): a crashed server.
    virtual void hardClose() = 0;
    /// The response is complete; `close` ends the connection, otherwise the next request runs.
    virtual void responseDone(bool close) = 0;
};

class ChatResponder {
public:
    ChatResponder(ResponseSink& sink, DeadlineScheduler& scheduler, ServerState& state, ServerConfig config,
        const HttpRequest& request, bool authorized);
    ~ChatResponder();
    ChatResponder(const ChatResponder&) = delete;
    ChatResponder& operator=(const ChatResponder&) = delete;

    void start();
    /// The client went away (or the connection is being torn down): stamp the end, stop.
    void connectionLost();

private:
    using RecordEdit = std::function<void(ServedRequest&, qint64 stampNs)>;

    bool rejectEarly();
    /// Sets m_info.cachedTokens from the server's prefix cache (docs/emulator.md, "Prefix cache").
    void lookUpPrefix();
    /// The prefill is done: the prompt's tokens (and, with `answer`, the generated ones after
    /// them) are in the server's cache from now on.
    void storeInCache(bool answer);
    void prepareStream();
    void replyNow(const HttpReply& reply);
    void arm();
    void onDue(bool ping);
    void runStep(const Step& step);

    qint64 sendRecorded(const QByteArray& bytes, const RecordEdit& edit);
    qint64 writeChunks(const QList<QByteArray>& events, bool endBody, const RecordEdit& onLast = {});
    bool closesChunk(int index) const;
    QList<QByteArray> pendingEvents();
    void writeToken(int index);
    void writeFinish();
    void writeStreamError();
    void writeBody();
    void abortConnection();
    RecordEdit recordEnd() const;
    /// The /metrics side of the end of the request (once; no-op before requestStarted).
    void closeMetrics(const QString& finishedReason);

    FinishInfo finishInfo() const;
    ErrorContext errorContext() const;
    bool pinging() const;

    ResponseSink& m_sink;
    DeadlineScheduler& m_scheduler;
    ServerState& m_state;
    ServerConfig m_config;
    std::unique_ptr<DialectWriter> m_writer;
    HttpRequest m_request;
    bool m_authorized = true;

    RequestInfo m_info;
    TokenIds m_promptIds; ///< the prompt as the prefix cache sees it (empty: caching off)
    bool m_promptStored = false;
    LogprobAsk m_logprobs;
    Script m_script;
    ChatContext m_ctx;
    TokenPlan m_plan;
    std::vector<TokenEvent> m_pending; ///< tokens waiting for their chunk (tokensPerChunk > 1)
    std::vector<Step> m_steps;
    std::size_t m_nextStep = 0;
    quint64 m_serial = 0;
    DeadlineScheduler::Ticket m_ticket = 0;

    qint64 m_receivedNs = 0;
    qint64 m_lastWriteNs = 0;
    qint64 m_firstTokenNs = 0;
    bool m_headersSent = false;
    bool m_roleSent = false;
    bool m_done = false;
    int m_tokensWritten = 0;
    int m_reasoningWritten = 0;
    qint64 m_previousTokenNs = 0;
    bool m_metricsOpen = false;
};

} // namespace qs::emu::detail
