// SPDX-License-Identifier: MIT
#include "model/wire/RequestMetrics.h"

#include "model/core/Clock.h"
#include "model/core/Percentile.h"

namespace qs {

int visibleContentStart(const QString& content)
{
    static const QString open = QStringLiteral("<think>");
    static const QString close = QStringLiteral("</think>");
    int i = 0;
    while (i < content.size() && content.at(i).isSpace())
        ++i;
    const bool opens = QStringView(content).sliced(i).startsWith(open);
    const int closeAt = int(content.indexOf(close));
    if (opens)
        return closeAt < 0 ? int(content.size()) : closeAt + int(close.size());
    if (closeAt >= 0 && !QStringView(content).left(closeAt).contains(open))
        return closeAt + int(close.size()); // bare </think>: the template opened the block in the prompt
    return 0;
}

int firstSentenceEnd(const QString& text, int from, bool textIsFinished)
{
    const auto isCloser = [](QChar c) {
        return c == u'"' || c == u'\'' || c == u')' || c == u']' || c == u'\u201D' || c == u'\u2019'
            || c == u'*' || c == u'_';
    };
    for (int i = qMax(0, from); i < text.size(); ++i) {
        const QChar c = text.at(i);
        if (c == u'\u3002' || c == u'\uFF01' || c == u'\uFF1F')
            return i;
        if (c != u'.' && c != u'!' && c != u'?' && c != u'\u2026')
            continue;
        if (c == u'.' && i > 0 && text.at(i - 1).isDigit() && i + 1 < text.size() && text.at(i + 1).isDigit())
            continue;
        int j = i + 1;
        while (j < text.size() && isCloser(text.at(j)))
            ++j;
        if (j < text.size()) {
            if (text.at(j).isSpace())
                return j;
            continue;
        }
        // The terminator (or its closers) ends the text so far: it only counts once nothing follows.
        if (textIsFinished)
            return j - 1;
        return -1;
    }
    return -1;
}

namespace {
double ms(qint64 fromNs, qint64 toNs)
{
    return msBetween(fromNs, toNs);
}

bool hasNonSpace(QStringView text)
{
    for (QChar c : text)
        if (!c.isSpace())
            return true;
    return false;
}
} // namespace

RequestMetrics computeMetrics(const RequestTiming& t, const AssembledResponse& r)
{
    RequestMetrics m;
    m.tokenEvents = int(r.tokenEvents.size());
    if (t.connectedNs && t.startNs)
        m.connectMs = ms(t.startNs, t.connectedNs);
    if (t.t0Ns == 0)
        return m; // nothing was sent: no request metrics
    if (t.headersNs)
        m.ttfbMs = ms(t.t0Ns, t.headersNs);

    m.visibleContentOffset = visibleContentStart(r.content);
    m.thinkingInContent = m.visibleContentOffset > 0;
    if (m.thinkingInContent)
        m.notes << QStringLiteral("thinking arrived inside content (<think>/</think>); it counts toward "
                                  "ttft_any, not ttft_visible");

    // Token timeline: ttft_any, ttft_visible, e2e and gaps.
    // The events come by value (TokenTimeline keeps them packed): keep the stamp, not a pointer.
    std::optional<qint64> firstVisibleNs;
    std::vector<double> gaps;
    qint64 previousNs = 0;
    for (std::size_t i = 0; i < r.tokenEvents.size(); ++i) {
        const TokenEvent e = r.tokenEvents[i];
        if (i > 0)
            gaps.push_back(ms(previousNs, e.stampNs));
        previousNs = e.stampNs;
        if (!firstVisibleNs) {
            const int begin = qMax(e.contentBegin, m.visibleContentOffset);
            const bool visibleText = e.contentEnd > begin
                && hasNonSpace(QStringView(r.content).sliced(begin, e.contentEnd - begin));
            if (e.toolCall || visibleText)
                firstVisibleNs = e.stampNs;
        }
    }
    if (!r.tokenEvents.empty()) {
        m.ttftAnyMs = ms(t.t0Ns, r.tokenEvents.front().stampNs);
        m.e2eMs = ms(t.t0Ns, r.tokenEvents.back().stampNs);
    }
    if (firstVisibleNs) {
        m.ttftVisibleMs = ms(t.t0Ns, *firstVisibleNs);
        m.reasoningMs = *m.ttftVisibleMs - *m.ttftAnyMs;
    }
    m.gapP50Ms = percentile(gaps, 50);
    m.gapP99Ms = percentile(gaps, 99);
    if (!gaps.empty())
        m.gapMaxMs = *std::max_element(gaps.begin(), gaps.end());
    if (r.sawDone)
        m.streamEndMs = ms(t.t0Ns, r.doneNs);
    else if (t.endNs)
        m.streamEndMs = ms(t.t0Ns, t.endNs);

    // First sentence: the event that delivered the character completing it.
    const bool finished = r.sawDone || !r.finishReason.isEmpty();
    const int sentenceAt = firstSentenceEnd(r.content, m.visibleContentOffset, finished);
    if (sentenceAt >= 0) {
        for (const TokenEvent& e : r.tokenEvents) {
            if (e.contentBegin <= sentenceAt && sentenceAt < e.contentEnd) {
                m.firstSentenceMs = ms(t.t0Ns, e.stampNs);
                break;
            }
        }
    }

    // Token counts, best source first; every fallback is flagged.
    const std::optional<TokenUsage>& u = r.usage;
    const Boxed<ServerTimings>& tm = r.timings;
    if (u && u->completionTokens)
        m.completionTokens = {u->completionTokens, CountSource::ServerUsage};
    else if (tm && tm->predictedN)
        m.completionTokens = {tm->predictedN, CountSource::ServerTimings};
    else if (!r.tokenEvents.empty()) {
        m.completionTokens = {qint64(r.tokenEvents.size()), CountSource::Estimate};
        m.notes << QStringLiteral(
            "completion_tokens is an estimate (%1 token-bearing events): the server sent "
            "no usage")
                       .arg(r.tokenEvents.size());
    }
    if (u && u->promptTokens)
        m.promptTokens = {u->promptTokens, CountSource::ServerUsage};
    else if (tm && tm->promptN)
        m.promptTokens = {tm->promptN.value() + tm->cacheN.value_or(0), CountSource::ServerTimings};
    if (u && u->cachedPromptTokens)
        m.cachedPromptTokens = {u->cachedPromptTokens, CountSource::ServerUsage};
    else if (tm && tm->cacheN)
        m.cachedPromptTokens = {tm->cacheN, CountSource::ServerTimings};
    if (u && u->reasoningTokens) {
        m.reasoningTokens = {u->reasoningTokens, CountSource::ServerUsage};
    } else {
        qint64 reasoningEvents = 0;
        for (const TokenEvent& e : r.tokenEvents)
            if (e.hasReasoning() || (e.hasContent() && e.contentBegin < m.visibleContentOffset))
                ++reasoningEvents;
        m.reasoningTokens = {reasoningEvents, CountSource::Estimate};
        if (reasoningEvents > 0)
            m.notes << QStringLiteral(
                "reasoning_tokens is an estimate (%1 reasoning events): the server does not "
                "report it")
                           .arg(reasoningEvents);
    }

    // Decode rate over the whole generation after the first token, reasoning included (it is
    // decoded too); needs two tokens and a positive window.
    if (m.completionTokens.value && *m.completionTokens.value >= 2 && m.ttftAnyMs && m.e2eMs
        && *m.e2eMs > *m.ttftAnyMs) {
        m.decodeTps = double(*m.completionTokens.value - 1) / ((*m.e2eMs - *m.ttftAnyMs) / 1000.0);
    } else if (m.completionTokens.value && *m.completionTokens.value >= 2 && m.tokenEvents == 1) {
        m.notes << QStringLiteral("all %1 tokens arrived in one event: decode_tps cannot be measured")
                       .arg(*m.completionTokens.value);
    }
    if (m.completionTokens.value && m.tokenEvents > 0 && *m.completionTokens.value > 2 * m.tokenEvents + 4
        && !m.completionTokens.isEstimate())
        m.notes << QStringLiteral("the server batches several tokens per event (%1 tokens in %2 events): "
                                  "inter-chunk gaps are not per-token latencies")
                       .arg(*m.completionTokens.value)
                       .arg(m.tokenEvents);
    return m;
}

} // namespace qs
