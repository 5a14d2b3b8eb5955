// SPDX-License-Identifier: MIT
#pragma once

#include "model/evaluate/Statistics.h"

#include <QString>

namespace qs {

/// A metric's value at the precision a reader wants, without the unit: ms with 1 decimal below
/// 100 and none from 100 up, tok/s with 1 decimal, token counts whole (1 decimal when fractional,
/// e.g. a mean). Halves round away from zero. The one rule behind the tables and the report.
QString metricNumber(double value, Metric metric);

} // namespace qs
