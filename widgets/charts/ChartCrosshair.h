// SPDX-License-Identifier: MIT
#pragma once

#include <QList>
#include <QObject>
#include <QPointer>
#include <QVariant>

namespace qs {

class ChartPanel;

/// What a chart's x axis means, so that a crosshair is only shared between charts where the same
/// x is the same moment or the same thing.
enum class CrosshairAxis {
    None, ///< shares nothing (tokens on one chart are not tokens on another)
    RunTime, ///< seconds since the run started (a double)
    Turn, ///< a turn of a multi-turn test (a double, 1-based)
    Test, ///< a test of the suite (its id, a QString)
};

/// The crosshair the charts of one window share: hovering one chart shows a line (or, on a
/// per-test axis, a band) and the readout at the same x in every other member on the same kind
/// of axis, and leaving it clears them all. Members tell it where the pointer is; it never looks
/// at a chart's data.
class ChartCrosshair : public QObject {
    Q_OBJECT
public:
    explicit ChartCrosshair(QObject* parent = nullptr);

    /// Adds `chart` (once); it leaves by itself when it is destroyed.
    void join(ChartPanel* chart);
    QList<ChartPanel*> members() const;

    /// `from` is hovered at `at` on an axis of kind `axis`: every other member on such an axis
    /// shows the crosshair there.
    void move(ChartPanel* from, CrosshairAxis axis, const QVariant& at);
    /// The pointer left `from`: every member clears its shared crosshair.
    void leave(ChartPanel* from);

private:
    QList<QPointer<ChartPanel>> m_members;
};

} // namespace qs
