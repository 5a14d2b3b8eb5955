// SPDX-License-Identifier: MIT
#pragma once

#include "app/common/DashboardViews.h"
#include "model/decide/Campaign.h"
#include "widgets/DashboardData.h"
#include "widgets/Theme.h"
#include "widgets/panels/EndpointEntry.h"

#include <QSize>
#include <QStringList>
#include <memory>
#include <vector>

class QWidget;

namespace qs::app {

// A view set out for its picture: what `quantscope screenshot` renders and what the screen check
// (widgets/ScreenCheck.h, `screenshot --check`, tests/app/tst_screen_check.cpp) inspects — one
// code path, so the check sees exactly the pixels a user exports.

/// The endpoints of a reviewed file, as the endpoints panel shows them.
std::vector<EndpointEntry> entriesOf(const RunResult& result);

/// `view` of `data` (its run from `files`), shown offscreen at `size` and laid out. With
/// `fitHeight`, a view whose height follows its width (the warnings) gets the height its text
/// needs. Null for the campaign view (stageCampaign()) and unknown names. Needs a QApplication.
std::unique_ptr<QWidget> stageView(const ViewInfo& view, const DashboardData& data, const QStringList& files,
    Theme theme, QSize size, bool fitHeight);

/// The campaign view of `campaign`, shown offscreen at `size` and laid out.
std::unique_ptr<QWidget> stageCampaign(std::shared_ptr<const Campaign> campaign, Theme theme, QSize size);

} // namespace qs::app
