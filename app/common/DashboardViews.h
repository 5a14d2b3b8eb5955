// SPDX-License-Identifier: MIT
#pragma once

#include "widgets/DashboardData.h"
#include "widgets/Theme.h"

#include <QSize>
#include <QString>
#include <QStringList>
#include <memory>

class QWidget;

namespace qs::app {

/// The views a screenshot can show, by the names `quantscope screenshot --view` takes.
struct ViewInfo {
    QString name; ///< e.g. "ttft-turn"
    QString title; ///< e.g. "TTFT vs turn"
    QSize size; ///< logical size of a standalone screenshot
    QString description; ///< one line: what it shows (`screenshot --list-views`)
};

/// "window" first, then every panel and chart, in the order the window shows them.
const std::vector<ViewInfo>& dashboardViews();
const ViewInfo* findView(const QString& name);

/// A standalone instance of a data view (not "window", "endpoints" or "run"), populated and
/// themed, for a screenshot: charts without their toggles, responses on the most telling cell.
/// Null for a name that is not a data view.
std::unique_ptr<QWidget> createDataView(const QString& name, const DashboardData& data, Theme theme);

} // namespace qs::app
