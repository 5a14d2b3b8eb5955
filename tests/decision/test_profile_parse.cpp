// SPDX-License-Identifier: MIT
// Decision profiles: the built-ins say what the seeds say, and a broken profile is reported with
// the file, the JSON path and what to do — typos get a "did you mean".
#include "model/decide/DecisionProfile.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <gtest/gtest.h>

using namespace qs;
using json = nlohmann::json;

namespace {

const Criterion& byId(const DecisionProfile& p, const char* id)
{
    for (const Criterion& c : p.criteria)
        if (c.id == QString::fromUtf8(id))
            return c;
    throw std::runtime_error(std::string("no criterion ") + id);
}

std::string parseError(const json& profile)
{
    try {
        parseDecisionProfile(profile, QStringLiteral("profile.json"));
    } catch (const ProfileError& e) {
        return e.what();
    }
    return "(no error)";
}

// A valid profile with `criterion` as its second criterion.
json withCriterion(const json& criterion)
{
    return {{"id", "p"}, {"criteria", {{{"gate", "non_empty"}, {"max_failures", 0}}, criterion}}};
}

std::string writeAndLoad(const QByteArray& text)
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("mine.json"));
    QFile f(path);
    f.open(QIODevice::WriteOnly);
    f.write(text);
    f.close();
    try {
        loadDecisionProfile(path);
    } catch (const ProfileError& e) {
        std::string what = e.what();
        // The directory is random: report the message from the file name on.
        const auto at = what.find("mine.json");
        return at == std::string::npos ? what : what.substr(at);
    }
    return "(no error)";
}

} // namespace

TEST(DecisionProfileBuiltins, VoiceAssistantHoldsTheSeedsCriteria)
{
    ASSERT_EQ(builtinDecisionProfileNames(),
        (QStringList {QStringLiteral("voice-assistant"), QStringLiteral("throughput")}));
    const DecisionProfile p = loadDecisionProfile(QStringLiteral("voice-assistant"));
    EXPECT_EQ(p.id, QStringLiteral("voice-assistant"));
    EXPECT_EQ(p.name, QStringLiteral("Voice assistant"));
    EXPECT_EQ(p.source, QStringLiteral("builtin:voice-assistant"));
    EXPECT_EQ(p.raw.at("id"), "voice-assistant");
    ASSERT_EQ(p.criteria.size(), 20u); // 13, 5 optional judge and 2 optional fidelity criteria

    const Criterion& leaks = byId(p, "thinking_leaks");
    EXPECT_EQ(leaks.kind, Criterion::Kind::GateMaxFailures);
    EXPECT_EQ(leaks.gate, QStringLiteral("no_thinking_leak"));
    EXPECT_EQ(leaks.threshold, 0);
    const Criterion& tools = byId(p, "tool_calls");
    EXPECT_EQ(tools.kind, Criterion::Kind::GateMinPassRate);
    EXPECT_EQ(tools.gate, QStringLiteral("tool_call"));
    EXPECT_DOUBLE_EQ(tools.threshold, 0.6);
    const Criterion& markdown = byId(p, "no_markdown");
    EXPECT_EQ(markdown.kind, Criterion::Kind::GateMinPassRate);
    EXPECT_DOUBLE_EQ(markdown.threshold, 0.8);
    const Criterion& ttft = byId(p, "ttft_visible");
    EXPECT_EQ(ttft.kind, Criterion::Kind::MetricMax);
    EXPECT_EQ(ttft.metric, Metric::TtftVisible);
    EXPECT_EQ(ttft.statistic, QStringLiteral("p50"));
    EXPECT_EQ(ttft.threshold, 120);
    const Criterion& decode = byId(p, "decode_rate");
    EXPECT_EQ(decode.kind, Criterion::Kind::MetricMin);
    EXPECT_EQ(decode.metric, Metric::DecodeTps);
    EXPECT_EQ(decode.threshold, 25);
    // The seeds' NVFP4 was "2-6x more verbose": at most half again the baseline's length.
    const Criterion& verbose = byId(p, "not_more_verbose");
    EXPECT_EQ(verbose.kind, Criterion::Kind::VerbosityMaxRatio);
    EXPECT_EQ(verbose.metric, Metric::CompletionTokens);
    EXPECT_DOUBLE_EQ(verbose.threshold, 1.5);
    EXPECT_TRUE(verbose.rationale.contains(QStringLiteral("2-6x more verbose")));

    // The seeds' memory budget ("VRAM fits within budget (<110 GB peak)") and energy per token:
    // optional, so a run without telemetry reads "not measured" and decides as before.
    const Criterion& memory = byId(p, "memory_budget");
    EXPECT_EQ(memory.kind, Criterion::Kind::ResourceMax);
    EXPECT_EQ(memory.resource, Criterion::Resource::PeakMemory);
    EXPECT_DOUBLE_EQ(memory.threshold, 110e9);
    EXPECT_EQ(memory.unit, QStringLiteral("GB"));
    EXPECT_TRUE(memory.optional);
    EXPECT_TRUE(memory.rationale.contains(QStringLiteral("<110 GB peak")));
    EXPECT_TRUE(memory.rationale.contains(QStringLiteral("--gpu-memory-utilization 0.85")));
    const Criterion& energy = byId(p, "energy_not_worse");
    EXPECT_EQ(energy.kind, Criterion::Kind::ResourceNotWorse);
    EXPECT_EQ(energy.resource, Criterion::Resource::EnergyPerToken);
    EXPECT_DOUBLE_EQ(energy.tolerance, 0.05);
    EXPECT_TRUE(energy.optional);

    QStringList notWorse;
    for (const Criterion& c : p.criteria) {
        EXPECT_FALSE(c.title.isEmpty());
        EXPECT_FALSE(c.rationale.isEmpty()) << c.id.toStdString();
        EXPECT_TRUE(c.test.isEmpty());
        EXPECT_EQ(c.optional, isResourceCriterion(c) || isJudgeCriterion(c) || isFidelityCriterion(c))
            << c.id.toStdString();
        if (c.kind == Criterion::Kind::MetricNotWorse)
            notWorse << metricId(c.metric);
        if (c.kind == Criterion::Kind::GateNotWorse)
            notWorse << c.gate;
    }
    EXPECT_EQ(notWorse,
        (QStringList {QStringLiteral("ttft_visible_ms"), QStringLiteral("first_sentence_ms"),
            QStringLiteral("expected_answer"), QStringLiteral("coherent"), QStringLiteral("non_empty")}));
}

TEST(DecisionProfileBuiltins, ThroughputIsNeutral)
{
    const DecisionProfile p = loadDecisionProfile(QStringLiteral("builtin:throughput"));
    ASSERT_EQ(p.criteria.size(), 4u);
    EXPECT_EQ(p.criteria[0].kind, Criterion::Kind::MetricNotWorse);
    EXPECT_EQ(p.criteria[0].metric, Metric::DecodeTps);
    EXPECT_EQ(p.criteria[1].kind, Criterion::Kind::MetricNotWorse);
    EXPECT_EQ(p.criteria[1].metric, Metric::E2e);
    EXPECT_EQ(p.criteria[2].kind, Criterion::Kind::GateNotWorse);
    EXPECT_EQ(p.criteria[2].gate, QStringLiteral("non_empty"));
    EXPECT_EQ(p.criteria[3].gate, QStringLiteral("coherent"));
    // No absolute thresholds: they depend on the hardware.
    for (const Criterion& c : p.criteria)
        EXPECT_TRUE(c.kind == Criterion::Kind::MetricNotWorse || c.kind == Criterion::Kind::GateNotWorse);
}

TEST(DecisionProfileBuiltins, MistypedNameSuggestsTheBuiltIn)
{
    try {
        loadDecisionProfile(QStringLiteral("voice-asistant"));
        FAIL() << "no error";
    } catch (const ProfileError& e) {
        EXPECT_EQ(std::string(e.what()),
            "no built-in decision profile named \"voice-asistant\"; did you mean \"voice-assistant\"? the "
            "built-in "
            "profiles are: voice-assistant, throughput (or give the path of a profile file)");
    }
}

TEST(DecisionProfileParse, DefaultsForIdTitleAndStatistic)
{
    const DecisionProfile p = parseDecisionProfile(
        {{"id", "mine"},
            {"criteria",
                {{{"metric", "ttft_visible_ms"}, {"max", 200}},
                    {{"gate", "tool_call"}, {"min_pass_rate", 0.5}, {"test", "tool-web"}},
                    {{"metric", "decode_tps"}, {"min", 20}, {"statistic", "p90"}, {"title", "Fast enough"}},
                    {{"metric", "e2e_ms"}, {"not_worse_than_baseline", true}}}}},
        QStringLiteral("mine.json"));
    EXPECT_EQ(p.name, QStringLiteral("mine"));
    ASSERT_EQ(p.criteria.size(), 4u);
    EXPECT_EQ(p.criteria[0].id, QStringLiteral("ttft_visible_ms_max"));
    EXPECT_EQ(p.criteria[0].statistic, QStringLiteral("p50"));
    EXPECT_EQ(p.criteria[0].title, QStringLiteral("ttft_visible_ms p50 ≤ 200 ms"));
    EXPECT_EQ(p.criteria[1].id, QStringLiteral("tool_call_min_pass_rate_tool-web"));
    EXPECT_EQ(p.criteria[1].test, QStringLiteral("tool-web"));
    EXPECT_EQ(p.criteria[1].title, QStringLiteral("tool_call: passes at least 50 % (tool-web)"));
    EXPECT_EQ(p.criteria[2].statistic, QStringLiteral("p90"));
    EXPECT_EQ(p.criteria[2].title, QStringLiteral("Fast enough"));
    EXPECT_EQ(p.criteria[3].kind, Criterion::Kind::MetricNotWorse);
    EXPECT_EQ(p.criteria[3].title, QStringLiteral("e2e_ms not worse than the baseline"));

    const json j = toJson(p.criteria[2]);
    EXPECT_EQ(j.at("kind"), "metric_min");
    EXPECT_EQ(j.at("metric"), "decode_tps");
    EXPECT_EQ(j.at("min"), 20.0);
    EXPECT_EQ(j.at("statistic"), "p90");
    EXPECT_TRUE(j.at("test").is_null());
    EXPECT_EQ(toJson(p.criteria[1]).at("min_pass_rate"), 0.5);
    EXPECT_EQ(toJson(p.criteria[1]).at("test"), "tool-web");
}

TEST(DecisionProfileParse, ErrorsNameFilePathAndFix)
{
    const std::pair<json, std::string> cases[] = {
        {json::array(),
            "profile.json: top level: a decision profile must be a JSON object with \"id\" and \"criteria\", "
            "found an empty list"},
        {{{"criteria", {{{"gate", "non_empty"}, {"max_failures", 0}}}}},
            "profile.json: top level: \"id\" is missing; give a short name like \"voice-assistant\""},
        {{{"id", "has space"}, {"criteria", json::array()}},
            "profile.json: id: \"has space\" is not a valid id; use 1 to 128 letters, digits, '.', '_' or "
            "'-' (no spaces)"},
        {{{"id", "p"}},
            "profile.json: top level: \"criteria\" is missing; give a list like [{\"gate\": "
            "\"no_thinking_leak\", \"max_failures\": 0}]"},
        {{{"id", "p"}, {"criteria", json::array()}},
            "profile.json: criteria: is empty; a profile needs at least one criterion"},
        {{{"id", "p"}, {"critera", json::array()}},
            "profile.json: critera: unknown key; did you mean \"criteria\"?"},
        {{{"id", "p"}, {"max_failures", 0}, {"criteria", json::array()}},
            "profile.json: max_failures: unknown key here; it belongs in a criterion, inside \"criteria\""},
        {withCriterion({{"gate", "no_markdown"}, {"max_failure", 0}}),
            "profile.json: criteria[1].max_failure: unknown key; did you mean \"max_failures\"?"},
        {withCriterion({{"gate", "no_markdwn"}, {"max_failures", 0}}),
            "profile.json: criteria[1].gate: unknown gate \"no_markdwn\"; did you mean \"no_markdown\"?"},
        {withCriterion({{"gate", "vibes"}, {"max_failures", 0}}),
            "profile.json: criteria[1].gate: unknown gate \"vibes\"; expected one of: non_empty, "
            "expected_answer, "
            "tool_call, no_markdown, no_thinking_leak, thinking_follows_request, coherent, within_length"},
        {withCriterion({{"metric", "ttft_visble_ms"}, {"max", 100}}),
            "profile.json: criteria[1].metric: unknown metric \"ttft_visble_ms\"; did you mean "
            "\"ttft_visible_ms\"?"},
        {withCriterion({{"gate", "coherent"}, {"metric", "e2e_ms"}, {"max", 1}}),
            "profile.json: criteria[1]: a criterion takes exactly one of \"gate\", \"metric\", \"resource\", "
            "\"judge\", \"fidelity\", \"verbosity\", found gate and metric; split it into two criteria"},
        {withCriterion({{"max", 1}}),
            "profile.json: criteria[1]: a criterion needs one of \"gate\", \"metric\", \"resource\", "
            "\"judge\", \"fidelity\", \"verbosity\""},
        {withCriterion({{"gate", "coherent"}, {"max", 1}}),
            "profile.json: criteria[1].max: applies to a \"metric\" criterion; a gate takes "
            "\"max_failures\", \"min_pass_rate\" or \"not_worse_than_baseline\""},
        {withCriterion({{"metric", "e2e_ms"}, {"max_failures", 1}}),
            "profile.json: criteria[1].max_failures: applies to a \"gate\" criterion; a metric takes "
            "\"max\", \"min\" or \"not_worse_than_baseline\""},
        {withCriterion({{"gate", "coherent"}, {"max_failures", 1}, {"min_pass_rate", 0.5}}),
            "profile.json: criteria[1]: a gate criterion takes exactly one of \"max_failures\", "
            "\"min_pass_rate\", "
            "\"not_worse_than_baseline\", found max_failures and min_pass_rate; split it into two criteria"},
        {withCriterion({{"gate", "coherent"}}),
            "profile.json: criteria[1]: a gate criterion needs one of \"max_failures\", \"min_pass_rate\", "
            "\"not_worse_than_baseline\""},
        {withCriterion({{"gate", "tool_call"}, {"min_pass_rate", 60}}),
            "profile.json: criteria[1].min_pass_rate: is a fraction from 0 to 1, found 60; write 0.6 for 60 "
            "%"},
        {withCriterion({{"gate", "tool_call"}, {"min_pass_rate", -0.5}}),
            "profile.json: criteria[1].min_pass_rate: must be a fraction from 0 to 1 (0.6 for \"6 of 10\"), "
            "found a number (-0.5)"},
        {withCriterion({{"gate", "tool_call"}, {"max_failures", 1.5}}),
            "profile.json: criteria[1].max_failures: must be a whole number of failures (0 or more), found a "
            "number (1.5)"},
        {withCriterion({{"gate", "tool_call"}, {"max_failures", "2"}}),
            "profile.json: criteria[1].max_failures: must be a number, found a string (\"2\")"},
        {withCriterion({{"gate", "coherent"}, {"not_worse_than_baseline", false}}),
            "profile.json: criteria[1].not_worse_than_baseline: is false; remove the criterion instead (a "
            "profile lists only what it requires)"},
        {withCriterion({{"metric", "completion_tokens"}, {"not_worse_than_baseline", true}}),
            "profile.json: criteria[1].not_worse_than_baseline: \"completion_tokens\" has no better "
            "direction (more "
            "tokens is neither better nor worse), so it cannot be \"not worse\"; give it a \"max\" or "
            "\"min\" instead, or compare answer lengths with {\"verbosity\": \"completion_tokens\", "
            "\"max_ratio\": 1.5}"},
        {withCriterion({{"metric", "e2e_ms"}, {"max", 900}, {"statistic", "median"}}),
            "profile.json: criteria[1].statistic: unknown statistic \"median\"; the median is \"p50\""},
        {withCriterion({{"metric", "e2e_ms"}, {"max", 900}, {"statistic", "p59"}}),
            "profile.json: criteria[1].statistic: unknown statistic \"p59\"; did you mean \"p50\"?"},
        {withCriterion({{"metric", "e2e_ms"}, {"not_worse_than_baseline", true}, {"statistic", "p90"}}),
            "profile.json: criteria[1].statistic: applies to \"max\"/\"min\" only; "
            "\"not_worse_than_baseline\" uses "
            "the paired comparison of every request"},
        {withCriterion({{"metric", "e2e_ms"}, {"max", -1}}),
            "profile.json: criteria[1].max: must not be negative, found a number (-1)"},
        {withCriterion({{"gate", "non_empty"}, {"max_failures", 2}}),
            "profile.json: criteria[1].id: \"non_empty_max_failures\" is already the id of criteria[0]; "
            "criterion ids must be unique"},
        {withCriterion({{"gate", "non_empty"}, {"max_failures", 2}, {"test", ""}}),
            "profile.json: criteria[1].test: must not be empty"},
        {withCriterion("gate"),
            "profile.json: criteria[1]: must be an object like {\"gate\": \"no_thinking_leak\", "
            "\"max_failures\": 0}, found a string (\"gate\")"},
    };
    for (const auto& [profile, expected] : cases)
        EXPECT_EQ(parseError(profile), expected) << profile.dump();
}

TEST(DecisionProfileFiles, ReadsAFileAndReportsBrokenOnes)
{
    EXPECT_EQ(
        writeAndLoad("{\"id\": \"p\",\n \"criteria\": [\n  {\"gate\": \"coherent\" \"max_failures\": 0}]}"),
        "mine.json: line 3, column 36: not valid JSON: syntax error while parsing object - unexpected string "
        "literal; expected '}'");
    EXPECT_EQ(writeAndLoad("{\"id\": \"p\", \"id\": \"q\", \"criteria\": []}"),
        "mine.json: id: key given twice in the same object (JSON would keep only the last one)");
    EXPECT_EQ(writeAndLoad("  \n"),
        "mine.json: the file is empty; a decision profile is a JSON object with \"id\" and \"criteria\"");
    EXPECT_EQ(writeAndLoad("{\"id\": \"p\", \"criteria\": [{\"metric\": \"decode_tps\", \"min\": 30}]}"),
        "(no error)");

    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("p.json"));
    QFile f(path);
    ASSERT_TRUE(f.open(QIODevice::WriteOnly));
    f.write(R"({"id": "fast", "name": "Fast", "criteria": [{"metric": "decode_tps", "min": 30}]})");
    f.close();
    const DecisionProfile p = loadDecisionProfile(path);
    EXPECT_EQ(p.name, QStringLiteral("Fast"));
    EXPECT_EQ(p.source, path);
    EXPECT_EQ(p.criteria.at(0).threshold, 30);

    try {
        loadDecisionProfile(dir.filePath(QStringLiteral("missing.json")));
        FAIL() << "no error";
    } catch (const ProfileError& e) {
        EXPECT_TRUE(
            std::string(e.what()).ends_with("missing.json: cannot read the decision profile: no such file"))
            << e.what();
    }
    try {
        loadDecisionProfile(dir.path());
        FAIL() << "no error";
    } catch (const ProfileError& e) {
        EXPECT_TRUE(std::string(e.what()).ends_with(": cannot read the decision profile: it is a directory"))
            << e.what();
    }
}
