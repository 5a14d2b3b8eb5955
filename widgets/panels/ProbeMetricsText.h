// SPDX-License-Identifier: MIT
#pragma once

#include "widgets/Theme.h"

#include <QString>
#include <nlohmann/json.hpp>

namespace qs {

/// What a probe found about an endpoint's Prometheus pages, as rows of the endpoints panel's
/// details (HTML, every server-given string escaped): whether the runtime's `/metrics` answered
/// and which known families it has, or the flag that turns it on; then each extra exporter.
/// Reads `probe["metrics"]` and `probe["exporters"]` of toJson(ProbeResult) defensively (each
/// `{"url", "answered", "status", "format", "flavour", "families": [...], "hint", "error"}`);
/// returns an empty string when the probe says nothing about metrics.
QString probeMetricsHtml(const nlohmann::json& probe, const ThemeColors& colors);

} // namespace qs
