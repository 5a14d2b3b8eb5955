// SPDX-License-Identifier: MIT
// thinking_follows_request: the seeds' "thinking mode works in both on/off configurations" and
// their checklist's "reasoning/thinking mode controllable", one response at a time. no_thinking_leak
// asks whether thinking reached the listener; this gate asks whether the server did what the
// request said: with thinking on, a thought that arrives apart from the answer; with it off, none.
#include "model/gates/GateFamilies.h"
#include "model/gates/GateText.h"
#include "model/gates/ThinkingText.h"

#include <QRegularExpression>
#include <algorithm>

namespace qs::gates {

namespace {

// An empty "<think></think>" (a template that opens and closes the block with nothing in it) holds
// no thought: it is markup for no_thinking_leak, not reasoning.
bool holdsThought(const Hit& h, const QString& content)
{
    if (h.what != u"think_block" && h.what != u"thinking_before_bare_close_tag")
        return true;
    static const QRegularExpression tags(QStringLiteral("</?think>"));
    return hasNonSpace(content.mid(h.begin, h.end - h.begin).remove(tags));
}

} // namespace

GateResult thinkingFollowsRequest(const GateContext& c)
{
    const std::optional<bool> asked = thinkingSetting(c);
    if (!asked)
        return result(kThinkingFollowsRequest, GateVerdict::NotApplicable,
            QStringLiteral("the request set no thinking (neither on nor off)"));
    std::vector<Hit> inContent = c.thinking;
    std::erase_if(inContent, [&](const Hit& h) { return !holdsThought(h, c.content); });
    const QString& reasoning = c.record.response.reasoning;
    const bool reasoned = hasNonSpace(reasoning);

    GateResult out = result(kThinkingFollowsRequest, GateVerdict::Fail, QString());
    out.ranges = toRanges(inContent, kContent);
    const QString leaked = inContent.empty() ? QString() : describeHits(inContent, c.content);
    if (*asked) {
        if (reasoned && inContent.empty()) {
            out.verdict = GateVerdict::Pass;
            out.reason = QStringLiteral("thinking on: %1 characters of reasoning, apart from the answer")
                             .arg(reasoning.size());
        } else if (reasoned) {
            out.reason = QStringLiteral("thinking on: reasoning arrived in its field, but thinking is in the "
                                        "content too: ")
                + leaked;
        } else if (!inContent.empty()) {
            out.reason = QStringLiteral("thinking on, but the thought arrived inside the content, not in "
                                        "the reasoning field (no reasoning parser?): ")
                + leaked;
        } else {
            out.reason = QStringLiteral("thinking on, but no reasoning arrived: the server ignored "
                                        "enable_thinking (llama-server --reasoning-budget 0, or a chat "
                                        "template without the switch)");
        }
        return out;
    }
    QStringList reasons;
    if (reasoned) {
        reasons << QStringLiteral("thinking off, but %1 characters of reasoning arrived in their own field")
                       .arg(reasoning.size());
        out.ranges.push_back({0, int(reasoning.size()), kReasoning, QStringLiteral("reasoning_field")});
    }
    if (!inContent.empty())
        reasons << QStringLiteral("thinking off, but the content thinks: ") + leaked;
    if (reasons.isEmpty()) {
        out.verdict = GateVerdict::Pass;
        out.reason = QStringLiteral("thinking off: no reasoning");
    } else {
        out.reason = reasons.join(QStringLiteral("; "));
    }
    return out;
}

} // namespace qs::gates
