// SPDX-License-Identifier: MIT
#include "model/core/RunRecord.h"

namespace qs {

void internJson(RunRecord& record, JsonInterner& pool)
{
    record.request.requestBody = pool.intern(record.request.requestBody);
    record.gates = pool.intern(record.gates);
    record.gateDetails = pool.intern(record.gateDetails);
    record.test = pool.intern(record.test);
    // The short texts every response of an endpoint repeats: each would otherwise be its own
    // allocation in every record (~0.4 KB a record of a long run).
    RequestRecord& q = record.request;
    q.endpointLabel = pool.intern(q.endpointLabel);
    q.contentType = pool.intern(q.contentType);
    q.serverHeader = pool.intern(q.serverHeader);
    AssembledResponse& a = q.response;
    a.finishReason = pool.intern(a.finishReason);
    a.role = pool.intern(a.role);
    a.model = pool.intern(a.model);
    a.systemFingerprint = pool.intern(a.systemFingerprint);
}

QString runOrderId(RunOrder order)
{
    switch (order) {
    case RunOrder::Interleaved:
        return QStringLiteral("interleaved");
    case RunOrder::Sequential:
        return QStringLiteral("sequential");
    case RunOrder::Parallel:
        return QStringLiteral("parallel");
    }
    return QStringLiteral("interleaved");
}

std::optional<RunOrder> runOrderFromId(const QString& id)
{
    const QString s = id.trimmed().toLower();
    if (s == u"interleaved")
        return RunOrder::Interleaved;
    if (s == u"sequential")
        return RunOrder::Sequential;
    if (s == u"parallel")
        return RunOrder::Parallel;
    return std::nullopt;
}

int referenceEndpoint(const RunResult& result)
{
    for (std::size_t i = 0; i < result.endpoints.size(); ++i)
        if (result.endpoints[i].reference)
            return int(i);
    return -1;
}

int findEndpoint(const RunResult& result, const QString& indexOrLabel)
{
    bool isIndex = false;
    const int index = indexOrLabel.toInt(&isIndex);
    if (isIndex)
        return index >= 0 && std::size_t(index) < result.endpoints.size() ? index : -1;
    for (std::size_t i = 0; i < result.endpoints.size(); ++i)
        if (result.endpoints[i].endpoint.displayName() == indexOrLabel)
            return int(i);
    return -1;
}

} // namespace qs
