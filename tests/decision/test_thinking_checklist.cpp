// SPDX-License-Identifier: MIT
// The checklist's "Reasoning / thinking controllable" (the seeds' 002: "Thinking mode works in both
// on/off configurations"), from thinking_follows_request: distinct prompts, both directions, the
// baseline alongside; "not measured" without a thinking-on test, never a pass.
#include "CriterionTestSupport.h"
#include "model/core/Clock.h"
#include "model/decide/Report.h"
#include "tests/stats/StatsTestSupport.h"

#include <functional>
#include <gtest/gtest.h>

using namespace qs;
using namespace qs::test;
using json = nlohmann::json;

namespace {

const QString kOn = QStringLiteral("think-quadratic-on");
const QString kOff = QStringLiteral("think-quadratic-off");
const QString kGreeting = QStringLiteral("greeting");

/// The verdicts of run `it` (1-based) of `test` on `endpoint`: thinking followed, answer right.
using Verdicts = std::function<std::pair<bool, bool>(int endpoint, const QString& test, int it)>;

Verdicts allFollow()
{
    return [](int, const QString&, int) { return std::pair {true, true}; };
}

RunResult run(const Verdicts& verdicts, const QStringList& tests = {kGreeting, kOn, kOff})
{
    RunResult r = makeRun({QStringLiteral("Q4_K_M"), QStringLiteral("NVFP4")});
    for (int e = 0; e < 2; ++e)
        for (const QString& test : tests)
            for (int it = 1; it <= 3; ++it) {
                RunRecord rec = record({.endpoint = e, .test = test, .iteration = it});
                rec.request.requestBody = {{"chat_template_kwargs", {{"enable_thinking", test == kOn}}}};
                const auto [follows, right] = verdicts(e, test, it);
                rec.gates = {{"non_empty", true}, {"thinking_follows_request", follows},
                    {"expected_answer", test == kGreeting ? json(nullptr) : json(right)}};
                r.records.push_back(rec);
            }
    return r;
}

/// The checklist row as the Markdown report writes it.
QString thinkingRow(const RunResult& r)
{
    Evaluation ev = evaluate(r, 0);
    ev.guardrails.clear();
    ReportInput in;
    in.result = &r;
    in.evaluation = &ev;
    in.profile = profile(json::array({{{"gate", "non_empty"}, {"max_failures", 0}}}));
    in.recommendations = recommend(r, ev, in.profile);
    in.generatedAt = utcDateTime(QDate(2026, 3, 15), QTime(12, 0));
    for (const QString& line : reportMarkdown(in).split(u'\n'))
        if (line.startsWith(QStringLiteral("| Reasoning / thinking controllable |")))
            return line;
    ADD_FAILURE() << "no checklist row";
    return {};
}

} // namespace

TEST(ThinkingChecklist, BothDirectionsHeldOnBothArms)
{
    const QString row = thinkingRow(run(allFollow()));
    EXPECT_EQ(row,
        QStringLiteral("| Reasoning / thinking controllable | **✓ yes** | NVFP4: thinking on: 1 of 1 prompts "
                       "thought apart from the answer and answered right; thinking off: 2 of 2 prompts "
                       "without reasoning; baseline Q4\\_K\\_M: thinking on: 1 of 1 prompts thought apart "
                       "from the answer and answered right; thinking off: 2 of 2 prompts without "
                       "reasoning |"))
        << qPrintable(row);
}

TEST(ThinkingChecklist, IgnoringThinkingOnFails)
{
    // llama-server --reasoning-budget 0 on the candidate: no thought when asked for one.
    const QString row = thinkingRow(run([](int e, const QString& test, int) {
        return std::pair {!(e == 1 && test == kOn), true};
    }));
    EXPECT_TRUE(row.contains(
        QStringLiteral("| **✗ no** | NVFP4: thinking on: 0 of 1 prompts thought apart from "
                       "the answer and answered right (not: think-quadratic-on: no separate thought)")))
        << qPrintable(row);
}

TEST(ThinkingChecklist, AWrongAnswerWithThinkingOnFails)
{
    const QString row = thinkingRow(run([](int e, const QString& test, int it) {
        return std::pair {true, !(e == 1 && test == kOn && it == 2)};
    }));
    EXPECT_TRUE(
        row.contains(QStringLiteral("**✗ no** | NVFP4: thinking on: 0 of 1 prompts thought apart from the "
                                    "answer and answered right (not: think-quadratic-on: wrong answer)")))
        << qPrintable(row);
}

TEST(ThinkingChecklist, CountsDistinctPromptsNotRepeats)
{
    // One of the candidate's three greetings reasoned with thinking off: the prompt fails, and the
    // count is of prompts (2), not of requests (6).
    const QString row = thinkingRow(run([](int e, const QString& test, int it) {
        return std::pair {!(e == 1 && test == kGreeting && it == 3), true};
    }));
    EXPECT_TRUE(
        row.contains(QStringLiteral("**✗ no** | NVFP4: thinking on: 1 of 1 prompts thought apart from "
                                    "the answer and answered right; thinking off: 1 of 2 prompts "
                                    "without reasoning (not: greeting); baseline")))
        << qPrintable(row);
}

TEST(ThinkingChecklist, NoThinkingOnTestIsNotMeasured)
{
    const QString row = thinkingRow(run(allFollow(), {kGreeting, kOff}));
    EXPECT_TRUE(row.contains(QStringLiteral("| *not measured* | no test asked for thinking on, so only one "
                                            "direction could be seen: run the voice-assistant suite, which "
                                            "has thinking pairs")))
        << qPrintable(row);
}

TEST(ThinkingChecklist, OnlyThinkingOnIsUndecided)
{
    const QString row = thinkingRow(run(allFollow(), {kOn}));
    EXPECT_TRUE(row.contains(QStringLiteral("| **undecided** | NVFP4: thinking on: 1 of 1 prompts")))
        << qPrintable(row);
    EXPECT_TRUE(row.contains(QStringLiteral("no request with thinking off was judged"))) << qPrintable(row);
}
