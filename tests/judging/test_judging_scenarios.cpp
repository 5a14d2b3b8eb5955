// SPDX-License-Identifier: MIT
// The "How it is judged", end to end: a scripted judge on loopback (the emulator playing
// it), the real JudgeRunner, the file written and read back, evaluate() and recommend() with the
// built-in voice-assistant profile, and the `summary --json` object.

#include "model/decide/DecisionProfile.h"
#include "model/decide/Recommendation.h"
#include "model/evaluate/Evaluation.h"
#include "model/run/JudgeRunner.h"
#include "model/store/ResultFile.h"
#include "tests/judging/JudgingTestSupport.h"
#include "tests/support/Emulator.h"
#include "tests/support/EmulatorJudge.h"

#include <QTemporaryDir>
#include <gtest/gtest.h>

using namespace qs;

namespace {

constexpr int Pairs = 12;

/// Baseline (0) and candidate (1) answer the same 12 prompts; only the `favoured` arm's answers
/// contain "sunshine", which the PreferWord judge looks for.
RunResult twelvePairs(int favoured)
{
    RunResult result;
    result.endpoints = {test::secretEndpoint(0), test::secretEndpoint(1)};
    for (int i = 1; i <= Pairs; ++i)
        for (int endpoint = 0; endpoint < 2; ++endpoint) {
            const QString answer = endpoint == favoured
                ? QStringLiteral("Good morning! Sunshine all day in Paris, answer %1.").arg(i)
                : QStringLiteral("Paris. Answer %1.").arg(i);
            // 12 distinct prompts (the unit of evidence), asked once each.
            RunRecord r = test::answerRecord(endpoint, QStringLiteral("chat-%1").arg(i), 1, 1, answer);
            r.request.metrics.ttftVisibleMs = 100.0 + i + endpoint;
            r.request.metrics.decodeTps = 40.0 + endpoint;
            result.records.push_back(r);
        }
    return result;
}

JudgeRequest requestFor(RunResult result, const QUrl& judge)
{
    JudgeRequest r;
    r.result = std::move(result);
    r.judge.label = QStringLiteral("judge");
    r.judge.baseUrl = judge;
    r.judge.model = QStringLiteral("judge-emulated");
    r.judge.timeouts.connectMs = 2000;
    r.identity.spec = QStringLiteral("url=") + judge.toString();
    r.identity.url = judge.toString();
    r.identity.model = QStringLiteral("judge-emulated");
    r.plan.rubric = loadBuiltinRubric(QStringLiteral("voice-assistant"));
    r.plan.pairwiseBaseline = 0;
    r.concurrency = 3;
    r.timeoutMs = 3000;
    return r;
}

/// Judges, writes the file, reads it back: what a later `summary` or report sees.
RunResult judgedAndReloaded(JudgeRequest request, const QTemporaryDir& dir)
{
    RunResult result = request.result;
    result.judging = runJudgingBlocking(std::move(request));
    const QString path = dir.filePath(QStringLiteral("judged.json"));
    EXPECT_EQ(saveResults(result, path), QString());
    return loadResults(path);
}

bool hasWarning(const Evaluation& ev, const char* id)
{
    for (const Guardrail& g : ev.guardrails)
        if (g.id == QLatin1String(id))
            return true;
    return false;
}

const CriterionResult* criterion(const Recommendation& rec, const char* id)
{
    for (const CriterionResult& c : rec.criteria)
        if (c.criterion.id == QLatin1String(id))
            return &c;
    return nullptr;
}

} // namespace

TEST(JudgingScenarios, AJudgeThatAlwaysPicksTheFirstAnswerGivesATieNeverAWinner)
{
    emu::JudgeBehaviour always;
    always.mode = emu::JudgeBehaviour::Mode::AlwaysFirst;
    emu::EmulatorThread judge;
    ASSERT_TRUE(judge.start(emu::judgeServerConfig(always)));
    QTemporaryDir dir;
    const RunResult result = judgedAndReloaded(requestFor(twelvePairs(1), judge.baseUrl()), dir);

    const Evaluation ev = evaluate(result, 0);
    ASSERT_TRUE(ev.judged.judged);
    const PairwiseResult* pr = ev.judged.pairwiseFor(1);
    ASSERT_NE(pr, nullptr);
    EXPECT_EQ(pr->pairs, Pairs);
    EXPECT_EQ(pr->wins, 0);
    EXPECT_EQ(pr->losses, 0);
    EXPECT_EQ(pr->inconsistent, Pairs);
    EXPECT_EQ(pr->winner, -1);
    EXPECT_DOUBLE_EQ(pr->consistency.value_or(-1), 0.0);
    EXPECT_DOUBLE_EQ(pr->firstPositionRate.value_or(-1), 1.0);
    EXPECT_TRUE(hasWarning(ev, "judge_position_bias"));
    EXPECT_TRUE(hasWarning(ev, "judge_low_consistency"));

    const nlohmann::json j = toJson(ev.judged, result);
    EXPECT_TRUE(j["pairwise"][0]["winner"].is_null());
    EXPECT_EQ(j["pairwise"][0]["ties"], Pairs);

    // The decision cannot lean on a judge that cannot be trusted.
    const auto recs = recommend(result, ev, loadBuiltinDecisionProfile(QStringLiteral("voice-assistant")));
    ASSERT_EQ(recs.size(), 1u);
    const CriterionResult* notWorse = criterion(recs[0], "judged_not_worse");
    ASSERT_NE(notWorse, nullptr);
    EXPECT_NE(notWorse->outcome, CriterionResult::Outcome::Pass);
    EXPECT_NE(notWorse->outcome, CriterionResult::Outcome::Fail);
}

TEST(JudgingScenarios, AJudgeThatPrefersOneArmInEitherOrderMakesItWinAndTheDecisionUsesIt)
{
    for (const int favoured : {1, 0}) {
        SCOPED_TRACE(favoured == 1 ? "prefers the candidate" : "prefers the baseline");
        emu::JudgeBehaviour prefer;
        prefer.mode = emu::JudgeBehaviour::Mode::PreferWord;
        prefer.word = QStringLiteral("sunshine");
        emu::EmulatorThread judge;
        ASSERT_TRUE(judge.start(emu::judgeServerConfig(prefer, emu::Dialect::Vllm)));
        QTemporaryDir dir;
        const RunResult result = judgedAndReloaded(requestFor(twelvePairs(favoured), judge.baseUrl()), dir);

        const Evaluation ev = evaluate(result, 0);
        const PairwiseResult* pr = ev.judged.pairwiseFor(1);
        ASSERT_NE(pr, nullptr);
        EXPECT_EQ(pr->pairs, Pairs);
        EXPECT_EQ(favoured == 1 ? pr->wins : pr->losses, Pairs);
        EXPECT_EQ(pr->inconsistent, 0);
        EXPECT_DOUBLE_EQ(pr->consistency.value_or(-1), 1.0);
        ASSERT_TRUE(pr->winRateCi);
        EXPECT_FALSE(pr->winRateCi->contains(0.5)) << "the interval must exclude no difference";
        EXPECT_EQ(pr->winner, favoured);
        EXPECT_LT(pr->signTestP, 0.001);
        EXPECT_FALSE(hasWarning(ev, "judge_position_bias"));
        EXPECT_FALSE(hasWarning(ev, "judge_low_consistency"));

        // Rubric: 5s for the favoured arm's answers, 2s for the other's.
        const RubricScore* favouredScore = ev.judged.score(favoured, QStringLiteral("warm_personal"));
        const RubricScore* otherScore = ev.judged.score(1 - favoured, QStringLiteral("warm_personal"));
        ASSERT_NE(favouredScore, nullptr);
        ASSERT_NE(otherScore, nullptr);
        EXPECT_EQ(favouredScore->median, 5);
        EXPECT_EQ(otherScore->median, 2);

        const auto recs
            = recommend(result, ev, loadBuiltinDecisionProfile(QStringLiteral("voice-assistant")));
        ASSERT_EQ(recs.size(), 1u);
        const CriterionResult* notWorse = criterion(recs[0], "judged_not_worse");
        ASSERT_NE(notWorse, nullptr);
        EXPECT_EQ(notWorse->outcome,
            favoured == 1 ? CriterionResult::Outcome::Pass : CriterionResult::Outcome::Fail);
        const CriterionResult* warm = criterion(recs[0], "judged_warm_personal");
        ASSERT_NE(warm, nullptr);
        EXPECT_EQ(
            warm->outcome, favoured == 1 ? CriterionResult::Outcome::Pass : CriterionResult::Outcome::Fail);
        if (favoured == 0) {
            EXPECT_EQ(recs[0].decision, Recommendation::Decision::KeepBaseline);
        }

        const nlohmann::json j = toJson(ev.judged, result);
        EXPECT_EQ(j["pairwise"][0]["winner"],
            result.endpoints[std::size_t(favoured)].endpoint.displayName().toStdString());
    }
}

TEST(JudgingScenarios, AGarbageJudgeLeavesJudgeFailedAndKeepsEveryMeasurement)
{
    emu::JudgeBehaviour garbage;
    garbage.mode = emu::JudgeBehaviour::Mode::Garbage;
    emu::EmulatorThread judge;
    ASSERT_TRUE(judge.start(emu::judgeServerConfig(garbage, emu::Dialect::Sglang)));
    QTemporaryDir dir;
    const RunResult before = twelvePairs(1);
    const RunResult result = judgedAndReloaded(requestFor(before, judge.baseUrl()), dir);

    ASSERT_EQ(result.judging.rubricVerdicts.size(), std::size_t(2 * Pairs));
    for (const RubricVerdict& v : result.judging.rubricVerdicts) {
        EXPECT_TRUE(v.failed());
        EXPECT_TRUE(v.scores.empty()) << "a reply that cannot be read is never a score";
        EXPECT_FALSE(v.exchange.reply.isEmpty()) << "the raw reply is kept";
    }
    for (const PairVerdict& v : result.judging.pairVerdicts)
        EXPECT_EQ(v.pick, PairPick::Failed);
    // Every latency measurement is as it was.
    ASSERT_EQ(result.records.size(), before.records.size());
    for (std::size_t i = 0; i < before.records.size(); ++i) {
        EXPECT_EQ(
            result.records[i].request.metrics.ttftVisibleMs, before.records[i].request.metrics.ttftVisibleMs);
        EXPECT_EQ(result.records[i].request.response.content, before.records[i].request.response.content);
    }
    const Evaluation ev = evaluate(result, 0);
    EXPECT_EQ(ev.judged.pairwiseFor(1) ? ev.judged.pairwiseFor(1)->winner : -1, -1);
    EXPECT_EQ(ev.judged.rubricArms.at(1).failed, Pairs);
    EXPECT_EQ(ev.judged.rubricArms.at(1).graded, 0);
}

TEST(JudgingScenarios, AJudgeThatDiesMidwayIsResumedToTheEnd)
{
    emu::JudgeBehaviour dying;
    dying.mode = emu::JudgeBehaviour::Mode::DieAfter;
    dying.word = QStringLiteral("sunshine");
    dying.dieAfter = 10;
    dying.death = emu::JudgeBehaviour::Death::Disconnect;
    emu::EmulatorThread judge;
    ASSERT_TRUE(judge.start(emu::judgeServerConfig(dying)));
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("judged.json"));

    JudgeRequest first = requestFor(twelvePairs(1), judge.baseUrl());
    first.concurrency = 1;
    RunResult result = first.result;
    result.judging = runJudgingBlocking(first);
    ASSERT_EQ(saveResults(result, path), QString());
    int read = 0;
    for (const RubricVerdict& v : result.judging.rubricVerdicts)
        read += v.failed() ? 0 : 1;
    for (const PairVerdict& v : result.judging.pairVerdicts)
        read += v.exchange.failed() ? 0 : 1;
    EXPECT_EQ(read, 10) << "what was judged before the judge died is kept";

    // The judge comes back; the same judging, resumed from the file, completes.
    emu::JudgeBehaviour healthy;
    healthy.word = QStringLiteral("sunshine");
    judge.server()->setConfig(emu::judgeServerConfig(healthy));
    JudgeRequest again = requestFor(loadResults(path), judge.baseUrl());
    const Judging resumed = runJudgingBlocking(again);
    EXPECT_TRUE(resumed.complete);
    EXPECT_EQ(resumed.rubricVerdicts.size(), std::size_t(2 * Pairs));
    EXPECT_EQ(resumed.pairVerdicts.size(), std::size_t(2 * Pairs));
    for (const RubricVerdict& v : resumed.rubricVerdicts)
        EXPECT_FALSE(v.failed()) << v.exchange.error.toStdString();
    for (const PairVerdict& v : resumed.pairVerdicts)
        EXPECT_FALSE(v.exchange.failed()) << v.exchange.error.toStdString();
    result.judging = resumed;
    const Evaluation ev = evaluate(result, 0);
    ASSERT_NE(ev.judged.pairwiseFor(1), nullptr);
    EXPECT_EQ(ev.judged.pairwiseFor(1)->wins, Pairs);
}
