// SPDX-License-Identifier: MIT
#include "model/evaluate/MetricText.h"

#include <cmath>

namespace qs {

QString metricNumber(double value, Metric metric)
{
    int decimals = 1;
    if (metricUnit(metric) == u"ms")
        decimals = std::fabs(value) >= 100 ? 0 : 1;
    else if (metricUnit(metric) == u"tokens")
        decimals = value == std::round(value) ? 0 : 1;
    return QString::number(value, 'f', decimals);
}

} // namespace qs
