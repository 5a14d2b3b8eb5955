// SPDX-License-Identifier: MIT
#include "model/gates/GateFamilies.h"
#include "model/gates/GateText.h"

namespace qs::gates {

GateResult noMarkdown(const GateContext& c)
{
    if (!hasNonSpace(c.visible))
        return result(kNoMarkdown, GateVerdict::NotApplicable, QStringLiteral("no visible text"));
    const std::vector<Hit> hits = findAll(c.rules.markdown, c.maskedVisible, c.visibleStart);
    if (hits.empty())
        return result(kNoMarkdown, GateVerdict::Pass, QStringLiteral("plain text"));
    GateResult out = result(kNoMarkdown, GateVerdict::Fail, describeHits(hits, c.content));
    out.ranges = toRanges(hits, kContent);
    return out;
}

} // namespace qs::gates
