// SPDX-License-Identifier: MIT
// The report's Judged quality section (issue #12): the judge's identity, rubric scores, the blind
// pairwise comparison, the judge warnings and the judge's reasons quoted — escaped like all model
// output — and the judge criteria in the checklist and verdict, "not measured" without a judge.
#include "model/core/Clock.h"
#include "model/decide/Report.h"
#include "model/evaluate/Evaluation.h"
#include "model/evaluate/PromptEvidence.h"
#include "tests/report/ReportTestSupport.h"
#include "tests/stats/JudgingTestSupport.h"
#include "tests/stats/StatsTestSupport.h"

#include <gtest/gtest.h>

using namespace qs;
using namespace qs::test;
using json = nlohmann::json;

namespace {

const QString HostileReason
    = QStringLiteral("Answer 2 is **warmer**. <script>alert(1)</script> [x](http://evil) # not a heading");

/// Two arms, tests "greeting" and "chat", 6 runs each.
RunResult makeRun2()
{
    RunResult run = makeRun({QStringLiteral("q4km"), QStringLiteral("nvfp4")});
    for (const QString& test : {QStringLiteral("greeting"), QStringLiteral("chat")})
        for (int i = 1; i <= 6; ++i)
            for (int e = 0; e < 2; ++e) {
                RunRecord r = record({.endpoint = e, .test = test, .iteration = i, .ttftMs = 100.0});
                r.request.response.content = QStringLiteral("Hello there.");
                run.records.push_back(r);
            }
    return run;
}

JudgedQuality scriptedJudging()
{
    JudgedQuality q;
    q.judged = true;
    q.judge.model = QStringLiteral("qwen3-32b");
    q.judge.runtime = QStringLiteral("vllm");
    q.judge.url = QStringLiteral("http://10.0.0.7:8000");
    q.judge.seed = 7;
    Rubric rubric;
    rubric.id = QStringLiteral("voice-assistant");
    rubric.name = QStringLiteral("Voice assistant rubric");
    rubric.source = QStringLiteral("builtin:voice-assistant");
    for (const char* id : {"correct", "warm_personal"}) {
        RubricCriterion c;
        c.id = QString::fromUtf8(id);
        c.title = c.id == u"correct" ? QStringLiteral("Correct in substance")
                                     : QStringLiteral("Warm and personal");
        rubric.criteria.push_back(c);
    }
    q.rubric = rubric;
    q.rubricArms = {{0, 12, 0, 12}, {1, 10, 2, 12}};
    q.rubricScores = {rubricScore(0, "correct", 4, 12), rubricScore(0, "warm_personal", 4, 12),
        rubricScore(1, "correct", 4, 10), rubricScore(1, "warm_personal", 2.5, 10),
        rubricScore(0, "correct", 5, 6, "greeting"), rubricScore(1, "correct", 3.5, 4, "greeting")};
    PairwiseResult p;
    p.candidate = 1;
    p.baseline = 0;
    p.candidateLabel = QStringLiteral("nvfp4");
    p.baselineLabel = QStringLiteral("q4km");
    p.pairs = 12;
    p.wins = 1;
    p.losses = 9;
    p.ties = 2;
    p.inconsistent = 1;
    p.failedPairs = 1;
    p.consistency = 11.0 / 12;
    p.firstPositionRate = 0.55;
    p.positionPicks = 22;
    p.winRate = 0.1;
    p.winRateCi = Interval {0.003, 0.45};
    p.signTestP = 0.0217;
    p.winOrTieRate = 2.0 / 12;
    p.medianLengthDifference = 84;
    p.longerPickedRate = 0.7;
    p.winner = 0;
    p.verdict = QStringLiteral("baseline_better");
    // Each pair its own distinct prompt.
    p.prompts = 12;
    p.promptWins = 1;
    p.promptLosses = 9;
    p.promptTies = 2;
    p.promptWinShare = 2.0 / 12;
    p.promptWinShareCi = promptRateInterval(2, 12);
    q.pairwise = {p};
    q.quotes
        = {{1, QStringLiteral("chat"), 1, 3, QStringLiteral("rubric 2/5 on warm_personal"), HostileReason},
            {1, QStringLiteral("greeting"), 1, 2, QStringLiteral("pair: preferred the baseline"),
                QStringLiteral("The first answer is generic.")}};
    q.notes = {QStringLiteral("cancelled after 40 of 48 judgements: run the command again to resume")};
    return q;
}

DecisionProfile judgeProfile()
{
    return parseDecisionProfile(
        {{"id", "judged"},
            {"criteria",
                json::array({{{"title", "Judged: correct (median ≥ 4)"}, {"judge", "rubric"},
                                 {"criterion", "correct"}, {"min_median", 4}, {"optional", true}},
                    {{"title", "Judged not worse"}, {"judge", "pairwise"}, {"not_worse_than_baseline", true},
                        {"optional", true}}})}},
        QStringLiteral("judged.json"));
}

struct Fixture {
    RunResult run = makeRun2();
    Evaluation ev;
    ReportInput input;
    explicit Fixture(bool judged)
    {
        ev = evaluate(run, 0);
        if (judged) {
            ev.judged = scriptedJudging();
            Guardrail g;
            g.id = QStringLiteral("judge_position_bias");
            g.severity = Guardrail::Severity::Warning;
            g.title = QStringLiteral("The judge favours the first position");
            g.evidence = QStringLiteral("picked answer 1 in 55 % of 22 picks");
            g.advice = QStringLiteral("use a stronger judge");
            ev.guardrails.push_back(g);
        }
        input.result = &run;
        input.evaluation = &ev;
        input.profile = judgeProfile();
        input.recommendations = recommend(run, ev, input.profile);
        input.generatedAt = utcDateTime(QDate(2026, 3, 15), QTime(12, 0));
    }
};

QString sectionOf(const QString& md)
{
    const auto at = md.indexOf(QStringLiteral("## Judged quality"));
    if (at < 0)
        return {};
    return md.mid(at, md.indexOf(QStringLiteral("\n## "), at + 3) - at);
}

} // namespace

TEST(ReportJudged, SectionCarriesTheJudgeAndItsFigures)
{
    Fixture f(true);
    const QString md = reportMarkdown(f.input);
    const QString s = sectionOf(md);
    if (qEnvironmentVariableIsSet("QS_PRINT_REPORT"))
        std::printf("%s\n", qPrintable(md));
    ASSERT_FALSE(s.isEmpty()) << qPrintable(md);
    // After the resources, before the samples and the checklist.
    EXPECT_GT(md.indexOf(QStringLiteral("## Judged quality")), md.indexOf(QStringLiteral("## Resources")));
    EXPECT_LT(
        md.indexOf(QStringLiteral("## Judged quality")), md.indexOf(QStringLiteral("## Sample responses")));
    // Who judged, and what a judge's verdict is worth.
    EXPECT_TRUE(s.contains(
        QStringLiteral("**Judge:** qwen3-32b on vllm at http\\://10.0.0.7:8000 · temperature 0 · seed 7")))
        << qPrintable(s);
    EXPECT_TRUE(s.contains(QStringLiteral("**Rubric:** Voice assistant rubric (builtin:voice-assistant)")));
    EXPECT_TRUE(
        s.contains(QStringLiteral("*A judge is an LLM: its verdicts are evidence about the answers, not "
                                  "ground truth.*")));
    EXPECT_TRUE(s.contains(QStringLiteral("- cancelled after 40 of 48 judgements")));
    // Rubric: graded and failed per endpoint, medians per test and endpoint with n.
    EXPECT_TRUE(s.contains(QStringLiteral("| nvfp4 | 10 | **2** | 12 |"))) << qPrintable(s);
    EXPECT_TRUE(s.contains(
        QStringLiteral("| **All tests** | Warm and personal (warm\\_personal) | 4 (n 12) | 2.5 (n 10) |")))
        << qPrintable(s);
    EXPECT_TRUE(
        s.contains(QStringLiteral("| greeting | Correct in substance (correct) | 5 (n 6) | 3.5 (n 4) |")));
    EXPECT_FALSE(s.contains(QStringLiteral("| chat | Correct"))); // nothing graded there
    // Pairwise: win / tie / loss, win rate with its interval, p, verdict; then the judge's behaviour.
    EXPECT_TRUE(s.contains(QStringLiteral(
        "| nvfp4 vs q4km | 12 | 1 | 2 (1 inconsistent) | 9 | 10 % | 0 % – 45 % | 0.022 | **q4km better** |")))
        << qPrintable(s);
    EXPECT_TRUE(s.contains(
        QStringLiteral("| nvfp4 vs q4km | 92 % | 55 % of 22 | 70 % | +84 characters | 1 | 17 % |")))
        << qPrintable(s);
    // The judge guardrails that fired.
    EXPECT_TRUE(s.contains(QStringLiteral("### Judge warnings")));
    EXPECT_TRUE(s.contains(QStringLiteral("**The judge favours the first position:** picked answer 1 in 55 % "
                                          "of 22 picks — use a stronger judge")));
    // The judge's reasons, quoted verbatim in fenced blocks.
    EXPECT_TRUE(s.contains(QStringLiteral("**nvfp4** — chat, run 3 — *rubric 2/5 on warm\\_personal*")))
        << qPrintable(s);
    EXPECT_TRUE(s.contains(QStringLiteral("```text\n") + HostileReason + QStringLiteral("\n```")));
    const QString prose = outsideFences(md);
    EXPECT_FALSE(prose.contains(QStringLiteral("<script>")));
    EXPECT_FALSE(prose.contains(QStringLiteral("**warmer**")));
    EXPECT_FALSE(prose.contains(QStringLiteral("](http")));
}

TEST(ReportJudged, HtmlEscapesTheJudgesWords)
{
    Fixture f(true);
    for (const HtmlFlavor flavor : {HtmlFlavor::Browser, HtmlFlavor::RichText}) {
        const QString html = reportHtml(f.input, flavor);
        EXPECT_TRUE(html.contains(QStringLiteral("<h2>Judged quality</h2>")));
        EXPECT_FALSE(html.contains(QStringLiteral("<script")));
        EXPECT_TRUE(html.contains(QStringLiteral("&lt;script&gt;alert(1)&lt;/script&gt;")));
        EXPECT_TRUE(html.contains(QStringLiteral("Answer 2 is **warmer**.")));
        EXPECT_FALSE(html.contains(QStringLiteral("<a href=\"http://evil")));
        EXPECT_TRUE(html.contains(QStringLiteral("q4km better")));
    }
}

TEST(ReportJudged, VerdictAndChecklistUseTheJudgeCriteria)
{
    Fixture f(true);
    const QString md = reportMarkdown(f.input);
    ASSERT_EQ(f.input.recommendations.size(), 1u);
    // 1 win, 9 losses and 2 ties over 12 prompts: a win share of 17 %, but its interval reaches 48 %,
    // past the 45 % margin, so the judge's verdict is open, not a fail (and no rubric score rests on
    // 6 prompts).
    EXPECT_EQ(f.input.recommendations[0].decision, Recommendation::Decision::Inconclusive);
    EXPECT_TRUE(md.contains(
        QStringLiteral("| Judged not worse | win share ≥ 45 % against q4km (blind, both orders) | "
                       "1 win, 2 ties, 9 losses of 12 pairs; win share 17 % over 12 distinct "
                       "prompts \\[2 % – 48 %\\]; consistency 92 % | **INCONCLUSIVE** |")))
        << qPrintable(md.mid(md.indexOf(QStringLiteral("## Verdict"))));
    EXPECT_TRUE(md.contains(QStringLiteral("| Answers as good (LLM judge) | **undecided** |")))
        << qPrintable(md);
}

TEST(ReportJudged, NothingJudgedOmitsTheSectionButNotTheCriteria)
{
    Fixture f(false);
    const QString md = reportMarkdown(f.input);
    EXPECT_FALSE(md.contains(QStringLiteral("## Judged quality"))) << qPrintable(md);
    EXPECT_TRUE(md.contains(
        QStringLiteral("| Judged: correct (median ≥ 4) | median ≥ 4 of 5 | not judged | *not measured* |")))
        << qPrintable(md);
    EXPECT_TRUE(md.contains(
        QStringLiteral("| Judged not worse | win share ≥ 45 % against q4km (blind, both orders) | not "
                       "judged | *not measured* |")));
    EXPECT_TRUE(md.contains(QStringLiteral("| Answers as good (LLM judge) | *not measured* |")));
    EXPECT_TRUE(md.contains(QStringLiteral("run quantscope judge FILE --judge SPEC")));
    // What would change it says how to get the judge's verdicts.
    EXPECT_TRUE(md.contains(QStringLiteral("run \\`quantscope judge FILE --judge SPEC --rubric RUBRIC --out "
                                           "FILE\\`")))
        << qPrintable(md.mid(md.indexOf(QStringLiteral("#### What would change"))));
    EXPECT_FALSE(reportHtml(f.input).contains(QStringLiteral("Judged quality</h2>")));
}
