// SPDX-License-Identifier: MIT
#include "widgets/tables/TableText.h"

#include "model/evaluate/MetricText.h"

#include <cmath>

namespace qs {

QStringList multiTurnTests(const Evaluation* evaluation)
{
    QStringList tests;
    if (evaluation)
        for (const CellStatistics& c : evaluation->cells)
            if (c.turn > 0 && !tests.contains(c.test))
                tests << c.test;
    return tests;
}

QString gateTitle(const QString& gate)
{
    if (gate == u"non_empty")
        return QStringLiteral("Not empty");
    if (gate == u"expected_answer")
        return QStringLiteral("Expected answer");
    if (gate == u"tool_call")
        return QStringLiteral("Tool call");
    if (gate == u"no_markdown")
        return QStringLiteral("No markdown");
    if (gate == u"no_thinking_leak")
        return QStringLiteral("No thinking leak");
    if (gate == u"coherent")
        return QStringLiteral("Coherent");
    if (gate == u"within_length")
        return QStringLiteral("Within length");
    return gate;
}

QString gateDescription(const QString& gate)
{
    if (gate.isEmpty())
        return QStringLiteral(
            "Every gate together: each request counts once for every gate that applied to it.");
    if (gate == u"non_empty")
        return QStringLiteral("Fails when there is no visible text and no tool call.");
    if (gate == u"expected_answer")
        return QStringLiteral("Fails when none of the test's expected patterns matches the visible answer.");
    if (gate == u"tool_call")
        return QStringLiteral(
            "Fails when the expected tool call is missing, wrong or malformed, or a call is "
            "written into the text instead of the tool channel.");
    if (gate == u"no_markdown")
        return QStringLiteral(
            "Fails on any markdown construct in the visible answer: a voice assistant would "
            "read it aloud.");
    if (gate == u"no_thinking_leak")
        return QStringLiteral(
            "Fails on thinking markup or a reasoning scaffold in the content, or reasoning in "
            "its own field although thinking was off.");
    if (gate == u"coherent")
        return QStringLiteral("Fails on scripts glued together, too many non-words, degenerate repetition, "
                              "template tokens or undecodable bytes.");
    if (gate == u"within_length")
        return QStringLiteral(
            "Fails when the answer has more words or sentences than the test's target, or was "
            "cut off.");
    return {};
}

QString metricTitle(Metric metric)
{
    switch (metric) {
    case Metric::TtftAny:
        return QStringLiteral("TTFT (any token)");
    case Metric::TtftVisible:
        return QStringLiteral("TTFT (visible)");
    case Metric::FirstSentence:
        return QStringLiteral("First sentence");
    case Metric::E2e:
        return QStringLiteral("End to end");
    case Metric::DecodeTps:
        return QStringLiteral("Decode rate");
    case Metric::CompletionTokens:
        return QStringLiteral("Completion tokens");
    case Metric::PromptTokens:
        return QStringLiteral("Prompt tokens");
    }
    return metricId(metric);
}

QString metricDescription(Metric metric)
{
    switch (metric) {
    case Metric::TtftAny:
        return QStringLiteral("ttft_any_ms: time from sending the request to the first token of any kind, "
                              "reasoning included. Role-only and empty chunks never count.");
    case Metric::TtftVisible:
        return QStringLiteral("ttft_visible_ms: time to the first event with visible content or a tool-call "
                              "fragment — what a user waits for. Leaked thinking is not visible.");
    case Metric::FirstSentence:
        return QStringLiteral("first_sentence_ms: time to the event that completes the first sentence of the "
                              "visible answer — when a voice assistant can start speaking.");
    case Metric::E2e:
        return QStringLiteral(
            "e2e_ms: time to the last token-bearing event (trailing finish, usage and [DONE] "
            "events excluded).");
    case Metric::DecodeTps:
        return QStringLiteral(
            "decode_tps: (completion_tokens − 1) / (e2e − ttft_any), the per-request decode "
            "rate after the first token, reasoning tokens included.");
    case Metric::CompletionTokens:
        return QStringLiteral("completion_tokens: from the server's usage, else its timings, else estimated "
                              "as the number of token-bearing events (flagged).");
    case Metric::PromptTokens:
        return QStringLiteral("prompt_tokens: from the server's usage or timings.");
    }
    return {};
}

QString verdictText(Verdict verdict)
{
    switch (verdict) {
    case Verdict::TooFewPairs:
        return QStringLiteral("Too few pairs");
    case Verdict::NoClearDifference:
        return QStringLiteral("No clear difference");
    case Verdict::CandidateBetter:
        return QStringLiteral("Candidate better");
    case Verdict::BaselineBetter:
        return QStringLiteral("Candidate worse");
    case Verdict::CandidateMore:
        return QStringLiteral("Candidate more");
    case Verdict::CandidateFewer:
        return QStringLiteral("Candidate fewer");
    }
    return verdictId(verdict);
}

QString withMinusSign(QString number)
{
    if (number.startsWith(QLatin1Char('-')))
        number.replace(0, 1, QChar(0x2212));
    return number;
}

QString formatMetricValue(double value, Metric metric)
{
    if (!std::isfinite(value))
        return QStringLiteral("—");
    QString s = metricNumber(value, metric);
    if (s == u"-0" || s == u"-0.0")
        s.remove(0, 1);
    return withMinusSign(s);
}

QString formatMetricWithUnit(double value, Metric metric)
{
    return formatMetricValue(value, metric) + QLatin1Char(' ') + metricUnit(metric);
}

QString formatPValue(double p)
{
    if (!std::isfinite(p))
        return QStringLiteral("—");
    if (p < 0.0001)
        return QStringLiteral("< 0.0001");
    if (p >= 0.995)
        return QStringLiteral("1");
    // 'g' switches to exponents below 1e-4 only, which the branch above already covers.
    return QString::number(p, 'g', 2);
}

QColor readableTextOn(const QColor& background)
{
    // WCAG relative luminance and contrast: pick whichever of black and white contrasts more.
    auto channel = [](double c) { return c <= 0.03928 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4); };
    const double l = 0.2126 * channel(background.redF()) + 0.7152 * channel(background.greenF())
        + 0.0722 * channel(background.blueF());
    const double withWhite = 1.05 / (l + 0.05);
    const double withBlack = (l + 0.05) / 0.05;
    return withBlack > withWhite ? QColor(0x1f, 0x23, 0x28) : QColor(Qt::white);
}

} // namespace qs
