// SPDX-License-Identifier: MIT
#pragma once

// Hand-built runs for the guardrail unit tests: a clean, fair comparison that each test then
// spoils in exactly one way.
#include "model/evaluate/Guardrails.h"

#include <QStringList>
#include <functional>

namespace qs::test {

inline QStringList ids(const std::vector<Guardrail>& guardrails)
{
    QStringList out;
    for (const Guardrail& g : guardrails)
        out << g.id;
    return out;
}

inline const Guardrail* find(const std::vector<Guardrail>& guardrails, const char* id)
{
    for (const Guardrail& g : guardrails)
        if (g.id == QLatin1String(id))
            return &g;
    return nullptr;
}

/// For gtest messages: every guardrail with its evidence.
inline std::string describe(const std::vector<Guardrail>& guardrails)
{
    std::string out;
    for (const Guardrail& g : guardrails)
        out += "\n  [" + severityId(g.severity).toStdString() + "] " + g.id.toStdString() + ": "
            + g.evidence.toStdString();
    return out.empty() ? std::string("\n  (none)") : out;
}

struct ArmSpec {
    ArmSpec(QString label_, QString model_, Runtime runtime_ = Runtime::Vllm, QString modelPath_ = {},
        QString host_ = QStringLiteral("10.0.0.1"))
        : label(std::move(label_))
        , model(std::move(model_))
        , runtime(runtime_)
        , modelPath(std::move(modelPath_))
        , host(std::move(host_))
    {
    }
    QString label;
    QString model;
    Runtime runtime;
    QString modelPath; ///< empty = the model id (vLLM /v1/models root)
    QString host;
};

inline RunEndpoint makeEndpoint(const ArmSpec& spec)
{
    RunEndpoint e;
    e.endpoint.label = spec.label;
    e.endpoint.model = spec.model;
    e.endpoint.runtime = spec.runtime;
    e.endpoint.baseUrl = QUrl(QStringLiteral("http://%1:8000").arg(spec.host));
    e.spec = e.endpoint.baseUrl.toString();
    const std::string rt = runtimeName(spec.runtime).toStdString();
    e.probe = {{"usable", true}, {"runtime", rt}, {"runtime_evidence", "/v1/models owned_by"},
        {"model", spec.model.toStdString()}, {"models", {spec.model.toStdString()}}, {"model_listed", true},
        {"model_path", (spec.modelPath.isEmpty() ? spec.model : spec.modelPath).toStdString()},
        {"server_version", spec.runtime == Runtime::LlamaServer ? "b9478" : "0.17.1"},
        {"tool_call_parser", ""}, {"reasoning_parser", ""}, {"warnings", nlohmann::json::array()}};
    return e;
}

/// Builds runs record by record, with a clean default for every field the guardrails read.
class RunBuilder {
public:
    RunResult run;

    RunBuilder()
    {
        run.complete = true;
        run.suite = {{"id", "hand-built"}};
    }

    int addEndpoint(const ArmSpec& spec)
    {
        run.endpoints.push_back(makeEndpoint(spec));
        return int(run.endpoints.size()) - 1;
    }

    /// A successful plain-text answer. Single-turn tests ask the same question every run (as the
    /// runner does); warm-ups ask something else.
    RunRecord& text(
        int endpoint, const QString& test, int iteration, bool warmup, double ttftMs, int turn = 1)
    {
        RunRecord& r = base(endpoint, test, iteration, warmup, turn);
        RequestRecord& q = r.request;
        q.response.content = QStringLiteral("Tokyo is the capital of Japan.");
        q.response.finishReason = QStringLiteral("stop");
        q.response.usage = TokenUsage {100, 20, 120, std::nullopt, std::nullopt};
        if (runtimeOf(endpoint) == Runtime::LlamaServer) {
            ServerTimings t;
            t.cacheN = 0;
            t.promptN = 100;
            t.predictedN = 20;
            q.response.timings = t;
            q.metrics.cachedPromptTokens = {0, CountSource::ServerTimings};
        }
        q.metrics.ttftAnyMs = ttftMs;
        q.metrics.ttftVisibleMs = ttftMs;
        q.metrics.reasoningMs = 0;
        q.metrics.e2eMs = ttftMs + 500;
        q.metrics.decodeTps = 19 / 0.5;
        q.metrics.promptTokens = {100, CountSource::ServerUsage};
        q.metrics.completionTokens = {20, CountSource::ServerUsage};
        q.metrics.reasoningTokens = {0, CountSource::Estimate};
        q.metrics.tokenEvents = 20;
        return r;
    }

    /// A successful tool call through the API's tool_calls channel.
    RunRecord& tool(int endpoint, const QString& test, int iteration, bool warmup, double ttftMs)
    {
        RunRecord& r = text(endpoint, test, iteration, warmup, ttftMs);
        RequestRecord& q = r.request;
        q.requestBody.edit()["tools"] = nlohmann::json::array({{{"type", "function"},
            {"function", {{"name", "web_search"}, {"parameters", {{"type", "object"}}}}}}});
        q.response.content.clear();
        q.response.toolCalls = {ToolCall {0, QStringLiteral("call_1"), QStringLiteral("function"),
            QStringLiteral("web_search"), QStringLiteral("{\"query\": \"Paris weather\"}")}};
        q.response.finishReason = QStringLiteral("tool_calls");
        q.metrics.tokenEvents = 4; // a tool-call parser buffers: 18 tokens in 4 events
        q.response.usage->completionTokens = 18;
        if (q.response.timings)
            q.response.timings->predictedN = 18;
        q.metrics.completionTokens = {18, CountSource::ServerUsage};
        return r;
    }

    /// The standard clean suite: factual, weather (tools) and a 2-turn chat; 2 warm-ups per test
    /// and 5 measured runs, interleaved between the arms.
    void standardTests(
        int warmups = 2, int runs = 5, const std::function<double(int endpoint, int run)>& ttft = {})
    {
        const auto t = [&](int e, int i) { return ttft ? ttft(e, i) : 300.0 - 200.0 * e + 3.0 * (i % 3); };
        const int arms = int(run.endpoints.size());
        for (const char* testId : {"factual", "weather", "chat"}) {
            const QString test = QString::fromLatin1(testId);
            for (int e = 0; e < arms; ++e)
                for (int w = 1; w <= warmups; ++w)
                    add(e, test, w, true, t(e, 0));
            for (int i = 1; i <= runs; ++i) {
                for (int k = 0; k < arms; ++k) {
                    const int e = (i % 2 == 0) ? arms - 1 - k : k; // A B, B A, …
                    add(e, test, i, false, t(e, i));
                    if (test == u"chat")
                        text(e, test, i, false, t(e, i) * 1.5, 2);
                }
            }
        }
    }

    /// Applies `f` to every record of one endpoint (measured only unless `warmups`).
    void forEach(int endpoint, const std::function<void(RunRecord&)>& f, bool warmups = false)
    {
        for (RunRecord& r : run.records)
            if (r.endpoint == endpoint && (warmups || !r.warmup))
                f(r);
    }

private:
    double m_offset = 0;

    Runtime runtimeOf(int endpoint) const { return run.endpoints[std::size_t(endpoint)].endpoint.runtime; }

    void add(int e, const QString& test, int i, bool warmup, double ttft)
    {
        if (test == u"weather")
            tool(e, test, i, warmup, ttft);
        else
            text(e, test, i, warmup, ttft);
    }

    RunRecord& base(int endpoint, const QString& test, int iteration, bool warmup, int turn)
    {
        RunRecord r;
        r.endpoint = endpoint;
        r.test = test;
        r.turn = turn;
        r.iteration = iteration;
        r.warmup = warmup;
        r.startOffsetMs = (m_offset += 700);
        const RunEndpoint& e = run.endpoints[std::size_t(endpoint)];
        RequestRecord& q = r.request;
        q.endpointLabel = e.endpoint.label;
        q.url = e.endpoint.url(QStringLiteral("/v1/chat/completions"));
        nlohmann::json messages = nlohmann::json::array({{{"role", "system"}, {"content", "Be brief."}}});
        const std::string question
            = warmup ? "warm-up " + std::to_string(iteration) : "question of " + test.toStdString();
        messages.push_back({{"role", "user"}, {"content", question}});
        if (turn > 1) {
            messages.push_back({{"role", "assistant"}, {"content", "Tokyo is the capital of Japan."}});
            messages.push_back({{"role", "user"}, {"content", "And of France?"}});
        }
        q.requestBody = {{"model", e.endpoint.model.toStdString()}, {"messages", messages}, {"stream", true},
            {"stream_options", {{"include_usage", true}}}, {"max_tokens", 256}, {"temperature", 0.0},
            {"chat_template_kwargs", {{"enable_thinking", false}}}};
        q.httpStatus = 200;
        run.records.push_back(std::move(r));
        return run.records.back();
    }
};

/// Two arms of the same model in two quantizations, on one runtime, measured properly.
inline RunBuilder cleanRun(Runtime runtime = Runtime::Vllm)
{
    RunBuilder b;
    if (runtime == Runtime::LlamaServer) {
        b.addEndpoint({QStringLiteral("Q8_0"), QStringLiteral("qwen3.5-9b"), runtime,
            QStringLiteral("/home/me/models/Qwen3.5-9B-Claude-Opus-Distilled-Q8_0.gguf"),
            QStringLiteral("10.0.0.1")});
        b.addEndpoint({QStringLiteral("Q4_K_M"), QStringLiteral("qwen3.5-9b"), runtime,
            QStringLiteral("/home/me/models/Qwen3.5-9B-Claude-Opus-Distilled-Q4_K_M.gguf"),
            QStringLiteral("10.0.0.2")});
    } else {
        b.addEndpoint({QStringLiteral("FP8"), QStringLiteral("RedHatAI/Qwen3.5-9B-FP8-dynamic"), runtime, {},
            QStringLiteral("10.0.0.1")});
        b.addEndpoint({QStringLiteral("NVFP4"), QStringLiteral("AxionML/Qwen3.5-9B-NVFP4"), runtime, {},
            QStringLiteral("10.0.0.2")});
    }
    b.standardTests();
    return b;
}

} // namespace qs::test
