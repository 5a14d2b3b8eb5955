// SPDX-License-Identifier: MIT
#pragma once

#include "model/Statistics.h"
#include "widgets/charts/ChartPanel.h"

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

private:
    void rebuild();
    DashboardData m_data;
    Metric m_metric;
};

} // namespace qs
