// SPDX-License-Identifier: MIT
// The dashboard (`quantscope`, `quantscope gui [FILE…]`) and its headless twin for pictures
// (`quantscope screenshot`). Both need a QApplication: Qt Charts is built on Graphics View.
#include "app/cli/CommandLine.h"
#include "app/cli/Commands.h"
#include "app/common/DashboardViews.h"
#include "app/common/Offscreen.h"
#include "app/dashboard/MainWindow.h"
#include "app/dashboard/ScreenshotStage.h"
#include "model/core/Suite.h"
#include "model/decide/Campaign.h"
#include "widgets/ScreenCheck.h"
#include "widgets/ScreenshotRenderer.h"
#include "widgets/campaign/CampaignView.h"
#include "widgets/panels/EndpointsPanel.h"
#include "widgets/panels/RunPanel.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QFileInfo>
#include <QIcon>
#include <QStyleFactory>
#include <QTextStream>
#include <algorithm>

namespace qs::app {

namespace {

void setUpApplication(QApplication& app)
{
    QApplication::setApplicationName(QStringLiteral("quantscope"));
    QApplication::setOrganizationName(QStringLiteral("quantscope"));
    QApplication::setApplicationDisplayName(QStringLiteral("Quantscope"));
    QApplication::setApplicationVersion(QStringLiteral(QS_VERSION));
    // The installed desktop entry's name (packaging/): Wayland compositors match windows to it.
    QGuiApplication::setDesktopFileName(QStringLiteral("io.github.quantscope.Quantscope"));
    // Every size the resource holds (resources/CMakeLists.txt), so title bars and task bars
    // pick a drawn size instead of scaling one picture.
    QIcon icon;
    for (const int size : {16, 32, 48, 64, 128, 256})
        icon.addFile(QStringLiteral(":/icons/quantscope-%1.png").arg(size), QSize(size, size));
    QApplication::setWindowIcon(icon);
    // Fusion looks the same on every desktop and takes our palette fully, so screenshots match.
    app.setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
}

} // namespace

int runGui(int argc, char** argv, const QStringList& args)
{
    QApplication app(argc, argv);
    setUpApplication(app);
    QStringList files;
    bool campaign = false;
    QString profile;
    for (qsizetype i = 0; i < args.size(); ++i) {
        const QString& a = args[i];
        if (a == u"--help" || a == u"-h") {
            QTextStream(stdout)
                << "Usage: quantscope gui [FILE...]\n       quantscope gui --campaign FILE|DIR...\n\nOpens "
                   "the "
                   "dashboard; with files, reviews them (several side by side); with --campaign, shows "
                   "every attempt of the files (or folders of them) in the Campaign tab.\n";
            return 0;
        }
        if (a == u"--campaign") {
            campaign = true;
            continue;
        }
        if (a == u"--profile" && i + 1 < args.size()) {
            profile = args[++i];
            continue;
        }
        if (a.startsWith(u'-')) {
            QTextStream(stderr) << "quantscope gui: unknown option " << a
                                << " (usage: quantscope gui [--campaign] [FILE...])\n";
            return 2;
        }
        files << a;
    }
    if (campaign && files.isEmpty()) {
        QTextStream(stderr) << "quantscope gui: --campaign needs results files or folders\n";
        return 2;
    }
    MainWindow window;
    if (!profile.isEmpty()) {
        if (const QString error = window.useProfile(profile); !error.isEmpty()) {
            QTextStream(stderr) << "quantscope gui: " << error << '\n';
            return 2;
        }
    }
    window.show();
    if (campaign)
        window.openCampaign(files);
    else if (!files.isEmpty())
        window.openFiles(files);
    return QApplication::exec();
}

namespace {

int writeScreenshot(
    const QImage& image, QSize size, int scale, const QString& outPath, const QString& view, Theme theme)
{
    QTextStream out(stdout);
    QTextStream err(stderr);
    if (image.size() != size * scale)
        err << "note: the view needs at least " << image.width() / scale << "×" << image.height() / scale
            << " to lay itself out; it was rendered at that size instead of " << size.width() << "×"
            << size.height() << '\n';
    if (const QString error = savePng(image, outPath); !error.isEmpty()) {
        err << "quantscope screenshot: " << error << '\n';
        return 1;
    }
    out << "Wrote " << outPath << " (" << image.width() << "×" << image.height() << " px, view " << view
        << ", " << scale << "×, " << themeId(theme) << ")\n";
    return 0;
}

/// With --check, prints what the screen check found in `widget`; how many problems (0 without it).
int reportScreenProblems(const QCommandLineParser& p, QWidget* widget)
{
    if (!p.isSet(QStringLiteral("check")))
        return 0;
    const std::vector<ScreenProblem> problems = checkScreen(widget);
    QTextStream err(stderr);
    for (const ScreenProblem& problem : problems)
        err << "screen check: " << problem.text() << '\n';
    if (problems.empty())
        err << "screen check: nothing cut off, no column off-screen, no scrollbar\n";
    return int(problems.size());
}

/// The image is written either way; --check then says whether a person would find it wanting.
int finish(int written, int problems)
{
    return written != 0 ? written : (problems > 0 ? 3 : 0);
}

} // namespace

int runScreenshot(int argc, char** argv, const QStringList& args)
{
    // Headless by design: the same pixels on a laptop, a server and CI.
    prepareOffscreen();
    QApplication app(argc, argv);
    setUpApplication(app);
    QTextStream out(stdout);
    QTextStream err(stderr);
    QCommandLineParser p;
    p.setApplicationDescription(QStringLiteral(
        "Render a view of a results file to PNG, headless (offscreen), for blog posts and documents."));
    p.addHelpOption();
    p.addPositionalArgument(QStringLiteral("FILE"),
        QStringLiteral("Results file(s); several are shown side by side."), QStringLiteral("FILE [FILE...]"));
    p.addOption({QStringLiteral("view"), QStringLiteral("The view to render (see --list-views)."),
        QStringLiteral("NAME")});
    p.addOption({QStringLiteral("out"), QStringLiteral("PNG file to write."), QStringLiteral("PNG")});
    p.addOption({QStringLiteral("scale"), QStringLiteral("Pixel density: 1, 2 or 3 (default 2)."),
        QStringLiteral("N"), QStringLiteral("2")});
    p.addOption({QStringLiteral("theme"), QStringLiteral("light (default) or dark."), QStringLiteral("THEME"),
        QStringLiteral("light")});
    p.addOption({QStringLiteral("size"), QStringLiteral("Logical size WxH instead of the view's default."),
        QStringLiteral("WxH")});
    p.addOption(baselineOption());
    p.addOption({QStringLiteral("profile"),
        QStringLiteral(
            "The campaign view's decision profile: a built-in name or a file (default: as `quantscope "
            "campaign` chooses)."),
        QStringLiteral("NAME|FILE")});
    p.addOption({QStringLiteral("check"),
        QStringLiteral(
            "Check the rendered view for what a person would notice — text cut off, a column off "
            "to the right, a scrollbar in the image — print each problem and exit 3 when there are "
            "any (the image is written all the same).")});
    p.addOption({QStringLiteral("list-views"),
        QStringLiteral("Print the views, one per line: the name --view takes, then what it shows.")});
    if (const int rc = parseSubcommand(p, "screenshot", args); rc >= 0)
        return rc;
    if (p.isSet(QStringLiteral("list-views"))) {
        int width = 0;
        for (const ViewInfo& v : dashboardViews())
            width = std::max(width, int(v.name.size()));
        for (const ViewInfo& v : dashboardViews())
            out << v.name.leftJustified(width + 2) << v.description << '\n';
        return 0;
    }
    const QString viewName = p.value(QStringLiteral("view"));
    const ViewInfo* view = findView(viewName);
    if (!view) {
        err << "quantscope screenshot: "
            << (viewName.isEmpty() ? QStringLiteral("--view is required")
                                   : QStringLiteral("unknown view \"%1\"").arg(viewName))
            << "; the views are: ";
        QStringList names;
        for (const ViewInfo& v : dashboardViews())
            names << v.name;
        err << names.join(QStringLiteral(", ")) << '\n';
        return 2;
    }
    const QString outPath = p.value(QStringLiteral("out"));
    if (outPath.isEmpty()) {
        err << "quantscope screenshot: --out PNG is required\n";
        return 2;
    }
    bool scaleOk = false;
    const int scale = p.value(QStringLiteral("scale")).toInt(&scaleOk);
    if (!scaleOk || scale < 1 || scale > 3) {
        err << "quantscope screenshot: --scale must be 1, 2 or 3\n";
        return 2;
    }
    const std::optional<Theme> theme = themeFromId(p.value(QStringLiteral("theme")));
    if (!theme) {
        err << "quantscope screenshot: --theme must be light or dark\n";
        return 2;
    }
    QSize size = view->size;
    if (p.isSet(QStringLiteral("size"))) {
        const QStringList wh = p.value(QStringLiteral("size")).split(u'x');
        const int w = wh.value(0).toInt();
        const int h = wh.value(1).toInt();
        if (wh.size() != 2 || w < 200 || h < 150 || w > 8000 || h > 8000) {
            err << "quantscope screenshot: --size must be WxH, e.g. 1200x800 (200x150 to 8000x8000)\n";
            return 2;
        }
        size = QSize(w, h);
    }
    const QStringList files = p.positionalArguments();
    if (files.isEmpty()) {
        err << "quantscope screenshot: give a results file (quantscope screenshot FILE --view NAME --out "
               "PNG)\n";
        return 2;
    }

    if (view->name == u"campaign") {
        // Not one run but every file given, each judged against its own baseline.
        std::shared_ptr<const Campaign> campaign;
        try {
            QStringList notes;
            std::vector<CampaignFile> loaded = loadCampaignFiles(files, &notes);
            for (const QString& n : std::as_const(notes))
                err << "note: " << n << '\n';
            QString profileName = p.value(QStringLiteral("profile"));
            if (profileName.isEmpty())
                profileName = defaultDecisionProfileName(loaded.front().result.suite);
            campaign = std::make_shared<const Campaign>(buildCampaign(
                std::move(loaded), loadDecisionProfile(profileName), p.value(QStringLiteral("baseline"))));
        } catch (const std::exception& e) {
            err << "quantscope screenshot: " << QString::fromUtf8(e.what()) << '\n';
            return 1;
        }
        const std::unique_ptr<QWidget> standalone = stageCampaign(campaign, *theme, size);
        const int problems = reportScreenProblems(p, standalone.get());
        return finish(
            writeScreenshot(renderWidget(standalone.get(), scale), size, scale, outPath, view->name, *theme),
            problems);
    }

    const std::shared_ptr<const RunResult> result = loadResultsFor("screenshot", files);
    if (!result)
        return 1;
    QString baselineError;
    const std::optional<int> baseline = baselineFrom(p, *result, baselineError);
    if (!baseline) {
        err << "quantscope screenshot: " << baselineError << '\n';
        return 2;
    }
    DashboardData data = prepareDashboard(result, *baseline);
    data.sources = files;

    const std::unique_ptr<QWidget> standalone
        = stageView(*view, data, files, *theme, size, !p.isSet(QStringLiteral("size")));
    if (!standalone) {
        err << "quantscope screenshot: the view \"" << view->name << "\" cannot be rendered\n";
        return 1;
    }
    const int problems = reportScreenProblems(p, standalone.get());
    return finish(
        writeScreenshot(renderWidget(standalone.get(), scale), size, scale, outPath, view->name, *theme),
        problems);
}

} // namespace qs::app
