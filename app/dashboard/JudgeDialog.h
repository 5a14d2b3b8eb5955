// SPDX-License-Identifier: MIT
#pragma once

#include "app/dashboard/JudgeSession.h"

#include <QDialog>
#include <optional>

class QCheckBox;
class QComboBox;
class QLabel;
class QSpinBox;

namespace qs::app {

/// Asks how to judge the results shown: which judge (a SPEC, as for run --endpoint: one of the
/// compared endpoints, a larger model on the LAN, or the simulated judge), which rubric, and
/// whether to compare every endpoint with the baseline pair by pair. Reads a rubric file the user
/// picks (a small local file) and says at once what is wrong with it.
class JudgeDialog : public QDialog {
    Q_OBJECT
public:
    /// `endpointSpecs`: the compared endpoints' URLs, offered as judges (with a self-preference
    /// warning); `baselineLabel`: what --pairwise would compare against (empty: one endpoint, no
    /// pairwise comparison).
    JudgeDialog(const QStringList& endpointSpecs, const QString& baselineLabel, int baseline,
        QWidget* parent = nullptr);

    /// The setup, once accepted.
    JudgeSetup setup() const;

private:
    void chooseRubricFile();
    void validate();

    QComboBox* m_judge;
    QComboBox* m_rubric;
    QCheckBox* m_pairwise;
    QSpinBox* m_concurrency;
    QLabel* m_problem;
    std::optional<Rubric> m_fileRubric;
    QStringList m_endpointSpecs;
    int m_baseline = 0;
};

} // namespace qs::app
