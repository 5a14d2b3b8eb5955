// SPDX-License-Identifier: MIT
#pragma once

#include "widgets/DashboardView.h"
#include "widgets/charts/ChartCrosshair.h"
#include "widgets/charts/ChartReadout.h"

#include <QList>
#include <QPointer>
#include <QWidget>
#include <utility>

class QChart;
class QChartView;
class QComboBox;
class QHBoxLayout;
class QLabel;
class QAbstractAxis;
class QValueAxis;
class QToolButton;
class QXYSeries;

namespace qs {

class ChartExplorer;
class ChartOverlay;

/// The frame every chart shares: a QChartView with a title, a one-line subtitle (units, what
/// is plotted, "no data yet" states), an optional row of controls, and the metric's definition
/// behind an "ⓘ" beside the title (word-wrapped; never over the plot, where the readout is).
/// Subclasses build their series in setData().
///
/// Every chart can be explored the same way (ChartExplorer): over the plot, a compact readout
/// of the numbers under the pointer and a crosshair; a chart that names its x axis with
/// setZoomAxis() also zooms (wheel, around the pointer) and pans (drag) that axis, and returns
/// to the full view on double-click, Escape or "Reset zoom". Charts of one window that join a
/// ChartCrosshair show each other's crosshair where their x axes mean the same thing.
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
    /// Hides the row of toggles and the definition's marker, e.g. for a screenshot of the chart
    /// alone.
    void setControlsVisible(bool visible);
    /// The metric's definition (plain text), as the "ⓘ" beside the title shows it.
    QString definitionText() const { return m_definition; }

    /// What the readout over the plot says now (the pointer's, or the shared crosshair's);
    /// empty when nothing is shown.
    virtual QString readout() const;
    /// Whether the user zoomed or panned away from the chart's own range.
    virtual bool isZoomed() const;
    /// Back to the full view; the chart follows its data again.
    virtual void resetZoom();

    /// Joins `hub`'s shared crosshair (ChartCrosshair::join calls this).
    void setCrosshair(ChartCrosshair* hub);
    /// What this chart's x axis means to the shared crosshair; None shares nothing.
    virtual CrosshairAxis crosshairAxis() const { return CrosshairAxis::None; }
    /// Shows the crosshair another chart is hovered at (in the hub's terms); an invalid
    /// QVariant clears it.
    virtual void showCrosshair(const QVariant& at);

    /// The gestures, as the plot's corner and the reset button say them.
    static QString gestureHint();

protected:
    void setTitle(const QString& title);
    void setSubtitle(const QString& text);
    /// The metric's definition (formula and source), shown word-wrapped from the "ⓘ" beside
    /// the title and over the headings, never over the plot.
    void setDefinition(const QString& text);
    /// Makes `axis` (a QValueAxis or QLogValueAxis on the chart, horizontal) zoomable and
    /// pannable. Charts on category axes do not call it.
    void setZoomAxis(QAbstractAxis* axis);
    ChartExplorer* explorer() const { return m_explorer; }
    /// How the readout writes x and y ("turn %1", "%1 ms").
    void setReadoutFormat(const ReadoutFormat& format) { m_readoutFormat = format; }
    const ReadoutFormat& readoutFormat() const { return m_readoutFormat; }
    /// The readout with the pointer at `pos` (chart coordinates). By default the XY series'
    /// values (xyReadout()); a chart on other series overrides it.
    virtual Readout readoutAt(const QPointF& pos);
    /// The readout where another chart's crosshair stands (`at` in the hub's terms). By default
    /// the lines' values at x = `at`.
    virtual Readout readoutAtShared(const QVariant& at);
    /// Recomputes the readout at the pointer's last place, e.g. after a hovered signal.
    void refreshReadout();
    /// For a chart that paints itself: tells the crosshair hub where it is hovered, or that the
    /// pointer left it; and shows whether it is zoomed (the reset button).
    void shareCrosshair(const QVariant& at);
    void leaveCrosshair();
    void setZoomedState(bool zoomed);
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
    void pointerMoved(const QPointF& pos);
    void pointerLeft();

    QChartView* m_view;
    QLabel* m_subtitle;
    QHBoxLayout* m_controls;
    QLabel* m_title;
    QWidget* m_controlsBox; ///< holds m_controls, so they can be hidden as a whole
    Theme m_theme = Theme::Light;
    QLabel* m_info; ///< "ⓘ" beside the title: the definition
    QToolButton* m_resetZoom; ///< shown while zoomed
    QString m_definition;
    ChartExplorer* m_explorer;
    ChartOverlay* m_overlay;
    ReadoutFormat m_readoutFormat;
    Readout m_readout; ///< what the overlay shows
    QPointer<ChartCrosshair> m_crosshair;
};

} // namespace qs
