// SPDX-License-Identifier: MIT
#pragma once

#include "app/dashboard/JudgeSession.h"
#include "model/core/RunRecord.h"
#include "widgets/DashboardData.h"
#include "widgets/Theme.h"
#include "widgets/panels/EndpointEntry.h"

#include <QMainWindow>
#include <memory>
#include <optional>
#include <vector>

class QAction;
class QComboBox;
class QLabel;
class QMenu;
class QProgressBar;
class QPushButton;
class QTabWidget;

namespace qs {
class CampaignView;
class DashboardView;
class DecisionView;
class EndpointsPanel;
class GuardrailBanner;
class LiveThroughputChart;
class ServerCharts;
class ResponsesView;
class RunPanel;
} // namespace qs

namespace qs::app {
class CampaignSession;
class EndpointProber;
class EvaluationScheduler;
class FileSession;
class JudgeSession;
class RecentFiles;
class RunSession;
class ViewFeeder;

/// The dashboard. Wires the views (qs_widgets) to the work and never waits on it: the run
/// (RunSession, RunController's own thread), files (FileSession), probes (EndpointProber) and
/// every evaluation (EvaluationScheduler) run off the GUI thread and come back as values in
/// signals; a stale one (the user opened another file meanwhile) is dropped by generation, and
/// ViewFeeder hands new data to the views one per event.
class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    /// `persistent` = false: neither reads nor writes QSettings (defaults only) and offers no
    /// recovery — for headless screenshots and tests that must not see the user's settings.
    explicit MainWindow(bool persistent = true, QWidget* parent = nullptr);
    ~MainWindow() override;

    /// Reviews results files (one, or several side by side). Asynchronous: loadFinished() follows.
    void openFiles(const QStringList& paths);
    /// Opens a campaign (results files, or folders of them, sharing a baseline) in the Campaign tab,
    /// judged with the Decision tab's profile. Asynchronous: campaignShown() follows.
    void openCampaign(const QStringList& paths);
    /// Adds a decision profile (a built-in name or a file) to the Decision tab and selects it; an
    /// open campaign is judged again with it. Returns why it cannot be used, or an empty string.
    QString useProfile(const QString& nameOrPath);
    CampaignView* campaignView() const { return m_campaignView; }
    /// Starts a run with the endpoints and settings in the panels (what Run does).
    void startRun();
    void stopRun();
    /// Writes the results shown to `path` (asynchronous; saveFinished() follows).
    void saveTo(const QString& path);
    void setTheme(Theme theme);
    /// Compares every endpoint with endpoint `index` of the results shown (what the toolbar's
    /// Baseline picker does): re-evaluates off the GUI thread, medians first. The choice is
    /// remembered by label, so the next run or file with that endpoint keeps it.
    void setBaseline(int index);
    int baseline() const;
    /// Shows already prepared data at once (headless screenshots; the GUI itself goes through
    /// openFiles() and runs).
    void showPrepared(DashboardData data, const QString& file = {});

    const DashboardData& data() const;
    bool running() const;
    QString currentFile() const;
    /// A view by its screenshot name (dashboardViews()), as it sits in the window; null if unknown.
    QWidget* viewWidget(const QString& name) const;
    /// Makes the tab holding `name` current (and the docks visible), so it can be rendered.
    void revealView(const QString& name);
    EndpointsPanel* endpointsPanel() const { return m_endpoints; }
    RunPanel* runPanel() const { return m_runPanel; }

Q_SIGNALS:
    void loadFinished(bool ok, const QString& message);
    void campaignShown(bool ok, const QString& message);
    /// The data the views show changed (a live refresh, a loaded file, a finished comparison).
    void dataShown();
    void runFinished(bool complete, const QString& savedPath);
    void saveFinished(bool ok, const QString& message);

protected:
    void closeEvent(QCloseEvent* event) override;
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

private:
    // Layout and settings (MainWindowLayout.cpp, MainWindowSettings.cpp)
    void buildViews();
    void buildActions();
    void restoreSettings();
    void saveSettings() const;
    /// The demo's short run is for the simulated endpoints: with a real one listed, the run panel
    /// still on the demo's numbers gets the suite's own (MainWindowSettings.cpp).
    void matchDefaultsToEndpoints();

    // Wiring the sessions to the views
    void wireRun();
    void wireFiles();
    void wireJudging(); ///< MainWindowJudging.cpp
    void wireCampaign(); ///< MainWindowCampaign.cpp
    void chooseCampaign(); ///< File → Open Campaign…
    void judgeAnswers(); ///< the Judge dialog, then JudgeSession on the results shown
    /// Run with "Judge when the run ends": the Judge dialog before the run; nullopt if cancelled.
    std::optional<JudgeSetup> chooseJudgeForRun();
    void judgeSavedRun(); ///< starts the judge chosen for the run that was just saved
    void updateActions();
    void updateStatus();
    void scheduleLiveRefresh();
    /// The Baseline picker offers `result`'s endpoints, with the current baseline selected.
    void offerBaselines(const RunResult& result);
    void onRunEnded(std::shared_ptr<const RunResult> result);
    void onOpened(
        const QStringList& paths, std::shared_ptr<const RunResult> result, const QStringList& notes);
    void offerRecovery();
    void updateSuiteDefaults();

    void exportScreenshot();
    void exportReport();
    void open();
    void save();
    void saveAs();

    // Views
    EndpointsPanel* m_endpoints = nullptr;
    RunPanel* m_runPanel = nullptr;
    GuardrailBanner* m_banner = nullptr;
    ResponsesView* m_responses = nullptr;
    LiveThroughputChart* m_liveChart = nullptr;
    ServerCharts* m_serverCharts = nullptr;
    DecisionView* m_decision = nullptr;
    CampaignView* m_campaignView = nullptr;
    QTabWidget* m_tabs = nullptr;
    std::vector<std::pair<QString, QWidget*>> m_named; ///< screenshot name → widget in the window
    std::vector<DashboardView*> m_views;
    QLabel* m_statusFile = nullptr;
    QComboBox* m_baselineBox = nullptr;

    // Actions
    QAction* m_runAction = nullptr;
    QAction* m_stopAction = nullptr;
    QAction* m_saveAction = nullptr;
    QAction* m_saveAsAction = nullptr;
    QAction* m_reportAction = nullptr;
    QAction* m_screenshotAction = nullptr;
    QAction* m_judgeAction = nullptr;
    QAction* m_lightAction = nullptr;
    QAction* m_darkAction = nullptr;
    QMenu* m_recentMenu = nullptr;

    // The work, each its own object
    RunSession* m_run = nullptr;
    FileSession* m_files = nullptr;
    EndpointProber* m_prober = nullptr;
    EvaluationScheduler* m_evaluator = nullptr;
    ViewFeeder* m_feeder = nullptr;
    RecentFiles* m_recent = nullptr;
    JudgeSession* m_judge = nullptr;
    CampaignSession* m_campaign = nullptr;
    QStringList m_campaignPaths; ///< the campaign open in its tab (judged again on a new profile)
    QProgressBar* m_judgeProgress = nullptr;
    QPushButton* m_judgeStop = nullptr;
    std::shared_ptr<const RunResult> m_judgedShown; ///< what judging last put on screen
    QString m_judgedFile; ///< the file being judged (its verdicts are saved there)
    /// "Judging finished: …" until the file with the verdicts is saved, which then says so for good
    /// (a timed "Saved" would leave nothing saying that judging ended).
    QString m_judgingDone;
    std::optional<JudgeSetup> m_pendingJudge; ///< chosen for the run in progress

    // State
    Theme m_theme = Theme::Light;
    bool m_persistent = true;
    std::shared_ptr<const RunResult> m_reviewed; ///< the finished results shown (no live run)
    QString m_suiteShown; ///< the suite whose defaults the run panel shows
};

} // namespace qs::app
