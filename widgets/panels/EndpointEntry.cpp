// SPDX-License-Identifier: MIT
#include "widgets/panels/EndpointEntry.h"

#include <stdexcept>

namespace qs {

QString EndpointEntry::spec() const
{
    if (simulated())
        return QStringLiteral("sim:") + simulatedProfile;
    return endpoint.baseUrl.toString();
}

nlohmann::json toJson(const EndpointEntry& entry)
{
    nlohmann::json j = toJson(entry.endpoint);
    if (entry.simulated())
        j["simulated_profile"] = entry.simulatedProfile.toStdString();
    if (entry.reference)
        j["fidelity_reference"] = true;
    return j;
}

EndpointEntry endpointEntryFromJson(const nlohmann::json& json)
{
    if (!json.is_object())
        throw std::invalid_argument("an endpoint must be a JSON object");
    EndpointEntry entry;
    if (json.contains("simulated_profile") && !json["simulated_profile"].is_null()) {
        if (!json["simulated_profile"].is_string())
            throw std::invalid_argument("endpoint field \"simulated_profile\" must be a string");
        entry.simulatedProfile
            = QString::fromStdString(json["simulated_profile"].get<std::string>()).trimmed();
    }
    if (json.contains("fidelity_reference") && !json["fidelity_reference"].is_null()) {
        if (!json["fidelity_reference"].is_boolean())
            throw std::invalid_argument("endpoint field \"fidelity_reference\" must be true or false");
        entry.reference = json["fidelity_reference"].get<bool>();
    }
    const bool noUrl = !json.contains("base_url") || json["base_url"].is_null()
        || (json["base_url"].is_string() && json["base_url"].get<std::string>().empty());
    if (entry.simulated() && noUrl) {
        // A simulated endpoint gets its loopback URL when the emulator starts; endpointFromJson
        // insists on one, so it reads a placeholder that is dropped again.
        nlohmann::json j = json;
        j["base_url"] = "http://simulated.invalid";
        entry.endpoint = endpointFromJson(j);
        entry.endpoint.baseUrl = QUrl();
    } else {
        entry.endpoint = endpointFromJson(json);
    }
    return entry;
}

} // namespace qs
