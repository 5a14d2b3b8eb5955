// SPDX-License-Identifier: MIT
#include "app/cli/CommandLine.h"
#include "app/cli/Commands.h"
#include "tests/support/Emulator.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QTextStream>

namespace qs::app {

namespace {
QStringList tokens(const QString& text)
{
    QStringList out;
    const QStringList parts = text.split(u' ', Qt::SkipEmptyParts);
    for (int i = 0; i < parts.size(); ++i)
        out << (i + 1 < parts.size() ? parts[i] + u' ' : parts[i]);
    return out;
}
} // namespace

int runEmulate(const QStringList& args)
{
    QTextStream out(stdout);
    QTextStream err(stderr);
    QCommandLineParser p;
    p.setApplicationDescription(QStringLiteral(
        "Serve an emulated llama-server, vLLM or SGLang on loopback until interrupted, with "
        "scripted timing and output. For trying Quantscope (or anything else) without a GPU."));
    p.addHelpOption();
    const auto opt = [&](const char* name, const char* help, const char* valueName, const char* def) {
        p.addOption({QString::fromLatin1(name), QString::fromLatin1(help), QString::fromLatin1(valueName),
            QString::fromLatin1(def)});
    };
    opt("dialect", "llama-server, vllm or sglang.", "name", "llama-server");
    opt("era", "current, transitional (vLLM 0.11.1-0.15) or legacy.", "name", "current");
    opt("port", "TCP port on 127.0.0.1 (0 = any free port).", "port", "0");
    opt("model", "Model id to serve.", "id", "emulated-model");
    opt("ttft-ms", "Time to first token.", "ms", "100");
    opt("ttft-per-token-ms", "Extra prefill time per prompt token.", "ms", "0");
    opt("tps", "Decode rate, tokens per second.", "rate", "40");
    opt("reasoning", "Reasoning text streamed before the answer (empty = none).", "text", "");
    opt("reasoning-mode", "parsed, tags (<think> in content) or bare (</think> only).", "mode", "parsed");
    opt("text", "The answer to stream.", "text", "Tokyo is the capital of Japan.");
    opt("tokens", "Stream this many tokens (\"w0 \" … ) instead of --text (0: --text).", "n", "0");
    opt("context", "Context size in tokens.", "n", "32768");
    p.addOption({QStringLiteral("no-tool-parser"),
        QStringLiteral("Behave like a server started without a tool-call parser.")});
    p.addOption({QStringLiteral("numbered"),
        QStringLiteral("Write content token k of request s as \"r<s>t<k> \" instead of --text, so a "
                       "benchmark can check that every event reached its own request.")});
    p.addOption({QStringLiteral("served-log"),
        QStringLiteral("Keep every chat request's write stamps and serve them at GET /emulator/served "
                       "(JSON), for a benchmark in another process (bench_runner --emulator).")});
    if (const int rc = parseSubcommand(p, "emulate", args); rc >= 0)
        return rc;
    emu::ServerConfig config;
    const QString dialect = p.value(QStringLiteral("dialect")).toLower();
    if (dialect == u"llama-server" || dialect == u"llama")
        config.dialect = emu::Dialect::LlamaServer;
    else if (dialect == u"vllm")
        config.dialect = emu::Dialect::Vllm;
    else if (dialect == u"sglang")
        config.dialect = emu::Dialect::Sglang;
    else {
        err << "quantscope emulate: --dialect must be llama-server, vllm or sglang\n";
        return 2;
    }
    const QString era = p.value(QStringLiteral("era")).toLower();
    if (era == u"current")
        config.era = emu::Era::Current;
    else if (era == u"transitional")
        config.era = emu::Era::Transitional;
    else if (era == u"legacy")
        config.era = emu::Era::Legacy;
    else {
        err << "quantscope emulate: --era must be current, transitional or legacy\n";
        return 2;
    }
    const QString mode = p.value(QStringLiteral("reasoning-mode")).toLower();
    if (mode == u"parsed")
        config.script.reasoningMode = emu::ReasoningMode::Parsed;
    else if (mode == u"tags")
        config.script.reasoningMode = emu::ReasoningMode::LeakedWithTags;
    else if (mode == u"bare")
        config.script.reasoningMode = emu::ReasoningMode::LeakedBareClose;
    else {
        err << "quantscope emulate: --reasoning-mode must be parsed, tags or bare\n";
        return 2;
    }
    bool ok1 = false, ok2 = false, ok3 = false, ok4 = false, ok5 = false;
    const int port = p.value(QStringLiteral("port")).toInt(&ok1);
    config.script.ttftMs = p.value(QStringLiteral("ttft-ms")).toDouble(&ok2);
    config.script.ttftPerPromptTokenMs = p.value(QStringLiteral("ttft-per-token-ms")).toDouble(&ok3);
    config.script.tokensPerSecond = p.value(QStringLiteral("tps")).toDouble(&ok4);
    config.contextSize = p.value(QStringLiteral("context")).toInt(&ok5);
    if (!ok1 || port < 0 || port > 65535 || !ok2 || config.script.ttftMs < 0 || !ok3 || !ok4
        || config.script.tokensPerSecond <= 0 || !ok5 || config.contextSize <= 0) {
        err << "quantscope emulate: --port, --ttft-ms, --ttft-per-token-ms, --tps and --context take numbers "
               "(tps and context > 0)\n";
        return 2;
    }
    config.modelId = p.value(QStringLiteral("model"));
    bool ok6 = false;
    const int count = p.value(QStringLiteral("tokens")).toInt(&ok6);
    if (!ok6 || count < 0) {
        err << "quantscope emulate: --tokens takes a count (0: stream --text)\n";
        return 2;
    }
    config.script.content
        = count > 0 ? emu::simpleScript(count, 0, 1).content : tokens(p.value(QStringLiteral("text")));
    config.script.reasoning = tokens(p.value(QStringLiteral("reasoning")));
    config.toolParser = !p.isSet(QStringLiteral("no-tool-parser"));
    config.numberTokens = p.isSet(QStringLiteral("numbered"));
    config.servedLogRoute = p.isSet(QStringLiteral("served-log"));
    if (!config.servedLogRoute)
        config.servedLogLimit = 64; // nobody reads the log: an emulator left running stays flat

    emu::EmulatorServer server(config);
    if (!server.listen(QHostAddress::LocalHost, quint16(port))) {
        err << "quantscope emulate: cannot listen on 127.0.0.1:" << port
            << " (in use?). Pick another --port, or 0 for any free port.\n";
        return 1;
    }
    out << "Emulating " << dialect << " (" << era << ") at " << server.baseUrl().toString()
        << " — press Ctrl+C to stop.\n";
    out.flush();
    return QCoreApplication::exec();
}

} // namespace qs::app
