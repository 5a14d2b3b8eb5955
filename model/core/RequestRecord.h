// SPDX-License-Identifier: MIT
#pragma once

#include "model/core/Failure.h"
#include "model/core/Measurement.h"
#include "model/core/Response.h"
#include "model/core/SharedJson.h"

#include <QString>
#include <QUrl>
#include <nlohmann/json.hpp>

namespace qs {

/// Everything known about one request: what was sent, the raw stamps, what came back, the
/// measurements derived from them, and why it failed if it did. A failed request keeps its
/// partial response and timings.
struct RequestRecord {
    QString endpointLabel;
    QUrl url;
    SharedJson requestBody; ///< exactly as sent (API keys travel in a header, never here)

    RequestTiming timing;
    int httpStatus = 0;
    QString contentType;
    QString serverHeader; ///< the `Server` response header
    int keepAlivePings = 0; ///< SSE comment lines received (llama-server `:`, vLLM `: keep-alive`)

    AssembledResponse response;
    RequestMetrics metrics;
    Failure failure;

    bool ok() const { return !failure.isFailure(); }
};

nlohmann::json toJson(const TokenUsage& usage);
nlohmann::json toJson(const ServerTimings& timings);
nlohmann::json toJson(const RequestMetrics& metrics);
/// The record as JSON; with `withTimeline` the per-event stamps (ms from t0) are included.
nlohmann::json toJson(const RequestRecord& record, bool withTimeline = true);

} // namespace qs
