// SPDX-License-Identifier: MIT
#pragma once

#include "widgets/DashboardView.h"

#include <QWidget>

class QTableView;
class QComboBox;
class QLabel;
class QCheckBox;
class QSortFilterProxyModel;

namespace qs {

class CellStatisticsModel;
class ComparisonModel;

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

    /// The metric of the cell table and of the comparison's metric rows (cellMetrics()).
    void setMetric(Metric metric);
    Metric shownMetric() const; // not metric(): QPaintDevice::metric is virtual
    /// Whether the comparison table lists the gate comparisons after the metric rows (default on).
    void setGatesShown(bool shown);

private:
    void updateFilter();
    void updateLabels();
    DashboardData m_data;
    Theme m_theme = Theme::Light;
    CellStatisticsModel* m_cells;
    ComparisonModel* m_comparison;
    QSortFilterProxyModel* m_cellProxy;
    QSortFilterProxyModel* m_comparisonProxy;
    QTableView* m_cellTable;
    QTableView* m_comparisonTable;
    QComboBox* m_metricBox;
    QCheckBox* m_gatesBox;
    QLabel* m_cellTitle;
    QLabel* m_cellStatus;
    QLabel* m_comparisonTitle;
    QLabel* m_comparisonStatus;
    QList<QLabel*> m_mutedLabels;
};

} // namespace qs
