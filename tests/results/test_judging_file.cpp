// SPDX-License-Identifier: MIT
// Judging in results files (format version 3): every field round trips, one verdict per line,
// files nobody judged do not grow, version-2 files load, bad members name their path, and
// combining files carries each file's judging with its endpoints renumbered.
#include "ResultsTestSupport.h"
#include "model/evaluate/Evaluation.h"

#include <QTemporaryDir>

using namespace qs;
using namespace qs::test;
using Kind = ResultFileError::Kind;

namespace {

RunResult withJudging()
{
    RunResult r = makeResult();
    r.judging = makeJudging();
    return r;
}

void expectSameExchange(const JudgeExchange& a, const JudgeExchange& b)
{
    EXPECT_EQ(a.messages, b.messages);
    EXPECT_EQ(a.reply, b.reply);
    EXPECT_EQ(a.reasoning, b.reasoning);
    EXPECT_EQ(a.at, b.at);
    EXPECT_EQ(a.durationMs, b.durationMs);
    EXPECT_EQ(a.error, b.error);
}

void expectSameJudging(const Judging& a, const Judging& b)
{
    EXPECT_TRUE(a.judge == b.judge);
    ASSERT_EQ(a.rubric.has_value(), b.rubric.has_value());
    if (a.rubric) {
        EXPECT_EQ(a.rubric->raw, b.rubric->raw);
        EXPECT_EQ(a.rubric->source, b.rubric->source);
        EXPECT_EQ(a.rubric->id, b.rubric->id);
        EXPECT_EQ(a.rubric->criteria.size(), b.rubric->criteria.size());
    }
    EXPECT_EQ(a.startedAt, b.startedAt);
    EXPECT_EQ(a.endedAt, b.endedAt);
    EXPECT_EQ(a.complete, b.complete);
    EXPECT_EQ(a.notes, b.notes);
    ASSERT_EQ(a.rubricVerdicts.size(), b.rubricVerdicts.size());
    for (std::size_t i = 0; i < a.rubricVerdicts.size(); ++i) {
        SCOPED_TRACE("rubric verdict " + std::to_string(i));
        const RubricVerdict& x = a.rubricVerdicts[i];
        const RubricVerdict& y = b.rubricVerdicts[i];
        EXPECT_TRUE(x.answer == y.answer);
        EXPECT_EQ(x.scores, y.scores);
        EXPECT_EQ(x.reason, y.reason);
        expectSameExchange(x.exchange, y.exchange);
    }
    ASSERT_EQ(a.pairVerdicts.size(), b.pairVerdicts.size());
    for (std::size_t i = 0; i < a.pairVerdicts.size(); ++i) {
        SCOPED_TRACE("pair verdict " + std::to_string(i));
        const PairVerdict& x = a.pairVerdicts[i];
        const PairVerdict& y = b.pairVerdicts[i];
        EXPECT_EQ(x.candidate, y.candidate);
        EXPECT_EQ(x.baseline, y.baseline);
        EXPECT_EQ(x.test, y.test);
        EXPECT_EQ(x.turn, y.turn);
        EXPECT_EQ(x.iteration, y.iteration);
        EXPECT_EQ(x.candidateFirst, y.candidateFirst);
        EXPECT_EQ(int(x.pick), int(y.pick));
        EXPECT_EQ(x.reason, y.reason);
        expectSameExchange(x.exchange, y.exchange);
    }
}

} // namespace

TEST(JudgingValues, PickIdsAndPreferredArm)
{
    EXPECT_EQ(pairPickId(PairPick::First), QStringLiteral("1"));
    EXPECT_EQ(pairPickId(PairPick::Second), QStringLiteral("2"));
    EXPECT_EQ(pairPickId(PairPick::Tie), QStringLiteral("tie"));
    EXPECT_EQ(pairPickId(PairPick::Failed), QStringLiteral("failed"));
    PairVerdict v;
    v.candidateFirst = true;
    v.pick = PairPick::First;
    EXPECT_EQ(v.preferred(), 1); // the candidate was shown first and picked
    v.pick = PairPick::Second;
    EXPECT_EQ(v.preferred(), -1);
    v.candidateFirst = false;
    EXPECT_EQ(v.preferred(), 1); // the candidate was shown second and picked
    v.pick = PairPick::First;
    EXPECT_EQ(v.preferred(), -1);
    v.pick = PairPick::Tie;
    EXPECT_EQ(v.preferred(), 0);
    v.pick = PairPick::Failed;
    EXPECT_EQ(v.preferred(), std::nullopt);
    EXPECT_TRUE(v.candidateAnswer() == (JudgedAnswer {v.candidate, v.test, v.turn, v.iteration}));
    EXPECT_EQ(v.baselineAnswer().endpoint, v.baseline);
}

TEST(JudgingFile, RoundTripsEveryField)
{
    const RunResult r = withJudging();
    const QByteArray bytes = serializeResults(r);
    const RunResult back = parseResults(bytes, QStringLiteral("run.json"));
    expectSameJudging(back.judging, r.judging);
    EXPECT_TRUE(back.judging.rubricVerdicts[1].failed());
    EXPECT_TRUE(back.judging.rubricVerdicts[1].scores.empty());
    EXPECT_EQ(back.judging.rubric->criterion(QStringLiteral("persona"))->anchors.size(), 3u);
    EXPECT_EQ(back.judging.pairVerdicts[0].preferred(), -1);
    EXPECT_EQ(serializeResults(back), bytes); // saving it again gives the same bytes
    EXPECT_EQ(back.records.size(), r.records.size());

    // Key order of a hand-edited file (json::dump sorts: "judging" before "records", lists
    // before "started_at") does not matter.
    expectSameJudging(parseResults(bytesOf(fileJson(r)), QStringLiteral("run.json")).judging, r.judging);
}

TEST(JudgingFile, SavedAndLoadedThroughTheFileSystem)
{
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const RunResult r = withJudging();
    const QString path = dir.filePath(QStringLiteral("run.json"));
    ASSERT_EQ(saveResults(r, path), QString());
    expectSameJudging(loadResults(path).judging, r.judging);
}

TEST(JudgingFile, FileForm)
{
    const RunResult r = withJudging();
    const QList<QByteArray> lines = serializeResults(r).split('\n');
    // The judging's own line after the telemetry, then one line per verdict, before the records.
    const auto at = std::find_if(
        lines.begin(), lines.end(), [](const QByteArray& l) { return l.startsWith(R"( "judging": {)"); });
    ASSERT_NE(at, lines.end());
    const auto telemetry = std::find_if(
        lines.begin(), lines.end(), [](const QByteArray& l) { return l.startsWith(R"( "telemetry": )"); });
    const auto records = std::find_if(
        lines.begin(), lines.end(), [](const QByteArray& l) { return l.startsWith(R"( "records": [)"); });
    ASSERT_LT(telemetry, at);
    ASSERT_GT(records, at);
    EXPECT_EQ(std::count_if(at, records, [](const QByteArray& l) { return l.startsWith("   {"); }),
        qsizetype(r.judging.rubricVerdicts.size() + r.judging.pairVerdicts.size()));

    const json j = fileJson(r)["judging"];
    EXPECT_EQ(j["judge"],
        json::parse(R"({"spec": "http://10.0.0.7:8000,model=qwen3-32b", "url": "http://10.0.0.7:8000",
            "model": "qwen3-32b", "runtime": "vllm", "endpoint_label": "judge 32B", "simulated": false,
            "probe": {"runtime": "vllm", "models": ["qwen3-32b"]}, "temperature": 0.0, "seed": 4711})"));
    EXPECT_EQ(j["rubric"]["source"], "builtin:voice-assistant");
    EXPECT_EQ(j["rubric"]["raw"], r.judging.rubric->raw);
    EXPECT_EQ(j["started_at"], "2026-03-01T11:00:00.000Z");
    EXPECT_EQ(j["ended_at"], "2026-03-01T11:02:00.500Z");
    EXPECT_EQ(j["complete"], true);
    EXPECT_EQ(j["notes"], json::array({"the judge ignores `seed`"}));
    const json& rv = j["rubric_verdicts"][0];
    EXPECT_EQ(rv["endpoint_index"], 0);
    EXPECT_EQ(rv["test"], "factual");
    EXPECT_EQ(rv["turn"], 1);
    EXPECT_EQ(rv["iteration"], 1);
    EXPECT_EQ(rv["scores"], json::parse(R"({"answers_question": 5, "correct": 4, "warm_personal": 2})"));
    EXPECT_EQ(rv["reason"], "Right, but \"generic\".");
    const json& ex = rv["exchange"];
    EXPECT_EQ(ex["messages"], r.judging.rubricVerdicts[0].exchange.messages);
    EXPECT_EQ(ex["reply"], "```json\n{\"scores\": {\"correct\": 4}, \"reason\": \"…\"}\n```");
    EXPECT_EQ(ex["reasoning"], "Answer 1 is right.");
    EXPECT_EQ(ex["at"], "2026-03-01T11:00:01.250Z");
    EXPECT_EQ(ex["duration_ms"], 812.125);
    EXPECT_EQ(ex["error"], "");
    EXPECT_EQ(j["rubric_verdicts"][1]["exchange"]["error"], "the reply is not JSON: I think it's fine");
    const json& pv = j["pair_verdicts"][0];
    EXPECT_EQ(pv["candidate"], 1);
    EXPECT_EQ(pv["baseline"], 0);
    EXPECT_EQ(pv["test"], "factual");
    EXPECT_EQ(pv["turn"], 2);
    EXPECT_EQ(pv["iteration"], 3);
    EXPECT_EQ(pv["candidate_first"], true);
    EXPECT_EQ(pv["pick"], "2");
    EXPECT_EQ(pv["reason"], "Answer 2 is warmer.");
    EXPECT_EQ(j["pair_verdicts"][1]["pick"], "tie");
    EXPECT_EQ(j["pair_verdicts"][1]["candidate_first"], false);
    EXPECT_EQ(j["pair_verdicts"][2]["pick"], "failed");
    EXPECT_EQ(j["pair_verdicts"][3]["pick"], "1");
}

TEST(JudgingFile, ARunNobodyJudgedHasNoJudgingMember)
{
    const QByteArray bytes = serializeResults(makeResult());
    EXPECT_FALSE(bytes.contains("judging")) << "a file nobody judged does not grow";
    EXPECT_FALSE(headerToJson(makeResult()).contains("judging"));
    const RunResult back = parseResults(bytes, QStringLiteral("run.json"));
    EXPECT_TRUE(back.judging.empty());
    EXPECT_TRUE(back.judging.judge.spec.isEmpty());

    // A judge set up but cancelled before its first verdict is kept, with its note.
    RunResult r = makeResult();
    r.judging.judge = makeJudging().judge;
    r.judging.notes = {QStringLiteral("cancelled after 0 of 12 judgements: run the command again to resume")};
    const RunResult started = parseResults(serializeResults(r), QStringLiteral("run.json"));
    expectSameJudging(started.judging, r.judging);
    // Pairwise only: no rubric, stored as null.
    r.judging = makeJudging();
    r.judging.rubric.reset();
    r.judging.rubricVerdicts.clear();
    EXPECT_TRUE(fileJson(r)["judging"]["rubric"].is_null());
    expectSameJudging(parseResults(serializeResults(r), QStringLiteral("run.json")).judging, r.judging);
}

TEST(JudgingFile, VersionTwoFilesLoadWithEmptyJudging)
{
    json j = fileJson(makeResult());
    j["version"] = 2;
    const RunResult back = parseResults(bytesOf(j), QStringLiteral("old.json"));
    EXPECT_TRUE(back.judging.empty());
    EXPECT_EQ(back.records.size(), makeResult().records.size());
    EXPECT_TRUE(serializeResults(back).startsWith(R"({"format": "quantscope-results", "version": 4,)"));
    // A null judging is no judging.
    j["judging"] = nullptr;
    EXPECT_TRUE(parseResults(bytesOf(j), QStringLiteral("old.json")).judging.empty());
}

TEST(JudgingFile, HandWrittenMinimalJudgingLoads)
{
    json j = fileJson(makeResult());
    j["judging"] = json::parse(R"({"judge": {"url": "http://judge:8000"},
        "pair_verdicts": [{"candidate": 1, "baseline": 0, "test": "factual", "candidate_first": false,
                           "pick": "tie"}]})");
    const Judging back = parseResults(bytesOf(j), QStringLiteral("run.json")).judging;
    EXPECT_EQ(back.judge.url, QStringLiteral("http://judge:8000"));
    EXPECT_EQ(back.judge.seed, 1);
    EXPECT_FALSE(back.rubric);
    ASSERT_EQ(back.pairVerdicts.size(), 1u);
    EXPECT_EQ(back.pairVerdicts[0].turn, 1);
    EXPECT_EQ(back.pairVerdicts[0].iteration, 1);
    EXPECT_EQ(back.pairVerdicts[0].preferred(), 0);
    EXPECT_FALSE(back.pairVerdicts[0].exchange.failed());
}

TEST(JudgingFile, BadMembersNameThePath)
{
    const json good = fileJson(withJudging());
    struct Case {
        std::function<void(json&)> edit;
        const char* message;
    };
    const std::vector<Case> cases = {
        {[](json& j) { j["judging"] = 5; }, "run.json: judging: expected an object or null, found a number"},
        {[](json& j) { j["judging"].erase("judge"); }, "run.json: judging.judge: missing"},
        {[](json& j) { j["judging"]["judge"]["seed"] = "x"; },
            "run.json: judging.judge.seed: expected a whole number, found a string"},
        {[](json& j) { j["judging"]["judge"]["probe"] = json::array(); },
            "run.json: judging.judge.probe: expected an object or null, found a list"},
        {[](json& j) { j["judging"]["started_at"] = "soon"; },
            "run.json: judging.started_at: expected an ISO 8601 time"},
        {[](json& j) { j["judging"]["complete"] = 1; },
            "run.json: judging.complete: expected true or false, found a number"},
        {[](json& j) { j["judging"]["notes"][0] = 3; },
            "run.json: judging.notes[0]: expected a string, found a number"},
        {[](json& j) { j["judging"]["rubric"].erase("raw"); }, "run.json: judging.rubric.raw: missing"},
        {[](json& j) { j["judging"]["rubric"]["raw"]["criteria"] = json::array(); },
            "run.json: judging.rubric.raw: not a valid rubric: builtin:voice-assistant: criteria: is empty; "
            "a "
            "rubric needs at least one criterion"},
        {[](json& j) { j["judging"]["rubric_verdicts"] = json::object(); },
            "run.json: judging.rubric_verdicts: expected a list or null, found an object"},
        {[](json& j) { j["judging"]["rubric_verdicts"][1] = "x"; },
            "run.json: judging.rubric_verdicts[1]: expected an object, found a string"},
        {[](json& j) { j["judging"]["rubric_verdicts"][0]["endpoint_index"] = 2; },
            "run.json: judging.rubric_verdicts[0].endpoint_index: 2 is out of range: the file lists 2 "
            "endpoints"},
        {[](json& j) { j["judging"]["rubric_verdicts"][0].erase("endpoint_index"); },
            "run.json: judging.rubric_verdicts[0].endpoint_index: missing"},
        {[](json& j) { j["judging"]["rubric_verdicts"][1].erase("test"); },
            "run.json: judging.rubric_verdicts[1].test: missing"},
        {[](json& j) { j["judging"]["rubric_verdicts"][0]["scores"]["correct"] = 6; },
            "run.json: judging.rubric_verdicts[0].scores.correct: 6 is out of range (1 to 5)"},
        {[](json& j) { j["judging"]["rubric_verdicts"][0]["scores"]["correct"] = "4"; },
            "run.json: judging.rubric_verdicts[0].scores.correct: expected a whole number, found a string"},
        {[](json& j) { j["judging"]["rubric_verdicts"][0]["exchange"]["at"] = "soon"; },
            "run.json: judging.rubric_verdicts[0].exchange.at: expected an ISO 8601 time"},
        {[](json& j) { j["judging"]["rubric_verdicts"][0]["exchange"]["messages"] = json::object(); },
            "run.json: judging.rubric_verdicts[0].exchange.messages: expected a list or null, found an "
            "object"},
        {[](json& j) { j["judging"]["rubric_verdicts"][0]["exchange"]["duration_ms"] = -1; },
            "run.json: judging.rubric_verdicts[0].exchange.duration_ms: a duration cannot be negative"},
        {[](json& j) { j["judging"]["rubric_verdicts"][0]["exchange"]["reply"] = false; },
            "run.json: judging.rubric_verdicts[0].exchange.reply: expected a string, found true/false"},
        {[](json& j) { j["judging"]["pair_verdicts"][2]["pick"] = "3"; },
            "run.json: judging.pair_verdicts[2].pick: expected \"1\", \"2\", \"tie\" or \"failed\", found "
            "\"3\""},
        {[](json& j) { j["judging"]["pair_verdicts"][0].erase("pick"); },
            "run.json: judging.pair_verdicts[0].pick: missing"},
        {[](json& j) { j["judging"]["pair_verdicts"][0]["baseline"] = 1; },
            "run.json: judging.pair_verdicts[0].baseline: is the candidate itself (endpoint 1)"},
        {[](json& j) { j["judging"]["pair_verdicts"][0]["candidate"] = 9; },
            "run.json: judging.pair_verdicts[0].candidate: 9 is out of range: the file lists 2 endpoints"},
        {[](json& j) { j["judging"]["pair_verdicts"][3].erase("candidate_first"); },
            "run.json: judging.pair_verdicts[3].candidate_first: missing"},
        {[](json& j) { j["judging"]["pair_verdicts"][0]["turn"] = 0; },
            "run.json: judging.pair_verdicts[0].turn: 0 is out of range"},
        {[](json& j) { j["judging"]["pair_verdicts"][0]["test"] = ""; },
            "run.json: judging.pair_verdicts[0].test: must not be empty"},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(c.message);
        json j = good;
        c.edit(j);
        expectError(
            [&] { parseResults(bytesOf(j), QStringLiteral("run.json")); }, Kind::BadField, {c.message});
    }
}

TEST(JudgingCombine, EachFilesJudgingFollowsItsEndpoints)
{
    RunResult before = withJudging();
    RunResult after = withJudging();
    after.judging.complete = false;
    after.judging.startedAt = before.judging.startedAt.addSecs(-60);
    after.judging.notes = {QStringLiteral("cancelled after 3 of 6 judgements")};
    const RunResult c
        = combineResults({{QStringLiteral("before"), before}, {QStringLiteral("after"), after}});
    ASSERT_EQ(c.endpoints.size(), 4u);
    const Judging& j = c.judging;
    ASSERT_EQ(j.rubricVerdicts.size(), 4u);
    ASSERT_EQ(j.pairVerdicts.size(), 8u);
    EXPECT_EQ(j.rubricVerdicts[0].answer.endpoint, 0);
    EXPECT_EQ(j.rubricVerdicts[1].answer.endpoint, 1);
    EXPECT_EQ(j.rubricVerdicts[2].answer.endpoint, 2); // after's endpoint 0
    EXPECT_EQ(j.rubricVerdicts[3].answer.endpoint, 3);
    EXPECT_EQ(j.rubricVerdicts[3].answer.test, QStringLiteral("reasoning"));
    EXPECT_EQ(j.pairVerdicts[0].candidate, 1);
    EXPECT_EQ(j.pairVerdicts[0].baseline, 0);
    EXPECT_EQ(j.pairVerdicts[4].candidate, 3);
    EXPECT_EQ(j.pairVerdicts[4].baseline, 2);
    EXPECT_FALSE(j.complete);
    EXPECT_EQ(j.startedAt, after.judging.startedAt);
    EXPECT_EQ(j.notes,
        (QStringList {QStringLiteral("the judge ignores `seed`"),
            QStringLiteral("after: cancelled after 3 of 6 judgements")}));
    EXPECT_TRUE(j.judge == before.judging.judge);
    EXPECT_FALSE(c.note.contains(QStringLiteral("left out"))) << c.note.toStdString();
    // Every index is valid in the combined file: it saves and loads.
    expectSameJudging(parseResults(serializeResults(c), QStringLiteral("c.json")).judging, j);
}

TEST(JudgingCombine, OnlyTheFirstJudgedFilesJudgeIsKept)
{
    RunResult unjudged = makeResult();
    RunResult first = withJudging();
    RunResult other = withJudging();
    other.judging.judge.model = QStringLiteral("llama-70b");
    other.judging.judge.spec = QStringLiteral("http://10.0.0.8:8000");
    other.judging.judge.url = QStringLiteral("http://10.0.0.8:8000");
    const RunResult c = combineResults({{QStringLiteral("plain"), unjudged}, {QStringLiteral("first"), first},
        {QStringLiteral("other"), other}});
    ASSERT_EQ(c.endpoints.size(), 6u);
    const Judging& j = c.judging;
    // "first" is the first judged file: its verdicts, moved to its endpoints 2 and 3.
    EXPECT_TRUE(j.judge == first.judging.judge);
    ASSERT_EQ(j.rubricVerdicts.size(), 2u);
    ASSERT_EQ(j.pairVerdicts.size(), 4u);
    EXPECT_EQ(j.rubricVerdicts[0].answer.endpoint, 2);
    EXPECT_EQ(j.pairVerdicts[0].candidate, 3);
    EXPECT_EQ(j.pairVerdicts[0].baseline, 2);
    EXPECT_EQ(j.notes.first(), QStringLiteral("first: the judge ignores `seed`"));
    const QString why = QStringLiteral(
        "other's judge verdicts were left out: it was judged by llama-70b at http://10.0.0.8:8000, first by "
        "qwen3-32b at http://10.0.0.7:8000, and verdicts of different judges cannot be pooled (judge both "
        "files with the same judge to compare them)");
    EXPECT_TRUE(j.notes.contains(why)) << j.notes.join(u'\n').toStdString();
    EXPECT_TRUE(c.note.contains(why)) << c.note.toStdString();

    // The same judge with another rubric: pairwise verdicts pool, rubric verdicts do not.
    RunResult general = withJudging();
    general.judging.rubric = loadBuiltinRubric(QStringLiteral("general"));
    const RunResult g = combineResults({{QStringLiteral("a"), first}, {QStringLiteral("b"), general}});
    EXPECT_EQ(g.judging.rubricVerdicts.size(), 2u);
    EXPECT_EQ(g.judging.pairVerdicts.size(), 8u);
    EXPECT_TRUE(
        g.note.contains(QStringLiteral("b's rubric verdicts were left out: they were graded by another "
                                       "rubric (builtin:general) than a's (builtin:voice-assistant)")))
        << g.note.toStdString();
}
