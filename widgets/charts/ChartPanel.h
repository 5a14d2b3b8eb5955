// SPDX-License-Identifier: MIT
#pragma once

#include "widgets/DashboardView.h"

#include <QList>
#include <QWidget>
#include <utility>

class QChart;
class QChartView;
class QComboBox;
class QHBoxLayout;
class QLabel;
class QAbstractAxis;
class QValueAxis;
class QXYSeries;

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
    /// Fills the "TTFT visible / TTFT any" picker the TTFT charts share (index 0 = visible).
    static void setUpTtftVariantPicker(QComboBox* box);
    /// A chart that paints itself (ServerCharts) puts its plot where the QChartView was; the
    /// frame (title, subtitle, definition, theme) stays.
    void setPlotWidget(QWidget* plot);
    /// Where subclasses put their toggles (e.g. TTFT visible / any).
    QHBoxLayout* controls() const { return m_controls; }
    /// Re-applies the theme after series and axes changed; subclasses call it at the end of a
    /// rebuild, and override it to recolour their series.
    virtual void applyTheme();
    /// Nothing to plot: removes every series, hides axes and legend (no empty grid), and says
    /// why in the subtitle.
    void showMessage(const QString& subtitle);
    /// Shows axes and legend again after showMessage(); call before adding series.
    void showPlot();
    /// Sets a value axis to [0, top] with round ticks (1, 2, 2.5 or 5 × 10^k, at most 7 steps):
    /// `tight` keeps top as the end (time axes), otherwise the range ends on the next round tick.
    static void setNiceRange(QValueAxis* axis, double top, bool tight = false);
    /// Fills a picker with (label, id) choices, keeping the selected id when it is still offered
    /// (setData() runs several times per second during a live run). Emits no signal.
    static void setChoices(QComboBox* box, const QList<std::pair<QString, QString>>& choices);
    /// The properties a series is tagged with, so applyTheme() can colour it: its endpoint index
    /// and its role in the chart (each chart's own words, e.g. "prompts", "fit").
    static constexpr const char* endpointProperty = "qsEndpoint";
    static constexpr const char* roleProperty = "qsRole";
    /// Adds `series` on the axes `x` and `y`, tagged with `endpoint` and `role`; its legend
    /// marker hidden unless `inLegend`.
    void addTaggedSeries(
        QXYSeries* series, QAbstractAxis* x, QAbstractAxis* y, int endpoint, const char* role, bool inLegend);

private:
    QChartView* m_view;
    QLabel* m_subtitle;
    QHBoxLayout* m_controls;
    QLabel* m_title;
    QWidget* m_controlsBox; ///< holds m_controls, so they can be hidden as a whole
    Theme m_theme = Theme::Light;
};

} // namespace qs
