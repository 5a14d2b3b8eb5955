// SPDX-License-Identifier: MIT
#pragma once

#include "model/core/Endpoint.h"

#include <QCommandLineParser>
#include <optional>

namespace qs::app {

/// The options every endpoint-taking subcommand shares (--model, --api-key-env, --runtime,
/// --quant, --label, --extra, --metrics, timeouts).
void addEndpointOptions(QCommandLineParser& parser);

/// Builds an endpoint from a URL argument and the shared options. On a bad value, returns
/// nothing and sets `error` to a message that says what to type instead.
std::optional<Endpoint> endpointFromOptions(
    const QCommandLineParser& parser, const QString& url, QString& error);

} // namespace qs::app
