// SPDX-License-Identifier: MIT
#include "widgets/charts/NiceScale.h"

#include <algorithm>
#include <cmath>

namespace qs {

NiceScale niceScale(double top, int maxSteps, bool tight)
{
    if (!(top > 0) || !std::isfinite(top))
        top = 1;
    maxSteps = std::max(1, maxSteps);
    const double magnitude = std::pow(10.0, std::floor(std::log10(top / maxSteps)));
    NiceScale s;
    s.step = 10 * magnitude;
    s.decimals = 0;
    for (const double m : {1.0, 2.0, 2.5, 5.0, 10.0}) {
        if (std::ceil(top / (m * magnitude) - 1e-9) <= maxSteps) {
            s.step = m * magnitude;
            s.decimals = std::max(0, int(-std::floor(std::log10(s.step) + 1e-9)) + (m == 2.5 ? 1 : 0));
            break;
        }
    }
    s.top = tight ? top : std::ceil(top / s.step - 1e-9) * s.step;
    return s;
}

} // namespace qs
