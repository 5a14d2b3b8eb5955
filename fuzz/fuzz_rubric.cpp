// SPDX-License-Identifier: MIT
// A rubric document from untrusted bytes, read the way loadRubricFile reads one: strict JSON
// (duplicate keys and deep nesting refused), then parseRubric (docs/fuzzing.md). Holds: no crash
// or sanitizer report; the only exceptions are ParseProblem and RubricError, each with a message;
// a rubric that parses has criteria with unique, non-empty ids and anchors in 1..5, and reading
// what it keeps of itself (`raw`, stored in results files) gives the same rubric.

#include "fuzz/FuzzCheck.h"
#include "fuzz/FuzzJson.h"
#include "model/core/Rubric.h"

#include <QSet>
#include <cstddef>
#include <cstdint>

namespace {

constexpr int maxDepth = 32; // as model/core/Rubric.cpp reads a file

bool sameRubric(const qs::Rubric& a, const qs::Rubric& b)
{
    if (a.id != b.id || a.name != b.name || a.description != b.description || a.instructions != b.instructions
        || a.criteria.size() != b.criteria.size())
        return false;
    for (std::size_t i = 0; i < a.criteria.size(); ++i) {
        const qs::RubricCriterion& x = a.criteria[i];
        const qs::RubricCriterion& y = b.criteria[i];
        if (x.id != y.id || x.title != y.title || x.description != y.description || x.anchors != y.anchors
            || x.tests != y.tests)
            return false;
    }
    return true;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::optional<nlohmann::json> parsed = qs::fuzz::strictDocument(data, size, maxDepth);
    if (!parsed)
        return 0;
    try {
        const qs::Rubric rubric = qs::parseRubric(*parsed, QStringLiteral("fuzz.json"));
        QS_FUZZ_CHECK(!rubric.id.isEmpty() && !rubric.criteria.empty());
        QSet<QString> ids;
        for (const qs::RubricCriterion& c : rubric.criteria) {
            QS_FUZZ_CHECK(!c.id.isEmpty() && !ids.contains(c.id));
            ids.insert(c.id);
            for (const auto& [score, text] : c.anchors)
                QS_FUZZ_CHECK(score >= 1 && score <= 5);
            QS_FUZZ_CHECK(rubric.criterion(c.id) == &c);
        }
        (void)rubric.raw.dump(); // stored in results files: must serialise
        const qs::Rubric again = qs::parseRubric(rubric.raw, QStringLiteral("again.json"));
        QS_FUZZ_CHECK(sameRubric(rubric, again));
    } catch (const qs::RubricError& e) {
        QS_FUZZ_CHECK(e.what()[0] != '\0');
    }
    return 0;
}
