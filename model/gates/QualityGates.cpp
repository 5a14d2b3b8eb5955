// SPDX-License-Identifier: MIT
#include "model/gates/QualityGates.h"

#include "model/core/RunRecord.h"
#include "model/gates/GateFamilies.h"
#include "model/gates/GateText.h"
#include "model/gates/ThinkingText.h"
#include "model/wire/RequestMetrics.h"

#include <algorithm>

// The gates themselves live one family per file (GateFamilies.h); this file runs them and writes
// their results into a record.

namespace qs {

using json = nlohmann::json;
using gates::GateContext;
using gates::result;

QString gateVerdictId(GateVerdict verdict)
{
    switch (verdict) {
    case GateVerdict::Pass:
        return QStringLiteral("pass");
    case GateVerdict::Fail:
        return QStringLiteral("fail");
    case GateVerdict::NotApplicable:
        break;
    }
    return QStringLiteral("not_applicable");
}

std::vector<GateResult> evaluateGates(const RequestRecord& record, const Suite& suite, const SuiteTest& test,
    const GatePatterns& patterns, bool finalTurn)
{
    const QString& content = record.response.content;
    const int visibleStart = visibleContentStart(content);
    const QString visible = content.mid(visibleStart);
    GateContext c {record, suite, test, patterns.rules(), finalTurn, content, visibleStart, visible,
        gates::maskUrls(visible, patterns.rules().url), suiteToolNames(suite), {}};
    c.thinking = gates::findThinking(content, visibleStart, patterns.rules());
    using namespace gates;
    return {nonEmpty(c), expectedAnswer(c), toolCall(c), noMarkdown(c), noThinkingLeak(c),
        thinkingFollowsRequest(c), coherent(c), withinLength(c)};
}

nlohmann::json toJson(const TextRange& range)
{
    return {{"field", range.field.toStdString()}, {"begin", range.begin}, {"end", range.end},
        {"what", range.what.toStdString()}};
}

nlohmann::json toJson(const GateResult& r)
{
    json ranges = json::array();
    for (const TextRange& range : r.ranges)
        ranges.push_back(toJson(range));
    return {{"verdict", gateVerdictId(r.verdict).toStdString()}, {"reason", r.reason.toStdString()},
        {"failure_class", r.failureClass.isEmpty() ? json(nullptr) : json(r.failureClass.toStdString())},
        {"ranges", ranges}};
}

void applyGates(RunRecord& record, const Suite& suite, const GatePatterns& patterns)
{
    record.gates = json::object();
    record.gateDetails = json::object();
    json& gates = record.gates.edit();
    json& details = record.gateDetails.edit();
    const auto notJudged = [&](const QString& reason) {
        for (const QString& name : gateNames()) {
            gates[name.toStdString()] = nullptr;
            details[name.toStdString()] = toJson(result(name, GateVerdict::NotApplicable, reason));
        }
    };
    if (record.warmup)
        return notJudged(QStringLiteral("warm-up: not judged"));
    if (!record.request.ok())
        return notJudged(QStringLiteral("request failed (") + failureKindId(record.request.failure.kind)
            + QStringLiteral("): not judged"));
    const auto test = std::find_if(
        suite.tests.begin(), suite.tests.end(), [&](const SuiteTest& t) { return t.id == record.test; });
    if (test == suite.tests.end())
        return notJudged(QStringLiteral("test \"") + record.test + QStringLiteral("\" is not in the suite"));

    const bool finalTurn = record.turn >= test->turnCount();
    for (const GateResult& r : evaluateGates(record.request, suite, *test, patterns, finalTurn)) {
        const std::string name = r.gate.toStdString();
        gates[name] = r.verdict == GateVerdict::NotApplicable ? json(nullptr) : json(r.passed());
        details[name] = toJson(r);
    }
}

} // namespace qs
