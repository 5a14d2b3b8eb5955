// SPDX-License-Identifier: MIT
// `quantscope campaign`: every attempt at replacing one baseline, in time order, judged with one
// profile; what changed, whether the baseline moved, who is best; as text, JSON or a document.
#include "app/cli/CommandLine.h"
#include "app/cli/Commands.h"
#include "app/common/Offscreen.h"
#include "app/common/ReportWriter.h"
#include "model/decide/Campaign.h"
#include "model/decide/CampaignDocument.h"
#include "model/store/ResultFile.h"

#include <QDateTime>
#include <QFileInfo>
#include <QGuiApplication>
#include <QTextStream>

namespace qs::app {

namespace {

void printText(QTextStream& out, const Campaign& c)
{
    out << campaignTitle(c) << ", profile " << c.profileId << '\n';
    for (std::size_t i = 0; i < c.attempts.size(); ++i) {
        const CampaignAttempt& a = c.attempts[i];
        out << '\n'
            << i + 1 << ". " << a.startedAt.toUTC().toString(QStringLiteral("yyyy-MM-dd HH:mm")) << "  "
            << attemptName(c, int(i)) << "  → " << decisionId(a.recommendation.decision);
        if (c.bestSoFar[i] >= 0)
            out << "  (best so far: #" << c.bestSoFar[i] + 1 << ')';
        out << '\n';
        for (const QString& n : a.notes)
            out << "   note: " << n << '\n';
        for (const CampaignChange& ch : a.changes)
            out << "   changed: " << ch.text() << '\n';
        for (const CriterionResult& r : a.recommendation.criteria)
            out << "   " << outcomeId(r.outcome).leftJustified(13) << r.criterion.id << ": " << r.measured
                << '\n';
    }
    out << '\n'
        << (c.best >= 0 ? QStringLiteral("Best: ") + attemptName(c, c.best) + QStringLiteral(". ")
                        : QString())
        << c.bestSentence << '\n';
    int moved = 0;
    for (const CampaignDrift& d : c.drift)
        if (d.significant) {
            if (moved++ == 0)
                out << "\nThe baseline moved:\n";
            out << "  " << d.sentence << '\n';
        }
    if (moved == 0 && c.files.size() > 1)
        out << "\nThe baseline did not move beyond ±" << DriftTolerance * 100 << " % between files.\n";
    for (const QString& n : c.notes)
        out << "note: " << n << '\n';
}

} // namespace

int runCampaign(int argc, char** argv, const QStringList& args)
{
    // A PDF needs fonts, so a (headless) QGuiApplication.
    prepareOffscreen();
    QGuiApplication app(argc, argv);
    QGuiApplication::setApplicationName(QStringLiteral("quantscope"));
    QGuiApplication::setApplicationVersion(QStringLiteral(QS_VERSION));
    QTextStream out(stdout);
    QTextStream err(stderr);
    QCommandLineParser p;
    p.setApplicationDescription(QStringLiteral(
        "Every attempt at replacing one baseline, over weeks: the results files (or folders of them) in "
        "the order they ran, each candidate judged with the decision profile exactly as its own report "
        "judges it, what changed from one attempt to the next, whether the baseline itself moved "
        "between files (paired by prompt, with intervals), and which attempt is best where the evidence "
        "separates them."));
    p.addHelpOption();
    p.addPositionalArgument(QStringLiteral("FILE|DIR"),
        QStringLiteral("Results files written by quantscope run, or folders holding them."),
        QStringLiteral("FILE|DIR [FILE|DIR...]"));
    p.addOption({QStringLiteral("profile"),
        QStringLiteral(
            "Decision profile: %1, or a profile file (default: as `report` chooses, from the earliest "
            "file's suite).")
            .arg(builtinDecisionProfileNames().join(QStringLiteral(", "))),
        QStringLiteral("NAME|FILE")});
    p.addOption({QStringLiteral("baseline"),
        QStringLiteral(
            "The baseline's label, found in every file (default: the earliest file's first endpoint, "
            "found in later files by its label, else by model, quantization and runtime)."),
        QStringLiteral("LABEL")});
    p.addOption({QStringLiteral("json"), QStringLiteral("Print the campaign as JSON.")});
    p.addOption({QStringLiteral("out"),
        QStringLiteral("Write the campaign document: .md, .html or .pdf (or --format)."),
        QStringLiteral("PATH")});
    p.addOption({QStringLiteral("format"), QStringLiteral("md, html or pdf (default: from --out's suffix)."),
        QStringLiteral("md|html|pdf")});
    if (const int rc = parseSubcommand(p, "campaign", args); rc >= 0)
        return rc;
    const auto usage = [&](const QString& message) {
        err << "quantscope campaign: " << message << '\n';
        return 2;
    };
    const QStringList paths = p.positionalArguments();
    if (paths.isEmpty())
        return usage(QStringLiteral(
            "give results files or folders (quantscope campaign FILE|DIR... --profile NAME|FILE)"));
    const QString outPath = p.value(QStringLiteral("out"));
    std::optional<ReportFormat> format;
    if (!outPath.isEmpty()) {
        if (const QString problem = outPathProblem(outPath); !problem.isEmpty())
            return usage(problem);
        QString formatError;
        format = documentFormatFrom(p, outPath, formatError);
        if (!format)
            return usage(formatError);
    } else if (p.isSet(QStringLiteral("format"))) {
        return usage(QStringLiteral("--format needs --out PATH"));
    }

    std::vector<CampaignFile> files;
    QStringList notes;
    try {
        files = loadCampaignFiles(paths, &notes);
    } catch (const ResultFileError& e) {
        err << "quantscope campaign: " << QString::fromUtf8(e.what()) << '\n';
        return 1;
    } catch (const CampaignError& e) {
        err << "quantscope campaign: " << QString::fromUtf8(e.what()) << '\n';
        return 1;
    }
    for (const QString& n : std::as_const(notes))
        err << "note: " << n << '\n';

    QString profileName = p.value(QStringLiteral("profile"));
    if (profileName.isEmpty()) {
        const auto earliest
            = std::min_element(files.begin(), files.end(), [](const CampaignFile& a, const CampaignFile& b) {
                  return a.result.startedAt < b.result.startedAt;
              });
        profileName = defaultDecisionProfileName(earliest->result.suite);
    }
    DecisionProfile profile;
    try {
        profile = loadDecisionProfile(profileName);
    } catch (const ProfileError& e) {
        return usage(QString::fromUtf8(e.what()) + QStringLiteral(" (the built-in profiles are: ")
            + builtinDecisionProfileNames().join(QStringLiteral(", "))
            + QStringLiteral("; or give a profile file)"));
    }

    Campaign campaign;
    try {
        campaign = buildCampaign(std::move(files), profile, p.value(QStringLiteral("baseline")));
    } catch (const CampaignError& e) {
        err << "quantscope campaign: " << QString::fromUtf8(e.what()) << '\n';
        return 1;
    } catch (const std::exception& e) {
        err << "quantscope campaign: cannot judge the profile's criteria: " << QString::fromUtf8(e.what())
            << '\n';
        return 1;
    }

    if (p.isSet(QStringLiteral("json")))
        out << QString::fromStdString(toJson(campaign).dump(2)) << '\n';
    else
        printText(out, campaign);
    if (format) {
        CampaignDocumentInput input;
        input.campaign = &campaign;
        input.generatedAt = QDateTime::currentDateTimeUtc();
        input.generator = QStringLiteral("quantscope " QS_VERSION);
        if (const QString error = writeCampaignDocument(*format, outPath, input); !error.isEmpty()) {
            err << "quantscope campaign: " << error << '\n';
            return 1;
        }
        (p.isSet(QStringLiteral("json")) ? err : out) << "Wrote " << outPath << '\n';
    }
    return 0;
}

} // namespace qs::app
