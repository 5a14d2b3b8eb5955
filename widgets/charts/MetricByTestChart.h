// SPDX-License-Identifier: MIT
#pragma once

#include "model/evaluate/Statistics.h"
#include "widgets/charts/ChartPanel.h"

#include <QPointer>

class QBarCategoryAxis;
class QBoxSet;
class QComboBox;
class QValueAxis;

namespace qs {

/// One metric per test as grouped box plots: a QBoxPlotSeries per endpoint, a box per test
/// (min, p25, median, p75, max of measured, successful requests), endpoints side by side within
/// each test, endpoint colours, value axis in the metric's unit. Used for decode tok/s and for
/// TTFT (visible, with a toggle to any). Hovering a box reads its numbers (test, endpoint,
/// median, quartiles, whiskers, n); elsewhere over a test, every endpoint's median there. The
/// test axis does not zoom; the shared crosshair highlights the same test in the other per-test
/// chart.
class MetricByTestChart : public ChartPanel {
    Q_OBJECT
public:
    /// `metric`: DecodeTps, TtftVisible or TtftAny (the TTFT chart offers the other as a toggle).
    explicit MetricByTestChart(Metric metric, QWidget* parent = nullptr);
    void setData(const DashboardData& data) override;

    Metric shownMetric() const { return m_metric; } // not metric(): QPaintDevice::metric is virtual
    void setMetric(Metric metric);

    CrosshairAxis crosshairAxis() const override { return CrosshairAxis::Test; }

protected:
    void applyTheme() override;
    Readout readoutAt(const QPointF& pos) override;
    Readout readoutAtShared(const QVariant& at) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    void rebuild();
    void fitCategoryLabels(); ///< slants the test ids when they would not fit side by side
    /// Every endpoint's median for the test at category `index`: the crosshair's readout.
    Readout testReadout(int index) const;
    DashboardData m_data;
    Metric m_metric;
    QBarCategoryAxis* m_x;
    QValueAxis* m_y;
    QComboBox* m_variantBox; ///< TTFT visible / any; hidden for other metrics
    QPointer<QBoxSet> m_hovered; ///< the box under the pointer (its series' hovered signal)
};

} // namespace qs
