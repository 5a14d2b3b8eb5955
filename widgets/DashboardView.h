// SPDX-License-Identifier: MIT
#pragma once

#include "widgets/DashboardData.h"
#include "widgets/Theme.h"

namespace qs {

/// What the main window needs of every view of a run: show this data, in this theme. Views
/// are QWidgets that also implement this interface.
class DashboardView {
public:
    virtual ~DashboardView() = default;
    /// Shows `data` (possibly empty). Cheap: at most one linear pass over the records; called
    /// on every live refresh (a few times per second), so it keeps the user's selections.
    virtual void setData(const DashboardData& data) = 0;
    virtual void setTheme(Theme theme) = 0;
};

} // namespace qs
