// SPDX-License-Identifier: MIT
#include "app/Commands.h"
#include "app/SimulatedEndpoints.h"
#include "app/TextOutput.h"
#include "model/EndpointProbe.h"
#include "model/StreamingClient.h"

#include <QTextStream>

namespace qs::app {

// Until the dashboard lands, `quantscope` with no arguments shows the core at work: it starts
// the simulated endpoints, probes them and measures one streamed answer from each.
int runDemo(const QStringList&)
{
    QTextStream out(stdout);
    SimulatedEndpoints simulated;
    QString error;
    if (!simulated.start(error)) {
        QTextStream(stderr) << "quantscope: " << error << '\n';
        return 1;
    }
    out << "Quantscope " QS_VERSION " — no endpoint given, so this runs against three simulated endpoints "
           "on loopback.\n(Try: quantscope probe URL, quantscope chat URL, quantscope --help)\n\n";
    int failures = 0;
    for (const Endpoint& configured : simulated.endpoints()) {
        const ProbeResult probe = probeBlocking(configured, 5);
        out << "== " << configured.label << '\n' << formatProbe(probe) << '\n';
        out.flush();
        if (!probe.usable()) {
            ++failures;
            continue;
        }
        ChatRequest request = ChatRequest::fromPrompt(QStringLiteral("What is the capital of Japan?"),
            QStringLiteral("You are a concise voice assistant."));
        request.maxTokens = 128;
        request.temperature = 0;
        const RequestRecord record = runChatBlocking(probe.endpoint, request);
        failures += record.ok() ? 0 : 1;
        out << formatRecord(record) << '\n';
        out.flush();
    }
    return failures ? 1 : 0;
}

} // namespace qs::app
