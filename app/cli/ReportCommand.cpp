// SPDX-License-Identifier: MIT
// `quantscope report`: the recommendation document from one or more results files.
#include "app/cli/CommandLine.h"
#include "app/cli/Commands.h"
#include "app/common/Offscreen.h"
#include "app/common/ReportWriter.h"
#include "model/decide/DecisionProfile.h"
#include "model/decide/Recommendation.h"
#include "model/decide/Report.h"
#include "model/evaluate/Evaluation.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QDateTime>
#include <QFileInfo>
#include <QStyleFactory>
#include <QTextStream>

namespace qs::app {

int runReport(int argc, char** argv, const QStringList& args)
{
    // The charts are the dashboard's own views, rendered offscreen: the same pixels everywhere.
    prepareOffscreen();
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("quantscope"));
    QApplication::setOrganizationName(QStringLiteral("quantscope"));
    QApplication::setApplicationVersion(QStringLiteral(QS_VERSION));
    app.setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
    QTextStream out(stdout);
    QTextStream err(stderr);
    QCommandLineParser p;
    p.setApplicationDescription(QStringLiteral(
        "Write the recommendation document for a comparison: endpoints compared, methodology warnings, "
        "methodology, results tables with paired intervals, charts, sample responses, the verdict per "
        "criterion of a decision profile with the recommendation (switch / keep baseline / inconclusive) and "
        "what would change it, and an appendix to reproduce it. Several files are combined as in the "
        "dashboard."));
    p.addHelpOption();
    p.addPositionalArgument(QStringLiteral("FILE"),
        QStringLiteral("Results file(s) written by quantscope run."), QStringLiteral("FILE [FILE...]"));
    p.addOption(baselineOption());
    p.addOption({QStringLiteral("profile"),
        QStringLiteral(
            "Decision profile: %1, or a profile file (default: throughput for the throughput suite, "
            "voice-assistant otherwise).")
            .arg(builtinDecisionProfileNames().join(QStringLiteral(", "))),
        QStringLiteral("NAME|FILE")});
    p.addOption({QStringLiteral("format"),
        QStringLiteral(
            "md (with a NAME-assets folder of PNGs beside it), html (one self-contained file) or pdf "
            "(default: from --out's suffix)."),
        QStringLiteral("md|html|pdf")});
    p.addOption({QStringLiteral("out"), QStringLiteral("The document to write."), QStringLiteral("PATH")});
    if (const int rc = parseSubcommand(p, "report", args); rc >= 0)
        return rc;
    const auto usage = [&](const QString& message) {
        err << "quantscope report: " << message << '\n';
        return 2;
    };

    // Command-line mistakes first: they cost nothing to find.
    const QStringList files = p.positionalArguments();
    if (files.isEmpty())
        return usage(QStringLiteral(
            "give a results file (quantscope report FILE [FILE...] --format md|html|pdf --out PATH)"));
    const QString outPath = p.value(QStringLiteral("out"));
    if (outPath.isEmpty())
        return usage(QStringLiteral("--out PATH is required (e.g. --out report.pdf)"));
    QString formatError;
    const std::optional<ReportFormat> format = documentFormatFrom(p, outPath, formatError);
    if (!format)
        return usage(formatError);

    const std::shared_ptr<const RunResult> result = loadResultsFor("report", files);
    if (!result)
        return 1;
    if (result->endpoints.empty()) {
        err << "quantscope report: the results have no endpoints: nothing to report\n";
        return 1;
    }
    if (!result->note.isEmpty() && files.size() > 1)
        err << "note: " << result->note << '\n';

    QString baselineError;
    const std::optional<int> baseline = baselineFrom(p, *result, baselineError);
    if (!baseline)
        return usage(baselineError);

    QString profileName = p.value(QStringLiteral("profile"));
    if (profileName.isEmpty())
        profileName = defaultDecisionProfileName(result->suite);
    DecisionProfile profile;
    try {
        profile = loadDecisionProfile(profileName);
    } catch (const ProfileError& e) {
        return usage(QString::fromUtf8(e.what()) + QStringLiteral(" (the built-in profiles are: ")
            + builtinDecisionProfileNames().join(QStringLiteral(", "))
            + QStringLiteral("; or give a profile file)"));
    }

    auto evaluation = std::make_shared<const Evaluation>(evaluate(*result, *baseline));
    ReportInput input;
    input.result = result.get();
    input.evaluation = evaluation.get();
    input.profile = profile;
    input.sources = files;
    input.generatedAt = QDateTime::currentDateTimeUtc();
    input.generator = QStringLiteral("quantscope " QS_VERSION);
    try {
        input.recommendations = recommend(*result, *evaluation, profile);
    } catch (const std::exception& e) {
        err << "quantscope report: cannot judge the profile's criteria: " << QString::fromUtf8(e.what())
            << '\n';
        return 1;
    }

    DashboardData data;
    data.result = result;
    data.evaluation = evaluation;
    data.sources = files;
    const std::vector<RenderedChart> charts = renderReportCharts(data, reportCharts(*result, *evaluation));

    QStringList written;
    if (const QString error = writeReport(*format, outPath, input, charts, &written); !error.isEmpty()) {
        err << "quantscope report: " << error << '\n';
        return 1;
    }
    out << "Wrote " << outPath;
    if (written.size() > 1)
        out << " and " << written.size() - 1 << " images in " << reportAssetsDir(outPath);
    out << '\n';
    for (const Recommendation& r : input.recommendations)
        out << "  " << r.headline << '\n';
    return 0;
}

} // namespace qs::app
