// SPDX-License-Identifier: MIT
// The guardrails read from the servers' own metrics: the clean comparison gets telemetry that
// agrees with its records, and each test spoils it in exactly one way.
#include "GuardrailTestSupport.h"
#include "model/evaluate/ResourceParts.h"
#include "tests/stats/TelemetryTestSupport.h"

#include <gtest/gtest.h>

using namespace qs;
using namespace qs::test;
using Phase = TelemetrySample::Phase;

namespace {

constexpr double MiB = 1048576.0;

bool contains(const QString& haystack, const char* needle)
{
    return haystack.contains(QString::fromUtf8(needle));
}

using Tweak = std::function<void(
    int endpoint, double at, Phase phase, std::vector<Value>& runtime, std::vector<Value>& dcgm)>;

/// Telemetry that agrees with the run's records: per endpoint a vLLM /metrics whose gauges follow
/// the requests in flight and whose counters count the client's tokens as each request ends, and
/// a DCGM exporter (20 of 24 GiB used, 100 W). Samples every 250 ms; idle baselines 0.1 s before
/// the first request and 1.5 s after the last.
void addTelemetry(RunResult& run, const Tweak& tweak = {})
{
    TelemetryBuilder b(run.telemetry);
    double first = 1e300, last = 0;
    for (const RunRecord& r : run.records) {
        const resources::Interval i = resources::requestInterval(r);
        first = std::min(first, i.startMs);
        last = std::max(last, i.endMs);
    }
    for (int e = 0; e < int(run.endpoints.size()); ++e) {
        const QString host = QStringLiteral("http://10.0.0.%1").arg(e + 1);
        const int runtime
            = b.source(e, host + QStringLiteral(":8000/metrics"), TelemetrySource::Kind::Runtime);
        const int dcgm = b.source(e, host + QStringLiteral(":9400/metrics"));
        std::vector<std::pair<double, Phase>> times {{first - 100, Phase::IdleBefore}};
        for (double t = first + 50; t < last; t += 250)
            times.emplace_back(t, Phase::Run);
        times.emplace_back(last + 1500, Phase::IdleAfter);
        for (const auto& [t, phase] : times) {
            double running = 0, generated = 1000, prompt = 5000;
            for (const RunRecord& r : run.records) {
                if (r.endpoint != e)
                    continue;
                const resources::Interval i = resources::requestInterval(r);
                running += (t >= i.startMs && t <= i.endMs) ? 1 : 0;
                if (i.endMs <= t) {
                    generated += double(*r.request.metrics.completionTokens.value);
                    prompt += double(*r.request.metrics.promptTokens.value);
                }
            }
            std::vector<Value> rt {{QStringLiteral("vllm:num_requests_running"), running},
                {QStringLiteral("vllm:num_requests_waiting"), 0},
                {QStringLiteral("vllm:generation_tokens_total"), generated},
                {QStringLiteral("vllm:prompt_tokens_total"), prompt},
                {QStringLiteral("vllm:num_preemptions_total"), 0},
                {QStringLiteral("vllm:kv_cache_usage_perc"), running > 0 ? 0.3 : 0.0}};
            std::vector<Value> gpu {{QStringLiteral("DCGM_FI_DEV_FB_USED"), 20480},
                {QStringLiteral("DCGM_FI_DEV_FB_FREE"), 4096},
                {QStringLiteral("DCGM_FI_DEV_POWER_USAGE"), 100}};
            if (tweak)
                tweak(e, t, phase, rt, gpu);
            b.sample(runtime, t, phase, rt);
            b.sample(dcgm, t, phase, gpu);
        }
    }
}

RunBuilder withTelemetry(const Tweak& tweak = {})
{
    RunBuilder b = cleanRun();
    addTelemetry(b.run, tweak);
    return b;
}

Value* named(std::vector<Value>& values, const char* name)
{
    for (Value& v : values)
        if (v.name == QLatin1String(name))
            return &v;
    return nullptr;
}

} // namespace

TEST(ServerGuardrails, TelemetryThatAgreesWithTheRecordsTriggersNothing)
{
    const auto g = checkGuardrails(withTelemetry().run);
    EXPECT_TRUE(g.empty()) << describe(g);
}

TEST(ServerGuardrails, MoreTokensOnTheServerThanTheClientRecorded)
{
    const auto g
        = checkGuardrails(withTelemetry([](int e, double, Phase phase, std::vector<Value>& rt, auto&) {
              if (e == 1 && phase == Phase::IdleAfter)
                  named(rt, "vllm:generation_tokens_total")->value += 50; // a second client's answer
          }).run);
    ASSERT_EQ(ids(g), QStringList {QStringLiteral("server_token_mismatch")}) << describe(g);
    EXPECT_EQ(g[0].endpoints, std::vector<int> {1});
    EXPECT_TRUE(contains(g[0].evidence, "\"NVFP4\": generated tokens: server "))
        << g[0].evidence.toStdString();
    EXPECT_TRUE(contains(g[0].evidence, "(+50)")) << g[0].evidence.toStdString();
}

TEST(ServerGuardrails, PromptTokensAreComparedToo)
{
    const auto g
        = checkGuardrails(withTelemetry([](int e, double, Phase phase, std::vector<Value>& rt, auto&) {
              if (e == 0 && phase == Phase::IdleAfter)
                  named(rt, "vllm:prompt_tokens_total")->value += 100;
          }).run);
    ASSERT_EQ(ids(g), QStringList {QStringLiteral("server_token_mismatch")}) << describe(g);
    EXPECT_TRUE(contains(g[0].evidence, "prompt tokens: server ")) << g[0].evidence.toStdString();
    EXPECT_TRUE(contains(g[0].evidence, "(+100)")) << g[0].evidence.toStdString();
}

TEST(ServerGuardrails, SixSignificantDigitsAreAllowedTheirRounding)
{
    // llama-server prints 1000523 as 1.00052e+06: Δ is exact only to ±10.
    const auto printed = [](double v) { return QString::number(v, 'g', 6).toDouble(); };
    const auto run = [&](double extra) {
        return withTelemetry([&](int, double, Phase phase, std::vector<Value>& rt, auto&) {
            Value* g = named(rt, "vllm:generation_tokens_total");
            g->value = printed(g->value + 1e6 - 1000 + (phase == Phase::IdleAfter ? extra : 0));
        }).run;
    };
    const auto clean = checkGuardrails(run(0));
    EXPECT_TRUE(clean.empty()) << describe(clean);
    const auto g = checkGuardrails(run(40));
    ASSERT_EQ(ids(g), QStringList {QStringLiteral("server_token_mismatch")}) << describe(g);
    EXPECT_TRUE(contains(g[0].evidence, "printed to ±10")) << g[0].evidence.toStdString();
}

TEST(ServerGuardrails, RequestsWaitingThatWereNotOursMeanAnotherClient)
{
    // Our own request waiting for a scheduler step is not someone else.
    const auto own = checkGuardrails(withTelemetry([](int e, double, Phase, std::vector<Value>& rt, auto&) {
        Value* running = named(rt, "vllm:num_requests_running");
        if (e == 0 && running->value == 1) {
            running->value = 0;
            named(rt, "vllm:num_requests_waiting")->value = 1;
        }
    }).run);
    EXPECT_TRUE(own.empty()) << describe(own);
    const auto g
        = checkGuardrails(withTelemetry([](int e, double, Phase phase, std::vector<Value>& rt, auto&) {
              if (e == 0 && phase == Phase::IdleAfter)
                  named(rt, "vllm:num_requests_waiting")->value = 2;
          }).run);
    ASSERT_EQ(ids(g), QStringList {QStringLiteral("server_queueing")}) << describe(g);
    EXPECT_EQ(g[0].endpoints, std::vector<int> {0});
    EXPECT_TRUE(contains(g[0].evidence, "0 running + 2 waiting requests while Quantscope had 0 in flight"))
        << g[0].evidence.toStdString();
}

TEST(ServerGuardrails, PreemptionsKvCacheAndRestart)
{
    const auto pre
        = checkGuardrails(withTelemetry([](int e, double, Phase phase, std::vector<Value>& rt, auto&) {
              if (e == 1 && phase == Phase::IdleAfter)
                  named(rt, "vllm:num_preemptions_total")->value = 3;
          }).run);
    ASSERT_EQ(ids(pre), QStringList {QStringLiteral("server_preemptions")}) << describe(pre);
    EXPECT_TRUE(contains(pre[0].evidence, "\"NVFP4\": 3 requests preempted"));

    const auto kv = [](double peak) {
        return checkGuardrails(withTelemetry([peak](int e, double, Phase, std::vector<Value>& rt, auto&) {
            Value* v = named(rt, "vllm:kv_cache_usage_perc");
            if (e == 0 && v->value > 0)
                v->value = peak;
        }).run);
    };
    EXPECT_TRUE(kv(0.94).empty()) << describe(kv(0.94));
    const auto full = kv(0.97);
    ASSERT_EQ(ids(full), QStringList {QStringLiteral("kv_cache_near_full")}) << describe(full);
    EXPECT_TRUE(contains(full[0].evidence, "peaked at 97 %"));

    const auto restart
        = checkGuardrails(withTelemetry([](int e, double t, Phase, std::vector<Value>& rt, auto&) {
              if (e == 0 && t > 20000)
                  named(rt, "vllm:generation_tokens_total")->value -= 900;
          }).run);
    ASSERT_EQ(ids(restart), QStringList {QStringLiteral("server_restarted")}) << describe(restart);
    EXPECT_TRUE(contains(restart[0].evidence, "vllm:generation_tokens_total went down"));
}

TEST(ServerGuardrails, IdleMemoryThatGrewBeyondAGibibyte)
{
    const auto grew = [](double mib) {
        return checkGuardrails(
            withTelemetry([mib](int e, double, Phase phase, auto&, std::vector<Value>& gpu) {
                if (e == 1 && phase == Phase::IdleAfter) {
                    named(gpu, "DCGM_FI_DEV_FB_USED")->value += mib;
                    named(gpu, "DCGM_FI_DEV_FB_FREE")->value -= mib;
                }
            }).run);
    };
    EXPECT_TRUE(grew(900).empty()) << describe(grew(900));
    const auto g = grew(1536);
    ASSERT_EQ(ids(g), QStringList {QStringLiteral("memory_grew")}) << describe(g);
    EXPECT_TRUE(
        contains(g[0].evidence, "GPU memory at idle 20.0 GiB before the run, 21.5 GiB after (+1.5 GiB"))
        << g[0].evidence.toStdString();
    (void)MiB;
}

TEST(ServerGuardrails, FailedScrapesAreInformational)
{
    RunBuilder b = withTelemetry();
    for (TelemetrySample& s : b.run.telemetry.samples)
        if (s.source == 1 && s.phase == Phase::Run && s.atMs > 5000 && s.atMs <= 6000) {
            s.values.clear();
            s.error = QStringLiteral("timed out after 1000 ms");
        }
    const auto g = checkGuardrails(b.run);
    ASSERT_EQ(ids(g), QStringList {QStringLiteral("telemetry_gaps")}) << describe(g);
    EXPECT_EQ(g[0].severity, Guardrail::Severity::Info);
    EXPECT_TRUE(
        contains(g[0].evidence, "\"FP8\": 4 failed scrapes (http://10.0.0.1:9400/metrics failed 4 times"))
        << g[0].evidence.toStdString();
}
