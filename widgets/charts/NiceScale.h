// SPDX-License-Identifier: MIT
#pragma once

namespace qs {

/// Round ticks for a value axis from 0 to `top`: the finest step of 1, 2, 2.5 or 5 × 10^k that
/// needs at most `maxSteps` ticks (the least empty space on top), the decimals its labels need,
/// and where the axis ends. Shared by the Qt Charts axes (ChartPanel) and the painted Server charts.
struct NiceScale {
    double step = 1;
    int decimals = 0;
    double top = 1; ///< the input top (tight) or the next round tick at or above it
};
/// `tight` keeps `top` as the end (time axes). A `top` that is not positive and finite reads as 1.
NiceScale niceScale(double top, int maxSteps = 7, bool tight = false);

} // namespace qs
