// SPDX-License-Identifier: MIT
#include "model/wire/FailureClassifier.h"

#include "model/wire/StreamChunk.h"

#include <QRegularExpression>
#include <optional>

namespace qs {

namespace {

bool mentions(const QString& text, std::initializer_list<const char*> needles)
{
    for (const char* n : needles)
        if (text.contains(QLatin1String(n), Qt::CaseInsensitive))
            return true;
    return false;
}

QString contextAdvice(Runtime runtime)
{
    QString restart;
    switch (runtime) {
    case Runtime::LlamaServer:
        restart = QStringLiteral("restart llama-server with a larger --ctx-size (-c)");
        break;
    case Runtime::Vllm:
        restart = QStringLiteral("restart vLLM with a larger --max-model-len");
        break;
    case Runtime::Sglang:
        restart = QStringLiteral("restart SGLang with a larger --context-length");
        break;
    default:
        restart = QStringLiteral(
            "raise the server's context size (llama-server --ctx-size, vLLM --max-model-len, "
            "SGLang --context-length)");
    }
    return QStringLiteral("Shorten the conversation or lower max_tokens, or %1. The measurement is not a "
                          "model failure.")
        .arg(restart);
}

bool isContextMessage(const ServerError& e)
{
    return e.type == u"exceed_context_size_error" || e.codeText == u"context_length_exceeded"
        || mentions(e.message, {"context length", "context size", "maximum context", "context window"});
}

bool isToolFlagMessage(const QString& m)
{
    return mentions(m, {"enable-auto-tool-choice", "tool-call-parser", "tool choice requires"});
}

Failure contextExceeded(const ServerError& e, const FailureContext& ctx, int status)
{
    QString summary = QStringLiteral("The prompt does not fit in the server's context window");
    if (e.nPromptTokens && e.nCtx)
        summary += QStringLiteral(" (%1 prompt tokens, context %2)").arg(*e.nPromptTokens).arg(*e.nCtx);
    Failure f = makeFailure(FailureKind::ContextExceeded, summary, contextAdvice(ctx.runtime), status);
    f.serverMessage = e.message;
    return f;
}
/// The 400s a request for logprobs meets (reference Part 2): a top_logprobs above vLLM's
/// --max-logprobs, llama-server's refusal of logprobs with tools in a stream (issue #28478), and
/// top_logprobs without logprobs. Nothing when the message is about something else.
std::optional<Failure> logprobRefusal(const ServerError& e, int status)
{
    static const QRegularExpression overCap(
        QStringLiteral("requested (?:sample |prompt )?logprobs of (-?\\d+), which is greater than max "
                       "allowed: (-?\\d+)"),
        QRegularExpression::CaseInsensitiveOption);
    Failure f;
    f.kind = FailureKind::BadRequest;
    f.httpStatus = status;
    f.serverMessage = e.message;
    if (const QRegularExpressionMatch m = overCap.match(e.message); m.hasMatch()) {
        f.summary = QStringLiteral("HTTP %1: the server returns at most %2 logprobs per position, and the "
                                   "request asked for %3")
                        .arg(status)
                        .arg(m.captured(2), m.captured(1));
        f.advice = QStringLiteral("Start vLLM with --max-logprobs %1 (or lower top_logprobs in the suite). "
                                  "This is a server limit, not a model failure.")
                       .arg(m.captured(1));
        return f;
    }
    if (mentions(e.message, {"logprobs is not supported with tools + stream"})) {
        f.summary = QStringLiteral("HTTP %1: llama-server does not return logprobs for a streamed request "
                                   "with tools (llama.cpp issue #28478)")
                        .arg(status);
        f.advice = QStringLiteral("Set the endpoint's runtime to llama-server (or let the probe detect it): "
                                  "Quantscope then asks with n_probs, which this check lets through. Or "
                                  "leave tools out of the fidelity tests. This is a server limitation, not a "
                                  "model failure.");
        return f;
    }
    if (mentions(e.message,
            {"top_logprobs requires logprobs", "`logprobs` must be set to true",
                "logprobs must be set to true"})) {
        f.summary
            = QStringLiteral("HTTP %1: the server received top_logprobs without logprobs: true").arg(status);
        f.advice = QStringLiteral("Quantscope sends both; something removed `logprobs`. Check the endpoint's "
                                  "extra_body and the test's extra_body (a null there deletes the key).");
        return f;
    }
    return std::nullopt;
}
} // namespace

Failure classifyHttpError(
    int status, QByteArrayView body, QByteArrayView contentType, const FailureContext& ctx)
{
    const std::optional<ServerError> parsed = parseServerError(body);
    ServerError e = parsed.value_or(ServerError {});
    if (!parsed) {
        // vLLM's auth middleware answers {"error":"Unauthorized"}; others may send plain text.
        e.message = QString::fromUtf8(body.first(qMin<qsizetype>(300, body.size())).toByteArray()).trimmed();
    }
    const bool looksJson = contentType.toByteArray().contains("json") || parsed.has_value();
    const bool looksHtml = contentType.toByteArray().contains("html")
        || body.first(qMin<qsizetype>(200, body.size())).toByteArray().trimmed().startsWith('<');
    Failure f;
    f.httpStatus = status;
    f.serverMessage = e.message;

    if (status == 401) {
        f.kind = FailureKind::Unauthorized;
        f.summary = QStringLiteral("HTTP 401: the server rejected the request's credentials");
        if (!ctx.apiKeySent)
            f.advice = ctx.apiKeyEnv.isEmpty()
                ? QStringLiteral("This server needs an API key. Put it in an environment variable and name "
                                 "that variable in the endpoint's api_key_env (e.g. --api-key-env "
                                 "MY_KEY).")
                : QStringLiteral("This server needs an API key, but the environment variable %1 is empty "
                                 "or unset. Export it before starting Quantscope.")
                      .arg(ctx.apiKeyEnv);
        else
            f.advice = QStringLiteral("The key in $%1 was refused. Check it against the server's --api-key.")
                           .arg(ctx.apiKeyEnv);
        return f;
    }
    if (status == 403) {
        f.kind = FailureKind::Forbidden;
        f.summary = QStringLiteral("HTTP 403: the server (or a proxy in front of it) forbids this request");
        f.advice
            = QStringLiteral("Check the API key's permissions and any proxy or firewall between you and the "
                             "server.");
        return f;
    }
    if (isContextMessage(e) && (status == 400 || status == 413 || status == 500))
        return contextExceeded(e, ctx, status);
    if (status == 400 || status == 422) {
        if (auto refusal = logprobRefusal(e, status))
            return *refusal;
    }
    if (isToolFlagMessage(e.message)) {
        f.kind = FailureKind::ToolsNotEnabled;
        f.summary
            = QStringLiteral("HTTP %1: the server was started without tool calling, so it refused a request "
                             "with tools")
                  .arg(status);
        f.advice
            = QStringLiteral("Restart vLLM with --enable-auto-tool-choice --tool-call-parser <parser> "
                             "(qwen3_coder for Qwen3/Qwen3.5, hermes for Hermes-style models, llama3_json "
                             "for Llama 3). This is a server configuration error, not a model failure.");
        return f;
    }
    if (mentions(e.message, {"requires --jinja"})) {
        f.kind = FailureKind::ToolsNotEnabled;
        f.summary
            = QStringLiteral("HTTP %1: llama-server was started with --no-jinja, which cannot do tool calls")
                  .arg(status);
        f.advice = QStringLiteral(
            "Restart llama-server with --jinja (the default in builds since late 2025). This "
            "is a server configuration error, not a model failure.");
        return f;
    }
    if (status == 404) {
        const bool aboutModel = e.param == u"model" || e.type == u"NotFoundError"
            || mentions(e.message, {"model"}) || e.message.contains(u'`');
        if (aboutModel && !looksHtml) {
            f.kind = FailureKind::ModelNotFound;
            f.summary = ctx.model.isEmpty()
                ? QStringLiteral("HTTP 404: the server does not know the requested model")
                : QStringLiteral("HTTP 404: the server does not serve a model named "
                                 "\"%1\"")
                      .arg(ctx.model);
            f.advice
                = QStringLiteral("Use a model id from the server's /v1/models (`quantscope probe URL` lists "
                                 "them), or leave the model empty to use the one the server serves.");
            return f;
        }
        f.kind = FailureKind::RouteNotFound;
        f.summary = QStringLiteral("HTTP 404: nothing answers at %1 on this server").arg(ctx.path);
        f.advice
            = QStringLiteral("Is this an OpenAI-compatible server (llama-server, vLLM, SGLang)? The base URL "
                             "should be just scheme://host:port, without /v1; check the port.");
        return f;
    }
    if (status == 503 && mentions(e.message, {"loading"})) {
        f.kind = FailureKind::ServerLoading;
        f.summary = QStringLiteral("HTTP 503: the server is still loading the model");
        f.advice = QStringLiteral("Wait until its /health answers 200, then run again.");
        return f;
    }
    if (!looksJson && (looksHtml || status == 405 || status == 501)) {
        f.kind = FailureKind::NotOpenAiCompatible;
        f.summary
            = QStringLiteral("HTTP %1 with a non-JSON body: this does not look like an OpenAI-compatible "
                             "server")
                  .arg(status);
        f.advice = QStringLiteral(
            "Check the host and port: llama-server defaults to 8080, vLLM to 8000, SGLang to "
            "30000.");
        return f;
    }
    if (status >= 400 && status < 500) {
        f.kind = FailureKind::BadRequest;
        f.summary = QStringLiteral("HTTP %1: the server rejected the request").arg(status);
        f.advice
            = QStringLiteral("Read the server's message; check the endpoint's extra_body and the suite's "
                             "request fields (e.g. enable_thinking must be a JSON boolean).");
        return f;
    }
    f.kind = FailureKind::ServerError;
    f.summary = QStringLiteral("HTTP %1: the server failed while handling the request").arg(status);
    f.advice
        = QStringLiteral("Check the server's log. The request is recorded as failed; earlier measurements "
                         "are kept.");
    return f;
}

Failure classifyRedirect(int status, QByteArrayView location, const FailureContext& ctx)
{
    const QString target
        = QString::fromUtf8(location.first(qMin<qsizetype>(300, location.size())).toByteArray());
    Failure f;
    f.kind = FailureKind::InvalidUrl;
    f.httpStatus = status;
    f.summary = target.isEmpty()
        ? QStringLiteral("HTTP %1: %2%3 answered with a redirect that names no target")
              .arg(status)
              .arg(ctx.hostPort, ctx.path)
        : QStringLiteral("HTTP %1: %2%3 redirects to %4").arg(status).arg(ctx.hostPort, ctx.path, target);
    f.advice = QStringLiteral(
        "Quantscope does not follow redirects (a request must not be re-sent blindly, and a loop must "
        "not hold a run). Set the endpoint's base URL to where the server points (often https:// or "
        "another port or path prefix).");
    return f;
}

Failure classifyStreamError(const ServerError& e, const FailureContext& ctx)
{
    if (isContextMessage(e))
        return contextExceeded(e, ctx, 200);
    Failure f;
    f.kind = FailureKind::StreamError;
    f.httpStatus = 200;
    f.serverMessage = e.message;
    f.summary = e.code
        ? QStringLiteral("The server reported an error in the middle of the stream (code %1%2)")
              .arg(e.code)
              .arg(e.type.isEmpty() ? QString() : QStringLiteral(", ") + e.type)
        : QStringLiteral("The server reported an error in the middle of the stream");
    f.advice
        = QStringLiteral("The partial response and its timings are kept; the request counts as failed. Check "
                         "the server's log.");
    return f;
}

Failure classifyMalformedStream(const AssembledResponse& r, int httpStatus)
{
    Failure f;
    f.kind = FailureKind::MalformedStream;
    f.httpStatus = httpStatus;
    f.summary = QStringLiteral("%1 of %2 stream event(s) were not valid JSON chunks; the first: %3")
                    .arg(r.malformedEvents)
                    .arg(r.dataEvents)
                    .arg(r.firstMalformedQuote);
    if (!r.malformedSamples.isEmpty())
        f.summary += QStringLiteral(" (%1)").arg(r.malformedSamples.first().section(u':', 0, 0));
    // Neither llama-server, vLLM nor SGLang writes a cut JSON line itself: the bytes changed on
    // the way, so what the rest of the stream says (timings, the answer) cannot be trusted whole.
    f.advice = QStringLiteral(
        "The server or a proxy corrupted the stream: look for a proxy or load balancer that rewrites, "
        "buffers or re-chunks responses, and for errors in the server's log. What arrived is kept, "
        "but the request counts as failed and is left out of the statistics and the gates.");
    return f;
}

Failure classifySocketError(
    QAbstractSocket::SocketError error, const QString& socketMessage, const FailureContext& ctx)
{
    Failure f;
    f.serverMessage = socketMessage;
    switch (error) {
    case QAbstractSocket::ConnectionRefusedError:
        f.kind = FailureKind::ConnectionRefused;
        f.summary
            = QStringLiteral("Connection refused by %1: nothing is listening on that port").arg(ctx.hostPort);
        f.advice = QStringLiteral(
            "Is the server running, and on this port? llama-server defaults to 8080, vLLM to "
            "8000, SGLang to 30000; a server bound to 127.0.0.1 is not reachable from "
            "another machine (start it with --host 0.0.0.0).");
        break;
    case QAbstractSocket::HostNotFoundError:
        f.kind = FailureKind::HostNotFound;
        f.summary = QStringLiteral("The host name in %1 could not be resolved (DNS)").arg(ctx.hostPort);
        f.advice = QStringLiteral("Check the spelling, or use the server's IP address.");
        break;
    case QAbstractSocket::NetworkError:
    case QAbstractSocket::UnfinishedSocketOperationError:
        f.kind = FailureKind::NetworkUnreachable;
        f.summary = QStringLiteral("The network to %1 is unreachable").arg(ctx.hostPort);
        f.advice
            = QStringLiteral("Check that this machine is on the same network as the server (VPN, Wi-Fi).");
        break;
    case QAbstractSocket::SslHandshakeFailedError:
    case QAbstractSocket::SslInternalError:
    case QAbstractSocket::SslInvalidUserDataError:
        f.kind = FailureKind::Tls;
        f.summary = QStringLiteral("The TLS handshake with %1 failed").arg(ctx.hostPort);
        f.advice
            = QStringLiteral("Inference servers on a LAN usually speak plain HTTP: try http:// instead of "
                             "https://. Otherwise check the server's certificate.");
        break;
    case QAbstractSocket::RemoteHostClosedError:
        f.kind = FailureKind::Disconnected;
        f.summary
            = QStringLiteral("%1 closed the connection before the response was complete").arg(ctx.hostPort);
        f.advice = QStringLiteral(
            "The partial response and its timings are kept; the request counts as failed. The "
            "server may have crashed or been restarted: check its log.");
        break;
    case QAbstractSocket::SocketTimeoutError:
        f.kind = FailureKind::ConnectTimeout;
        f.summary = QStringLiteral("Timed out talking to %1").arg(ctx.hostPort);
        f.advice = QStringLiteral("Check that the server is up and reachable.");
        break;
    default:
        f.kind = FailureKind::NetworkError;
        f.summary = QStringLiteral("Network error talking to %1").arg(ctx.hostPort);
        f.advice = QStringLiteral("Check the connection to the server and retry.");
        break;
    }
    return f;
}

} // namespace qs
