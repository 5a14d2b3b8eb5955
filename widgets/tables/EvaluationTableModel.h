// SPDX-License-Identifier: MIT
#pragma once

#include "model/evaluate/Evaluation.h"

#include <QAbstractTableModel>
#include <QStringList>
#include <functional>
#include <memory>

namespace qs {

/// What the tables of an Evaluation share: the evaluation shown, the endpoints' titles, the
/// tests with several turns, and rows that keep their identity (a key) across updates, so an
/// update with only new numbers keeps the view's selection and scroll position.
class EvaluationTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    /// Identifies a row across updates (empty for a row that does not exist).
    virtual QString rowKey(int row) const = 0;
    /// The row whose rowKey() is `key`; −1 when it is gone.
    int rowForKey(const QString& key) const;

    int columnCount(const QModelIndex& parent = {}) const override;

protected:
    EvaluationTableModel(int columnCount, QObject* parent);

    /// Shows `evaluation`: a model reset when the rows changed, else only dataChanged() for every
    /// cell. `storeRows` keeps the subclass's own row data, inside the reset.
    void replaceEvaluation(std::shared_ptr<const Evaluation> evaluation, QStringList endpointTitles,
        bool sameRows, const std::function<void()>& storeRows = {});
    /// dataChanged() for every cell (`roles`: all when empty).
    void refreshAll(const QList<int>& roles = {});

    std::shared_ptr<const Evaluation> m_evaluation;
    QStringList m_titles;
    QStringList m_multiTurnTests;

private:
    int m_columnCount;
};

} // namespace qs
