// SPDX-License-Identifier: MIT
#include "app/dashboard/ScreenshotStage.h"

#include "app/dashboard/MainWindow.h"
#include "model/core/Suite.h"
#include "widgets/campaign/CampaignView.h"
#include "widgets/panels/EndpointsPanel.h"
#include "widgets/panels/RunPanel.h"

#include <QApplication>
#include <QFileInfo>

namespace qs::app {

std::vector<EndpointEntry> entriesOf(const RunResult& result)
{
    std::vector<EndpointEntry> entries;
    for (const RunEndpoint& e : result.endpoints) {
        EndpointEntry entry;
        entry.endpoint = e.endpoint;
        if (e.simulated && e.spec.startsWith(u"sim:"))
            entry.simulatedProfile = e.spec.mid(4);
        entries.push_back(entry);
    }
    return entries;
}

std::unique_ptr<QWidget> stageView(const ViewInfo& view, const DashboardData& data, const QStringList& files,
    Theme theme, QSize size, bool fitHeight)
{
    if (view.name == u"campaign" || data.isEmpty())
        return nullptr;
    const RunResult& result = *data.result;
    std::unique_ptr<QWidget> widget = createDataView(view.name, data, theme);
    if (widget) {
        widget->resize(size);
        widget->show();
        QApplication::processEvents();
        // Wrapped text (the warnings) is never cut off: a view whose height follows its width
        // gets all the height it needs at this width.
        if (fitHeight && widget->hasHeightForWidth()) {
            const int needed = widget->heightForWidth(size.width());
            if (needed > size.height()) {
                widget->resize(size.width(), needed);
                QApplication::processEvents();
            }
        }
        return widget;
    }
    qApp->setPalette(themePalette(theme));
    if (view.name == u"window") {
        auto window = std::make_unique<MainWindow>(false);
        window->setTheme(theme);
        window->endpointsPanel()->setEntries(entriesOf(result));
        window->showPrepared(
            data, files.size() == 1 ? QFileInfo(files.front()).absoluteFilePath() : QString());
        widget = std::move(window);
    } else if (view.name == u"endpoints") {
        auto endpoints = std::make_unique<EndpointsPanel>();
        endpoints->setEntries(entriesOf(result));
        widget = std::move(endpoints);
    } else if (view.name == u"run") {
        // The run panel as it was for this file.
        auto run = std::make_unique<RunPanel>();
        run->setBuiltinSuites(builtinSuiteNames());
        RunPanelSettings settings;
        settings.suite = QString::fromStdString(result.suite.value("id", std::string("voice-assistant")));
        settings.settings = result.settings;
        settings.note = result.userNote;
        run->setSettings(settings);
        run->setStatusText(
            QStringLiteral("%1 requests in %2")
                .arg(result.records.size())
                .arg(files.isEmpty() ? QStringLiteral("the run") : QFileInfo(files.front()).fileName()));
        widget = std::move(run);
    } else {
        return nullptr;
    }
    widget->resize(size);
    widget->show();
    QApplication::processEvents();
    return widget;
}

std::unique_ptr<QWidget> stageCampaign(std::shared_ptr<const Campaign> campaign, Theme theme, QSize size)
{
    qApp->setPalette(themePalette(theme));
    auto view = std::make_unique<CampaignView>();
    view->setTheme(theme);
    view->setCampaign(std::move(campaign));
    view->resize(size);
    view->show();
    QApplication::processEvents();
    return view;
}

} // namespace qs::app
