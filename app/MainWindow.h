// SPDX-License-Identifier: MIT
#pragma once

#include "app/EndpointSpec.h"
#include "model/run/RunController.h"
#include "widgets/DashboardData.h"
#include "widgets/Theme.h"
#include "widgets/panels/EndpointEntry.h"

#include <QFutureWatcher>
#include <QMainWindow>
#include <map>
#include <memory>
#include <vector>

class QAction;
class QComboBox;
class QLabel;
class QMenu;
class QTabWidget;
class QTimer;

namespace qs {
class DashboardView;
class EndpointsPanel;
class GuardrailBanner;
class LiveThroughputChart;
class ResponsesView;
class RunPanel;
} // namespace qs

namespace qs::app {

/// The dashboard. Wires the views (qs_widgets) to the work (qs_model) and never waits on either:
/// runs go through RunController (its own thread), probes, file loading and saving, and every
/// evaluation through QtConcurrent; results come back as values, tagged with a generation so a
/// stale one (the user opened another file meanwhile) is dropped.
class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    /// `persistent` = false: neither reads nor writes QSettings (defaults only) and offers no
    /// recovery — for headless screenshots and tests that must not see the user's settings.
    explicit MainWindow(bool persistent = true, QWidget* parent = nullptr);
    ~MainWindow() override;

    /// Reviews results files (one, or several side by side). Asynchronous: loadFinished() follows.
    void openFiles(const QStringList& paths);
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
    int baseline() const { return m_baseline; }
    /// Shows already prepared data at once (headless screenshots; the GUI itself goes through
    /// openFiles() and runs).
    void showPrepared(DashboardData data, const QString& file = {});

    const DashboardData& data() const { return m_data; }
    bool running() const;
    QString currentFile() const { return m_currentFile; }
    /// A view by its screenshot name (dashboardViews()), as it sits in the window; null if unknown.
    QWidget* viewWidget(const QString& name) const;
    /// Makes the tab holding `name` current (and the docks visible), so it can be rendered.
    void revealView(const QString& name);
    EndpointsPanel* endpointsPanel() const { return m_endpoints; }
    RunPanel* runPanel() const { return m_runPanel; }

Q_SIGNALS:
    void loadFinished(bool ok, const QString& message);
    /// The data the views show changed (a live refresh, a loaded file, a finished comparison).
    void dataShown();
    void runFinished(bool complete, const QString& savedPath);
    void saveFinished(bool ok, const QString& message);

protected:
    void closeEvent(QCloseEvent* event) override;
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

private:
    void buildActions();
    void buildViews();
    void restoreSettings();
    void saveSettings() const;
    void updateActions();
    void updateRecentMenu();
    void addRecent(const QStringList& paths);

    void showData(DashboardData data);
    void showNextView();
    void updateStatus();
    void setSources(const QStringList& sources);
    void evaluateAsync(std::shared_ptr<const RunResult> result, bool withComparison, bool thenComparison);
    void scheduleLiveRefresh();
    /// The endpoint of `result` to compare with: the one last picked, by label, else the first.
    int baselineFor(const RunResult& result) const;
    /// The Baseline picker offers `result`'s endpoints, with m_baseline selected.
    void offerBaselines(const RunResult& result);

    void onRunFinished(const RunResult& result, const RunStats& stats);
    void probe(int entryId, const EndpointEntry& entry);
    /// A run endpoint for `entry`; a simulated one gets its own loopback simulator from `resolver`.
    std::optional<RunEndpoint> resolveEntry(
        const EndpointEntry& entry, EndpointResolver& resolver, QString& error);
    static RunEndpoint resolveEntryOffline(const EndpointEntry& entry); ///< no simulator started
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
    QAction* m_lightAction = nullptr;
    QAction* m_darkAction = nullptr;
    QMenu* m_recentMenu = nullptr;

    // State
    DashboardData m_data; ///< what every view shows
    DashboardData m_incoming; ///< being handed to the views, one per event
    std::vector<DashboardView*> m_pendingViews;
    bool m_distributing = false;
    Theme m_theme = Theme::Light;
    QString m_currentFile; ///< where the shown results live on disk; empty when unsaved
    QStringList m_sources; ///< the files the data shown (or being evaluated) comes from
    quint64 m_generation = 0; ///< bumped whenever what is shown changes source
    quint64 m_loadSequence = 0; ///< the latest Open; older loads are dropped when they finish
    bool m_persistent = true;
    bool m_evaluating = false;
    bool m_refreshPending = false;
    int m_baseline = 0; ///< index into the endpoints of the results being shown
    QString m_baselineLabel; ///< the picked baseline's label; empty = the first endpoint
    std::shared_ptr<const RunResult> m_reviewed; ///< the finished results shown (no live run)
    QString m_suiteShown; ///< the suite whose defaults the run panel shows

    // A live run
    RunController* m_controller = nullptr;
    std::unique_ptr<EndpointResolver> m_runResolver; ///< keeps the run's simulated servers alive
    std::unique_ptr<EndpointResolver> m_probeResolver;
    std::map<QString, RunEndpoint> m_probeSimulators; ///< profile → its simulator, for probes
    std::shared_ptr<RunResult> m_live; ///< grows record by record; snapshots go to the views
    QString m_runOutPath;
    QTimer* m_liveTimer = nullptr;
    bool m_liveDirty = false;
    bool m_probing = false; ///< the run panel says "Probing the endpoints…"
};

} // namespace qs::app
