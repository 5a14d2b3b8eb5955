// SPDX-License-Identifier: MIT
#include "app/MainWindow.h"

#include "app/DashboardViews.h"
#include "app/ReportDialog.h"
#include "app/ScreenshotDialog.h"
#include "model/core/Suite.h"
#include "model/store/ResultFile.h"
#include "model/store/RunJournal.h"
#include "tests/support/SimulatedProfiles.h"
#include "widgets/ResponsiveGrid.h"
#include "widgets/ScreenshotRenderer.h"
#include "widgets/charts/LatencyLengthChart.h"
#include "widgets/charts/LiveThroughputChart.h"
#include "widgets/charts/MetricByTestChart.h"
#include "widgets/charts/TtftTurnChart.h"
#include "widgets/panels/EndpointsPanel.h"
#include "widgets/panels/RunPanel.h"
#include "widgets/responses/ResponsesView.h"
#include "widgets/tables/GuardrailBanner.h"
#include "widgets/tables/QualityMatrixView.h"
#include "widgets/tables/StatisticsView.h"

#include <QActionGroup>
#include <QApplication>
#include <QClipboard>
#include <QCloseEvent>
#include <QComboBox>
#include <QDateTime>
#include <QDir>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QFileDialog>
#include <QFileInfo>
#include <QGridLayout>
#include <QLabel>
#include <QLoggingCategory>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QScrollArea>
#include <QSettings>
#include <QStandardPaths>
#include <QStatusBar>
#include <QStyle>
#include <QTabWidget>
#include <QTextStream>
#include <QTimer>
#include <QToolBar>
#include <QVBoxLayout>
#include <QtConcurrent>

// Debug output (slow view refreshes) with QT_LOGGING_RULES="quantscope.gui.debug=true".
Q_LOGGING_CATEGORY(lcGui, "quantscope.gui", QtInfoMsg)

namespace qs::app {

namespace {

constexpr int MaxRecentFiles = 10;
constexpr int LiveRefreshMs = 500; // evaluation of a live run: twice a second is plenty for medians

QString runsDirectory()
{
    return QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) + QStringLiteral("/runs");
}

/// The embedded default: the two simulated endpoints the CLI's demo uses.
std::vector<EndpointEntry> defaultEntries()
{
    EndpointEntry q4;
    q4.endpoint.label = QStringLiteral("Q4_K_M llama-server (simulated)");
    q4.endpoint.quantization = QStringLiteral("Q4_K_M");
    q4.simulatedProfile = QStringLiteral("q4km-like");
    EndpointEntry fp4;
    fp4.endpoint.label = QStringLiteral("NVFP4 vLLM (simulated)");
    fp4.endpoint.quantization = QStringLiteral("NVFP4");
    fp4.simulatedProfile = QStringLiteral("nvfp4-like");
    return {q4, fp4};
}

RunPanelSettings defaultRunSettings()
{
    // Short enough to watch a whole run in under two minutes; the guardrails say it is few runs.
    RunPanelSettings s;
    s.suite = QStringLiteral("voice-assistant");
    s.settings.warmup = 1;
    s.settings.runs = 2;
    s.settings.order = RunOrder::Parallel;
    return s;
}

struct Loaded {
    std::shared_ptr<const RunResult> result;
    QString error;
    QStringList notes;
};

Loaded loadAndCombine(const QStringList& paths)
{
    Loaded out;
    try {
        out.result = std::make_shared<const RunResult>(loadForReview(paths, &out.notes));
    } catch (const ResultFileError& e) {
        out.error = QString::fromUtf8(e.what());
    }
    return out;
}

} // namespace

MainWindow::MainWindow(bool persistent, QWidget* parent)
    : QMainWindow(parent)
    , m_persistent(persistent)
    , m_controller(new RunController(this))
    , m_probeResolver(std::make_unique<EndpointResolver>())
    , m_liveTimer(new QTimer(this))
{
    setObjectName(QStringLiteral("QuantscopeMainWindow"));
    setWindowTitle(QStringLiteral("Quantscope"));
    setAcceptDrops(true);
    buildViews();
    buildActions();

    m_liveTimer->setInterval(LiveRefreshMs);
    connect(m_liveTimer, &QTimer::timeout, this, &MainWindow::scheduleLiveRefresh);

    connect(m_controller, &RunController::progress, this, [this](const RunProgress& p) {
        m_runPanel->setProgress(p);
        if (m_probing) { // the probes are done once requests are counted
            m_probing = false;
            m_runPanel->setStatusText(QString());
        }
        statusBar()->showMessage(
            QStringLiteral("Running: %1 of %2 requests, %3 failed").arg(p.done).arg(p.total).arg(p.failed));
    });
    connect(m_controller, &RunController::recordFinished, this, [this](const RunRecord& r) {
        if (m_live) {
            m_live->records.push_back(r);
            m_liveDirty = true;
        }
    });
    connect(m_controller, &RunController::liveDeltas, this, [this](const QList<LiveDelta>& deltas) {
        m_runPanel->addDeltas(deltas);
        m_liveChart->addDeltas(deltas);
    });
    connect(m_controller, &RunController::warning, this, [this](const QString& message) {
        m_probing = false;
        m_runPanel->setStatusText(message);
        statusBar()->showMessage(message, 10000);
    });
    connect(m_controller, &RunController::finished, this, &MainWindow::onRunFinished);
    connect(m_controller, &RunController::failed, this, [this](const QString& message) {
        m_liveTimer->stop();
        m_live.reset();
        m_liveChart->endLive();
        m_runPanel->setRunning(false);
        m_runPanel->setStatusText(QStringLiteral("The run could not start: ") + message);
        m_endpoints->setLocked(false);
        statusBar()->showMessage(QStringLiteral("The run could not start: ") + message);
        updateActions();
        Q_EMIT runFinished(false, QString());
    });
    connect(m_runPanel, &RunPanel::runRequested, this, &MainWindow::startRun);
    connect(m_runPanel, &RunPanel::stopRequested, this, &MainWindow::stopRun);
    connect(m_endpoints, &EndpointsPanel::probeRequested, this, &MainWindow::probe);
    connect(m_runPanel, &RunPanel::settingsChanged, this, &MainWindow::updateSuiteDefaults);

    std::vector<std::pair<QString, QString>> profiles;
    for (const QString& name : emu::simulatedProfileNames())
        profiles.emplace_back(name, emu::simulatedProfileDescription(name));
    m_endpoints->setSimulatedProfiles(profiles);
    m_runPanel->setBuiltinSuites(builtinSuiteNames());

    if (m_persistent) {
        restoreSettings();
    } else {
        m_endpoints->setEntries(defaultEntries());
        m_runPanel->setSettings(defaultRunSettings());
        resize(1600, 1000);
        updateRecentMenu();
    }
    setTheme(m_theme);
    updateActions();
    statusBar()->showMessage(
        QStringLiteral("Ready. Press Run (Ctrl+R) to compare the endpoints on the left, or "
                       "open a results file (Ctrl+O) to review it."));
    if (m_persistent)
        QTimer::singleShot(0, this, &MainWindow::offerRecovery);
}

MainWindow::~MainWindow()
{
    // The runner first: it cancels and journals what is in flight while the run's simulated
    // servers (m_runResolver, destroyed with the members) are still there to talk to.
    delete m_controller;
    m_controller = nullptr;
}

// ---------------------------------------------------------------------------------------------
// Layout

void MainWindow::buildViews()
{
    m_banner = new GuardrailBanner;
    auto* ttftTurn = new TtftTurnChart;
    auto* ttftTest = new MetricByTestChart(Metric::TtftVisible);
    auto* decode = new MetricByTestChart(Metric::DecodeTps);
    auto* latency = new LatencyLengthChart;
    m_liveChart = new LiveThroughputChart;
    auto* quality = new QualityMatrixView;
    m_responses = new ResponsesView;
    auto* statistics = new StatisticsView;

    auto* chartsPage = new ResponsiveGrid(1100);
    const std::pair<QWidget*, QString> cells[]
        = {{ttftTurn, QStringLiteral("ttft-turn")}, {ttftTest, QStringLiteral("ttft-test")},
            {decode, QStringLiteral("decode-tps")}, {latency, QStringLiteral("latency-length")},
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
    m_tabs->addTab(m_responses, QStringLiteral("Responses"));
    m_tabs->addTab(statistics, QStringLiteral("Statistics"));
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

    m_views = {m_banner, ttftTurn, ttftTest, decode, latency, m_liveChart, quality, m_responses, statistics};

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
        st->standardIcon(QStyle::SP_MediaPlay), QStringLiteral("&Run"), this, &MainWindow::startRun);
    m_runAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_R));
    m_runAction->setToolTip(QStringLiteral("Run the suite against the endpoints (Ctrl+R)"));
    m_stopAction = run->addAction(
        st->standardIcon(QStyle::SP_MediaStop), QStringLiteral("&Stop"), this, &MainWindow::stopRun);
    m_stopAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Period));
    m_stopAction->setToolTip(QStringLiteral("Stop the run; every finished request is kept (Ctrl+.)"));

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

// ---------------------------------------------------------------------------------------------
// Settings

void MainWindow::restoreSettings()
{
    QSettings s;
    std::vector<EndpointEntry> entries;
    const QByteArray stored = s.value(QStringLiteral("endpoints")).toByteArray();
    if (!stored.isEmpty()) {
        try {
            for (const auto& j : nlohmann::json::parse(stored.toStdString()))
                entries.push_back(endpointEntryFromJson(j));
        } catch (const std::exception& e) {
            statusBar()->showMessage(
                QStringLiteral("The saved endpoints could not be read (%1); the defaults are shown.")
                    .arg(QString::fromUtf8(e.what())));
            entries.clear();
        }
    }
    m_endpoints->setEntries(entries.empty() && stored.isEmpty() ? defaultEntries() : entries);

    RunPanelSettings run = defaultRunSettings();
    if (s.contains(QStringLiteral("run/suite"))) {
        run.suite = s.value(QStringLiteral("run/suite")).toString();
        run.settings.warmup = s.value(QStringLiteral("run/warmup"), -1).toInt();
        run.settings.runs = s.value(QStringLiteral("run/runs"), -1).toInt();
        run.settings.order
            = runOrderFromId(s.value(QStringLiteral("run/order")).toString()).value_or(RunOrder::Interleaved);
        run.settings.concurrency = std::max(1, s.value(QStringLiteral("run/concurrency"), 1).toInt());
        const int maxTokens = s.value(QStringLiteral("run/maxTokens"), -1).toInt();
        if (maxTokens > 0)
            run.settings.maxTokens = maxTokens;
    }
    m_runPanel->setSettings(run);
    m_theme = themeFromId(s.value(QStringLiteral("theme")).toString()).value_or(Theme::Light);
    m_baselineLabel = s.value(QStringLiteral("baseline")).toString();
    restoreGeometry(s.value(QStringLiteral("window/geometry")).toByteArray());
    restoreState(s.value(QStringLiteral("window/state")).toByteArray());
    if (!s.contains(QStringLiteral("window/geometry")))
        resize(1600, 1000);
    updateRecentMenu();
}

void MainWindow::saveSettings() const
{
    QSettings s;
    nlohmann::json list = nlohmann::json::array();
    for (const EndpointEntry& e : m_endpoints->entries())
        list.push_back(toJson(e));
    s.setValue(QStringLiteral("endpoints"), QByteArray::fromStdString(list.dump()));
    const RunPanelSettings run = m_runPanel->settings();
    s.setValue(QStringLiteral("run/suite"), run.suite);
    s.setValue(QStringLiteral("run/warmup"), run.settings.warmup);
    s.setValue(QStringLiteral("run/runs"), run.settings.runs);
    s.setValue(QStringLiteral("run/order"), runOrderId(run.settings.order));
    s.setValue(QStringLiteral("run/concurrency"), run.settings.concurrency);
    s.setValue(QStringLiteral("run/maxTokens"), run.settings.maxTokens.value_or(-1));
    s.setValue(QStringLiteral("theme"), themeId(m_theme));
    s.setValue(QStringLiteral("baseline"), m_baselineLabel);
    s.setValue(QStringLiteral("window/geometry"), saveGeometry());
    s.setValue(QStringLiteral("window/state"), saveState());
}

void MainWindow::addRecent(const QStringList& paths)
{
    if (!m_persistent)
        return;
    QSettings s;
    QStringList recent = s.value(QStringLiteral("recentFiles")).toStringList();
    for (const QString& p : paths) {
        const QString abs = QFileInfo(p).absoluteFilePath();
        recent.removeAll(abs);
        recent.prepend(abs);
    }
    while (recent.size() > MaxRecentFiles)
        recent.removeLast();
    s.setValue(QStringLiteral("recentFiles"), recent);
    updateRecentMenu();
}

void MainWindow::updateRecentMenu()
{
    m_recentMenu->clear();
    const QStringList recent
        = m_persistent ? QSettings().value(QStringLiteral("recentFiles")).toStringList() : QStringList();
    int n = 0;
    for (const QString& path : recent) {
        QAction* a
            = m_recentMenu->addAction(QStringLiteral("&%1 %2").arg(++n).arg(QFileInfo(path).fileName()), this,
                [this, path] { openFiles({path}); });
        a->setToolTip(path);
        a->setStatusTip(path);
    }
    if (recent.isEmpty())
        m_recentMenu->addAction(QStringLiteral("(none yet)"))->setEnabled(false);
    else {
        m_recentMenu->addSeparator();
        m_recentMenu->addAction(QStringLiteral("Clear the list"), this, [this] {
            QSettings().remove(QStringLiteral("recentFiles"));
            updateRecentMenu();
        });
    }
}

void MainWindow::closeEvent(QCloseEvent* event)
{
    if (running()) {
        // The journal holds every finished request; stopping saves a partial results file.
        const auto answer = QMessageBox::question(this, QStringLiteral("A run is in progress"),
            QStringLiteral("Stop the run and quit? Every finished request is kept in the run's journal and "
                           "saved as an incomplete results file."),
            QMessageBox::Yes | QMessageBox::No, QMessageBox::No);
        if (answer != QMessageBox::Yes) {
            event->ignore();
            return;
        }
        stopRun();
    }
    if (m_persistent)
        saveSettings();
    event->accept();
}

// ---------------------------------------------------------------------------------------------
// Showing data

void MainWindow::setTheme(Theme theme)
{
    m_theme = theme;
    qApp->setPalette(themePalette(theme));
    for (DashboardView* v : m_views)
        v->setTheme(theme);
    m_lightAction->setChecked(theme == Theme::Light);
    m_darkAction->setChecked(theme == Theme::Dark);
}

void MainWindow::showPrepared(DashboardData data, const QString& file)
{
    ++m_generation;
    m_currentFile = file;
    m_sources = data.sources;
    m_pendingViews.clear();
    m_incoming = data;
    m_data = std::move(data);
    m_reviewed = m_data.result;
    m_baseline = m_data.evaluation ? m_data.evaluation->baseline : 0;
    if (m_data.result)
        offerBaselines(*m_data.result);
    for (DashboardView* v : m_views)
        v->setData(m_data);
    statusBar()->clearMessage(); // not "Ready. Press Run…" under a file being reviewed
    updateStatus();
    updateActions();
}

void MainWindow::showData(DashboardData data)
{
    // One view per event: a 100,000-record file costs each view a linear pass, and the event
    // loop must not stall for the sum of them. data() changes when every view has the new data.
    m_incoming = std::move(data);
    m_pendingViews = m_views;
    if (!m_distributing) {
        m_distributing = true;
        QTimer::singleShot(0, this, &MainWindow::showNextView);
    }
}

void MainWindow::showNextView()
{
    if (m_pendingViews.empty()) {
        m_distributing = false;
        m_data = m_incoming;
        updateStatus();
        updateActions();
        Q_EMIT dataShown();
        return;
    }
    DashboardView* view = m_pendingViews.front();
    m_pendingViews.erase(m_pendingViews.begin());
    QElapsedTimer t;
    t.start();
    view->setData(m_incoming);
    if (t.elapsed() > 20)
        qCDebug(lcGui) << "setData" << dynamic_cast<QObject*>(view)->metaObject()->className() << t.elapsed()
                       << "ms";
    QTimer::singleShot(0, this, &MainWindow::showNextView);
}

void MainWindow::setSources(const QStringList& sources)
{
    // Where the data lives changed, not the data: no view needs it again.
    m_sources = sources;
    m_data.sources = sources;
    m_incoming.sources = sources;
    updateStatus();
}

void MainWindow::updateStatus()
{
    const RunResult* r = m_data.result.get();
    if (!r) {
        m_statusFile->clear();
        return;
    }
    const QString where = m_data.live ? QStringLiteral("live run")
        : m_currentFile.isEmpty()     ? m_data.sources.join(QStringLiteral(" + "))
                                      : QDir::toNativeSeparators(m_currentFile);
    m_statusFile->setText(QStringLiteral("%1 · %2 records%3")
                              .arg(where.isEmpty() ? QStringLiteral("unsaved run") : where)
                              .arg(r->records.size())
                              .arg(r->complete || m_data.live ? QString() : QStringLiteral(" · INCOMPLETE")));
}

void MainWindow::evaluateAsync(
    std::shared_ptr<const RunResult> result, bool withComparison, bool thenComparison)
{
    const quint64 generation = m_generation;
    const bool live = running();
    m_evaluating = true;
    auto* watcher = new QFutureWatcher<DashboardData>(this);
    connect(watcher, &QFutureWatcher<DashboardData>::finished, this,
        [this, watcher, generation, live, thenComparison] {
            DashboardData d = watcher->result();
            watcher->deleteLater();
            m_evaluating = false;
            if (generation != m_generation)
                return; // the user moved on (another file, a new run): drop it
            d.live = live && running();
            d.sources = m_sources;
            const std::shared_ptr<const RunResult> shown = d.result;
            showData(std::move(d));
            if (thenComparison)
                evaluateAsync(shown, true, false);
        });
    watcher->setFuture(QtConcurrent::run(prepareDashboard, std::move(result), m_baseline, withComparison));
}

void MainWindow::scheduleLiveRefresh()
{
    if (!m_liveDirty || m_evaluating || !m_live)
        return;
    m_liveDirty = false;
    // A snapshot: the views and the worker read it while new records keep arriving.
    evaluateAsync(std::make_shared<const RunResult>(*m_live), true, false);
}

int MainWindow::baselineFor(const RunResult& result) const
{
    for (std::size_t i = 0; i < result.endpoints.size(); ++i)
        if (result.endpoints[i].endpoint.displayName() == m_baselineLabel)
            return int(i);
    return 0;
}

void MainWindow::offerBaselines(const RunResult& result)
{
    const QSignalBlocker quiet(m_baselineBox);
    m_baselineBox->clear();
    for (std::size_t i = 0; i < result.endpoints.size(); ++i)
        m_baselineBox->addItem(endpointTitle(result, int(i)));
    m_baselineBox->setCurrentIndex(m_baseline);
    m_baselineBox->setEnabled(result.endpoints.size() > 1);
}

void MainWindow::setBaseline(int index)
{
    const RunResult* shown = running() ? m_live.get() : m_reviewed.get();
    if (!shown || index < 0 || std::size_t(index) >= shown->endpoints.size())
        return;
    m_baselineLabel = shown->endpoints[std::size_t(index)].endpoint.displayName();
    if (index == m_baseline)
        return;
    m_baseline = index;
    {
        const QSignalBlocker quiet(m_baselineBox);
        m_baselineBox->setCurrentIndex(index);
    }
    statusBar()->showMessage(
        QStringLiteral("Comparing every endpoint with %1…").arg(endpointTitle(*shown, index)), 8000);
    if (running()) {
        m_liveDirty = true; // the next live refresh (twice a second) uses it
        scheduleLiveRefresh();
        return;
    }
    ++m_generation; // an evaluation against the old baseline still running is dropped
    evaluateAsync(m_reviewed, false, true);
}

// ---------------------------------------------------------------------------------------------
// Files

void MainWindow::open()
{
    const QStringList paths = QFileDialog::getOpenFileNames(this, QStringLiteral("Open results"),
        QFileInfo(m_currentFile).absolutePath().isEmpty() ? runsDirectory()
                                                          : QFileInfo(m_currentFile).absolutePath(),
        QStringLiteral("Quantscope results (*.json);;All files (*)"));
    if (!paths.isEmpty())
        openFiles(paths);
}

void MainWindow::openFiles(const QStringList& paths)
{
    if (paths.isEmpty())
        return;
    if (running()) {
        statusBar()->showMessage(QStringLiteral("Stop the run before opening a results file."), 8000);
        Q_EMIT loadFinished(false, QStringLiteral("a run is in progress"));
        return;
    }
    // What is shown stays (and its evaluation goes on) until the file has loaded: a file that
    // cannot be read changes nothing. Only the latest Open counts.
    const quint64 load = ++m_loadSequence;
    statusBar()->showMessage(QStringLiteral("Opening %1…").arg(paths.join(QStringLiteral(", "))));
    auto* watcher = new QFutureWatcher<Loaded>(this);
    connect(watcher, &QFutureWatcher<Loaded>::finished, this, [this, watcher, load, paths] {
        const Loaded loaded = watcher->result();
        watcher->deleteLater();
        if (load != m_loadSequence || running()) {
            Q_EMIT loadFinished(false, QStringLiteral("superseded by a later Open or a run"));
            return;
        }
        if (!loaded.error.isEmpty()) {
            statusBar()->showMessage(QStringLiteral("Could not open: ") + loaded.error);
            auto* box = new QMessageBox(QMessageBox::Warning,
                QStringLiteral("Could not open the results file"),
                loaded.error
                    + QStringLiteral("\n\nNothing else was changed: the data shown before is still shown."),
                QMessageBox::Ok, this);
            box->setAttribute(Qt::WA_DeleteOnClose);
            box->open();
            Q_EMIT loadFinished(false, loaded.error);
            return;
        }
        ++m_generation;
        m_currentFile = paths.size() == 1 ? QFileInfo(paths.front()).absoluteFilePath() : QString();
        addRecent(paths);
        m_reviewed = loaded.result;
        m_baseline = baselineFor(*loaded.result);
        offerBaselines(*loaded.result);
        m_sources = paths;
        QString message = QStringLiteral("Opened %1 (%2 records)")
                              .arg(paths.join(QStringLiteral(", ")))
                              .arg(loaded.result->records.size());
        if (!loaded.notes.isEmpty())
            message += QStringLiteral(" — ") + loaded.notes.join(QStringLiteral("; "));
        statusBar()->showMessage(message, 15000);
        setWindowTitle(QStringLiteral("Quantscope — %1")
                           .arg(paths.size() == 1 ? QFileInfo(paths.front()).fileName()
                                                  : QStringLiteral("%1 files").arg(paths.size())));
        // Medians first (fast), the bootstrap intervals when they are ready.
        evaluateAsync(loaded.result, false, true);
        Q_EMIT loadFinished(true, message);
    });
    watcher->setFuture(QtConcurrent::run(loadAndCombine, paths));
}

void MainWindow::save()
{
    if (m_currentFile.isEmpty()) {
        saveAs();
        return;
    }
    statusBar()->showMessage(
        QStringLiteral("Saved: %1 (results are written as soon as a run ends)").arg(m_currentFile), 8000);
}

void MainWindow::saveAs()
{
    if (!m_data.result)
        return;
    const QString path = QFileDialog::getSaveFileName(this, QStringLiteral("Save results as"),
        m_currentFile.isEmpty() ? runsDirectory() : m_currentFile,
        QStringLiteral("Quantscope results (*.json)"));
    if (!path.isEmpty())
        saveTo(path.endsWith(u".json", Qt::CaseInsensitive) ? path : path + QStringLiteral(".json"));
}

void MainWindow::saveTo(const QString& path)
{
    const std::shared_ptr<const RunResult> result = m_data.result;
    if (!result) {
        Q_EMIT saveFinished(false, QStringLiteral("nothing to save"));
        return;
    }
    statusBar()->showMessage(QStringLiteral("Saving %1…").arg(path));
    auto* watcher = new QFutureWatcher<QString>(this);
    connect(watcher, &QFutureWatcher<QString>::finished, this, [this, watcher, path] {
        const QString error = watcher->result();
        watcher->deleteLater();
        if (!error.isEmpty()) {
            statusBar()->showMessage(QStringLiteral("Not saved: ") + error);
            Q_EMIT saveFinished(false, error);
            return;
        }
        m_currentFile = QFileInfo(path).absoluteFilePath();
        setSources({m_currentFile});
        addRecent({m_currentFile});
        statusBar()->showMessage(QStringLiteral("Saved %1").arg(m_currentFile), 8000);
        Q_EMIT saveFinished(true, m_currentFile);
    });
    watcher->setFuture(QtConcurrent::run([result, path] { return saveResults(*result, path); }));
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event)
{
    if (event->mimeData()->hasUrls()) {
        for (const QUrl& url : event->mimeData()->urls())
            if (url.isLocalFile()) {
                event->acceptProposedAction();
                return;
            }
    }
}

void MainWindow::dropEvent(QDropEvent* event)
{
    QStringList paths;
    for (const QUrl& url : event->mimeData()->urls())
        if (url.isLocalFile())
            paths << url.toLocalFile();
    if (!paths.isEmpty()) {
        event->acceptProposedAction();
        openFiles(paths);
    }
}

void MainWindow::offerRecovery()
{
    // A journal left in the runs folder means a run was killed before it could save.
    const QDir dir(runsDirectory());
    const QStringList journals = dir.entryList({QStringLiteral("*.journal")}, QDir::Files, QDir::Time);
    if (journals.isEmpty())
        return;
    const QString journal = dir.filePath(journals.front());
    auto* box = new QMessageBox(QMessageBox::Question, QStringLiteral("An interrupted run was found"),
        QStringLiteral("%1 holds the requests of a run that did not finish (the program was closed or "
                       "killed). Recover them into a results file and open it?")
            .arg(QDir::toNativeSeparators(journal)),
        QMessageBox::Yes | QMessageBox::No, this);
    box->setAttribute(Qt::WA_DeleteOnClose);
    connect(box, &QMessageBox::finished, this, [this, journal](int answer) {
        if (answer != QMessageBox::Yes)
            return;
        QString out = journal;
        out.chop(int(qstrlen(".journal")));
        if (QFileInfo::exists(out))
            out = out.left(out.size() - 5) + QStringLiteral("-recovered.json");
        auto* watcher = new QFutureWatcher<QString>(this);
        connect(watcher, &QFutureWatcher<QString>::finished, this, [this, watcher, journal, out] {
            const QString error = watcher->result();
            watcher->deleteLater();
            if (!error.isEmpty()) {
                statusBar()->showMessage(QStringLiteral("Recovery failed: ") + error);
                return;
            }
            QFile::remove(journal);
            openFiles({out});
        });
        watcher->setFuture(QtConcurrent::run([journal, out]() -> QString {
            try {
                return saveResults(recoverJournal(journal), out);
            } catch (const std::exception& e) {
                return QString::fromUtf8(e.what());
            }
        }));
    });
    box->open();
}

// ---------------------------------------------------------------------------------------------
// Running

bool MainWindow::running() const
{
    return m_controller && m_controller->running();
}

RunEndpoint MainWindow::resolveEntryOffline(const EndpointEntry& entry)
{
    RunEndpoint r;
    r.endpoint = entry.endpoint;
    r.spec = entry.spec();
    r.simulated = entry.simulated();
    return r;
}

std::optional<RunEndpoint> MainWindow::resolveEntry(
    const EndpointEntry& entry, EndpointResolver& resolver, QString& error)
{
    if (!entry.simulated())
        return resolveEntryOffline(entry);
    EndpointSpec spec;
    spec.name = entry.endpoint.label;
    spec.url = entry.spec();
    spec.model = entry.endpoint.model;
    spec.quant = entry.endpoint.quantization;
    if (entry.endpoint.runtime != Runtime::Unknown)
        spec.runtime = runtimeName(entry.endpoint.runtime);
    spec.keyEnv = entry.endpoint.apiKeyEnv;
    if (!entry.endpoint.extraBody.empty())
        spec.body = entry.endpoint.extraBody;
    const auto seed = m_runPanel->settings().settings.seed;
    std::optional<RunEndpoint> r = resolver.resolve(spec, seed, error);
    if (r)
        r->endpoint.timeouts = entry.endpoint.timeouts;
    return r;
}

void MainWindow::updateSuiteDefaults()
{
    // "suite default (5)" in the run panel needs the suite's numbers; a suite file is small.
    const QString suite = m_runPanel->settings().suite;
    if (suite == m_suiteShown)
        return;
    m_suiteShown = suite;
    try {
        const Suite s = loadSuite(suite);
        m_runPanel->setSuiteError({});
        m_runPanel->setSuiteDefaults(s.defaults.warmup, s.defaults.runs);
    } catch (const SuiteError& e) {
        m_runPanel->setSuiteError(QString::fromUtf8(e.what()));
    }
}

void MainWindow::startRun()
{
    if (running())
        return;
    const std::vector<EndpointEntry> entries = m_endpoints->entries();
    if (entries.empty()) {
        m_runPanel->setStatusText(QStringLiteral("Add an endpoint first (two or more to compare)."));
        return;
    }
    const RunPanelSettings panel = m_runPanel->settings();
    RunRequest request;
    try {
        request.suite = loadSuite(panel.suite);
        m_runPanel->setSuiteError({});
    } catch (const SuiteError& e) {
        m_runPanel->setSuiteError(QString::fromUtf8(e.what()));
        return;
    }
    m_runResolver = std::make_unique<EndpointResolver>();
    for (const EndpointEntry& entry : entries) {
        QString error;
        std::optional<RunEndpoint> e = resolveEntry(entry, *m_runResolver, error);
        if (!e) {
            m_runPanel->setStatusText(QStringLiteral("%1: %2").arg(entry.endpoint.displayName(), error));
            return;
        }
        request.endpoints.push_back(std::move(*e));
    }
    request.settings = panel.settings;
    const QString dir = runsDirectory();
    if (!QDir().mkpath(dir)) {
        m_runPanel->setStatusText(QStringLiteral("Cannot create %1 to keep the results in.").arg(dir));
        return;
    }
    m_runOutPath = dir + QStringLiteral("/run-")
        + QDateTime::currentDateTimeUtc().toString(QStringLiteral("yyyyMMdd-HHmmss"))
        + QStringLiteral(".json");
    for (int n = 2;
         QFileInfo::exists(m_runOutPath) || QFileInfo::exists(RunJournal::journalPathFor(m_runOutPath)); ++n)
        m_runOutPath
            = m_runOutPath.section(u'.', 0, -2).section(u'~', 0, 0) + QStringLiteral("~%1.json").arg(n);
    request.journalPath = RunJournal::journalPathFor(m_runOutPath);

    auto live = std::make_shared<RunResult>();
    live->toolVersion = QStringLiteral(QS_VERSION);
    live->startedAt = QDateTime::currentDateTimeUtc();
    live->suite = request.suite.raw;
    live->settings = request.settings;
    live->endpoints = request.endpoints;
    m_live = live;
    ++m_generation;
    ++m_loadSequence; // a file still loading is not shown over the run
    m_currentFile.clear();
    m_sources.clear();
    m_reviewed.reset();
    m_baseline = baselineFor(*live);
    offerBaselines(*live);
    QStringList labels;
    for (std::size_t i = 0; i < request.endpoints.size(); ++i)
        labels << endpointTitle(*live, int(i));

    m_controller->start(std::move(request));
    m_endpoints->setLocked(true);
    m_runPanel->setRunning(true);
    m_runPanel->beginLive(labels);
    m_runPanel->setStatusText(QStringLiteral("Probing the endpoints…"));
    m_probing = true;
    m_liveChart->beginLive(labels);
    setWindowTitle(QStringLiteral("Quantscope — running"));
    DashboardData d;
    d.result = std::make_shared<const RunResult>(*live);
    d.live = true;
    showData(std::move(d));
    m_liveDirty = false;
    m_liveTimer->start();
    updateActions();
}

void MainWindow::stopRun()
{
    if (!running())
        return;
    m_controller->cancel();
    m_runPanel->setStatusText(QStringLiteral("Stopping: requests in flight are being cancelled…"));
}

void MainWindow::onRunFinished(const RunResult& result, const RunStats& stats)
{
    m_liveTimer->stop();
    m_liveChart->endLive();
    m_live.reset();
    ++m_generation;
    m_endpoints->setLocked(false);
    m_runPanel->setRunning(false);
    const int failed = int(std::count_if(
        result.records.begin(), result.records.end(), [](const RunRecord& r) { return !r.request.ok(); }));
    const QString summary = QStringLiteral("%1: %2 requests, %3 failed, %4 s")
                                .arg(result.complete ? QStringLiteral("Done") : QStringLiteral("Stopped"))
                                .arg(result.records.size())
                                .arg(failed)
                                .arg(stats.wallMs / 1000.0, 0, 'f', 1);
    m_runPanel->setStatusText(summary + QStringLiteral(" — saving…"));
    auto shared = std::make_shared<const RunResult>(result);
    m_sources.clear();
    m_reviewed = shared;
    evaluateAsync(shared, true, false);

    // Save at once: a finished run is never only in memory.
    const QString out = m_runOutPath;
    auto* watcher = new QFutureWatcher<QString>(this);
    connect(watcher, &QFutureWatcher<QString>::finished, this,
        [this, watcher, out, summary, complete = result.complete] {
            const QString error = watcher->result();
            watcher->deleteLater();
            if (!error.isEmpty()) {
                m_runPanel->setStatusText(summary + QStringLiteral(" — NOT saved: ") + error
                    + QStringLiteral(". Every request is still in the journal; use File ▸ Save As."));
                Q_EMIT runFinished(complete, QString());
                return;
            }
            QFile::remove(RunJournal::journalPathFor(out));
            m_currentFile = out;
            setSources({out});
            addRecent({out});
            m_runPanel->setStatusText(
                summary + QStringLiteral(" — saved to ") + QDir::toNativeSeparators(out));
            setWindowTitle(QStringLiteral("Quantscope — %1").arg(QFileInfo(out).fileName()));
            Q_EMIT runFinished(complete, out);
        });
    watcher->setFuture(QtConcurrent::run([shared, out] { return saveResults(*shared, out); }));
    updateActions();
}

void MainWindow::probe(int entryId, const EndpointEntry& entry)
{
    QString error;
    std::optional<RunEndpoint> e;
    if (entry.simulated()) {
        // One simulator per profile for probing, however often the user clicks Probe.
        auto cached = m_probeSimulators.find(entry.simulatedProfile);
        if (cached == m_probeSimulators.end()) {
            if (std::optional<RunEndpoint> started = resolveEntry(entry, *m_probeResolver, error))
                cached = m_probeSimulators.emplace(entry.simulatedProfile, *started).first;
        }
        if (cached != m_probeSimulators.end()) {
            e = resolveEntryOffline(entry);
            e->endpoint.baseUrl = cached->second.endpoint.baseUrl;
            if (e->endpoint.model.isEmpty())
                e->endpoint.model = cached->second.endpoint.model;
        }
    } else {
        e = resolveEntry(entry, *m_probeResolver, error);
    }
    if (!e) {
        ProbeResult failed;
        failed.endpoint = entry.endpoint;
        failed.failure.kind = FailureKind::InvalidUrl;
        failed.failure.summary = error;
        failed.failure.advice = QStringLiteral("Edit the endpoint: its description cannot be used.");
        m_endpoints->setProbeResult(entryId, failed);
        return;
    }
    m_endpoints->setProbing(entryId);
    auto* watcher = new QFutureWatcher<ProbeResult>(this);
    connect(watcher, &QFutureWatcher<ProbeResult>::finished, this, [this, watcher, entryId] {
        m_endpoints->setProbeResult(entryId, watcher->result());
        watcher->deleteLater();
    });
    // probeBlocking runs its own event loop on a pool thread; the GUI thread only gets the value.
    watcher->setFuture(QtConcurrent::run([endpoint = e->endpoint] { return probeBlocking(endpoint); }));
}

// ---------------------------------------------------------------------------------------------
// Export

void MainWindow::updateActions()
{
    const bool isRunning = running();
    const bool hasData = m_data.result && !m_data.isEmpty();
    m_runAction->setEnabled(!isRunning);
    m_stopAction->setEnabled(isRunning);
    m_saveAction->setEnabled(hasData && !isRunning);
    m_saveAsAction->setEnabled(hasData && !isRunning);
    // The verdict needs the paired intervals; on a big file they come seconds after the medians.
    const bool comparisonReady = m_data.evaluation && m_data.evaluation->hasComparison;
    m_reportAction->setEnabled(hasData && !isRunning && comparisonReady);
    m_reportAction->setToolTip(hasData && !isRunning && !comparisonReady
            ? QStringLiteral("Available when the paired intervals are ready (computing…)")
            : QStringLiteral("Write the recommendation document: Markdown, HTML or PDF (Ctrl+E)"));
}

QWidget* MainWindow::viewWidget(const QString& name) const
{
    if (name == u"window")
        return const_cast<MainWindow*>(this);
    for (const auto& [n, w] : m_named)
        if (n == name)
            return w;
    return nullptr;
}

void MainWindow::revealView(const QString& name)
{
    QWidget* w = viewWidget(name);
    if (!w || w == this)
        return;
    for (int i = 0; i < m_tabs->count(); ++i)
        if (m_tabs->widget(i)->isAncestorOf(w) || m_tabs->widget(i) == w)
            m_tabs->setCurrentIndex(i);
    for (QDockWidget* dock : findChildren<QDockWidget*>())
        if (dock->isAncestorOf(w))
            dock->show();
}

void MainWindow::exportScreenshot()
{
    ScreenshotDialog dialog(this);
    dialog.setTheme(m_theme);
    if (dialog.exec() != QDialog::Accepted)
        return;
    const ScreenshotRequest req = dialog.request();
    QImage image;
    if (std::unique_ptr<QWidget> standalone = createDataView(req.view, m_data, req.theme)) {
        // The same standalone rendering as `quantscope screenshot`: a fixed size, no toggles.
        standalone->resize(findView(req.view)->size);
        standalone->setAttribute(Qt::WA_DontShowOnScreen);
        standalone->show();
        QCoreApplication::processEvents();
        image = renderWidget(standalone.get(), req.scale);
    } else {
        const Theme before = m_theme;
        setTheme(req.theme);
        revealView(req.view);
        QCoreApplication::processEvents();
        image = renderWidget(viewWidget(req.view), req.scale);
        setTheme(before);
    }
    if (req.toClipboard) {
        QApplication::clipboard()->setImage(image);
        statusBar()->showMessage(QStringLiteral("Screenshot of %1 copied (%2×%3 px)")
                                     .arg(req.view)
                                     .arg(image.width())
                                     .arg(image.height()),
            8000);
        return;
    }
    const QString path = QFileDialog::getSaveFileName(this, QStringLiteral("Save screenshot"),
        QDir::home().filePath(QStringLiteral("quantscope-%1.png").arg(req.view)),
        QStringLiteral("PNG image (*.png)"));
    if (path.isEmpty())
        return;
    const QString error = savePng(image, path);
    statusBar()->showMessage(error.isEmpty()
            ? QStringLiteral("Saved %1 (%2×%3 px)").arg(path).arg(image.width()).arg(image.height())
            : QStringLiteral("Screenshot not saved: ") + error,
        10000);
}

void MainWindow::exportReport()
{
    if (!m_data.result || !m_data.evaluation)
        return;
    // The recommendation document: a profile, a format, a preview, then Save (ReportDialog).
    ReportDialog dialog(m_data, this);
    if (dialog.exec() == QDialog::Accepted)
        statusBar()->showMessage(QStringLiteral("Report exported"), 10000);
}

} // namespace qs::app
