// SPDX-License-Identifier: MIT
#include "widgets/DashboardData.h"

namespace qs {

QString endpointTitle(const RunResult& result, int index)
{
    if (index < 0 || std::size_t(index) >= result.endpoints.size())
        return QStringLiteral("endpoint %1").arg(index);
    const RunEndpoint& e = result.endpoints[std::size_t(index)];
    const QString name = e.endpoint.displayName();
    if (e.simulated && !name.contains(u"simulated", Qt::CaseInsensitive))
        return name + QStringLiteral(" (simulated)");
    return name;
}

DashboardData prepareDashboard(std::shared_ptr<const RunResult> result, int baseline, bool withComparison)
{
    DashboardData d;
    if (result) {
        d.evaluation = std::make_shared<const Evaluation>(evaluate(*result, baseline, {}, withComparison));
        d.trace = std::make_shared<const ThroughputTrace>(throughputTrace(*result));
        d.serverPoints = std::make_shared<const std::vector<ServerPoint>>(serverPoints(result->telemetry));
    }
    d.result = std::move(result);
    return d;
}

} // namespace qs
