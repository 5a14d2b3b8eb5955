// SPDX-License-Identifier: MIT
#pragma once

#include "model/decide/Sequential.h"
#include "widgets/Theme.h"

#include <QHash>
#include <QStringList>
#include <QWidget>
#include <vector>

class QPainter;

namespace qs {

/// The looks of an until-decided run (model/decide/Sequential.h) for one candidate — or any series
/// of verdicts, such as a campaign's attempts (setSeries) — painted as
/// small multiples: one plot per criterion that was judged on an interval, x the distinct prompts
/// asked by each look (a log scale: the rounds grow about 1.5× each, so the looks sit evenly),
/// the look's interval as a bar coloured by that look's outcome (the table's pass / fail /
/// inconclusive colours), the estimate as a dot, the limit as a dashed line with its worse side
/// shaded. A reader sees each interval narrow, at each look's stricter level, until it clears
/// the limit — or the run ends first. Criteria decided on a count (a leak that happened) and
/// criteria not measured have no interval and are left out; the legend says how many.
///
/// Painted rather than built from Qt Charts: a dozen plots must share one look and one font, and
/// redraw on every live refresh in well under a millisecond. The plots flow into as many columns
/// as the width holds; the height follows the width (heightForWidth), for a scroll area.
class LooksChart : public QWidget {
    Q_OBJECT
public:
    explicit LooksChart(QWidget* parent = nullptr);

    /// Draws `run`'s looks for `candidate` (an endpoint index), each criterion under the title
    /// `titles` gives for its id, else under its id; `note`, when not empty, ends the legend (e.g.
    /// that the looks were judged with another profile than the table's). Repaints and updates
    /// the height.
    void setLooks(const UntilDecided& run, int candidate, const QHash<QString, QString>& titles,
        const QString& note = {});

    /// One criterion at one column: its outcome, estimate, interval and limit there.
    struct Mark {
        bool present = false;
        CriterionResult::Outcome outcome = CriterionResult::Outcome::Inconclusive;
        std::optional<double> estimate;
        std::optional<Interval> interval;
        std::optional<double> limit;
        bool worseAbove = true;
    };
    /// One plot: a criterion's marks, one per column (absent where it was not judged).
    struct Series {
        QString id;
        QString title;
        std::vector<Mark> at;
    };
    /// One position on the x axis: the label under each plot, the words the readout starts with,
    /// and where it sits (evenly spaced when every x is the same or there is one).
    struct Column {
        QString label;
        QString readout;
        double x = 0;
        int prompts = 0; ///< a look's distinct prompts (lookPrompts()); 0 otherwise
    };
    /// Draws any series of intervals — a campaign's attempts in time order — instead of looks.
    /// Series without an interval anywhere are left out and counted in the legend; `axis` is the
    /// legend's words for the x axis ("x: attempts in time order").
    void setSeries(std::vector<Column> columns, std::vector<Series> series, const QString& axis,
        const QString& note = {});
    void clear();
    void setTheme(Theme theme);

    /// Looks with a verdict for the candidate: the bars of each plot.
    int lookCount() const { return int(m_looks.size()); }
    /// Distinct prompts at each look drawn, in order.
    std::vector<int> lookPrompts() const;
    /// The criteria drawn, by id, in profile order.
    QStringList criterionIds() const;
    /// Their titles as painted at the current width: wrapped to at most two lines (joined by a
    /// space here), and elided with "…" only when even two lines cannot hold one.
    QStringList drawnTitles() const;
    /// Criteria with no interval to draw at any column (decided on counts, or not measured); the
    /// legend says how many.
    int undrawnCount() const { return m_undrawn; }
    /// Plots side by side at `width` (the current width when 0).
    int columnsAt(int width = 0) const;
    /// The legend's words, in order (the marks' meanings, the axis, the note).
    QStringList legendTexts() const;
    bool isEmpty() const { return m_rows.empty(); }

    /// What the tooltip says at `pos`: the criterion under it and its interval at each look;
    /// empty outside the plots.
    QString readout(const QPoint& pos) const;

    /// The height of the legend and the first `lines` lines of plots at `width`: a scroll area
    /// shows at least one whole line.
    int heightForLines(int width, int lines) const;
    bool hasHeightForWidth() const override { return true; }
    int heightForWidth(int width) const override;
    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

protected:
    void paintEvent(QPaintEvent* event) override;
    bool event(QEvent* event) override;

private:
    using Row = Series;
    /// Where everything goes at one width.
    struct Geometry {
        int columns = 1;
        int cellWidth = 0;
        int cellHeight = 0;
        int titleLines = 1;
        int legendHeight = 0;
    };
    Geometry geometryAt(int width) const;
    QRect cellRect(const Geometry& g, int index) const;
    void paintCell(QPainter& p, const Row& row, const QRect& cell, const Geometry& g) const;
    QStringList titleLines(const QString& title, int width) const;
    QFont axisFont() const;
    QFont titleFont() const;
    /// The legend's entries and where each goes, flowed into lines `width` wide.
    /// Also what the tests read: legendTexts().
    struct LegendEntry {
        int kind; ///< 0..2: an outcome's bar, 3: the estimate, 4: the limit, 5: plain text
        QString text;
        QRect rect;
    };
    std::vector<LegendEntry> legendAt(int width) const;

    std::vector<Column> m_looks;
    std::vector<Row> m_rows;
    QString m_note;
    QString m_axis;
    int m_undrawn = 0;
    Theme m_theme = Theme::Light;
};

} // namespace qs
