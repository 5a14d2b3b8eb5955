// SPDX-License-Identifier: MIT
#pragma once

#include "model/evaluate/Evaluation.h"

#include <QTextStream>

namespace qs::app {

/// The text of `quantscope summary`: header, endpoints, warnings, the table of medians and gate
/// counts, the paired comparison with intervals and verdicts, the multi-turn sentences, the
/// prefill scaling (ms of TTFT per 1K uncached prompt tokens, the context sweep's rows), the
/// servers' resources, the judge's verdicts and, when fidelity tests ran, each arm's drift from
/// the reference. The GUI's Export Report writes the same text.
void writeSummaryText(QTextStream& out, const RunResult& result, const Evaluation& evaluation);

} // namespace qs::app
