// SPDX-License-Identifier: MIT
#pragma once

namespace qs::app {

/// Headless rendering (`screenshot`, `report`, `campaign`): selects Qt's offscreen platform and
/// drops its complaints about window-manager features it does not have ("This plugin does not
/// support propagateSizeHints()") and about a missing XDG_RUNTIME_DIR, which tell a user nothing.
/// Call before the QApplication.
/// Every other message passes through unchanged.
void prepareOffscreen();

} // namespace qs::app
