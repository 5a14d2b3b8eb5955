// SPDX-License-Identifier: MIT
// The window's layout: the views (charts, tables, panels in docks) and the menus and toolbar.
#include "app/dashboard/MainWindow.h"
#include "widgets/ResponsiveGrid.h"
#include "widgets/ViewParts.h"
#include "widgets/campaign/CampaignView.h"
#include "widgets/charts/ChartCrosshair.h"
#include "widgets/charts/LatencyLengthChart.h"
#include "widgets/charts/LiveThroughputChart.h"
#include "widgets/charts/MetricByTestChart.h"
#include "widgets/charts/PromptScalingChart.h"
#include "widgets/charts/ServerCharts.h"
#include "widgets/charts/TtftTurnChart.h"
#include "widgets/decision/DecisionView.h"
#include "widgets/fidelity/FidelityView.h"
#include "widgets/panels/EndpointsPanel.h"
#include "widgets/panels/RunPanel.h"
#include "widgets/responses/AnswerGrid.h"
#include "widgets/responses/ResponsesView.h"
#include "widgets/tables/GuardrailBanner.h"
#include "widgets/tables/QualityMatrixView.h"
#include "widgets/tables/StatisticsView.h"

#include <QActionGroup>
#include <QComboBox>
#include <QCoreApplication>
#include <QDesktopServices>
#include <QDockWidget>
#include <QFileInfo>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QScrollArea>
#include <QStatusBar>
#include <QStyle>
#include <QTabWidget>
#include <QToolBar>
#include <QUrl>
#include <QVBoxLayout>

namespace qs::app {

void MainWindow::buildViews()
{
    m_banner = new GuardrailBanner;
    auto* ttftTurn = new TtftTurnChart;
    auto* ttftTest = new MetricByTestChart(Metric::TtftVisible);
    auto* decode = new MetricByTestChart(Metric::DecodeTps);
    auto* latency = new LatencyLengthChart;
    auto* promptScaling = new PromptScalingChart;
    m_liveChart = new LiveThroughputChart;
    m_serverCharts = new ServerCharts;
    auto* quality = new QualityMatrixView;
    m_responses = new ResponsesView;
    auto* statistics = new StatisticsView;
    // One crosshair for the window: hovering a chart marks the same second of the run, turn or
    // test in the others (charts whose x means something else ignore it).
    auto* crosshair = new ChartCrosshair(this);
    for (ChartPanel* chart : std::initializer_list<ChartPanel*> {
             ttftTurn, ttftTest, decode, latency, promptScaling, m_liveChart, m_serverCharts})
        crosshair->join(chart);

    auto* chartsPage = new ResponsiveGrid(1100);
    const std::pair<QWidget*, QString> cells[] = {{ttftTurn, QStringLiteral("ttft-turn")},
        {ttftTest, QStringLiteral("ttft-test")}, {decode, QStringLiteral("decode-tps")},
        {latency, QStringLiteral("latency-length")}, {promptScaling, QStringLiteral("ttft-prompt-tokens")},
        {m_liveChart, QStringLiteral("live-tps")}, {quality, QStringLiteral("quality")}};
    for (const auto& [w, name] : cells) {
        w->setMinimumHeight(380);
        chartsPage->addWidget(w);
        m_named.emplace_back(name, w);
    }
    auto* scroll = new QScrollArea;
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setWidget(chartsPage);

    m_tabs = new QTabWidget;
    m_tabs->setDocumentMode(true);
    m_tabs->addTab(scroll, QStringLiteral("Charts"));
    m_tabs->addTab(m_serverCharts, QStringLiteral("Server"));
    m_tabs->setTabToolTip(m_tabs->count() - 1,
        QStringLiteral("What each server reported while it answered: requests running and waiting, KV cache, "
                       "memory, power"));
    m_named.emplace_back(QStringLiteral("server"), m_serverCharts);
    // Every test × endpoint at a glance first; a row opens in the side-by-side view.
    auto* answers = new AnswerGrid;
    m_tabs->addTab(answers, QStringLiteral("Answers"));
    m_tabs->setTabToolTip(m_tabs->count() - 1,
        QStringLiteral(
            "Every test's answers, one column per endpoint, the gates' verdicts in words; the whole "
            "conversation below; double-click to open it side by side"));
    m_named.emplace_back(QStringLiteral("answers"), answers);
    connect(answers, &AnswerGrid::openRequested, this, [this](const QString& test, int turn, int iteration) {
        if (m_responses->select(test, turn, iteration))
            revealView(QStringLiteral("responses"));
    });
    m_tabs->addTab(m_responses, QStringLiteral("Responses"));
    m_tabs->addTab(statistics, QStringLiteral("Statistics"));
    auto* fidelity = new FidelityView;
    m_tabs->addTab(fidelity, QStringLiteral("Fidelity"));
    m_tabs->setTabToolTip(m_tabs->count() - 1,
        QStringLiteral("How far each arm's next-token choices drift from the reference: flip rate, KL, where "
                       "answers diverge (the fidelity suite)"));
    m_named.emplace_back(QStringLiteral("fidelity"), fidelity);
    // A prompt of the fidelity list opens its answers side by side, the divergence marked.
    connect(
        fidelity, &FidelityView::promptActivated, this, [this](const QString& test, int turn, int iteration) {
            if (m_responses->select(test, turn, iteration))
                revealView(QStringLiteral("responses"));
        });
    m_decision = new DecisionView;
    m_tabs->addTab(m_decision, QStringLiteral("Decision"));
    m_tabs->setTabToolTip(m_tabs->count() - 1,
        QStringLiteral("Every criterion of a decision profile, required and measured, and the verdict — the "
                       "same as the report's"));
    m_named.emplace_back(QStringLiteral("decision"), m_decision);
    m_campaignView = new CampaignView;
    m_tabs->addTab(m_campaignView, QStringLiteral("Campaign"));
    m_tabs->setTabToolTip(m_tabs->count() - 1,
        QStringLiteral("Every attempt against one baseline over time (File → Open Campaign…): verdicts, what "
                       "changed, the baseline's drift, the best so far"));
    m_named.emplace_back(QStringLiteral("campaign"), m_campaignView);
    m_named.emplace_back(QStringLiteral("responses"), m_responses);
    m_named.emplace_back(QStringLiteral("statistics"), statistics);
    m_named.emplace_back(QStringLiteral("guardrails"), m_banner);

    auto* central = new QWidget;
    auto* layout = new QVBoxLayout(central);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    layout->addWidget(m_banner);
    layout->addWidget(m_tabs, 1);
    setCentralWidget(central);

    m_endpoints = new EndpointsPanel;
    m_runPanel = new RunPanel;
    auto* endpointsDock = new QDockWidget(QStringLiteral("Endpoints"), this);
    endpointsDock->setObjectName(QStringLiteral("EndpointsDock"));
    endpointsDock->setWidget(m_endpoints);
    auto* runDock = new QDockWidget(QStringLiteral("Run"), this);
    runDock->setObjectName(QStringLiteral("RunDock"));
    runDock->setWidget(m_runPanel);
    addDockWidget(Qt::LeftDockWidgetArea, endpointsDock);
    addDockWidget(Qt::LeftDockWidgetArea, runDock);
    resizeDocks({endpointsDock, runDock}, {380, 620}, Qt::Vertical);
    resizeDocks({endpointsDock}, {560}, Qt::Horizontal);
    m_named.emplace_back(QStringLiteral("endpoints"), m_endpoints);
    m_named.emplace_back(QStringLiteral("run"), m_runPanel);

    m_views = {m_banner, ttftTurn, ttftTest, decode, latency, promptScaling, m_liveChart, m_serverCharts,
        quality, answers, m_responses, statistics, fidelity, m_decision};

    m_statusFile = new QLabel;
    statusBar()->addPermanentWidget(m_statusFile);
}

void MainWindow::buildActions()
{
    QStyle* st = style();
    QMenu* file = menuBar()->addMenu(QStringLiteral("&File"));
    QAction* openAction = file->addAction(
        st->standardIcon(QStyle::SP_DialogOpenButton), QStringLiteral("&Open…"), this, &MainWindow::open);
    openAction->setShortcut(QKeySequence::Open);
    openAction->setToolTip(
        QStringLiteral("Open one or more results files for review (several: side by side)"));
    m_recentMenu = file->addMenu(QStringLiteral("Open &Recent"));
    file->addAction(QStringLiteral("Open &Campaign…"), this, &MainWindow::chooseCampaign)
        ->setStatusTip(QStringLiteral("Every attempt against one baseline: a folder of results files (or "
                                      "several files), in the order they ran"));
    file->addSeparator();
    m_saveAction = file->addAction(
        st->standardIcon(QStyle::SP_DialogSaveButton), QStringLiteral("&Save"), this, &MainWindow::save);
    m_saveAction->setShortcut(QKeySequence::Save);
    m_saveAsAction = file->addAction(QStringLiteral("Save &As…"), this, &MainWindow::saveAs);
    m_saveAsAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_S));
    file->addSeparator();
    m_reportAction = file->addAction(QStringLiteral("Export &Report…"), this, &MainWindow::exportReport);
    m_reportAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
    m_screenshotAction
        = file->addAction(QStringLiteral("Export Scree&nshot…"), this, &MainWindow::exportScreenshot);
    m_screenshotAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_E));
    file->addSeparator();
    QAction* quit = file->addAction(QStringLiteral("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Q)); // QKeySequence::Quit is empty on some platforms
    quit->setMenuRole(QAction::QuitRole);

    QMenu* run = menuBar()->addMenu(QStringLiteral("&Run"));
    m_runAction = run->addAction(
        playIcon(themeColors(Theme::Light).pass), QStringLiteral("&Run"), this, &MainWindow::startRun);
    m_runAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_R));
    m_runAction->setToolTip(QStringLiteral("Run the suite against the endpoints (Ctrl+R)"));
    m_stopAction = run->addAction(stopIcon(themeColors(Theme::Light).criticalAccent), QStringLiteral("&Stop"),
        this, &MainWindow::stopRun);
    m_stopAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Period));
    m_stopAction->setToolTip(QStringLiteral("Stop the run; every finished request is kept (Ctrl+.)"));
    run->addSeparator();
    m_judgeAction = run->addAction(QStringLiteral("&Judge the answers…"), this, &MainWindow::judgeAnswers);
    m_judgeAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_J));
    m_judgeAction->setToolTip(QStringLiteral(
        "Grade the answers shown with an LLM judge (a rubric, and/or blind pairwise against the baseline); "
        "the verdicts are saved into the results file (Ctrl+J)"));

    QMenu* view = menuBar()->addMenu(QStringLiteral("&View"));
    auto* themes = new QActionGroup(this);
    m_lightAction = view->addAction(QStringLiteral("&Light theme"), this, [this] { setTheme(Theme::Light); });
    m_darkAction = view->addAction(QStringLiteral("&Dark theme"), this, [this] { setTheme(Theme::Dark); });
    for (QAction* a : {m_lightAction, m_darkAction}) {
        a->setCheckable(true);
        themes->addAction(a);
    }
    view->addSeparator();
    for (QDockWidget* dock : findChildren<QDockWidget*>())
        view->addAction(dock->toggleViewAction());

    QMenu* help = menuBar()->addMenu(QStringLiteral("&Help"));
    help->addAction(QStringLiteral("&Documentation"), this,
            [this] {
                // The installed docs (the .deb's), else the source tree's beside a build.
                const QString installed = QCoreApplication::applicationDirPath()
                    + QStringLiteral("/../share/doc/quantscope/docs");
                QString folder;
                for (const QString& dir : {installed, QStringLiteral(QS_SOURCE_DOCS)})
                    if (QFileInfo::exists(dir + QStringLiteral("/dashboard.md"))) {
                        folder = QFileInfo(dir).canonicalFilePath();
                        break;
                    }
                if (folder.isEmpty()
                    || !QDesktopServices::openUrl(
                        QUrl::fromLocalFile(folder + QStringLiteral("/dashboard.md"))))
                    QMessageBox::information(this, QStringLiteral("Documentation"),
                        folder.isEmpty()
                            ? QStringLiteral(
                                "The documentation is in the docs/ folder of Quantscope's source, and in "
                                "/usr/share/doc/quantscope/docs when installed from the .deb.")
                            : QStringLiteral("The documentation is in %1 (start with dashboard.md).")
                                  .arg(folder));
            })
        ->setStatusTip(
            QStringLiteral("Open the dashboard's guide (docs/dashboard.md) and the other documents"));
    help->addAction(QStringLiteral("&About Quantscope"), this, [this] {
        auto* box = new QMessageBox(QMessageBox::Information, QStringLiteral("About Quantscope"),
            QStringLiteral("Quantscope %1 (Qt %2)\n\nCompare LLM inference endpoints side by side: TTFT that "
                           "means the first answer token, token counts from the server, warm-ups out of the "
                           "statistics, quality gates on every answer, paired intervals, and a warning for "
                           "every way a comparison can mislead.")
                .arg(QStringLiteral(QS_VERSION), QString::fromLatin1(qVersion())),
            QMessageBox::Ok, this);
        box->setAttribute(Qt::WA_DeleteOnClose);
        box->open();
    });

    QToolBar* bar = addToolBar(QStringLiteral("Main"));
    bar->setObjectName(QStringLiteral("MainToolBar"));
    bar->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    bar->addAction(openAction);
    bar->addAction(m_saveAction);
    bar->addSeparator();
    bar->addAction(m_runAction);
    bar->addAction(m_stopAction);
    bar->addSeparator();
    bar->addAction(m_screenshotAction);
    bar->addSeparator();
    auto* baselineLabel = new QLabel(QStringLiteral(" Baseline: "));
    m_baselineBox = new QComboBox;
    m_baselineBox->setObjectName(QStringLiteral("baselinePicker"));
    m_baselineBox->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_baselineBox->setToolTip(
        QStringLiteral("The endpoint every other one is compared with: usually the one in production. The "
                       "paired comparison, the guardrails and the report judge each candidate against it."));
    baselineLabel->setToolTip(m_baselineBox->toolTip());
    baselineLabel->setBuddy(m_baselineBox);
    m_baselineBox->setEnabled(false);
    bar->addWidget(baselineLabel);
    bar->addWidget(m_baselineBox);
    connect(m_baselineBox, &QComboBox::activated, this, &MainWindow::setBaseline);
}

} // namespace qs::app
