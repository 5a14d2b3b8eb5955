// SPDX-License-Identifier: MIT
#pragma once

#include "widgets/DashboardView.h"

#include <QWidget>

class QTableView;
class QComboBox;
class QLabel;

namespace qs {

/// The numbers behind the charts. Top: per endpoint × test (× turn) cell, for the chosen metric,
/// n, ok/failed, mean, stdev, min, p50, p90, p95, p99, max (from Evaluation::cells). Bottom: the
/// paired comparison of each candidate with the baseline (from Evaluation::comparison): per
/// metric and test, pairs, medians, ratio with its 95 % bootstrap interval, median difference
/// with its interval, Wilcoxon p, verdict and winner; then the gate comparisons (McNemar,
/// Newcombe interval). Shows "computing intervals…" until the comparison has been computed.
class StatisticsView : public QWidget, public DashboardView {
    Q_OBJECT
public:
    explicit StatisticsView(QWidget* parent = nullptr);
    void setData(const DashboardData& data) override;
    void setTheme(Theme theme) override;

    QTableView* cellTable() const;
    QTableView* comparisonTable() const;
};

} // namespace qs
