// SPDX-License-Identifier: MIT
// What the window remembers between sessions (QSettings), and the defaults when it does not.
#include "app/EvaluationScheduler.h"
#include "app/MainWindow.h"
#include "app/RecentFiles.h"
#include "widgets/panels/EndpointsPanel.h"
#include "widgets/panels/RunPanel.h"

#include <QSettings>
#include <QStatusBar>

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
    // Short enough to watch a whole run in under two minutes; the guardrails say it is few runs.
    RunPanelSettings s;
    s.suite = QStringLiteral("voice-assistant");
    s.settings.warmup = 1;
    s.settings.runs = 2;
    s.settings.order = RunOrder::Parallel;
    return s;
}

} // namespace

void MainWindow::restoreSettings()
{
    if (!m_persistent) {
        m_endpoints->setEntries(defaultEntries());
        m_runPanel->setSettings(defaultRunSettings());
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
    }
    m_runPanel->setSettings(run);
    m_theme = themeFromId(s.value(QStringLiteral("theme")).toString()).value_or(Theme::Light);
    m_evaluator->setBaselineLabel(s.value(QStringLiteral("baseline")).toString());
    restoreGeometry(s.value(QStringLiteral("window/geometry")).toByteArray());
    restoreState(s.value(QStringLiteral("window/state")).toByteArray());
    if (!s.contains(QStringLiteral("window/geometry")))
        resize(1600, 1000);
    m_recent->update();
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
    s.setValue(QStringLiteral("theme"), themeId(m_theme));
    s.setValue(QStringLiteral("baseline"), m_evaluator->baselineLabel());
    s.setValue(QStringLiteral("window/geometry"), saveGeometry());
    s.setValue(QStringLiteral("window/state"), saveState());
}

} // namespace qs::app
