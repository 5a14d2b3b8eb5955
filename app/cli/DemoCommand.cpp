// SPDX-License-Identifier: MIT
#include "app/cli/Commands.h"

#include <QDateTime>
#include <QDir>
#include <QStandardPaths>
#include <QTextStream>

namespace qs::app {

// `quantscope demo` (and `quantscope` with no display): the dashboard's first run, headless — the
// voice-assistant suite (shortened) against the two simulated endpoints, then the summary and the
// verdict of the built-in voice-assistant profile.
int runDemo(const QStringList& args)
{
    QTextStream err(stderr);
    if (args.contains(u"--help") || args.contains(u"-h")) {
        QTextStream(stdout)
            << "Usage: quantscope demo [RUN OPTIONS]\n\n"
               "Runs a short draw of the voice-assistant suite (1 prompt of each category, 1 warm-up, 2\n"
               "measured runs, parallel) against the two built-in simulated endpoints, saves the results\n"
               "under the data folder and prints the summary, ending with the voice-assistant profile's\n"
               "verdict. Any option of `quantscope run` (see "
               "quantscope\n"
               "run --help) overrides the defaults, e.g. --runs 5 or --prompts-per-category 100 (every "
               "prompt).\n";
        return 0;
    }
    const QString dir = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation);
    if (!QDir().mkpath(dir)) {
        err << "quantscope: cannot create " << dir << '\n';
        return 1;
    }
    const QString out = dir + QStringLiteral("/demo-")
        + QDateTime::currentDateTimeUtc().toString(QStringLiteral("yyyyMMdd-HHmmss"))
        + QStringLiteral(".json");
    err << "Quantscope " QS_VERSION
           " — no arguments: running the voice-assistant suite against two simulated "
           "endpoints\n(numbers shaped like the seed measurements, not from a real server). For real "
           "servers:\n"
           "  quantscope run --suite voice-assistant --endpoint name=A,url=http://HOST:PORT --endpoint ... "
           "--out "
           "FILE\n\n";
    err.flush();
    QStringList run
        = {QStringLiteral("--suite"), QStringLiteral("voice-assistant"), QStringLiteral("--endpoint"),
            QStringLiteral("name=Q4_K_M llama-server (simulated),url=sim:q4km-like,quant=Q4_K_M"),
            QStringLiteral("--endpoint"),
            QStringLiteral("name=NVFP4 vLLM (simulated),url=sim:nvfp4-like,quant=NVFP4"),
            QStringLiteral("--runs"), QStringLiteral("2"), QStringLiteral("--warmup"), QStringLiteral("1"),
            QStringLiteral("--prompts-per-category"), QStringLiteral("1"), QStringLiteral("--order"),
            QStringLiteral("parallel"), QStringLiteral("--out"), out};
    run += args;
    const int rc = runRun(run);
    if (rc != 0)
        return rc;
    // The summary ends with the built-in profile's verdict line, as the dashboard's Decision tab.
    return runSummary({out, QStringLiteral("--profile"), QStringLiteral("voice-assistant")});
}

} // namespace qs::app
