// SPDX-License-Identifier: MIT
#pragma once

#include "model/Endpoint.h"
#include "model/StreamChunk.h"

#include <QAbstractSocket>
#include <QByteArrayView>
#include <QString>

namespace qs {

/// Why a request did not produce a complete response. Every kind comes with an explanation of
/// what to do, because the seeds lost whole benchmark rounds to errors that looked like model
/// failures (a missing vLLM tool flag) or to silent ones.
enum class FailureKind {
    None,
    InvalidUrl,
    ConnectionRefused,
    HostNotFound,
    NetworkUnreachable,
    ConnectTimeout,
    Tls,
    FirstByteTimeout,
    IdleTimeout,
    TotalTimeout,
    Unauthorized,
    Forbidden,
    ModelNotFound,
    RouteNotFound,
    ContextExceeded,
    ToolsNotEnabled,
    BadRequest,
    ServerLoading,
    ServerError,
    NotOpenAiCompatible,
    NotStreaming,
    StreamError,
    Disconnected,
    Cancelled,
    NetworkError,
};

/// Stable snake_case id for result files and scripts ("tools_not_enabled"…).
QString failureKindId(FailureKind kind);

struct Failure {
    FailureKind kind = FailureKind::None;
    int httpStatus = 0; ///< 0 when no HTTP status was received
    QString serverMessage; ///< what the server said, verbatim (may be empty)
    QString summary; ///< one line: what happened
    QString advice; ///< what to do about it

    bool isFailure() const { return kind != FailureKind::None; }
    /// "summary — server said: … — advice", for a terminal or a tooltip.
    QString text() const;
};

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
/// --tool-call-parser, llama-server's --jinja, and context length exceeded.
Failure classifyHttpError(
    int status, QByteArrayView body, QByteArrayView contentType, const FailureContext& ctx);

/// An error object the server sent inside a 200 stream.
Failure classifyStreamError(const ServerError& error, const FailureContext& ctx);

/// A socket-level error (refused, DNS, TLS, reset…).
Failure classifySocketError(
    QAbstractSocket::SocketError error, const QString& socketMessage, const FailureContext& ctx);

/// {"kind","http_status","summary","server_message","advice"}, or null when there is no failure.
nlohmann::json toJson(const Failure& failure);

/// Helpers for the client's own timers and checks.
Failure makeFailure(FailureKind kind, QString summary, QString advice, int httpStatus = 0);

} // namespace qs
