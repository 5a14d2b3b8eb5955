// SPDX-License-Identifier: MIT
#pragma once

#include "model/decide/Recommendation.h"

#include <QString>
#include <vector>

namespace qs {

/// A verdict as a reader meets it first — the report's page 1, the Decision tab's banner, a blog
/// post's quote: one short sentence, the few criteria that decided it, and how the rest came out.
/// The full headline (Recommendation::headline) and every criterion stay where they are; this
/// only chooses what to say first.
struct VerdictSummary {
    /// "Keep Q4_K_M: NVFP4 fails 2 of 20 criteria.", "Switch to NVFP4: it meets all 11 criteria
    /// measured (9 not measured).", "No verdict yet between …: 3 of 20 criteria could not be
    /// decided."
    QString sentence;
    /// Indices into Recommendation::criteria of the criteria that decided it, most telling first:
    /// the failed ones for Keep, the undecided ones for Inconclusive, and for Switch the passes
    /// closest to their limits (what a reader should check before trusting the switch).
    std::vector<int> deciding;
    int moreDeciding = 0; ///< further criteria of the same kind not in `deciding`
    int passed = 0;
    int failed = 0;
    int undecided = 0;
    int notMeasured = 0;
    /// "2 failed · 7 undecided · 2 passed · 9 not measured" (zero counts left out).
    QString counts() const;
    /// "Failed", "Could not be decided", "Passed closest to their limits": what `deciding` lists.
    QString decidingTitle;
};

/// The summary of `recommendation`, naming at most `shown` deciding criteria.
VerdictSummary summarizeVerdict(const Recommendation& recommendation, int shown = 3);

} // namespace qs
