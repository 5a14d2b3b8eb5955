// SPDX-License-Identifier: MIT
#pragma once

// Profiles of a few criteria, for the criterion tests: one valid profile, or the message a bad
// criterion gets.
#include "model/decide/DecisionProfile.h"

#include <nlohmann/json.hpp>
#include <string>

namespace qs::test {

/// A profile "test" (read from "profile.json") with `criteria`. Throws ProfileError.
inline DecisionProfile profile(const nlohmann::json& criteria)
{
    return parseDecisionProfile({{"id", "test"}, {"criteria", criteria}}, QStringLiteral("profile.json"));
}

/// What a profile of the one `criterion` is refused with; "(no error)" when it is accepted.
inline std::string parseError(const nlohmann::json& criterion)
{
    try {
        profile(nlohmann::json::array({criterion}));
    } catch (const ProfileError& e) {
        return e.what();
    }
    return "(no error)";
}

} // namespace qs::test
