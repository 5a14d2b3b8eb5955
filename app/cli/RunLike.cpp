// SPDX-License-Identifier: MIT
#include "app/cli/RunLike.h"

#include "model/store/ResultFile.h"

#include <algorithm>

namespace qs::app {

EndpointSpec specOf(const RunEndpoint& e)
{
    EndpointSpec spec;
    const Endpoint& x = e.endpoint;
    spec.name = x.label; // a simulated one's already says so: resolving it adds nothing
    spec.url = e.simulated ? e.spec : x.baseUrl.toString();
    spec.model = e.simulated ? QString() : x.model; // a simulator names its own model
    spec.quant = x.quantization;
    spec.runtime = x.runtime == Runtime::Unknown || e.simulated ? QString() : runtimeName(x.runtime);
    spec.keyEnv = x.apiKeyEnv;
    if (!e.simulated) // a simulator's exporters were started beside it, on ports long closed
        spec.metrics = x.metricsUrls;
    if (x.extraBody.is_object() && !x.extraBody.empty())
        spec.body = x.extraBody;
    spec.meta = x.meta;
    return spec;
}

std::optional<LikeRun> likeRunFrom(const QString& path, QString& error)
{
    RunResult earlier;
    try {
        earlier = loadResults(path);
    } catch (const std::exception& e) {
        error = QStringLiteral("--like: %1").arg(QString::fromUtf8(e.what())); // names the file
        return std::nullopt;
    }
    LikeRun like;
    try {
        like.suite = parseSuite(earlier.suite, path + QStringLiteral(" (its suite)"));
    } catch (const std::exception& e) {
        error = QStringLiteral("--like %1: its suite cannot be run again (%2); give --suite")
                    .arg(path, QString::fromUtf8(e.what()));
        return std::nullopt;
    }
    if (earlier.endpoints.empty()) {
        error = QStringLiteral("--like %1: the file names no endpoints; give --endpoint").arg(path);
        return std::nullopt;
    }
    for (const RunEndpoint& e : earlier.endpoints)
        like.specs.push_back(specOf(e));
    like.settings = earlier.settings;
    like.reference = referenceEndpoint(earlier);
    if (earlier.untilDecided.is_object())
        like.untilDecidedProfile
            = QString::fromStdString(earlier.untilDecided.value("profile", std::string("its profile")));
    return like;
}

std::vector<EndpointSpec> likeEndpoints(
    const std::vector<EndpointSpec>& earlier, const std::vector<EndpointSpec>& given, bool& inPlace)
{
    std::vector<EndpointSpec> merged = earlier;
    inPlace = !given.empty();
    for (const EndpointSpec& spec : given) {
        const auto same = std::find_if(merged.begin(), merged.end(), [&](const EndpointSpec& e) {
            // A simulated endpoint's label carries " (simulated)"; its name as typed does not.
            return !spec.name.isEmpty()
                && (e.name == spec.name || e.name == spec.name + QStringLiteral(" (simulated)"));
        });
        if (same == merged.end()) {
            inPlace = false;
            break;
        }
        *same = spec;
    }
    return inPlace ? merged : given;
}

} // namespace qs::app
