// SPDX-License-Identifier: MIT
#pragma once

#include "widgets/charts/ChartPanel.h"

#include <QList>
#include <utility>

class QComboBox;
class QGraphicsSimpleTextItem;
class QLineSeries;
class QValueAxis;

namespace qs {

/// End-to-end latency against response length: a scatter of measured, successful requests per
/// endpoint (completion tokens → e2e ms; at most ~2,000 points per endpoint, evenly sampled), the
/// latency model e2e(N) = TTFT + N / decode_tps of each endpoint as a line (medians over the
/// requests shown), and the crossover length N* between the baseline and each candidate as a
/// labelled vertical marker ("below N* tokens X is faster"). A test picker limits it to one test.
class LatencyLengthChart : public ChartPanel {
    Q_OBJECT
public:
    explicit LatencyLengthChart(QWidget* parent = nullptr);
    void setData(const DashboardData& data) override;

protected:
    void applyTheme() override;

private:
    void rebuild();
    void placeMarkerLabels(); ///< after the plot area or the ranges changed
    DashboardData m_data;
    class QComboBox* m_testBox;
    QValueAxis* m_x;
    QValueAxis* m_y;
    /// "N* ≈ 23 tokens" beside each crossover marker, and the marker (a vertical dashed line)
    /// it belongs to.
    QList<std::pair<QGraphicsSimpleTextItem*, QLineSeries*>> m_markerLabels;
};

} // namespace qs
