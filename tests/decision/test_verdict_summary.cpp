// SPDX-License-Identifier: MIT
// summarizeVerdict(): the one sentence and the few deciding criteria the report's page 1 and the
// Decision tab lead with, for each kind of decision.
#include "model/decide/VerdictSummary.h"

#include <gtest/gtest.h>

using namespace qs;
using Outcome = CriterionResult::Outcome;
using Decision = Recommendation::Decision;

namespace {

CriterionResult criterion(const char* title, Outcome outcome)
{
    CriterionResult c;
    c.criterion.id = QString::fromLatin1(title);
    c.criterion.title = QString::fromLatin1(title);
    c.outcome = outcome;
    return c;
}

/// A pass decided on an interval: the figure's upper end `hi` under the limit `limit`.
CriterionResult passWithin(const char* title, double hi, double limit)
{
    CriterionResult c = criterion(title, Outcome::Pass);
    c.estimate = hi * 0.9;
    c.interval = Interval {hi * 0.8, hi};
    c.limit = limit;
    return c;
}

Recommendation rec(Decision d, std::vector<CriterionResult> criteria)
{
    Recommendation r;
    r.baselineLabel = QStringLiteral("Q4_K_M");
    r.candidateLabel = QStringLiteral("NVFP4");
    r.decision = d;
    r.criteria = std::move(criteria);
    return r;
}

} // namespace

TEST(VerdictSummary, KeepNamesTheFailedCriteriaFirstAndCountsTheRest)
{
    const VerdictSummary s = summarizeVerdict(rec(Decision::KeepBaseline,
        {criterion("a", Outcome::Pass), criterion("leaks", Outcome::Fail),
            criterion("b", Outcome::Inconclusive), criterion("decode", Outcome::Fail),
            criterion("c", Outcome::NotMeasured), criterion("ttft", Outcome::Fail),
            criterion("tools", Outcome::Fail)}));
    EXPECT_EQ(s.sentence, QStringLiteral("Keep Q4_K_M: NVFP4 fails 4 of 7 criteria."));
    EXPECT_EQ(s.decidingTitle, QStringLiteral("Failed"));
    EXPECT_EQ(s.deciding, (std::vector<int> {1, 3, 5})); // three at most, in profile order
    EXPECT_EQ(s.moreDeciding, 1);
    EXPECT_EQ(s.counts(), QStringLiteral("4 failed · 1 undecided · 1 passed · 1 not measured"));
}

TEST(VerdictSummary, SwitchShowsThePassesNearestTheirLimits)
{
    // The reader should check what almost failed: 1.08 under a 1.10 limit before 0.5 under 1.10;
    // a pass decided on counts (no interval) last.
    const VerdictSummary s = summarizeVerdict(
        rec(Decision::Switch,
            {criterion("counted", Outcome::Pass), passWithin("roomy", 0.5, 1.1),
                passWithin("tight", 1.08, 1.1), criterion("unmeasured", Outcome::NotMeasured)}),
        2);
    EXPECT_EQ(
        s.sentence, QStringLiteral("Switch to NVFP4: it meets all 3 criteria measured (1 not measured)."));
    EXPECT_EQ(s.deciding, (std::vector<int> {2, 1}));
    EXPECT_EQ(s.moreDeciding, 1);
    EXPECT_EQ(s.decidingTitle, QStringLiteral("Passed closest to their limits"));
}

TEST(VerdictSummary, AFloorIsNearestFromBelow)
{
    // "At least 25 tok/s": the interval's lower end is what comes near the limit.
    CriterionResult floor = criterion("decode", Outcome::Pass);
    floor.interval = Interval {25.5, 40};
    floor.limit = 25;
    floor.worseAbove = false;
    const VerdictSummary s = summarizeVerdict(rec(Decision::Switch, {passWithin("ttft", 60, 120), floor}), 1);
    EXPECT_EQ(s.deciding, (std::vector<int> {1}));
}

TEST(VerdictSummary, InconclusiveListsWhatOneMoreRunWouldSettleFirst)
{
    CriterionResult far = criterion("far", Outcome::Inconclusive);
    far.promptsToSettle = 85;
    CriterionResult near = criterion("near", Outcome::Inconclusive);
    near.promptsToSettle = 12;
    Recommendation r = rec(Decision::Inconclusive, {far, criterion("ok", Outcome::Pass), near});
    VerdictSummary s = summarizeVerdict(r);
    EXPECT_EQ(s.sentence,
        QStringLiteral("No verdict yet between Q4_K_M and NVFP4: 2 of 3 criteria could not be decided."));
    EXPECT_EQ(s.deciding, (std::vector<int> {2, 0}));
    EXPECT_EQ(s.decidingTitle, QStringLiteral("Could not be decided"));

    r.caveats << QStringLiteral("Different models: …");
    EXPECT_TRUE(summarizeVerdict(r).sentence.endsWith(QStringLiteral(", and the comparison is not fair.")));

    // Everything decided but the comparison unfair: no criterion to list, the reason in the sentence.
    Recommendation unfair = rec(Decision::Inconclusive, {criterion("ok", Outcome::Pass)});
    unfair.caveats << QStringLiteral("Different models: …");
    s = summarizeVerdict(unfair);
    EXPECT_EQ(s.sentence, QStringLiteral("No verdict between Q4_K_M and NVFP4: the comparison is not fair."));
    EXPECT_TRUE(s.deciding.empty());
}
