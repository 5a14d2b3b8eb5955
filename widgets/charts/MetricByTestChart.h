// SPDX-License-Identifier: MIT
#pragma once

#include "model/evaluate/Statistics.h"
#include "widgets/charts/ChartPanel.h"

class QBarCategoryAxis;
class QComboBox;
class QValueAxis;

namespace qs {

/// One metric per test as grouped box plots: a QBoxPlotSeries per endpoint, a box per test
/// (min, p25, median, p75, max of measured, successful requests), endpoints side by side within
/// each test, endpoint colours, value axis in the metric's unit. Used for decode tok/s and for
/// TTFT (visible, with a toggle to any).
class MetricByTestChart : public ChartPanel {
    Q_OBJECT
public:
    /// `metric`: DecodeTps, TtftVisible or TtftAny (the TTFT chart offers the other as a toggle).
    explicit MetricByTestChart(Metric metric, QWidget* parent = nullptr);
    void setData(const DashboardData& data) override;

    Metric metric() const { return m_metric; }
    void setMetric(Metric metric);

protected:
    void applyTheme() override;
    void resizeEvent(QResizeEvent* event) override;

private:
    void rebuild();
    void fitCategoryLabels(); ///< slants the test ids when they would not fit side by side
    DashboardData m_data;
    Metric m_metric;
    QBarCategoryAxis* m_x;
    QValueAxis* m_y;
    QComboBox* m_variantBox; ///< TTFT visible / any; hidden for other metrics
};

} // namespace qs
