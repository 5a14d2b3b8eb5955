// SPDX-License-Identifier: MIT
#pragma once

#include <QColor>
#include <QList>
#include <QPointF>
#include <QString>
#include <QVariant>
#include <optional>

class QChart;

namespace qs {

/// One line of a readout; a series' line carries its colour, drawn as a dot before the text.
struct ReadoutLine {
    QString text;
    QColor color; ///< invalid: no dot (the header line)
};

/// What the numbers under the pointer are, and where the crosshair stands for them.
struct Readout {
    QList<ReadoutLine> lines;
    std::optional<double> x; ///< the crosshair's x, in the chart's value coordinates
    bool band = false; ///< a category axis: highlight the category at x rather than draw a line
    QVariant shared; ///< the same place in a ChartCrosshair's terms (seconds, turn, test id)

    bool isEmpty() const { return lines.isEmpty(); }
    /// The lines, one per row: what the box says.
    QString text() const;
};

/// How a chart writes its x and y values in a readout: `%1` is the number, e.g. "turn %1",
/// "%1 ms", "%1 s".
struct ReadoutFormat {
    QString x = QStringLiteral("%1");
    QString y = QStringLiteral("%1");
};

/// A number as a readout writes it: whole numbers bare, else 0–2 decimals by size, thousands
/// grouped ("1,234 ms", "3", "0.42").
QString readoutNumber(double v);

/// Series properties the readout reads (Qt dynamic properties on a QXYSeries or QAreaSeries):
/// `readoutNameProperty` — the name to print when the legend's is long ("NAME: 412 ms + N / 85
/// tok/s" reads as "NAME"); `readoutRoleProperty` — "skip" (a marker such as N*, no numbers of
/// its own) or "curve" (a model or fit: its value at the pointer's x, interpolated).
inline constexpr const char* readoutNameProperty = "qsReadoutName";
inline constexpr const char* readoutRoleProperty = "qsReadoutRole";

/// The readout over the XY series of `chart` with the pointer at `pos` (chart coordinates):
/// the nearest scatter dot within a few pixels, as "name · x · y"; else the x of the nearest
/// line point, and every line's value there (a band series gives its lo–hi, a curve its value).
/// Empty outside the plot area or with nothing to read.
Readout xyReadout(QChart* chart, const QPointF& pos, const ReadoutFormat& format);
/// Every line's value at `x` (value coordinates): a crosshair shared from another chart.
Readout xyReadoutAtX(QChart* chart, double x, const ReadoutFormat& format);

} // namespace qs
