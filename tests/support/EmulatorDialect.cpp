// SPDX-License-Identifier: MIT
#include "tests/support/EmulatorDialect.h"

#include "tests/support/EmulatorJson.h"
#include "tests/support/HttpRequestReader.h"

#include <algorithm>

namespace qs::emu::detail {

std::unique_ptr<DialectWriter> DialectWriter::create(Dialect dialect, Era era)
{
    switch (dialect) {
    case Dialect::LlamaServer:
        return makeLlamaWriter(era);
    case Dialect::Vllm:
        return makeVllmWriter(era);
    case Dialect::Sglang:
        return makeSglangWriter(era);
    }
    return makeLlamaWriter(era);
}

bool DialectWriter::carriesApiKey(const HttpRequest& request, const QByteArray& key) const
{
    return request.header("Authorization") == QByteArrayLiteral("Bearer ") + key;
}

QString DialectWriter::finishReason(bool truncated, bool toolCalls, const RequestInfo& info) const
{
    Q_UNUSED(info);
    if (truncated)
        return QStringLiteral("length");
    return toolCalls ? QStringLiteral("tool_calls") : QStringLiteral("stop");
}

// llama-server (slot n_past--), vLLM (max_cache_hit_length = num_tokens - 1) and SGLang
// (max_prefix_len = input_len - 1) all leave at least one prompt token to compute.
int DialectWriter::cachedTokens(std::size_t commonPrefix, int promptTokens) const
{
    return int(std::min<std::size_t>(commonPrefix, std::size_t(std::max(promptTokens - 1, 0))));
}

HttpReply jsonReply(int status, const QByteArray& contentType, const QByteArray& body)
{
    return HttpReply {status, contentType, body};
}

HttpReply fastApiUnauthorized()
{
    return jsonReply(
        401, QByteArrayLiteral("application/json"), compactJson(ojson {{"error", "Unauthorized"}}));
}

HttpReply fastApiRouteNotFound(bool methodMismatch)
{
    const QByteArray json = QByteArrayLiteral("application/json");
    if (methodMismatch)
        return jsonReply(405, json, compactJson(ojson {{"detail", "Method Not Allowed"}}));
    return jsonReply(404, json, compactJson(ojson {{"detail", "Not Found"}}));
}

} // namespace qs::emu::detail
