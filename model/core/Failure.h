// SPDX-License-Identifier: MIT
#pragma once

#include <QString>
#include <nlohmann/json.hpp>

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
    MalformedStream, ///< events that were not valid JSON: the stream was corrupted on the way
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

/// {"kind","http_status","summary","server_message","advice"}, or null when there is no failure.
nlohmann::json toJson(const Failure& failure);

/// Helpers for the client's own timers and checks.
Failure makeFailure(FailureKind kind, QString summary, QString advice, int httpStatus = 0);

} // namespace qs
