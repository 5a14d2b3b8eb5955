// SPDX-License-Identifier: MIT
#pragma once

#include "model/decide/DecisionProfile.h"
#include "model/evaluate/Fidelity.h"
#include "model/evaluate/Statistics.h"

#include <QString>

// The words and numbers a criterion's verdict is explained with, and the fix to suggest for each
// kind of failure.
namespace qs::criteria {

/// Numbers as a reader wants them: three significant digits or whole units, never "92.0634 ms".
QString number(double v);
QString withUnit(double v, Metric metric); ///< number() and the metric's unit
/// A threshold as the profile wrote it: "120 ms", "25 tok/s".
QString limitWithUnit(double v, Metric metric);
QString percent(double fraction); ///< "12 %"
QString signedPercent(double fraction); ///< "+12 %", "-3 %", "0 %"
QString inTest(const Criterion& c); ///< " in test \"id\"", or "" for every test
QString metricName(Metric metric); ///< "total latency", "decode rate"…, for prose
/// "N of M answers <what>" for a gate's failures: "leaked thinking into the answer"…
QString failedPhrase(const QString& gate);
QString gateFix(const QString& gate); ///< the fix the seeds learned for each kind of gate failure
QString metricFix(Metric metric); ///< what makes the metric better
QString betterWord(Metric metric, bool better); ///< "faster"/"slower", "shorter"/"longer"
/// Why a gate may have judged no answer at all: which tests it applies to (with a leading space).
QString notJudgedHint(const QString& gate);

} // namespace qs::criteria
