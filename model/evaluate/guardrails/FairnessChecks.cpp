// SPDX-License-Identifier: MIT
#include "model/evaluate/guardrails/GuardrailCheck.h"

#include <QUrl>
#include <algorithm>
#include <map>
#include <set>

namespace qs::guardrails {

namespace {

/// Thinking-related request fields, e.g. {"chat_template_kwargs.enable_thinking": false}.
json thinkingSettings(const json& body)
{
    json sig = json::object();
    if (!body.is_object())
        return sig;
    if (body.contains("chat_template_kwargs") && body["chat_template_kwargs"].is_object())
        for (const char* key : {"enable_thinking", "thinking", "reasoning_effort", "thinking_budget"})
            if (body["chat_template_kwargs"].contains(key))
                sig[std::string("chat_template_kwargs.") + key] = body["chat_template_kwargs"][key];
    for (const char* key :
        {"reasoning_effort", "reasoning", "thinking", "think", "thinking_budget", "reasoning_budget"})
        if (body.contains(key))
            sig[key] = body[key];
    return sig;
}

QString dumpValue(const json& v)
{
    return QString::fromStdString(v.dump());
}

QString settingsText(const json& sig)
{
    if (sig.empty())
        return QStringLiteral("nothing");
    QStringList parts;
    for (auto it = sig.begin(); it != sig.end(); ++it)
        parts << QString::fromStdString(it.key()) + u'=' + dumpValue(it.value());
    return parts.join(QStringLiteral(", "));
}

/// The first measured request body per (arm, test).
std::map<std::pair<int, QString>, const json*> firstBodies(const Context& ctx)
{
    std::map<std::pair<int, QString>, const json*> bodies;
    for (int e : ctx.arms)
        for (const RunRecord* r : ctx.measured[std::size_t(e)])
            bodies.emplace(std::make_pair(e, r->test), &*r->request.requestBody);
    return bodies;
}

/// Per test, each arm's value of `settings(body)`, compared with the first arm that ran the test.
Finding compareSettingsPerTest(const Context& ctx, json (*settings)(const json&))
{
    Finding found;
    const auto bodies = firstBodies(ctx);
    std::map<QString, QStringList> byDifference;
    QStringList order;
    for (const QString& test : ctx.tests) {
        std::vector<std::pair<int, json>> perArm;
        for (int e : ctx.arms) {
            const auto it = bodies.find({e, test});
            if (it != bodies.end())
                perArm.emplace_back(e, settings(*it->second));
        }
        if (perArm.size() < 2)
            continue;
        QStringList diffs;
        for (std::size_t i = 1; i < perArm.size(); ++i) {
            if (perArm[i].second == perArm[0].second)
                continue;
            // Only the keys that differ, so the evidence reads "temperature=0.7 vs 0".
            json a = json::object(), b = json::object();
            for (auto it = perArm[0].second.begin(); it != perArm[0].second.end(); ++it)
                if (!perArm[i].second.contains(it.key()) || perArm[i].second[it.key()] != it.value())
                    a[it.key()] = it.value();
            for (auto it = perArm[i].second.begin(); it != perArm[i].second.end(); ++it)
                if (!perArm[0].second.contains(it.key()) || perArm[0].second[it.key()] != it.value())
                    b[it.key()] = it.value();
            diffs << QStringLiteral("%1 sends %2, %3 sends %4")
                         .arg(ctx.name(perArm[0].first), settingsText(a), ctx.name(perArm[i].first),
                             settingsText(b));
            found.endpoints.push_back(perArm[0].first);
            found.endpoints.push_back(perArm[i].first);
        }
        if (diffs.isEmpty())
            continue;
        const QString text = diffs.join(QStringLiteral("; "));
        byDifference[text] << test;
        addUnique(order, text);
        addUnique(found.tests, test);
    }
    // Tests with the same difference share one line ("tests factual, weather: …").
    for (const QString& text : order) {
        const QStringList& t = byDifference[text];
        found.evidence << QStringLiteral("%1 %2: %3")
                              .arg(t.size() == 1 ? QStringLiteral("test") : QStringLiteral("tests"),
                                  t.join(QStringLiteral(", ")), text);
    }
    return found;
}

json samplingSettings(const json& body)
{
    json sig = json::object();
    if (!body.is_object())
        return sig;
    for (const char* key : {"max_tokens", "max_completion_tokens", "n_predict", "temperature", "top_p",
             "top_k", "min_p", "typical_p", "seed", "presence_penalty", "frequency_penalty",
             "repetition_penalty", "repeat_penalty", "stop", "n", "ignore_eos", "response_format",
             "tool_choice", "logprobs", "top_logprobs", "cache_prompt", "stream_options"})
        if (body.contains(key))
            sig[key] = body[key];
    // llama-server's native n_probs returns the same OpenAI-shaped logprobs; buildChatBody sends
    // it instead of logprobs + top_logprobs where llama-server refuses those (tools in a stream).
    if (body.contains("n_probs") && !body.contains("logprobs")) {
        sig["logprobs"] = true;
        sig["top_logprobs"] = body["n_probs"];
    }
    return sig;
}

// A cold suite (`"prefix_cache": "cold"`) salts every prompt and sends llama-server, which alone
// can be told per request, `cache_prompt: false`: the same cold prefill on every runtime, not a
// difference between the arms.
json samplingSettingsCold(const json& body)
{
    json sig = samplingSettings(body);
    if (sig.contains("cache_prompt") && sig["cache_prompt"] == false)
        sig.erase("cache_prompt");
    return sig;
}

QString hostKey(const QUrl& url)
{
    const QString h = url.host().toLower();
    if (h == u"localhost" || h.startsWith(QStringLiteral("127.")) || h == u"::1")
        return QStringLiteral("this machine");
    return h;
}

} // namespace

std::optional<Guardrail> checkThinkingDiffers(const Context& ctx)
{
    if (ctx.arms.size() < 2)
        return std::nullopt;
    Finding found = compareSettingsPerTest(ctx, &thinkingSettings);
    const bool settingsDiffer = !found.evidence.isEmpty();

    // Behaviour: one arm thought and another never did (server-side settings such as
    // llama-server --reasoning-budget 0 never appear in a request body).
    QStringList thinkers, silent;
    std::vector<int> thinkerArms, silentArms;
    for (int e : ctx.arms) {
        const auto done = ctx.completed(e);
        if (done.empty())
            continue;
        const auto n
            = std::count_if(done.begin(), done.end(), [](const RunRecord* r) { return thought(*r); });
        const QString text = QStringLiteral("%1 in %2/%3").arg(ctx.name(e)).arg(n).arg(done.size());
        if (n > 0) {
            thinkers << text;
            thinkerArms.push_back(e);
        } else {
            silent << text;
            silentArms.push_back(e);
        }
    }
    const bool behaviourDiffers = !thinkers.isEmpty() && !silent.isEmpty();
    if (behaviourDiffers) {
        found.evidence << QStringLiteral("measured requests with thinking: %1, %2")
                              .arg(thinkers.join(QStringLiteral(", ")), silent.join(QStringLiteral(", ")));
        found.endpoints.insert(found.endpoints.end(), thinkerArms.begin(), thinkerArms.end());
        found.endpoints.insert(found.endpoints.end(), silentArms.begin(), silentArms.end());
        for (int e : thinkerArms)
            for (const RunRecord* r : ctx.completed(e))
                if (thought(*r))
                    addUnique(found.tests, r->test);
    }
    return report(ctx, std::move(found), settingsDiffer ? Severity::Critical : Severity::Warning,
        settingsDiffer ? QStringLiteral("The arms were sent different thinking settings")
                       : QStringLiteral("One arm thinks and another does not"),
        QStringLiteral(
            "Thinking on one arm only turns a latency comparison into \"thinking vs not thinking\" "
            "(the seeds' v2: 3-16 s of thinking before the answer on one arm, none on the other). Send "
            "the same setting to every arm (the suite's \"thinking\": false sends "
            "chat_template_kwargs.enable_thinking=false) and check server-side switches (llama-server "
            "--reasoning-budget 0, a reasoning parser) match; a model that thinks although asked not "
            "to is a finding about that model."));
}

std::optional<Guardrail> checkRuntimes(const Context& ctx)
{
    std::set<Runtime> seen;
    QStringList parts;
    Finding found;
    for (int e : ctx.arms) {
        const Runtime rt = ctx.runtime(e);
        if (rt == Runtime::Unknown || rt == Runtime::Other)
            continue;
        seen.insert(rt);
        const QString version = jsonString(ctx.endpoint(e).probe, "server_version");
        parts << QStringLiteral("%1 %2%3").arg(ctx.name(e), runtimeName(rt),
            version.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(version));
        found.endpoints.push_back(e);
    }
    if (seen.size() < 2)
        return std::nullopt;
    found.evidence = parts;
    return report(ctx, std::move(found), Severity::Warning,
        QStringLiteral("Different runtimes: the comparison confounds runtime and quantization"),
        QStringLiteral(
            "TTFT, decode rate and output handling differ between runtimes by themselves (kernels, CUDA "
            "graphs or --enforce-eager, scheduling, chat-template and parser handling). This is the "
            "right comparison for a deployment decision, but do not attribute the differences to the "
            "quantization alone; to isolate it, serve both quantizations on one runtime."),
        QStringLiteral(", "));
}

std::optional<Guardrail> checkContextSizes(const Context& ctx)
{
    std::set<qint64> sizes;
    QStringList parts;
    Finding found;
    for (int e : ctx.arms) {
        const json& probe = ctx.endpoint(e).probe;
        const auto size = probe.find("context_size");
        if (size == probe.end() || !size->is_number_integer())
            continue;
        sizes.insert(size->get<qint64>());
        const QString source = jsonString(probe, "context_source");
        parts << QStringLiteral("%1 %2 tokens%3")
                     .arg(ctx.name(e))
                     .arg(size->get<qint64>())
                     .arg(source.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(source));
        found.endpoints.push_back(e);
    }
    if (sizes.size() < 2)
        return std::nullopt;
    found.evidence = parts;
    return report(ctx, std::move(found), Severity::Warning,
        QStringLiteral("The servers were started with different context sizes"),
        QStringLiteral(
            "The context size decides how much KV cache a server reserves, so the memory figures do not "
            "compare, and a long prompt that one server holds the other refuses or cuts. Start both with "
            "the size production uses (llama-server --ctx-size, per slot; vLLM --max-model-len; SGLang "
            "--context-length), e.g. 32768 as the seeds' assistant runs."),
        QStringLiteral(", "));
}

std::optional<Guardrail> checkSettings(const Context& ctx)
{
    if (ctx.arms.size() < 2)
        return std::nullopt;
    const bool cold = ctx.run.suite.is_object() && ctx.run.suite.value("prefix_cache", json()) == "cold";
    return report(ctx, compareSettingsPerTest(ctx, cold ? &samplingSettingsCold : &samplingSettings),
        Severity::Warning, QStringLiteral("The arms were sent different sampling or length settings"),
        QStringLiteral(
            "Different max_tokens, temperature or penalties change answer length and content, and so "
            "e2e time, token counts and quality. Remove the difference (usually an endpoint's "
            "extra_body) so that only the quantization differs."));
}

std::optional<Guardrail> checkConcurrency(const Context& ctx)
{
    if (ctx.arms.size() < 2)
        return std::nullopt;
    Finding found;
    for (const QString& test : ctx.tests) {
        std::vector<std::pair<int, std::set<int>>> perArm;
        for (int e : ctx.arms) {
            std::set<int> levels;
            for (const RunRecord* r : ctx.measured[std::size_t(e)])
                if (r->test == test)
                    levels.insert(r->concurrency);
            if (!levels.empty())
                perArm.emplace_back(e, levels);
        }
        QStringList parts;
        bool differs = false;
        for (const auto& [e, levels] : perArm) {
            differs = differs || levels != perArm.front().second;
            QStringList l;
            for (int level : levels)
                l << QString::number(level);
            parts << QStringLiteral("%1 at %2").arg(ctx.name(e), l.join(u'/'));
        }
        if (!differs)
            continue;
        found.evidence << QStringLiteral("test %1: %2").arg(test, parts.join(QStringLiteral(", ")));
        addUnique(found.tests, test);
        for (const auto& p : perArm)
            found.endpoints.push_back(p.first);
    }
    return report(ctx, std::move(found), Severity::Warning,
        QStringLiteral("The arms were measured at different concurrency"),
        QStringLiteral("Latency grows with requests in flight; compare arms at the same level only."));
}

std::optional<Guardrail> checkParallelHosts(const Context& ctx)
{
    if (ctx.run.settings.order != RunOrder::Parallel || ctx.arms.size() < 2)
        return std::nullopt;
    std::map<QString, std::vector<int>> byHost;
    for (int e : ctx.arms)
        // A simulated endpoint's timings are scheduled, not computed on a shared GPU: running it
        // beside another slows neither (the dashboard's demo runs its two in parallel).
        if (!ctx.endpoint(e).simulated)
            byHost[hostKey(ctx.endpoint(e).endpoint.baseUrl)].push_back(e);
    Finding found;
    for (const auto& [host, arms] : byHost) {
        if (arms.size() < 2)
            continue;
        QStringList names;
        for (int e : arms)
            names << ctx.name(e);
        found.evidence << QStringLiteral("%1 all run on %2").arg(names.join(QStringLiteral(", ")), host);
        found.endpoints.insert(found.endpoints.end(), arms.begin(), arms.end());
    }
    return report(ctx, std::move(found), Severity::Warning,
        QStringLiteral("Arms on the same machine ran in parallel"),
        QStringLiteral("Two servers on one GPU (or one host) slow each other down; use the interleaved order "
                       "unless the endpoints are on separate machines."));
}

} // namespace qs::guardrails
