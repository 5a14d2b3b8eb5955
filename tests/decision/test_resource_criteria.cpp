// SPDX-License-Identifier: MIT
// Resource criteria (issue #11): the profile forms on what a server spent, with their units and
// clear errors, and judging them from Evaluation::resources — a budget, "not worse than the
// baseline" with a tolerance, and "not measured" (never a silent pass) when no telemetry was
// collected for an optional one.
#include "model/decide/Recommendation.h"
#include "tests/decision/CriterionTestSupport.h"
#include "tests/stats/StatsTestSupport.h"

#include <gtest/gtest.h>

using namespace qs;
using namespace qs::test;
using json = nlohmann::json;
using Outcome = CriterionResult::Outcome;
using Decision = Recommendation::Decision;
using Resource = Criterion::Resource;

namespace {

/// Two arms, "Q4_K_M" (baseline) and "NVFP4", 10 measured requests each, no telemetry.
RunResult twoArms()
{
    RunResult r = makeRun({QStringLiteral("Q4_K_M"), QStringLiteral("NVFP4")});
    for (int e = 0; e < 2; ++e)
        for (int prompt = 1; prompt <= 8; ++prompt) // distinct prompts: the unit of evidence
            for (int it = 1; it <= 3; ++it) {
                Req q;
                q.endpoint = e;
                q.test = QStringLiteral("p%1").arg(prompt);
                q.iteration = it;
                q.ttftMs = 100 + it;
                r.records.push_back(record(q));
            }
    return r;
}

ResourceFigure figure(double value, const char* source, int samples = 12)
{
    return {value, QString::fromUtf8(source), samples};
}

/// What a DCGM exporter would have told about one endpoint.
EndpointResources measured(int endpoint, double peakBytes, double joulesPerToken)
{
    EndpointResources e;
    e.endpoint = endpoint;
    e.label = endpoint == 0 ? QStringLiteral("Q4_K_M") : QStringLiteral("NVFP4");
    e.sources = {QStringLiteral("http://10.0.0.5:9400/metrics")};
    e.memoryKind = QStringLiteral("gpu");
    e.memoryPeak = figure(peakBytes, "DCGM_FI_DEV_FB_USED @ http://10.0.0.5:9400/metrics", 42);
    e.memoryIdle = figure(peakBytes * 0.8, "DCGM_FI_DEV_FB_USED @ http://10.0.0.5:9400/metrics", 4);
    e.byConcurrency = {{1, figure(peakBytes * 0.9, "m"), figure(peakBytes * 0.95, "m")},
        {4, figure(peakBytes * 0.97, "m"), figure(peakBytes, "m")}};
    e.powerMedian = figure(180, "DCGM_FI_DEV_POWER_USAGE @ http://10.0.0.5:9400/metrics");
    e.energyPerToken
        = figure(joulesPerToken, "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION @ http://10.0.0.5:9400/metrics");
    e.energyPerToken.uncertainty.relativeSe = 0.01; // ±1 % from the spread between blocks of the run
    e.energyPerToken.uncertainty.blocks = 10;
    return e;
}

Recommendation judge(const RunResult& r, const ResourceReport& resources, const json& criteria)
{
    Evaluation ev = evaluate(r, 0);
    ev.guardrails.clear();
    ev.resources = resources; // filled by hand: the figures are the evaluate stage's job
    return recommend(r, ev, profile(criteria)).at(0);
}

ResourceReport both(
    double baselinePeak, double candidatePeak, double baselineJ = 0.8, double candidateJ = 0.8)
{
    ResourceReport rep;
    rep.collected = true;
    rep.endpoints = {measured(0, baselinePeak, baselineJ), measured(1, candidatePeak, candidateJ)};
    return rep;
}

const json budget = {{"id", "memory_budget"}, {"title", "Peak memory within 110 GB"},
    {"resource", "peak_memory"}, {"max", 110}, {"unit", "GB"}, {"optional", true}};
const json energy = {{"resource", "energy_per_token"}, {"not_worse_than_baseline", true}, {"optional", true}};
const json ttft = {{"metric", "ttft_visible_ms"}, {"max", 200}};

} // namespace

// ---- the profile forms ------------------------------------------------------------------------

TEST(ResourceCriteriaParse, FormsUnitsAndDefaults)
{
    const DecisionProfile p = profile(json::array({
        {{"resource", "peak_memory"}, {"max", 110}, {"unit", "GB"}},
        {{"resource", "idle_memory"}, {"max", 8}, {"unit", "GiB"}},
        {{"resource", "memory_at_concurrency"}, {"concurrency", 5}, {"max", 6600}, {"unit", "MiB"}},
        {{"resource", "memory_at_concurrency"}, {"max", 7e9}, {"unit", "bytes"}},
        {{"resource", "power_median"}, {"max", 250}},
        {{"resource", "energy_per_token"}, {"not_worse_than_baseline", true}},
        {{"resource", "power_median"}, {"not_worse_than_baseline", true}, {"tolerance", 0.1},
            {"optional", true}},
    }));
    ASSERT_EQ(p.criteria.size(), 7u);
    const Criterion& peak = p.criteria[0];
    EXPECT_EQ(peak.kind, Criterion::Kind::ResourceMax);
    EXPECT_TRUE(isResourceCriterion(peak));
    EXPECT_FALSE(isGateCriterion(peak));
    EXPECT_EQ(peak.resource, Resource::PeakMemory);
    EXPECT_DOUBLE_EQ(peak.threshold, 110e9); // decimal: 1 GB = 10^9 bytes
    EXPECT_EQ(peak.id, QStringLiteral("peak_memory_max"));
    EXPECT_EQ(peak.title, QStringLiteral("peak memory ≤ 110 GB"));
    EXPECT_FALSE(peak.optional);
    EXPECT_DOUBLE_EQ(p.criteria[1].threshold, 8.0 * 1024 * 1024 * 1024);
    EXPECT_DOUBLE_EQ(p.criteria[2].threshold, 6600.0 * 1024 * 1024);
    EXPECT_EQ(p.criteria[2].concurrency, 5);
    EXPECT_EQ(p.criteria[2].id, QStringLiteral("memory_at_concurrency_5_max"));
    EXPECT_EQ(p.criteria[2].title, QStringLiteral("peak memory at concurrency 5 ≤ 6600 MiB"));
    EXPECT_EQ(p.criteria[3].concurrency, 0); // the highest level measured
    EXPECT_EQ(p.criteria[3].id, QStringLiteral("memory_at_concurrency_max"));
    EXPECT_EQ(p.criteria[4].unit, QStringLiteral("W"));
    EXPECT_DOUBLE_EQ(p.criteria[4].threshold, 250);
    const Criterion& joules = p.criteria[5];
    EXPECT_EQ(joules.kind, Criterion::Kind::ResourceNotWorse);
    EXPECT_DOUBLE_EQ(joules.tolerance, 0.05);
    EXPECT_EQ(joules.id, QStringLiteral("energy_per_token_not_worse_than_baseline"));
    EXPECT_EQ(joules.title, QStringLiteral("energy per token not worse than the baseline (≤ +5 %)"));
    EXPECT_DOUBLE_EQ(marginOf(joules), 1.05);
    EXPECT_FALSE(joules.margin); // the default
    EXPECT_DOUBLE_EQ(p.criteria[6].tolerance, 0.1);
    EXPECT_DOUBLE_EQ(marginOf(p.criteria[6]), 1.1); // the older "tolerance" is the margin 1 + t
    EXPECT_TRUE(p.criteria[6].optional);

    // The JSON form reads back as the same criterion, in the unit the profile wrote.
    const json j = toJson(p.criteria[2]);
    EXPECT_EQ(j.at("kind"), "resource_max");
    EXPECT_EQ(j.at("resource"), "memory_at_concurrency");
    EXPECT_DOUBLE_EQ(j.at("max").get<double>(), 6600);
    EXPECT_EQ(j.at("unit"), "MiB");
    EXPECT_EQ(j.at("concurrency"), 5);
    EXPECT_EQ(j.at("optional"), false);
    EXPECT_EQ(toJson(joules).at("kind"), "resource_not_worse");
    EXPECT_DOUBLE_EQ(toJson(joules).at("margin").get<double>(), 1.05);
    EXPECT_FALSE(toJson(joules).contains("tolerance"));
    const Criterion back = profile(json::array({asWritten(j)})).criteria.at(0);
    EXPECT_DOUBLE_EQ(back.threshold, p.criteria[2].threshold);
    EXPECT_EQ(back.title, p.criteria[2].title);

    EXPECT_EQ(resourceValueText(Resource::PeakMemory, 63.2e9), QStringLiteral("63.2 GB"));
    EXPECT_EQ(resourceValueText(Resource::PeakMemory, 8.0 * 1073741824.0, QStringLiteral("GiB")),
        QStringLiteral("8.00 GiB"));
    EXPECT_EQ(resourceValueText(Resource::EnergyPerToken, 0.8421), QStringLiteral("0.842 J/token"));
    EXPECT_EQ(resourceValueText(Resource::PowerMedian, 212.4), QStringLiteral("212 W"));
}

TEST(ResourceCriteriaParse, ErrorsSayWhatToWrite)
{
    const std::pair<json, std::string> cases[] = {
        {{{"resource", "peak_memroy"}, {"max", 110}, {"unit", "GB"}},
            "profile.json: criteria[0].resource: unknown resource \"peak_memroy\"; did you mean "
            "\"peak_memory\"?"},
        {{{"resource", "vram"}, {"max", 110}, {"unit", "GB"}},
            "profile.json: criteria[0].resource: unknown resource \"vram\"; expected one of: peak_memory, "
            "idle_memory, memory_at_concurrency, power_median, energy_per_token"},
        {{{"resource", "peak_memory"}, {"max", 110}},
            "profile.json: criteria[0]: a memory limit needs a \"unit\": one of GB, GiB, MB, MiB, bytes (GB "
            "and "
            "MB are decimal: 1 GB = 10^9 bytes; GiB = 2^30)"},
        {{{"resource", "peak_memory"}, {"max", 110}, {"unit", "Gb"}},
            "profile.json: criteria[0].unit: unknown unit \"Gb\" for \"peak_memory\"; expected one of: GB, "
            "GiB, "
            "MB, MiB, bytes"},
        {{{"resource", "power_median"}, {"max", 300}, {"unit", "GB"}},
            "profile.json: criteria[0].unit: unknown unit \"GB\" for \"power_median\"; expected one of: W"},
        {{{"resource", "peak_memory"}, {"min", 1}, {"unit", "GB"}},
            "profile.json: criteria[0].min: less is better for every resource; give a \"max\" (a budget) or "
            "\"not_worse_than_baseline\": true"},
        {{{"resource", "peak_memory"}, {"max", 1}, {"unit", "GB"}, {"statistic", "p90"}},
            "profile.json: criteria[0].statistic: does not apply to a resource: it is one figure per "
            "endpoint "
            "(a peak, a median), not a distribution of requests"},
        {{{"resource", "peak_memory"}, {"max", 1}, {"unit", "GB"}, {"test", "a"}},
            "profile.json: criteria[0].test: does not apply to a resource: the server's figures cover the "
            "whole run, not one test; remove \"test\""},
        {{{"resource", "peak_memory"}},
            "profile.json: criteria[0]: a resource criterion needs one of \"max\", "
            "\"not_worse_than_baseline\""},
        {{{"resource", "peak_memory"}, {"max", -1}, {"unit", "GB"}},
            "profile.json: criteria[0].max: must not be negative, found a number (-1)"},
        {{{"resource", "peak_memory"}, {"max", 1}, {"unit", "GB"}, {"concurrency", 5}},
            "profile.json: criteria[0].concurrency: applies to \"memory_at_concurrency\" only"},
        {{{"resource", "memory_at_concurrency"}, {"max", 1}, {"unit", "GB"}, {"concurrency", 0}},
            "profile.json: criteria[0].concurrency: must be a whole number of requests in flight (1 or "
            "more), "
            "found a number (0)"},
        {{{"resource", "energy_per_token"}, {"not_worse_than_baseline", true}, {"tolerance", 5}},
            "profile.json: criteria[0].tolerance: is a fraction, found 5; write 0.05 for 5 %"},
        {{{"resource", "energy_per_token"}, {"not_worse_than_baseline", true}, {"unit", "J/token"}},
            "profile.json: criteria[0].unit: applies to \"max\"; \"not_worse_than_baseline\" compares with "
            "the "
            "baseline's figure in the same unit"},
        {{{"resource", "energy_per_token"}, {"max", 1}, {"tolerance", 0.1}},
            "profile.json: criteria[0].tolerance: applies to \"not_worse_than_baseline\"; a \"max\" is a "
            "hard "
            "limit"},
        {{{"resource", "energy_per_token"}, {"not_worse_than_baseline", true}, {"optional", "yes"}},
            "profile.json: criteria[0].optional: must be true or false, found a string (\"yes\")"},
        {{{"gate", "tool_call"}, {"min_pass_rate", 0.6}, {"optional", true}},
            "profile.json: criteria[0].optional: applies to a \"resource\", \"judge\" or \"fidelity\" "
            "criterion only (gates and metrics are measured on every request, so they are never optional "
            "and carry their own units)"},
        {{{"metric", "e2e_ms"}, {"resource", "peak_memory"}, {"max", 1}},
            "profile.json: criteria[0]: a criterion takes exactly one of \"gate\", \"metric\", \"resource\", "
            "\"judge\", \"fidelity\", \"verbosity\", found metric and resource; split it into two criteria"},
        {{{"resource", "peak_memory"}, {"max", 1}, {"unit", "GB"}, {"optinal", true}},
            "profile.json: criteria[0].optinal: unknown key; did you mean \"optional\"?"},
    };
    for (const auto& [criterion, expected] : cases)
        EXPECT_EQ(parseError(criterion), expected) << criterion.dump();
}

// ---- judging ----------------------------------------------------------------------------------

TEST(ResourceCriteriaJudge, BudgetPassesAndFailsOnThePeak)
{
    const RunResult r = twoArms();
    const Recommendation within = judge(r, both(70e9, 63.2e9), json::array({budget, ttft}));
    EXPECT_EQ(within.decision, Decision::Switch) << toJson(within).dump(1);
    const CriterionResult& ok = within.criteria.at(0);
    EXPECT_EQ(ok.outcome, Outcome::Pass);
    EXPECT_EQ(ok.required, QStringLiteral("≤ 110 GB"));
    EXPECT_EQ(ok.measured, QStringLiteral("63.2 GB (42 samples)"));
    EXPECT_TRUE(ok.explanation.contains(QStringLiteral("DCGM_FI_DEV_FB_USED @ http://10.0.0.5:9400/metrics")))
        << ok.explanation.toStdString();
    EXPECT_EQ(within.headline, QStringLiteral("Switch from Q4_K_M to NVFP4: it meets all 2 criteria"));

    const Recommendation over = judge(r, both(70e9, 118e9), json::array({budget, ttft}));
    EXPECT_EQ(over.decision, Decision::KeepBaseline);
    EXPECT_EQ(over.criteria.at(0).outcome, Outcome::Fail);
    ASSERT_EQ(over.whatWouldChange.size(), 1);
    EXPECT_TRUE(over.whatWouldChange[0].startsWith(QStringLiteral(
        "NVFP4's peak memory is 118 GB and must be ≤ 110 GB (8.00 GB less): reserve less memory")))
        << over.whatWouldChange[0].toStdString();
}

TEST(ResourceCriteriaJudge, OptionalWithoutTelemetryIsNotMeasuredAndDecidesNothing)
{
    const RunResult r = twoArms();
    const Recommendation rec = judge(r, ResourceReport {}, json::array({budget, energy, ttft}));
    EXPECT_EQ(rec.decision, Decision::Switch) << toJson(rec).dump(1); // as without the criteria
    EXPECT_EQ(rec.criteria.at(0).outcome, Outcome::NotMeasured);
    EXPECT_EQ(rec.criteria.at(1).outcome, Outcome::NotMeasured);
    EXPECT_EQ(rec.criteria.at(2).outcome, Outcome::Pass);
    EXPECT_EQ(rec.criteria.at(0).measured, QStringLiteral("not measured on NVFP4"));
    EXPECT_EQ(rec.headline,
        QStringLiteral(
            "Switch from Q4_K_M to NVFP4: it meets all 1 criteria that were measured; not measured: "
            "Peak memory within 110 GB, energy per token not worse than the baseline (≤ +5 %)"));
    ASSERT_EQ(rec.whatWouldChange.size(), 2);
    EXPECT_EQ(rec.whatWouldChange[0],
        QStringLiteral(
            "Peak memory within 110 GB not measured on NVFP4 (no server telemetry was collected in "
            "this run): give the endpoint metrics=URL of a DCGM exporter (GPU memory, :9400/metrics) "
            "or a node exporter (host memory, what unified-memory machines such as the DGX Spark "
            "report; :9100/metrics)."));
    EXPECT_EQ(outcomeId(Outcome::NotMeasured), QStringLiteral("not_measured"));
    EXPECT_EQ(toJson(rec.criteria.at(0)).at("outcome"), "not_measured");
    EXPECT_EQ(toJson(rec).at("decision"), "switch");

    // A failure elsewhere still keeps the baseline; the unmeasured ones come last in what would change.
    json slow = ttft;
    slow["max"] = 50;
    const Recommendation keep = judge(r, ResourceReport {}, json::array({budget, slow}));
    EXPECT_EQ(keep.decision, Decision::KeepBaseline);
    EXPECT_TRUE(keep.headline.startsWith(QStringLiteral("Keep Q4_K_M: NVFP4 fails 1 of 2 criteria")));
    EXPECT_TRUE(keep.headline.endsWith(QStringLiteral("; not measured: Peak memory within 110 GB")));
    ASSERT_EQ(keep.whatWouldChange.size(), 2);
    EXPECT_TRUE(keep.whatWouldChange[1].startsWith(QStringLiteral("Peak memory within 110 GB not measured")));
}

TEST(ResourceCriteriaJudge, RequiredWithoutDataIsInconclusive)
{
    const RunResult r = twoArms();
    json required = budget;
    required.erase("optional");
    const Recommendation rec = judge(r, ResourceReport {}, json::array({required, ttft}));
    EXPECT_EQ(rec.decision, Decision::Inconclusive);
    EXPECT_EQ(rec.criteria.at(0).outcome, Outcome::Inconclusive);

    // Telemetry, but only the runtime's own page: it reports no memory.
    ResourceReport runtimeOnly;
    runtimeOnly.collected = true;
    for (int e = 0; e < 2; ++e) {
        EndpointResources er;
        er.endpoint = e;
        er.sources = {QStringLiteral("http://10.0.0.5:8000/metrics")};
        runtimeOnly.endpoints.push_back(er);
    }
    const CriterionResult c = judge(r, runtimeOnly, json::array({required})).criteria.at(0);
    EXPECT_EQ(c.outcome, Outcome::Inconclusive);
    EXPECT_TRUE(c.explanation.contains(QStringLiteral("a runtime's own /metrics has none")))
        << c.explanation.toStdString();
}

TEST(ResourceCriteriaJudge, EnergyNotWorseUsesTheMarginAndTheFiguresUncertainty)
{
    // Each figure ±1 %: the ratio's interval is about ±2.8 %, against the 1.05 margin.
    const RunResult r = twoArms();
    const CriterionResult same = judge(r, both(70e9, 70e9, 0.80, 0.80), json::array({energy})).criteria.at(0);
    EXPECT_EQ(same.outcome, Outcome::Pass) << same.explanation.toStdString();
    EXPECT_TRUE(
        same.measured.startsWith(QStringLiteral("0.800 J/token vs 0.800 J/token (ratio 1) [0.973–1.03]")))
        << same.measured.toStdString();
    EXPECT_EQ(same.required, QStringLiteral("≤ 1.05× the baseline's"));
    const CriterionResult close
        = judge(r, both(70e9, 70e9, 0.80, 0.84), json::array({energy})).criteria.at(0);
    EXPECT_EQ(close.outcome, Outcome::Inconclusive) << "5 % more, ±2.8 %: the figures cannot tell";
    const Recommendation worse = judge(r, both(70e9, 70e9, 0.80, 0.90), json::array({energy}));
    EXPECT_EQ(worse.criteria.at(0).outcome, Outcome::Fail);
    EXPECT_LT(worse.criteria.at(0).pBeyond, 1e-5);
    EXPECT_EQ(worse.decision, Decision::KeepBaseline);
    EXPECT_TRUE(worse.whatWouldChange.at(0).contains(QStringLiteral("--enforce-eager")));

    // A run too short to estimate the uncertainty cannot settle it.
    ResourceReport brief = both(70e9, 70e9, 0.80, 0.80);
    brief.endpoints[1].energyPerToken.uncertainty = {};
    EXPECT_EQ(judge(r, brief, json::array({energy})).criteria.at(0).outcome, Outcome::Inconclusive);

    // The baseline's figure is missing: named, and not measured.
    ResourceReport half = both(70e9, 70e9, 0.80, 0.84);
    half.endpoints[0].energyPerToken = {};
    const CriterionResult open = judge(r, half, json::array({energy})).criteria.at(0);
    EXPECT_EQ(open.outcome, Outcome::NotMeasured);
    EXPECT_EQ(open.measured, QStringLiteral("not measured on Q4_K_M"));
    EXPECT_TRUE(open.explanation.contains(QStringLiteral("DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION")));
}

TEST(ResourceCriteriaJudge, MemoryAtConcurrencyPicksTheLevel)
{
    const RunResult r = twoArms();
    const json highest = {{"resource", "memory_at_concurrency"}, {"max", 100}, {"unit", "GB"}};
    const CriterionResult top = judge(r, both(70e9, 90e9), json::array({highest})).criteria.at(0);
    EXPECT_EQ(top.outcome, Outcome::Pass);
    EXPECT_EQ(top.measured, QStringLiteral("90.0 GB (12 samples)")); // level 4: the peak itself
    json atOne = highest;
    atOne["concurrency"] = 1;
    atOne["max"] = 85;
    const CriterionResult one = judge(r, both(70e9, 90e9), json::array({atOne})).criteria.at(0);
    EXPECT_EQ(one.outcome, Outcome::Fail); // 0.95 × 90 GB = 85.5 GB
    json atFive = highest;
    atFive["concurrency"] = 5;
    const CriterionResult five = judge(r, both(70e9, 90e9), json::array({atFive})).criteria.at(0);
    EXPECT_EQ(five.outcome, Outcome::Inconclusive);
    EXPECT_TRUE(five.explanation.contains(
        QStringLiteral("no memory sample while 5 of its requests were in flight (measured at: 1, 4)")))
        << five.explanation.toStdString();
}
