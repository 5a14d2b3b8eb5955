// SPDX-License-Identifier: MIT
#include "app/cli/TextOutput.h"

namespace qs::app {

namespace {
QString num(const std::optional<double>& v, int decimals = 1)
{
    return v ? QString::number(*v, 'f', decimals) : QStringLiteral("-");
}

QString count(const TokenCount& c)
{
    if (!c.value)
        return QStringLiteral("-");
    return QStringLiteral("%1  (%2)").arg(*c.value).arg(countSourceId(c.source));
}

// Control characters from a model must not drive the terminal.
QString quoted(const QString& text, int max = 600)
{
    QString t = text.left(max);
    for (QChar& c : t)
        if (c.category() == QChar::Other_Control && c != u'\n' && c != u'\t')
            c = QChar(0xFFFD);
    t.replace(QStringLiteral("\n"), QStringLiteral("\n    "));
    return QStringLiteral("    ") + t
        + (text.size() > max ? QStringLiteral(" […%1 more chars]").arg(text.size() - max) : QString());
}

QString row(const QString& name, const QString& value)
{
    return QStringLiteral("  %1 %2\n").arg(name, -20).arg(value);
}
} // namespace

QString formatProbe(const ProbeResult& r)
{
    QString out = r.endpoint.baseUrl.toString() + u'\n';
    if (r.failure.isFailure())
        out += row(QStringLiteral("status"), QStringLiteral("UNUSABLE — ") + r.failure.text());
    else
        out += row(QStringLiteral("status"), QStringLiteral("usable"));
    if (!r.reachable)
        return out;
    if (!r.healthPath.isEmpty())
        out += row(QStringLiteral("health"),
            QStringLiteral("%1 → %2%3")
                .arg(r.healthPath)
                .arg(r.healthStatus)
                .arg(r.healthDetail.isEmpty() ? QString() : u' ' + r.healthDetail));
    else
        out += row(QStringLiteral("health"), QStringLiteral("no health endpoint"));
    QString runtime = runtimeName(r.runtime);
    if (!r.serverVersion.isEmpty())
        runtime += QStringLiteral(" ") + r.serverVersion;
    if (!r.runtimeEvidence.isEmpty())
        runtime += QStringLiteral("   [") + r.runtimeEvidence + u']';
    out += row(QStringLiteral("runtime"), runtime);
    out += row(QStringLiteral("model"),
        r.model.isEmpty()
            ? QStringLiteral("-")
            : r.model + QStringLiteral("   (listed: %1)").arg(r.models.join(QStringLiteral(", "))));
    if (!r.modelPath.isEmpty())
        out += row(QStringLiteral("model path"), r.modelPath);
    out += row(QStringLiteral("context"),
        r.contextSize ? QStringLiteral("%1 tokens   [%2]").arg(*r.contextSize).arg(r.contextSource)
                      : QStringLiteral("unknown"));
    if (r.totalSlots)
        out += row(QStringLiteral("slots"), QString::number(*r.totalSlots));
    if (!r.chatTemplate.isEmpty())
        out += row(QStringLiteral("chat template"),
            QStringLiteral("%1 chars%2")
                .arg(r.chatTemplate.size())
                .arg(r.chatTemplate.contains(QStringLiteral("<think>")) ? QStringLiteral(", uses <think>")
                                                                        : QString()));
    if (r.runtime == Runtime::Sglang)
        out += row(QStringLiteral("parsers"),
            QStringLiteral("tool-call: %1, reasoning: %2")
                .arg(r.toolCallParser.isEmpty() ? QStringLiteral("none") : r.toolCallParser,
                    r.reasoningParser.isEmpty() ? QStringLiteral("none") : r.reasoningParser));
    if (r.rttMedianMs) {
        const auto [lo, hi] = std::minmax_element(r.rttSamplesMs.begin(), r.rttSamplesMs.end());
        out += row(QStringLiteral("RTT"),
            QStringLiteral("%1 ms median of %2 (min %3, max %4)")
                .arg(*r.rttMedianMs, 0, 'f', 2)
                .arg(r.rttSamplesMs.size())
                .arg(*lo, 0, 'f', 2)
                .arg(*hi, 0, 'f', 2));
    }
    for (const QString& w : r.warnings)
        out += QStringLiteral("  warning: ") + w + u'\n';
    return out;
}

QString formatRecord(const RequestRecord& r)
{
    const AssembledResponse& a = r.response;
    const RequestMetrics& m = r.metrics;
    QString out = QStringLiteral("POST %1 → ").arg(r.url.toString());
    out += r.httpStatus ? QStringLiteral("HTTP %1 %2").arg(r.httpStatus).arg(r.contentType)
                        : QStringLiteral("no response");
    if (!r.serverHeader.isEmpty())
        out += QStringLiteral(" (Server: %1)").arg(r.serverHeader);
    out += u'\n';
    if (!a.reasoning.isEmpty())
        out += QStringLiteral("  reasoning (%1 chars):\n%2\n")
                   .arg(a.reasoning.size())
                   .arg(quoted(a.reasoning, 300));
    out += QStringLiteral("  content (%1 chars):\n%2\n").arg(a.content.size()).arg(quoted(a.content));
    for (const ToolCall& c : a.toolCalls)
        out += QStringLiteral("  tool call #%1 %2(%3)  id=%4\n")
                   .arg(c.index)
                   .arg(c.name, c.arguments.left(300), c.id);
    out += QStringLiteral(
        "  finish_reason=%1  [DONE]=%2  events: %3 token-bearing, %4 empty, %5 usage-only, %6 "
        "malformed, %7 keep-alive pings\n")
               .arg(a.finishReason.isEmpty() ? QStringLiteral("-") : a.finishReason)
               .arg(a.sawDone ? QStringLiteral("yes") : QStringLiteral("no"))
               .arg(m.tokenEvents)
               .arg(a.emptyEvents)
               .arg(a.usageOnlyEvents)
               .arg(a.malformedEvents)
               .arg(r.keepAlivePings);
    out += row(QStringLiteral("connect_ms"),
        num(m.connectMs, 2) + (r.timing.connectionReused ? QStringLiteral(" (reused)") : QString()));
    if (const RequestTiming& t = r.timing; t.arrivalStampedReads + t.readTimeStampedReads > 0)
        out += row(QStringLiteral("stamps"),
            QStringLiteral("%1 reads stamped on arrival (kernel), %2 when read (TLS or no kernel stamp)")
                .arg(t.arrivalStampedReads)
                .arg(t.readTimeStampedReads));
    out += row(QStringLiteral("ttfb_ms"), num(m.ttfbMs, 2));
    out += row(QStringLiteral("ttft_any_ms"), num(m.ttftAnyMs, 2));
    out += row(QStringLiteral("ttft_visible_ms"), num(m.ttftVisibleMs, 2));
    out += row(QStringLiteral("reasoning_ms"), num(m.reasoningMs, 2));
    out += row(QStringLiteral("first_sentence_ms"), num(m.firstSentenceMs, 2));
    out += row(QStringLiteral("e2e_ms"), num(m.e2eMs, 2));
    out += row(QStringLiteral("decode_tps"), num(m.decodeTps, 2));
    out += row(QStringLiteral("gap p50/p99/max ms"),
        QStringLiteral("%1 / %2 / %3").arg(num(m.gapP50Ms, 2), num(m.gapP99Ms, 2), num(m.gapMaxMs, 2)));
    out += row(QStringLiteral("prompt_tokens"), count(m.promptTokens));
    out += row(QStringLiteral("completion_tokens"), count(m.completionTokens));
    out += row(QStringLiteral("reasoning_tokens"), count(m.reasoningTokens));
    out += row(QStringLiteral("cached_prompt_tokens"), count(m.cachedPromptTokens));
    if (a.timings) {
        const ServerTimings& t = *a.timings;
        out += row(QStringLiteral("server timings"),
            QStringLiteral("prompt %1 tok in %2 ms (%3 tok/s), predicted %4 tok in %5 ms (%6 tok/s)")
                .arg(t.promptN.value_or(0))
                .arg(num(t.promptMs, 1), num(t.promptPerSecond, 1))
                .arg(t.predictedN.value_or(0))
                .arg(num(t.predictedMs, 1), num(t.predictedPerSecond, 1)));
    }
    for (const QString& n : m.notes)
        out += QStringLiteral("  note: ") + n + u'\n';
    if (r.failure.isFailure())
        out += QStringLiteral("  FAILED [%1]: %2\n").arg(failureKindId(r.failure.kind), r.failure.text());
    return out;
}

} // namespace qs::app
