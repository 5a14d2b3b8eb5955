// SPDX-License-Identifier: MIT
#include "model/gates/GateFamilies.h"
#include "model/gates/GateText.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <optional>

namespace qs::gates {

namespace {

std::optional<bool> thinkingSetting(const GateContext& c)
{
    if (c.test.thinking)
        return c.test.thinking;
    if (c.suite.defaults.thinking)
        return c.suite.defaults.thinking;
    const nlohmann::json& body = c.record.requestBody;
    if (body.is_object()) {
        const auto kwargs = body.find("chat_template_kwargs");
        if (kwargs != body.end() && kwargs->is_object()) {
            const auto enable = kwargs->find("enable_thinking");
            if (enable != kwargs->end() && enable->is_boolean())
                return enable->get<bool>();
        }
    }
    return std::nullopt;
}

} // namespace

GateResult noThinkingLeak(const GateContext& c)
{
    std::vector<Hit> hits;
    int blockBegin = 0;
    if (c.visibleStart > 0) {
        // The whole block before the answer is thinking (<think>…</think>, or text before a bare
        // </think> when the template opened the block in the prompt).
        while (blockBegin < c.visibleStart && c.content.at(blockBegin).isSpace())
            ++blockBegin;
        const bool bare = !QStringView(c.content).sliced(blockBegin).startsWith(QStringLiteral("<think>"));
        hits.push_back({blockBegin, c.visibleStart,
            bare ? QStringLiteral("thinking_before_bare_close_tag") : QStringLiteral("think_block")});
    }
    for (const Hit& h : findAll(c.rules.thinking, c.content, 0))
        if (h.begin >= c.visibleStart || h.end <= blockBegin)
            hits.push_back(h);
    std::sort(hits.begin(), hits.end(), [](const Hit& a, const Hit& b) { return a.begin < b.begin; });

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

} // namespace qs::gates
