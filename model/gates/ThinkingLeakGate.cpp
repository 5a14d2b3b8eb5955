// SPDX-License-Identifier: MIT
#include "model/gates/GateFamilies.h"
#include "model/gates/GateText.h"
#include "model/gates/ThinkingText.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <optional>

namespace qs {

std::optional<bool> requestedThinking(const nlohmann::json& body)
{
    if (!body.is_object())
        return std::nullopt;
    const auto kwargs = body.find("chat_template_kwargs");
    if (kwargs == body.end() || !kwargs->is_object())
        return std::nullopt;
    const auto enable = kwargs->find("enable_thinking");
    if (enable == kwargs->end() || !enable->is_boolean())
        return std::nullopt;
    return enable->get<bool>();
}

namespace gates {

std::optional<bool> thinkingSetting(const GateContext& c)
{
    if (c.test.thinking)
        return c.test.thinking;
    if (c.suite.defaults.thinking)
        return c.suite.defaults.thinking;
    return requestedThinking(c.record.requestBody);
}

std::vector<Hit> findThinking(const QString& content, int visibleStart, const Rules& rules)
{
    std::vector<Hit> hits;
    int blockBegin = 0;
    if (visibleStart > 0) {
        // The whole block before the answer is thinking (<think>…</think>, or text before a bare
        // </think> when the template opened the block in the prompt).
        while (blockBegin < visibleStart && content.at(blockBegin).isSpace())
            ++blockBegin;
        const bool bare = !QStringView(content).sliced(blockBegin).startsWith(QStringLiteral("<think>"));
        hits.push_back({blockBegin, visibleStart,
            bare ? QStringLiteral("thinking_before_bare_close_tag") : QStringLiteral("think_block")});
    }
    for (const Hit& h : findAll(rules.thinking, content, 0))
        if (h.begin >= visibleStart || h.end <= blockBegin)
            hits.push_back(h);
    std::sort(hits.begin(), hits.end(), [](const Hit& a, const Hit& b) { return a.begin < b.begin; });
    return hits;
}

GateResult noThinkingLeak(const GateContext& c)
{
    const std::vector<Hit>& hits = c.thinking;
    GateResult out = result(kNoThinkingLeak, GateVerdict::Pass, QString());
    QStringList reasons;
    if (!hits.empty())
        reasons << describeHits(hits, c.content);
    out.ranges = toRanges(hits, kContent);

    const QString& reasoning = c.record.response.reasoning;
    const std::optional<bool> thinking = thinkingSetting(c);
    if (thinking == false && hasNonSpace(reasoning)) {
        reasons << QStringLiteral(
            "%1 characters of reasoning arrived in their own field although thinking was off")
                       .arg(reasoning.size());
        out.ranges.push_back({0, int(reasoning.size()), kReasoning, QStringLiteral("reasoning_field")});
    }
    if (!reasons.isEmpty()) {
        out.verdict = GateVerdict::Fail;
        out.reason = reasons.join(QStringLiteral("; "));
    } else {
        out.reason = thinking == true && hasNonSpace(reasoning)
            ? QStringLiteral("thinking stayed in the reasoning field")
            : QStringLiteral("no thinking in the answer");
    }
    return out;
}

} // namespace gates

} // namespace qs
