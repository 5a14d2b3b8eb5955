// SPDX-License-Identifier: MIT
#pragma once

#include "widgets/charts/ChartPanel.h"

class QComboBox;
class QValueAxis;

namespace qs {

/// TTFT against turn for the multi-turn tests: one line per endpoint through the per-turn
/// medians, with a min–max band around it (QAreaSeries), switchable between TTFT-visible and
/// TTFT-any, and between multi-turn tests when a suite has several. Shows "no multi-turn test in
/// this run" when there is none.
class TtftTurnChart : public ChartPanel {
    Q_OBJECT
public:
    explicit TtftTurnChart(QWidget* parent = nullptr);
    void setData(const DashboardData& data) override;

    enum class Variant { Visible, Any };
    void setVariant(Variant variant);
    Variant variant() const { return m_variant; }
    /// Turns: shared with any other per-turn chart of the window.
    CrosshairAxis crosshairAxis() const override { return CrosshairAxis::Turn; }

protected:
    void applyTheme() override;

private:
    void rebuild();
    QValueAxis* m_x;
    QValueAxis* m_y;
    DashboardData m_data;
    Variant m_variant = Variant::Visible;
    QComboBox* m_variantBox;
    QComboBox* m_testBox;
};

} // namespace qs
