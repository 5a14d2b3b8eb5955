// SPDX-License-Identifier: MIT
#pragma once

#include "model/core/Suite.h"
#include "widgets/panels/RunPanel.h"

#include <QString>

namespace qs {

/// The Run panel's "Settings in force": what Run will send, counted as the evidence counts it
/// (distinct prompts per category, timing repeats, warm-ups, requests), in what order, and whose
/// numbers they are (the suite's, or overridden here, or the demo's short run) — one part per
/// line, so that a narrow dock reads it part by part. A run until decided first says its looks
/// and what ends it.
QString runInForceText(const Suite& suite, const RunPanelSettings& settings);

} // namespace qs
