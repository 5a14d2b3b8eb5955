// SPDX-License-Identifier: MIT
#include "tests/support/ChatResponder.h"

#include "model/core/Clock.h"
#include "tests/support/EmulatorJson.h"

#include <QJsonDocument>
#include <algorithm>

namespace qs::emu::detail {

namespace {

// Fault::MalformedChunk: a data line cut in the middle of its JSON.
const QByteArray kMalformedEvent = QByteArrayLiteral("data: {\"choices\":[{\"delta\":{\"content\":\"x\"\n\n");
const QByteArray kPing = QByteArrayLiteral(":\n\n");

} // namespace

ChatResponder::ChatResponder(ResponseSink& sink, DeadlineScheduler& scheduler, ServerState& state,
    ServerConfig config, const HttpRequest& request, bool authorized)
    : m_sink(sink)
    , m_scheduler(scheduler)
    , m_state(state)
    , m_config(std::move(config))
    , m_writer(DialectWriter::create(m_config.dialect, m_config.era))
    , m_request(request)
    , m_authorized(authorized)
{
}

ChatResponder::~ChatResponder()
{
    m_scheduler.cancel(m_ticket);
    closeMetrics(QStringLiteral("abort"));
}

void ChatResponder::start()
{
    m_receivedNs = m_request.completedNs;
    if (rejectEarly())
        return;
    prepareStream();
}

// Everything the server answers with a plain HTTP error before generating, in its order:
// API key middleware, body parsing, the script's own fault, then the server's checks.
bool ChatResponder::rejectEarly()
{
    QByteArray parserMessage;
    try {
        const auto parsed = nlohmann::json::parse(m_request.body.constBegin(), m_request.body.constEnd());
        Q_UNUSED(parsed);
    } catch (const nlohmann::json::exception& e) {
        parserMessage = QByteArray(e.what());
    }
    const QJsonObject body = QJsonDocument::fromJson(m_request.body).object();
    m_info = describeRequest(m_request.method, m_request.path, body, *m_writer);
    ServedRequest served;
    served.request = m_info;
    served.receivedNs = m_receivedNs;
    m_serial = m_state.addServed(std::move(served));

    if (!m_authorized) {
        replyNow(m_writer->unauthorized());
        return true;
    }
    if (!parserMessage.isEmpty()) {
        replyNow(m_writer->invalidJson(parserMessage));
        return true;
    }
    const QJsonValue messages = body.value(QLatin1String("messages"));
    if (!messages.isArray()) {
        replyNow(*m_writer->httpError(HttpErrorKind::BadRequest, errorContext()));
        return true;
    }
    if (!m_config.ignoresLogprobs) {
        if (const auto reply = m_writer->readLogprobs(m_info, m_config, m_logprobs)) {
            replyNow(*reply);
            return true;
        }
        m_logprobs.sentinel = m_config.logprobSentinel;
        m_logprobs.fillTopWithImpossible = m_config.fillTopWithImpossible;
    }
    lookUpPrefix();
    m_script = m_config.scriptFor ? m_config.scriptFor(m_info) : m_config.script;
    if (m_config.numberTokens)
        for (qsizetype k = 0; k < m_script.content.size(); ++k)
            m_script.content[k] = QStringLiteral("r%1t%2 ").arg(m_serial).arg(k);
    if (m_script.fault == Fault::HttpError) {
        if (const auto reply = m_writer->httpError(m_script.httpError, errorContext())) {
            replyNow(*reply);
            return true;
        }
        m_config.toolParser = false; // SGLang without a parser: no error, markup in content
    }
    if (const auto reply = m_writer->preflight(m_info, errorContext(), m_config)) {
        replyNow(*reply);
        return true;
    }
    return false;
}

void ChatResponder::lookUpPrefix()
{
    if (!m_config.prefixCaching)
        return;
    m_promptIds = promptTokenIds(m_info.body);
    if (!m_writer->reusesCache(m_info.body))
        return;
    const std::size_t shared = m_state.prefixCache().longestPrefix(m_promptIds);
    m_info.cachedTokens = m_writer->cachedTokens(shared, m_info.promptTokens);
    m_state.updateServed(
        m_serial, [cached = m_info.cachedTokens](ServedRequest& r) { r.request.cachedTokens = cached; });
}

// Stored whether or not this request could reuse the cache (llama-server's `cache_prompt: false`):
// the tokens it computed are in the KV cache all the same.
void ChatResponder::storeInCache(bool answer)
{
    if (m_promptIds.empty() || (m_promptStored && !answer))
        return;
    m_promptStored = true;
    const std::size_t sequences = std::size_t(std::max(m_config.prefixCacheSequences, 0));
    const std::size_t tokens = std::size_t(std::max(m_config.prefixCacheTokens, 0));
    m_state.prefixCache().insert(
        answer ? withAnswer(m_promptIds, m_plan.text.reasoning, m_plan.text.content) : m_promptIds, sequences,
        tokens);
}

void ChatResponder::prepareStream()
{
    m_ctx = m_writer->newChat(m_info, m_request, m_config);
    m_state.updateServed(m_serial, [id = m_ctx.completionId](ServedRequest& r) { r.completionId = id; });
    m_ctx.reasoningParsed = m_script.reasoningMode == ReasoningMode::Parsed && !m_script.reasoning.isEmpty();
    m_ctx.logprobs = m_logprobs;
    m_plan = planTokens(m_script, *m_writer, m_config, requestedMaxTokens(m_info.body));
    attachLogprobs(m_plan, m_script, m_ctx.logprobs);
    m_steps
        = planSteps(m_script, m_plan, m_info.promptTokens - m_info.cachedTokens, m_receivedNs, m_info.stream);
    m_lastWriteNs = m_receivedNs;
    m_state.metrics().requestStarted(m_info.promptTokens, m_info.cachedTokens,
        m_config.prefixCaching && m_writer->reusesCache(m_info.body));
    m_metricsOpen = true;
    if (m_info.stream && m_writer->headersAtReceipt()) {
        m_headersSent = true;
        sendRecorded(m_sink.responseHead(*m_writer, 200, m_writer->streamContentType(), -1, true),
            [](ServedRequest& r, qint64 stamp) {
                r.httpStatus = 200;
                r.headersSentNs = stamp;
            });
    }
    arm();
}

qint64 ChatResponder::sendRecorded(const QByteArray& bytes, const RecordEdit& edit)
{
    qint64 stamp = 0;
    m_state.withServed(m_serial, [&](ServedRequest* record) {
        stamp = m_sink.send(bytes);
        if (record && edit)
            edit(*record, stamp);
    });
    m_lastWriteNs = stamp;
    return stamp;
}

void ChatResponder::replyNow(const HttpReply& reply)
{
    const QByteArray bytes
        = m_sink.responseHead(*m_writer, reply.status, reply.contentType, reply.body.size(), false)
        + reply.body;
    const int status = reply.status;
    m_done = true;
    sendRecorded(bytes, [status](ServedRequest& r, qint64 stamp) {
        r.httpStatus = status;
        r.headersSentNs = stamp;
        r.endNs = stamp;
    });
    closeMetrics(QStringLiteral("abort"));
    m_sink.responseDone(!m_request.keepAlive());
}

bool ChatResponder::pinging() const
{
    return m_info.stream && m_headersSent && m_writer->pingsWhileSilent() && m_config.pingIntervalMs > 0;
}

// One scheduler entry at a time: the next step, or a ping if silence would last longer.
void ChatResponder::arm()
{
    if (m_done || m_nextStep >= m_steps.size())
        return;
    qint64 dueNs = m_steps[m_nextStep].dueNs;
    bool ping = false;
    if (pinging()) {
        const qint64 pingNs = m_lastWriteNs + qint64(m_config.pingIntervalMs * 1e6);
        if (pingNs < dueNs) {
            dueNs = pingNs;
            ping = true;
        }
    }
    m_ticket = m_scheduler.schedule(dueNs, [this, ping] { onDue(ping); });
}

void ChatResponder::onDue(bool ping)
{
    m_ticket = 0;
    if (m_done)
        return;
    if (ping)
        writeChunks({kPing}, false);
    else
        runStep(m_steps[m_nextStep++]);
    arm();
}

void ChatResponder::runStep(const Step& step)
{
    switch (step.kind) {
    case StepKind::Token:
        writeToken(step.index);
        break;
    case StepKind::Malformed:
        writeChunks({kMalformedEvent}, false);
        break;
    case StepKind::StreamError:
        writeStreamError();
        break;
    case StepKind::Abort:
        abortConnection();
        break;
    case StepKind::Finish:
        m_info.stream ? writeFinish() : writeBody();
        break;
    }
}

// Each entry is one HTTP chunk; the status line rides with the first bytes when the server
// only sends it with its first result (llama-server before #23884, SGLang). `onLast` records
// what the last write means, under the same lock as the write.
qint64 ChatResponder::writeChunks(const QList<QByteArray>& events, bool endBody, const RecordEdit& onLast)
{
    qint64 stamp = 0;
    for (qsizetype i = 0; i < events.size(); ++i) {
        QByteArray bytes;
        const bool withHead = !m_headersSent;
        if (withHead) {
            bytes = m_sink.responseHead(*m_writer, 200, m_writer->streamContentType(), -1, true);
            m_headersSent = true;
        }
        const bool last = i + 1 == events.size();
        bytes += httpChunk(events.at(i));
        if (endBody && last)
            bytes += lastChunk();
        stamp = sendRecorded(bytes, [&](ServedRequest& r, qint64 at) {
            if (withHead) {
                r.httpStatus = 200;
                r.headersSentNs = at;
            }
            if (last && onLast)
                onLast(r, at);
        });
    }
    return stamp;
}

// With ServerConfig::tokensPerChunk above 1 a text token may wait for the next ones, and one
// chunk carries them all (their text and their logprob entries).
bool ChatResponder::closesChunk(int index) const
{
    const std::size_t next = std::size_t(index) + 1;
    const TokenEvent& token = m_plan.tokens.at(std::size_t(index));
    return token.kind == TokenKind::ToolCall || int(m_pending.size()) >= m_config.tokensPerChunk
        || next >= m_plan.tokens.size() || m_plan.tokens[next].kind != token.kind;
}

// The pending tokens as the events on the wire: one merged event, or two halves with the
// entries on the second (ServerConfig::splitTokenChunks).
QList<QByteArray> ChatResponder::pendingEvents()
{
    TokenEvent merged = m_pending.front();
    for (std::size_t i = 1; i < m_pending.size(); ++i) {
        merged.text += m_pending[i].text;
        merged.logprobs.insert(
            merged.logprobs.end(), m_pending[i].logprobs.begin(), m_pending[i].logprobs.end());
    }
    m_pending.clear();
    if (!m_config.splitTokenChunks || merged.kind == TokenKind::ToolCall || merged.text.size() < 2)
        return {m_writer->tokenEvent(m_ctx, merged)};
    const QStringList halves = splitFragments(merged.text, 2);
    TokenEvent first = merged;
    first.text = halves.at(0);
    first.logprobs.clear();
    merged.text = halves.at(1);
    return {m_writer->tokenEvent(m_ctx, first), m_writer->tokenEvent(m_ctx, merged)};
}

void ChatResponder::writeToken(int index)
{
    const TokenEvent& token = m_plan.tokens.at(std::size_t(index));
    ++m_tokensWritten;
    if (token.kind == TokenKind::Reasoning)
        ++m_reasoningWritten;
    m_pending.push_back(token);
    if (!closesChunk(index))
        return;
    const int count = int(m_pending.size());
    QList<QByteArray> events = pendingEvents();
    const bool visible = token.kind != TokenKind::Reasoning;
    const int written = m_tokensWritten;
    const RecordEdit recordToken = [visible, written](ServedRequest& r, qint64 stamp) {
        r.tokenWriteNs.push_back(stamp);
        if (visible && r.firstVisibleWriteNs == 0)
            r.firstVisibleWriteNs = stamp;
        r.completionTokens = written;
    };
    qint64 stamp = 0;
    if (!m_roleSent && m_writer->roleJoinsFirstToken()) {
        events.front().prepend(m_writer->roleEvent(m_ctx));
    } else if (!m_roleSent) {
        writeChunks({m_writer->roleEvent(m_ctx)}, false);
    }
    stamp = writeChunks(events, false, recordToken);
    m_roleSent = true;
    if (m_firstTokenNs == 0) {
        m_firstTokenNs = stamp;
        m_state.metrics().firstToken(
            m_info.promptTokens, m_info.cachedTokens, msBetween(m_receivedNs, stamp) / 1000.0);
        storeInCache(false);
    }
    m_state.metrics().tokens(
        count, m_previousTokenNs > 0 ? msBetween(m_previousTokenNs, stamp) / 1000.0 : -1.0);
    m_previousTokenNs = stamp;
}

ChatResponder::RecordEdit ChatResponder::recordEnd() const
{
    const int tokens = m_tokensWritten;
    return [tokens](ServedRequest& r, qint64 stamp) {
        r.endNs = stamp;
        r.completionTokens = tokens;
    };
}

void ChatResponder::writeFinish()
{
    if (!m_roleSent) {
        writeChunks({m_writer->roleEvent(m_ctx)}, false);
        m_roleSent = true;
    }
    const FinishInfo info = finishInfo();
    writeChunks(m_writer->finishWrites(m_ctx, info), true, recordEnd());
    m_done = true;
    storeInCache(true);
    closeMetrics(info.finishReason == QLatin1String("length") ? info.finishReason : QStringLiteral("stop"));
    m_sink.responseDone(!m_request.keepAlive());
}

void ChatResponder::writeStreamError()
{
    // A first result that is an error becomes a plain HTTP error where the status line is
    // still unsent (llama-server before #23884, SGLang's kick-start); so does a non-stream one.
    if (!m_headersSent) {
        replyNow(*m_writer->httpError(HttpErrorKind::ServerError, errorContext()));
        return;
    }
    writeChunks(m_writer->errorWrites(m_ctx, finishInfo()), true, recordEnd());
    m_done = true;
    storeInCache(false); // the prefill was done before the error
    closeMetrics(QStringLiteral("abort"));
    m_sink.responseDone(m_writer->closeAfterStreamError() || !m_request.keepAlive());
}

void ChatResponder::writeBody()
{
    m_tokensWritten = int(m_plan.tokens.size());
    const FinishInfo info = finishInfo();
    const HttpReply reply = m_writer->completion(m_ctx, m_plan.text, info);
    const bool visible = !m_plan.text.content.isEmpty() || !m_plan.text.toolCalls.empty();
    const RecordEdit end = recordEnd();
    sendRecorded(m_sink.responseHead(*m_writer, reply.status, reply.contentType, reply.body.size(), false)
            + reply.body,
        [visible, end](ServedRequest& r, qint64 stamp) {
            r.httpStatus = 200;
            r.headersSentNs = stamp;
            r.firstVisibleWriteNs = visible ? stamp : 0;
            end(r, stamp);
        });
    m_done = true;
    // The whole answer arrives at once: its prefill and its tokens are counted now.
    m_firstTokenNs = m_lastWriteNs;
    m_state.metrics().firstToken(
        m_info.promptTokens, m_info.cachedTokens, msBetween(m_receivedNs, m_lastWriteNs) / 1000.0);
    storeInCache(true);
    m_state.metrics().tokens(m_tokensWritten, -1.0);
    closeMetrics(info.finishReason == QLatin1String("length") ? info.finishReason : QStringLiteral("stop"));
    m_sink.responseDone(!m_request.keepAlive());
}

// Recorded before the close, so a client that saw the connection drop finds the record done.
void ChatResponder::abortConnection()
{
    m_done = true;
    closeMetrics(QStringLiteral("abort"));
    m_state.updateServed(
        m_serial, [stamp = qs::monotonicNs(), end = recordEnd()](ServedRequest& r) { end(r, stamp); });
    m_sink.hardClose();
}

void ChatResponder::connectionLost()
{
    if (m_done)
        return;
    m_done = true;
    m_scheduler.cancel(m_ticket);
    m_ticket = 0;
    closeMetrics(QStringLiteral("abort"));
    m_state.updateServed(
        m_serial, [stamp = qs::monotonicNs(), end = recordEnd()](ServedRequest& r) { end(r, stamp); });
}

void ChatResponder::closeMetrics(const QString& finishedReason)
{
    if (!m_metricsOpen)
        return;
    m_metricsOpen = false;
    const qint64 now = qs::monotonicNs();
    RequestEnd end;
    end.promptTokens = m_info.promptTokens;
    end.cachedTokens = m_info.cachedTokens;
    end.generatedTokens = m_tokensWritten;
    end.e2eSeconds = msBetween(m_receivedNs, now) / 1000.0;
    end.prefillSeconds = msBetween(m_receivedNs, m_firstTokenNs > 0 ? m_firstTokenNs : now) / 1000.0;
    end.decodeSeconds = m_firstTokenNs > 0 ? msBetween(m_firstTokenNs, now) / 1000.0 : 0.0;
    end.finishedReason = finishedReason;
    m_state.metrics().requestEnded(end);
}

FinishInfo ChatResponder::finishInfo() const
{
    FinishInfo info;
    info.finishReason = m_writer->finishReason(m_plan.truncated, m_plan.toolCalls, m_info);
    info.promptTokens = m_info.promptTokens;
    info.cachedTokens = m_info.cachedTokens;
    info.reportCachedTokens = m_config.reportCachedTokens;
    info.completionTokens = m_info.stream ? m_tokensWritten : int(m_plan.tokens.size());
    info.reasoningTokens = m_info.stream
        ? m_reasoningWritten
        : int(std::count_if(m_plan.tokens.begin(), m_plan.tokens.end(),
            [](const TokenEvent& t) { return t.kind == TokenKind::Reasoning; }));
    info.sendUsage = m_ctx.includeUsage && m_script.fault != Fault::NoUsageChunk;
    if (m_script.includeTimings) {
        const qint64 now = qs::monotonicNs();
        Timings timings;
        timings.cacheN = m_info.cachedTokens;
        timings.promptN = m_info.promptTokens - m_info.cachedTokens; // evaluated tokens only
        timings.predictedN = info.completionTokens;
        if (m_info.stream) {
            // prompt_ms: the prefill actually waited; predicted_ms: first token to now.
            const qint64 firstNs = m_firstTokenNs > 0 ? m_firstTokenNs : now;
            timings.promptMs = msBetween(m_receivedNs, firstNs);
            timings.predictedMs = msBetween(firstNs, now);
        } else {
            // Nothing is written before the body: the prefill is the scripted one.
            const double ttftMs = m_script.ttftMs + m_script.ttftPerPromptTokenMs * timings.promptN;
            timings.promptMs = ttftMs;
            timings.predictedMs = std::max(0.0, msBetween(m_receivedNs, now) - ttftMs);
        }
        info.timings = timings;
    }
    return info;
}

ErrorContext ChatResponder::errorContext() const
{
    ErrorContext ctx;
    ctx.promptTokens = m_info.promptTokens;
    ctx.maxTokens = requestedMaxTokens(m_info.body);
    ctx.contextSize = m_config.contextSize;
    ctx.requestModel = m_info.body.value(QLatin1String("model")).toString();
    ctx.modelId = m_config.modelId;
    return ctx;
}

} // namespace qs::emu::detail
