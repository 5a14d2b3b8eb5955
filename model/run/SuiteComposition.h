// SPDX-License-Identifier: MIT
#pragma once

#include "model/core/RunRecord.h"
#include "model/core/Suite.h"

#include <QString>
#include <nlohmann/json.hpp>
#include <vector>

namespace qs {

// What a suite asks, counted the way the evidence counts: distinct prompts per category, and
// how many times each is repeated. The unit of evidence is a distinct prompt (a whole
// conversation for a multi-turn test); repeats of one prompt measure how steady the server's
// clock is, never the model (docs/methodology.md). The Run panel, `quantscope run` and the
// report say this before anyone reads a figure.

struct CategoryComposition {
    QString category; ///< the tests' "category" ("" for tests that name none)
    int prompts = 0; ///< distinct measured prompts: tests, a conversation counting once
    int conversations = 0; ///< of which multi-turn conversations
    int requestsPerRepeat = 0; ///< requests one repeat of the category sends (turns summed)
    int minRepeats = 0; ///< timing repeats per prompt under the run's settings (the least…
    int maxRepeats = 0; ///< …and the most, when tests differ)
    int warmups = 0; ///< warm-up requests per endpoint for the category's tests
};

struct SuiteComposition {
    std::vector<CategoryComposition> categories; ///< in the order the suite first names them
    int prompts = 0; ///< distinct measured prompts in all
    int requestsPerEndpoint = 0; ///< measured and warm-up requests one endpoint is sent
    int concurrencyLevels = 1; ///< a throughput sweep repeats everything per level
    PrefixCacheMode prefixCache = PrefixCacheMode::Unstated;
};

/// Counts under `settings` (a --runs or --warmup on the command line beats the suite's own).
SuiteComposition suiteComposition(const Suite& suite, const RunSettings& settings);

/// One paragraph: "62 distinct prompts (greeting 6, factual 10, …); 3 timing repeats per prompt
/// (repeats steady the clock, they are not more evidence); 1 warm-up per test; 248 requests per
/// endpoint; prefix cache warm (production's pattern)."
QString compositionText(const SuiteComposition& composition);

nlohmann::json toJson(const SuiteComposition& composition);

/// `perCategory` distinct prompts of each category, drawn with `seed` (the rest left out), in the
/// suite's order. Tests that send the same prompt (a thinking-on/off pair) are drawn together.
/// `raw` keeps only the drawn tests, so a results file says exactly what was asked. 0 keeps all.
Suite drawPrompts(const Suite& suite, int perCategory, quint64 seed);

} // namespace qs
