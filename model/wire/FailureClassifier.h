// SPDX-License-Identifier: MIT
#pragma once

#include "model/core/Endpoint.h"
#include "model/core/Failure.h"
#include "model/core/Response.h"

#include <QAbstractSocket>
#include <QByteArrayView>
#include <QString>

namespace qs {

/// Context a classifier needs to give specific advice.
struct FailureContext {
    Runtime runtime = Runtime::Unknown;
    bool requestHadTools = false;
    QString model; ///< the model id the request named
    QString apiKeyEnv; ///< the environment variable the key was read from
    bool apiKeySent = false;
    QString hostPort; ///< "host:port", for network messages
    QString path; ///< request path, e.g. /v1/chat/completions
};

/// A non-2xx HTTP response: parses the body (llama-server, vLLM and SGLang shapes) and names
/// the cause — in particular vLLM's 400 for tools without --enable-auto-tool-choice and
/// --tool-call-parser, llama-server's --jinja, context length exceeded, and the logprob refusals
/// (vLLM's --max-logprobs cap, llama-server's logprobs + tools + stream, top_logprobs without
/// logprobs), each with the flag or setting that lifts it.
Failure classifyHttpError(
    int status, QByteArrayView body, QByteArrayView contentType, const FailureContext& ctx);

/// A 3xx answer. Never followed: a POST must not be re-sent blindly, and a redirect loop must
/// not hold a run. The summary names where the server points, so the user can fix the URL.
Failure classifyRedirect(int status, QByteArrayView location, const FailureContext& ctx);

/// An error object the server sent inside a 200 stream.
Failure classifyStreamError(const ServerError& error, const FailureContext& ctx);

/// A stream with events that were not valid JSON (`malformedEvents` > 0): a corrupted stream
/// is never a clean measurement. The summary quotes the first bad payload and counts them all.
Failure classifyMalformedStream(const AssembledResponse& response, int httpStatus);

/// A socket-level error (refused, DNS, TLS, reset…).
Failure classifySocketError(
    QAbstractSocket::SocketError error, const QString& socketMessage, const FailureContext& ctx);

} // namespace qs
