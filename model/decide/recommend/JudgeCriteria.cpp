// SPDX-License-Identifier: MIT
// Judge criteria: what an LLM judge said about the answers (Evaluation::judged) — a rubric
// criterion's median score, or the blind pairwise comparison not finding the baseline better. A
// judge is itself a model: when it did not judge, the criterion is "not measured" (optional) or
// inconclusive, never a silent pass; when it contradicts itself, its verdict decides nothing.
#include "model/core/Percentile.h"
#include "model/decide/recommend/Arm.h"
#include "model/decide/recommend/BoundTest.h"
#include "model/decide/recommend/Criteria.h"
#include "model/decide/recommend/CriterionText.h"

#include <cmath>

namespace qs::criteria {

using Outcome = CriterionResult::Outcome;

namespace {

// Below this share of pairs judged the same in both orders, the judge is not trusted (the
// judge_low_consistency guardrail's threshold, docs/judging.md).
constexpr double minConsistency = MinJudgeConsistency;

// "the judge (qwen3-32b)"; "The judge …" at the start of a sentence.
QString judgeName(const JudgedQuality& q, bool sentenceStart = false)
{
    const QString model = q.judge.model.isEmpty() ? q.judge.endpointLabel : q.judge.model;
    const QString the = sentenceStart ? QStringLiteral("The judge") : QStringLiteral("the judge");
    return model.isEmpty() ? the : QStringLiteral("%1 (%2)").arg(the, model);
}

QString count(int n, const char* one, const char* many)
{
    return QString::number(n) + u' ' + QString::fromUtf8(n == 1 ? one : many);
}

QString rubricCommand()
{
    return QStringLiteral("run `quantscope judge FILE --judge SPEC --rubric RUBRIC --out FILE` (SPEC as for "
                          "`run --endpoint`, ideally a larger model that is not one of the compared "
                          "endpoints; RUBRIC one with the profile's criteria, e.g. voice-assistant) and "
                          "decide again");
}

QString pairwiseCommand(const Arm& arm)
{
    return QStringLiteral("run `quantscope judge FILE --judge SPEC --pairwise BASELINE --out FILE` with "
                          "BASELINE the baseline, %1 (SPEC as for `run --endpoint`, ideally a larger model "
                          "that is not one of the compared endpoints) and decide again")
        .arg(arm.baselineLabel);
}

const RubricArm* rubricArmOf(const JudgedQuality& q, int endpoint)
{
    for (const RubricArm& a : q.rubricArms)
        if (a.endpoint == endpoint)
            return &a;
    return nullptr;
}

QString scoreText(double median)
{
    return QString::number(median, 'g', 3);
}

// What makes answers score better on the built-in rubric's criteria (resources/judges).
QString rubricFix(const QString& criterion)
{
    if (criterion == u"answers_question")
        return QStringLiteral("the answers drift from what was asked: a less aggressive quantization of the "
                              "same fine-tune, or a system prompt that asks for direct answers");
    if (criterion == u"correct")
        return QStringLiteral("quantization damage shows first in facts and arithmetic: a less aggressive "
                              "(or better calibrated) quantization of the same fine-tune");
    if (criterion == u"warm_personal")
        return QStringLiteral("the seeds' v4 found a model \"coherent, but generic\": serve the fine-tune "
                              "that carries the assistant's persona, or state the persona in the system "
                              "prompt");
    if (criterion == u"spoken_length")
        return QStringLiteral("tell the model its answers are spoken and a few sentences long, or lower "
                              "max_tokens");
    if (criterion == u"persona")
        return QStringLiteral(
            "the persona slips across turns: serve the persona fine-tune and keep the system prompt in "
            "every turn");
    return QStringLiteral("read the judge's reasons for the low scores and fix what they name");
}

Judged judgeRubric(const Arm& arm, const Criterion& c)
{
    const JudgedQuality& q = arm.evaluation.judged;
    const QString required = QStringLiteral("median ≥ %1 of 5").arg(scoreText(c.threshold));
    if (!q.judged)
        return unmeasured(c, QStringLiteral("not judged"), required,
            QStringLiteral("No LLM judge has graded this run's answers."),
            QStringLiteral("Judged quality was not measured (no LLM judge graded the answers): ")
                + rubricCommand() + u'.');
    if (!q.rubric)
        return unmeasured(c, QStringLiteral("no rubric"), required,
            QStringLiteral("The judge compared pairs but graded no answer against a rubric."),
            QStringLiteral("The judge graded no answer against a rubric: ") + rubricCommand() + u'.');
    const RubricCriterion* rc = nullptr;
    QStringList ids;
    for (const RubricCriterion& r : q.rubric->criteria) {
        ids << r.id;
        if (r.id == c.rubricCriterion)
            rc = &r;
    }
    const QString known = ids.join(QStringLiteral(", "));
    if (!rc)
        return unmeasured(c, QStringLiteral("not in rubric \"%1\"").arg(q.rubric->id), required,
            QStringLiteral("The rubric \"%1\" the judge used has no criterion \"%2\" (its criteria: %3).")
                .arg(q.rubric->id, c.rubricCriterion, known),
            QStringLiteral("%1: the rubric \"%2\" has no criterion \"%3\": judge with a rubric that grades "
                           "it, or change the profile's \"criterion\" to one of %4.")
                .arg(c.title, q.rubric->id, c.rubricCriterion, known));
    if (!c.test.isEmpty() && !rc->appliesTo(c.test))
        return unmeasured(c, QStringLiteral("not graded in this test"), required,
            QStringLiteral("The rubric's criterion \"%1\" does not apply to test \"%2\" (it grades: %3).")
                .arg(c.rubricCriterion, c.test, rc->tests.join(QStringLiteral(", "))),
            QStringLiteral("%1: the rubric grades \"%2\" only in %3: change the criterion's \"test\".")
                .arg(c.title, c.rubricCriterion, rc->tests.join(QStringLiteral(", "))));

    const RubricArm* graded = rubricArmOf(q, arm.candidate);
    const QString failures = graded && graded->failed > 0
        ? QStringLiteral(", %1 judge failures").arg(graded->failed)
        : QString();
    const RubricScore* s = q.score(arm.candidate, c.rubricCriterion, c.test);
    if (!s || s->n == 0) {
        const QString why = !graded || graded->eligible == 0
            ? QStringLiteral("%1 has no measured, successful answer to grade").arg(arm.candidateLabel)
            : QStringLiteral("the judge graded none of %1's answers on \"%2\"%3 (it failed on %4 of %5 "
                             "answers)")
                  .arg(arm.candidateLabel, c.rubricCriterion, inTest(c))
                  .arg(graded->failed)
                  .arg(graded->eligible);
        return unmeasured(c, QStringLiteral("no score") + failures, required,
            why.left(1).toUpper() + why.mid(1) + u'.',
            QStringLiteral("%1 not measured: %2. Run the same `quantscope judge` command again to resume, "
                           "and read the judge's raw replies in the results file for why it failed.")
                .arg(c.title, why));
    }

    const RubricScore* base = q.score(arm.baseline, c.rubricCriterion, c.test);
    const QString baseText = base && base->n > 0
        ? QStringLiteral("%1: %2").arg(arm.baselineLabel, scoreText(base->median))
        : QString();
    Judged j;
    j.result.criterion = c;
    j.result.required = required;
    j.result.measured = QStringLiteral("median %1 (n %2%3)").arg(scoreText(s->median)).arg(s->n).arg(failures)
        + (baseText.isEmpty() ? QString() : QStringLiteral("; ") + baseText);
    // Over prompts: each test's median score is one value (its repeats and turns one verdict),
    // and the sign test's interval of their median decides. A criterion on one test rests on one
    // prompt, and so does a run whose judge graded a single test.
    std::vector<double> promptMedians;
    if (c.test.isEmpty())
        for (const RubricScore& t : q.rubricScores)
            if (t.endpoint == arm.candidate && t.criterion == c.rubricCriterion && !t.test.isEmpty()
                && t.n > 0)
                promptMedians.push_back(t.median);
    const int prompts = int(promptMedians.size());
    const std::optional<Interval> ci = medianInterval(promptMedians);
    j.result.measured += QStringLiteral("; %1 distinct prompts").arg(prompts);
    if (ci)
        j.result.measured
            += QStringLiteral(", median of their medians %1 [%2–%3]")
                   .arg(scoreText(*median(promptMedians)), scoreText(ci->lo), scoreText(ci->hi));
    if (!ci)
        return inconclusive(c, j.result.measured, required,
            QStringLiteral("%1's answers were graded on %2 distinct prompts, too few for an interval of the "
                           "typical prompt's score (at least 6 are needed; repeats of a prompt are one "
                           "score).")
                .arg(arm.candidateLabel)
                .arg(prompts),
            QStringLiteral("%1: only %2 distinct prompts graded; judge a run with at least 6 distinct "
                           "prompts that the rubric grades on \"%3\".")
                .arg(c.title)
                .arg(prompts)
                .arg(c.rubricCriterion));
    const std::vector<double> values = promptMedians;
    testBound(
        j.result, *median(promptMedians), *ci, c.threshold, false, prompts,
        [values](double confidence) { return medianInterval(values, confidence); }, arm.share);
    if (j.result.outcome == Outcome::Inconclusive) {
        j.result.explanation
            = QStringLiteral("%1's typical prompt scores %2 of 5 on \"%3\", but the interval "
                             "%4–%5 straddles the required %6%7.")
                  .arg(arm.candidateLabel, scoreText(*median(promptMedians)), c.rubricCriterion,
                      scoreText(ci->lo), scoreText(ci->hi), scoreText(c.threshold), settleText(j.result));
        j.change = QStringLiteral("Whether %1's answers score at least %2 on \"%3\" is open (%4)%5.")
                       .arg(arm.candidateLabel, scoreText(c.threshold), c.rubricCriterion, j.result.measured,
                           settleText(j.result));
        return j;
    }
    const bool pass = j.result.outcome == Outcome::Pass;
    QStringList histogram;
    for (int v : s->histogram)
        histogram << QString::number(v);
    j.result.explanation
        = QStringLiteral("%1 gave %2's answers a median of %3 of 5 on \"%4\"%5 over %6 answers (1s to 5s: "
                         "%7)%8, %9 the required %10.")
              .arg(judgeName(q, true), arm.candidateLabel, scoreText(s->median),
                  rc->title.isEmpty() ? rc->id : rc->title, inTest(c))
              .arg(s->n)
              .arg(histogram.join(QStringLiteral(", ")),
                  baseText.isEmpty() ? QString() : QStringLiteral("; ") + baseText,
                  pass ? QStringLiteral("at or above") : QStringLiteral("below"), scoreText(c.threshold));
    if (!pass)
        j.change
            = QStringLiteral("%1's answers score a median of %2 of 5 on \"%3\"%4 and must score at least "
                             "%5%6: %7 (the report's Judged quality section quotes the judge's reasons).")
                  .arg(arm.candidateLabel, scoreText(s->median), c.rubricCriterion, inTest(c),
                      scoreText(c.threshold),
                      baseText.isEmpty() ? QString() : QStringLiteral(" (") + baseText + u')',
                      rubricFix(c.rubricCriterion));
    return j;
}

QString rateWithInterval(const PairwiseResult& p)
{
    if (!p.promptWinShare)
        return QStringLiteral("no prompt judged");
    QString t = QStringLiteral("win share %1 over %2 distinct prompts")
                    .arg(percent(*p.promptWinShare))
                    .arg(p.prompts);
    if (p.promptWinShareCi)
        t += QStringLiteral(" [%1 – %2]")
                 .arg(percent(p.promptWinShareCi->lo), percent(p.promptWinShareCi->hi));
    return t;
}

Judged judgePairwise(const Arm& arm, const Criterion& c)
{
    const JudgedQuality& q = arm.evaluation.judged;
    const QString required
        = marginText(c) + QStringLiteral(" against %1 (blind, both orders)").arg(arm.baselineLabel);
    if (!q.judged)
        return unmeasured(c, QStringLiteral("not judged"), required,
            QStringLiteral("No LLM judge has compared this run's answers."),
            QStringLiteral("The blind pairwise comparison was not measured (no LLM judge compared the "
                           "answers): ")
                + pairwiseCommand(arm) + u'.');
    const PairwiseResult* p = q.pairwiseFor(arm.candidate);
    if (!p)
        return unmeasured(c, QStringLiteral("no pairs judged"), required,
            q.pairwise.empty() ? QStringLiteral("The judge compared no pairs (it ran without --pairwise).")
                               : QStringLiteral("The judge compared other endpoints' answers, not %1's.")
                                     .arg(arm.candidateLabel),
            QStringLiteral("The judge compared none of %1's answers with %2's: ")
                    .arg(arm.candidateLabel, arm.baselineLabel)
                + pairwiseCommand(arm) + u'.');
    if (p->baseline != arm.baseline)
        return unmeasured(c, QStringLiteral("compared with %1").arg(p->baselineLabel), required,
            QStringLiteral("The judge compared %1 with %2, not with the baseline %3.")
                .arg(arm.candidateLabel, p->baselineLabel, arm.baselineLabel),
            QStringLiteral("The pairwise judging is against %1: judge again with --pairwise set to %2, or "
                           "decide with %1 as the baseline.")
                .arg(p->baselineLabel, arm.baselineLabel));

    const int minPairs = JudgeOptions {}.minPairs;
    const QString counts = QStringLiteral("%1, %2, %3 of %4")
                               .arg(count(p->wins, "win", "wins"), count(p->ties, "tie", "ties"),
                                   count(p->losses, "loss", "losses"), count(p->pairs, "pair", "pairs"));
    const QString consistency = p->consistency ? percent(*p->consistency) : QStringLiteral("—");
    const QString measured = counts + QStringLiteral("; ") + rateWithInterval(*p)
        + QStringLiteral("; consistency ") + consistency;
    const int minPrompts = JudgeOptions {}.minPrompts;
    if (p->prompts < minPrompts)
        return inconclusive(c, measured, required,
            QStringLiteral("Only %1 distinct prompts were judged in both orders (at least %2 are needed; "
                           "repeats of a prompt are one verdict).")
                .arg(p->prompts)
                .arg(minPrompts),
            QStringLiteral("Only %1 distinct prompts of %2 and %3 were judged in both orders, fewer than %4: "
                           "run a suite with more distinct prompts and judge again.")
                .arg(p->prompts)
                .arg(arm.candidateLabel, arm.baselineLabel)
                .arg(minPrompts));
    if (p->pairs < minPairs || p->verdict == u"too_few_pairs")
        return inconclusive(c, measured, required,
            QStringLiteral("Only %1 pairs were judged in both orders (at least %2 are needed)%3.")
                .arg(p->pairs)
                .arg(minPairs)
                .arg(p->failedPairs > 0 ? QStringLiteral("; the judge failed on %1 more").arg(p->failedPairs)
                                        : QString()),
            QStringLiteral(
                "Only %1 pairs of %2 and %3 were judged in both orders, fewer than %4: measure more "
                "runs per test (--runs) and judge again (the same `quantscope judge` command "
                "resumes failed judgements).")
                .arg(p->pairs)
                .arg(arm.candidateLabel, arm.baselineLabel)
                .arg(minPairs));
    if (p->consistency && *p->consistency < minConsistency) {
        const QString bias = p->firstPositionRate
            ? QStringLiteral(", and picked the answer shown first in %1 of its picks")
                  .arg(percent(*p->firstPositionRate))
            : QString();
        return inconclusive(c, measured, required,
            QStringLiteral("%1 gave the same verdict in both orders on only %2 of the pairs (at least %3 "
                           "needed)%4: its verdicts cannot be trusted, so they decide nothing.")
                .arg(judgeName(q, true), consistency, percent(minConsistency), bias),
            QStringLiteral("%1 contradicted itself when the order was swapped (consistency %2, at least %3 "
                           "needed): judge again with a stronger judge, ideally a larger model that is not "
                           "one of the compared endpoints.")
                .arg(judgeName(q, true), consistency, percent(minConsistency)));
    }

    Judged j;
    j.result.criterion = c;
    j.result.required = required;
    j.result.measured = measured;
    const double shares = *p->promptWinShare * p->prompts;
    const int n = p->prompts;
    testBound(
        j.result, *p->promptWinShare, *p->promptWinShareCi, marginOf(c), false, n,
        [shares, n](
            double confidence) { return std::optional<Interval>(promptRateInterval(shares, n, confidence)); },
        arm.share);
    const QString sign = QStringLiteral("sign test over prompts p = %1").arg(number(p->signTestP));
    const QString what = QStringLiteral("In a blind comparison by %1, %2's %3 (%4)")
                             .arg(judgeName(q), arm.candidateLabel, rateWithInterval(*p), sign);
    switch (j.result.outcome) {
    case Outcome::Pass:
        j.result.explanation
            = what + QStringLiteral(": even the interval's lower end is within %1.").arg(marginText(c));
        break;
    case Outcome::Fail:
        j.result.explanation
            = what + QStringLiteral(": even the interval's upper end is below %1.").arg(marginText(c));
        j.change
            = QStringLiteral("In a blind comparison %1 preferred %2's answers: %3 won %4 and lost %5 of %6 "
                             "distinct prompts (%7). Read the judge's reasons in the report's Judged quality "
                             "section; the answers are worse, not slower.")
                  .arg(judgeName(q), arm.baselineLabel, arm.candidateLabel)
                  .arg(p->promptWins)
                  .arg(p->promptLosses)
                  .arg(p->prompts)
                  .arg(rateWithInterval(*p));
        break;
    default:
        j.result.explanation = what
            + QStringLiteral(": the interval straddles %1, so the judge cannot tell yet%2.")
                  .arg(marginText(c), settleText(j.result));
        j.change = QStringLiteral("Whether %1's answers are judged at least as good as %2's is open (%3)%4.")
                       .arg(arm.candidateLabel, arm.baselineLabel, measured, settleText(j.result));
        break;
    }
    return j;
}

} // namespace

Judged judgeJudgedQuality(const Arm& arm, const Criterion& c)
{
    return c.kind == Criterion::Kind::JudgeRubricMin ? judgeRubric(arm, c) : judgePairwise(arm, c);
}

} // namespace qs::criteria
