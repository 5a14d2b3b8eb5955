// SPDX-License-Identifier: MIT
#include "model/decide/Recommendation.h"

#include <algorithm>
#include <cmath>

namespace qs {

namespace {

using json = nlohmann::json;
using Outcome = CriterionResult::Outcome;

// ---------------------------------------------------------------------------------------------
// Numbers as a reader wants them: three significant digits or whole units, never "92.0634 ms".

QString number(double v)
{
    const double a = std::fabs(v);
    if (a >= 100)
        return QString::number(std::llround(v));
    if (a >= 10)
        return QString::number(v, 'f', 1);
    return QString::number(v, 'g', 3);
}

QString withUnit(double v, Metric metric)
{
    return number(v) + u' ' + metricUnit(metric);
}

// A threshold as the profile wrote it: "120 ms", "25 tok/s".
QString limitWithUnit(double v, Metric metric)
{
    return QString::number(v, 'g', 6) + u' ' + metricUnit(metric);
}

QString percent(double fraction)
{
    return QString::number(std::llround(fraction * 100)) + QStringLiteral(" %");
}

QString signedPercent(double fraction)
{
    const auto p = std::llround(fraction * 100);
    return (p > 0 ? QStringLiteral("+") : QString()) + QString::number(p) + QStringLiteral(" %");
}

QString inTest(const Criterion& c)
{
    return c.test.isEmpty() ? QString() : QStringLiteral(" in test \"") + c.test + u'"';
}

QString metricName(Metric metric)
{
    switch (metric) {
    case Metric::TtftAny:
        return QStringLiteral("TTFT (any token)");
    case Metric::TtftVisible:
        return QStringLiteral("TTFT (visible)");
    case Metric::FirstSentence:
        return QStringLiteral("time to the first sentence");
    case Metric::E2e:
        return QStringLiteral("total latency");
    case Metric::DecodeTps:
        return QStringLiteral("decode rate");
    case Metric::CompletionTokens:
        return QStringLiteral("answer length");
    case Metric::PromptTokens:
        return QStringLiteral("prompt length");
    }
    return metricId(metric);
}

// "N of M answers <what>" for a gate's failures.
QString failedPhrase(const QString& gate)
{
    if (gate == u"no_thinking_leak")
        return QStringLiteral("leaked thinking into the answer");
    if (gate == u"no_markdown")
        return QStringLiteral("contained markdown");
    if (gate == u"tool_call")
        return QStringLiteral("got the tool call wrong");
    if (gate == u"coherent")
        return QStringLiteral("were garbled");
    if (gate == u"expected_answer")
        return QStringLiteral("missed the expected answer");
    if (gate == u"non_empty")
        return QStringLiteral("were empty");
    if (gate == u"within_length")
        return QStringLiteral("were too long to speak");
    return QStringLiteral("failed ") + gate;
}

// The fix the seeds learned for each kind of failure (004_*: v1-v4).
QString gateFix(const QString& gate)
{
    if (gate == u"no_thinking_leak")
        return QStringLiteral(
            "start the server with a reasoning parser (vLLM/SGLang --reasoning-parser qwen3) and send "
            "chat_template_kwargs.enable_thinking=false (llama-server: --reasoning-budget 0), then run "
            "again");
    if (gate == u"tool_call")
        return QStringLiteral(
            "vLLM needs --enable-auto-tool-choice --tool-call-parser qwen3_coder (SGLang: "
            "--tool-call-parser); if "
            "calls still fail with the parser on, the model itself does not call tools reliably");
    if (gate == u"no_markdown")
        return QStringLiteral("tell the model in the system prompt that its answers are spoken aloud (no "
                              "lists, bold or headings), "
                              "or use a fine-tune trained to answer in plain speech");
    if (gate == u"coherent")
        return QStringLiteral(
            "a base model that needs its thinking produces this with thinking off (the seeds' v3): serve an "
            "instruct or distilled fine-tune that answers without thinking, ideally the baseline's own "
            "fine-tune "
            "in the new quantization");
    if (gate == u"expected_answer")
        return QStringLiteral(
            "check the model, its chat template and the quantization (damage shows first in facts and "
            "arithmetic); the candidate must get the suite's factual and reasoning questions right");
    if (gate == u"non_empty")
        return QStringLiteral(
            "check that thinking does not use up max_tokens (send enable_thinking=false, use a reasoning "
            "parser) and that the server reports no errors");
    if (gate == u"within_length")
        return QStringLiteral(
            "ask for short spoken answers in the system prompt, or use a fine-tune trained to be concise");
    return QStringLiteral(
        "look at the failing answers in the results (quantscope summary, or the GUI's quality table)");
}

QString metricFix(Metric metric)
{
    switch (metric) {
    case Metric::TtftAny:
    case Metric::TtftVisible:
    case Metric::FirstSentence:
        return QStringLiteral(
            "prompt processing must get faster: a runtime or quantization with faster prefill (the seeds' "
            "NVFP4 "
            "on Blackwell: ~90 ms), prefix caching of the system prompt, or a shorter system prompt");
    case Metric::DecodeTps:
        return QStringLiteral("enable CUDA graphs (vLLM without --enforce-eager, once the GPU supports "
                              "them), speculative decoding "
                              "(MTP: --speculative-config), or a smaller model");
    case Metric::E2e:
        return QStringLiteral("shorter answers (a concise fine-tune or system prompt) or faster decoding");
    case Metric::CompletionTokens:
        return QStringLiteral(
            "ask for short answers in the system prompt, or use a fine-tune trained to be concise");
    case Metric::PromptTokens:
        break;
    }
    return QStringLiteral("change the setup that drives this number and run again");
}

QString betterWord(Metric metric, bool better)
{
    if (preferredDirection(metric) == Preferred::Higher)
        return better ? QStringLiteral("faster") : QStringLiteral("slower");
    if (metric == Metric::CompletionTokens || metric == Metric::PromptTokens)
        return better ? QStringLiteral("shorter") : QStringLiteral("longer");
    return better ? QStringLiteral("faster") : QStringLiteral("slower");
}

// ---------------------------------------------------------------------------------------------
// What the evaluation holds for one candidate

struct Arm {
    const RunResult& result;
    const Evaluation& evaluation;
    int baseline = 0;
    int candidate = 1;
    QString baselineLabel;
    QString candidateLabel;
    const ArmComparison* comparison = nullptr; ///< null when the bootstrap was skipped or the arm is missing
};

bool runHasTest(const Arm& arm, const QString& test)
{
    return std::any_of(arm.result.records.begin(), arm.result.records.end(),
        [&](const RunRecord& r) { return !r.warmup && r.test == test; });
}

// Gate counts over the candidate's all-turns cells (a multi-turn test's every turn counts).
std::pair<int, int> gateCounts(const Arm& arm, const Criterion& c)
{
    std::pair<int, int> total {0, 0};
    for (const CellStatistics& cell : arm.evaluation.cells) {
        if (cell.endpoint != arm.candidate || cell.turn != 0 || (!c.test.isEmpty() && cell.test != c.test))
            continue;
        if (const auto it = cell.gates.find(c.gate); it != cell.gates.end()) {
            total.first += it->second.first;
            total.second += it->second.second;
        }
    }
    return total;
}

// One test: its all-turns cell, as in the summary table. All tests: the candidate's measured,
// successful requests pooled (one distribution, not a median of medians).
std::optional<Distribution> distribution(const Arm& arm, const Criterion& c)
{
    const QString id = metricId(c.metric);
    if (!c.test.isEmpty())
        for (const CellStatistics& cell : arm.evaluation.cells)
            if (cell.endpoint == arm.candidate && cell.turn == 0 && cell.test == c.test) {
                const auto it = cell.metrics.find(id);
                if (it != cell.metrics.end())
                    return it->second;
            }
    std::vector<double> values;
    for (const RunRecord& r : arm.result.records) {
        if (r.warmup || r.endpoint != arm.candidate || !r.request.ok()
            || (!c.test.isEmpty() && r.test != c.test))
            continue;
        if (const auto v = metricValue(r.request.metrics, c.metric))
            values.push_back(*v);
    }
    return describe(std::move(values));
}

double statisticOf(const Distribution& d, const QString& statistic)
{
    if (statistic == u"p90")
        return d.p90;
    if (statistic == u"p95")
        return d.p95;
    if (statistic == u"p99")
        return d.p99;
    if (statistic == u"mean")
        return d.mean;
    return d.p50;
}

// The pooled row, or the test's row; a run whose pairs span one test has no pooled row, and that
// test's row is then the pooled one.
template <typename Row>
const Row* findRow(const std::vector<Row>& rows, const QString& test, const auto& sameSubject)
{
    const auto turnOf = [](const Row& r) {
        if constexpr (requires { r.turn; })
            return r.turn;
        else
            return 0;
    };
    for (const Row& r : rows)
        if (sameSubject(r) && r.test == test && turnOf(r) == 0)
            return &r;
    if (!test.isEmpty())
        return nullptr;
    const Row* only = nullptr;
    for (const Row& r : rows)
        if (sameSubject(r) && turnOf(r) == 0) {
            if (only)
                return nullptr;
            only = &r;
        }
    return only;
}

// ---------------------------------------------------------------------------------------------
// Judging each kind of criterion. Each sets outcome, measured, required and explanation, and
// returns the "what would change" sentence for a criterion that did not pass.

struct Judged {
    CriterionResult result;
    QString change;
};

Judged inconclusive(const Criterion& c, const QString& measured, const QString& required, const QString& why,
    const QString& change)
{
    Judged j;
    j.result.criterion = c;
    j.result.outcome = Outcome::Inconclusive;
    j.result.measured = measured;
    j.result.required = required;
    j.result.explanation = why;
    j.change = change;
    return j;
}

QString notJudgedHint(const QString& gate)
{
    if (gate == u"expected_answer")
        return QStringLiteral(" (only tests with \"expect\" patterns are judged for it)");
    if (gate == u"tool_call")
        return QStringLiteral(" (only tests with \"use_tools\" are judged for it)");
    if (gate == u"within_length")
        return QStringLiteral(" (only tests with \"max_words\"/\"max_sentences\" are judged for it)");
    if (gate == u"coherent" || gate == u"no_markdown")
        return QStringLiteral(" (answers that are a tool call or empty are not judged for it)");
    return {};
}

Judged judgeGateThreshold(const Arm& arm, const Criterion& c)
{
    const auto [passed, judged] = gateCounts(arm, c);
    const int failures = judged - passed;
    const bool maxFailures = c.kind == Criterion::Kind::GateMaxFailures;
    QString required;
    if (maxFailures) {
        const int allowed = int(c.threshold);
        required = allowed == 0 ? QStringLiteral("none") : QStringLiteral("at most %1").arg(allowed);
    } else {
        required = QStringLiteral("≥ %1 passed").arg(percent(c.threshold));
        if (judged > 0)
            required
                += QStringLiteral(" (%1 of %2)").arg(int(std::ceil(c.threshold * judged - 1e-9))).arg(judged);
    }
    if (judged == 0)
        return inconclusive(c, QStringLiteral("no answer judged"), required,
            QStringLiteral(
                "No measured answer of %1%2 was judged for %3, so the criterion cannot be checked.")
                .arg(arm.candidateLabel, inTest(c), c.gate),
            QStringLiteral(
                "No answer of %1%2 was judged for %3%4: run a suite with such tests, or drop the criterion.")
                .arg(arm.candidateLabel, inTest(c), c.gate, notJudgedHint(c.gate)));

    Judged j;
    j.result.criterion = c;
    j.result.required = required;
    const QString failedText
        = QStringLiteral("%1 of %2 answers %3").arg(failures).arg(judged).arg(failedPhrase(c.gate));
    const double rate = double(passed) / double(judged);
    bool pass = false;
    if (maxFailures) {
        pass = failures <= int(c.threshold);
        j.result.measured = failedText;
    } else {
        pass = rate + 1e-9 >= c.threshold;
        j.result.measured = QStringLiteral("%1 of %2 passed (%3)").arg(passed).arg(judged).arg(percent(rate));
    }
    j.result.outcome = pass ? Outcome::Pass : Outcome::Fail;
    const QString limit = maxFailures
        ? (int(c.threshold) == 0 ? QStringLiteral("none is allowed")
                                 : QStringLiteral("at most %1 are allowed").arg(int(c.threshold)))
        : QStringLiteral("at least %1 must pass").arg(percent(c.threshold));
    j.result.explanation
        = QStringLiteral("%1: %2%3 (%4%5).")
              .arg(arm.candidateLabel, failedText, inTest(c),
                  pass ? QStringLiteral("within the limit: ") : QStringLiteral("over the limit: "), limit);
    if (!pass) {
        QString kinds;
        const auto tally = arm.evaluation.gateFailures.find({arm.candidate, c.test, c.gate});
        if (tally != arm.evaluation.gateFailures.end() && !tally->second.reasons.empty()) {
            std::vector<std::pair<int, QString>> byCount;
            for (const auto& [kind, countExample] : tally->second.reasons)
                byCount.push_back({countExample.first, kind});
            std::sort(byCount.begin(), byCount.end(),
                [](const auto& a, const auto& b) { return a.first > b.first; });
            QStringList parts;
            for (std::size_t i = 0; i < std::min<std::size_t>(3, byCount.size()); ++i)
                parts << QStringLiteral("%1 × %2").arg(byCount[i].first).arg(byCount[i].second);
            kinds = QStringLiteral(" (") + parts.join(QStringLiteral(", ")) + u')';
        }
        j.change = QStringLiteral("%1%2: %3%4, where %5; to pass, %6.")
                       .arg(arm.candidateLabel, inTest(c), failedText, kinds, limit, gateFix(c.gate));
    }
    return j;
}

Judged judgeMetricThreshold(const Arm& arm, const Criterion& c)
{
    const bool isMax = c.kind == Criterion::Kind::MetricMax;
    const QString required = (isMax ? QStringLiteral("≤ ") : QStringLiteral("≥ "))
        + limitWithUnit(c.threshold, c.metric) + QStringLiteral(" (") + c.statistic + u')';
    const auto d = distribution(arm, c);
    if (!d)
        return inconclusive(c, QStringLiteral("no value"), required,
            QStringLiteral("%1 has no successful measured request with %2%3.")
                .arg(arm.candidateLabel, metricId(c.metric), inTest(c)),
            QStringLiteral(
                "%1 has no successful measured request with %2%3: fix the failed requests (see the "
                "errors in the summary) and run again.")
                .arg(arm.candidateLabel, metricId(c.metric), inTest(c)));
    const double value = statisticOf(*d, c.statistic);
    Judged j;
    j.result.criterion = c;
    j.result.required = required;
    j.result.measured
        = QStringLiteral("%1 %2 (n = %3)").arg(c.statistic, withUnit(value, c.metric)).arg(d->n);
    const bool pass = isMax ? value <= c.threshold : value >= c.threshold;
    j.result.outcome = pass ? Outcome::Pass : Outcome::Fail;
    j.result.explanation = QStringLiteral("%1's %2 %3%4 is %5, %6 %7.")
                               .arg(arm.candidateLabel, metricName(c.metric), c.statistic, inTest(c),
                                   withUnit(value, c.metric),
                                   pass ? QStringLiteral("within") : QStringLiteral("outside"), required);
    if (!pass) {
        const double gap = std::fabs(c.threshold - value);
        const QString need = isMax
            ? QStringLiteral("%1 less").arg(withUnit(gap, c.metric))
            : QStringLiteral("%1 more, %2")
                  .arg(withUnit(gap, c.metric), signedPercent(value > 0 ? gap / value : 1));
        j.change = QStringLiteral("%1's %2 %3%4 is %5 and must be %6 (%7): %8.")
                       .arg(arm.candidateLabel, metricName(c.metric), c.statistic, inTest(c),
                           withUnit(value, c.metric), required.section(QStringLiteral(" ("), 0, 0), need,
                           metricFix(c.metric));
    }
    return j;
}

// Whether `endpoint` has any value of the criterion's metric (or any judged answer of its gate).
bool hasData(const Arm& arm, const Criterion& c, int endpoint)
{
    for (const RunRecord& r : arm.result.records) {
        if (r.warmup || r.endpoint != endpoint || (!c.test.isEmpty() && r.test != c.test))
            continue;
        if (isGateCriterion(c)) {
            const auto it = r.gates.find(c.gate.toStdString());
            if (it != r.gates.end() && it->is_boolean())
                return true;
        } else if (r.request.ok() && metricValue(r.request.metrics, c.metric)) {
            return true;
        }
    }
    return false;
}

Judged comparisonMissing(const Arm& arm, const Criterion& c, const QString& subject, const QString& required)
{
    // Nothing to pair because one arm has no value at all: say which, and why that may be.
    for (const auto& [endpoint, label] :
        {std::pair {arm.candidate, arm.candidateLabel}, std::pair {arm.baseline, arm.baselineLabel}}) {
        if (hasData(arm, c, endpoint))
            continue;
        const QString why = isGateCriterion(c)  ? notJudgedHint(c.gate)
            : c.metric == Metric::FirstSentence ? QStringLiteral(" (no answer completed a sentence)")
                                                : QString();
        const QString what = isGateCriterion(c) ? QStringLiteral("no answer judged for ") + c.gate
                                                : QStringLiteral("no value of ") + subject;
        return inconclusive(c, what + QStringLiteral(" on ") + label, required,
            QStringLiteral("%1 has %2%3%4, so there is nothing to compare.").arg(label, what, inTest(c), why),
            QStringLiteral("%1 has %2%3%4: the comparison with the baseline can be made once it has.")
                .arg(label, what, inTest(c), why));
    }
    if (!arm.evaluation.hasComparison)
        return inconclusive(c, QStringLiteral("not compared"), required,
            QStringLiteral(
                "The paired comparison was not computed, so %1 cannot be compared with the baseline.")
                .arg(subject),
            QStringLiteral("Compute the paired comparison (the evaluation skipped it) to judge %1.")
                .arg(subject));
    return inconclusive(c, QStringLiteral("no pairs"), required,
        QStringLiteral("No request of %1 and %2%3 can be paired for %4.")
            .arg(arm.candidateLabel, arm.baselineLabel, inTest(c), subject),
        QStringLiteral(
            "No paired measurement of %1%2 for %3 and %4: run both endpoints in the same run with the "
            "same suite (pairs are matched by test, turn and run), at least 5 measured runs per test.")
            .arg(subject, inTest(c), arm.candidateLabel, arm.baselineLabel));
}

Judged tooFewPairs(const Arm& arm, const Criterion& c, const QString& subject, const QString& measured,
    const QString& required, int pairs)
{
    const int minPairs = arm.evaluation.comparison.options.minPairs;
    return inconclusive(c, measured, required,
        QStringLiteral("Only %1 paired requests%2 compare %3 (at least %4 are needed to judge).")
            .arg(pairs)
            .arg(inTest(c), subject)
            .arg(minPairs),
        QStringLiteral(
            "Only %1 paired requests%2 compare %3 of %4 and %5, fewer than %6: run at least 5 measured "
            "runs per test on both endpoints (--runs 5, or more).")
            .arg(pairs)
            .arg(inTest(c), subject, arm.candidateLabel, arm.baselineLabel)
            .arg(minPairs));
}

Judged judgeMetricNotWorse(const Arm& arm, const Criterion& c)
{
    const QString required = QStringLiteral("not worse than ") + arm.baselineLabel;
    const QString subject = metricId(c.metric);
    const MetricComparison* row = arm.comparison ? findRow(arm.comparison->metrics, c.test,
                                      [&](const MetricComparison& r) { return r.metric == c.metric; })
                                                 : nullptr;
    if (!row)
        return comparisonMissing(arm, c, subject, required);
    QString measured = QStringLiteral("median %1 vs %2")
                           .arg(number(row->candidateMedian), withUnit(row->baselineMedian, c.metric));
    if (row->ratio) {
        measured += QStringLiteral(", ratio %1").arg(number(*row->ratio));
        if (row->ratioCi)
            measured += QStringLiteral(" [%1–%2]").arg(number(row->ratioCi->lo), number(row->ratioCi->hi));
    }
    measured += QStringLiteral(", %1 pairs").arg(row->pairs);
    if (row->verdict == Verdict::TooFewPairs)
        return tooFewPairs(arm, c, subject, measured, required, row->pairs);

    Judged j;
    j.result.criterion = c;
    j.result.required = required;
    j.result.measured = measured;
    const bool worse = row->verdict == Verdict::BaselineBetter;
    j.result.outcome = worse ? Outcome::Fail : Outcome::Pass;
    const QString who = QStringLiteral("%1's %2%3").arg(arm.candidateLabel, metricName(c.metric), inTest(c));
    if (worse)
        j.result.explanation = who
            + QStringLiteral(" is %1 than %2's, and the paired interval excludes no difference.")
                  .arg(betterWord(c.metric, false), arm.baselineLabel);
    else if (row->verdict == Verdict::CandidateBetter)
        j.result.explanation
            = who + QStringLiteral(" is %1 than %2's.").arg(betterWord(c.metric, true), arm.baselineLabel);
    else
        j.result.explanation
            = who + QStringLiteral(" shows no clear difference from %1's.").arg(arm.baselineLabel);
    if (worse)
        j.change
            = QStringLiteral("%1 is %2 than %3's (%4) and must be at least as good: %5.")
                  .arg(who, betterWord(c.metric, false), arm.baselineLabel, measured, metricFix(c.metric));
    return j;
}

Judged judgeGateNotWorse(const Arm& arm, const Criterion& c)
{
    const QString required = QStringLiteral("not worse than ") + arm.baselineLabel;
    const QString subject = QStringLiteral("gate ") + c.gate;
    const GateComparison* row = arm.comparison
        ? findRow(arm.comparison->gates, c.test, [&](const GateComparison& r) { return r.gate == c.gate; })
        : nullptr;
    if (!row)
        return comparisonMissing(arm, c, subject, required);
    QString measured = QStringLiteral("%1 vs %2 passed")
                           .arg(gateCount({row->bothPass + row->candidateOnly, row->pairs}),
                               gateCount({row->bothPass + row->baselineOnly, row->pairs}));
    measured += QStringLiteral(", difference %1").arg(signedPercent(row->difference));
    if (row->differenceCi)
        measured += QStringLiteral(" [%1, %2]")
                        .arg(signedPercent(row->differenceCi->lo), signedPercent(row->differenceCi->hi));
    measured += QStringLiteral(", %1 pairs").arg(row->pairs);
    if (row->verdict == Verdict::TooFewPairs)
        return tooFewPairs(arm, c, subject, measured, required, row->pairs);

    Judged j;
    j.result.criterion = c;
    j.result.required = required;
    j.result.measured = measured;
    const bool worse = row->verdict == Verdict::BaselineBetter;
    j.result.outcome = worse ? Outcome::Fail : Outcome::Pass;
    if (worse)
        j.result.explanation = QStringLiteral(
            "%1 passes %2%3 less often than %4, and the paired interval excludes no difference.")
                                   .arg(arm.candidateLabel, c.gate, inTest(c), arm.baselineLabel);
    else if (row->verdict == Verdict::CandidateBetter)
        j.result.explanation = QStringLiteral("%1 passes %2%3 more often than %4.")
                                   .arg(arm.candidateLabel, c.gate, inTest(c), arm.baselineLabel);
    else
        j.result.explanation
            = QStringLiteral("%1 and %2 pass %3%4 about equally often (no clear difference).")
                  .arg(arm.candidateLabel, arm.baselineLabel, c.gate, inTest(c));
    if (worse) {
        const auto [passed, judged] = gateCounts(arm, c);
        j.change = QStringLiteral("%1 passes %2%3 less often than %4 (%5); %6 of %7 of its answers %8: %9.")
                       .arg(arm.candidateLabel, c.gate, inTest(c), arm.baselineLabel, measured)
                       .arg(judged - passed)
                       .arg(judged)
                       .arg(failedPhrase(c.gate), gateFix(c.gate));
    }
    return j;
}

Judged judge(const Arm& arm, const Criterion& c)
{
    if (!c.test.isEmpty() && !runHasTest(arm, c.test))
        return inconclusive(c, QStringLiteral("no such test"), QString(),
            QStringLiteral("The run has no measured request of test \"%1\".").arg(c.test),
            QStringLiteral(
                "The run has no test \"%1\": run the suite the profile was written for, or change the "
                "criterion's \"test\".")
                .arg(c.test));
    switch (c.kind) {
    case Criterion::Kind::GateMaxFailures:
    case Criterion::Kind::GateMinPassRate:
        return judgeGateThreshold(arm, c);
    case Criterion::Kind::MetricMax:
    case Criterion::Kind::MetricMin:
        return judgeMetricThreshold(arm, c);
    case Criterion::Kind::MetricNotWorse:
        return judgeMetricNotWorse(arm, c);
    case Criterion::Kind::GateNotWorse:
        return judgeGateNotWorse(arm, c);
    }
    return {};
}

// ---------------------------------------------------------------------------------------------
// Fairness

// A guardrail about this comparison: run-wide (no endpoints), about the candidate, or about the
// baseline alone. One about the baseline and a third endpoint ({0, 2}) is that other pair's.
bool concerns(const Guardrail& g, int baseline, int candidate)
{
    if (g.endpoints.empty())
        return true;
    if (std::find(g.endpoints.begin(), g.endpoints.end(), candidate) != g.endpoints.end())
        return true;
    return g.endpoints.size() == 1 && g.endpoints.front() == baseline;
}

QString guardrailChange(const Guardrail& g)
{
    if (g.id == u"models_differ")
        return QStringLiteral(
                   "Serve the same fine-tune in both quantizations (quantize the baseline's model yourself "
                   "if nobody published it): ")
            + g.evidence
            + QStringLiteral(". Until then the differences mix the models' own behaviour with the "
                             "quantization, and no switch can be recommended.");
    if (g.id == u"thinking_differs")
        return QStringLiteral(
                   "Send both endpoints the same thinking setting (the suite's \"thinking\": false sends "
                   "chat_template_kwargs.enable_thinking=false; llama-server --reasoning-budget 0): ")
            + g.evidence + u'.';
    if (g.id == u"tools_without_parser")
        return QStringLiteral("Start the server with its tool-call parser (vLLM: --enable-auto-tool-choice "
                              "--tool-call-parser qwen3_coder; SGLang: --tool-call-parser) and run again: ")
            + g.evidence + u'.';
    return g.title + QStringLiteral(": ") + g.advice;
}

QString titles(const std::vector<CriterionResult>& results, Outcome outcome)
{
    QStringList t;
    for (const CriterionResult& r : results)
        if (r.outcome == outcome)
            t << r.criterion.title;
    return t.join(QStringLiteral(", "));
}

int countOf(const std::vector<CriterionResult>& results, Outcome outcome)
{
    return int(std::count_if(results.begin(), results.end(),
        [outcome](const CriterionResult& r) { return r.outcome == outcome; }));
}

} // namespace

QString outcomeId(CriterionResult::Outcome outcome)
{
    switch (outcome) {
    case Outcome::Pass:
        return QStringLiteral("pass");
    case Outcome::Fail:
        return QStringLiteral("fail");
    case Outcome::Inconclusive:
        return QStringLiteral("inconclusive");
    }
    return {};
}

QString decisionId(Recommendation::Decision decision)
{
    switch (decision) {
    case Recommendation::Decision::Switch:
        return QStringLiteral("switch");
    case Recommendation::Decision::KeepBaseline:
        return QStringLiteral("keep_baseline");
    case Recommendation::Decision::Inconclusive:
        return QStringLiteral("inconclusive");
    }
    return {};
}

std::vector<Recommendation> recommend(
    const RunResult& result, const Evaluation& evaluation, const DecisionProfile& profile)
{
    std::vector<Recommendation> out;
    const int endpoints = int(result.endpoints.size());
    const int baseline = evaluation.baseline;
    if (baseline < 0 || baseline >= endpoints)
        return out;
    for (int candidate = 0; candidate < endpoints; ++candidate) {
        if (candidate == baseline)
            continue;
        Arm arm {result, evaluation, baseline, candidate,
            result.endpoints[std::size_t(baseline)].endpoint.displayName(),
            result.endpoints[std::size_t(candidate)].endpoint.displayName(), nullptr};
        if (evaluation.hasComparison)
            for (const ArmComparison& a : evaluation.comparison.arms)
                if (a.baseline == baseline && a.candidate == candidate)
                    arm.comparison = &a;

        Recommendation rec;
        rec.baseline = baseline;
        rec.candidate = candidate;
        rec.baselineLabel = arm.baselineLabel;
        rec.candidateLabel = arm.candidateLabel;
        QStringList failedChanges, openChanges;
        for (const Criterion& c : profile.criteria) {
            Judged j = judge(arm, c);
            if (j.result.outcome == Outcome::Fail)
                failedChanges << j.change;
            else if (j.result.outcome == Outcome::Inconclusive)
                openChanges << j.change;
            rec.criteria.push_back(std::move(j.result));
        }
        // Failed criteria first: they are what keeps the baseline.
        rec.whatWouldChange = failedChanges + openChanges;

        QStringList unfair;
        for (const Guardrail& g : evaluation.guardrails) {
            if (g.severity != Guardrail::Severity::Critical || !concerns(g, baseline, candidate))
                continue;
            unfair << g.title;
            rec.caveats << g.title + QStringLiteral(": ") + g.evidence;
            rec.whatWouldChange << guardrailChange(g);
        }

        const int total = int(rec.criteria.size());
        const int failed = countOf(rec.criteria, Outcome::Fail);
        const int open = countOf(rec.criteria, Outcome::Inconclusive);
        if (failed > 0) {
            rec.decision = Recommendation::Decision::KeepBaseline;
            rec.headline = QStringLiteral("Keep %1: %2 fails %3 of %4 criteria (%5)")
                               .arg(arm.baselineLabel, arm.candidateLabel)
                               .arg(failed)
                               .arg(total)
                               .arg(titles(rec.criteria, Outcome::Fail));
            if (!unfair.isEmpty())
                rec.headline += QStringLiteral("; besides, the comparison is not fair: ")
                    + unfair.join(QStringLiteral("; "));
        } else if (open > 0 || !unfair.isEmpty()) {
            rec.decision = Recommendation::Decision::Inconclusive;
            QStringList why;
            if (open > 0)
                why << QStringLiteral("%1 of %2 criteria could not be decided (%3)")
                           .arg(open)
                           .arg(total)
                           .arg(titles(rec.criteria, Outcome::Inconclusive));
            if (!unfair.isEmpty())
                why << QStringLiteral("the comparison is not fair: ") + unfair.join(QStringLiteral("; "));
            rec.headline
                = QStringLiteral("No recommendation between %1 and %2 yet: %3 passes every criterion that "
                                 "could be judged, but %4")
                      .arg(arm.baselineLabel, arm.candidateLabel, arm.candidateLabel,
                          why.join(QStringLiteral(", and ")));
        } else {
            rec.decision = Recommendation::Decision::Switch;
            rec.headline = QStringLiteral("Switch from %1 to %2: it meets all %3 criteria")
                               .arg(arm.baselineLabel, arm.candidateLabel)
                               .arg(total);
        }
        out.push_back(std::move(rec));
    }
    return out;
}

nlohmann::json toJson(const CriterionResult& result)
{
    json j = toJson(result.criterion);
    j["outcome"] = outcomeId(result.outcome).toStdString();
    j["measured"] = result.measured.toStdString();
    j["required"] = result.required.toStdString();
    j["explanation"] = result.explanation.toStdString();
    return j;
}

nlohmann::json toJson(const Recommendation& r)
{
    json criteria = json::array();
    for (const CriterionResult& c : r.criteria)
        criteria.push_back(toJson(c));
    json change = json::array();
    for (const QString& s : r.whatWouldChange)
        change.push_back(s.toStdString());
    json caveats = json::array();
    for (const QString& s : r.caveats)
        caveats.push_back(s.toStdString());
    return {{"baseline", r.baseline}, {"candidate", r.candidate},
        {"baseline_label", r.baselineLabel.toStdString()},
        {"candidate_label", r.candidateLabel.toStdString()},
        {"decision", decisionId(r.decision).toStdString()}, {"headline", r.headline.toStdString()},
        {"criteria", std::move(criteria)}, {"what_would_change", std::move(change)},
        {"caveats", std::move(caveats)}};
}

} // namespace qs
