// SPDX-License-Identifier: MIT
#include "app/CommandLine.h"
#include "app/Commands.h"
#include "model/ResultFile.h"
#include "model/ResultSummary.h"
#include "model/RunJournal.h"

#include <QCommandLineParser>
#include <QTextStream>

namespace qs::app {

namespace {
QString ms(const std::optional<double>& v)
{
    return v ? QString::number(*v, 'f', *v < 100 ? 1 : 0) : QStringLiteral("-");
}

QString gatesText(const SummaryRow& r)
{
    if (r.gates.empty())
        return QStringLiteral("-");
    QStringList parts;
    for (const auto& [name, pa] : r.gates)
        parts << QStringLiteral("%1 %2/%3").arg(name).arg(pa.first).arg(pa.second);
    return parts.join(QStringLiteral(", "));
}

QString errorsText(const SummaryRow& r)
{
    QStringList parts;
    for (const auto& [kind, n] : r.errors)
        parts << QStringLiteral("%1×%2").arg(n).arg(kind);
    return parts.isEmpty() ? QStringLiteral("-") : parts.join(QStringLiteral(", "));
}
} // namespace

int runSummary(const QStringList& args)
{
    QTextStream out(stdout);
    QTextStream err(stderr);
    QCommandLineParser p;
    p.setApplicationDescription(QStringLiteral(
        "Summarise a results file: per endpoint × test (and turn), median TTFT (any and visible), first "
        "sentence, e2e and decode tok/s over measured runs (warm-ups and failures excluded), gate passes, "
        "errors; and aggregate throughput per concurrency level."));
    p.addHelpOption();
    p.addPositionalArgument(
        QStringLiteral("FILE"), QStringLiteral("A results file written by quantscope run."));
    p.addOption({QStringLiteral("json"), QStringLiteral("Print JSON.")});
    if (const int rc = parseSubcommand(p, "summary", args); rc >= 0)
        return rc;
    if (p.positionalArguments().size() != 1) {
        err << "quantscope summary: give exactly one results file\n";
        return 2;
    }
    RunResult result;
    try {
        result = loadResults(p.positionalArguments().front());
    } catch (const ResultFileError& e) {
        err << "quantscope summary: " << QString::fromUtf8(e.what()) << '\n';
        return 1;
    }
    const ResultSummary s = summarize(result);
    if (p.isSet(QStringLiteral("json"))) {
        out << QString::fromStdString(toJson(s).dump(2)) << '\n';
        return 0;
    }
    const QString suite
        = QString::fromStdString(result.suite.value("name", result.suite.value("id", std::string())));
    out << "Suite " << (suite.isEmpty() ? QStringLiteral("?") : suite) << ", run "
        << result.startedAt.toString(Qt::ISODate) << " on " << result.host
        << (result.complete ? QString() : QStringLiteral("  [INCOMPLETE]")) << '\n';
    if (!result.note.isEmpty())
        out << "note: " << result.note << '\n';
    for (std::size_t i = 0; i < result.endpoints.size(); ++i) {
        const RunEndpoint& e = result.endpoints[i];
        out << "  [" << i << "] " << e.endpoint.displayName() << "  " << e.spec << "  runtime "
            << runtimeName(e.endpoint.runtime) << ", model "
            << (e.endpoint.model.isEmpty() ? QStringLiteral("?") : e.endpoint.model)
            << (e.endpoint.quantization.isEmpty() ? QString()
                                                  : QStringLiteral(", ") + e.endpoint.quantization)
            << (e.simulated ? QStringLiteral("  — SIMULATED, not a real server") : QString()) << '\n';
    }
    out << s.records << " records (" << s.warmups << " warm-ups excluded, " << s.failures << " failed)\n\n";
    // The endpoint column fits the longest label: "(simulated)" must never be cut off.
    int width = 8;
    for (const SummaryRow& r : s.rows)
        width = qMax(width, int(r.endpointLabel.size()));
    out << QStringLiteral("%1 %2 %3 %4 %5 %6 %7 %8 %9\n")
               .arg(QStringLiteral("endpoint"), -width)
               .arg(QStringLiteral("test"), -16)
               .arg(QStringLiteral("turn"), 4)
               .arg(QStringLiteral("ok/n"), 7)
               .arg(QStringLiteral("ttft_any"), 9)
               .arg(QStringLiteral("ttft_vis"), 9)
               .arg(QStringLiteral("1st_sent"), 9)
               .arg(QStringLiteral("tok/s"), 7)
               .arg(QStringLiteral("gates  errors"));
    for (const SummaryRow& r : s.rows) {
        out << QStringLiteral("%1 %2 %3 %4 %5 %6 %7 %8 %9  %10%11\n")
                   .arg(r.endpointLabel, -width)
                   .arg(r.test.left(16), -16)
                   .arg(r.turn ? QString::number(r.turn) : QStringLiteral("all"), 4)
                   .arg(QStringLiteral("%1/%2").arg(r.ok).arg(r.measured), 7)
                   .arg(ms(r.ttftAnyMs), 9)
                   .arg(ms(r.ttftVisibleMs), 9)
                   .arg(ms(r.firstSentenceMs), 9)
                   .arg(ms(r.decodeTps), 7)
                   .arg(gatesText(r))
                   .arg(errorsText(r))
                   .arg(r.estimatedCounts
                           ? QStringLiteral("  (%1 token counts estimated)").arg(r.estimatedCounts)
                           : QString());
    }
    out << "\nMedians over measured runs; times in ms from the request's t0. Definitions: "
           "docs/methodology.md.\n";
    if (!s.throughput.empty()) {
        out << "\nAggregate output throughput per concurrency level:\n";
        for (const ThroughputRow& t : s.throughput)
            out << QStringLiteral("  %1 %2  concurrency %3: %4 tok/s (%5 requests, %6 tokens in %7 s)\n")
                       .arg(t.endpointLabel, -width)
                       .arg(t.test.left(16), -16)
                       .arg(t.concurrency, 3)
                       .arg(t.outputTokensPerSecond, 8, 'f', 1)
                       .arg(t.requests)
                       .arg(t.outputTokens)
                       .arg(t.windowMs / 1000.0, 0, 'f', 2);
    }
    return 0;
}

int runRecover(const QStringList& args)
{
    QTextStream out(stdout);
    QTextStream err(stderr);
    QCommandLineParser p;
    p.setApplicationDescription(QStringLiteral(
        "Turn the journal of an interrupted run (<out>.journal) into a normal results file. Every request "
        "that finished before the interruption is kept; the run is marked incomplete."));
    p.addHelpOption();
    p.addPositionalArgument(QStringLiteral("JOURNAL"), QStringLiteral("The .journal file."));
    p.addOption({QStringLiteral("out"), QStringLiteral("Results file to write."), QStringLiteral("FILE")});
    if (const int rc = parseSubcommand(p, "recover", args); rc >= 0)
        return rc;
    if (p.positionalArguments().size() != 1 || !p.isSet(QStringLiteral("out"))) {
        err << "quantscope recover: usage: quantscope recover RUN.json.journal --out FILE\n";
        return 2;
    }
    RunResult result;
    try {
        result = recoverJournal(p.positionalArguments().front());
    } catch (const ResultFileError& e) {
        err << "quantscope recover: " << QString::fromUtf8(e.what()) << '\n';
        return 1;
    }
    const QString outPath = p.value(QStringLiteral("out"));
    const QString saveError = saveResults(result, outPath);
    if (!saveError.isEmpty()) {
        err << "quantscope recover: could not write " << outPath << ": " << saveError << '\n';
        return 1;
    }
    out << "Recovered " << result.records.size() << " requests into " << outPath << '\n';
    if (!result.note.isEmpty())
        out << "note: " << result.note << '\n';
    return 0;
}

} // namespace qs::app
