// SPDX-License-Identifier: MIT
#include "model/gates/GateFamilies.h"
#include "model/gates/GateText.h"

namespace qs::gates {

GateResult nonEmpty(const GateContext& c)
{
    const AssembledResponse& r = c.record.response;
    if (!r.toolCalls.empty()) {
        const QString name = r.toolCalls.front().name;
        return result(kNonEmpty, GateVerdict::Pass,
            QStringLiteral("tool call ") + (name.isEmpty() ? QStringLiteral("(no name)") : name));
    }
    if (hasNonSpace(c.visible))
        return result(kNonEmpty, GateVerdict::Pass, QStringLiteral("visible answer"));

    GateResult out = result(kNonEmpty, GateVerdict::Fail, QString());
    if (c.visibleStart > 0 && hasNonSpace(QStringView(c.content).left(c.visibleStart))) {
        const bool closed = c.content.indexOf(QStringLiteral("</think>")) >= 0;
        out.reason = closed ? QStringLiteral("only thinking in content, nothing after </think>")
                            : QStringLiteral("only thinking in content (<think> never closed)");
        out.ranges.push_back({0, c.visibleStart, kContent, QStringLiteral("thinking")});
    } else if (hasNonSpace(r.reasoning)) {
        out.reason
            = QStringLiteral("no answer: %1 characters of reasoning, then nothing").arg(r.reasoning.size());
        out.ranges.push_back({0, int(r.reasoning.size()), kReasoning, QStringLiteral("reasoning")});
    } else {
        out.reason = QStringLiteral("empty response: no content and no tool call");
    }
    if (r.finishReason == u"length")
        out.reason += QStringLiteral(" (hit max_tokens)");
    return out;
}

} // namespace qs::gates
