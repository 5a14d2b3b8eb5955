// SPDX-License-Identifier: MIT
#include "model/core/Failure.h"

namespace qs {

QString failureKindId(FailureKind kind)
{
    switch (kind) {
    case FailureKind::None:
        return QStringLiteral("none");
    case FailureKind::InvalidUrl:
        return QStringLiteral("invalid_url");
    case FailureKind::ConnectionRefused:
        return QStringLiteral("connection_refused");
    case FailureKind::HostNotFound:
        return QStringLiteral("host_not_found");
    case FailureKind::NetworkUnreachable:
        return QStringLiteral("network_unreachable");
    case FailureKind::ConnectTimeout:
        return QStringLiteral("connect_timeout");
    case FailureKind::Tls:
        return QStringLiteral("tls");
    case FailureKind::FirstByteTimeout:
        return QStringLiteral("first_byte_timeout");
    case FailureKind::IdleTimeout:
        return QStringLiteral("idle_timeout");
    case FailureKind::TotalTimeout:
        return QStringLiteral("total_timeout");
    case FailureKind::Unauthorized:
        return QStringLiteral("unauthorized");
    case FailureKind::Forbidden:
        return QStringLiteral("forbidden");
    case FailureKind::ModelNotFound:
        return QStringLiteral("model_not_found");
    case FailureKind::RouteNotFound:
        return QStringLiteral("route_not_found");
    case FailureKind::ContextExceeded:
        return QStringLiteral("context_exceeded");
    case FailureKind::ToolsNotEnabled:
        return QStringLiteral("tools_not_enabled");
    case FailureKind::BadRequest:
        return QStringLiteral("bad_request");
    case FailureKind::ServerLoading:
        return QStringLiteral("server_loading");
    case FailureKind::ServerError:
        return QStringLiteral("server_error");
    case FailureKind::NotOpenAiCompatible:
        return QStringLiteral("not_openai_compatible");
    case FailureKind::NotStreaming:
        return QStringLiteral("not_streaming");
    case FailureKind::StreamError:
        return QStringLiteral("stream_error");
    case FailureKind::MalformedStream:
        return QStringLiteral("malformed_stream");
    case FailureKind::Disconnected:
        return QStringLiteral("disconnected");
    case FailureKind::Cancelled:
        return QStringLiteral("cancelled");
    case FailureKind::NetworkError:
        return QStringLiteral("network_error");
    }
    return QStringLiteral("unknown");
}

QString Failure::text() const
{
    QString t = summary;
    if (!serverMessage.isEmpty())
        t += QStringLiteral(" — server said: \"%1\"").arg(serverMessage.left(400));
    if (!advice.isEmpty())
        t += QStringLiteral(" — ") + advice;
    return t;
}

nlohmann::json toJson(const Failure& f)
{
    if (!f.isFailure())
        return nullptr;
    return {{"kind", failureKindId(f.kind).toStdString()}, {"http_status", f.httpStatus},
        {"summary", f.summary.toStdString()}, {"server_message", f.serverMessage.toStdString()},
        {"advice", f.advice.toStdString()}};
}

Failure makeFailure(FailureKind kind, QString summary, QString advice, int httpStatus)
{
    Failure f;
    f.kind = kind;
    f.summary = std::move(summary);
    f.advice = std::move(advice);
    f.httpStatus = httpStatus;
    return f;
}

} // namespace qs
