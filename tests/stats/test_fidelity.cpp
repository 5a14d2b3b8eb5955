// SPDX-License-Identifier: MIT
// Fidelity (docs/methodology.md, "Fidelity"): hand-built answers whose every number is computed
// by hand here — identical arms, a divergence at a known token with known distributions,
// truncated lists with their tail, the servers' sentinels, tokenizers that cut text differently,
// a server that ignores logprobs, a grade that flips.
#include "model/evaluate/Evaluation.h"
#include "model/evaluate/Fidelity.h"
#include "model/evaluate/JudgedQuality.h"
#include "tests/stats/FidelityTestSupport.h"
#include "tests/stats/StatsTestSupport.h"

#include <gtest/gtest.h>

using namespace qs;
using namespace qs::test;

namespace {

constexpr double kEps = 1e-12;
const double kInf = std::numeric_limits<double>::infinity();

/// "The capital is Paris." with distributions that are not certain (a tail at every position).
std::vector<TokenLogprob> parisAnswer()
{
    return {token("The", {candidate("The", 0.7), candidate("It", 0.2)}),
        token(" capital", {candidate(" capital", 0.9), candidate(" city", 0.05)}),
        token(" is", {candidate(" is", 0.95)}),
        token(" Paris", {candidate(" Paris", 0.8), candidate(" France", 0.1), candidate(" the", 0.05)}),
        token(".", {candidate(".", 0.99)})};
}

/// A byte token in a top list as llama-server writes it: text cut to valid UTF-8 (""), raw bytes.
TokenCandidate byteToken(QByteArray bytes, double p, qint64 id)
{
    TokenCandidate c = candidate("", p, id);
    c.bytes = std::move(bytes);
    return c;
}

/// llama-server's entry for a partial character held back and merged with the next token: the
/// text of both (`bytes`), the next token's id, logprob and top list (`own` listed first).
TokenLogprob mergedEntry(const QByteArray& bytes, const TokenCandidate& own, std::vector<TokenCandidate> rest)
{
    rest.insert(rest.begin(), own);
    TokenLogprob t = token("", std::move(rest), -1, own.id);
    t.token = QString::fromUtf8(bytes);
    t.bytes = bytes;
    t.logprob = own.logprob;
    return t;
}

RunResult twoArms(const QString& reference = {})
{
    RunResult run = makeRun({QStringLiteral("BF16"), QStringLiteral("Q4")});
    if (!reference.isEmpty())
        run.endpoints[reference == u"Q4" ? 1 : 0].reference = true;
    return run;
}

} // namespace

TEST(TopList, SortsServerOrderAndKeepsTheHigherDuplicate)
{
    // vLLM: the sampled token first, then by rank.
    const std::vector<TokenCandidate> vllm {candidate(" b", 0.2), candidate(" a", 0.5), candidate(" c", 0.1)};
    const auto n = normalizedTopList(vllm);
    ASSERT_EQ(n.size(), 3u);
    EXPECT_EQ(n[0].token, QStringLiteral(" a"));
    EXPECT_EQ(n[1].token, QStringLiteral(" b"));
    EXPECT_EQ(n[2].token, QStringLiteral(" c"));
    // SGLang: partial characters collapse to U+FFFD; a duplicate keeps the higher logprob.
    const std::vector<TokenCandidate> sglang {
        candidate("\xEF\xBF\xBD", 0.1), candidate("x", 0.6), candidate("\xEF\xBF\xBD", 0.2)};
    const auto s = normalizedTopList(sglang);
    ASSERT_EQ(s.size(), 2u);
    EXPECT_EQ(s[0].token, QStringLiteral("x"));
    EXPECT_DOUBLE_EQ(s[1].logprob, std::log(0.2));
    // Ids decide when both entries carry one: the same text under two ids is two tokens.
    const auto ids
        = normalizedTopList({candidate("a", 0.5, 1), candidate("a", 0.3, 2), candidate("a", 0.1, 1)});
    ASSERT_EQ(ids.size(), 2u);
    EXPECT_EQ(ids[0].id, 1);
    EXPECT_EQ(ids[1].id, 2);
    // Impossible entries stay (at the end).
    const auto inf = normalizedTopList({candidate("z", 0.0), candidate("y", 1.0)});
    ASSERT_EQ(inf.size(), 2u);
    EXPECT_EQ(inf[1].logprob, -kInf);
}

TEST(TopListKl, ExactOnCompleteDistributions)
{
    const auto p = std::vector {candidate("x", 0.9), candidate("y", 0.1)};
    const auto q = std::vector {candidate("y", 0.2), candidate("x", 0.8)};
    const double expected = 0.9 * std::log(0.9 / 0.8) + 0.1 * std::log(0.1 / 0.2);
    EXPECT_NEAR(*topListKl(p, q), expected, kEps);
    EXPECT_EQ(*topListKl(p, p), 0.0);
    EXPECT_FALSE(topListKl(p, {}).has_value());
    EXPECT_FALSE(topListKl({}, q).has_value());
}

TEST(TopListKl, TruncatedListsShareTheirTail)
{
    // P lists a .5, b .3 (tail .2); Q lists a .4, c .4 (tail .2). Each list's missing token gets
    // min(smallest listed, T / 2) = .1 and the bucket keeps .1.
    const auto p = std::vector {candidate("a", 0.5), candidate("b", 0.3)};
    const auto q = std::vector {candidate("a", 0.4), candidate("c", 0.4)};
    const double expected = 0.5 * std::log(0.5 / 0.4) + 0.3 * std::log(0.3 / 0.1) + 0.1 * std::log(0.1 / 0.4)
        + 0.1 * std::log(0.1 / 0.1);
    EXPECT_NEAR(*topListKl(p, q), expected, kEps);
    // The smallest listed p bounds a missing token: P's c gets .01 (not .045), Q's b .025.
    const auto p2 = std::vector {candidate("a", 0.9), candidate("b", 0.01)};
    const auto q2 = std::vector {candidate("a", 0.9), candidate("c", 0.05)};
    const double expected2
        = 0.01 * std::log(0.01 / 0.025) + 0.01 * std::log(0.01 / 0.05) + 0.08 * std::log(0.08 / 0.025);
    EXPECT_NEAR(*topListKl(p2, q2), expected2, kEps);
}

TEST(TopListKl, ListsAboveOneAreScaled)
{
    // Rounding: .6 + .5 = 1.1 → .6/1.1, .5/1.1, no tail.
    const auto p = std::vector {candidate("a", 0.6), candidate("b", 0.5)};
    const auto q = std::vector {candidate("a", 0.5), candidate("b", 0.5)};
    const double pa = 0.6 / 1.1, pb = 0.5 / 1.1;
    EXPECT_NEAR(*topListKl(p, q), pa * std::log(pa / 0.5) + pb * std::log(pb / 0.5), kEps);
}

TEST(TopListKl, SentinelsGiveFiniteNumbers)
{
    // llama-server's float lowest and vLLM's -9999 both read as −∞ (p = 0).
    TokenCandidate llama = candidate("b", 0.5);
    llama.logprob = normalizedLogprob(-3.4028234663852886e+38);
    TokenCandidate vllm = candidate("c", 0.5);
    vllm.logprob = normalizedLogprob(-9999.0);
    const auto certain = std::vector {candidate("a", 1.0), llama, vllm};
    const auto half = std::vector {candidate("a", 0.5), candidate("b", 0.5)};
    // P certain of a: KL = ln(1 / .5).
    EXPECT_NEAR(*topListKl(certain, half), std::log(2.0), kEps);
    // Q gives b p = 0 where P gives it .5: floored, large but finite.
    const double expected = 0.5 * std::log(0.5 / 1.0) + 0.5 * std::log(0.5 / FidelityProbabilityFloor);
    EXPECT_NEAR(*topListKl(half, certain), expected, 1e-9);
    // All impossible: still a number.
    const auto none = std::vector {candidate("a", 0.0)};
    EXPECT_TRUE(std::isfinite(*topListKl(none, half)));
    EXPECT_TRUE(std::isfinite(*topListKl(half, none)));
}

TEST(Fidelity, IdenticalArmsGiveZeroFlipsZeroKlAndTheFullPrefix)
{
    RunResult run = twoArms(QStringLiteral("BF16"));
    for (int i = 1; i <= 3; ++i)
        for (int e = 0; e < 2; ++e)
            run.records.push_back(fidelityAnswer(e, QStringLiteral("capital"), i, parisAnswer()));
    const Fidelity f = computeFidelity(run, 1);
    EXPECT_EQ(f.reference, 0);
    EXPECT_TRUE(f.referenceMarked);
    ASSERT_EQ(f.arms.size(), 1u);
    const FidelityArm& a = f.arms[0];
    EXPECT_EQ(a.endpoint, 1);
    EXPECT_EQ(a.prompts.size(), 3u);
    EXPECT_EQ(a.identical, 3);
    EXPECT_EQ(a.flipRate, 0.0);
    ASSERT_TRUE(a.klMean);
    EXPECT_EQ(*a.klMean, 0.0);
    EXPECT_EQ(*a.klP99, 0.0);
    EXPECT_TRUE(a.klComparable);
    EXPECT_EQ(a.medianSharedPrefixTokens, 5.0);
    EXPECT_EQ(a.meanSharedPrefixFraction, 1.0);
    EXPECT_EQ(*a.meanAbsLogprobDelta, 0.0);
    for (const FidelityPrompt& p : a.prompts) {
        EXPECT_TRUE(p.identical);
        EXPECT_FALSE(p.firstDivergence.has_value());
        EXPECT_EQ(p.sharedPrefixTokens, 5);
        EXPECT_EQ(p.klPositions, 5);
        EXPECT_EQ(*p.kl, 0.0);
    }
    EXPECT_EQ(a.nearTies + a.confidentFlips, 0);
    const Interval ci = clopperPearsonInterval(0, 3);
    EXPECT_EQ(a.flipRateCi->lo, ci.lo);
    EXPECT_EQ(a.flipRateCi->hi, ci.hi);
}

TEST(Fidelity, DivergenceAtKGivesTheScriptedRankProbabilityAndKl)
{
    // Complete distributions: position 0 and 1 shared, the candidate picks B at position 2.
    const std::vector<TokenLogprob> ref {token("x", {candidate("x", 0.9), candidate("y", 0.1)}),
        token("x", {candidate("x", 1.0)}), token("A", {candidate("A", 0.6), candidate("B", 0.4)}),
        certain("!")};
    const std::vector<TokenLogprob> cand {token("x", {candidate("y", 0.2), candidate("x", 0.8)}),
        token("x", {candidate("x", 0.7), candidate("z", 0.3)}),
        token("B", {candidate("B", 0.55), candidate("A", 0.45)}), certain("?")};
    const FidelityPrompt p = compareAnswers(
        fidelityAnswer(0, QStringLiteral("t"), 1, ref), fidelityAnswer(1, QStringLiteral("t"), 1, cand));
    EXPECT_FALSE(p.identical);
    EXPECT_TRUE(p.tokensComparable);
    ASSERT_TRUE(p.firstDivergence);
    EXPECT_EQ(*p.firstDivergence, 2);
    EXPECT_EQ(p.sharedPrefixTokens, 2);
    EXPECT_DOUBLE_EQ(p.sharedPrefixFraction, 0.5);
    EXPECT_EQ(p.sharedPrefixChars, 2);
    EXPECT_EQ(*p.firstDivergenceChar, 2);
    EXPECT_EQ(*p.referenceTokenRank, 2);
    EXPECT_NEAR(*p.referenceTokenProb, 0.45, kEps);
    EXPECT_NEAR(*p.candidateTokenProb, 0.55, kEps);
    EXPECT_NEAR(*p.referenceOwnProb, 0.6, kEps);
    EXPECT_EQ(p.listedCandidates, 2);
    // KL over positions 0, 1 and the divergence 2.
    const double kl0 = 0.9 * std::log(0.9 / 0.8) + 0.1 * std::log(0.1 / 0.2);
    const double kl1 = std::log(1 / 0.7);
    const double kl2 = 0.6 * std::log(0.6 / 0.45) + 0.4 * std::log(0.4 / 0.55);
    EXPECT_EQ(p.klPositions, 3);
    EXPECT_NEAR(*p.kl, (kl0 + kl1 + kl2) / 3, kEps);
    // |Δ logprob| of the chosen token over the shared prefix (positions 0 and 1).
    EXPECT_EQ(p.logprobDeltaPositions, 2);
    EXPECT_NEAR(*p.meanAbsLogprobDelta, (std::log(0.9 / 0.8) + std::log(1 / 0.7)) / 2, kEps);

    RunResult run = twoArms();
    run.records
        = {fidelityAnswer(0, QStringLiteral("t"), 1, ref), fidelityAnswer(1, QStringLiteral("t"), 1, cand)};
    const Fidelity f = computeFidelity(run, 0);
    EXPECT_FALSE(f.referenceMarked);
    ASSERT_EQ(f.arms.size(), 1u);
    EXPECT_EQ(f.arms[0].flipRate, 1.0);
    EXPECT_NEAR(*f.arms[0].klMean, (kl0 + kl1 + kl2) / 3, kEps);
    EXPECT_EQ(f.arms[0].nearTies, 1); // .45 ≥ .5 × .55
    EXPECT_EQ(f.arms[0].confidentFlips, 0);
    EXPECT_FALSE(f.notes.isEmpty()); // "no endpoint is marked as the reference"
}

TEST(Fidelity, TokenPooledMeanWeighsPromptsByPositions)
{
    // Prompt 1: 1 position of KL k1; prompt 2: 3 positions of 0. Pooled: k1 / 4, not k1 / 2.
    const auto p = std::vector {candidate("a", 0.9), candidate("b", 0.1)};
    const auto q = std::vector {candidate("a", 0.6), candidate("b", 0.4)};
    const double k1 = *topListKl(p, q);
    RunResult run = twoArms(QStringLiteral("BF16"));
    run.records = {fidelityAnswer(0, QStringLiteral("one"), 1, {token("a", p)}),
        fidelityAnswer(1, QStringLiteral("one"), 1, {token("a", q)}),
        fidelityAnswer(0, QStringLiteral("three"), 1, {certain("a"), certain("b"), certain("c")}),
        fidelityAnswer(1, QStringLiteral("three"), 1, {certain("a"), certain("b"), certain("c")})};
    const Fidelity f = computeFidelity(run, 0);
    ASSERT_EQ(f.arms.size(), 1u);
    EXPECT_NEAR(*f.arms[0].klMean, k1 / 4, kEps);
    ASSERT_TRUE(f.arms[0].klCi);
    EXPECT_LE(f.arms[0].klCi->lo, *f.arms[0].klMean);
    EXPECT_GE(f.arms[0].klCi->hi, *f.arms[0].klMean);
    EXPECT_EQ(f.arms[0].identical, 2); // the same tokens, other probabilities
    EXPECT_FALSE(computeFidelity(run, 0, -1, false).arms[0].klCi.has_value());
}

TEST(Fidelity, ConfidentFlipWhenTheReferenceTokenIsUnlisted)
{
    const FidelityPrompt p = compareAnswers(
        fidelityAnswer(0, QStringLiteral("t"), 1, {token("A", {candidate("A", 0.9), candidate("B", 0.05)})}),
        fidelityAnswer(
            1, QStringLiteral("t"), 1, {token("B", {candidate("B", 0.95), candidate("C", 0.01)})}));
    EXPECT_EQ(*p.firstDivergence, 0);
    EXPECT_FALSE(p.referenceTokenRank.has_value());
    EXPECT_FALSE(p.referenceTokenProb.has_value());
    EXPECT_EQ(p.listedCandidates, 2);
    RunResult run = twoArms();
    run.records = {fidelityAnswer(0, QStringLiteral("t"), 1, {token("A", {candidate("A", 0.9)})}),
        fidelityAnswer(
            1, QStringLiteral("t"), 1, {token("B", {candidate("B", 0.95), candidate("C", 0.01)})})};
    EXPECT_EQ(computeFidelity(run, 0).arms[0].confidentFlips, 1);
}

TEST(Fidelity, AShorterAnswerDivergesAtItsEnd)
{
    const auto full = parisAnswer();
    auto cut = full;
    cut.resize(3);
    const FidelityPrompt p = compareAnswers(
        fidelityAnswer(0, QStringLiteral("t"), 1, full), fidelityAnswer(1, QStringLiteral("t"), 1, cut));
    EXPECT_FALSE(p.identical);
    EXPECT_EQ(*p.firstDivergence, 3);
    EXPECT_EQ(p.sharedPrefixTokens, 3);
    EXPECT_EQ(p.klPositions, 3); // no position 3 on the candidate: nothing to compare there
    EXPECT_FALSE(p.referenceTokenRank.has_value());
}

TEST(Fidelity, SentinelsInAnswersGiveFiniteResults)
{
    // llama-server: the chosen token's logprob is float lowest (p = 0 by rounding), the list
    // holds impossible entries, and one position has no list at all (a drafted token).
    TokenLogprob odd = token("a", {candidate("a", 0.5), candidate("b", 0.5)});
    odd.logprob = normalizedLogprob(-3.4028234663852886e+38);
    TokenLogprob noList = certain("c");
    noList.top.clear();
    noList.hasTop = false;
    const std::vector<TokenLogprob> ref {odd, noList, token("d", {candidate("d", 1.0), candidate("e", 0.0)})};
    std::vector<TokenLogprob> cand {token("a", {candidate("a", 1.0), candidate("b", 0.0)}), noList,
        token("e", {candidate("e", 1.0), candidate("d", 0.0)})};
    RunResult run = twoArms();
    run.records
        = {fidelityAnswer(0, QStringLiteral("t"), 1, ref), fidelityAnswer(1, QStringLiteral("t"), 1, cand)};
    const Fidelity f = computeFidelity(run, 0);
    ASSERT_EQ(f.arms.size(), 1u);
    const FidelityPrompt& p = f.arms[0].prompts[0];
    EXPECT_EQ(*p.firstDivergence, 2);
    EXPECT_EQ(p.klPositions, 2); // position 1 has no lists
    for (double kl : p.positionKl)
        EXPECT_TRUE(std::isfinite(kl));
    EXPECT_TRUE(std::isfinite(*p.kl));
    EXPECT_EQ(*p.referenceTokenRank, 2);
    EXPECT_EQ(*p.referenceTokenProb, 0.0);
    EXPECT_EQ(f.arms[0].confidentFlips, 1);
    // Position 0's chosen logprob is −∞ on the reference: skipped; position 1 counts (both 0).
    EXPECT_EQ(p.logprobDeltaPositions, 1);
    const nlohmann::json j = toJson(f);
    EXPECT_TRUE(allFinite(j)) << j.dump();
    EXPECT_FALSE(j.dump().find("inf") != std::string::npos || j.dump().find("nan") != std::string::npos);
}

TEST(Fidelity, TokenizersThatCutTextDifferentlyFallBackToCharacters)
{
    const std::vector<TokenLogprob> ref {certain("Hel"), certain("lo"), certain(" world")};
    const std::vector<TokenLogprob> same {certain("Hello"), certain(" world")};
    FidelityPrompt p = compareAnswers(
        fidelityAnswer(0, QStringLiteral("t"), 1, ref), fidelityAnswer(1, QStringLiteral("t"), 1, same));
    EXPECT_FALSE(p.tokensComparable);
    EXPECT_TRUE(p.identical);
    EXPECT_EQ(p.note, QStringLiteral("tokenizers differ"));
    EXPECT_FALSE(p.kl.has_value());
    EXPECT_EQ(p.sharedPrefixTokens, 3);

    const std::vector<TokenLogprob> other {certain("Hello"), certain(" there")};
    p = compareAnswers(
        fidelityAnswer(0, QStringLiteral("t"), 1, ref), fidelityAnswer(1, QStringLiteral("t"), 1, other));
    EXPECT_FALSE(p.identical);
    EXPECT_EQ(*p.firstDivergenceChar, 6); // "Hello " then w vs t
    EXPECT_EQ(*p.firstDivergence, 2); // the reference token " world" holds it
    EXPECT_EQ(p.sharedPrefixTokens, 2);
    EXPECT_NEAR(p.sharedPrefixFraction, 2.0 / 3, kEps);

    // The same text under other ids: another vocabulary.
    const FidelityPrompt ids = compareAnswers(
        fidelityAnswer(0, QStringLiteral("t"), 1, {token("a", {candidate("a", 1.0, 5)}, -1, 5)}),
        fidelityAnswer(1, QStringLiteral("t"), 1, {token("a", {candidate("a", 1.0, 9)}, -1, 9)}));
    EXPECT_FALSE(ids.tokensComparable);

    RunResult run = twoArms();
    run.records
        = {fidelityAnswer(0, QStringLiteral("t"), 1, ref), fidelityAnswer(1, QStringLiteral("t"), 1, other),
            fidelityAnswer(0, QStringLiteral("u"), 1, parisAnswer()),
            fidelityAnswer(1, QStringLiteral("u"), 1, parisAnswer())};
    const Fidelity f = computeFidelity(run, 0);
    EXPECT_FALSE(f.arms[0].klComparable);
    EXPECT_EQ(f.arms[0].comparablePrompts, 1);
    EXPECT_EQ(*f.arms[0].klMean, 0.0); // over the comparable prompt only
    EXPECT_EQ(toJson(f)[0]["kl_comparable"], false);
}

TEST(Fidelity, EmptyEntriesAreSkippedWhenAligning)
{
    // llama-server holds text back ("" entries) and vLLM sends "" for a partial character.
    std::vector<TokenLogprob> ref = parisAnswer();
    TokenLogprob held = certain("");
    held.bytes.clear();
    ref.insert(ref.begin() + 2, held);
    const FidelityPrompt p = compareAnswers(fidelityAnswer(0, QStringLiteral("t"), 1, ref),
        fidelityAnswer(1, QStringLiteral("t"), 1, parisAnswer()));
    EXPECT_TRUE(p.identical);
    EXPECT_EQ(p.referenceTokens, 5);
}

TEST(Fidelity, PartialCharactersAreNotComparedAsTokens)
{
    // SGLang spells each piece of "é" as U+FFFD: the walk stops there; the token before it was
    // compared, the texts decide the rest.
    const FidelityPrompt p
        = compareAnswers(fidelityAnswer(0, QStringLiteral("t"), 1, {certain("caf"), certain("\xC3\xA9")}),
            fidelityAnswer(1, QStringLiteral("t"), 1,
                {certain("caf"), certain("\xEF\xBF\xBD"), certain("\xEF\xBF\xBD")}));
    EXPECT_FALSE(p.tokensComparable);
    EXPECT_EQ(p.klStoppedAt, 1);
    EXPECT_EQ(p.klPositions, 1);
    EXPECT_EQ(p.positionToken, std::vector<int> {0});
    EXPECT_EQ(*p.kl, 0.0);
    // Identical U+FFFD runs in identical texts are crossed, never compared as distributions.
    const FidelityPrompt same
        = compareAnswers(fidelityAnswer(0, QStringLiteral("t"), 1, {certain("\xEF\xBF\xBD")}),
            fidelityAnswer(1, QStringLiteral("t"), 1, {certain("\xEF\xBF\xBD")}));
    EXPECT_TRUE(same.tokensComparable);
    EXPECT_TRUE(same.identical);
    EXPECT_EQ(same.klPositions, 0);
    EXPECT_EQ(same.partialTokens, 1);
}

TEST(Fidelity, AServerThatIgnoresLogprobsIsComparedByText)
{
    RunResult run = twoArms(QStringLiteral("BF16"));
    run.records = {fidelityAnswer(0, QStringLiteral("t"), 1, parisAnswer()),
        textOnlyAnswer(1, QStringLiteral("t"), 1, QStringLiteral("The capital is Paris.")),
        fidelityAnswer(0, QStringLiteral("t"), 2, parisAnswer()),
        textOnlyAnswer(1, QStringLiteral("t"), 2, QStringLiteral("The capital is Lyon."))};
    const Fidelity f = computeFidelity(run, 0);
    ASSERT_EQ(f.arms.size(), 1u);
    const FidelityArm& a = f.arms[0];
    EXPECT_EQ(a.support, QStringLiteral("not supported by this server: it ignored `logprobs`"));
    EXPECT_EQ(a.identical, 1);
    EXPECT_DOUBLE_EQ(a.flipRate, 0.5);
    EXPECT_FALSE(a.klMean.has_value());
    EXPECT_FALSE(a.klComparable);
    EXPECT_EQ(a.prompts[0].note, QStringLiteral("no logprobs from this server"));
    EXPECT_TRUE(a.prompts[1].candidateIgnoredLogprobs);
    EXPECT_EQ(*a.prompts[1].firstDivergenceChar, 15);
    const nlohmann::json j = toJson(f);
    EXPECT_TRUE(j[0]["kl_mean"].is_null());
    EXPECT_EQ(j[0]["support"], "not supported by this server: it ignored `logprobs`");
}

// A streamed tool call's logprob entries are what each server's parser wrote: llama-server
// re-serialises the arguments, vLLM passes the model's text. The same call is no flip.
TEST(Fidelity, TheSameToolCallWrittenDifferentlyIsNoFlip)
{
    const auto callAnswer
        = [](int endpoint, int iteration, std::vector<TokenLogprob> tokens, const char* args) {
              RunRecord r = fidelityAnswer(endpoint, QStringLiteral("tool"), iteration, std::move(tokens));
              r.request.response.content.clear();
              r.request.response.toolCalls = {ToolCall {0, QStringLiteral("id"), QStringLiteral("function"),
                  QStringLiteral("web_search"), QString::fromUtf8(args)}};
              r.request.response.finishReason = QStringLiteral("tool_calls");
              return r;
          };
    RunResult run = twoArms(QStringLiteral("BF16"));
    run.records = {callAnswer(0, 1, {certain("{\"query\": \""), certain("Mars\"}")}, "{\"query\": \"Mars\"}"),
        callAnswer(1, 1, {certain("{\"query\":\"M"), certain("ars\"}")}, "{\"query\":\"Mars\"}"),
        callAnswer(0, 2, {certain("{\"query\": \""), certain("Mars\"}")}, "{\"query\": \"Mars\"}"),
        callAnswer(1, 2, {certain("{\"query\":\"V"), certain("enus\"}")}, "{\"query\":\"Venus\"}")};
    const Fidelity f = computeFidelity(run, 0);
    ASSERT_EQ(f.arms.size(), 1u);
    const FidelityArm& a = f.arms[0];
    ASSERT_EQ(a.prompts.size(), 2u);
    EXPECT_TRUE(a.prompts[0].identical);
    EXPECT_FALSE(a.prompts[0].tokensComparable);
    EXPECT_FALSE(a.prompts[0].kl.has_value());
    EXPECT_TRUE(a.prompts[0].note.contains(QStringLiteral("the same tool calls")));
    EXPECT_FALSE(a.prompts[1].identical); // another argument is another choice
    EXPECT_EQ(a.prompts[1].firstDivergence, 0);
    EXPECT_DOUBLE_EQ(a.flipRate, 0.5);
}

TEST(Fidelity, AGradeThatFlipsIsCounted)
{
    RunResult run = twoArms();
    RunRecord ref = fidelityAnswer(0, QStringLiteral("t"), 1, parisAnswer());
    RunRecord cand = fidelityAnswer(1, QStringLiteral("t"), 1, {certain("Lyon")});
    ref.gates = {{"expected_answer", true}, {"tool_call", nullptr}};
    cand.gates = {{"expected_answer", false}, {"tool_call", nullptr}};
    RunRecord ref2 = fidelityAnswer(0, QStringLiteral("t"), 2, parisAnswer());
    RunRecord cand2 = fidelityAnswer(1, QStringLiteral("t"), 2, {certain("Paris")});
    ref2.gates = {{"expected_answer", true}};
    cand2.gates = {{"expected_answer", true}};
    RunRecord ref3 = fidelityAnswer(0, QStringLiteral("t"), 3, parisAnswer());
    RunRecord cand3 = fidelityAnswer(1, QStringLiteral("t"), 3, parisAnswer());
    run.records = {ref, cand, ref2, cand2, ref3, cand3};
    const Fidelity f = computeFidelity(run, 0);
    const FidelityArm& a = f.arms[0];
    EXPECT_EQ(*a.prompts[0].gradeChanged, true);
    EXPECT_EQ(*a.prompts[1].gradeChanged, false);
    EXPECT_FALSE(a.prompts[2].gradeChanged.has_value());
    EXPECT_EQ(a.gradedPrompts, 2);
    EXPECT_EQ(a.gradeFlips, 1);
}

TEST(Fidelity, FailuresAndWarmupsAreNeverFlips)
{
    RunResult run = twoArms();
    RunRecord warm = fidelityAnswer(1, QStringLiteral("t"), 1, {certain("x")});
    warm.warmup = true;
    RunRecord failed = fidelityAnswer(1, QStringLiteral("t"), 2, {});
    failed.request.failure
        = makeFailure(FailureKind::ServerError, QStringLiteral("500"), QStringLiteral("retry"), 500);
    run.records = {fidelityAnswer(0, QStringLiteral("t"), 1, parisAnswer()), warm,
        fidelityAnswer(1, QStringLiteral("t"), 1, parisAnswer()),
        fidelityAnswer(0, QStringLiteral("t"), 2, parisAnswer()), failed,
        fidelityAnswer(0, QStringLiteral("t"), 3, parisAnswer())};
    const Fidelity f = computeFidelity(run, 0);
    const FidelityArm& a = f.arms[0];
    EXPECT_EQ(a.prompts.size(), 1u);
    EXPECT_EQ(a.failedPrompts, 1);
    EXPECT_EQ(a.flipRate, 0.0);
    EXPECT_EQ(a.prompts[0].candidateRecord, 2);
}

TEST(Fidelity, AMarkedReferenceWinsOverTheBaselineAndNothingWithoutFidelityPrompts)
{
    RunResult run = makeRun({QStringLiteral("Q8"), QStringLiteral("BF16"), QStringLiteral("Q4")});
    run.endpoints[1].reference = true;
    for (int e = 0; e < 3; ++e)
        run.records.push_back(fidelityAnswer(e, QStringLiteral("t"), 1, parisAnswer()));
    Fidelity f = computeFidelity(run, 0);
    EXPECT_EQ(f.reference, 1);
    ASSERT_EQ(f.arms.size(), 2u);
    EXPECT_EQ(f.arms[0].endpoint, 0);
    EXPECT_EQ(f.arms[1].endpoint, 2);
    EXPECT_EQ(f.arms[1].referenceLabel, QStringLiteral("BF16"));
    EXPECT_EQ(computeFidelity(run, 0, 2).reference, 2);
    EXPECT_EQ(evaluate(run, 0, {}, false).fidelity.arms.size(), 2u);

    // Records that did not ask for logprobs (and a suite that marks nothing) are no fidelity prompts.
    for (RunRecord& r : run.records)
        r.request.requestBody.edit().erase("logprobs");
    EXPECT_FALSE(computeFidelity(run, 0).measured());
    EXPECT_TRUE(toJson(computeFidelity(run, 0)).empty());
}

TEST(Fidelity, SummaryJsonHasTheIssuesKeys)
{
    RunResult run = twoArms(QStringLiteral("BF16"));
    run.records = {fidelityAnswer(0, QStringLiteral("capital"), 1, parisAnswer()),
        fidelityAnswer(1, QStringLiteral("capital"), 1, {certain("Lyon")})};
    const nlohmann::json j = toJson(computeFidelity(run, 0));
    ASSERT_EQ(j.size(), 1u);
    for (const char* key : {"endpoint", "reference", "prompts", "identical", "flip_rate", "kl_mean",
             "kl_comparable", "median_shared_prefix_tokens", "per_prompt"})
        EXPECT_TRUE(j[0].contains(key)) << key;
    EXPECT_EQ(j[0]["endpoint"], "Q4");
    EXPECT_EQ(j[0]["reference"], "BF16");
    EXPECT_EQ(j[0]["prompts"], 1);
    EXPECT_EQ(j[0]["flip_rate"], 1.0);
    const nlohmann::json& p = j[0]["per_prompt"][0];
    for (const char* key :
        {"test", "run", "first_divergence", "reference_token_rank", "reference_token_prob", "kl"})
        EXPECT_TRUE(p.contains(key)) << key;
    EXPECT_EQ(p["test"], "capital");
    EXPECT_EQ(p["run"], 1);
    EXPECT_EQ(p["first_divergence"], 0);
    EXPECT_TRUE(p["reference_token_rank"].is_null()); // "The" is not in Lyon's list
    EXPECT_TRUE(allFinite(j));
}

TEST(Fidelity, CombinedFilesKeepTheFirstReference)
{
    RunResult a = twoArms(QStringLiteral("BF16"));
    RunResult b = twoArms(QStringLiteral("Q4"));
    const RunResult c = combineResults({{QStringLiteral("a"), a}, {QStringLiteral("b"), b}});
    ASSERT_EQ(c.endpoints.size(), 4u);
    EXPECT_TRUE(c.endpoints[0].reference);
    EXPECT_FALSE(c.endpoints[3].reference);
    EXPECT_EQ(referenceEndpoint(c), 0);
    EXPECT_TRUE(c.note.contains(QStringLiteral("no longer the fidelity reference"))) << c.note.toStdString();
    // A later file's reference is kept when the first marks none.
    const RunResult d = combineResults({{QStringLiteral("a"), twoArms()}, {QStringLiteral("b"), b}});
    EXPECT_EQ(referenceEndpoint(d), 3);
}

// The issue's case: the candidate chose a byte token (0xC5) that llama-server held back and sent
// merged with the next token 'D' as one entry, bytes [197, 68], carrying the NEXT position's top
// list. The reference's distribution at that position must never be compared with that list.
TEST(Fidelity, AMergedEntryNeverComparesDistributionsOfDifferentPositions)
{
    const std::vector<TokenLogprob> ref {
        token("The", {candidate("The", 0.9, 1), candidate("A", 0.1, 2)}, -1, 1),
        token(" cat", {candidate(" cat", 0.7, 3), candidate(" dog", 0.3, 4)}, -1, 3),
        token(" sat", {candidate(" sat", 0.8, 5), candidate(" ran", 0.2, 6)}, -1, 5)};
    const TokenCandidate d = candidate("D", 0.6, 7);
    const std::vector<TokenLogprob> cand {
        token("The", {candidate("The", 0.8, 1), candidate("A", 0.2, 2)}, -1, 1),
        token(" cat", {candidate(" cat", 0.6, 3), candidate(" dog", 0.4, 4)}, -1, 3),
        mergedEntry(QByteArray("\xC5"
                               "D"),
            d, {candidate("E", 0.3, 8), byteToken("\x84", 0.1, 9)})};
    const FidelityPrompt p = compareAnswers(
        fidelityAnswer(0, QStringLiteral("t"), 1, ref), fidelityAnswer(1, QStringLiteral("t"), 1, cand));
    EXPECT_TRUE(p.tokensComparable);
    EXPECT_FALSE(p.identical);
    EXPECT_EQ(p.firstDivergence, 2);
    EXPECT_EQ(p.sharedPrefixTokens, 2);
    // Positions 0 and 1 only: the candidate's distribution at 2 was never sent.
    EXPECT_EQ(p.positionToken, (std::vector<int> {0, 1}));
    const double kl0 = 0.9 * std::log(0.9 / 0.8) + 0.1 * std::log(0.1 / 0.2);
    const double kl1 = 0.7 * std::log(0.7 / 0.6) + 0.3 * std::log(0.3 / 0.4);
    EXPECT_NEAR(*p.kl, (kl0 + kl1) / 2, kEps);
    EXPECT_FALSE(p.referenceTokenRank.has_value());
    EXPECT_FALSE(p.candidateTokenProb.has_value());
    EXPECT_TRUE(p.note.contains(QStringLiteral("written in pieces"))) << p.note.toStdString();
    // What the old alignment charged at position 2: the reference's list against the next
    // position's, many nats, far above the truth.
    EXPECT_GT(*topListKl(ref[2].top, cand[2].top), 10 * *p.kl);
}

// Both arms wrote "é" in two byte tokens, merged by llama-server into one entry each: the walk
// skips the merged entries and resynchronises after them, so the positions after the character
// are compared again, as the same positions on both sides.
TEST(Fidelity, ASharedMergedCharacterIsSkippedAndTheWalkResynchronises)
{
    const auto answer = [](double p, const char* last) {
        return std::vector<TokenLogprob> {
            token("caf", {candidate("caf", p, 1), candidate("the", 1 - p, 2)}, -1, 1),
            mergedEntry(QByteArray("\xC3\xA9"), byteToken("\xA9", p, 10), {byteToken("\xA8", 1 - p, 11)}),
            token(" au", {candidate(" au", p, 3), candidate(" et", 1 - p, 4)}, -1, 3),
            token(
                last, {candidate(" lait", p, 5), candidate(" noir", 1 - p, 6)}, -1, last[1] == 'l' ? 5 : 6)};
    };
    const std::vector<TokenLogprob> ref = answer(0.9, " lait");
    std::vector<TokenLogprob> cand = answer(0.8, " lait");
    cand[3] = token(" noir", {candidate(" noir", 0.55, 6), candidate(" lait", 0.45, 5)}, -1, 6);
    const FidelityPrompt p = compareAnswers(
        fidelityAnswer(0, QStringLiteral("t"), 1, ref), fidelityAnswer(1, QStringLiteral("t"), 1, cand));
    EXPECT_TRUE(p.tokensComparable);
    EXPECT_EQ(p.firstDivergence, 3);
    EXPECT_EQ(p.positionToken, (std::vector<int> {0, 2, 3}));
    EXPECT_EQ(p.partialTokens, 1);
    EXPECT_EQ(p.referenceTokenRank, 2);
    const double shared = 0.9 * std::log(0.9 / 0.8) + 0.1 * std::log(0.1 / 0.2);
    const double atD = 0.9 * std::log(0.9 / 0.45) + 0.1 * std::log(0.1 / 0.55);
    EXPECT_NEAR(*p.kl, (2 * shared + atD) / 3, kEps);
    EXPECT_EQ(p.logprobDeltaPositions, 2); // the merged entry's logprob is another position's
}

// The reference's lists hold 60 % of its probability: the arm's KL says it reads low.
TEST(Fidelity, KlReportsTheMassItsListsHeldAndWhenItIsALowerBound)
{
    RunResult run = twoArms(QStringLiteral("BF16"));
    run.records = {fidelityAnswer(0, QStringLiteral("a"), 1,
                       {token("x", {candidate("x", 0.5), candidate("y", 0.1)}), certain("z")}),
        fidelityAnswer(1, QStringLiteral("a"), 1,
            {token("x", {candidate("x", 0.4), candidate("y", 0.2)}), certain("z")})};
    Fidelity f = computeFidelity(run, 0);
    ASSERT_EQ(f.arms.size(), 1u);
    const FidelityPrompt& p = f.arms[0].prompts[0];
    ASSERT_EQ(p.positionMass.size(), 2u);
    EXPECT_NEAR(p.positionMass[0], 0.6, kEps);
    EXPECT_NEAR(p.positionMass[1], 1.0, kEps);
    EXPECT_NEAR(*p.klListedMass, 0.8, kEps);
    EXPECT_NEAR(*f.arms[0].klListedMass, 0.8, kEps);
    EXPECT_TRUE(f.arms[0].klLowerBound);
    EXPECT_TRUE(f.arms[0].klLowerBoundNote.contains(QStringLiteral("lower bound")));
    nlohmann::json j = toJson(f);
    EXPECT_EQ(j[0]["kl_lower_bound"], true);
    EXPECT_NEAR(j[0]["kl_listed_mass"].get<double>(), 0.8, kEps);
    EXPECT_TRUE(j[0]["kl_lower_bound_note"].is_string());
    EXPECT_NEAR(j[0]["per_prompt"][0]["kl_listed_mass"].get<double>(), 0.8, kEps);

    // Complete lists: no flag, no sentence.
    run.records = {fidelityAnswer(0, QStringLiteral("a"), 1, parisAnswer()),
        fidelityAnswer(1, QStringLiteral("a"), 1, {certain("The")})};
    for (RunRecord& r : run.records)
        for (TokenLogprob& t : r.request.response.logprobs.tokens)
            t.top = {candidate(t.token.toUtf8().constData(), 1.0)};
    f = computeFidelity(run, 0);
    EXPECT_FALSE(f.arms[0].klLowerBound);
    j = toJson(f);
    EXPECT_EQ(j[0]["kl_lower_bound"], false);
    EXPECT_TRUE(j[0]["kl_lower_bound_note"].is_null());
}

// Ten runs of one greedy prompt are one piece of evidence: the interval over two prompts, one
// close to the reference and one far from it, spans both, however many times each was run.
TEST(Fidelity, TheKlIntervalResamplesPromptsNotRuns)
{
    const auto near = std::vector {candidate("a", 0.9), candidate("b", 0.1)};
    const auto far = std::vector {candidate("a", 0.5), candidate("b", 0.5)};
    RunResult run = twoArms(QStringLiteral("BF16"));
    for (int i = 1; i <= 10; ++i) {
        run.records.push_back(fidelityAnswer(0, QStringLiteral("near"), i, {token("a", near)}));
        run.records.push_back(fidelityAnswer(1, QStringLiteral("near"), i, {token("a", near)}));
        run.records.push_back(fidelityAnswer(0, QStringLiteral("far"), i, {token("a", near)}));
        run.records.push_back(fidelityAnswer(1, QStringLiteral("far"), i, {token("a", far)}));
    }
    const Fidelity f = computeFidelity(run, 0);
    const FidelityArm& a = f.arms[0];
    const double k = *topListKl(near, far);
    EXPECT_NEAR(*a.klMean, k / 2, kEps);
    ASSERT_TRUE(a.klCi);
    // Two clusters: the resampled means are 0, k/2 or k, so the 95 % interval reaches both ends.
    EXPECT_NEAR(a.klCi->lo, 0.0, kEps);
    EXPECT_NEAR(a.klCi->hi, k, kEps);
    EXPECT_EQ(a.klPrompts, 20);
}
