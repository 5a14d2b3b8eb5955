// SPDX-License-Identifier: MIT
#include "app/cli/CommandLine.h"
#include "app/cli/Commands.h"
#include "app/cli/EndpointOptions.h"
#include "app/cli/TextOutput.h"
#include "app/common/EndpointSpec.h"
#include "model/wire/EndpointProbe.h"
#include "model/wire/StreamingClient.h"

#include <QCommandLineParser>
#include <QTextStream>

namespace qs::app {

int runChat(const QStringList& args)
{
    QTextStream out(stdout);
    QTextStream err(stderr);
    QCommandLineParser p;
    p.setApplicationDescription(
        QStringLiteral("Send one streamed chat completion and print every measurement (TTFT any/visible, "
                       "first sentence, decode rate, token counts with their source). With no URL, uses the "
                       "first built-in simulated endpoint."));
    p.addHelpOption();
    p.addPositionalArgument(
        QStringLiteral("URL"), QStringLiteral("e.g. http://10.0.0.5:8003"), QStringLiteral("[URL]"));
    p.addOption({{QStringLiteral("p"), QStringLiteral("prompt")}, QStringLiteral("The user message."),
        QStringLiteral("text"), QStringLiteral("What is the capital of Japan? Answer in one sentence.")});
    p.addOption({QStringLiteral("system"), QStringLiteral("A system message."), QStringLiteral("text")});
    p.addOption({QStringLiteral("max-tokens"), QStringLiteral("max_tokens (default 256)."),
        QStringLiteral("n"), QStringLiteral("256")});
    p.addOption({QStringLiteral("temperature"), QStringLiteral("temperature (default 0)."),
        QStringLiteral("t"), QStringLiteral("0")});
    p.addOption({QStringLiteral("no-think"),
        QStringLiteral("Ask for thinking off: chat_template_kwargs.enable_thinking=false.")});
    p.addOption({QStringLiteral("json"), QStringLiteral("Print the full request record as JSON.")});
    addEndpointOptions(p);
    if (const int rc = parseSubcommand(p, "chat", args); rc >= 0)
        return rc;
    if (p.positionalArguments().size() > 1) {
        err << "quantscope chat: give one URL (use 'quantscope probe' for several)\n";
        return 2;
    }
    bool ok = false;
    const int maxTokens = p.value(QStringLiteral("max-tokens")).toInt(&ok);
    if (!ok || maxTokens < 1) {
        err << "quantscope chat: --max-tokens must be a positive whole number\n";
        return 2;
    }
    const double temperature = p.value(QStringLiteral("temperature")).toDouble(&ok);
    if (!ok || temperature < 0) {
        err << "quantscope chat: --temperature must be a number >= 0\n";
        return 2;
    }

    // Options are checked before anything starts, also when the simulated endpoint is used.
    QString error;
    const bool simulate = p.positionalArguments().isEmpty();
    auto parsed = endpointFromOptions(
        p, simulate ? QStringLiteral("http://127.0.0.1:1") : p.positionalArguments().front(), error);
    if (!parsed) {
        err << "quantscope chat: " << error << '\n';
        return 2;
    }
    Endpoint endpoint = *parsed;
    EndpointResolver simulated;
    if (simulate) {
        const auto defaults = simulated.defaultSimulated(error);
        if (!defaults) {
            err << "quantscope chat: " << error << '\n';
            return 1;
        }
        const Endpoint& sim = defaults->front().endpoint;
        endpoint.baseUrl = sim.baseUrl;
        if (endpoint.label.isEmpty())
            endpoint.label = sim.label;
        if (!p.isSet(QStringLiteral("extra")))
            endpoint.extraBody["chat_template_kwargs"]["enable_thinking"] = false;
    }
    // Learn the model and runtime first (if not given) so errors get runtime-specific advice.
    // The probe uses its own connection; the measured request is unaffected.
    if (endpoint.model.isEmpty() || endpoint.runtime == Runtime::Unknown) {
        const ProbeResult probe = probeBlocking(endpoint, 1);
        if (probe.usable())
            endpoint = probe.endpoint;
    }
    ChatRequest request
        = ChatRequest::fromPrompt(p.value(QStringLiteral("prompt")), p.value(QStringLiteral("system")));
    request.maxTokens = maxTokens;
    request.temperature = temperature;
    if (p.isSet(QStringLiteral("no-think")))
        request.extraBody["chat_template_kwargs"]["enable_thinking"] = false;

    const RequestRecord record = runChatBlocking(endpoint, request);
    if (p.isSet(QStringLiteral("json")))
        out << QString::fromStdString(toJson(record).dump(2)) << '\n';
    else
        out << formatRecord(record);
    return record.ok() ? 0 : 1;
}

} // namespace qs::app
