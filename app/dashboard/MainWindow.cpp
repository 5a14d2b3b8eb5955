// SPDX-License-Identifier: MIT
#include "app/dashboard/MainWindow.h"

#include "app/common/DashboardViews.h"
#include "app/dashboard/EndpointProber.h"
#include "app/dashboard/EvaluationScheduler.h"
#include "app/dashboard/FileSession.h"
#include "app/dashboard/JudgeSession.h"
#include "app/dashboard/RecentFiles.h"
#include "app/dashboard/ReportDialog.h"
#include "app/dashboard/RunSession.h"
#include "app/dashboard/ScreenshotDialog.h"
#include "app/dashboard/ViewFeeder.h"
#include "model/core/Suite.h"
#include "tests/support/SimulatedProfiles.h"
#include "widgets/DashboardView.h"
#include "widgets/ScreenshotRenderer.h"
#include "widgets/ViewParts.h"
#include "widgets/campaign/CampaignView.h"
#include "widgets/charts/LiveThroughputChart.h"
#include "widgets/charts/ServerCharts.h"
#include "widgets/decision/DecisionView.h"
#include "widgets/panels/EndpointsPanel.h"
#include "widgets/panels/RunPanel.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QCloseEvent>
#include <QComboBox>
#include <QDir>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QMessageBox>
#include <QMimeData>
#include <QStatusBar>
#include <QTabWidget>
#include <QTimer>

namespace qs::app {

MainWindow::MainWindow(bool persistent, QWidget* parent)
    : QMainWindow(parent)
    , m_persistent(persistent)
{
    setObjectName(QStringLiteral("QuantscopeMainWindow"));
    setWindowTitle(QStringLiteral("Quantscope"));
    setAcceptDrops(true);
    const auto isRunning = [this] { return running(); };
    m_run = new RunSession(this);
    m_files = new FileSession(isRunning, this);
    m_prober = new EndpointProber(this);
    m_evaluator = new EvaluationScheduler(isRunning, this);
    buildViews();
    buildActions();
    m_feeder = new ViewFeeder(m_views, this);
    m_recent = new RecentFiles(m_recentMenu, m_persistent, this);
    wireRun();
    wireFiles();
    wireJudging();
    wireCampaign();

    std::vector<std::pair<QString, QString>> profiles;
    for (const QString& name : emu::simulatedProfileNames())
        profiles.emplace_back(name, emu::simulatedProfileDescription(name));
    m_endpoints->setSimulatedProfiles(profiles);
    m_runPanel->setBuiltinSuites(builtinSuiteNames());

    restoreSettings();
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
    // The run first: it cancels and journals what is in flight while the window it reports to
    // is still whole.
    delete m_run;
    m_run = nullptr;
}

const DashboardData& MainWindow::data() const
{
    return m_feeder->data();
}

bool MainWindow::running() const
{
    return m_run && m_run->running();
}

QString MainWindow::currentFile() const
{
    return m_files->currentFile();
}

int MainWindow::baseline() const
{
    return m_evaluator->baseline();
}

// ---------------------------------------------------------------------------------------------
// Wiring

void MainWindow::wireRun()
{
    connect(m_run, &RunSession::progress, m_runPanel, &RunPanel::setProgress);
    connect(m_run, &RunSession::statusText, m_runPanel, &RunPanel::setStatusText);
    connect(m_run, &RunSession::suiteError, m_runPanel, &RunPanel::setSuiteError);
    connect(m_run, &RunSession::message, statusBar(), &QStatusBar::showMessage);
    connect(m_run, &RunSession::liveDeltas, this, [this](const QList<LiveDelta>& deltas) {
        m_runPanel->addDeltas(deltas);
        m_liveChart->addDeltas(deltas);
    });
    connect(m_run, &RunSession::serverPoint, m_serverCharts, &ServerCharts::addPoint);
    connect(m_run, &RunSession::refreshDue, this, &MainWindow::scheduleLiveRefresh);
    connect(m_run, &RunSession::failed, this, [this](const QString& message) {
        m_liveChart->endLive();
        m_serverCharts->endLive();
        m_runPanel->setRunning(false);
        m_runPanel->setStatusText(QStringLiteral("The run could not start: ") + message);
        m_endpoints->setLocked(false);
        statusBar()->showMessage(QStringLiteral("The run could not start: ") + message);
        updateActions();
        Q_EMIT runFinished(false, QString());
    });
    connect(m_run, &RunSession::ended, this, &MainWindow::onRunEnded);
    connect(m_run, &RunSession::saved, this, [this](bool complete, const QString& path) {
        if (!path.isEmpty()) {
            m_files->setCurrentFile(path);
            m_feeder->setSources({path});
            updateStatus();
            m_recent->add({path});
            setWindowTitle(QStringLiteral("Quantscope — %1").arg(QFileInfo(path).fileName()));
            judgeSavedRun();
        }
        Q_EMIT runFinished(complete, path);
    });
    connect(m_runPanel, &RunPanel::runRequested, this, &MainWindow::startRun);
    connect(m_runPanel, &RunPanel::stopRequested, this, &MainWindow::stopRun);
    connect(m_runPanel, &RunPanel::settingsChanged, this, &MainWindow::updateSuiteDefaults);

    connect(m_endpoints, &EndpointsPanel::probeRequested, this, [this](int id, const EndpointEntry& entry) {
        m_prober->probe(id, entry, m_runPanel->settings().settings.seed);
    });
    connect(m_endpoints, &EndpointsPanel::entriesChanged, this, &MainWindow::matchDefaultsToEndpoints);
    connect(m_prober, &EndpointProber::probing, m_endpoints, &EndpointsPanel::setProbing);
    connect(m_prober, &EndpointProber::probed, m_endpoints, &EndpointsPanel::setProbeResult);

    connect(m_evaluator, &EvaluationScheduler::evaluated, m_feeder, &ViewFeeder::show);
    connect(m_feeder, &ViewFeeder::shown, this, [this] {
        updateStatus();
        updateActions();
        Q_EMIT dataShown();
    });
}

void MainWindow::wireFiles()
{
    connect(m_files, &FileSession::opened, this, &MainWindow::onOpened);
    connect(m_files, &FileSession::dropped, this,
        [this] { Q_EMIT loadFinished(false, QStringLiteral("superseded by a later Open or a run")); });
    connect(m_files, &FileSession::openFailed, this, [this](const QString& error) {
        statusBar()->showMessage(QStringLiteral("Could not open: ") + error);
        auto* box = new QMessageBox(QMessageBox::Warning, QStringLiteral("Could not open the results file"),
            error + QStringLiteral("\n\nNothing else was changed: the data shown before is still shown."),
            QMessageBox::Ok, this);
        box->setAttribute(Qt::WA_DeleteOnClose);
        box->open();
        Q_EMIT loadFinished(false, error);
    });
    connect(m_files, &FileSession::saved, this, [this](bool ok, const QString& pathOrError) {
        if (!ok) {
            statusBar()->showMessage(QStringLiteral("Not saved: ") + pathOrError);
            Q_EMIT saveFinished(false, pathOrError);
            return;
        }
        m_feeder->setSources({pathOrError});
        updateStatus();
        m_recent->add({pathOrError});
        if (!m_judgingDone.isEmpty())
            statusBar()->showMessage(m_judgingDone + QStringLiteral("; saved into %1").arg(pathOrError));
        else
            statusBar()->showMessage(QStringLiteral("Saved %1").arg(pathOrError), 8000);
        m_judgingDone.clear();
        Q_EMIT saveFinished(true, pathOrError);
    });
    connect(m_files, &FileSession::recovered, this, [this](const QString& path) { openFiles({path}); });
    connect(m_files, &FileSession::message, this,
        [this](const QString& text) { statusBar()->showMessage(text); });
    connect(m_recent, &RecentFiles::openRequested, this, [this](const QString& path) { openFiles({path}); });
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
    m_campaignView->setTheme(theme);
    // Drawn in the theme's colours: the style's media icons are black on the dark toolbar.
    m_runAction->setIcon(playIcon(themeColors(theme).pass));
    m_stopAction->setIcon(stopIcon(themeColors(theme).criticalAccent));
    m_lightAction->setChecked(theme == Theme::Light);
    m_darkAction->setChecked(theme == Theme::Dark);
}

void MainWindow::showPrepared(DashboardData data, const QString& file)
{
    m_evaluator->invalidate();
    m_files->setCurrentFile(file);
    m_feeder->showNow(std::move(data));
    const DashboardData& shown = m_feeder->data();
    m_reviewed = shown.result;
    m_evaluator->setBaseline(shown.evaluation ? shown.evaluation->baseline : 0);
    if (shown.result)
        offerBaselines(*shown.result);
    statusBar()->clearMessage(); // not "Ready. Press Run…" under a file being reviewed
    updateStatus();
    updateActions();
}

void MainWindow::updateStatus()
{
    const RunResult* r = data().result.get();
    if (!r) {
        m_statusFile->clear();
        return;
    }
    const QString where = data().live ? QStringLiteral("live run")
        : currentFile().isEmpty()     ? data().sources.join(QStringLiteral(" + "))
                                      : QDir::toNativeSeparators(currentFile());
    m_statusFile->setText(QStringLiteral("%1 · %2 records%3")
                              .arg(where.isEmpty() ? QStringLiteral("unsaved run") : where)
                              .arg(r->records.size())
                              .arg(r->complete || data().live ? QString() : QStringLiteral(" · INCOMPLETE")));
}

void MainWindow::scheduleLiveRefresh()
{
    if (!m_evaluator->readyForLive())
        return;
    if (SnapshotJob snapshot = m_run->takeSnapshot())
        m_evaluator->evaluate(std::move(snapshot));
}

void MainWindow::offerBaselines(const RunResult& result)
{
    const QSignalBlocker quiet(m_baselineBox);
    m_baselineBox->clear();
    for (std::size_t i = 0; i < result.endpoints.size(); ++i)
        m_baselineBox->addItem(endpointTitle(result, int(i)));
    m_baselineBox->setCurrentIndex(m_evaluator->baseline());
    m_baselineBox->setEnabled(result.endpoints.size() > 1);
}

void MainWindow::setBaseline(int index)
{
    const RunResult* shown = running() ? m_run->live() : m_reviewed.get();
    if (!shown || index < 0 || std::size_t(index) >= shown->endpoints.size())
        return;
    m_evaluator->setBaselineLabel(shown->endpoints[std::size_t(index)].endpoint.displayName());
    if (index == m_evaluator->baseline())
        return;
    m_evaluator->setBaseline(index);
    {
        const QSignalBlocker quiet(m_baselineBox);
        m_baselineBox->setCurrentIndex(index);
    }
    statusBar()->showMessage(
        QStringLiteral("Comparing every endpoint with %1…").arg(endpointTitle(*shown, index)), 8000);
    if (running()) {
        m_run->markDirty(); // the next live refresh (twice a second) uses it
        scheduleLiveRefresh();
        return;
    }
    m_evaluator->invalidate(); // an evaluation against the old baseline still running is dropped
    m_evaluator->evaluate(m_reviewed, false, true);
}

// ---------------------------------------------------------------------------------------------
// Files

void MainWindow::open()
{
    const QStringList paths = QFileDialog::getOpenFileNames(this, QStringLiteral("Open results"),
        QFileInfo(currentFile()).absolutePath().isEmpty() ? runsDirectory()
                                                          : QFileInfo(currentFile()).absolutePath(),
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
    statusBar()->showMessage(QStringLiteral("Opening %1…").arg(paths.join(QStringLiteral(", "))));
    m_files->open(paths);
}

void MainWindow::onOpened(
    const QStringList& paths, std::shared_ptr<const RunResult> result, const QStringList& notes)
{
    m_evaluator->invalidate();
    m_recent->add(paths);
    m_reviewed = result;
    m_evaluator->setBaseline(m_evaluator->baselineFor(*result));
    offerBaselines(*result);
    m_feeder->setNextSources(paths);
    // A run until decided was judged by a profile file: offer it in the Decision tab, which
    // follows a run's own profile (a built-in one it knows already).
    if (const auto rounds = untilDecidedOf(*result); rounds && QFileInfo(rounds->profile).isFile()) {
        try {
            m_decision->addProfile(loadDecisionProfileFile(rounds->profile));
        } catch (const ProfileError&) {
            // Moved or changed since: the tab says which profile the looks were judged with.
        }
    }
    QString message = QStringLiteral("Opened %1 (%2 records)")
                          .arg(paths.join(QStringLiteral(", ")))
                          .arg(result->records.size());
    if (!notes.isEmpty())
        message += QStringLiteral(" — ") + notes.join(QStringLiteral("; "));
    statusBar()->showMessage(message, 15000);
    setWindowTitle(QStringLiteral("Quantscope — %1")
                       .arg(paths.size() == 1 ? QFileInfo(paths.front()).fileName()
                                              : QStringLiteral("%1 files").arg(paths.size())));
    // Medians first (fast), the bootstrap intervals when they are ready.
    m_evaluator->evaluate(result, false, true);
    Q_EMIT loadFinished(true, message);
}

void MainWindow::save()
{
    if (currentFile().isEmpty()) {
        saveAs();
        return;
    }
    statusBar()->showMessage(
        QStringLiteral("Saved: %1 (results are written as soon as a run ends)").arg(currentFile()), 8000);
}

void MainWindow::saveAs()
{
    if (!data().result)
        return;
    const QString path = QFileDialog::getSaveFileName(this, QStringLiteral("Save results as"),
        currentFile().isEmpty() ? runsDirectory() : currentFile(),
        QStringLiteral("Quantscope results (*.json)"));
    if (!path.isEmpty())
        saveTo(path.endsWith(u".json", Qt::CaseInsensitive) ? path : path + QStringLiteral(".json"));
}

void MainWindow::saveTo(const QString& path)
{
    std::shared_ptr<const RunResult> result = data().result;
    if (!result) {
        Q_EMIT saveFinished(false, QStringLiteral("nothing to save"));
        return;
    }
    statusBar()->showMessage(QStringLiteral("Saving %1…").arg(path));
    m_files->save(std::move(result), path);
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
    const QString journal = FileSession::interruptedJournal();
    if (journal.isEmpty())
        return;
    auto* box = new QMessageBox(QMessageBox::Question, QStringLiteral("An interrupted run was found"),
        QStringLiteral("%1 holds the requests of a run that did not finish (the program was closed or "
                       "killed). Recover them into a results file and open it?")
            .arg(QDir::toNativeSeparators(journal)),
        QMessageBox::Yes | QMessageBox::No, this);
    box->setAttribute(Qt::WA_DeleteOnClose);
    connect(box, &QMessageBox::finished, this, [this, journal](int answer) {
        if (answer == QMessageBox::Yes)
            m_files->recover(journal);
    });
    box->open();
}

// ---------------------------------------------------------------------------------------------
// Running

void MainWindow::updateSuiteDefaults()
{
    // "suite default (5)" and the "Settings in force" line need the suite; a suite file is small.
    const QString suite = m_runPanel->settings().suite;
    if (suite == m_suiteShown)
        return;
    m_suiteShown = suite;
    try {
        auto parsed = std::make_shared<const Suite>(loadSuite(suite));
        m_runPanel->setSuiteError({});
        m_runPanel->setSuite(std::move(parsed));
    } catch (const SuiteError& e) {
        m_runPanel->setSuiteError(QString::fromUtf8(e.what()));
        m_runPanel->setSuite(nullptr);
    }
}

void MainWindow::startRun()
{
    if (running())
        return;
    if (m_judge->running()) {
        // A judge may be one of the endpoints, or share their machine: it would be measured too.
        statusBar()->showMessage(QStringLiteral(
            "Stop judging first (Stop judging, bottom right): a judge at work disturbs the measurements"));
        return;
    }
    // The judge is chosen before the run, so the run can be left alone; it judges once saved.
    m_pendingJudge = m_runPanel->settings().judgeAfterRun ? chooseJudgeForRun() : std::nullopt;
    if (m_runPanel->settings().judgeAfterRun && !m_pendingJudge)
        return;
    const std::shared_ptr<const RunResult> live
        = m_run->start(m_endpoints->entries(), m_runPanel->settings(), m_decision->currentProfile());
    if (!live)
        return;
    m_evaluator->invalidate();
    m_files->supersede(); // a file still loading is not shown over the run
    m_files->setCurrentFile({});
    m_feeder->setNextSources({});
    m_reviewed.reset();
    m_evaluator->setBaseline(m_evaluator->baselineFor(*live));
    offerBaselines(*live);
    QStringList labels;
    for (std::size_t i = 0; i < live->endpoints.size(); ++i)
        labels << endpointTitle(*live, int(i));
    m_endpoints->setLocked(true);
    m_runPanel->setRunning(true);
    m_runPanel->beginLive(labels);
    m_liveChart->beginLive(labels);
    m_serverCharts->beginLive(labels);
    setWindowTitle(QStringLiteral("Quantscope — running"));
    DashboardData d;
    d.result = live;
    d.live = true;
    m_feeder->show(std::move(d));
    updateActions();
}

void MainWindow::stopRun()
{
    m_run->stop();
}

void MainWindow::onRunEnded(std::shared_ptr<const RunResult> result)
{
    m_liveChart->endLive();
    m_serverCharts->endLive();
    m_evaluator->invalidate();
    m_endpoints->setLocked(false);
    m_runPanel->setRunning(false);
    m_feeder->setNextSources({});
    m_reviewed = result;
    m_evaluator->evaluate(std::move(result), true, false);
    updateActions();
}

// ---------------------------------------------------------------------------------------------
// Export

void MainWindow::updateActions()
{
    const bool isRunning = running();
    const bool hasData = data().result && !data().isEmpty();
    const bool judging = m_judge && m_judge->running();
    m_runAction->setEnabled(!isRunning && !judging);
    m_stopAction->setEnabled(isRunning);
    m_saveAction->setEnabled(hasData && !isRunning);
    m_saveAsAction->setEnabled(hasData && !isRunning);
    m_judgeAction->setEnabled(hasData && !isRunning && m_reviewed && !judging);
    // The verdict needs the paired intervals; on a big file they come seconds after the medians.
    const bool comparisonReady = data().evaluation && data().evaluation->hasComparison;
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
    if (std::unique_ptr<QWidget> standalone = createDataView(req.view, data(), req.theme)) {
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
        exportPathBeside(currentFile(), req.view + QStringLiteral(".png")),
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
    if (!data().result || !data().evaluation)
        return;
    // The recommendation document: a profile, a format, a preview, then Save (ReportDialog).
    ReportDialog dialog(data(), this);
    if (dialog.exec() == QDialog::Accepted)
        statusBar()->showMessage(QStringLiteral("Report exported"), 10000);
}

} // namespace qs::app
