// SPDX-License-Identifier: MIT
// What the window remembers between sessions (QSettings), and the defaults when it does not.
#include "app/dashboard/EvaluationScheduler.h"
#include "app/dashboard/MainWindow.h"
#include "app/dashboard/RecentFiles.h"
#include "widgets/panels/EndpointsPanel.h"
#include "widgets/panels/RunPanel.h"

#include <QSettings>
#include <QStatusBar>
#include <algorithm>

namespace qs::app {

namespace {

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
    // The demo on the two simulated endpoints: one prompt of each category, so that a whole run
    // can be watched (about 2.5 minutes, the simulated vLLM's 20 tok/s being the slower lane; two
    // per category took 5.3); the guardrails say it is few prompts and runs. Parallel is right
    // there (each simulated server has its own thread, nothing shared to compete for), and
    // matchDefaultsToEndpoints() takes all of it back once a real endpoint is listed.
    RunPanelSettings s;
    s.suite = QStringLiteral("voice-assistant");
    s.settings.warmup = 1;
    s.settings.runs = 2;
    s.settings.promptsPerCategory = 1;
    s.settings.order = RunOrder::Parallel;
    s.demoDefaults = true;
    return s;
}

/// Settings saved before the demo flag existed: the numbers the demo used then, never edited, were
/// the demo's and not a choice.
bool wereTheOldDemoDefaults(const QSettings& s, const RunPanelSettings& run)
{
    return !s.contains(QStringLiteral("run/promptsPerCategory")) && run.settings.warmup == 1
        && run.settings.runs == 2 && run.settings.order == RunOrder::Parallel && run.settings.concurrency == 1
        && !run.settings.maxTokens;
}

} // namespace

void MainWindow::restoreSettings()
{
    if (!m_persistent) {
        m_endpoints->setEntries(defaultEntries());
        m_runPanel->setSettings(defaultRunSettings());
        matchDefaultsToEndpoints();
        resize(1600, 1000);
        m_recent->update();
        return;
    }
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
        run.judgeAfterRun = s.value(QStringLiteral("run/judgeAfterRun"), false).toBool();
        const int maxTokens = s.value(QStringLiteral("run/maxTokens"), -1).toInt();
        if (maxTokens > 0)
            run.settings.maxTokens = maxTokens;
        run.settings.promptsPerCategory
            = std::max(0, s.value(QStringLiteral("run/promptsPerCategory"), 0).toInt());
        run.demoDefaults = s.contains(QStringLiteral("run/demoDefaults"))
            ? s.value(QStringLiteral("run/demoDefaults")).toBool()
            : wereTheOldDemoDefaults(s, run);
    }
    m_runPanel->setSettings(run);
    matchDefaultsToEndpoints();
    m_theme = themeFromId(s.value(QStringLiteral("theme")).toString()).value_or(Theme::Light);
    m_evaluator->setBaselineLabel(s.value(QStringLiteral("baseline")).toString());
    restoreGeometry(s.value(QStringLiteral("window/geometry")).toByteArray());
    restoreState(s.value(QStringLiteral("window/state")).toByteArray());
    if (!s.contains(QStringLiteral("window/geometry")))
        resize(1600, 1000);
    m_recent->update();
}

void MainWindow::matchDefaultsToEndpoints()
{
    RunPanelSettings run = m_runPanel->settings();
    const std::vector<EndpointEntry> entries = m_endpoints->entries();
    if (!run.demoDefaults || running()
        || std::all_of(entries.begin(), entries.end(), [](const EndpointEntry& e) { return e.simulated(); }))
        return;
    // A real benchmark is the suite's method: its warm-ups and repeats, every prompt. Interleaved,
    // not parallel: the panel cannot tell whether two servers share a machine (two quantizations
    // on one box is the usual case), and there parallel requests compete for the GPU and spoil
    // every timing; interleaved is right either way, only slower. Parallel stays a choice.
    run.settings.warmup = -1;
    run.settings.runs = -1;
    run.settings.promptsPerCategory = 0;
    if (run.settings.order == RunOrder::Parallel)
        run.settings.order = RunOrder::Interleaved;
    run.demoDefaults = false; // from now on the numbers are the user's to change; never re-imposed
    m_runPanel->setSettings(run);
    m_runPanel->setStatusText(
        QStringLiteral("Real endpoints: running the suite's own warm-ups and repeats, every "
                       "prompt, in interleaved order (parallel is only for endpoints on "
                       "separate machines)."));
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
    s.setValue(QStringLiteral("run/judgeAfterRun"), run.judgeAfterRun);
    s.setValue(QStringLiteral("run/maxTokens"), run.settings.maxTokens.value_or(-1));
    s.setValue(QStringLiteral("run/promptsPerCategory"), run.settings.promptsPerCategory);
    s.setValue(QStringLiteral("run/demoDefaults"), run.demoDefaults);
    s.setValue(QStringLiteral("theme"), themeId(m_theme));
    s.setValue(QStringLiteral("baseline"), m_evaluator->baselineLabel());
    s.setValue(QStringLiteral("window/geometry"), saveGeometry());
    s.setValue(QStringLiteral("window/state"), saveState());
}

} // namespace qs::app
