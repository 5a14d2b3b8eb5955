// SPDX-License-Identifier: MIT
#pragma once

#include "widgets/charts/ChartPanel.h"

class QBarCategoryAxis;
class QValueAxis;

namespace qs {

/// One fidelity number per compared arm as a bar in the arm's colour, with its 95 % interval as a
/// whisker: the mean KL against the reference (nats; arms whose KL is not comparable get no bar and
/// are named in the subtitle) or the flip rate (%, the prompts whose answer differs from the
/// reference's in any token). Reads Evaluation::fidelity.
class FidelityArmChart : public ChartPanel {
    Q_OBJECT
public:
    enum class Measure { KlMean, FlipRate };
    explicit FidelityArmChart(Measure measure, QWidget* parent = nullptr);
    void setData(const DashboardData& data) override;
    Measure measure() const { return m_measure; }
    /// The bar values shown, per arm in arm order (nats or %); nullopt for an arm without a bar.
    std::vector<std::optional<double>> values() const { return m_values; }

protected:
    void applyTheme() override;

private:
    void rebuild();
    DashboardData m_data;
    Measure m_measure;
    std::vector<std::optional<double>> m_values;
    QBarCategoryAxis* m_x;
    QValueAxis* m_y;
};

/// Where answers first diverge from the reference's: for each arm, how many prompts' first
/// divergence fell at token index 0, 1–3, 4–7, … (doubling buckets, divergenceBuckets()), as
/// grouped bars in the arms' colours. Identical answers have no divergence and are not counted.
class DivergenceChart : public ChartPanel {
    Q_OBJECT
public:
    explicit DivergenceChart(QWidget* parent = nullptr);
    void setData(const DashboardData& data) override;
    /// Prompts per bucket, per arm in arm order (what the bars show).
    std::vector<std::vector<int>> counts() const { return m_counts; }

protected:
    void applyTheme() override;

private:
    void rebuild();
    DashboardData m_data;
    std::vector<std::vector<int>> m_counts;
    QBarCategoryAxis* m_x;
    QValueAxis* m_y;
};

} // namespace qs
