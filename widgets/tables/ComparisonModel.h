// SPDX-License-Identifier: MIT
#pragma once

#include "widgets/Theme.h"
#include "widgets/tables/EvaluationTableModel.h"

#include <QStringList>
#include <memory>
#include <vector>

namespace qs {

/// Evaluation::comparison as a table: for each candidate, a row per ArmComparison::metrics entry
/// (medians, ratio and median difference with their 95 % bootstrap intervals, Wilcoxon p,
/// verdict, winner), then a row per GateComparison (pass rates, difference with its Newcombe
/// interval, McNemar p, verdict). Each row's tooltip is its sentence; the verdict cell is green
/// when the candidate is better, red when it is worse.
class ComparisonModel : public EvaluationTableModel {
    Q_OBJECT
public:
    enum Column {
        Arms,
        Measure,
        Test,
        Turn,
        Pairs,
        Baseline,
        Candidate,
        Ratio,
        Difference,
        PValue,
        VerdictColumn,
        Winner,
        ColumnCount
    };
    static constexpr int SortRole = Qt::UserRole + 1; ///< the number behind a cell
    static constexpr int KindRole = Qt::UserRole + 2; ///< metricId() of a metric row, "gate" for a gate row

    explicit ComparisonModel(QObject* parent = nullptr);

    /// Shows `evaluation`'s comparison (none for null, or before it has been computed). Keeps the
    /// rows when they are the same as before.
    void setComparison(std::shared_ptr<const Evaluation> evaluation, QStringList endpointTitles);
    void setTheme(Theme theme);

    int metricRowCount() const; ///< rows that compare a metric (the rest compare a gate)
    const MetricComparison* metricRow(int row) const; ///< null for a gate row
    const GateComparison* gateRow(int row) const; ///< null for a metric row
    /// "candidate|metric|test|turn" or "candidate|gate|gate|test".
    QString rowKey(int row) const override;

    int rowCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    struct Row {
        int arm = 0;
        bool gate = false;
        int index = 0; ///< into the arm's metrics or gates
    };
    static std::vector<Row> rowsOf(const Evaluation* evaluation);
    static QString keyOf(const Evaluation& evaluation, const Row& row);
    const ArmComparison& arm(const Row& row) const;
    QString title(int endpoint) const;
    QVariant metricData(const Row& row, int column, int role) const;
    QVariant gateData(const Row& row, int column, int role) const;
    QVariant verdictBackground(Verdict verdict) const;

    std::vector<Row> m_rows;
    Theme m_theme = Theme::Light;
};

} // namespace qs
