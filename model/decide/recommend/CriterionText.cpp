// SPDX-License-Identifier: MIT
#include "model/decide/recommend/CriterionText.h"

#include <cmath>

namespace qs::criteria {

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

} // namespace qs::criteria
