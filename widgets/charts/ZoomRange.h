// SPDX-License-Identifier: MIT
#pragma once

#include <optional>

namespace qs {

/// The x range a chart shows while the user explores it: the "home" range the chart's own code
/// chose (the whole run, the live window, …) and, once the user zooms or pans, a view range of
/// their own that survives every later change of home (a live chart sets its range several
/// times a second). Plain arithmetic, shared by the Qt Charts panels and the painted Server plot;
/// a log axis hands it logarithms.
class ZoomRange {
public:
    /// The range the chart would show unexplored. Keeps a user view, unless home moved so far
    /// that the view no longer overlaps it (another run was opened): then back to home.
    void setHome(double lo, double hi);
    /// How far the user may pan or zoom out; home when never set. A live chart allows the whole
    /// run so far while home is the last minute.
    void setLimits(double lo, double hi);
    void clearLimits() { m_limits.reset(); }

    /// Zooms by `factor` (< 1 narrows) keeping `at` where it is on screen. Zooming out past the
    /// limits ends the zoom when the view would cover home again.
    void zoom(double at, double factor);
    /// Moves the view by `delta` (positive: later), kept within the limits.
    void pan(double delta);
    /// Back to home: the chart follows its data again.
    void reset() { m_view.reset(); }

    bool zoomed() const { return m_view.has_value(); }
    double lo() const { return m_view ? m_view->lo : m_home.lo; }
    double hi() const { return m_view ? m_view->hi : m_home.hi; }
    double homeLo() const { return m_home.lo; }
    double homeHi() const { return m_home.hi; }

    /// The narrowest view, as a share of home: beyond it a float axis has nothing left to show.
    static constexpr double minimumShare = 1e-4;

private:
    struct Span {
        double lo = 0;
        double hi = 1;
    };
    Span limits() const;
    Span m_home;
    std::optional<Span> m_limits;
    std::optional<Span> m_view;
};

} // namespace qs
