// SPDX-License-Identifier: MIT
#pragma once

#include "widgets/charts/ChartPanel.h"

class QLogValueAxis;
class QValueAxis;

namespace qs {

/// TTFT against the prompt tokens a server had to process (Evaluation::prefill): one dot per
/// distinct prompt and turn per endpoint — the median of its repeats, so a long run stays a few
/// hundred dots — and each endpoint's least-squares line, its legend entry "NAME: X ms per 1K
/// tokens [lo–hi]". Prompts whose answer missed the expected fact are ringed. The x axis is log₂
/// (the context sweep doubles its size at each step: 1K, 2K, … 32K sit evenly); the fitted lines,
/// straight in tokens, curve upwards on it. Shows the context sweep when the run has one, else the
/// multi-turn conversations' growth, else says there is nothing to show.
class PromptScalingChart : public ChartPanel {
    Q_OBJECT
public:
    explicit PromptScalingChart(QWidget* parent = nullptr);
    void setData(const DashboardData& data) override;

    /// At most this many dots per endpoint (evenly sampled beyond it): Qt Charts draws each as an
    /// item of its own.
    static constexpr int maxDotsPerEndpoint = 300;

protected:
    void applyTheme() override;

private:
    void rebuild();
    QLogValueAxis* m_x;
    QValueAxis* m_y;
    DashboardData m_data;
};

} // namespace qs
