// SPDX-License-Identifier: MIT
#pragma once

#include "model/evaluate/Evaluation.h"
#include "model/evaluate/PairedComparison.h"
#include "model/evaluate/Statistics.h"

#include <QColor>
#include <QString>
#include <QStringList>

namespace qs {

// Words and number formats shared by the tables, so that a gate, a metric or a p-value reads the
// same in every one of them. Wording follows docs/methodology.md and docs/quality-gates.md.

/// "No markdown", "No thinking leak", "Tool call"…; an unknown gate name is returned as it is.
/// Tests with per-turn cells in the evaluation (their all-turns row reads "all" in a Turn column).
QStringList multiTurnTests(const Evaluation* evaluation);

QString gateTitle(const QString& gate);
/// What makes the gate fail, in one sentence (docs/quality-gates.md); "" = every gate together.
QString gateDescription(const QString& gate);

/// "TTFT (any token)", "Decode rate"…
QString metricTitle(Metric metric);
/// The metric's definition, for tooltips.
QString metricDescription(Metric metric);

/// Read from the candidate's side: "Candidate better", "Candidate worse", "No clear difference"…
QString verdictText(Verdict verdict);

/// A value in the metric's unit without the unit: ms with 1 decimal below 100 and none above,
/// tok/s with 1 decimal, token counts whole (1 decimal when fractional, e.g. a mean).
QString formatMetricValue(double value, Metric metric);
/// The same with the unit: "312 ms", "38.2 tok/s", "41 tokens".
QString formatMetricWithUnit(double value, Metric metric);
/// Two significant digits ("0.062", "0.00031"); "< 0.0001" below that.
QString formatPValue(double p);
/// Uses a real minus sign, so that columns of signed numbers read well.
QString withMinusSign(QString number);

/// The text colour (black or white) that reads best on `background`.
QColor readableTextOn(const QColor& background);

} // namespace qs
