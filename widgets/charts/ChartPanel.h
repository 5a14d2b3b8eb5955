// SPDX-License-Identifier: MIT
#pragma once

#include "widgets/DashboardView.h"

#include <QWidget>

class QChart;
class QChartView;
class QHBoxLayout;
class QLabel;

namespace qs {

/// The frame every chart shares: a QChartView with a title, a one-line subtitle (units, what
/// is plotted, "no data yet" states), an optional row of controls, and the metric's definition
/// as the tooltip of the whole panel. Subclasses build their series in setData().
class ChartPanel : public QWidget, public DashboardView {
    Q_OBJECT
public:
    explicit ChartPanel(QWidget* parent = nullptr);

    QChart* chart() const;
    QChartView* chartView() const { return m_view; }
    QString title() const;
    QString subtitle() const;
    Theme theme() const { return m_theme; }

    void setTheme(Theme theme) override;
    /// Hides the row of toggles, e.g. for a screenshot of the chart alone.
    void setControlsVisible(bool visible);

protected:
    void setTitle(const QString& title);
    void setSubtitle(const QString& text);
    /// The metric's definition (formula and source), shown as tooltip.
    void setDefinition(const QString& text);
    /// Where subclasses put their toggles (e.g. TTFT visible / any).
    QHBoxLayout* controls() const { return m_controls; }
    /// Re-applies the theme after series and axes changed; subclasses call it at the end of a
    /// rebuild, and override it to recolour their series.
    virtual void applyTheme();

private:
    QChartView* m_view;
    QLabel* m_subtitle;
    QHBoxLayout* m_controls;
    Theme m_theme = Theme::Light;
};

} // namespace qs
