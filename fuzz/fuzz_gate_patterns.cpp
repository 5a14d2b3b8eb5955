// SPDX-License-Identifier: MIT
// Gate patterns from untrusted JSON: a whole pattern document (GatePatterns::fromJson) and a
// suite's overrides merged over the defaults (validateGateOverrides) (docs/fuzzing.md). Holds: no
// crash or sanitizer report; the only exceptions are ParseProblem and GatePatternError, each
// saying where; compiled patterns keep the document they came from.

#include "fuzz/FuzzCheck.h"
#include "fuzz/FuzzJson.h"
#include "model/core/GatePatterns.h"
#include "model/core/JsonText.h"

#include <cstddef>
#include <cstdint>

namespace {
constexpr int maxNestingDepth = 100; // as a suite, which carries the overrides
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::optional<nlohmann::json> parsed = qs::fuzz::strictDocument(data, size, maxNestingDepth);
    if (!parsed)
        return 0;
    const nlohmann::json& document = *parsed;
    try {
        const qs::GatePatterns patterns = qs::GatePatterns::fromJson(document);
        (void)patterns.document().dump();
    } catch (const qs::GatePatternError& e) {
        QS_FUZZ_CHECK(!e.problem().isEmpty());
    }
    try {
        qs::validateGateOverrides(document);
    } catch (const qs::GatePatternError& e) {
        QS_FUZZ_CHECK(!e.problem().isEmpty());
    }
    return 0;
}
