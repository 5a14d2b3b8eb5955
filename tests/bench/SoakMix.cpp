// SPDX-License-Identifier: MIT
#include "tests/bench/SoakMix.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <atomic>
#include <memory>

namespace qs::test {

namespace {

emu::Script scriptFor(int n)
{
    const int k = n % 100;
    emu::Script s = emu::simpleScript(48, 80, 40);
    auto fault = [&s](emu::Fault f, int after) {
        s.fault = f;
        s.faultAfterTokens = after;
    };
    if (k < 78)
        return s;
    if (k < 82)
        return emu::simpleScript(240, 80, 80);
    if (k < 88) {
        fault(emu::Fault::Stall, 8);
        s.stallMs = 2500;
    } else if (k < 91)
        fault(emu::Fault::MalformedChunk, 10);
    else if (k < 94)
        fault(emu::Fault::DisconnectMidStream, 12);
    else if (k < 97)
        fault(emu::Fault::ErrorInStream, 6);
    else if (k < 99) {
        fault(emu::Fault::HttpError, 0);
        s.httpError = emu::HttpErrorKind::ServerError;
    } else
        fault(emu::Fault::NoUsageChunk, 0);
    return s;
}

SoakEndpoint endpoint(const QString& label, emu::Dialect dialect, emu::Era era, int idleTimeoutMs)
{
    SoakEndpoint e;
    e.label = label;
    e.idleTimeoutMs = idleTimeoutMs;
    e.config.dialect = dialect;
    e.config.era = era;
    e.config.metricsEnabled = false; // telemetry is another subject; the run keeps it off
    // The emulator calls this on its own thread, one request at a time per connection: the
    // counter is shared by every connection of the endpoint.
    auto counter = std::make_shared<std::atomic<int>>(0);
    e.config.scriptFor = [counter](const emu::RequestInfo&) { return scriptFor(counter->fetch_add(1)); };
    return e;
}

} // namespace

std::vector<SoakEndpoint> soakEndpoints()
{
    return {endpoint(QStringLiteral("llama-server"), emu::Dialect::LlamaServer, emu::Era::Current, 0),
        endpoint(QStringLiteral("vLLM"), emu::Dialect::Vllm, emu::Era::Current, 0),
        endpoint(QStringLiteral("SGLang legacy"), emu::Dialect::Sglang, emu::Era::Legacy, 2000)};
}

QByteArray soakSuiteJson(int runs)
{
    const QJsonObject defaults {{QStringLiteral("max_tokens"), 256}, {QStringLiteral("temperature"), 0},
        {QStringLiteral("thinking"), false}, {QStringLiteral("warmup"), 0}, {QStringLiteral("runs"), runs}};
    const QJsonObject test {{QStringLiteral("id"), QStringLiteral("soak-chat")},
        {QStringLiteral("name"), QStringLiteral("Two-turn chat")},
        {QStringLiteral("category"), QStringLiteral("chat")},
        {QStringLiteral("turns"),
            QJsonArray {QStringLiteral("Tell me about the weather in Paris."),
                QStringLiteral("And what should I wear tomorrow?")}},
        {QStringLiteral("expect"), QJsonArray {QStringLiteral("w1")}}};
    const QJsonObject suite {{QStringLiteral("id"), QStringLiteral("soak")},
        {QStringLiteral("name"), QStringLiteral("Soak")},
        {QStringLiteral("description"),
            QStringLiteral("One long two-turn chat test (tests/bench/SoakMix.h).")},
        {QStringLiteral("defaults"), defaults}, {QStringLiteral("tests"), QJsonArray {test}}};
    return QJsonDocument(suite).toJson();
}

} // namespace qs::test
