// SPDX-License-Identifier: MIT
// quantscope: one binary, headless subcommands (the dashboard arrives with its own issue).
#include "app/Commands.h"

#include <QCoreApplication>
#include <QTextStream>

namespace {
const char* const Usage
    = "Usage: quantscope [COMMAND] [OPTIONS]\n"
      "\n"
      "Compare LLM inference endpoints (llama-server, vLLM, SGLang) side by side.\n"
      "\n"
      "Commands:\n"
      "  run               run a suite against endpoints and save every measurement\n"
      "  summary FILE      medians per endpoint and test from a results file\n"
      "  recover JOURNAL   turn an interrupted run's journal into a results file\n"
      "  probe [URL...]    health, models, runtime, context size and round-trip time of endpoints\n"
      "  chat [URL]        send one streamed chat completion and print every measurement\n"
      "  emulate           serve an emulated llama-server/vLLM/SGLang on loopback\n"
      "  demo              run the voice-assistant suite on two simulated endpoints (the default)\n"
      "\n"
      "Without a URL, probe and chat use built-in simulated endpoints, so they work with no server.\n"
      "'quantscope COMMAND --help' lists a command's options.\n";
} // namespace

int main(int argc, char** argv)
{
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("quantscope"));
    QCoreApplication::setApplicationVersion(QStringLiteral(QS_VERSION));
    const QStringList args = QCoreApplication::arguments();
    const QString command = args.value(1);
    const QStringList rest = args.mid(2);

    if (command == u"--version" || command == u"-v" || command == u"version") {
        QTextStream(stdout) << "quantscope " QS_VERSION " (Qt " << qVersion() << ")\n";
        return 0;
    }
    if (command == u"--help" || command == u"-h" || command == u"help") {
        QTextStream(stdout) << Usage;
        return 0;
    }
    if (command.isEmpty() || command == u"demo")
        return qs::app::runDemo(rest);
    if (command == u"run")
        return qs::app::runRun(rest);
    if (command == u"summary")
        return qs::app::runSummary(rest);
    if (command == u"recover")
        return qs::app::runRecover(rest);
    if (command == u"probe")
        return qs::app::runProbe(rest);
    if (command == u"chat")
        return qs::app::runChat(rest);
    if (command == u"emulate")
        return qs::app::runEmulate(rest);
    QTextStream(stderr) << "quantscope: unknown command \"" << command << "\"\n\n" << Usage;
    return 2;
}
