// SPDX-License-Identifier: MIT
#include "model/evaluate/guardrails/GuardrailCheck.h"

#include <algorithm>
#include <set>
#include <unordered_map>

namespace qs::guardrails {

namespace {

bool cachePromptDisabled(const json& body)
{
    return body.is_object() && body.contains("cache_prompt") && body["cache_prompt"].is_boolean()
        && !body["cache_prompt"].get<bool>();
}

} // namespace

std::optional<Guardrail> checkReasoningInTtft(const Context& ctx)
{
    Finding found = perArm(ctx, [&ctx](int e, QStringList& tests) {
        const auto done = ctx.completed(e);
        int n = 0, leaked = 0, invisible = 0;
        std::vector<double> reasoning, any, visible;
        for (const RunRecord* r : done) {
            if (!thought(*r))
                continue;
            ++n;
            addUnique(tests, r->test);
            const RequestMetrics& m = r->request.metrics;
            leaked += m.thinkingInContent ? 1 : 0;
            if (!m.ttftVisibleMs)
                ++invisible;
            if (m.reasoningMs)
                reasoning.push_back(*m.reasoningMs);
            if (m.ttftAnyMs)
                any.push_back(*m.ttftAnyMs);
            if (m.ttftVisibleMs)
                visible.push_back(*m.ttftVisibleMs);
        }
        if (n == 0)
            return QString();
        QString line = QStringLiteral("%1: %2/%3 measured requests began with thinking")
                           .arg(ctx.name(e))
                           .arg(n)
                           .arg(done.size());
        if (leaked > 0)
            line += QStringLiteral(" (%1 leaked into content: no reasoning parser)").arg(leaked);
        if (!reasoning.empty())
            line += QStringLiteral("; median reasoning_ms %1 (ttft_any %2 vs ttft_visible %3)")
                        .arg(fmtMs(median(reasoning)), fmtMs(median(any)), fmtMs(median(visible)));
        if (invisible > 0)
            line
                += QStringLiteral("; %1 had no visible answer at all, so their only TTFT is a thinking token")
                       .arg(invisible);
        return line;
    });
    return report(ctx, std::move(found), Severity::Warning,
        QStringLiteral("TTFT (any token) includes thinking on some arms"),
        QStringLiteral(
            "Compare ttft_visible_ms (the first answer token, what a listener waits for), never "
            "ttft_any_ms, across these arms. The seeds' 82 ms \"TTFT\" was the first thinking token; "
            "the answer came seconds later. For a voice assistant, turn thinking off on every arm "
            "(chat_template_kwargs.enable_thinking=false, llama-server --reasoning-budget 0), and "
            "start servers with a reasoning parser (vLLM/SGLang --reasoning-parser qwen3) so thinking "
            "never lands in the answer."));
}

std::optional<Guardrail> checkFewRuns(const Context& ctx)
{
    Finding found = perArm(ctx, [&ctx](int e, QStringList& tests) {
        const auto g = groups(ctx.measured[std::size_t(e)]);
        std::set<int> levels;
        for (const auto& [k, v] : g)
            levels.insert(std::get<2>(k));
        // In the run's test order, then turn and level.
        std::vector<std::pair<GroupKey, std::vector<const RunRecord*>>> ordered(g.begin(), g.end());
        std::stable_sort(ordered.begin(), ordered.end(), [&ctx](const auto& a, const auto& b) {
            return ctx.tests.indexOf(std::get<0>(a.first)) < ctx.tests.indexOf(std::get<0>(b.first));
        });
        QStringList few;
        for (const auto& [k, records] : ordered) {
            const auto ok = std::count_if(
                records.begin(), records.end(), [](const RunRecord* r) { return r->request.ok(); });
            // No success at all: nothing to summarise; the failure guardrails explain why.
            if (ok == 0 || ok >= kMinRuns)
                continue;
            QString item = QStringLiteral("%1 n=%2").arg(groupName(k, levels.size() > 1)).arg(ok);
            if (qsizetype(records.size()) > ok)
                item += QStringLiteral(" (of %1)").arg(records.size());
            few << item;
            addUnique(tests, std::get<0>(k));
        }
        return few.isEmpty() ? QString() : QStringLiteral("%1: %2").arg(ctx.name(e), listed(few));
    });
    // A note, not a warning: repeats of one prompt only steady a test's own row (its median and
    // the cold-start check). The verdict counts distinct prompts (§9.7), and each criterion that
    // has too few says so itself, with how many would settle it.
    return report(ctx, std::move(found), Severity::Info,
        QStringLiteral("Fewer than %1 timing repeats per test").arg(kMinRuns),
        QStringLiteral(
            "A test's own row (one prompt's repeats) reads its median from these few timings, and one "
            "cold start can move it (the seeds' n=3); --runs %1 steadies those rows. The verdict does "
            "not count repeats: its evidence is the number of distinct prompts (methodology §9.7).")
            .arg(kMinRuns));
}

std::optional<Guardrail> checkColdStart(const Context& ctx)
{
    QStringList outliers, unwarmed;
    Finding found;
    for (int e : ctx.arms) {
        const auto& all = ctx.all[std::size_t(e)];
        if (!all.empty() && !all.front()->warmup) {
            unwarmed << ctx.name(e);
            found.endpoints.push_back(e);
        }
        for (const auto& [k, records] : groups(ctx.completed(e))) {
            if (records.size() < 3 || !records.front()->request.metrics.ttftAnyMs)
                continue;
            const double first = *records.front()->request.metrics.ttftAnyMs;
            std::vector<double> rest;
            int restCached = 0;
            for (std::size_t i = 1; i < records.size(); ++i) {
                if (records[i]->request.metrics.ttftAnyMs)
                    rest.push_back(*records[i]->request.metrics.ttftAnyMs);
                restCached += cachedShare(*records[i]).value_or(0) >= kCacheShare ? 1 : 0;
            }
            if (rest.size() < 2)
                continue;
            // The later runs were prefix-cache hits: the first is slower for a known reason (prefix_cache).
            if (restCached * 2 > int(rest.size()) && cachedShare(*records.front()).value_or(0) < kCacheShare)
                continue;
            const double m = median(rest);
            if (first > kColdFactor * m && first - m > kColdAbsoluteMs) {
                outliers << QStringLiteral(
                    "%1 %2 run %3: ttft_any %4 vs median %5 of the other %6 runs (%7×)")
                                .arg(ctx.name(e), groupName(k, false))
                                .arg(records.front()->iteration)
                                .arg(fmtMs(first), fmtMs(m))
                                .arg(rest.size())
                                .arg(m > 0 ? QString::number(first / m, 'f', 1) : QStringLiteral("∞"));
                addUnique(found.tests, std::get<0>(k));
                found.endpoints.push_back(e);
            }
        }
    }
    found.evidence = outliers;
    if (!unwarmed.isEmpty())
        found.evidence << QStringLiteral("no warm-up request before the first measured one on %1")
                              .arg(unwarmed.join(QStringLiteral(", ")));
    return report(ctx, std::move(found), outliers.isEmpty() ? Severity::Info : Severity::Warning,
        outliers.isEmpty()
            ? QStringLiteral("No warm-up before the first measured request")
            : QStringLiteral("A first measured request is far slower than the rest (cold start)"),
        QStringLiteral(
            "Keep warm-ups on (--warmup 2, the default): they absorb CUDA graph capture, kernel "
            "autotuning and first allocations, and never enter statistics. The seeds had cold starts "
            "of 9.3 s and 110 s inside n=3 statistics. Re-run, or drop the outlier run and say so."));
}

std::optional<Guardrail> checkPrefixCache(const Context& ctx)
{
    Finding found = perArm(ctx, [&ctx](int e, QStringList& tests) {
        std::set<std::string> seen;
        // Equal bodies are mostly one shared value (SharedJson, interned): each is written out once.
        std::unordered_map<const json*, std::string> keys;
        int withInfo = 0, hits = 0, repeats = 0;
        bool disabled = false;
        std::vector<double> shares, prompts;
        for (const RunRecord* r : ctx.all[std::size_t(e)]) {
            const json& body = r->request.requestBody;
            const bool hasMessages = body.is_object() && body.contains("messages");
            if (hasMessages && !keys.count(&body))
                keys.emplace(&body, body["messages"].dump());
            const std::string& key = hasMessages ? keys[&body] : keys[nullptr];
            const bool repeated = hasMessages ? !seen.insert(key).second : (r->iteration > 1 && r->turn == 1);
            if (r->warmup || !r->request.ok())
                continue;
            disabled = disabled || cachePromptDisabled(body);
            repeats += repeated ? 1 : 0;
            const auto share = cachedShare(*r);
            if (!share)
                continue;
            ++withInfo;
            if (repeated && *share >= kCacheShare) {
                ++hits;
                shares.push_back(*share);
                prompts.push_back(double(*r->request.metrics.promptTokens.value));
                addUnique(tests, r->test);
            }
        }
        if (hits >= 2 && hits * 5 >= withInfo)
            return QStringLiteral("%1: %2/%3 measured requests repeated an earlier prompt and found %4 of it "
                                  "cached (median of %5 prompt tokens)")
                .arg(ctx.name(e))
                .arg(hits)
                .arg(withInfo)
                .arg(fmtPercent(median(shares)))
                .arg(median(prompts));
        if (ctx.runtime(e) == Runtime::LlamaServer && withInfo == 0 && repeats >= 2 && !disabled)
            return QStringLiteral(
                "%1: llama-server caches prompts by default (cache_prompt: true) and %2 "
                "measured requests repeated an earlier prompt, but it reported no cache use "
                "(no timings.cache_n), so cache hits cannot be ruled out")
                .arg(ctx.name(e))
                .arg(repeats);
        return QString();
    });
    return report(ctx, std::move(found), Severity::Info,
        QStringLiteral("TTFT of repeated prompts measures a prefix-cache hit, not prefill"),
        QStringLiteral(
            "A cached system prompt and history are realistic for a voice assistant; a cached question "
            "is not. To measure prefill, send {\"cache_prompt\": false} in the endpoint's extra_body "
            "(llama-server), start vLLM with --no-enable-prefix-caching or SGLang with "
            "--disable-radix-cache, or compare run 1 of each test only."));
}

std::optional<Guardrail> checkSimulated(const Context& ctx)
{
    QStringList names;
    Finding found;
    for (std::size_t i = 0; i < ctx.run.endpoints.size(); ++i) {
        const RunEndpoint& e = ctx.run.endpoints[i];
        if (e.simulated || e.spec.startsWith(QStringLiteral("sim:"))) {
            names << ctx.name(int(i));
            found.endpoints.push_back(int(i));
        }
    }
    if (!names.isEmpty())
        found.evidence << QStringLiteral(
            "%1 %2 simulated: Quantscope's loopback emulator with timing shaped like the seeds' "
            "measurements; no model ran")
                              .arg(names.join(QStringLiteral(", ")),
                                  names.size() == 1 ? QStringLiteral("is") : QStringLiteral("are"));
    return report(ctx, std::move(found), Severity::Info, QStringLiteral("Numbers are from a simulator"),
        QStringLiteral(
            "Use simulated endpoints to learn the tool; decide on NVFP4 vs Q4_K_M only from real servers."));
}

} // namespace qs::guardrails
