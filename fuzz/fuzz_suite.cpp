// SPDX-License-Identifier: MIT
// A suite document from untrusted bytes, read the way loadSuiteFile reads one: strict JSON
// (duplicate keys and deep nesting refused), then parseSuite (docs/fuzzing.md). Holds: no crash
// or sanitizer report; the only exceptions are ParseProblem and SuiteError, each with a message; a
// suite that parses has tests, and its gate overrides compile.

#include "fuzz/FuzzCheck.h"
#include "fuzz/FuzzJson.h"
#include "model/core/GatePatterns.h"
#include "model/core/SuiteReading.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::optional<nlohmann::json> parsed
        = qs::fuzz::strictDocument(data, size, qs::suite_parse::maxNestingDepth);
    if (!parsed)
        return 0;
    const nlohmann::json& document = *parsed;
    try {
        const qs::Suite suite = qs::parseSuite(document, QStringLiteral("fuzz.json"));
        QS_FUZZ_CHECK(!suite.tests.empty());
        (void)qs::gatePatternsFor(suite);
    } catch (const qs::SuiteError& e) {
        QS_FUZZ_CHECK(e.what()[0] != '\0');
    } catch (const qs::GatePatternError& e) {
        // parseSuite validates the overrides, so gatePatternsFor must not refuse them.
        std::fprintf(stderr, "a parsed suite's gate overrides did not compile: %s\n", e.what());
        std::abort();
    }
    return 0;
}
