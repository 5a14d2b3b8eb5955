// SPDX-License-Identifier: MIT
// The report's Fidelity section (issue #13): only when fidelity was measured; the method in words
// (greedy, top_logprobs N, the reference named, KL over the union of the top lists with a tail
// bucket, flips after Dutta et al. 2024, not llama-perplexity's within-engine KLD); one row per arm
// with "not comparable: why" where KL is; where the answers diverge; the prompts that drifted
// most; what a server could not send; and the fidelity item of the checklist. Never "nan" or "inf".
#include "model/core/Clock.h"
#include "model/decide/Report.h"
#include "model/evaluate/Evaluation.h"
#include "tests/decision/FidelityTestSupport.h"
#include "tests/report/ReportTestSupport.h"
#include "tests/stats/StatsTestSupport.h"

#include <QRegularExpression>
#include <cstdio>
#include <gtest/gtest.h>

using namespace qs;
using namespace qs::test;
using json = nlohmann::json;

namespace {

/// q4km (0, the baseline), nvfp4 (1) and bf16 (2), 6 runs of test "fid" each.
RunResult threeArms()
{
    RunResult run = makeRun({QStringLiteral("q4km"), QStringLiteral("nvfp4"), QStringLiteral("bf16")});
    for (int i = 1; i <= 6; ++i)
        for (int e = 0; e < 3; ++e) {
            RunRecord r
                = record({.endpoint = e, .test = QStringLiteral("fid"), .iteration = i, .ttftMs = 100.0});
            r.request.response.content = QStringLiteral("Paris is the capital.");
            run.records.push_back(r);
        }
    return run;
}

/// Against bf16 (marked): q4km flips 2 of 10 at KL 0.02; nvfp4 flips 4 of 10, its KL not comparable
/// (tokenizers differ) unless `nvfp4Kl`.
Fidelity fidelity(std::optional<double> nvfp4Kl = std::nullopt)
{
    Fidelity f;
    f.reference = 2;
    f.referenceMarked = true;
    f.referenceLabel = QStringLiteral("bf16");
    f.arms = {fidelityArm(0, QStringLiteral("q4km"), 2, f.referenceLabel, 10, 8, 0.02),
        fidelityArm(1, QStringLiteral("nvfp4"), 2, f.referenceLabel, 10, 6, nvfp4Kl)};
    f.arms[0].flipRateCi = Interval {0.025, 0.556};
    f.arms[1].flipRateCi = Interval {0.122, 0.738};
    return f;
}

DecisionProfile profileWith(const json& criteria)
{
    return parseDecisionProfile({{"id", "fid"}, {"criteria", criteria}}, QStringLiteral("fid.json"));
}

const json latencyOnly = json::array({{{"metric", "ttft_visible_ms"}, {"max", 500}}});

struct Fixture {
    RunResult run = threeArms();
    Evaluation ev;
    ReportInput input;
    explicit Fixture(std::optional<Fidelity> measured, const json& criteria = latencyOnly)
    {
        ev = evaluate(run, 0);
        if (measured)
            ev.fidelity = *measured;
        input.result = &run;
        input.evaluation = &ev;
        input.profile = profileWith(criteria);
        input.recommendations = recommend(run, ev, input.profile);
        input.generatedAt = utcDateTime(QDate(2026, 3, 15), QTime(12, 0));
    }
};

QString sectionOf(const QString& md, const QString& title)
{
    const auto at = md.indexOf(title);
    if (at < 0)
        return {};
    return md.mid(at, md.indexOf(QStringLiteral("\n## "), at + 3) - at);
}

// "nan", "inf", "-inf", "infinity" as words: what a non-finite number prints as.
bool hasNonFinite(const QString& text)
{
    static const QRegularExpression bad(
        QStringLiteral("\\b(nan|inf|infinity)\\b"), QRegularExpression::CaseInsensitiveOption);
    return bad.match(text).hasMatch();
}

} // namespace

TEST(ReportFidelity, AbsentWhenNotMeasured)
{
    Fixture f(std::nullopt);
    const QString md = reportMarkdown(f.input);
    EXPECT_FALSE(md.contains(QStringLiteral("## Fidelity")));
    EXPECT_FALSE(md.contains(QStringLiteral("Next-token fidelity")));
    EXPECT_FALSE(reportHtml(f.input).contains(QStringLiteral("<h2>Fidelity</h2>")));
}

TEST(ReportFidelity, MethodTablesAndWorstPrompts)
{
    Fixture f(fidelity());
    const QString md = reportMarkdown(f.input);
    if (qEnvironmentVariableIsSet("QS_PRINT_REPORT"))
        std::printf("%s\n", qPrintable(md));
    const QString s = sectionOf(md, QStringLiteral("## Fidelity"));
    ASSERT_FALSE(s.isEmpty()) << qPrintable(md);
    // After the resources, before the samples and the checklist.
    EXPECT_GT(md.indexOf(QStringLiteral("## Fidelity")), md.indexOf(QStringLiteral("## Resources")));
    EXPECT_LT(md.indexOf(QStringLiteral("## Fidelity")), md.indexOf(QStringLiteral("## Sample responses")));

    // The method, in words.
    EXPECT_TRUE(s.contains(QStringLiteral("**Reference:** bf16 (marked with --reference): every other arm is "
                                          "compared with it.")))
        << qPrintable(s);
    for (const char* words : {"greedily (temperature 0, a fixed seed, the same max\\_tokens on every arm)",
             "(top\\_logprobs 20)", "union of both top lists plus one tail bucket",
             "Dutta et al. 2024, \"Accuracy is Not All You Need\"", "exact Clopper–Pearson 95 % interval",
             "llama-perplexity --kl-divergence compares two models within one engine",
             "KL is marked not comparable", "a confident flip: unlisted"})
        EXPECT_TRUE(s.contains(QString::fromUtf8(words))) << words << '\n' << qPrintable(s);

    // One row per arm; nvfp4's KL is not comparable, and says why.
    EXPECT_TRUE(s.contains(
        QStringLiteral("| q4km | 10 | 8 | 20 % \\[3 % – 56 %\\] | 0.02 \\[0.016 – 0.025\\] | 0.04 | "
                       "20 · 60 % | 0.01 | 1 of 2 | 1 / 1 |")))
        << qPrintable(s);
    EXPECT_TRUE(
        s.contains(QStringLiteral("| nvfp4 | 10 | 6 | 40 % \\[12 % – 74 %\\] | **not comparable: tokenizers "
                                  "differ** | — | 20 · 60 % | — | 2 of 4 | 0 / 0 |")))
        << qPrintable(s);

    // Where the answers diverge, bucketed.
    EXPECT_TRUE(s.contains(QStringLiteral("### Where the answers first diverge")));
    EXPECT_TRUE(s.contains(QStringLiteral("| none (identical) | 8 (80 %) | 6 (60 %) |"))) << qPrintable(s);
    EXPECT_TRUE(s.contains(QStringLiteral("| tokens 5–19 | 2 (20 %) | 4 (40 %) |"))) << qPrintable(s);
    EXPECT_TRUE(s.contains(QStringLiteral("| first token | 0 (0 %) | 0 (0 %) |")));

    // The prompts that drifted most: the highest KL first, with the test, run and position.
    EXPECT_TRUE(s.contains(QStringLiteral("### The prompts that drifted most")));
    EXPECT_TRUE(
        s.contains(QStringLiteral("| q4km | fid-9, run 1 | token 8 (character 32) | 8 of 20 tokens (40 %) | "
                                  "0.04 | rank 2, p 0.4, its own choice 0.5 | same |   |")))
        << qPrintable(s);
    EXPECT_TRUE(
        s.contains(QStringLiteral("| q4km | fid-10, run 1 | token 9 (character 36) | 9 of 20 tokens (45 %) "
                                  "| 0.04 | not in its top 20, its own choice 0.95 | changed |   |")))
        << qPrintable(s);
    // Without KL, the earliest divergence first.
    const auto first = s.indexOf(QStringLiteral("| nvfp4 | fid-7, run 1 | token 6"));
    const auto later = s.indexOf(QStringLiteral("| nvfp4 | fid-10, run 1 | token 9"));
    EXPECT_GE(first, 0) << qPrintable(s);
    EXPECT_GT(later, first);
    EXPECT_TRUE(s.contains(QStringLiteral("| not comparable | — | same | tokenizers differ |")))
        << qPrintable(s);

    EXPECT_FALSE(hasNonFinite(md)) << qPrintable(md);
}

TEST(ReportFidelity, SupportNotesAndTheBaselineAsReference)
{
    Fidelity measured = fidelity(0.05);
    measured.referenceMarked = false;
    measured.arms[1].support
        = QStringLiteral("not supported by this server: it returned 400 for top_logprobs 20 "
                         "(vLLM --max-logprobs raises the cap)");
    measured.notes = {QStringLiteral("2 prompts were answered by the reference only")};
    Guardrail g;
    g.id = QStringLiteral("reference_model_differs");
    g.severity = Guardrail::Severity::Warning;
    g.title = QStringLiteral("The reference is another model");
    g.evidence = QStringLiteral("bf16 serves qwen3-8b, the arms qwen3-9b");
    Fixture f(measured);
    f.ev.guardrails.push_back(g);
    const QString s = sectionOf(reportMarkdown(f.input), QStringLiteral("## Fidelity"));
    EXPECT_TRUE(s.contains(QStringLiteral("— the baseline, because no reference was marked.")))
        << qPrintable(s);
    EXPECT_TRUE(s.contains(QStringLiteral("### Notes")));
    EXPECT_TRUE(s.contains(QStringLiteral("- 2 prompts were answered by the reference only")));
    EXPECT_TRUE(s.contains(QStringLiteral("- **nvfp4:** not supported by this server: it returned 400 for "
                                          "top\\_logprobs 20 (vLLM --max-logprobs raises the cap)")))
        << qPrintable(s);
    EXPECT_TRUE(s.contains(
        QStringLiteral("**The reference is another model:** bf16 serves qwen3-8b, the arms qwen3-9b")))
        << qPrintable(s);
    // With its KL, nvfp4's row has the numbers: 0.05 [0.04 – 0.0625].
    EXPECT_TRUE(s.contains(
        QStringLiteral("| nvfp4 | 10 | 6 | 40 % \\[12 % – 74 %\\] | 0.05 \\[0.04 – 0.0625\\] | 0.1 |")))
        << qPrintable(s);
}

TEST(ReportFidelity, HtmlHasTheSameSection)
{
    Fixture f(fidelity());
    for (const HtmlFlavor flavor : {HtmlFlavor::Browser, HtmlFlavor::RichText}) {
        // (RichText keeps numeric cells on one line with non-breaking spaces.)
        const QString html = reportHtml(f.input, flavor).replace(QChar(0x00a0), u' ');
        EXPECT_TRUE(html.contains(QStringLiteral("<h2>Fidelity</h2>")));
        EXPECT_TRUE(html.contains(QStringLiteral("not comparable: tokenizers differ</b>"))) << int(flavor);
        EXPECT_TRUE(html.contains(QStringLiteral("Where the answers first diverge")));
        EXPECT_TRUE(html.contains(QStringLiteral("KL(reference ‖ candidate)")));
        EXPECT_FALSE(hasNonFinite(html));
    }
}

TEST(ReportFidelity, ChecklistItem)
{
    const QString item
        = QStringLiteral("| Next-token fidelity vs the reference (the seeds' perplexity check) | ");
    // No fidelity criterion, no fidelity measured: no such item.
    {
        Fixture f(std::nullopt);
        EXPECT_FALSE(reportMarkdown(f.input).contains(item));
    }
    // Measured, no criterion: the numbers, to check by hand.
    {
        Fixture f(fidelity(0.05));
        const QString checklist
            = sectionOf(reportMarkdown(f.input), QStringLiteral("## Drop-in replacement checklist"));
        EXPECT_TRUE(checklist.contains(item
            + QStringLiteral(
                "*check by hand* | flip rate 40 % (4 of 10 prompts), mean KL 0.05 nats against bf16; "
                "the profile sets no limit |")))
            << qPrintable(checklist);
        // bf16, a candidate too, is the reference.
        EXPECT_TRUE(checklist.contains(item + QStringLiteral("**✓ yes** | bf16 is the fidelity reference |")))
            << qPrintable(checklist);
    }
    // A criterion in the profile decides it; not measured says how to measure it.
    const json criteria = json::array({{{"fidelity", "flip_rate"}, {"max", 0.25}, {"optional", true}}});
    {
        Fixture f(fidelity(0.05), criteria);
        const QString checklist
            = sectionOf(reportMarkdown(f.input), QStringLiteral("## Drop-in replacement checklist"));
        // 4 of 10 distinct prompts (interval 12 %–74 %) cannot be placed against 25 %: not a yes.
        EXPECT_TRUE(checklist.contains(
            item + QStringLiteral("**undecided** | flip rate vs the reference ≤ 25 %: flip rate 40 %")))
            << qPrintable(checklist);
    }
    {
        Fixture f(std::nullopt, criteria);
        const QString checklist
            = sectionOf(reportMarkdown(f.input), QStringLiteral("## Drop-in replacement checklist"));
        EXPECT_TRUE(checklist.contains(item
            + QStringLiteral("*not measured* | flip rate vs the reference ≤ 25 %: "
                             "not measured (required ≤ 25 % of prompts differ "
                             "from the reference); run the fidelity suite")))
            << qPrintable(checklist);
    }
}
