// SPDX-License-Identifier: MIT
// quantscope: one binary. With no arguments (or `gui`) the dashboard; otherwise a headless subcommand.
#include "app/cli/Commands.h"

#include <QCoreApplication>
#include <QSysInfo>
#include <QTextStream>

namespace {
// Every subcommand has a line here; each explains its own options with `COMMAND --help`.
const char* const Usage
    = "Usage: quantscope [COMMAND] [OPTIONS]\n"
      "       quantscope              open the dashboard (simulated endpoints preset: press Run)\n"
      "\n"
      "Compare LLM inference endpoints (llama-server, vLLM, SGLang) side by side.\n"
      "\n"
      "Commands:\n"
      "  gui [FILE...]     open the dashboard; with files, review them (several side by side)\n"
      "  run               run a suite against endpoints and save every measurement\n"
      "  summary FILE      medians per endpoint and test from a results file\n"
      "  judge FILE...     grade the answers with an LLM judge (rubric, blind pairwise) and save the "
      "verdicts\n"
      "  report FILE...    the recommendation document (Markdown, HTML or PDF) with a decision profile\n"
      "  campaign FILE|DIR...  every attempt against one baseline, in time order: verdicts, what\n"
      "                    changed, the baseline's drift, the best so far (--json, --out doc)\n"
      "  screenshot FILE   render a view of a results file to PNG, headless (--list-views)\n"
      "  recover JOURNAL   turn an interrupted run's journal into a results file\n"
      "  probe [URL...]    health, models, runtime, context size and round-trip time of endpoints\n"
      "  chat [URL]        send one streamed chat completion and print every measurement\n"
      "  emulate           serve an emulated llama-server/vLLM/SGLang on loopback\n"
      "  demo              run the voice-assistant suite on two simulated endpoints in the terminal\n"
      "\n"
      "Options:\n"
      "  -h, --help        this text\n"
      "  -v, --version     the version, the Qt it runs on and how it was built\n"
      "\n"
      "Without a URL, probe and chat use built-in simulated endpoints, so they work with no server.\n"
      "'quantscope COMMAND --help' lists a command's options.\n"
      "Documentation: README.md and docs/ (the .deb puts them in /usr/share/doc/quantscope).\n";

// The compiler, for bug reports: a measurement tool's numbers can depend on how it was built.
#if defined(__clang__)
#define QS_COMPILER "Clang " __clang_version__
#elif defined(__GNUC__)
#define QS_COMPILER "GCC " __VERSION__
#else
#define QS_COMPILER "an unknown compiler"
#endif
#ifndef QS_BUILD_TYPE
#define QS_BUILD_TYPE "unspecified"
#endif

void printVersion()
{
    // The runtime Qt first (it decides behaviour); the one compiled against can differ after an
    // upgrade of the Qt packages.
    QTextStream(stdout) << "quantscope " QS_VERSION " (Qt " << qVersion() << ")\n"
                        << "Built with " QS_COMPILER " against Qt " QT_VERSION_STR ", "
                        << QS_BUILD_TYPE " build, for " << QSysInfo::buildCpuArchitecture() << ".\n"
                        << "MIT License.\n";
}

bool haveDisplay()
{
    return !qEnvironmentVariableIsEmpty("DISPLAY") || !qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY")
        || !qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM");
}
} // namespace

int main(int argc, char** argv)
{
    // The GUI commands need a QApplication, the others must not (they run on servers with no
    // display), so choose before constructing one.
    const QString first = argc > 1 ? QString::fromLocal8Bit(argv[1]) : QString();
    QStringList rawArgs;
    for (int i = 2; i < argc; ++i)
        rawArgs << QString::fromLocal8Bit(argv[i]);
    if (first == u"screenshot")
        return qs::app::runScreenshot(argc, argv, rawArgs);
    if (first == u"report")
        return qs::app::runReport(argc, argv, rawArgs);
    if (first == u"campaign")
        return qs::app::runCampaign(argc, argv, rawArgs);
    if (first == u"gui" || (first.isEmpty() && haveDisplay()))
        return qs::app::runGui(argc, argv, rawArgs);

    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("quantscope"));
    // The same data folder as the dashboard's (~/.local/share/quantscope/quantscope).
    QCoreApplication::setOrganizationName(QStringLiteral("quantscope"));
    QCoreApplication::setApplicationVersion(QStringLiteral(QS_VERSION));
    const QStringList args = QCoreApplication::arguments();
    const QString command = args.value(1);
    const QStringList rest = args.mid(2);

    if (command == u"--version" || command == u"-v" || command == u"version") {
        printVersion();
        return 0;
    }
    if (command == u"--help" || command == u"-h" || command == u"help") {
        QTextStream(stdout) << Usage;
        return 0;
    }
    if (command.isEmpty()) {
        QTextStream(stderr)
            << "quantscope: no display (DISPLAY, WAYLAND_DISPLAY and QT_QPA_PLATFORM are unset), "
               "so the dashboard cannot open; running the demo in the terminal instead.\n"
               "On a desktop, `quantscope` opens the dashboard.\n\n";
        return qs::app::runDemo(rest);
    }
    if (command == u"demo")
        return qs::app::runDemo(rest);
    if (command == u"run")
        return qs::app::runRun(rest);
    if (command == u"summary")
        return qs::app::runSummary(rest);
    if (command == u"judge")
        return qs::app::runJudge(rest);
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
