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

/// A criterion's JSON form as a profile would hold it: without the written-only "kind" and the
/// null "test". Read back through a profile and written again, it must come out the same.
inline nlohmann::json asWritten(nlohmann::json criterion)
{
    criterion.erase("kind");
    criterion.erase("test");
    return criterion;
}

/// `criterion` (as asWritten gives it) read into a profile and written again.
inline nlohmann::json readAndWrittenAgain(const nlohmann::json& criterion)
{
    return asWritten(toJson(profile(nlohmann::json::array({criterion})).criteria.at(0)));
}

} // namespace qs::test
