// SPDX-License-Identifier: MIT
#pragma once

#include "model/core/ChatRequest.h"
#include "model/core/Endpoint.h"
#include "model/core/RequestRecord.h"
#include "model/wire/HttpConnection.h"
#include "model/wire/SseParser.h"
#include "model/wire/StreamAssembler.h"

#include <QObject>
#include <functional>
#include <vector>

namespace qs {

/// Sends one streamed POST /v1/chat/completions and measures it. Reuses its connection for the
/// next request to the same server, so warm-up requests also warm the TCP connection.
///
/// Threading: lives in the thread that created it (a runner thread, or the CLI's main thread);
/// all callbacks and signals come from that thread. The GUI thread must never host one.
class StreamingClient : public QObject {
    Q_OBJECT
public:
    explicit StreamingClient(QObject* parent = nullptr);

    /// Starts a request. Emits finished() exactly once, also on failure. Must not be busy().
    void start(const Endpoint& endpoint, const ChatRequest& request);
    /// Stops the request in flight; finished() follows with FailureKind::Cancelled and
    /// everything received so far.
    void cancel();
    bool busy() const { return m_connection->busy(); }

    /// Live view of each decoded chunk as it arrives (for a GUI), with the read stamp. Runs on
    /// the hot path: keep it cheap.
    std::function<void(const StreamChunk& chunk, qint64 stampNs)> onChunk;

    const RequestRecord& record() const { return m_record; }

Q_SIGNALS:
    void finished(const qs::RequestRecord& record);

private:
    void onHeaders();
    void onBody(QByteArrayView body, qint64 stampNs);
    void onExchangeFinished();
    void finishNonStreaming();

    HttpConnection* m_connection;
    Endpoint m_endpoint;
    FailureContext m_context;
    SseParser m_parser;
    StreamAssembler m_assembler;
    std::vector<SseEvent> m_events;
    QByteArray m_errorBody; ///< a non-2xx or non-SSE body, collected whole
    RequestRecord m_record;
    bool m_isEventStream = false;
    int m_eventBudget = 0; ///< data events past which the stream is runaway; 0 = no max_tokens
};

/// Runs one request to completion on the calling thread (spins a local event loop). For the
/// headless CLI and tests only — never call it on the GUI thread.
RequestRecord runChatBlocking(const Endpoint& endpoint, const ChatRequest& request);

} // namespace qs
