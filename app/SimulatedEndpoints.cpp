// SPDX-License-Identifier: MIT
#include "app/SimulatedEndpoints.h"

namespace qs::app {

namespace {
QStringList words(const QString& text)
{
    QStringList tokens;
    const QStringList parts = text.split(u' ');
    for (int i = 0; i < parts.size(); ++i)
        tokens << (i + 1 < parts.size() ? parts[i] + u' ' : parts[i]);
    return tokens;
}

emu::Script answer(double ttftMs, double perPromptTokenMs, double tps)
{
    emu::Script s;
    s.content = words(QStringLiteral("Tokyo is the capital of Japan. It's a huge, lively city that mixes "
                                     "neon-lit streets with quiet old temples."));
    s.ttftMs = ttftMs;
    s.ttftPerPromptTokenMs = perPromptTokenMs;
    s.tokensPerSecond = tps;
    return s;
}
} // namespace

SimulatedEndpoints::SimulatedEndpoints() = default;
SimulatedEndpoints::~SimulatedEndpoints() = default;

bool SimulatedEndpoints::start(QString& error)
{
    struct Spec {
        emu::Dialect dialect;
        const char* label;
        const char* model;
        const char* quant;
        double ttftMs, perTokenMs, tps;
    };
    // Shapes taken from the seeds' measurements: llama-server's prefill grows with context,
    // NVFP4's stays nearly flat, decode rates are close.
    const Spec specs[] = {
        {emu::Dialect::LlamaServer, "Q4_K_M · llama-server (simulated)", "qwen3.5-9b-opus-distilled-q4_k_m",
            "Q4_K_M", 280, 0.9, 36},
        {emu::Dialect::Vllm, "NVFP4 · vLLM (simulated)", "qwen3.5-9b-opus-distilled-nvfp4", "NVFP4", 90, 0.05,
            30},
        {emu::Dialect::Sglang, "NVFP4 · SGLang (simulated)", "qwen3.5-9b-opus-distilled-nvfp4", "NVFP4", 95,
            0.05, 33},
    };
    for (const Spec& spec : specs) {
        emu::ServerConfig config;
        config.dialect = spec.dialect;
        config.modelId = QString::fromLatin1(spec.model);
        config.script = answer(spec.ttftMs, spec.perTokenMs, spec.tps);
        auto thread = std::make_unique<emu::EmulatorThread>();
        if (!thread->start(config)) {
            error = QStringLiteral("could not open a loopback port for the simulated endpoint \"%1\"")
                        .arg(QString::fromUtf8(spec.label));
            return false;
        }
        Endpoint e;
        e.label = QString::fromUtf8(spec.label);
        e.baseUrl = thread->baseUrl();
        e.quantization = QString::fromLatin1(spec.quant);
        e.extraBody = {{"chat_template_kwargs", {{"enable_thinking", false}}}};
        m_endpoints.push_back(e);
        m_threads.push_back(std::move(thread));
    }
    return true;
}

} // namespace qs::app
