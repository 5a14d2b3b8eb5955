// SPDX-License-Identifier: MIT
// Judging to and from its JSON (docs/results-format.md, "Judging").
#include "model/store/JudgingFields.h"

namespace qs::results {

namespace {

json identityToJson(const JudgeIdentity& j)
{
    return {{"spec", u8(j.spec)}, {"url", u8(j.url)}, {"model", u8(j.model)}, {"runtime", u8(j.runtime)},
        {"endpoint_label", u8(j.endpointLabel)}, {"simulated", j.simulated}, {"probe", j.probe},
        {"temperature", j.temperature}, {"seed", j.seed}};
}

JudgeIdentity identityFromJson(const json& j, const Loc& loc)
{
    const Fields f(j, loc);
    JudgeIdentity id;
    id.spec = f.string("spec");
    id.url = f.string("url");
    id.model = f.string("model");
    id.runtime = f.string("runtime");
    id.endpointLabel = f.string("endpoint_label");
    id.simulated = f.boolean("simulated", false);
    if (const json* probe = f.object("probe"))
        id.probe = *probe;
    id.temperature = f.number("temperature", 0);
    id.seed = f.optInteger("seed").value_or(id.seed);
    return id;
}

json exchangeToJson(const JudgeExchange& e)
{
    return {{"messages", e.messages}, {"reply", u8(e.reply)}, {"reasoning", u8(e.reasoning)},
        {"at", isoTime(e.at)}, {"duration_ms", roundUs(e.durationMs)}, {"error", u8(e.error)}};
}

JudgeExchange exchangeFromJson(const Fields& parent, const Loc& parentLoc)
{
    JudgeExchange e;
    const json* j = parent.object("exchange");
    if (!j)
        return e;
    const Loc loc = parentLoc.member("exchange");
    const Fields f(*j, loc);
    if (const json* messages = f.array("messages"))
        e.messages = *messages;
    e.reply = f.string("reply");
    e.reasoning = f.string("reasoning");
    e.at = f.time("at");
    e.durationMs = f.number("duration_ms", 0);
    if (e.durationMs < 0)
        f.fail("duration_ms", "a duration cannot be negative");
    e.error = f.string("error");
    return e;
}

std::optional<PairPick> pairPickFromId(const QString& id)
{
    for (const PairPick pick : {PairPick::First, PairPick::Second, PairPick::Tie, PairPick::Failed})
        if (id == pairPickId(pick))
            return pick;
    return std::nullopt;
}

/// Reads `test`, `turn` and `iteration`: the pairing of the answers a verdict is about.
void readPlace(const Fields& f, QString& test, int& turn, int& iteration)
{
    test = f.requiredString("test");
    if (test.isEmpty())
        f.fail("test", "must not be empty");
    turn = f.integer("turn", 1, 1);
    iteration = f.integer("iteration", 1, 1);
}

RubricVerdict rubricVerdictFromJson(const json& j, const Loc& loc, std::size_t endpointCount)
{
    const Fields f(j, loc);
    RubricVerdict v;
    v.answer.endpoint = f.endpointIndex("endpoint_index", endpointCount);
    readPlace(f, v.answer.test, v.answer.turn, v.answer.iteration);
    if (const json* scores = f.object("scores")) {
        const Loc at = loc.member("scores");
        for (const auto& [criterion, score] : scores->items()) {
            if (criterion.empty())
                badField(at, "a criterion id is empty");
            v.scores[QString::fromStdString(criterion)]
                = int(checkedInteger(score, at.member(criterion.c_str()), 1, 5));
        }
    }
    v.reason = f.string("reason");
    v.exchange = exchangeFromJson(f, loc);
    return v;
}

PairVerdict pairVerdictFromJson(const json& j, const Loc& loc, std::size_t endpointCount)
{
    const Fields f(j, loc);
    PairVerdict v;
    v.candidate = f.endpointIndex("candidate", endpointCount);
    v.baseline = f.endpointIndex("baseline", endpointCount);
    if (v.candidate == v.baseline)
        f.fail("baseline", "is the candidate itself (endpoint " + std::to_string(v.baseline) + ")");
    readPlace(f, v.test, v.turn, v.iteration);
    v.candidateFirst = f.requiredBoolean("candidate_first");
    const QString pick = f.requiredString("pick");
    const auto parsed = pairPickFromId(pick);
    if (!parsed)
        f.fail("pick", unknownId("\"1\", \"2\", \"tie\" or \"failed\"", pick));
    v.pick = *parsed;
    v.reason = f.string("reason");
    v.exchange = exchangeFromJson(f, loc);
    return v;
}

json rubricToJson(const std::optional<Rubric>& rubric)
{
    if (!rubric)
        return nullptr;
    return {{"source", u8(rubric->source)}, {"raw", rubric->raw}};
}

std::optional<Rubric> rubricFromJson(const Fields& parent, const Loc& parentLoc)
{
    const json* j = parent.object("rubric");
    if (!j)
        return std::nullopt;
    const Loc loc = parentLoc.member("rubric");
    const Fields f(*j, loc);
    const QString source = f.string("source");
    const json* raw = f.object("raw");
    if (!raw)
        f.missing("raw");
    try {
        return parseRubric(*raw, source.isEmpty() ? QStringLiteral("the rubric") : source);
    } catch (const RubricError& e) {
        f.fail("raw", std::string("not a valid rubric: ") + e.what());
    }
}

} // namespace

bool hasJudging(const Judging& judging)
{
    return !judging.empty() || !judging.judge.spec.isEmpty() || !judging.judge.url.isEmpty()
        || !judging.notes.isEmpty();
}

json judgingHeaderToJson(const Judging& judging)
{
    return {{"judge", identityToJson(judging.judge)}, {"rubric", rubricToJson(judging.rubric)},
        {"started_at", isoTime(judging.startedAt)}, {"ended_at", isoTime(judging.endedAt)},
        {"complete", judging.complete}, {"notes", stringListToJson(judging.notes)}};
}

json rubricVerdictToJson(const RubricVerdict& v)
{
    json scores = json::object();
    for (const auto& [criterion, score] : v.scores)
        scores[u8(criterion)] = score;
    return {{"endpoint_index", v.answer.endpoint}, {"test", u8(v.answer.test)}, {"turn", v.answer.turn},
        {"iteration", v.answer.iteration}, {"scores", std::move(scores)}, {"reason", u8(v.reason)},
        {"exchange", exchangeToJson(v.exchange)}};
}

json pairVerdictToJson(const PairVerdict& v)
{
    return {{"candidate", v.candidate}, {"baseline", v.baseline}, {"test", u8(v.test)}, {"turn", v.turn},
        {"iteration", v.iteration}, {"candidate_first", v.candidateFirst}, {"pick", u8(pairPickId(v.pick))},
        {"reason", u8(v.reason)}, {"exchange", exchangeToJson(v.exchange)}};
}

json judgingToJson(const Judging& judging)
{
    json j = judgingHeaderToJson(judging);
    json rubricVerdicts = json::array();
    for (const RubricVerdict& v : judging.rubricVerdicts)
        rubricVerdicts.push_back(rubricVerdictToJson(v));
    json pairVerdicts = json::array();
    for (const PairVerdict& v : judging.pairVerdicts)
        pairVerdicts.push_back(pairVerdictToJson(v));
    j["rubric_verdicts"] = std::move(rubricVerdicts);
    j["pair_verdicts"] = std::move(pairVerdicts);
    return j;
}

Judging judgingFromJson(const json& j, const Loc& loc, std::size_t endpointCount)
{
    const Fields f(j, loc);
    Judging judging;
    const json* judge = f.object("judge");
    if (!judge)
        f.missing("judge");
    judging.judge = identityFromJson(*judge, loc.member("judge"));
    judging.rubric = rubricFromJson(f, loc);
    judging.startedAt = f.time("started_at");
    judging.endedAt = f.time("ended_at");
    judging.complete = f.boolean("complete", false);
    judging.notes = f.stringList("notes");
    if (const json* a = f.array("rubric_verdicts")) {
        const Loc at = loc.member("rubric_verdicts");
        judging.rubricVerdicts.reserve(a->size());
        for (std::size_t i = 0; i < a->size(); ++i)
            judging.rubricVerdicts.push_back(rubricVerdictFromJson((*a)[i], at.element(i), endpointCount));
    }
    if (const json* a = f.array("pair_verdicts")) {
        const Loc at = loc.member("pair_verdicts");
        judging.pairVerdicts.reserve(a->size());
        for (std::size_t i = 0; i < a->size(); ++i)
            judging.pairVerdicts.push_back(pairVerdictFromJson((*a)[i], at.element(i), endpointCount));
    }
    return judging;
}

} // namespace qs::results
