// SPDX-License-Identifier: MIT
#include "widgets/tables/EvaluationTableModel.h"

#include "widgets/tables/TableText.h"

namespace qs {

EvaluationTableModel::EvaluationTableModel(int columnCount, QObject* parent)
    : QAbstractTableModel(parent)
    , m_columnCount(columnCount)
{
}

int EvaluationTableModel::rowForKey(const QString& key) const
{
    for (int row = 0; row < rowCount(); ++row)
        if (rowKey(row) == key)
            return row;
    return -1;
}

int EvaluationTableModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : m_columnCount;
}

void EvaluationTableModel::replaceEvaluation(std::shared_ptr<const Evaluation> evaluation,
    QStringList endpointTitles, bool sameRows, const std::function<void()>& storeRows)
{
    if (!sameRows)
        beginResetModel();
    m_evaluation = std::move(evaluation);
    if (storeRows)
        storeRows();
    m_titles = std::move(endpointTitles);
    m_multiTurnTests = multiTurnTests(m_evaluation.get());
    if (!sameRows)
        endResetModel();
    else
        refreshAll();
}

void EvaluationTableModel::refreshAll(const QList<int>& roles)
{
    if (rowCount() > 0)
        Q_EMIT dataChanged(index(0, 0), index(rowCount() - 1, m_columnCount - 1), roles);
}

} // namespace qs
