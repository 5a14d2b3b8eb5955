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
#include <memory>
#include <vector>

namespace qs {

class StreamThreads;

/// Sends one streamed POST /v1/chat/completions and measures it. Reuses its connection for the
/// next request to the same server, so warm-up requests also warm the TCP connection.
///
/// Threading: lives in the thread that created it (a runner thread, or the CLI's main thread);
/// all callbacks and signals come from that thread. The GUI thread must never host one.
///
/// Threaded (the second constructor): the socket, its stamps, the parsing and the decoding run on
/// one of `threads` instead, in a plain client of its own; this object stays a facade in the
/// creating thread, where onChunk and finished() still come, in order, through the threads'
/// queue (StreamThreads.h says when and why). The measurements are the same: the stamps are
/// still taken as each read returns, in the thread that reads.
class StreamingClient : public QObject {
    Q_OBJECT
public:
    explicit StreamingClient(QObject* parent = nullptr);
    StreamingClient(std::shared_ptr<StreamThreads> threads, QObject* parent = nullptr);
    ~StreamingClient() override;

    /// Starts a request. Emits finished() exactly once, also on failure. Must not be busy().
    void start(const Endpoint& endpoint, const ChatRequest& request);
    /// Stops the request in flight; finished() follows with FailureKind::Cancelled and
    /// everything received so far, before cancel() returns (threaded too: it waits for the
    /// stream's thread, then hands over what it has).
    void cancel();
    bool busy() const { return m_remote ? m_remoteBusy : m_connection->busy(); }

    /// Live view of each decoded chunk as it arrives (for a GUI), with the read stamp. Runs on
    /// the hot path: keep it cheap. Set it before the first start().
    std::function<void(const StreamChunk& chunk, qint64 stampNs)> onChunk;

    /// The request in flight, or the last one (threaded: the last one finished).
    const RequestRecord& record() const { return m_record; }

Q_SIGNALS:
    void finished(const qs::RequestRecord& record);

private:
    void onHeaders();
    void onBody(QByteArrayView body, qint64 stampNs);
    void onExchangeFinished();
    void finishNonStreaming();

    HttpConnection* m_connection = nullptr; ///< null when threaded
    // Threaded: the plain client in one of m_threads doing the work, and what this side knows.
    std::shared_ptr<StreamThreads> m_threads;
    StreamingClient* m_remote = nullptr;
    std::shared_ptr<bool> m_alive; ///< false once this facade is gone: what is still queued is dropped
    bool m_remoteBusy = false;
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
