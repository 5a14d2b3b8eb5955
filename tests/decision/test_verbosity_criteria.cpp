// SPDX-License-Identifier: MIT
// {"verbosity": "completion_tokens", "max_ratio": R}: the candidate's answer lengths against the
// baseline's, prompt by prompt. The seeds' NVFP4 was "2-6x more verbose" (003): a candidate twice as
// long fails, a terser one passes, one as long as the baseline never fails, and too little data
// never passes. Requests that asked for thinking and tool calls are not spoken answers.
#include "CriterionTestSupport.h"
#include "model/decide/Recommendation.h"
#include "tests/stats/StatsTestSupport.h"

#include <cmath>
#include <functional>
#include <gtest/gtest.h>

using namespace qs;
using namespace qs::test;
using json = nlohmann::json;
using Outcome = CriterionResult::Outcome;

namespace {

const json kCriterion = {{"verbosity", "completion_tokens"}, {"max_ratio", 1.5}};

/// How many tokens an endpoint writes for request `run` (1-based) of `test`.
using Tokens = std::function<double(int endpoint, const QString& test, int run)>;

// The baseline's answer lengths differ by prompt, as spoken answers do.
double baselineTokens(const QString& test)
{
    return 20.0 + 7.0 * double(qHash(test) % 9);
}

const QStringList eightPrompts = {QStringLiteral("greeting"), QStringLiteral("factual"),
    QStringLiteral("conversational"), QStringLiteral("reasoning"), QStringLiteral("briefing"),
    QStringLiteral("persona"), QStringLiteral("refusal"), QStringLiteral("long")};

/// Two arms ("Q4_K_M" baseline, "NVFP4"), `runs` measured runs of each test (by default 8 distinct
/// prompts, 3 runs each: the prompt is the unit of evidence).
RunResult run(const Tokens& tokens, int runs = 3, const QStringList& tests = eightPrompts)
{
    RunResult r = makeRun({QStringLiteral("Q4_K_M"), QStringLiteral("NVFP4")});
    for (int e = 0; e < 2; ++e)
        for (const QString& test : tests)
            for (int it = 1; it <= runs; ++it) {
                Req q;
                q.endpoint = e;
                q.test = test;
                q.iteration = it;
                q.completionTokens = std::max<qint64>(1, std::llround(tokens(e, test, it)));
                RunRecord rec = record(q);
                rec.request.requestBody = {{"chat_template_kwargs", {{"enable_thinking", false}}}};
                r.records.push_back(rec);
            }
    return r;
}

Tokens scaled(double factor)
{
    return
        [factor](int e, const QString& test, int) { return baselineTokens(test) * (e == 1 ? factor : 1.0); };
}

CriterionResult judgeOne(
    const RunResult& r, const json& criterion = kCriterion, std::string* change = nullptr)
{
    Evaluation ev = evaluate(r, 0, {}, false); // the criterion needs no bootstrap of the comparison
    ev.guardrails.clear();
    const auto recs = recommend(r, ev, profile(json::array({criterion})));
    EXPECT_EQ(recs.size(), 1u);
    if (change && !recs.at(0).whatWouldChange.isEmpty())
        *change = recs.at(0).whatWouldChange.first().toStdString();
    return recs.at(0).criteria.at(0);
}

std::string dump(const CriterionResult& c)
{
    return toJson(c).dump(1);
}

} // namespace

// ---- the profile form -------------------------------------------------------------------------

TEST(VerbosityProfile, DefaultsAndFileForm)
{
    const DecisionProfile p = profile(json::array({kCriterion,
        {{"verbosity", "completion_tokens"}, {"max_ratio", 2}, {"test", "long-response"}, {"id", "long"}}}));
    const Criterion& c = p.criteria.at(0);
    EXPECT_EQ(c.kind, Criterion::Kind::VerbosityMaxRatio);
    EXPECT_EQ(c.metric, Metric::CompletionTokens);
    EXPECT_DOUBLE_EQ(c.threshold, 1.5);
    EXPECT_EQ(c.id, QStringLiteral("verbosity_max_ratio"));
    EXPECT_EQ(c.title, QStringLiteral("answers at most 1.5× as long as the baseline's (completion tokens)"));
    EXPECT_EQ(p.criteria.at(1).title,
        QStringLiteral("answers at most 2× as long as the baseline's (completion tokens) (long-response)"));
    EXPECT_EQ(criterionKindId(c.kind), QStringLiteral("verbosity_max_ratio"));
    const json j = toJson(c);
    EXPECT_EQ(j.at("kind"), "verbosity_max_ratio");
    EXPECT_EQ(j.at("verbosity"), "completion_tokens");
    EXPECT_EQ(j.at("max_ratio"), 1.5);
    EXPECT_FALSE(j.contains("metric"));
    const json written = asWritten(j);
    EXPECT_EQ(readAndWrittenAgain(written), written);
}

TEST(VerbosityProfile, ErrorsSayWhatToWrite)
{
    const std::pair<json, std::string> cases[] = {
        {{{"verbosity", "completion_tokens"}},
            "profile.json: criteria[0]: a verbosity criterion needs \"max_ratio\": how many times as long as "
            "the baseline's the candidate's answers may be, e.g. 1.5"},
        {{{"verbosity", "tokens"}, {"max_ratio", 1.5}},
            "profile.json: criteria[0].verbosity: unknown verbosity measure \"tokens\"; expected one of: "
            "completion_tokens"},
        {{{"verbosity", "completion_tokens"}, {"max_ratio", 0.8}},
            "profile.json: criteria[0].max_ratio: must be a ratio from 1 to 10 (1.5 for \"at most half as "
            "long again as the baseline's answers\"), found a number (0.8)"},
        {{{"verbosity", "completion_tokens"}, {"max_ratio", 50}},
            "profile.json: criteria[0].max_ratio: must be a ratio from 1 to 10 (1.5 for \"at most half as "
            "long again as the baseline's answers\"), found a number (50)"},
        {{{"verbosity", "completion_tokens"}, {"max_ratio", 1.5}, {"optional", true}},
            "profile.json: criteria[0].optional: does not apply to a verbosity criterion; it takes "
            "\"max_ratio\" (and \"test\")"},
        {{{"verbosity", "completion_tokens"}, {"max", 1.5}},
            "profile.json: criteria[0].max: does not apply to a verbosity criterion; it takes \"max_ratio\" "
            "(and \"test\")"},
        {{{"metric", "completion_tokens"}, {"max", 80}, {"max_ratio", 1.5}},
            "profile.json: criteria[0].max_ratio: applies to a \"verbosity\" criterion only"},
    };
    for (const auto& [criterion, expected] : cases)
        EXPECT_EQ(parseError(criterion), expected) << criterion.dump();
}

// ---- judging ----------------------------------------------------------------------------------

TEST(VerbosityCriterion, TwiceAsLongOnEveryPromptFails)
{
    std::string change;
    const CriterionResult c = judgeOne(run(scaled(2.0)), kCriterion, &change);
    EXPECT_EQ(c.outcome, Outcome::Fail) << dump(c);
    EXPECT_TRUE(c.measured.startsWith(QStringLiteral("ratio 2 [2–2] (median"))) << dump(c);
    EXPECT_TRUE(c.measured.endsWith(QStringLiteral("tokens), 24 pairs over 8 distinct prompts"))) << dump(c);
    EXPECT_EQ(c.required, QStringLiteral("≤ 1.5× Q4_K_M's"));
    EXPECT_TRUE(
        c.explanation.contains(QStringLiteral("even the interval's lower end, 2, is above the allowance "
                                              "of 1.5×")))
        << dump(c);
    EXPECT_TRUE(QString::fromStdString(change).startsWith(QStringLiteral("NVFP4's answers are 2× as long as "
                                                                         "Q4_K_M's")))
        << change;
    EXPECT_TRUE(QString::fromStdString(change).contains(QStringLiteral("fine-tune trained to be concise")))
        << change;
}

TEST(VerbosityCriterion, TerserPasses)
{
    const CriterionResult c = judgeOne(run(scaled(0.6)));
    EXPECT_EQ(c.outcome, Outcome::Pass) << dump(c);
    EXPECT_TRUE(c.measured.startsWith(QStringLiteral("ratio 0.5"))
        || c.measured.startsWith(QStringLiteral("ratio 0.6")))
        << dump(c);
    EXPECT_TRUE(c.explanation.contains(QStringLiteral("is within the allowance of 1.5×"))) << dump(c);
}

TEST(VerbosityCriterion, EqualArmsNeverFail)
{
    // Identical lengths: the ratio is exactly 1.
    const CriterionResult same = judgeOne(run(scaled(1.0)));
    EXPECT_EQ(same.outcome, Outcome::Pass) << dump(same);
    EXPECT_TRUE(same.measured.startsWith(QStringLiteral("ratio 1 [1–1]"))) << dump(same);

    // Both arms sampled around the same length, ±35 % per answer, at several sizes: pass or open,
    // never a failure.
    for (std::uint64_t seed = 1; seed <= 30; ++seed) {
        Rng rng(seed);
        std::map<std::tuple<int, QString, int>, double> drawn;
        const Tokens noisy = [&](int e, const QString& test, int it) {
            auto [at, fresh] = drawn.try_emplace({e, test, it}, 0.0);
            if (fresh)
                at->second = baselineTokens(test) * std::exp(0.35 * rng.normal());
            return at->second;
        };
        const int runs = 1 + int(seed % 10);
        const CriterionResult c = judgeOne(run(noisy, runs));
        EXPECT_NE(c.outcome, Outcome::Fail) << "seed " << seed << '\n' << dump(c);
    }
}

TEST(VerbosityCriterion, AnIntervalAcrossTheAllowanceIsOpen)
{
    // Half the prompts answered about as long, half three times as long: the median ratio sits
    // near the allowance and 8 prompts cannot place it on either side.
    const Tokens mixed = [](int e, const QString& test, int) {
        return baselineTokens(test) * (e == 0 ? 1.0 : (eightPrompts.indexOf(test) % 2 == 0 ? 1.1 : 3.0));
    };
    const CriterionResult c = judgeOne(run(mixed, 6));
    EXPECT_EQ(c.outcome, Outcome::Inconclusive) << dump(c);
    EXPECT_TRUE(c.explanation.contains(QStringLiteral("contains the allowance of 1.5×"))) << dump(c);
}

TEST(VerbosityCriterion, TooFewPairsNeverPass)
{
    const CriterionResult c
        = judgeOne(run(scaled(1.0), 1, {QStringLiteral("greeting"), QStringLiteral("factual")}));
    EXPECT_EQ(c.outcome, Outcome::Inconclusive) << dump(c);
    EXPECT_TRUE(c.measured.startsWith(QStringLiteral("ratio 1 (median"))) << dump(c); // no interval
    EXPECT_TRUE(c.explanation.startsWith(QStringLiteral("Only 2 distinct prompts compare the lengths")))
        << dump(c);
}

TEST(VerbosityCriterion, ThinkingOnAndToolCallsAreLeftOut)
{
    // The candidate thinks at length when asked, and its tool calls carry long arguments: neither is
    // a spoken answer. Its answers proper are as long as the baseline's.
    RunResult r = run(scaled(1.0));
    const RecordList answers = r.records;
    for (const RunRecord& rec : answers) {
        RunRecord think = rec;
        think.test = QStringLiteral("think-") + rec.test;
        think.request.requestBody = {{"chat_template_kwargs", {{"enable_thinking", true}}}};
        think.request.metrics.completionTokens.value = rec.endpoint == 1 ? 1500 : 400;
        RunRecord tool = rec;
        tool.test = QStringLiteral("tool-") + rec.test;
        ToolCall call;
        call.name = QStringLiteral("web_search");
        tool.request.response.toolCalls.push_back(call);
        tool.request.metrics.completionTokens.value = rec.endpoint == 1 ? 90 : 20;
        r.records.push_back(think);
        r.records.push_back(tool);
    }
    const CriterionResult c = judgeOne(r);
    EXPECT_EQ(c.outcome, Outcome::Pass) << dump(c);
    EXPECT_TRUE(c.measured.endsWith(QStringLiteral("24 pairs over 8 distinct prompts; left out: 24 with "
                                                   "thinking on, 24 tool calls (not spoken answers)")))
        << dump(c);

    // Nothing else to compare: no evidence, never a pass.
    RunResult onlyThinking;
    onlyThinking.endpoints = r.endpoints;
    for (const RunRecord& rec : r.records)
        if (rec.test.startsWith(u"think-"))
            onlyThinking.records.push_back(rec);
    const CriterionResult none = judgeOne(onlyThinking);
    EXPECT_EQ(none.outcome, Outcome::Inconclusive) << dump(none);
    EXPECT_EQ(none.measured, QStringLiteral("no pairs; left out: 24 with thinking on (not spoken answers)"));
}

TEST(VerbosityCriterion, OneTestOnly)
{
    // Only "reasoning" is twice as long.
    const Tokens reasoningLonger = [](int e, const QString& test, int) {
        return baselineTokens(test) * (e == 1 && test == u"reasoning" ? 2.0 : 1.0);
    };
    // One test is one prompt: its 8 repeats are one ratio, and one prompt decides nothing.
    json criterion = kCriterion;
    criterion["test"] = "reasoning";
    const CriterionResult one = judgeOne(run(reasoningLonger, 8), criterion);
    EXPECT_EQ(one.outcome, Outcome::Inconclusive) << dump(one);
    EXPECT_TRUE(one.explanation.startsWith(QStringLiteral("Only 1 distinct prompts"))) << dump(one);
    EXPECT_TRUE(one.measured.startsWith(QStringLiteral("ratio 2 (median"))) << dump(one);
}
