// SPDX-License-Identifier: MIT
#pragma once

#include "widgets/DashboardView.h"

#include <QWidget>
#include <map>
#include <tuple>

class QTableWidget;
class QComboBox;
class QLabel;

namespace qs {

/// Quality gates as an endpoints × tests matrix: a row per test (plus "All tests"), a column
/// per endpoint, cells "passed/applicable" (e.g. "3/15") for the chosen gate, or for every gate
/// together, coloured by pass rate (all / some / none passed; grey when no request applied).
/// Each cell's tooltip lists every gate with its count and the most common failure reason.
class QualityMatrixView : public QWidget, public DashboardView {
    Q_OBJECT
public:
    explicit QualityMatrixView(QWidget* parent = nullptr);
    void setData(const DashboardData& data) override;
    void setTheme(Theme theme) override;

    /// "" = all gates together; otherwise a gate name (QualityGates gateNames()).
    void setGate(const QString& gate);
    QString gate() const; ///< the gate shown, "" = all gates together
    QTableWidget* table() const { return m_table; }

private:
    void rebuild();
    QString cellToolTip(
        int endpoint, const QString& test, const std::map<QString, std::pair<int, int>>& gates) const;
    void updateLegend();

    DashboardData m_data;
    Theme m_theme = Theme::Light;
    QTableWidget* m_table;
    QComboBox* m_gateBox;
    QLabel* m_description;
    QLabel* m_legend;
};

} // namespace qs
