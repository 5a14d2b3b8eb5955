// SPDX-License-Identifier: MIT
#pragma once

#include "widgets/tables/EvaluationTableModel.h"

#include <QStringList>
#include <memory>
#include <vector>

namespace qs {

/// Evaluation::cells as a table for one metric: a row per endpoint × test (× turn) cell with n,
/// ok/failed and the metric's distribution (mean, stdev, min, p50, p90, p95, p99, max). Values
/// that rest on estimated completion token counts are marked "≈" and say so in their tooltip.
class CellStatisticsModel : public EvaluationTableModel {
    Q_OBJECT
public:
    enum Column {
        Endpoint,
        Test,
        Turn,
        N,
        Ok,
        Failed,
        Mean,
        Stdev,
        Min,
        P50,
        P90,
        P95,
        P99,
        Max,
        ColumnCount
    };
    /// The number behind a cell, for sorting (display text otherwise).
    static constexpr int SortRole = Qt::UserRole + 1;

    explicit CellStatisticsModel(QObject* parent = nullptr);

    /// Shows `evaluation`'s cells (none for null). Keeps the rows (and so the view's selection)
    /// when the cells are the same endpoints × tests × turns as before, only with new numbers.
    void setCells(std::shared_ptr<const Evaluation> evaluation, QStringList endpointTitles);
    void setMetric(Metric metric);
    Metric metric() const { return m_metric; }

    const CellStatistics* cell(int row) const;
    /// Identifies a row across updates ("endpoint|test|turn"); rowForKey() is −1 when gone.
    QString rowKey(int row) const override;

    int rowCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    bool estimated(const CellStatistics& cell) const;
    Metric m_metric = Metric::TtftAny;
};

} // namespace qs
