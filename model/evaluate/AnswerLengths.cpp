// SPDX-License-Identifier: MIT
#include "model/evaluate/AnswerLengths.h"

#include "model/evaluate/Statistics.h"
#include "model/gates/QualityGates.h"

#include <QHash>
#include <unordered_map>

namespace qs {

namespace {

// One (test, turn, run) of one endpoint pair. A side measured twice is ambiguous and never paired.
struct PairSlot {
    const RunRecord* side[2] = {nullptr, nullptr}; ///< baseline, candidate
    bool twice[2] = {false, false};
};

bool askedThinking(const RunRecord& r)
{
    return requestedThinking(r.request.requestBody) == true;
}

// Throughput tests run to max_tokens on purpose: their length says nothing about the model.
bool ignoresEos(const RunRecord& r)
{
    const nlohmann::json& body = r.request.requestBody;
    const auto it = body.is_object() ? body.find("ignore_eos") : body.end();
    return body.is_object() && it != body.end() && it->is_boolean() && it->get<bool>();
}

} // namespace

std::vector<ArmLengths> answerLengths(const RunResult& result, int baseline)
{
    // One pass over the records, keyed by integers: test index, turn, run and endpoint.
    QHash<QString, quint64> testIds;
    std::unordered_map<quint64, PairSlot> byKey; // key → the baseline and one candidate
    std::unordered_map<quint64, int> candidateOf;
    byKey.reserve(result.records.size());
    for (const RunRecord& r : result.records) {
        if (r.warmup)
            continue;
        auto known = testIds.constFind(r.test);
        if (known == testIds.cend())
            known = testIds.insert(r.test, quint64(testIds.size()));
        const quint64 prompt
            = (*known << 40) | (quint64(quint16(r.turn)) << 24) | (quint64(r.iteration) & 0xFFFFFF);
        const auto place = [&](int candidate, int side) {
            const quint64 key = prompt * 64 + quint64(candidate & 63);
            PairSlot& slot = byKey[key];
            candidateOf[key] = candidate;
            if (slot.side[side])
                slot.twice[side] = true;
            else
                slot.side[side] = &r;
        };
        if (r.endpoint != baseline) {
            place(r.endpoint, 1);
            continue;
        }
        for (int e = 0; e < int(result.endpoints.size()); ++e)
            if (e != baseline)
                place(e, 0);
    }
    std::vector<ArmLengths> out;
    for (int e = 0; e < int(result.endpoints.size()); ++e)
        if (e != baseline)
            out.push_back({e, {}});
    const auto armOf = [&](int endpoint) -> ArmLengths* {
        for (ArmLengths& a : out)
            if (a.endpoint == endpoint)
                return &a;
        return nullptr;
    };
    for (const auto& [key, slot] : byKey) {
        if (!slot.side[0] || !slot.side[1] || slot.twice[0] || slot.twice[1])
            continue;
        ArmLengths* arm = armOf(candidateOf[key]);
        const RunRecord& b = *slot.side[0];
        const RunRecord& c = *slot.side[1];
        if (!arm || !b.request.ok() || !c.request.ok() || ignoresEos(b) || ignoresEos(c))
            continue;
        LengthPair p;
        p.test = b.test;
        p.turn = b.turn;
        if (askedThinking(b) || askedThinking(c)) {
            p.use = LengthPair::Use::ThinkingOn;
        } else if (!b.request.response.toolCalls.empty() || !c.request.response.toolCalls.empty()) {
            p.use = LengthPair::Use::ToolCall;
        } else {
            const auto bt = metricValue(b.request.metrics, Metric::CompletionTokens);
            const auto ct = metricValue(c.request.metrics, Metric::CompletionTokens);
            if (!bt || !ct || !(*bt > 0))
                continue;
            p.baselineTokens = *bt;
            p.candidateTokens = *ct;
        }
        arm->pairs.push_back(std::move(p));
    }
    return out;
}

} // namespace qs
