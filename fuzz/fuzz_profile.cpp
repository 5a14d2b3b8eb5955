// SPDX-License-Identifier: MIT
// A decision profile from untrusted bytes, read the way loadDecisionProfileFile reads one: strict
// JSON, then parseDecisionProfile (docs/fuzzing.md). Holds: no crash or sanitizer report; the only
// exceptions are ParseProblem and ProfileError, each with a message; every criterion of a profile
// that parses writes back to JSON.

#include "fuzz/FuzzCheck.h"
#include "fuzz/FuzzJson.h"
#include "model/core/JsonText.h"
#include "model/decide/DecisionProfile.h"

#include <cstddef>
#include <cstdint>

namespace {
constexpr int maxNestingDepth = 100; // what the file reader allows (DecisionProfile.cpp)
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::optional<nlohmann::json> parsed = qs::fuzz::strictDocument(data, size, maxNestingDepth);
    if (!parsed)
        return 0;
    const nlohmann::json& document = *parsed;
    try {
        const qs::DecisionProfile profile = qs::parseDecisionProfile(document, QStringLiteral("fuzz.json"));
        for (const qs::Criterion& criterion : profile.criteria) {
            QS_FUZZ_CHECK(!criterion.id.isEmpty());
            (void)qs::toJson(criterion).dump();
        }
    } catch (const qs::ProfileError& e) {
        QS_FUZZ_CHECK(e.what()[0] != '\0');
    }
    return 0;
}
